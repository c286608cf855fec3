"""Anomaly detection on metric history: ``DetectAnomalies`` rules and observations.

AWS Glue learns each metric's expected range from earlier runs of the same evaluation context and
reports a value outside it — as a failed ``DetectAnomalies`` rule, and as an observation
(``MetricBasedObservation`` with ``ActualValue``, ``ExpectedValue``, ``LowerLimit``,
``UpperLimit`` and ``NewRules`` suggesting a rule that would hold the metric in range). Glue's model
is a trained one (it also learns seasonality); glueball uses a documented, deterministic method:

- **History**: the metric's last :data:`WINDOW` values (newest first); with fewer than
  :data:`MIN_HISTORY` there is no verdict (a ``DetectAnomalies`` rule passes, no observation is
  made: a first run cannot be anomalous).
- **Expected value**: the median of the history.
- **Spread**: the median absolute deviation scaled to a standard deviation (1.4826·MAD, robust to
  the outliers an anomaly detector must tolerate in its own history); when the history is flat
  (MAD = 0), 1% of the median's magnitude (and at least :data:`MIN_SPREAD`), so that a constant
  metric tolerates tiny drift but not a jump.
- **Bounds**: expected ± :data:`K` · spread (K = 3, the usual "three sigma"); a value outside is an
  anomaly. Count-like metrics (row counts, distinct counts) have their bounds rounded outwards
  to whole numbers, and ratios (completeness, uniqueness...) clipped to [0, 1].
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["K", "MIN_HISTORY", "MIN_SPREAD", "WINDOW", "Bounds", "bounds", "observation", "suggested_rule"]

#: how many earlier values inform the expected range
WINDOW = 20
#: earlier values needed before anything can be called anomalous
MIN_HISTORY = 3
#: bounds are this many (robust) standard deviations around the expected value
K = 3.0
MIN_SPREAD = 1e-9

_COUNTS = ("RowCount", "DistinctValuesCount", "ColumnCount", "FileCount")
_RATIOS = ("Completeness", "Uniqueness", "UniqueValueRatio", "Compliance")


@dataclass(frozen=True)
class Bounds:
    """The expected range of a metric, and whether a value lies outside it."""

    expected: float
    lower: float
    upper: float

    def contains(self, value: float) -> bool:
        return self.lower <= value <= self.upper


def bounds(metric: str, history: Sequence[float]) -> Bounds | None:
    """The expected range of ``metric`` from its ``history`` (None with too little history)."""
    values = [float(v) for v in history[:WINDOW] if v is not None and math.isfinite(v)]
    if len(values) < MIN_HISTORY:
        return None
    expected = statistics.median(values)
    deviation = statistics.median(abs(v - expected) for v in values)
    spread = 1.4826 * deviation if deviation > 0 else max(abs(expected) * 0.01, MIN_SPREAD)
    lower, upper = expected - K * spread, expected + K * spread
    kind = metric.rsplit(".", 1)[-1]
    if kind in _COUNTS:
        lower, upper = max(0.0, math.floor(lower)), math.ceil(upper)
    elif kind in _RATIOS:
        lower, upper = max(0.0, lower), min(1.0, upper)
    return Bounds(expected, lower, upper)


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.6g}"


def _outward(value: float, down: bool, integral: bool) -> str:
    """A bound for ``between`` (which excludes it) just outside ``value``."""
    if integral:
        return _number(value - 1 if down else value + 1)
    step = 1e-4
    edge = math.floor(value / step) * step - step if down else math.ceil(value / step) * step + step
    return repr(round(edge, 4))


def suggested_rule(metric: str, low: float, high: float) -> str | None:
    """A DQDL rule that holds ``metric`` within [low, high], for ``NewRules``."""
    parts = metric.split(".")
    kind = parts[-1]
    integral = kind in _COUNTS and float(low).is_integer() and float(high).is_integer()
    lower, upper = _outward(low, True, integral), _outward(high, False, integral)
    if parts[0] == "Dataset" and kind in ("RowCount", "ColumnCount"):
        return f"{kind} between {lower} and {upper}"
    if parts[0] == "Column" and len(parts) >= 3 and kind in (
            "Completeness", "Uniqueness", "UniqueValueRatio", "DistinctValuesCount", "Entropy", "Mean", "Sum",
            "StandardDeviation"):
        column = ".".join(parts[1:-1])
        return f'{kind} "{column}" between {lower} and {upper}'
    return None


def observation(metric: str, value: float, history: Sequence[float]) -> dict[str, Any] | None:
    """Glue's ``DataQualityObservation`` for ``value`` when it lies outside the expected range, else None."""
    expected = bounds(metric, history)
    if expected is None or expected.contains(value):
        return None
    rule = suggested_rule(metric, expected.lower, expected.upper)
    return {
        "Description": (f"{metric}: the value {_number(value)} is outside the expected range "
                        f"[{_number(expected.lower)}, {_number(expected.upper)}] learned from "
                        f"{min(len(history), WINDOW)} earlier runs"),
        "MetricBasedObservation": {
            "MetricName": metric,
            "MetricValues": {"ActualValue": float(value), "ExpectedValue": float(expected.expected),
                             "LowerLimit": float(expected.lower), "UpperLimit": float(expected.upper)},
            "NewRules": [rule] if rule else [],
        },
    }
