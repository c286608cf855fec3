"""Data quality rulesets and results (per account and region).

Rulesets (:class:`RulesetService`), with Glue's rules: the DQDL text must parse
(a syntax error is ``InvalidInputException`` with the parser's line, column and
what was expected); names are unique (``AlreadyExistsException``); a repeated
CreateDataQualityRuleset with the same ``ClientToken`` is the same request and
succeeds again; ``TargetTable`` names a catalog table of the caller's catalog;
UpdateDataQualityRuleset changes only the members it is given; ruleset ARNs
(``dataQualityRuleset/<name>``) are taggable.

Results (:class:`ResultService`) come from evaluation runs and from
``EvaluateDataQuality`` in ETL jobs through glueball's own
``Glueball.PublishDataQualityResult``. ``Score`` is passed rules / all rules.
Each metric a result carries (its rules' and analyzers' ``EvaluatedMetrics``)
is kept per ``EvaluationContext`` as the history that ``last(k)`` dynamic
rules and anomaly detection read (``Glueball.GetDataQualityMetricHistory``).
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from glueball.api.pagination import decode_token, encode_token
from glueball.catalog.lookup import fold, table_row
from glueball.clock import epoch, now
from glueball.dataquality.ast import DqdlError
from glueball.dataquality.models import (
    DEFAULT_TIMEOUT_MINUTES,
    DEFAULT_WORKERS,
    DataQualityResult,
    DataQualityRun,
    ResultFilter,
    RulesetFilter,
    RunFilter,
    RunKind,
    RunState,
    StoredRuleset,
    TargetTable,
    source_table,
)
from glueball.dataquality.parser import parse
from glueball.dataquality.store import (
    add_metrics,
    compare_and_swap,
    find_ruleset_row,
    load_run,
    metric_history,
    result_metrics,
    result_query,
    ruleset_exists,
    ruleset_query,
    ruleset_row,
    run_query,
    run_row,
    scoped_run_row,
    to_result,
    to_ruleset,
)
from glueball.errors import (
    AccessDeniedException,
    AlreadyExistsException,
    EntityNotFoundException,
    InvalidInputException,
)
from glueball.jobs.models import Driver
from glueball.store.engine import Store
from glueball.store.schema import DataQualityResultRow, DataQualityRulesetRow, DataQualityRunRow, TagRow
from glueball.store.scoped import Scope
from glueball.tagging.service import delete_tags, register_resource_type, write_tags

Spec = dict[str, Any]

ARN_KIND = "dataQualityRuleset"
MAX_HISTORY = 10_000

register_resource_type(ARN_KIND, ruleset_exists)


def parsed_rule_count(text: str) -> int:
    """The number of top-level rules of a DQDL ruleset (RuleCount).

    Raises:
        InvalidInputException: the text is not valid DQDL; the message has the line, column and
            what was expected, as the parser reports it.
    """
    try:
        ruleset = parse(text)
    except DqdlError as exc:
        raise InvalidInputException(f"Invalid DQDL ruleset: {exc}") from exc
    return len(ruleset.rules)


def check_security_configuration(name: str | None) -> None:
    if name:
        raise InvalidInputException(f"Data quality security configuration {name} does not exist "
                                    "(glueball has no security configurations)")


def check_catalog(scope: Scope, catalog_id: str | None, where: str) -> None:
    if catalog_id is not None and catalog_id != scope.account_id:
        raise AccessDeniedException(f"Cross-account access to catalog {catalog_id} ({where}) is not allowed for "
                                    f"account {scope.account_id}")


class RulesetService:
    """CreateDataQualityRuleset ... ListDataQualityRulesets for one account and region."""

    def __init__(self, store: Store, scope: Scope) -> None:
        self.store = store
        self.scope = scope

    def arn(self, name: str) -> str:
        return self.scope.arn(f"{ARN_KIND}/{name}")

    def create(self, ruleset: StoredRuleset, tags: dict[str, str] | None,
               security_configuration: str | None = None) -> None:
        """Mirror CreateDataQualityRuleset.

        Raises:
            InvalidInputException: invalid DQDL, a missing target table, a tag or security configuration.
            AlreadyExistsException: a ruleset of this name exists (created by another request).
        """
        ruleset.rule_count = parsed_rule_count(ruleset.ruleset)
        check_security_configuration(security_configuration)
        target = ruleset.target_table
        stamp = now()
        try:
            with self.store.write() as session:
                if target is not None:
                    check_catalog(self.scope, target.catalog_id, "TargetTable.CatalogId")
                    try:
                        table_row(session, self.scope, target.database_name, target.table_name)
                    except EntityNotFoundException as exc:
                        raise InvalidInputException(f"TargetTable: {exc.message}") from exc
                existing = find_ruleset_row(session, self.scope, ruleset.name)
                if existing is not None:
                    if ruleset.client_token and existing.client_token == ruleset.client_token:
                        return  # the same request again (ClientToken): already done
                    raise AlreadyExistsException(f"Data Quality Ruleset with name {ruleset.name} already exists")
                session.add(DataQualityRulesetRow(
                    account_id=self.scope.account_id, region=self.scope.region, name=ruleset.name,
                    description=ruleset.description, ruleset=ruleset.ruleset, rule_count=ruleset.rule_count,
                    target_database=target.database_name if target else None,
                    target_table=target.table_name if target else None,
                    target_catalog=target.catalog_id if target else None,
                    recommendation_run_id=ruleset.recommendation_run_id, client_token=ruleset.client_token,
                    create_time=stamp, update_time=stamp))
                session.flush()
                write_tags(session, self.arn(ruleset.name), tags)
        except IntegrityError as exc:
            raise AlreadyExistsException(f"Data Quality Ruleset with name {ruleset.name} already exists") from exc

    def get(self, name: str) -> StoredRuleset:
        """Mirror GetDataQualityRuleset.

        Raises:
            EntityNotFoundException: no ruleset of this name.
        """
        with self.store.read() as session:
            return to_ruleset(ruleset_row(session, self.scope, name))

    def get_many(self, names: list[str]) -> tuple[list[StoredRuleset], list[str]]:
        """The rulesets found, in the order asked, and the names not found."""
        with self.store.read() as session:
            rows = {r.name: r for r in session.scalars(ruleset_query(self.scope)
                                                       .where(DataQualityRulesetRow.name.in_(names)))}
        found = [to_ruleset(rows[n]) for n in dict.fromkeys(names) if n in rows]
        return found, [n for n in dict.fromkeys(names) if n not in rows]

    def update(self, name: str, description: str | None, text: str | None) -> StoredRuleset:
        """Mirror UpdateDataQualityRuleset: the members given replace the stored ones.

        Raises:
            EntityNotFoundException: no ruleset of this name.
            InvalidInputException: invalid DQDL.
        """
        count = parsed_rule_count(text) if text is not None else None
        with self.store.write() as session:
            row = ruleset_row(session, self.scope, name, for_update=True)
            if description is not None:
                row.description = description
            if text is not None and count is not None:
                row.ruleset, row.rule_count = text, count
            row.update_time = now()
            return to_ruleset(row)

    def delete(self, name: str) -> None:
        """Mirror DeleteDataQualityRuleset: the ruleset and its tags go (its results stay).

        Raises:
            EntityNotFoundException: no ruleset of this name.
        """
        with self.store.write() as session:
            row = ruleset_row(session, self.scope, name, for_update=True)
            delete_tags(session, self.arn(row.name))
            session.delete(row)

    def page(self, criteria: RulesetFilter, max_results: int, token: str | None) -> tuple[list[StoredRuleset],
                                                                                          str | None]:
        """Mirror ListDataQualityRulesets: rulesets in name order that match every criterion given.

        ``Name``, ``Description`` and ``TargetTable`` match exactly; the dates are exclusive bounds;
        ``Tags`` keeps the rulesets carrying every tag given.
        """
        after = decode_token(token, str)
        query = ruleset_query(self.scope).order_by(DataQualityRulesetRow.name)
        if after is not None:
            query = query.where(DataQualityRulesetRow.name > str(after))
        column = DataQualityRulesetRow
        if criteria.name is not None:
            query = query.where(column.name == criteria.name)
        if criteria.description is not None:
            query = query.where(column.description == criteria.description)
        for bound, attribute, below in ((criteria.created_before, column.create_time, True),
                                        (criteria.created_after, column.create_time, False),
                                        (criteria.last_modified_before, column.update_time, True),
                                        (criteria.last_modified_after, column.update_time, False)):
            if bound is not None:
                query = query.where(attribute < bound if below else attribute > bound)
        if criteria.target_table is not None:
            check_catalog(self.scope, criteria.target_table.catalog_id, "Filter.TargetTable.CatalogId")
            query = query.where(column.target_database == criteria.target_table.database_name,
                                column.target_table == criteria.target_table.table_name)
        found: list[StoredRuleset] = []
        more = False
        with self.store.read() as session:
            for row in session.scalars(query):
                if criteria.tags and not self._tagged(session, row.name, criteria.tags):
                    continue
                if len(found) == max_results:
                    more = True
                    break
                found.append(to_ruleset(row))
        return found, encode_token(found[-1].name) if more else None

    def _tagged(self, session: Any, name: str, tags: Mapping[str, str]) -> bool:
        present = {r.key: r.value for r in session.scalars(select(TagRow).where(TagRow.resource_arn == self.arn(name)))}
        return all(present.get(key) == value for key, value in tags.items())


# ---------------------------------------------------------------- results


def new_result_id() -> str:
    return "dqresult-" + hashlib.sha1(uuid.uuid4().bytes).hexdigest()


def scored(spec: Spec) -> Spec:
    """The result with Glue's derived members: Score (passed / all rules) and the rule totals."""
    rules = spec.get("RuleResults") or []
    if rules:
        passed = sum(1 for r in rules if r.get("Result") == "PASS")
        failed = sum(1 for r in rules if r.get("Result") == "FAIL")
        spec["Score"] = passed / len(rules)
        aggregated = dict(spec.get("AggregatedMetrics") or {})
        aggregated.update({"TotalRulesProcessed": float(len(rules)), "TotalRulesPassed": float(passed),
                           "TotalRulesFailed": float(failed)})
        spec["AggregatedMetrics"] = aggregated
    return spec


class ResultService:
    """Publishing results, their metric history, and GetDataQualityResult ... ListDataQualityResults."""

    def __init__(self, store: Store, scope: Scope) -> None:
        self.store = store
        self.scope = scope

    def publish(self, result: Spec, metrics: Mapping[str, float] | None = None) -> str:
        """Record a result (validated against Glue's DataQualityResult shape); returns its new ResultId.

        ``metrics`` are more metric values for the history than the result's ``EvaluatedMetrics``
        (every dataset metric the evaluation computed).

        Raises:
            InvalidInputException: a ResultId, an evaluation configuration, or a RulesetEvaluationRunId of no
                evaluation run of this account.
        """
        spec: Spec = dict(result)
        if "ResultId" in spec:
            raise InvalidInputException("A published result must not carry a ResultId; the service assigns it")
        if spec.get("EvaluationRunMode", "ON_DEMAND") != "ON_DEMAND" or spec.get("DataQualityEvaluationConfig"):
            raise InvalidInputException("Data quality evaluation configurations do not exist in glueball; "
                                        "results are ON_DEMAND")
        spec["EvaluationRunMode"] = "ON_DEMAND"
        stamp = now()
        for member in ("StartedOn", "CompletedOn"):
            if spec.get(member) is not None:
                spec[member] = epoch(spec[member])
        spec.setdefault("StartedOn", stamp)
        spec.setdefault("CompletedOn", stamp)
        spec = scored(spec)
        table = None
        if spec.get("DataSource"):
            try:
                table = TargetTable.from_wire(source_table(spec["DataSource"]))
            except KeyError as exc:
                raise InvalidInputException("DataSource needs GlueTable (DatabaseName, TableName)") from exc
            check_catalog(self.scope, table.catalog_id, "DataSource.GlueTable.CatalogId")
        result_id = new_result_id()
        context = spec.get("EvaluationContext")
        with self.store.write() as session:
            run_id = spec.get("RulesetEvaluationRunId")
            if run_id is not None and session.scalars(run_query(self.scope, RunKind.EVALUATION).where(
                    DataQualityRunRow.run_id == run_id)).one_or_none() is None:
                raise InvalidInputException(f"RulesetEvaluationRunId {run_id} is no ruleset evaluation run of "
                                            f"account {self.scope.account_id}")
            row = DataQualityResultRow(
                account_id=self.scope.account_id, region=self.scope.region, result_id=result_id,
                evaluation_context=context, ruleset_name=spec.get("RulesetName"),
                database_name=fold(table.database_name) if table else None,
                table_name=fold(table.table_name) if table else None,
                job_name=spec.get("JobName"), job_run_id=spec.get("JobRunId"), evaluation_run_id=run_id,
                started_on=spec["StartedOn"], score=spec.get("Score"), spec=spec, create_time=stamp)
            session.add(row)
            session.flush()
            if context is not None:
                add_metrics(session, self.scope, row, context, result_metrics(spec, metrics))
        return result_id

    def history(self, evaluation_context: str, metrics: list[str], limit: int) -> dict[str, list[float]]:
        """The last ``limit`` values of each metric in earlier results of ``evaluation_context``, newest first."""
        if not 1 <= limit <= MAX_HISTORY:
            raise InvalidInputException(f"Limit must be between 1 and {MAX_HISTORY}, got {limit}")
        with self.store.read() as session:
            return metric_history(session, self.scope, evaluation_context, metrics, limit)

    def get(self, result_id: str) -> DataQualityResult:
        """Mirror GetDataQualityResult.

        Raises:
            EntityNotFoundException: no result of this id.
        """
        with self.store.read() as session:
            row = session.scalars(result_query(self.scope).where(
                DataQualityResultRow.result_id == result_id)).one_or_none()
            if row is None:
                raise EntityNotFoundException(f"Cannot find Data Quality Result with id {result_id}")
            return to_result(row)

    def get_many(self, result_ids: list[str]) -> tuple[list[DataQualityResult], list[str]]:
        """Mirror BatchGetDataQualityResult: the results found, and the ids not found (ResultsNotFound)."""
        with self.store.read() as session:
            rows = {r.result_id: r for r in session.scalars(result_query(self.scope).where(
                DataQualityResultRow.result_id.in_(result_ids)))}
        wanted = list(dict.fromkeys(result_ids))
        return [to_result(rows[i]) for i in wanted if i in rows], [i for i in wanted if i not in rows]

    def page(self, criteria: ResultFilter, max_results: int, token: str | None) -> tuple[list[DataQualityResult],
                                                                                          str | None]:
        """Mirror ListDataQualityResults: results newest first that match every criterion given."""
        if criteria.evaluation_config:
            return [], None
        offset = decode_token(token, int) or 0
        column = DataQualityResultRow
        query = result_query(self.scope)
        if criteria.table is not None:
            check_catalog(self.scope, criteria.table.catalog_id, "Filter.DataSource.GlueTable.CatalogId")
            query = query.where(column.database_name == fold(criteria.table.database_name),
                                column.table_name == fold(criteria.table.table_name))
        if criteria.job_name is not None:
            query = query.where(column.job_name == criteria.job_name)
        if criteria.job_run_id is not None:
            query = query.where(column.job_run_id == criteria.job_run_id)
        if criteria.started_after is not None:
            query = query.where(column.started_on > criteria.started_after)
        if criteria.started_before is not None:
            query = query.where(column.started_on < criteria.started_before)
        query = query.order_by(column.started_on.desc(), column.id.desc()).offset(offset).limit(max_results + 1)
        with self.store.read() as session:
            rows = list(session.scalars(query))
        more = len(rows) > max_results
        return [to_result(r) for r in rows[:max_results]], encode_token(offset + max_results) if more else None


# ---------------------------------------------------------------- runs

# AdditionalRunOptions members a run honours; the others write to catalog tables or CloudWatch log groups
_EVALUATION_OPTIONS = ("CloudWatchMetricsEnabled", "ResultsS3Prefix", "CompositeRuleEvaluationMethod",
                       "ObservationScope")
# GlueTable.AdditionalOptions a run passes to its catalog read (Glue's documented keys)
_TABLE_OPTIONS = ("pushDownPredicate", "catalogPartitionPredicate")


def new_run_id() -> str:
    return "dqrun-" + hashlib.sha1(uuid.uuid4().bytes).hexdigest()


def _checked_source(session: Any, scope: Scope, data_source: Spec, where: str) -> Spec:
    """A run's DataSource: a GlueTable of an existing catalog table, with only options glueball honours.

    Raises:
        InvalidInputException: another kind of source, a connection or an option glueball cannot honour.
        EntityNotFoundException: the database or table does not exist.
    """
    if data_source.get("DataQualityGlueTable") is not None:
        raise InvalidInputException(f"{where}.DataQualityGlueTable (with PreProcessingQuery) is not supported by "
                                    "glueball; use GlueTable")
    table = data_source.get("GlueTable")
    if table is None:
        raise InvalidInputException(f"{where} needs GlueTable (DatabaseName, TableName)")
    check_catalog(scope, table.get("CatalogId"), f"{where}.GlueTable.CatalogId")
    if table.get("ConnectionName"):
        raise InvalidInputException(f"{where}.GlueTable.ConnectionName is not supported by glueball; data quality "
                                    "runs read catalog tables")
    unknown = sorted(set(table.get("AdditionalOptions") or {}) - set(_TABLE_OPTIONS))
    if unknown:
        raise InvalidInputException(f"{where}.GlueTable.AdditionalOptions {', '.join(unknown)} not supported; "
                                    f"glueball honours {', '.join(_TABLE_OPTIONS)}")
    table_row(session, scope, table["DatabaseName"], table["TableName"])
    return {"GlueTable": dict(table)}


def run_spec(kind: RunKind, request: Spec) -> Spec:
    """A Start request's members as the run keeps them, Glue's defaults filled.

    Raises:
        InvalidInputException: a value or option Glue refuses or glueball cannot honour.
    """
    spec: Spec = {"DataSource": request["DataSource"], "Role": request["Role"],
                  "NumberOfWorkers": request.get("NumberOfWorkers") or DEFAULT_WORKERS,
                  "Timeout": request.get("Timeout") or DEFAULT_TIMEOUT_MINUTES}
    if spec["NumberOfWorkers"] < 2:
        raise InvalidInputException(f"NumberOfWorkers must be at least 2, got {spec['NumberOfWorkers']}")
    options = dict(request.get("AdditionalRunOptions") or {})
    if kind is RunKind.EVALUATION:
        names = list(request["RulesetNames"])
        if len(set(names)) != len(names):
            raise InvalidInputException(f"RulesetNames names a ruleset twice: {names}")
        spec["RulesetNames"] = names
        unsupported = sorted(set(options) - set(_EVALUATION_OPTIONS))
        if request.get("AdditionalDataSources"):
            spec["AdditionalDataSources"] = request["AdditionalDataSources"]
    else:
        check_security_configuration(request.get("DataQualitySecurityConfiguration"))
        unsupported = sorted(options)
        if request.get("RecommendationMode", "BASIC") != "BASIC":
            raise InvalidInputException(f"RecommendationMode {request['RecommendationMode']} is not supported by "
                                        "glueball; recommendations are BASIC")
        if request.get("CreatedRulesetName"):
            spec["CreatedRulesetName"] = request["CreatedRulesetName"]
        if request.get("RecommendationMode"):
            spec["RecommendationMode"] = request["RecommendationMode"]
    if unsupported:
        raise InvalidInputException(f"AdditionalRunOptions {', '.join(unsupported)} not supported by glueball "
                                    "(no CloudWatch log groups or result tables)")
    prefix = options.get("ResultsS3Prefix")
    if prefix is not None and not prefix.startswith("s3://"):
        raise InvalidInputException(f"ResultsS3Prefix must be an s3:// path, got {prefix!r}")
    if options:
        spec["AdditionalRunOptions"] = options
    return spec


def _same_request(existing: Spec, spec: Spec) -> bool:
    return json.dumps(existing, sort_keys=True) == json.dumps(spec, sort_keys=True)


class RunService:
    """StartDataQuality*Run's bookkeeping, Get/List/BatchGet/Cancel, and the run state machine's transitions."""

    def __init__(self, store: Store, scope: Scope, kind: RunKind) -> None:
        self.store = store
        self.scope = scope
        self.kind = kind

    def begin(self, request: Spec, runner: str, access_key: str | None, log_root: Path) -> tuple[DataQualityRun,
                                                                                                  bool]:
        """Mirror StartDataQuality*Run's checks and record a STARTING run; the runner launches its driver.

        Returns:
            the run, and whether it is new (False: the same ClientToken started it before).

        Raises:
            EntityNotFoundException: a table or ruleset does not exist.
            InvalidInputException: a value or option glueball refuses; a ClientToken of another request.
        """
        spec = run_spec(self.kind, request)
        token = request.get("ClientToken")
        stamp = now()
        run_id = new_run_id()
        log_dir = log_root / "data-quality" / run_id
        with self.store.write() as session:
            spec["DataSource"] = _checked_source(session, self.scope, spec["DataSource"], "DataSource")
            for alias, source in (spec.get("AdditionalDataSources") or {}).items():
                spec["AdditionalDataSources"][alias] = _checked_source(session, self.scope, source,
                                                                       f"AdditionalDataSources.{alias}")
            if self.kind is RunKind.EVALUATION:
                _, missing = self._rulesets(session, spec["RulesetNames"])
                if missing:
                    raise EntityNotFoundException(f"Cannot find Data Quality Ruleset(s) in account "
                                                  f"{self.scope.account_id} with name {', '.join(missing)}")
            elif spec.get("CreatedRulesetName") and ruleset_exists(session, self.scope, spec["CreatedRulesetName"]):
                raise InvalidInputException(f"Data Quality Ruleset with name {spec['CreatedRulesetName']} already "
                                            "exists (CreatedRulesetName)")
            if token:
                earlier = session.scalars(run_query(self.scope, self.kind)
                                          .where(DataQualityRunRow.client_token == token)).one_or_none()
                if earlier is not None:
                    if not _same_request(earlier.spec, spec):
                        raise InvalidInputException(f"ClientToken {token} was used by another request "
                                                    f"(run {earlier.run_id})")
                    return load_run(session, earlier), False
            table = TargetTable.from_wire(spec["DataSource"]["GlueTable"])
            session.add(DataQualityRunRow(
                account_id=self.scope.account_id, region=self.scope.region, run_id=run_id, kind=self.kind.value,
                status=RunState.STARTING.value, database_name=fold(table.database_name),
                table_name=fold(table.table_name),
                spec=spec, client_token=token, started_on=stamp, last_modified_on=stamp, execution_time=0,
                runner=runner, heartbeat=stamp, log_dir=str(log_dir), access_key=access_key))
            session.flush()
            created = run_row(session, run_id)
            assert created is not None
            return load_run(session, created), True

    def _rulesets(self, session: Any, names: list[str]) -> tuple[dict[str, str], list[str]]:
        rows = {r.name: r.ruleset for r in session.scalars(
            ruleset_query(self.scope).where(DataQualityRulesetRow.name.in_(names)))}
        return rows, [n for n in names if n not in rows]

    def ruleset_texts(self, names: list[str]) -> dict[str, str]:
        """The DQDL of the rulesets a run evaluates, as they are now (a missing one is left out)."""
        with self.store.read() as session:
            return self._rulesets(session, names)[0]

    def get(self, run_id: str) -> DataQualityRun:
        """Mirror GetDataQualityRulesetEvaluationRun / GetDataQualityRuleRecommendationRun.

        Raises:
            EntityNotFoundException: no run of this id (and kind).
        """
        with self.store.read() as session:
            return load_run(session, scoped_run_row(session, self.scope, self.kind, run_id))

    def get_many(self, run_ids: list[str]) -> tuple[list[DataQualityRun], list[str]]:
        """Mirror BatchGetDataQualityRulesetEvaluationRun: the runs found and the ids not found."""
        wanted = list(dict.fromkeys(run_ids))
        with self.store.read() as session:
            rows = {r.run_id: r for r in session.scalars(run_query(self.scope, self.kind)
                                                         .where(DataQualityRunRow.run_id.in_(wanted)))}
            found = [load_run(session, rows[i]) for i in wanted if i in rows]
        return found, [i for i in wanted if i not in rows]

    def page(self, criteria: RunFilter, max_results: int, token: str | None) -> tuple[list[DataQualityRun],
                                                                                       str | None]:
        """Mirror ListDataQuality*Runs: runs newest first that match every criterion given."""
        offset = decode_token(token, int) or 0
        column = DataQualityRunRow
        query = run_query(self.scope, self.kind)
        if criteria.table is not None:
            check_catalog(self.scope, criteria.table.catalog_id, "Filter.DataSource.GlueTable.CatalogId")
            query = query.where(column.database_name == fold(criteria.table.database_name),
                                column.table_name == fold(criteria.table.table_name))
        if criteria.started_after is not None:
            query = query.where(column.started_on > criteria.started_after)
        if criteria.started_before is not None:
            query = query.where(column.started_on < criteria.started_before)
        query = query.order_by(column.started_on.desc(), column.id.desc())
        found: list[DataQualityRun] = []
        skipped = 0
        more = False
        with self.store.read() as session:
            for row in session.scalars(query):
                if criteria.ruleset_name is not None and criteria.ruleset_name not in row.spec.get("RulesetNames", []):
                    continue
                if skipped < offset:
                    skipped += 1
                    continue
                if len(found) == max_results:
                    more = True
                    break
                found.append(load_run(session, row))
        return found, encode_token(offset + max_results) if more else None

    def request_cancel(self, run_id: str) -> Driver | None:
        """Mirror CancelDataQuality*Run: an active run becomes STOPPING (compare-and-swap).

        Returns:
            the run's driver to signal (None when it has none yet).

        Raises:
            EntityNotFoundException: no run of this id.
            InvalidInputException: the run has ended.
        """
        with self.store.write() as session:
            row = scoped_run_row(session, self.scope, self.kind, run_id)
            state = RunState(row.status)
            if state is not RunState.STOPPING and not (
                    state in (RunState.STARTING, RunState.RUNNING)
                    and compare_and_swap(session, run_id, state, RunState.STOPPING, last_modified_on=now())):
                session.expire(row)
                current = run_row(session, run_id)
                shown = current.status if current is not None else state.value
                raise InvalidInputException(f"The {self.kind.noun} {run_id} cannot be cancelled in its current "
                                            f"state {shown}")
            return Driver(run_id, row.driver_host, row.driver_pid, row.driver_start)
