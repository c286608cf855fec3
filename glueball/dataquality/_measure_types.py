"""What a rule's measurement is: its metrics, its per-row condition and its verdict.

Shared by the Spark measurer (:mod:`._measures`) and the File* rules (:mod:`._files`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

Metrics = dict[str, float | None]


class MetricError(ValueError):
    """A metric that cannot be computed from this data (a query returning no row...): the outcome is Error."""


class NoRows(MetricError):
    """No rows (or no values) to compute the metric from: the rule is Failed with this reason, as deequ
    (Glue's engine) fails a constraint whose metric has an empty state."""


@dataclass
class Measure:
    """One rule's metrics, per-row condition and verdict (see the module docstring)."""

    metrics: Callable[[], Metrics]
    compared: str | None = None
    decide: Callable[[Metrics], str | None] | None = None  # the failure reason, None when the rule passes
    row: Column | None = None
    prepare: Callable[[DataFrame], DataFrame] | None = None  # adds the helper columns ``row`` reads
    windowed: bool = False  # ``row`` holds a window function (cannot sit inside an aggregate)
