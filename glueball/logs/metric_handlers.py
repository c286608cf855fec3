"""CloudWatch's metric operations (``GraniteServiceVersion20100801.*`` over JSON 1.0, or the query protocol's
``Action=...&Version=2010-08-01``): wire shapes only."""

from __future__ import annotations

from typing import Any

from glueball.api.identity import Caller
from glueball.api.operations import Request, Response
from glueball.logs.area import METRIC_OPERATIONS, LogsNeeds
from glueball.logs.datapoints import STATISTICS, Datum, Metric, Metrics, canonical, check_period, moment, requested
from glueball.logs.errors import (
    InvalidNextToken,
    InvalidParameterCombination,
    InvalidParameterException,
    InvalidParameterValue,
)
from glueball.logs.store import decode_token, encode_token
from glueball.store.scoped import Scope

LIST_PAGE = 500
DEFAULT_MAX_DATAPOINTS = 100_800


def _metrics(needs: LogsNeeds, caller: Caller, read: bool = True) -> Metrics:
    scope = Scope(caller.account_id, caller.region)
    if read:
        needs.sync(scope)
    return Metrics(needs.store, scope, needs.clock)


def _dimensions(wire: list[dict[str, Any]] | None) -> tuple[tuple[str, str], ...]:
    return canonical((item["Name"], item["Value"]) for item in wire or [])


def _datum(namespace: str, item: dict[str, Any], now: float) -> Datum:
    stamp = moment(item["Timestamp"], "Timestamp") if item.get("Timestamp") is not None else now
    given = [key for key in ("Value", "StatisticValues", "Values") if item.get(key) is not None]
    if len(given) != 1:
        raise InvalidParameterCombination(f"Metric {item['MetricName']} needs exactly one of Value, StatisticValues "
                                          f"and Values, got {given or 'none'}")
    unit, resolution = item.get("Unit") or "None", int(item.get("StorageResolution") or 60)
    dimensions = _dimensions(item.get("Dimensions"))
    if "Value" in given:
        value = float(item["Value"])
        return Datum(namespace, item["MetricName"], dimensions, stamp, unit, 1.0, value, value, value, resolution)
    if "StatisticValues" in given:
        stats = item["StatisticValues"]
        return Datum(namespace, item["MetricName"], dimensions, stamp, unit, float(stats["SampleCount"]),
                     float(stats["Sum"]), float(stats["Minimum"]), float(stats["Maximum"]), resolution)
    values = [float(v) for v in item["Values"]]
    counts = [float(c) for c in item.get("Counts") or [1.0] * len(values)]
    if len(counts) != len(values) or not values:
        raise InvalidParameterValue(f"Metric {item['MetricName']}: Values and Counts must be non-empty lists of the "
                                    "same length")
    return Datum(namespace, item["MetricName"], dimensions, stamp, unit, sum(counts),
                 sum(v * c for v, c in zip(values, counts, strict=True)), min(values), max(values), resolution)


@METRIC_OPERATIONS.operation("PutMetricData")
def put_metric_data(needs: LogsNeeds, caller: Caller, request: Request) -> Response:
    if request.get("EntityMetricData"):
        raise InvalidParameterValue("glueball keeps no entities: EntityMetricData is not supported")
    if not request.get("MetricData"):
        raise InvalidParameterValue("The parameter MetricData must hold at least one data point")
    now = needs.clock()
    _metrics(needs, caller, read=False).put([_datum(request["Namespace"], item, now)
                                             for item in request["MetricData"]])
    return {}


def _wire_metric(metric: Metric) -> dict[str, Any]:
    return {"Namespace": metric.namespace, "MetricName": metric.name,
            "Dimensions": [{"Name": name, "Value": value} for name, value in metric.dimensions]}


@METRIC_OPERATIONS.operation("GetMetricStatistics")
def get_metric_statistics(needs: LogsNeeds, caller: Caller, request: Request) -> Response:
    asked = requested(request.get("Statistics"), request.get("ExtendedStatistics"))
    metric = Metric(request["Namespace"], request["MetricName"], _dimensions(request.get("Dimensions")))
    points = _metrics(needs, caller).statistics(metric, moment(request["StartTime"], "StartTime"),
                                                moment(request["EndTime"], "EndTime"), request["Period"],
                                                request.get("Unit"))
    return {"Label": metric.name, "Datapoints": [
        {"Timestamp": point["Timestamp"], "Unit": point["Unit"], **{name: point[name] for name in asked}}
        for point in points]}


def _stat_query(query: dict[str, Any]) -> tuple[Metric, int, str, str | None]:
    if query.get("Expression") is not None:
        raise InvalidParameterValue(f"glueball does not evaluate metric math: query {query['Id']} has an "
                                    "Expression; ask for a MetricStat")
    stat = query.get("MetricStat")
    if stat is None:
        raise InvalidParameterValue(f"Query {query['Id']} needs a MetricStat")
    if stat["Stat"] not in STATISTICS:
        raise InvalidParameterValue(f"Query {query['Id']}: glueball computes the statistics {', '.join(STATISTICS)},"
                                    f" not {stat['Stat']}")
    wire = stat["Metric"]
    if not wire.get("Namespace") or not wire.get("MetricName"):
        raise InvalidParameterValue(f"Query {query['Id']}: the metric needs a Namespace and a MetricName")
    return (Metric(wire["Namespace"], wire["MetricName"], _dimensions(wire.get("Dimensions"))), stat["Period"],
            stat["Stat"], stat.get("Unit"))


@METRIC_OPERATIONS.operation("GetMetricData")
def get_metric_data(needs: LogsNeeds, caller: Caller, request: Request) -> Response:
    metrics = _metrics(needs, caller)
    start, end = moment(request["StartTime"], "StartTime"), moment(request["EndTime"], "EndTime")
    ids = [query["Id"] for query in request["MetricDataQueries"]]
    if len(set(ids)) != len(ids):
        raise InvalidParameterValue(f"The Ids of MetricDataQueries must be unique: {ids}")
    newest_first = request.get("ScanBy", "TimestampDescending") == "TimestampDescending"
    results = []
    for query in request["MetricDataQueries"]:
        metric, period, stat, unit = _stat_query(query)
        check_period(period, start, end, needs.clock())
        points = metrics.statistics(metric, start, end, period, unit) if (end - start) / period <= 1440 else \
            _long_range(metrics, metric, start, end, period, unit)
        if newest_first:
            points.reverse()
        if query.get("ReturnData", True):
            results.append({"Id": query["Id"], "Label": query.get("Label") or metric.name,
                            "Timestamps": [p["Timestamp"] for p in points], "Values": [p[stat] for p in points],
                            "StatusCode": "Complete"})
    return _data_page(results, request.get("NextToken"), request.get("MaxDatapoints") or DEFAULT_MAX_DATAPOINTS)


def _long_range(metrics: Metrics, metric: Metric, start: float, end: float, period: int,
                unit: str | None) -> list[dict[str, Any]]:
    """GetMetricData reads any range: one 1,440-period slice after another."""
    points: list[dict[str, Any]] = []
    step = period * 1440
    slice_start = start - start % period
    while slice_start < end:
        points += metrics.statistics(metric, max(start, slice_start), min(end, slice_start + step), period, unit)
        slice_start += step
    return points


def _offset(token: str | None, kind: str) -> int:
    """The offset a token of listing ``kind`` carries (0 for none).

    Raises:
        InvalidNextToken: not a token glueball issued for this listing.
    """
    try:
        skip = decode_token(token, kind) or 0
    except InvalidParameterException as exc:
        raise InvalidNextToken(f"The NextToken {token!r} is invalid") from exc
    if type(skip) is not int or skip < 0:
        raise InvalidNextToken(f"The NextToken {token!r} is invalid")
    return skip


def _data_page(results: list[dict[str, Any]], token: str | None, most: int) -> Response:
    """GetMetricData's answer, at most ``most`` data points; the rest behind ``NextToken``."""
    skip = _offset(token, "GetMetricData")
    page, seen, budget = [], 0, most
    for result in results:
        count = len(result["Values"])
        first = max(0, skip - seen)
        taken = min(max(0, count - first), budget)
        seen += count
        page.append({**result, "Timestamps": result["Timestamps"][first:first + taken],
                     "Values": result["Values"][first:first + taken],
                     "StatusCode": "Complete" if first + taken >= count else "PartialData"})
        budget -= taken
    response: dict[str, Any] = {"MetricDataResults": page, "Messages": []}
    if seen > skip + most:
        response["NextToken"] = encode_token("GetMetricData", skip + most)
    return response


@METRIC_OPERATIONS.operation("ListMetrics")
def list_metrics(needs: LogsNeeds, caller: Caller, request: Request) -> Response:
    owner = request.get("OwningAccount")
    if owner is not None and owner != caller.account_id:
        raise InvalidParameterValue(f"glueball links no accounts: OwningAccount may only be {caller.account_id}")
    active = request.get("RecentlyActive")
    since = needs.clock() - 3 * 3600 if active == "PT3H" else None
    filters = [(item["Name"], item.get("Value")) for item in request.get("Dimensions") or []]
    found = _metrics(needs, caller).list(request.get("Namespace"), request.get("MetricName"), filters, since)
    skip = _offset(request.get("NextToken"), "ListMetrics")
    page = found[skip:skip + LIST_PAGE]
    response: dict[str, Any] = {"Metrics": [_wire_metric(metric) for metric in page]}
    if request.get("IncludeLinkedAccounts"):
        response["OwningAccounts"] = [caller.account_id] * len(page)
    if len(found) > skip + LIST_PAGE:
        response["NextToken"] = encode_token("ListMetrics", skip + LIST_PAGE)
    return response
