"""Wire handlers of column statistics task runs."""

from __future__ import annotations

from typing import Any

from glueball.api.identity import Caller
from glueball.api.operations import Request, Response
from glueball.api.pagination import page_size, paged
from glueball.catalog.area import STATISTICS_TASK_OPERATIONS, StatisticsTaskNeeds
from glueball.catalog.statistics_task_runs import runner
from glueball.catalog.statistics_tasks import (
    NUMBER_OF_WORKERS,
    WORKER_TYPE,
    ColumnStatisticsTaskRun,
    ColumnStatisticsTaskService,
)
from glueball.errors import AccessDeniedException
from glueball.store.scoped import Scope


def _scope(caller: Caller, request: Request | None = None) -> Scope:
    """The caller's catalog; these operations spell the member ``CatalogID``, which the edge's catalog check
    (``CatalogId``) does not see, so it is checked here.

    Raises:
        AccessDeniedException: ``CatalogID`` names another account's catalog.
    """
    catalog = (request or {}).get("CatalogID")
    if catalog is not None and catalog != caller.account_id:
        raise AccessDeniedException(
            f"Cross-account access to catalog {catalog} is not allowed for account {caller.account_id}")
    return Scope(caller.account_id, caller.region)


def run_wire(run: ColumnStatisticsTaskRun) -> dict[str, Any]:
    wire: dict[str, Any] = {
        "CustomerId": run.account_id, "ColumnStatisticsTaskRunId": run.run_id, "DatabaseName": run.database,
        "TableName": run.table, "ColumnNameList": list(run.columns), "CatalogID": run.account_id, "Role": run.role,
        "NumberOfWorkers": NUMBER_OF_WORKERS, "WorkerType": WORKER_TYPE, "ComputationType": "FULL",
        "Status": run.state.wire, "CreationTime": run.created, "LastUpdated": run.updated,
        "DPUSeconds": run.dpu_seconds,
    }
    optional = {"SampleSize": run.sample_size, "SecurityConfiguration": run.security_configuration,
                "StartTime": run.started, "EndTime": run.ended, "ErrorMessage": run.error_message}
    wire.update({k: v for k, v in optional.items() if v is not None})
    return wire


@STATISTICS_TASK_OPERATIONS.operation("StartColumnStatisticsTaskRun")
def start_column_statistics_task_run(needs: StatisticsTaskNeeds, caller: Caller, request: Request) -> Response:
    run_id = runner(needs).start(_scope(caller, request), caller.access_key, request["DatabaseName"],
                                 request["TableName"], request["Role"], request.get("ColumnNameList"),
                                 request.get("SampleSize"), request.get("SecurityConfiguration"))
    return {"ColumnStatisticsTaskRunId": run_id}


@STATISTICS_TASK_OPERATIONS.operation("GetColumnStatisticsTaskRun")
def get_column_statistics_task_run(needs: StatisticsTaskNeeds, caller: Caller, request: Request) -> Response:
    runner(needs)  # settles what a stopped server left before answering
    run = ColumnStatisticsTaskService(needs.store, _scope(caller)).get(request["ColumnStatisticsTaskRunId"])
    return {"ColumnStatisticsTaskRun": run_wire(run)}


@STATISTICS_TASK_OPERATIONS.operation("GetColumnStatisticsTaskRuns")
def get_column_statistics_task_runs(needs: StatisticsTaskNeeds, caller: Caller, request: Request) -> Response:
    runner(needs)
    runs, token = ColumnStatisticsTaskService(needs.store, _scope(caller, request)).page(
        request["DatabaseName"], request["TableName"], page_size(request.get("MaxResults")), request.get("NextToken"))
    return paged("ColumnStatisticsTaskRuns", [run_wire(r) for r in runs], token)


@STATISTICS_TASK_OPERATIONS.operation("ListColumnStatisticsTaskRuns")
def list_column_statistics_task_runs(needs: StatisticsTaskNeeds, caller: Caller, request: Request) -> Response:
    runner(needs)
    runs, token = ColumnStatisticsTaskService(needs.store, _scope(caller)).page(
        None, None, page_size(request.get("MaxResults")), request.get("NextToken"))
    return paged("ColumnStatisticsTaskRunIds", [r.run_id for r in runs], token)


@STATISTICS_TASK_OPERATIONS.operation("StopColumnStatisticsTaskRun")
def stop_column_statistics_task_run(needs: StatisticsTaskNeeds, caller: Caller, request: Request) -> Response:
    runner(needs).stop(_scope(caller, request), request["DatabaseName"], request["TableName"])
    return {}
