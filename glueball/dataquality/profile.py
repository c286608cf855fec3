"""Profiling data, and recommending DQDL rules from the profile (Glue's rule recommendation runs).

:func:`profile` reads the data in **one aggregation** — per column the non-null count, the exact
distinct count, minimum, maximum, mean and population standard deviation of numbers, the shortest
and longest text, and for text columns how many values read as integers, numbers, dates, timestamps
or booleans — plus, when some columns have few distinct values, **one more** aggregation collecting
those value sets. :func:`recommend` turns a profile into DQDL rule texts the way Glue's
recommendations read (``RowCount between``, ``IsComplete``/``Completeness``, ``IsUnique``,
``ColumnValues in [...]`` and ``between``, ``ColumnLength``, ``StandardDeviation``,
``ColumnDataType``); every recommended rule holds on the profiled data itself.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from glueball.dataquality.ast import format_number, quote

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

__all__ = ["MAX_VALUES", "profile", "recommend"]

#: a column with at most this many distinct values has its value set profiled
MAX_VALUES = 20
#: a value set is recommended (``ColumnValues in [...]``) up to this size
MAX_RECOMMENDED_VALUES = 10
_NUMERIC = ("byte", "short", "integer", "long", "float", "double", "decimal")
#: text read as ... -> the cast that tests it, and ColumnDataType's name for it
_READS_AS = (("integer", "int", "INTEGER"), ("long", "bigint", "LONG"), ("double", "double", "DOUBLE"),
             ("date", "date", "DATE"), ("timestamp", "timestamp", "TIMESTAMP"), ("boolean", "boolean", "BOOLEAN"))


def profile(frame: DataFrame, max_values: int = MAX_VALUES) -> dict[str, Any]:
    """``{"RowCount": n, "Columns": {name: statistics}, "Passes": 1 or 2}``.

    Each column's statistics: ``Type`` (Spark's), ``Completeness``, ``DistinctCount``,
    ``DistinctRatio`` (distinct / non-null), ``Unique`` (every row has a value of its own); numbers:
    ``Minimum``, ``Maximum``, ``Mean``, ``StandardDeviation``; text: ``MinimumLength``,
    ``MaximumLength``, ``ReadsAs`` (``integer``, ``long``, ``double``, ``date``, ``timestamp`` or ``boolean``
    when every value reads as one); and ``Values`` (sorted, NULL left out) when there are at most
    ``max_values`` distinct values.
    """
    from pyspark.sql import functions as F

    fields = list(frame.schema.fields)
    aggregates = [F.count(F.lit(1)).alias("rows")]
    for i, field in enumerate(fields):
        column = F.col(f"`{field.name}`")
        kind = field.dataType.typeName()
        aggregates += [F.count(column).alias(f"n{i}"), F.count_distinct(column).alias(f"d{i}")]
        if kind in _NUMERIC:
            value = column.cast("double")
            aggregates += [F.min(value).alias(f"min{i}"), F.max(value).alias(f"max{i}"),
                           F.avg(value).alias(f"avg{i}"), F.stddev_pop(value).alias(f"sd{i}")]
        elif kind == "string":
            length = F.length(column)
            aggregates += [F.min(length).alias(f"minlen{i}"), F.max(length).alias(f"maxlen{i}")]
            aggregates += [F.count(column.try_cast(cast)).alias(f"{name}{i}") for name, cast, _ in _READS_AS]
    row = frame.agg(*aggregates).collect()[0]
    rows = int(row["rows"])
    columns: dict[str, dict[str, Any]] = {}
    small: list[tuple[int, str]] = []
    for i, field in enumerate(fields):
        present, distinct = int(row[f"n{i}"]), int(row[f"d{i}"])
        stats: dict[str, Any] = {
            "Type": field.dataType.simpleString(),
            "Completeness": present / rows if rows else 0.0,
            "DistinctCount": distinct,
            "DistinctRatio": distinct / present if present else 0.0,
            "Unique": rows > 0 and distinct == rows,
        }
        kind = field.dataType.typeName()
        if kind in _NUMERIC and present:
            stats.update(Minimum=row[f"min{i}"], Maximum=row[f"max{i}"], Mean=row[f"avg{i}"],
                         StandardDeviation=row[f"sd{i}"])
        elif kind == "string" and present:
            stats.update(MinimumLength=row[f"minlen{i}"], MaximumLength=row[f"maxlen{i}"])
            reads = [name for name, _, _ in _READS_AS if row[f"{name}{i}"] == present]
            if reads:
                stats["ReadsAs"] = reads[0]
        if 0 < distinct <= max_values:
            small.append((i, field.name))
        columns[field.name] = stats
    passes = 1
    if small:
        passes += 1
        sets = frame.agg(*[F.collect_set(F.col(f"`{name}`")).alias(f"v{i}") for i, name in small]).collect()[0]
        for i, name in small:
            columns[name]["Values"] = sorted(sets[f"v{i}"], key=lambda v: (str(type(v)), v))
    return {"RowCount": rows, "Columns": columns, "Passes": passes}


def _number(value: float) -> str:
    if float(value).is_integer() and abs(value) < 2**53:
        return str(int(value))
    return format_number(round(float(value), 6))


def _below(value: float) -> str:
    """A lower bound for ``between`` (exclusive) that ``value`` clears."""
    if float(value).is_integer():
        return _number(value - 1)
    return _number(math.floor(value * 1e4) / 1e4 - 1e-4)


def _above(value: float) -> str:
    if float(value).is_integer():
        return _number(value + 1)
    return _number(math.ceil(value * 1e4) / 1e4 + 1e-4)


def _literal(value: Any) -> str:
    if isinstance(value, bool):
        return quote(str(value).lower())
    if isinstance(value, int | float):
        return format_number(value)
    return quote(str(value))


def recommend(data_profile: dict[str, Any]) -> list[str]:
    """DQDL rule texts for the profiled data (each holds on it; see the module docstring)."""
    rows = int(data_profile["RowCount"])
    rules: list[str] = []
    if rows:
        rules.append(f"RowCount between {_number(math.floor(rows * 0.5))} and {_number(math.ceil(rows * 1.5))}")
    for name, stats in data_profile["Columns"].items():
        column = quote(name)
        completeness = float(stats["Completeness"])
        if not rows or completeness == 0:
            continue
        # rows with NULL fail value rules, so a nullable column's value rules get the completeness as threshold
        floor = math.floor(completeness * 100) / 100
        threshold = "" if completeness == 1 else f" with threshold >= {_number(floor)}"
        if completeness == 1:
            rules.append(f"IsComplete {column}")
        else:
            rules.append(f"Completeness {column} >= {_number(floor)}")
        if stats["Unique"] and rows > 1:
            rules.append(f"IsUnique {column}")
        values = stats.get("Values")
        present = round(completeness * rows)
        # a value set when values repeat; distinct values each seen once are better described by a range
        categorical = values is not None and len(values) <= MAX_RECOMMENDED_VALUES and len(values) < present
        if categorical and all(isinstance(v, str | int | float | bool) for v in values):
            listed = ", ".join(_literal(v) for v in values) + (", NULL" if completeness < 1 else "")
            rules.append(f"ColumnValues {column} in [{listed}]")
        elif stats.get("Minimum") is not None:
            rules.append(f"ColumnValues {column} between {_below(stats['Minimum'])} and "
                         f"{_above(stats['Maximum'])}{threshold}")
        deviation = stats.get("StandardDeviation")
        if deviation and not categorical:
            rules.append(f"StandardDeviation {column} between {_number(math.floor(deviation * 0.9 * 1e4) / 1e4)} "
                         f"and {_number(math.ceil(deviation * 1.1 * 1e4) / 1e4)}")
        if stats.get("MaximumLength") is not None and not categorical:
            shortest, longest = int(stats["MinimumLength"]), int(stats["MaximumLength"])
            # ColumnLength takes no threshold (the reference's rules configuration): a nullable column's
            # length rule keeps to the rows that have a value instead
            present_only = "" if completeness == 1 else " where " + quote(f"`{name.replace('`', '``')}` is not null")
            rules.append(f"ColumnLength {column} between {shortest - 1} and {longest + 1}{present_only}"
                         if shortest > 0 else f"ColumnLength {column} <= {longest}{present_only}")
        reads = stats.get("ReadsAs")
        if reads:
            rules.append(f"ColumnDataType {column} = {quote(next(t for n, _, t in _READS_AS if n == reads))}")
    return rules
