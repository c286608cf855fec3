"""Athena's query execution operations (``X-Amz-Target: AmazonAthena.<Operation>``): wire shapes only."""

from __future__ import annotations

from typing import Any

from glueball.api.identity import Caller
from glueball.api.operations import Request, Response
from glueball.api.pagination import decode_token, encode_token
from glueball.athena import resultfile
from glueball.athena.area import OPERATIONS, AthenaNeeds
from glueball.athena.errors import InvalidRequestException
from glueball.athena.models import QueryExecution, QueryState
from glueball.athena.queries import QueryService
from glueball.errors import InvalidInputException
from glueball.metastore.shapes import header_lines
from glueball.store.scoped import Scope

ENGINE_VERSION = {"SelectedEngineVersion": "AUTO", "EffectiveEngineVersion": "Athena engine version 3"}


def queries(needs: AthenaNeeds, caller: Caller) -> QueryService:
    scope = Scope(caller.account_id, caller.region)
    tables = _CatalogTables(needs, scope)
    return QueryService(needs.store, scope, needs.home, tables.column_types, tables.header_lines, tables.table_type,
                        needs.iceberg, lambda output, read: _reusable(needs, caller, output, read))


def _reusable(needs: AthenaNeeds, caller: Caller, output: str, tables: list[str]) -> bool:
    """Whether an earlier query's result at ``output`` may answer ``caller``: the file is still there, and the
    caller may read each of the query's tables (``glue:GetTable`` as the caller: a result is never a way around the
    catalog's policies)."""
    try:
        with needs.open_object(output):
            pass
    except (FileNotFoundError, ValueError):
        return False
    glue = needs.glue(caller)
    for name in tables:
        database, _, table = name.rpartition(".")
        try:
            glue.get_table(DatabaseName=database or "default", Name=table)
        except Exception:  # noqa: BLE001 - not readable (or not a table: a view's name) by this caller: run it
            return False
    return True


class _CatalogTables:
    """The catalog tables the translation of one request's statement reads, each read once."""

    def __init__(self, needs: AthenaNeeds, scope: Scope) -> None:
        self.needs, self.scope = needs, scope
        self.found: dict[tuple[str, str], dict[str, Any] | None] = {}

    def _table(self, database: str, table: str) -> dict[str, Any] | None:
        if (database, table) not in self.found:
            try:
                self.found[(database, table)] = self.needs.catalog_table(self.scope, database, table)
            except Exception:  # noqa: BLE001 - no such database or table: the statement fails naming it when it runs
                self.found[(database, table)] = None
        return self.found[(database, table)]

    def column_types(self, database: str, table: str) -> list[tuple[str, str]] | None:
        """A catalog table's columns (partition keys last) and their types; None when there is none."""
        spec = self._table(database, table)
        if spec is None:
            return None
        columns = [*((spec.get("StorageDescriptor") or {}).get("Columns") or []), *(spec.get("PartitionKeys") or [])]
        return [(str(c["Name"]), str(c.get("Type") or "string")) for c in columns if c.get("Name")]

    def table_type(self, database: str, table: str) -> str:
        """A catalog table's ``table_type`` parameter in capitals (``ICEBERG``), empty for none or no table."""
        spec = self._table(database, table)
        return str(((spec or {}).get("Parameters") or {}).get("table_type") or "").upper()

    def header_lines(self, database: str, table: str) -> tuple[int, list[str]]:
        """A catalog table's ``skip.header.line.count`` and its partition keys' names."""
        spec = self._table(database, table)
        if spec is None:
            return 0, []
        return (header_lines(spec.get("Parameters") or {}),
                [str(k["Name"]) for k in spec.get("PartitionKeys") or [] if k.get("Name")])


def _millis(seconds: float | None) -> int:
    return int(round((seconds or 0.0) * 1000))


def statistics(query: QueryExecution) -> dict[str, Any]:
    """``QueryExecutionStatistics``: the engine's figures, and the times around them."""
    figures = query.statistics
    queued = (query.started or query.completed or query.submitted) - query.submitted if query.started or \
        query.completed else 0.0
    wire: dict[str, Any] = {"DataScannedInBytes": int(figures.get("DataScannedInBytes", 0)),
                            "EngineExecutionTimeInMillis": int(figures.get("EngineExecutionTimeInMillis", 0)),
                            "QueryQueueTimeInMillis": _millis(queued),
                            "ServicePreProcessingTimeInMillis": int(figures.get("PreProcessingMillis", 0)),
                            "QueryPlanningTimeInMillis": int(figures.get("PlanningMillis", 0)),
                            "ServiceProcessingTimeInMillis": int(figures.get("ProcessingMillis", 0)),
                            "ResultReuseInformation": {"ReusedPreviousResult": bool(query.result.get("ReusedFrom"))}}
    if query.completed is not None:
        wire["TotalExecutionTimeInMillis"] = _millis(query.completed - query.submitted)
    manifest = query.result.get("Manifest")
    if manifest:
        wire["DataManifestLocation"] = manifest
    return wire


def execution_wire(query: QueryExecution) -> dict[str, Any]:
    """Athena's ``QueryExecution``."""
    status: dict[str, Any] = {"State": query.state.value, "SubmissionDateTime": query.submitted}
    if query.completed is not None:
        status["CompletionDateTime"] = query.completed
    if query.state_reason:
        status["StateChangeReason"] = query.state_reason
    if query.failure is not None:
        status["AthenaError"] = query.failure.wire()
    context = {k: v for k, v in (("Database", query.database), ("Catalog", query.catalog)) if v}
    wire: dict[str, Any] = {
        "QueryExecutionId": query.query_id, "Query": query.query, "StatementType": query.statement_type.value,
        "ResultConfiguration": {"OutputLocation": _output_of(query)} if query.output_location else {},
        "ResultReuseConfiguration": {"ResultReuseByAgeConfiguration": {"Enabled": False} if "Reuse" not in query.plan
                                     else {"Enabled": True, "MaxAgeInMinutes": int(query.plan["Reuse"])}},
        "QueryExecutionContext": context, "Status": status, "Statistics": statistics(query),
        "WorkGroup": query.workgroup, "EngineVersion": ENGINE_VERSION,
        "SubstatementType": query.substatement_type}
    if query.execution_parameters:
        wire["ExecutionParameters"] = query.execution_parameters
    return wire


def _output_of(query: QueryExecution) -> str:
    return query.result_output


@OPERATIONS.operation("StartQueryExecution")
def start_query_execution(needs: AthenaNeeds, caller: Caller, request: Request) -> Response:
    query_id, queued = queries(needs, caller).start(request, caller.access_key)
    if queued:
        needs.queued()
    return {"QueryExecutionId": query_id}


@OPERATIONS.operation("GetQueryExecution")
def get_query_execution(needs: AthenaNeeds, caller: Caller, request: Request) -> Response:
    """A query still under way is answered once it has ended, or after a short wait (QueryService)."""
    return {"QueryExecution": execution_wire(queries(needs, caller).get_when_ended(request["QueryExecutionId"]))}


@OPERATIONS.operation("BatchGetQueryExecution")
def batch_get_query_execution(needs: AthenaNeeds, caller: Caller, request: Request) -> Response:
    wanted = list(dict.fromkeys(request["QueryExecutionIds"]))
    found = queries(needs, caller).find(wanted)
    return {"QueryExecutions": [execution_wire(found[i]) for i in wanted if i in found],
            "UnprocessedQueryExecutionIds": [
                {"QueryExecutionId": i, "ErrorCode": "INVALID_INPUT",
                 "ErrorMessage": f"QueryExecution {i} was not found"} for i in wanted if i not in found]}


@OPERATIONS.operation("ListQueryExecutions")
def list_query_executions(needs: AthenaNeeds, caller: Caller, request: Request) -> Response:
    service = queries(needs, caller)
    workgroup = service.resources.workgroup(request.get("WorkGroup")).name
    after = _position(request.get("NextToken"))
    ids, following = service.ids(workgroup, after, int(request.get("MaxResults") or 50))
    response: dict[str, Any] = {"QueryExecutionIds": ids}
    if following is not None:
        response["NextToken"] = encode_token(following)
    return response


def _position(token: str | None) -> Any:
    try:
        return decode_token(token, int)
    except InvalidInputException as err:
        raise InvalidRequestException(err.message, "INVALID_INPUT") from None


@OPERATIONS.operation("StopQueryExecution")
def stop_query_execution(needs: AthenaNeeds, caller: Caller, request: Request) -> Response:
    queries(needs, caller).stop(request["QueryExecutionId"])
    return {}


@OPERATIONS.operation("GetQueryResults")
def get_query_results(needs: AthenaNeeds, caller: Caller, request: Request) -> Response:
    """A page of the result file: the header row first for queries (Athena's), none for DDL; NULL as ``{}``."""
    query = queries(needs, caller).get(request["QueryExecutionId"])
    if query.state is not QueryState.SUCCEEDED:
        if query.state in (QueryState.QUEUED, QueryState.RUNNING):
            raise InvalidRequestException(f"Query has not yet finished. Current state: {query.state.value}",
                                          "INVALID_INPUT")
        reason = f": {query.state_reason}" if query.state_reason else ""
        raise InvalidRequestException(f"Query did not finish successfully. Final query state: "
                                      f"{query.state.value}{reason}", "INVALID_INPUT")
    result = query.result
    columns = list(result.get("ColumnInfo") or [])
    position = _position(request.get("NextToken")) or 0
    size = int(request.get("MaxResults") or 1000)
    response: dict[str, Any] = {"UpdateCount": int(result.get("UpdateCount", 0)),
                                "ResultSet": {"Rows": [], "ResultSetMetadata": {"ColumnInfo": columns}}}
    manifest = request.get("QueryResultType") == "DATA_MANIFEST"
    if manifest and not result.get("Manifest"):
        raise InvalidRequestException("This query wrote no data manifest: only CTAS, INSERT INTO and UNLOAD do",
                                      "INVALID_INPUT")
    location = str(result["Manifest"]) if manifest else _output_of(query)
    if not columns and not manifest:
        return response
    if manifest:
        response["ResultSet"]["ResultSetMetadata"] = {"ColumnInfo": [resultfile.column_info("path", "string")]}
    try:
        with needs.open_object(location) as source:
            rows, following = resultfile.read_page(source, position, size, manifest or result.get("Extension") ==
                                                   "txt")
    except FileNotFoundError:
        raise InvalidRequestException(f"The query's results are no longer at {location}", "INVALID_INPUT") from None
    response["ResultSet"]["Rows"] = [{"Data": [{} if v is None else {"VarCharValue": v} for v in row]}
                                     for row in rows]
    if following is not None:
        response["NextToken"] = encode_token(following)
    return response


@OPERATIONS.operation("GetQueryRuntimeStatistics")
def get_query_runtime_statistics(needs: AthenaNeeds, caller: Caller, request: Request) -> Response:
    query = queries(needs, caller).get(request["QueryExecutionId"])
    timeline = {k: v for k, v in statistics(query).items() if k.endswith("Millis")}
    figures = query.statistics
    rows = {"InputRows": int(figures.get("InputRows", 0)), "InputBytes": int(figures.get("DataScannedInBytes", 0)),
            "OutputBytes": int(figures.get("OutputBytes", 0)), "OutputRows": int(figures.get("OutputRows", 0))}
    stage = {"StageId": 0, "State": query.state.value, "OutputBytes": rows["OutputBytes"],
             "OutputRows": rows["OutputRows"], "InputBytes": rows["InputBytes"], "InputRows": rows["InputRows"],
             "ExecutionTime": timeline.get("EngineExecutionTimeInMillis", 0)}
    return {"QueryRuntimeStatistics": {"Timeline": timeline, "Rows": rows, "OutputStage": stage}}
