"""CloudWatch metrics: data points kept per metric (namespace, name, dimensions), and their statistics.

A metric is its namespace, name and *whole* set of dimensions, as in CloudWatch: asking for
``JobName=j`` alone does not find the data of ``JobName=j, JobRunId=r``. Data come from scripts'
PutMetricData and from runs (:mod:`glueball.logs.run_metrics`). GetMetricStatistics and GetMetricData
aggregate them per period (aligned to multiples of the period since the epoch) into SampleCount, Sum,
Minimum, Maximum and Average. Percentiles and metric math are not computed (refused, naming what).
"""

from __future__ import annotations

import datetime as dt
import json
import math
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from glueball.logs.errors import InvalidParameterCombination, InvalidParameterValue, MissingParameter
from glueball.store.engine import Store
from glueball.store.log_tables import MetricDatumRow
from glueball.store.scoped import Scope

STATISTICS = ("SampleCount", "Average", "Sum", "Minimum", "Maximum")
MAX_DATAPOINTS = 1440
TOO_NEW_SECONDS = 2 * 3600
TOO_OLD_SECONDS = 14 * 86400


@dataclass(frozen=True)
class Datum:
    """One data point: a value (count 1) or a statistic set, with its metric."""

    namespace: str
    name: str
    dimensions: tuple[tuple[str, str], ...]
    timestamp: float
    unit: str
    sample_count: float
    sum: float
    minimum: float
    maximum: float
    storage_resolution: int = 60

    @classmethod
    def value(cls, namespace: str, name: str, dimensions: Iterable[tuple[str, str]], timestamp: float, value: float,
              unit: str = "None", storage_resolution: int = 60) -> Datum:
        return cls(namespace, name, canonical(dimensions), timestamp, unit, 1.0, value, value, value,
                   storage_resolution)


@dataclass(frozen=True)
class Metric:
    namespace: str
    name: str
    dimensions: tuple[tuple[str, str], ...]


def canonical(dimensions: Iterable[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((str(name), str(value)) for name, value in dimensions))


def _dimensions_text(dimensions: Iterable[tuple[str, str]]) -> str:
    return json.dumps([list(pair) for pair in canonical(dimensions)], separators=(",", ":"))


def moment(value: Any, member: str) -> float:
    """A timestamp as the protocols deliver it (epoch seconds from JSON, ISO 8601 text from the query protocol).

    Raises:
        InvalidParameterValue: neither.
    """
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, dt.datetime):
        return value.timestamp()
    try:
        parsed = dt.datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError as exc:
        raise InvalidParameterValue(f"The parameter {member} must be a timestamp, not {value!r}") from exc
    return (parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)).timestamp()


def insert_data(session: Session, scope: Scope, data: Iterable[Datum]) -> None:
    """Add data points of ``scope`` in the transaction of ``session``."""
    rows = [{"account_id": scope.account_id, "region": scope.region, "namespace": d.namespace,
             "metric_name": d.name, "dimensions": _dimensions_text(d.dimensions), "timestamp": d.timestamp,
             "unit": d.unit, "sample_count": d.sample_count, "sum": d.sum, "minimum": d.minimum,
             "maximum": d.maximum, "storage_resolution": d.storage_resolution} for d in data]
    if rows:
        session.execute(MetricDatumRow.__table__.insert(), rows)  # type: ignore[attr-defined]


def check_datum(datum: Datum, now: float) -> None:
    """PutMetricData's rules for one data point.

    Raises:
        InvalidParameterValue: a value that is not finite, a time too far ahead or behind, a namespace of AWS's.
    """
    if datum.namespace.startswith("AWS/"):
        raise InvalidParameterValue(f"The value {datum.namespace} for parameter Namespace is invalid: namespaces "
                                    "starting with AWS/ are reserved for AWS services")
    if not all(math.isfinite(v) for v in (datum.sum, datum.minimum, datum.maximum, datum.sample_count)):
        raise InvalidParameterValue(f"The value of metric {datum.name} must be a finite number")
    if datum.timestamp > now + TOO_NEW_SECONDS or datum.timestamp < now - TOO_OLD_SECONDS:
        raise InvalidParameterValue(f"The parameter MetricData.member.Timestamp of metric {datum.name} must be "
                                    "within the last two weeks and at most two hours in the future")
    if datum.storage_resolution not in (1, 60):
        raise InvalidParameterValue(f"The parameter StorageResolution must be 1 or 60, not "
                                    f"{datum.storage_resolution}")
    if datum.sample_count <= 0 or datum.minimum > datum.maximum:
        raise InvalidParameterValue(f"The statistic values of metric {datum.name} are inconsistent: SampleCount "
                                    "must be positive and Minimum at most Maximum")


def check_period(period: int, start: float, end: float, now: float) -> None:
    """GetMetricStatistics' and GetMetricData's rules for a period and a time range.

    Raises:
        InvalidParameterValue: a period that is not 1, 5, 10, 30 or a multiple of 60; start not before end.
    """
    if period <= 0 or (period not in (1, 5, 10, 30) and period % 60):
        raise InvalidParameterValue(f"The parameter Period must be 1, 5, 10, 30 or a multiple of 60, not {period}")
    if start >= end:
        raise InvalidParameterValue("The parameter StartTime must be less than the parameter EndTime.")


class Metrics:
    """The metrics of one account and region."""

    def __init__(self, store: Store, scope: Scope, clock: Any = time.time) -> None:
        self.store = store
        self.scope = scope
        self.clock = clock

    def put(self, data: list[Datum]) -> None:
        """PutMetricData: every data point is checked before any is kept."""
        now = self.clock()
        for datum in data:
            check_datum(datum, now)
        with self.store.write() as session:
            insert_data(session, self.scope, data)

    def _rows(self, metric: Metric, start: float, end: float, unit: str | None) -> list[MetricDatumRow]:
        query = select(MetricDatumRow).where(
            MetricDatumRow.account_id == self.scope.account_id, MetricDatumRow.region == self.scope.region,
            MetricDatumRow.namespace == metric.namespace, MetricDatumRow.metric_name == metric.name,
            MetricDatumRow.dimensions == _dimensions_text(metric.dimensions),
            MetricDatumRow.timestamp >= start, MetricDatumRow.timestamp < end)
        if unit is not None:
            query = query.where(MetricDatumRow.unit == unit)
        with self.store.read() as session:
            return list(session.scalars(query))

    def statistics(self, metric: Metric, start: float, end: float, period: int, unit: str | None = None
                   ) -> list[dict[str, Any]]:
        """Per period with data (oldest first): ``Timestamp``, the five statistics and ``Unit``.

        Raises:
            InvalidParameterValue: a bad period or range.
            InvalidParameterCombination: more than 1,440 periods asked for.
        """
        check_period(period, start, end, self.clock())
        if (end - start) / period > MAX_DATAPOINTS:
            raise InvalidParameterCombination(
                f"You have requested up to {math.ceil((end - start) / period)} datapoints, which exceeds the "
                f"limit of {MAX_DATAPOINTS}. You may reduce the datapoints requested by increasing Period, or "
                "decreasing the time range.")
        buckets: dict[float, dict[str, Any]] = {}
        for row in self._rows(metric, start, end, unit):
            key = row.timestamp - row.timestamp % period
            found = buckets.get(key)
            if found is None:
                buckets[key] = {"SampleCount": row.sample_count, "Sum": row.sum, "Minimum": row.minimum,
                                "Maximum": row.maximum, "Unit": row.unit}
                continue
            found["SampleCount"] += row.sample_count
            found["Sum"] += row.sum
            found["Minimum"] = min(found["Minimum"], row.minimum)
            found["Maximum"] = max(found["Maximum"], row.maximum)
        points = []
        for key in sorted(buckets):
            point = buckets[key]
            point["Average"] = point["Sum"] / point["SampleCount"]
            point["Timestamp"] = key
            points.append(point)
        return points

    def list(self, namespace: str | None, name: str | None, filters: list[tuple[str, str | None]],
             since: float | None) -> list[Metric]:
        """ListMetrics: the metrics with data, matching the namespace, name and dimension filters (each
        filter a dimension name, with or without a value), in namespace, name, dimensions order."""
        query = select(MetricDatumRow.namespace, MetricDatumRow.metric_name, MetricDatumRow.dimensions).where(
            MetricDatumRow.account_id == self.scope.account_id, MetricDatumRow.region == self.scope.region)
        if namespace is not None:
            query = query.where(MetricDatumRow.namespace == namespace)
        if name is not None:
            query = query.where(MetricDatumRow.metric_name == name)
        if since is not None:
            query = query.where(MetricDatumRow.timestamp >= since)
        with self.store.read() as session:
            found = sorted(set(session.execute(query.distinct())))
        metrics = []
        for space, metric_name, text in found:
            dimensions = tuple((str(k), str(v)) for k, v in json.loads(text))
            given = dict(dimensions)
            if all(key in given and (value is None or given[key] == value) for key, value in filters):
                metrics.append(Metric(space, metric_name, dimensions))
        return metrics


def requested(statistics: list[str] | None, extended: list[str] | None) -> list[str]:
    """The statistics GetMetricStatistics asks for.

    Raises:
        MissingParameter: neither Statistics nor ExtendedStatistics.
        InvalidParameterValue: percentiles (ExtendedStatistics), which glueball does not compute.
    """
    if extended:
        raise InvalidParameterValue(f"glueball does not compute percentiles: ExtendedStatistics {extended} cannot "
                                    "be answered; ask for Statistics (SampleCount, Average, Sum, Minimum, Maximum)")
    if not statistics:
        raise MissingParameter("The parameter Statistics or ExtendedStatistics must be specified.")
    return statistics
