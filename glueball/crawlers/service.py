"""Crawlers: definitions, state, crawl history and metrics (per account and region).

Glue's rules mirrored here: a running (or stopping) crawler cannot be updated,
deleted or started again (``CrawlerRunningException``); only a running one can
be stopped (``CrawlerNotRunningException``, ``CrawlerStoppingException``);
``Version`` grows by one on every UpdateCrawler; ``CRAWL_NEW_FOLDERS_ONLY``
requires the schema change policy ``LOG``/``LOG``. Classifiers live in
:mod:`glueball.crawlers.classifiers`; running crawls in :mod:`glueball.crawlers.crawl_runs`.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from glueball.api.pagination import decode_token, encode_token
from glueball.clock import now
from glueball.crawlers.models import (
    CRAWL_STATE_OF_STATUS,
    Crawl,
    Crawler,
    CrawlerMetrics,
    CrawlerState,
    CrawlState,
    CrawlStats,
    LastCrawl,
    LastCrawlStatus,
    Schedule,
    ScheduleState,
)
from glueball.crawlers.schedule import checked_schedule
from glueball.crawlers.store import (
    compare_and_swap,
    crawl_row,
    crawler_exists,
    crawler_query,
    crawler_row,
    find_classifier_row,
    find_crawler_row,
    finished_crawls,
    to_crawl,
    to_crawler,
)
from glueball.errors import (
    AlreadyExistsException,
    CrawlerNotRunningException,
    CrawlerRunningException,
    CrawlerStoppingException,
    InvalidInputException,
)
from glueball.store.documents import require_security_configuration
from glueball.store.engine import Store
from glueball.store.schema import CrawlerRow, CrawlRow
from glueball.store.scoped import Scope
from glueball.tagging.service import delete_tags, list_tagged_names, register_resource_type, write_tags

Spec = dict[str, Any]

DEFAULTS: Spec = {
    "Classifiers": [],
    "SchemaChangePolicy": {"UpdateBehavior": "UPDATE_IN_DATABASE", "DeleteBehavior": "DEPRECATE_IN_DATABASE"},
    "RecrawlPolicy": {"RecrawlBehavior": "CRAWL_EVERYTHING"},
    "LineageConfiguration": {"CrawlerLineageSettings": "DISABLE"},
    "LakeFormationConfiguration": {"UseLakeFormationCredentials": False, "AccountId": ""},
}
SPEC_MEMBERS = ("Role", "DatabaseName", "Description", "Targets", "Classifiers", "TablePrefix", "SchemaChangePolicy",
                "RecrawlPolicy", "LineageConfiguration", "LakeFormationConfiguration", "Configuration",
                "CrawlerSecurityConfiguration")
TARGET_LISTS = ("S3Targets", "JdbcTargets", "MongoDBTargets", "DynamoDBTargets", "CatalogTargets", "DeltaTargets",
                "IcebergTargets", "HudiTargets")
_UNSUPPORTED_TARGETS = {"MongoDBTargets": "MongoDB", "DynamoDBTargets": "DynamoDB",
                        "HudiTargets": "Hudi (no Hudi bundle is built for Spark 4.1; see docs/table_formats.md)"}
MAX_SAMPLE_SIZE = 249

register_resource_type("crawler", crawler_exists)


# ---------------------------------------------------------------- validation

def _check_keys(where: str, value: Any, allowed: dict[str, Callable[[str, Any], None]]) -> None:
    if not isinstance(value, dict):
        raise InvalidInputException(f"Crawler configuration is not valid: {where} must be a JSON object")
    for key, item in value.items():
        check = allowed.get(key)
        if check is None:
            raise InvalidInputException(
                f"Crawler configuration is not valid: unknown key {where}.{key}; expected one of "
                + ", ".join(sorted(allowed)))
        check(f"{where}.{key}", item)


def _one_of(*choices: str) -> Callable[[str, Any], None]:
    def check(where: str, value: Any) -> None:
        if value not in choices:
            raise InvalidInputException(
                f"Crawler configuration is not valid: {where} must be {' or '.join(choices)}, got {value!r}")
    return check


def _positive_int(where: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidInputException(
            f"Crawler configuration is not valid: {where} must be a positive integer, got {value!r}")


def _boolean(where: str, value: Any) -> None:
    if not isinstance(value, bool):
        raise InvalidInputException(f"Crawler configuration is not valid: {where} must be true or false")


def _version(where: str, value: Any) -> None:
    if isinstance(value, bool) or value != 1.0:
        raise InvalidInputException(f"Crawler configuration is not valid: Version must be 1.0, got {value!r}")


def check_configuration(text: str) -> Spec:
    """Validate a crawler ``Configuration`` (Version 1.0 JSON) as Glue does; return it parsed.

    Keys: ``Version``, ``CrawlerOutput.Partitions.AddOrUpdateBehavior`` (``InheritFromTable``),
    ``CrawlerOutput.Tables.AddOrUpdateBehavior`` (``MergeNewColumns``), ``CrawlerOutput.Tables.TableThreshold``,
    ``Grouping.TableGroupingPolicy`` (``CombineCompatibleSchemas``), ``Grouping.TableLevelConfiguration``,
    ``CreatePartitionIndex``.

    Raises:
        InvalidInputException: not JSON, an unknown key, or a value Glue does not accept.
    """
    try:
        config = json.loads(text)
    except ValueError as exc:
        raise InvalidInputException(f"Crawler configuration is not valid JSON: {exc}") from exc
    if isinstance(config, dict) and "Version" not in config:
        raise InvalidInputException("Crawler configuration is not valid: Version is required (\"Version\": 1.0)")
    _check_keys("Configuration", config, {
        "Version": _version,
        "CrawlerOutput": lambda where, value: _check_keys(where, value, {
            "Partitions": lambda w, v: _check_keys(w, v, {"AddOrUpdateBehavior": _one_of("InheritFromTable")}),
            "Tables": lambda w, v: _check_keys(w, v, {"AddOrUpdateBehavior": _one_of("MergeNewColumns"),
                                                      "TableThreshold": _positive_int}),
        }),
        "Grouping": lambda where, value: _check_keys(where, value, {
            "TableGroupingPolicy": _one_of("CombineCompatibleSchemas"),
            "TableLevelConfiguration": _positive_int,
        }),
        "CreatePartitionIndex": _boolean,
    })
    parsed: Spec = config
    return parsed


def _check_targets(targets: Spec) -> None:
    for member, label in _UNSUPPORTED_TARGETS.items():
        if targets.get(member):
            raise InvalidInputException(f"{member} ({label}) are not supported by glueball; supported targets are "
                                        "S3Targets, JdbcTargets, CatalogTargets, DeltaTargets and IcebergTargets")
    s3, jdbc, catalog, delta, iceberg = (targets.get(m) or [] for m in (
        "S3Targets", "JdbcTargets", "CatalogTargets", "DeltaTargets", "IcebergTargets"))
    if not (s3 or jdbc or catalog or delta or iceberg):
        raise InvalidInputException("A crawler needs at least one target: S3Targets, JdbcTargets, CatalogTargets, "
                                    "DeltaTargets or IcebergTargets")
    for member, paths_key, items in (("DeltaTargets", "DeltaTables", delta), ("IcebergTargets", "Paths", iceberg)):
        for target in items:
            if not target.get(paths_key):
                raise InvalidInputException(f"{member} need {paths_key} (s3:// paths of tables)")
            for path in target[paths_key]:
                if not str(path).startswith("s3://") or len(str(path)) <= len("s3://"):
                    raise InvalidInputException(f"{member} {paths_key} must be s3://bucket/prefix paths, got {path!r}")
            if target.get("ConnectionName"):
                raise InvalidInputException(f"{member} ConnectionName is not supported by glueball (tables are read "
                                            "from its object store)")
    if catalog and (s3 or jdbc or delta or iceberg):
        raise InvalidInputException("A crawler with CatalogTargets cannot have other kinds of targets")
    for target in s3:
        path = target.get("Path") or ""
        if not path.startswith("s3://") or len(path) <= len("s3://"):
            raise InvalidInputException(f"S3Targets Path must be an s3://bucket/prefix path, got {path!r}")
        sample = target.get("SampleSize")
        if sample is not None and not 1 <= sample <= MAX_SAMPLE_SIZE:
            raise InvalidInputException(f"S3Targets SampleSize must be between 1 and {MAX_SAMPLE_SIZE}, got {sample}")
        _no_event_queue("S3Targets", target)
    for target in jdbc:
        if not target.get("ConnectionName"):
            raise InvalidInputException("JdbcTargets require a ConnectionName")
        if not target.get("Path"):
            raise InvalidInputException("JdbcTargets require a Path (database/schema/table, % as wildcard)")
    for target in catalog:
        _no_event_queue("CatalogTargets", target)


def _no_event_queue(member: str, target: Spec) -> None:
    for key in ("EventQueueArn", "DlqEventQueueArn"):
        if target.get(key):
            raise InvalidInputException(f"{member} {key} is not supported by glueball (no S3 event notifications)")


def check_crawler_spec(spec: Spec) -> None:
    """Validate a complete crawler definition (defaults filled) with Glue's cross-member rules.

    Raises:
        InvalidInputException: naming the member and the value Glue would refuse.
    """
    targets = spec.get("Targets") or {}
    _check_targets(targets)
    recrawl = spec["RecrawlPolicy"].get("RecrawlBehavior", "CRAWL_EVERYTHING")
    if recrawl == "CRAWL_EVENT_MODE":
        raise InvalidInputException("RecrawlBehavior CRAWL_EVENT_MODE is not supported by glueball "
                                    "(no S3 event notifications)")
    if recrawl == "CRAWL_NEW_FOLDERS_ONLY":
        policy = spec["SchemaChangePolicy"]
        if policy.get("UpdateBehavior") != "LOG" or policy.get("DeleteBehavior") != "LOG":
            raise InvalidInputException(
                "The SchemaChangePolicy of a crawler with RecrawlBehavior CRAWL_NEW_FOLDERS_ONLY must have "
                f"UpdateBehavior LOG and DeleteBehavior LOG, got {policy.get('UpdateBehavior')} and "
                f"{policy.get('DeleteBehavior')}")
        if targets.get("JdbcTargets") or targets.get("CatalogTargets"):
            raise InvalidInputException("RecrawlBehavior CRAWL_NEW_FOLDERS_ONLY applies to S3Targets only")
    if spec["LakeFormationConfiguration"].get("UseLakeFormationCredentials"):
        raise InvalidInputException("LakeFormationConfiguration.UseLakeFormationCredentials is not supported "
                                    "by glueball")
    if spec.get("Configuration"):
        check_configuration(spec["Configuration"])
    if len(set(spec["Classifiers"])) != len(spec["Classifiers"]):
        raise InvalidInputException(f"Classifiers lists a classifier twice: {spec['Classifiers']}")


def crawler_spec(request: Spec, base: Spec | None = None) -> Spec:
    """The stored definition: ``base`` (or Glue's defaults) with the request's definition members applied."""
    spec: Spec = json.loads(json.dumps(base)) if base is not None else json.loads(json.dumps(DEFAULTS))
    for member in SPEC_MEMBERS:
        if member not in request or request[member] is None:
            continue
        value = request[member]
        if member == "Description" and value == "":
            spec.pop(member, None)  # DescriptionStringRemovable: "" removes it
        elif member in ("SchemaChangePolicy", "LineageConfiguration", "LakeFormationConfiguration",
                        "RecrawlPolicy"):
            spec[member] = {**DEFAULTS[member], **value}
        elif member == "Targets":
            spec[member] = {key: list(value.get(key) or []) for key in TARGET_LISTS}
        else:
            spec[member] = value
    return spec


# ---------------------------------------------------------------- ListCrawls filters

_TEXT_OPERATORS = ("EQ", "NE")
_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "GT": lambda a, b: a > b, "GE": lambda a, b: a >= b, "LT": lambda a, b: a < b,
    "LE": lambda a, b: a <= b, "EQ": lambda a, b: a == b, "NE": lambda a, b: a != b,
}


@dataclass(frozen=True)
class CrawlFilter:
    """One CrawlsFilter of ListCrawls; times are epoch milliseconds as Glue documents."""

    field: str
    operator: str
    value: Any

    @classmethod
    def parse(cls, wire: Spec) -> CrawlFilter:
        field, operator, text = wire.get("FieldName"), wire.get("FilterOperator"), wire.get("FieldValue")
        if field is None or operator is None or text is None:
            raise InvalidInputException("A crawls filter needs FieldName, FilterOperator and FieldValue")
        if field in ("CRAWL_ID", "STATE"):
            if operator not in _TEXT_OPERATORS:
                raise InvalidInputException(f"Filter operator {operator} does not apply to {field}; use EQ or NE")
            if field == "STATE" and text not in CrawlState.__members__:
                raise InvalidInputException(
                    f"Invalid STATE filter value {text!r}; expected one of {', '.join(CrawlState.__members__)}")
            return cls(field, operator, text)
        try:
            number = float(text)
        except ValueError as exc:
            unit = "an epoch timestamp in milliseconds" if field.endswith("_TIME") else "a number"
            raise InvalidInputException(f"Invalid {field} filter value {text!r}: expected {unit}") from exc
        return cls(field, operator, number)

    def accepts(self, crawl: Crawl) -> bool:
        actual: Any
        if self.field == "CRAWL_ID":
            actual = crawl.crawl_id
        elif self.field == "STATE":
            actual = crawl.state.value
        elif self.field == "START_TIME":
            actual = crawl.start_time * 1000
        elif self.field == "END_TIME":
            if crawl.end_time is None:
                return False
            actual = crawl.end_time * 1000
        else:
            actual = dpu_hours(crawl)
        return _COMPARE[self.operator](actual, self.value)


def dpu_hours(crawl: Crawl) -> float:
    """DPU hours of a crawl: glueball crawls on one worker, so one DPU for the crawl's duration."""
    return round((crawl.runtime_seconds or 0.0) / 3600.0, 6)


# ---------------------------------------------------------------- the service

@dataclass
class CrawlStart:
    """A crawl that StartCrawler (or ``glueball crawl``) began: hand it to the runner."""

    crawler: Crawler
    crawl_id: str
    previous_state: Spec | None


class CrawlerService:
    """CreateCrawler ... ListCrawls for one account and region."""

    def __init__(self, store: Store, scope: Scope) -> None:
        self.store = store
        self.scope = scope

    def arn(self, name: str) -> str:
        return self.scope.arn(f"crawler/{name}")

    def _check_classifiers(self, session: Session, names: list[str]) -> None:
        for name in names:
            if find_classifier_row(session, self.scope, name) is None:
                raise InvalidInputException(f"Classifier with name {name} does not exist")

    def create(self, name: str, spec: Spec, schedule: str | None, tags: dict[str, str] | None) -> None:
        """Mirror CreateCrawler: a new READY crawler, SCHEDULED if it has a schedule, with its tags.

        Raises:
            InvalidInputException: an invalid definition, schedule, classifier or tag.
            AlreadyExistsException: a crawler of this name exists.
        """
        check_crawler_spec(spec)
        expression = checked_schedule(schedule) if schedule else None
        stamp = now()
        try:
            with self.store.write() as session:
                self._check_classifiers(session, spec["Classifiers"])
                require_security_configuration(session, self.scope, spec.get("CrawlerSecurityConfiguration"))
                session.add(CrawlerRow(
                    account_id=self.scope.account_id, region=self.scope.region, name=name, spec=spec, version=1,
                    state=CrawlerState.READY.value, schedule=expression,
                    schedule_state=ScheduleState.SCHEDULED.value if expression else None,
                    create_time=stamp, update_time=stamp))
                session.flush()
                write_tags(session, self.arn(name), tags)
        except IntegrityError as exc:
            raise AlreadyExistsException(f"{self.scope.account_id}:{name} already exists") from exc

    def get(self, name: str) -> Crawler:
        """Mirror GetCrawler.

        Raises:
            EntityNotFoundException: no crawler of this name.
        """
        with self.store.read() as session:
            return to_crawler(crawler_row(session, self.scope, name))

    def page(self, max_results: int, token: str | None) -> tuple[list[Crawler], str | None]:
        """Mirror GetCrawlers: crawlers in name order, a page at a time."""
        rows = self._page_rows(max_results, token)
        found = [to_crawler(row) for row in rows[:max_results]]
        return found, encode_token(found[-1].name) if len(rows) > max_results else None

    def _page_rows(self, max_results: int, token: str | None) -> list[CrawlerRow]:
        after = decode_token(token, str)
        query = crawler_query(self.scope).order_by(CrawlerRow.name).limit(max_results + 1)
        if after is not None:
            query = query.where(CrawlerRow.name > str(after))
        with self.store.read() as session:
            return list(session.scalars(query))

    def get_many(self, names: list[str]) -> tuple[list[Crawler], list[str]]:
        """Mirror BatchGetCrawlers: the crawlers found, and the names not found (CrawlersNotFound)."""
        found: list[Crawler] = []
        missing: list[str] = []
        with self.store.read() as session:
            rows = {r.name: r for r in session.scalars(crawler_query(self.scope).where(CrawlerRow.name.in_(names)))}
        for name in dict.fromkeys(names):
            row = rows.get(name)
            if row is None:
                missing.append(name)
            else:
                found.append(to_crawler(row))
        return found, missing

    def names(self, max_results: int, token: str | None, tags: dict[str, str] | None) -> tuple[list[str], str | None]:
        """Mirror ListCrawlers: names in order; with ``tags``, only those carrying all of them."""
        return list_tagged_names(self.store, CrawlerRow, self.scope, self.arn, max_results, token, tags)

    def update(self, name: str, request: Spec) -> None:
        """Mirror UpdateCrawler: given members replace the stored ones; Version grows by one.

        A ``Schedule`` of "" removes the schedule; a new schedule keeps the schedule's state,
        or is SCHEDULED if the crawler had none.

        Raises:
            EntityNotFoundException: no crawler of this name.
            CrawlerRunningException: the crawler is running or stopping.
            InvalidInputException: the updated definition is invalid.
        """
        with self.store.write() as session:
            row = crawler_row(session, self.scope, name, for_update=True)
            if row.state != CrawlerState.READY.value:
                raise CrawlerRunningException(f"Crawler with name {name} is {row.state}; "
                                              "stop it before updating it")
            spec = crawler_spec(request, row.spec)
            check_crawler_spec(spec)
            self._check_classifiers(session, spec["Classifiers"])
            require_security_configuration(session, self.scope, spec.get("CrawlerSecurityConfiguration"))
            if "Schedule" in request and request["Schedule"] is not None:
                self._set_schedule(row, request["Schedule"])
            row.spec = spec
            row.version += 1
            row.update_time = now()

    @staticmethod
    def _set_schedule(row: CrawlerRow, expression: str) -> None:
        row.next_fire = None  # the scheduler computes the next fire from the schedule now in force
        if not expression:
            row.schedule, row.schedule_state = None, None
            return
        row.schedule = checked_schedule(expression)
        if row.schedule_state is None:
            row.schedule_state = ScheduleState.SCHEDULED.value

    def delete(self, name: str) -> None:
        """Mirror DeleteCrawler: not while it runs; its tags and crawl history go with it.

        Raises:
            EntityNotFoundException: no crawler of this name.
            CrawlerRunningException: the crawler is running or stopping.
        """
        with self.store.write() as session:
            row = crawler_row(session, self.scope, name, for_update=True)
            if row.state != CrawlerState.READY.value:
                raise CrawlerRunningException(f"Crawler with name {name} is {row.state}; "
                                              "stop it before deleting it")
            delete_tags(session, self.arn(row.name))
            for crawl in session.scalars(select(CrawlRow).where(CrawlRow.crawler_id == row.id)):
                session.delete(crawl)
            session.delete(row)

    # -- running

    def begin_crawl(self, name: str, runner: str, access_key: str | None, workflow_run_id: str | None = None,
                    fire_id: int | None = None) -> CrawlStart:
        """Mirror StartCrawler's state change: READY -> RUNNING by compare-and-swap, with a RUNNING crawl.

        ``runner`` is the identity of the process that runs it (``host:pid:boot``), whose host keeps the crawl's
        log. ``workflow_run_id`` and ``fire_id`` record which workflow run and trigger fire started the crawl.

        Raises:
            EntityNotFoundException: no crawler of this name.
            CrawlerRunningException: the crawler is already running or stopping.
        """
        crawl_id = str(uuid.uuid4())
        stamp = now()
        with self.store.write() as session:
            row = crawler_row(session, self.scope, name)
            if row.state != CrawlerState.READY.value or not compare_and_swap(
                    session, row.id, CrawlerState.READY, CrawlerState.RUNNING, current_crawl=crawl_id,
                    crawl_start=stamp, runner=runner, heartbeat=stamp):
                raise CrawlerRunningException(f"Crawler with name {name} has already started")
            session.add(CrawlRow(crawler_id=row.id, crawl_id=crawl_id, state=CrawlState.RUNNING.value,
                                 start_time=stamp, stats={}, access_key=access_key,
                                 workflow_run_id=workflow_run_id, fire_id=fire_id,
                                 host=runner.partition(":")[0] or None))
            session.flush()
            session.expire(row)
            crawler = to_crawler(crawler_row(session, self.scope, name))
            return CrawlStart(crawler, crawl_id, row.crawl_state)

    def request_stop(self, name: str) -> None:
        """Mirror StopCrawler: RUNNING -> STOPPING; the crawl notices and ends CANCELLED.

        Raises:
            EntityNotFoundException: no crawler of this name.
            CrawlerNotRunningException: the crawler is READY.
            CrawlerStoppingException: the crawler is already stopping.
        """
        with self.store.write() as session:
            row = crawler_row(session, self.scope, name)
            if row.state == CrawlerState.RUNNING.value and compare_and_swap(
                    session, row.id, CrawlerState.RUNNING, CrawlerState.STOPPING):
                return
            session.expire(row)
            state = crawler_row(session, self.scope, name).state
        if state == CrawlerState.STOPPING.value:
            raise CrawlerStoppingException(f"Crawler with name {name} is already stopping")
        raise CrawlerNotRunningException(f"Crawler with name {name} isn't running")

    def stop_requested(self, crawl_id: str) -> bool:
        """Whether the crawler running ``crawl_id`` was asked to stop (or no longer runs it)."""
        with self.store.read() as session:
            row = session.scalars(select(CrawlerRow).where(CrawlerRow.current_crawl == crawl_id)).one_or_none()
            return row is None or row.state != CrawlerState.RUNNING.value

    def finish_crawl(self, crawl_id: str, status: LastCrawlStatus, error: str | None, stats: CrawlStats,
                     engine_state: Spec | None) -> bool:
        """Record how a crawl ended and make its crawler READY; False if the crawl was no longer current.

        The engine's state is kept only after a successful crawl, so that an incremental crawl after a
        failed or cancelled one starts from the last complete picture.
        """
        stamp = now()
        with self.store.write() as session:
            crawl = crawl_row(session, crawl_id)
            if crawl is None:
                return False
            row = session.get(CrawlerRow, crawl.crawler_id, with_for_update=True)
            if row is None or row.current_crawl != crawl_id:
                return False
            crawl.state = CRAWL_STATE_OF_STATUS[status].value
            crawl.end_time = stamp
            crawl.error_message = error
            crawl.stats = stats.to_json()
            last = LastCrawl(status, crawl_id, crawl.start_time, error, row.name)
            values: Spec = {"current_crawl": None, "crawl_start": None, "runner": None, "heartbeat": None,
                            "last_crawl": last.to_json()}
            if status is LastCrawlStatus.SUCCEEDED:
                values["crawl_state"] = engine_state
            return compare_and_swap(session, row.id, CrawlerState(row.state), CrawlerState.READY, **values)

    def abandon_unrecorded(self, row_id: int, state: str, message: str) -> bool:
        """READY with a FAILED last crawl, for a crawler marked running without a crawl of record."""
        stamp = now()
        last = LastCrawl(LastCrawlStatus.FAILED, str(uuid.uuid4()), stamp, message, None)
        with self.store.write() as session:
            row = session.get(CrawlerRow, row_id)
            if row is None:
                return False
            last.log_stream = row.name
            return compare_and_swap(session, row_id, CrawlerState(state), CrawlerState.READY, runner=None,
                                    crawl_start=None, heartbeat=None, last_crawl=last.to_json())

    def crawls(self, name: str, filters: list[CrawlFilter], max_results: int,
               token: str | None) -> tuple[list[Crawl], str | None]:
        """Mirror ListCrawls: the crawler's crawls, newest first, that pass every filter."""
        offset = decode_token(token, int) or 0
        with self.store.read() as session:
            row = crawler_row(session, self.scope, name)
            query = (select(CrawlRow).where(CrawlRow.crawler_id == row.id)
                     .order_by(CrawlRow.start_time.desc(), CrawlRow.id.desc()))
            crawls = [to_crawl(r, row.name) for r in session.scalars(query)]
        matching = [c for c in crawls if all(f.accepts(c) for f in filters)]
        page = matching[offset:offset + max_results]
        more = offset + max_results < len(matching)
        return page, encode_token(offset + max_results) if more else None

    def metrics(self, names: list[str] | None, max_results: int,
                token: str | None) -> tuple[list[CrawlerMetrics], str | None]:
        """Mirror GetCrawlerMetrics: named crawlers (unknown names are skipped), or all, a page at a time."""
        stamp = now()
        if names is None:
            rows = self._page_rows(max_results, token)
            more = len(rows) > max_results
            rows = rows[:max_results]
        else:
            more = False
            with self.store.read() as session:
                rows = list(session.scalars(crawler_query(self.scope).where(CrawlerRow.name.in_(names))))
            order = {name: index for index, name in enumerate(names)}
            rows.sort(key=lambda r: order[r.name])
        result: list[CrawlerMetrics] = []
        with self.store.read() as session:
            for row in rows:
                result.append(CrawlerMetrics.of(to_crawler(row), finished_crawls(session, row), stamp))
        return result, encode_token(rows[-1].name) if more and rows else None

    def set_schedule_state(self, name: str, target: ScheduleState,
                           check: Callable[[str, Schedule | None], None]) -> None:
        """Move the crawler's schedule to ``target`` after ``check(name, schedule)`` allows it."""
        with self.store.write() as session:
            row = crawler_row(session, self.scope, name, for_update=True)
            crawler = to_crawler(row)
            check(name, crawler.schedule)
            row.schedule_state = target.value
            row.next_fire = None

    def arm_schedule(self, name: str, clock_now: float) -> None:
        """Set when a SCHEDULED schedule that was just created or changed fires first, from the scheduler's now.

        The scheduler would otherwise arm it at its next tick, and a due time in between would pass unseen.
        """
        from glueball.cron import parse_cron

        with self.store.write() as session:
            row = find_crawler_row(session, self.scope, name, for_update=True)
            if (row is not None and row.schedule and row.next_fire is None
                    and row.schedule_state == ScheduleState.SCHEDULED.value):
                row.next_fire = parse_cron(row.schedule).next_fire_epoch(clock_now)

    def update_schedule(self, name: str, expression: str | None) -> None:
        """Mirror UpdateCrawlerSchedule: a new expression ("" or none removes the schedule)."""
        with self.store.write() as session:
            row = crawler_row(session, self.scope, name, for_update=True)
            self._set_schedule(row, expression or "")
            row.update_time = now()


def beat(store: Store, crawl_ids: list[str]) -> None:
    """Refresh the heartbeat of the crawls this process runs (so other servers leave them alone)."""
    if not crawl_ids:
        return
    with store.write() as session:
        session.execute(update(CrawlerRow).where(CrawlerRow.current_crawl.in_(crawl_ids)).values(heartbeat=now())
                        .execution_options(synchronize_session=False))
