"""Wire handlers of column statistics for tables and partitions."""

from __future__ import annotations

from typing import Any

from glueball.api.identity import Caller
from glueball.api.operations import Request, Response
from glueball.catalog.area import OPERATIONS, CatalogNeeds
from glueball.catalog.models import Scope
from glueball.catalog.statistics import ColumnStatistics, ColumnStatisticsService, StatisticsFailure
from glueball.clock import epoch


def statistics(needs: CatalogNeeds, caller: Caller) -> ColumnStatisticsService:
    return ColumnStatisticsService(needs.store, Scope(caller.account_id, caller.region))


def statistics_input(wire: dict[str, Any]) -> ColumnStatistics:
    """A ColumnStatistics structure as a model; its timestamps become epoch seconds."""
    data = dict(wire["StatisticsData"])
    dates = data.get("DateColumnStatisticsData")
    if dates is not None:
        data["DateColumnStatisticsData"] = {k: epoch(v) if k in ("MinimumValue", "MaximumValue") else v
                                            for k, v in dates.items()}
    return ColumnStatistics(column_name=wire["ColumnName"], column_type=wire["ColumnType"],
                            analyzed_time=epoch(wire["AnalyzedTime"]), data=data)


def _error(failure: StatisticsFailure) -> dict[str, str]:
    return {"ErrorCode": failure.error.code, "ErrorMessage": failure.error.message}


def _update(needs: CatalogNeeds, caller: Caller, request: Request, partition_values: list[str] | None) -> Response:
    items = [statistics_input(s) for s in request["ColumnStatisticsList"]]
    failures = statistics(needs, caller).update(request["DatabaseName"], request["TableName"], items,
                                              partition_values)
    return {"Errors": [{"ColumnStatistics": f.statistics.to_spec() if f.statistics else None,
                        "Error": _error(f)} for f in failures]}


def _get(needs: CatalogNeeds, caller: Caller, request: Request, partition_values: list[str] | None) -> Response:
    found, failures = statistics(needs, caller).get(request["DatabaseName"], request["TableName"],
                                                  request["ColumnNames"], partition_values)
    return {"ColumnStatisticsList": [s.to_spec() for s in found],
            "Errors": [{"ColumnName": f.column_name, "Error": _error(f)} for f in failures]}


@OPERATIONS.operation("UpdateColumnStatisticsForTable")
def update_column_statistics_for_table(needs: CatalogNeeds, caller: Caller, request: Request) -> Response:
    return _update(needs, caller, request, None)


@OPERATIONS.operation("UpdateColumnStatisticsForPartition")
def update_column_statistics_for_partition(needs: CatalogNeeds, caller: Caller, request: Request) -> Response:
    return _update(needs, caller, request, request["PartitionValues"])


@OPERATIONS.operation("GetColumnStatisticsForTable")
def get_column_statistics_for_table(needs: CatalogNeeds, caller: Caller, request: Request) -> Response:
    return _get(needs, caller, request, None)


@OPERATIONS.operation("GetColumnStatisticsForPartition")
def get_column_statistics_for_partition(needs: CatalogNeeds, caller: Caller, request: Request) -> Response:
    return _get(needs, caller, request, request["PartitionValues"])


@OPERATIONS.operation("DeleteColumnStatisticsForTable")
def delete_column_statistics_for_table(needs: CatalogNeeds, caller: Caller, request: Request) -> Response:
    statistics(needs, caller).delete(request["DatabaseName"], request["TableName"], request["ColumnName"])
    return {}


@OPERATIONS.operation("DeleteColumnStatisticsForPartition")
def delete_column_statistics_for_partition(needs: CatalogNeeds, caller: Caller, request: Request) -> Response:
    statistics(needs, caller).delete(request["DatabaseName"], request["TableName"], request["ColumnName"],
                                   request["PartitionValues"])
    return {}
