"""Wire handlers of the Data Quality service: rulesets, results, evaluation and recommendation runs.

Besides Glue's operations, glueball serves two of its own for publishing (see
:mod:`glueball.dataquality.publish`): ``Glueball.PublishDataQualityResult`` and
``Glueball.GetDataQualityMetricHistory``.
"""

from __future__ import annotations

import math
from typing import Any

from glueball.api.identity import Caller
from glueball.api.operations import Request, Response
from glueball.api.pagination import page_size, paged
from glueball.clock import epoch, now
from glueball.dataquality.area import INTERNAL_OPERATIONS, OPERATIONS, DataQualityNeeds
from glueball.dataquality.models import (
    DataQualityResult,
    DataQualityRun,
    ResultFilter,
    RulesetFilter,
    RunFilter,
    RunKind,
    StoredRuleset,
    TargetTable,
    is_ended,
    source_table,
)
from glueball.dataquality.runs import runner
from glueball.dataquality.service import MAX_HISTORY, ResultService, RulesetService, RunService
from glueball.errors import InvalidInputException
from glueball.store.scoped import Scope

_METRIC_NAME_MAX = 512
_MAX_METRICS = 10_000
_MAX_HISTORY_METRICS = 1000


def _scope(caller: Caller) -> Scope:
    return Scope(caller.account_id, caller.region)


def rulesets(needs: DataQualityNeeds, caller: Caller) -> RulesetService:
    return RulesetService(needs.store, _scope(caller))


def results(needs: DataQualityNeeds, caller: Caller) -> ResultService:
    return ResultService(needs.store, _scope(caller))


def _time(value: Any) -> float | None:
    return None if value is None else epoch(value)


def _table(wire: dict[str, Any] | None) -> TargetTable | None:
    return None if wire is None else TargetTable.from_wire(wire)


def _source_table(data_source: dict[str, Any] | None) -> TargetTable | None:
    if not data_source:
        return None
    try:
        return TargetTable.from_wire(source_table(data_source))
    except KeyError as exc:
        raise InvalidInputException("DataSource needs a GlueTable (DatabaseName, TableName)") from exc


# ---------------------------------------------------------------- rulesets

def ruleset_wire(ruleset: StoredRuleset) -> dict[str, Any]:
    """The model's GetDataQualityRuleset response."""
    wire: dict[str, Any] = {"Name": ruleset.name}
    if ruleset.description is not None:
        wire["Description"] = ruleset.description
    wire["Ruleset"] = ruleset.ruleset
    if ruleset.target_table is not None:
        wire["TargetTable"] = ruleset.target_table.to_wire()
    wire.update({"CreatedOn": ruleset.created_on, "LastModifiedOn": ruleset.last_modified_on})
    if ruleset.recommendation_run_id:
        wire["RecommendationRunId"] = ruleset.recommendation_run_id
    return wire


def ruleset_details_wire(ruleset: StoredRuleset) -> dict[str, Any]:
    """The model's DataQualityRulesetListDetails structure."""
    wire: dict[str, Any] = {"Name": ruleset.name}
    if ruleset.description is not None:
        wire["Description"] = ruleset.description
    wire.update({"CreatedOn": ruleset.created_on, "LastModifiedOn": ruleset.last_modified_on})
    if ruleset.target_table is not None:
        wire["TargetTable"] = ruleset.target_table.to_wire()
    if ruleset.recommendation_run_id:
        wire["RecommendationRunId"] = ruleset.recommendation_run_id
    wire["RuleCount"] = ruleset.rule_count
    return wire


@OPERATIONS.operation("CreateDataQualityRuleset")
def create_data_quality_ruleset(needs: DataQualityNeeds, caller: Caller, request: Request) -> Response:
    ruleset = StoredRuleset(name=request["Name"], ruleset=request["Ruleset"], rule_count=0,
                            description=request.get("Description"), target_table=_table(request.get("TargetTable")),
                            client_token=request.get("ClientToken"))
    rulesets(needs, caller).create(ruleset, request.get("Tags"), request.get("DataQualitySecurityConfiguration"))
    return {"Name": request["Name"]}


@OPERATIONS.operation("GetDataQualityRuleset")
def get_data_quality_ruleset(needs: DataQualityNeeds, caller: Caller, request: Request) -> Response:
    return ruleset_wire(rulesets(needs, caller).get(request["Name"]))


@OPERATIONS.operation("UpdateDataQualityRuleset")
def update_data_quality_ruleset(needs: DataQualityNeeds, caller: Caller, request: Request) -> Response:
    updated = rulesets(needs, caller).update(request["Name"], request.get("Description"), request.get("Ruleset"))
    wire: dict[str, Any] = {"Name": updated.name}
    if updated.description is not None:
        wire["Description"] = updated.description
    wire["Ruleset"] = updated.ruleset
    return wire


@OPERATIONS.operation("DeleteDataQualityRuleset")
def delete_data_quality_ruleset(needs: DataQualityNeeds, caller: Caller, request: Request) -> Response:
    rulesets(needs, caller).delete(request["Name"])
    return {}


@OPERATIONS.operation("ListDataQualityRulesets")
def list_data_quality_rulesets(needs: DataQualityNeeds, caller: Caller, request: Request) -> Response:
    wire = request.get("Filter") or {}
    criteria = RulesetFilter(
        name=wire.get("Name"), description=wire.get("Description"), created_before=_time(wire.get("CreatedBefore")),
        created_after=_time(wire.get("CreatedAfter")), last_modified_before=_time(wire.get("LastModifiedBefore")),
        last_modified_after=_time(wire.get("LastModifiedAfter")), target_table=_table(wire.get("TargetTable")),
        tags=request.get("Tags") or None)
    found, token = rulesets(needs, caller).page(criteria, page_size(request.get("MaxResults")),
                                                request.get("NextToken"))
    return paged("Rulesets", [ruleset_details_wire(r) for r in found], token)


# ---------------------------------------------------------------- results

def result_wire(result: DataQualityResult) -> dict[str, Any]:
    """The model's DataQualityResult structure (GetDataQualityResult's response)."""
    return {"ResultId": result.result_id, **result.spec}


def result_description_wire(result: DataQualityResult) -> dict[str, Any]:
    """The model's DataQualityResultDescription structure."""
    wire: dict[str, Any] = {"ResultId": result.result_id}
    for member in ("EvaluationRunMode", "DataSource", "JobName", "JobRunId", "StartedOn"):
        if result.spec.get(member) is not None:
            wire[member] = result.spec[member]
    return wire


@OPERATIONS.operation("GetDataQualityResult")
def get_data_quality_result(needs: DataQualityNeeds, caller: Caller, request: Request) -> Response:
    return result_wire(results(needs, caller).get(request["ResultId"]))


@OPERATIONS.operation("BatchGetDataQualityResult")
def batch_get_data_quality_result(needs: DataQualityNeeds, caller: Caller, request: Request) -> Response:
    found, missing = results(needs, caller).get_many(request["ResultIds"])
    response: dict[str, Any] = {"Results": [result_wire(r) for r in found]}
    if missing:
        response["ResultsNotFound"] = missing
    return response


@OPERATIONS.operation("ListDataQualityResults")
def list_data_quality_results(needs: DataQualityNeeds, caller: Caller, request: Request) -> Response:
    wire = request.get("Filter") or {}
    criteria = ResultFilter(
        table=_source_table(wire.get("DataSource")), job_name=wire.get("JobName"), job_run_id=wire.get("JobRunId"),
        started_after=_time(wire.get("StartedAfter")), started_before=_time(wire.get("StartedBefore")),
        evaluation_config=wire.get("EvaluationRunMode") == "EVALUATION_CONFIG"
        or wire.get("DataQualityEvaluationConfig") is not None)
    found, token = results(needs, caller).page(criteria, page_size(request.get("MaxResults")), request.get("NextToken"))
    response = paged("Results", [result_description_wire(r) for r in found], token)
    return response


# ---------------------------------------------------------------- runs

def execution_seconds(run: DataQualityRun) -> int:
    """ExecutionTime: seconds the run has consumed so far, or in all once it ended."""
    if is_ended(run.state):
        return run.execution_time
    return max(0, math.ceil(now() - run.started_on))


_EVALUATION_MEMBERS = ("DataSource", "Role", "NumberOfWorkers", "Timeout", "AdditionalRunOptions")
_RECOMMENDATION_MEMBERS = ("DataSource", "Role", "NumberOfWorkers", "Timeout")


def run_wire(run: DataQualityRun) -> dict[str, Any]:
    """The model's GetDataQualityRulesetEvaluationRun / GetDataQualityRuleRecommendationRun response."""
    wire: dict[str, Any] = {"RunId": run.run_id}
    members = _EVALUATION_MEMBERS if run.kind is RunKind.EVALUATION else _RECOMMENDATION_MEMBERS
    wire.update({m: run.spec[m] for m in members if run.spec.get(m) is not None})
    wire["Status"] = run.state.value
    if run.error_string:
        wire["ErrorString"] = run.error_string
    wire.update({"StartedOn": run.started_on, "LastModifiedOn": run.last_modified_on})
    if run.completed_on is not None:
        wire["CompletedOn"] = run.completed_on
    wire["ExecutionTime"] = execution_seconds(run)
    if run.kind is RunKind.EVALUATION:
        wire["RulesetNames"] = list(run.spec["RulesetNames"])
        if run.result_ids:
            wire["ResultIds"] = list(run.result_ids)
        if run.spec.get("AdditionalDataSources"):
            wire["AdditionalDataSources"] = run.spec["AdditionalDataSources"]
    else:
        if run.recommended_ruleset:
            wire["RecommendedRuleset"] = run.recommended_ruleset
        for member in ("CreatedRulesetName", "DataQualitySecurityConfiguration", "AdditionalRunOptions",
                       "RecommendationMode"):
            if run.spec.get(member) is not None:
                wire[member] = run.spec[member]
    return wire


def run_description_wire(run: DataQualityRun) -> dict[str, Any]:
    """The model's DataQualityRulesetEvaluationRunDescription / DataQualityRuleRecommendationRunDescription."""
    wire: dict[str, Any] = {"RunId": run.run_id, "Status": run.state.value, "StartedOn": run.started_on,
                            "DataSource": run.spec["DataSource"]}
    if run.kind is RunKind.RECOMMENDATION:
        for member in ("CreatedRulesetName", "RecommendationMode"):
            if run.spec.get(member) is not None:
                wire[member] = run.spec[member]
    return wire


def _run_filter(wire: dict[str, Any] | None) -> RunFilter:
    wire = wire or {}
    return RunFilter(table=_source_table(wire.get("DataSource")), started_after=_time(wire.get("StartedAfter")),
                     started_before=_time(wire.get("StartedBefore")), ruleset_name=wire.get("RulesetName"))


def _runs(needs: DataQualityNeeds, caller: Caller, kind: RunKind) -> RunService:
    return RunService(needs.store, _scope(caller), kind)


@OPERATIONS.operation("StartDataQualityRulesetEvaluationRun")
def start_data_quality_ruleset_evaluation_run(needs: DataQualityNeeds, caller: Caller, request: Request) -> Response:
    return {"RunId": runner(needs).start(_scope(caller), caller.access_key, RunKind.EVALUATION, request)}


@OPERATIONS.operation("GetDataQualityRulesetEvaluationRun")
def get_data_quality_ruleset_evaluation_run(needs: DataQualityNeeds, caller: Caller, request: Request) -> Response:
    runner(needs)
    return run_wire(_runs(needs, caller, RunKind.EVALUATION).get(request["RunId"]))


@OPERATIONS.operation("BatchGetDataQualityRulesetEvaluationRun")
def batch_get_data_quality_ruleset_evaluation_run(needs: DataQualityNeeds, caller: Caller,
                                                  request: Request) -> Response:
    runner(needs)
    found, missing = _runs(needs, caller, RunKind.EVALUATION).get_many(request["RunIds"])
    response: dict[str, Any] = {"Runs": [run_wire(r) for r in found]}
    if missing:
        response["RunsNotFound"] = missing
    return response


@OPERATIONS.operation("ListDataQualityRulesetEvaluationRuns")
def list_data_quality_ruleset_evaluation_runs(needs: DataQualityNeeds, caller: Caller, request: Request) -> Response:
    runner(needs)
    found, token = _runs(needs, caller, RunKind.EVALUATION).page(
        _run_filter(request.get("Filter")), page_size(request.get("MaxResults")), request.get("NextToken"))
    return paged("Runs", [run_description_wire(r) for r in found], token)


@OPERATIONS.operation("CancelDataQualityRulesetEvaluationRun")
def cancel_data_quality_ruleset_evaluation_run(needs: DataQualityNeeds, caller: Caller, request: Request) -> Response:
    runner(needs).cancel(_scope(caller), RunKind.EVALUATION, request["RunId"])
    return {}


@OPERATIONS.operation("StartDataQualityRuleRecommendationRun")
def start_data_quality_rule_recommendation_run(needs: DataQualityNeeds, caller: Caller, request: Request) -> Response:
    return {"RunId": runner(needs).start(_scope(caller), caller.access_key, RunKind.RECOMMENDATION, request)}


@OPERATIONS.operation("GetDataQualityRuleRecommendationRun")
def get_data_quality_rule_recommendation_run(needs: DataQualityNeeds, caller: Caller, request: Request) -> Response:
    runner(needs)
    return run_wire(_runs(needs, caller, RunKind.RECOMMENDATION).get(request["RunId"]))


@OPERATIONS.operation("ListDataQualityRuleRecommendationRuns")
def list_data_quality_rule_recommendation_runs(needs: DataQualityNeeds, caller: Caller, request: Request) -> Response:
    runner(needs)
    if request.get("Tags"):
        # recommendation runs carry no tags in glueball (Start has no Tags member): nothing matches
        return {"Runs": []}
    found, token = _runs(needs, caller, RunKind.RECOMMENDATION).page(
        _run_filter(request.get("Filter")), page_size(request.get("MaxResults")), request.get("NextToken"))
    return paged("Runs", [run_description_wire(r) for r in found], token)


@OPERATIONS.operation("CancelDataQualityRuleRecommendationRun")
def cancel_data_quality_rule_recommendation_run(needs: DataQualityNeeds, caller: Caller, request: Request) -> Response:
    runner(needs).cancel(_scope(caller), RunKind.RECOMMENDATION, request["RunId"])
    return {}


# ---------------------------------------------------------------- glueball's own

def _check_members(request: Request, allowed: tuple[str, ...], operation_name: str) -> None:
    unknown = sorted(set(request) - set(allowed))
    if unknown:
        raise InvalidInputException(f"Glueball.{operation_name} does not take {', '.join(unknown)}; "
                                    f"members are {', '.join(allowed)}")


def _metric_name(name: Any, where: str) -> str:
    if not isinstance(name, str) or not 1 <= len(name) <= _METRIC_NAME_MAX:
        raise InvalidInputException(f"{where}: a metric name must be a string of 1 to {_METRIC_NAME_MAX} characters, "
                                    f"got {name!r}")
    return name


def _metrics(value: Any) -> dict[str, float]:
    if value is None:
        return {}
    if not isinstance(value, dict) or len(value) > _MAX_METRICS:
        raise InvalidInputException(f"Metrics must be an object of at most {_MAX_METRICS} metric name -> number")
    for name, number in value.items():
        _metric_name(name, "Metrics")
        if isinstance(number, bool) or not isinstance(number, int | float):
            raise InvalidInputException(f"Metrics: the value of {name!r} must be a number, got {number!r}")
    return {name: float(number) for name, number in value.items()}


@INTERNAL_OPERATIONS.operation("PublishDataQualityResult")
def publish_data_quality_result(needs: DataQualityNeeds, caller: Caller, request: Request) -> Response:
    _check_members(request, ("Result", "Metrics"), "PublishDataQualityResult")
    result = request.get("Result")
    if not isinstance(result, dict):
        raise InvalidInputException("Result is required: an object of Glue's DataQualityResult shape")
    needs.check_result(result)
    return {"ResultId": results(needs, caller).publish(result, _metrics(request.get("Metrics")))}


@INTERNAL_OPERATIONS.operation("GetDataQualityMetricHistory")
def get_data_quality_metric_history(needs: DataQualityNeeds, caller: Caller, request: Request) -> Response:
    _check_members(request, ("EvaluationContext", "MetricNames", "Limit"), "GetDataQualityMetricHistory")
    context = request.get("EvaluationContext")
    if not isinstance(context, str) or not context:
        raise InvalidInputException("EvaluationContext is required (a non-empty string)")
    names = request.get("MetricNames")
    if not isinstance(names, list) or not 1 <= len(names) <= _MAX_HISTORY_METRICS:
        raise InvalidInputException(f"MetricNames must be a list of 1 to {_MAX_HISTORY_METRICS} metric names")
    limit = request.get("Limit", 100)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_HISTORY:
        raise InvalidInputException(f"Limit must be an integer from 1 to {MAX_HISTORY}, got {limit!r}")
    metrics = [_metric_name(n, "MetricNames") for n in names]
    return {"History": results(needs, caller).history(context, metrics, limit)}
