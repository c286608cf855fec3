"""The ten Glue Studio visual transforms, as functions of a Spark DataFrame.

Glue Studio ships these as ``gs_*`` modules that add a method of the same name to ``DynamicFrame``
and ``DataFrame`` when imported (``import gs_concat`` then ``frame.gs_concat(colName=..., ...)``);
:mod:`glueball.runtime.visual` does the attaching, and the top-level ``gs_*`` modules mirror the
import path of generated scripts. Parameter names are Glue Studio's, and values come as Studio
passes them: lists either as Python lists or as comma-separated strings, numbers as strings
(``numPartitionsStr="10"``).

Every function returns a new DataFrame and raises :class:`VisualTransformError` naming the
transform, the parameter and the value when an argument cannot work (an unknown column, an
aggregation Spark does not have, a bad number).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import ArrayType, MapType


class VisualTransformError(ValueError):
    """A visual transform was given an argument it cannot use."""


AGGREGATIONS = {"avg": "avg", "mean": "avg", "sum": "sum", "count": "count", "min": "min", "max": "max",
                "first": "first", "last": "last", "countDistinct": "count_distinct", "stddev": "stddev",
                "stddev_samp": "stddev_samp", "stddev_pop": "stddev_pop", "variance": "variance",
                "var_samp": "var_samp", "var_pop": "var_pop", "sumDistinct": "sum_distinct",
                "collect_list": "collect_list", "collect_set": "collect_set"}
# strftime directives a Studio user may type for the timestamp format, as Spark datetime patterns
_STRFTIME = {"%Y": "yyyy", "%y": "yy", "%m": "MM", "%d": "dd", "%H": "HH", "%I": "hh", "%M": "mm", "%S": "ss",
             "%f": "SSSSSS", "%p": "a", "%b": "MMM", "%B": "MMMM", "%a": "EEE", "%A": "EEEE", "%j": "DDD",
             "%z": "Z", "%Z": "z", "%%": "%"}


def names(value: str | Sequence[str] | None) -> list[str]:
    """A Studio column list: a list, or names separated by commas (spaces around them ignored)."""
    if value is None:
        return []
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return [str(part).strip() for part in value]


def _column(df: DataFrame, name: str, transform: str, parameter: str) -> Column:
    """The column ``name`` of ``df`` (a backquoted name may hold dots: ```a.b```)."""
    bare = name[1:-1] if name.startswith("`") and name.endswith("`") else name
    if bare not in df.columns and name == bare and "." in name:
        return F.col(name)  # a nested field, a.b
    if bare not in df.columns:
        raise VisualTransformError(f"{transform}: {parameter} names column {name!r}, which is not in the data "
                                   f"(columns: {', '.join(df.columns)})")
    return F.col(f"`{bare}`")


def gs_concat(df: DataFrame, colName: str, colList: str | Sequence[str], spacer: str | None = None,  # noqa: N803
              nullValue: str | None = None) -> DataFrame:
    """Concatenate Columns: ``colName`` = the columns of ``colList`` as text, ``spacer`` between them.

    A null value makes the result null unless ``nullValue`` is given to stand in for it.
    """
    columns = names(colList)
    if not columns:
        raise VisualTransformError("gs_concat: colList names no column")
    parts: list[Column] = []
    for index, name in enumerate(columns):
        text = _column(df, name, "gs_concat", "colList").cast("string")
        if nullValue is not None:
            text = F.coalesce(text, F.lit(nullValue))
        if index and spacer:
            parts.append(F.lit(spacer))
        parts.append(text)
    return df.withColumn(colName, F.concat(*parts))


def gs_split(df: DataFrame, colName: str, pattern: str, newColName: str | None = None) -> DataFrame:  # noqa: N803
    """Split String: the text of ``colName`` split by the regular expression ``pattern`` into an array.

    The array replaces ``colName`` unless ``newColName`` is given.
    """
    try:
        re.compile(pattern)
    except re.error as exc:
        raise VisualTransformError(f"gs_split: pattern {pattern!r} is not a regular expression ({exc})") from exc
    source = _column(df, colName, "gs_split", "colName").cast("string")
    return df.withColumn(newColName or colName, F.split(source, pattern))


def gs_array_to_cols(df: DataFrame, colName: str, colList: str | Sequence[str],  # noqa: N803
                     indexes: str | Sequence[str] | None = None) -> DataFrame:
    """Array To Columns: elements of the array ``colName`` into the new columns of ``colList``.

    Elements are taken in order, or at the 1-based positions of ``indexes``; a short array leaves
    the remaining columns null.
    """
    targets = names(colList)
    positions = names(indexes)
    if not targets:
        raise VisualTransformError("gs_array_to_cols: colList names no column")
    if positions:
        if len(positions) != len(targets):
            raise VisualTransformError(f"gs_array_to_cols: {len(positions)} indexes for {len(targets)} columns "
                                       f"(colList {', '.join(targets)})")
        try:
            numbers = [int(p) for p in positions]
        except ValueError as exc:
            raise VisualTransformError(f"gs_array_to_cols: indexes must be whole numbers, got {indexes!r}") from exc
        if any(n < 1 for n in numbers):
            raise VisualTransformError(f"gs_array_to_cols: indexes start at 1, got {indexes!r}")
    else:
        numbers = list(range(1, len(targets) + 1))
    source = _column(df, colName, "gs_array_to_cols", "colName")
    field = df.select(source).schema.fields[0].dataType
    if not isinstance(field, ArrayType):
        raise VisualTransformError(f"gs_array_to_cols: column {colName!r} is {field.simpleString()}, not an array")
    return df.withColumns({name: F.get(source, number - 1) for name, number in zip(targets, numbers, strict=True)})


def spark_datetime_pattern(date_format: str) -> str:
    """A Studio timestamp format as a Spark pattern: strftime directives translated, else unchanged."""
    if "%" not in date_format:
        return date_format
    out, index = [], 0
    while index < len(date_format):
        directive = date_format[index:index + 2]
        if directive in _STRFTIME:
            out.append(_STRFTIME[directive])
            index += 2
            continue
        if directive.startswith("%"):
            raise VisualTransformError(f"gs_now: dateFormat {date_format!r} has {directive!r}, which glueball "
                                       "cannot translate")
        char = date_format[index]
        out.append(f"'{char}'" if char.isalpha() else ("''" if char == "'" else char))
        index += 1
    return "".join(out)


def gs_now(df: DataFrame, colName: str, dateFormat: str | None = None) -> DataFrame:  # noqa: N803
    """Add Current Timestamp: ``colName`` = the time the job processed the row.

    A timestamp, or text in ``dateFormat`` (a Spark datetime pattern or strftime directives).
    """
    stamp = F.current_timestamp()
    if dateFormat:
        stamp = F.date_format(stamp, spark_datetime_pattern(dateFormat))
    return df.withColumn(colName, stamp)


def _aggregate(function: str, column: Column, transform: str) -> Column:
    name = AGGREGATIONS.get(function)
    if name is None:
        raise VisualTransformError(f"{transform}: aggFunction {function!r} is not one of "
                                   f"{', '.join(sorted(AGGREGATIONS))}")
    return getattr(F, name)(column)


def gs_pivot(df: DataFrame, aggCol: str, aggFunction: str, colList: str | Sequence[str]) -> DataFrame:  # noqa: N803
    """Pivot Rows Into Columns: one column per value of ``colList``, ``aggFunction`` of ``aggCol`` in it.

    The other columns group the rows. Several pivot columns pivot on their values joined by ``_``.
    """
    pivots = names(colList)
    if not pivots:
        raise VisualTransformError("gs_pivot: colList names no column")
    measure = _column(df, aggCol, "gs_pivot", "aggCol")
    keys = [_column(df, p, "gs_pivot", "colList") for p in pivots]
    groups = [F.col(f"`{c}`") for c in df.columns if c not in pivots and c != aggCol]
    pivot: Column = keys[0] if len(keys) == 1 else F.concat_ws("_", *[k.cast("string") for k in keys])
    # aggregate once per (group, pivot value) and keep those cells (no more rows than the result has cells):
    # the pivot values are read from them, so the input is computed once, not once for its values and
    # again for the pivot
    cells = (df.groupBy(*groups, pivot.alias("__pivot"))
             .agg(_aggregate(aggFunction, measure, "gs_pivot").alias("__value")).persist())
    values = [row[0] for row in cells.select("__pivot").distinct().orderBy("__pivot").collect()]
    kept = [F.col(f"`{c}`") for c in cells.columns if c not in ("__pivot", "__value")]
    return cells.groupBy(*kept).pivot("__pivot", values).agg(F.first("__value"))


def gs_unpivot(df: DataFrame, unpivotColName: str, unpivotValueColName: str,  # noqa: N803
               colList: str | Sequence[str]) -> DataFrame:
    """Unpivot Columns Into Rows: each column of ``colList`` becomes a row.

    The column's name goes in ``unpivotColName`` and its value in ``unpivotValueColName``; the other
    columns are repeated. The columns must share a type.
    """
    columns = names(colList)
    if not columns:
        raise VisualTransformError("gs_unpivot: colList names no column")
    for name in columns:
        _column(df, name, "gs_unpivot", "colList")
    types = {df.schema[c].dataType.simpleString() for c in columns}
    if len(types) > 1:
        raise VisualTransformError("gs_unpivot: the columns of colList have different types "
                                   f"({', '.join(sorted(types))})")
    ids = [c for c in df.columns if c not in columns]
    return df.unpivot([F.col(f"`{c}`") for c in ids], [F.col(f"`{c}`") for c in columns],
                      unpivotColName, unpivotValueColName)


def gs_explode(df: DataFrame, colName: str, newCol: str | None = None, outer: bool = False) -> DataFrame:  # noqa: N803
    """Explode Array Or Map Into Rows: one row per element of the array (or entry of the map) ``colName``.

    An array's element goes in ``newCol`` (``colName`` itself by default); a map's entries in
    ``<newCol>_key`` and ``<newCol>_value``. ``outer`` keeps rows whose collection is null or empty.
    """
    source = _column(df, colName, "gs_explode", "colName")
    kind = df.select(source).schema.fields[0].dataType
    target = newCol or colName.strip("`")
    explode = F.explode_outer if str(outer).lower() == "true" else F.explode
    if isinstance(kind, ArrayType):
        if target == colName.strip("`"):
            return df.withColumn(target, explode(source))
        return df.select("*", explode(source).alias(target))
    if isinstance(kind, MapType):
        return df.select("*", explode(source).alias(f"{target}_key", f"{target}_value"))
    raise VisualTransformError(f"gs_explode: column {colName!r} is {kind.simpleString()}, not an array or a map")


def gs_derived(df: DataFrame, colName: str, expr: str) -> DataFrame:  # noqa: N803
    """Derived Column: ``colName`` = the Spark SQL expression ``expr`` over the row."""
    from pyspark.errors import AnalysisException, ParseException

    try:
        value = F.expr(expr)
        result = df.withColumn(colName, value)
        result.schema  # noqa: B018 - analysis happens here: an unknown column fails now, not at the write
    except (ParseException, AnalysisException) as exc:
        raise VisualTransformError(f"gs_derived: expr {expr!r} for {colName!r} is not valid Spark SQL "
                                   f"({str(exc).splitlines()[0]})") from exc
    return result


def gs_repartition(df: DataFrame, numPartitionsStr: str | int | None = None) -> DataFrame:  # noqa: N803
    """Autobalance Processing: redistribute the rows evenly, into ``numPartitionsStr`` partitions.

    Without a number, Spark's default parallelism (the cores the job has) decides.
    """
    if numPartitionsStr in (None, ""):
        return df.repartition(df.sparkSession.sparkContext.defaultParallelism)
    try:
        count = int(str(numPartitionsStr))
    except ValueError as exc:
        raise VisualTransformError(f"gs_repartition: numPartitionsStr must be a whole number, "
                                   f"got {numPartitionsStr!r}") from exc
    if count < 1:
        raise VisualTransformError(f"gs_repartition: numPartitionsStr must be at least 1, got {count}")
    return df.repartition(count)


def match_pairs(keyColumns: str | Sequence[str]) -> list[tuple[str, str]]:  # noqa: N803
    """Lookup's "Columns to match": ``user_id=id, region`` → ``[("user_id", "id"), ("region", "region")]``."""
    pairs = []
    for entry in names(keyColumns):
        data, _, lookup = entry.partition("=")
        pairs.append((data.strip(), (lookup or data).strip()))
    return pairs


def gs_lookup(df: DataFrame, lookup: DataFrame, keyColumns: str | Sequence[str],  # noqa: N803
              columnsToTake: str | Sequence[str], lookupTable: str = "the lookup table") -> DataFrame:  # noqa: N803
    """Lookup: add ``columnsToTake`` of ``lookup`` where its keys match (a left outer join).

    ``keyColumns`` pairs the data's columns with the lookup table's (``data_col=lookup_col``, or one
    name for both); rows without a match get nulls.
    """
    pairs = match_pairs(keyColumns)
    take = names(columnsToTake)
    if not pairs:
        raise VisualTransformError("gs_lookup: keyColumns names no column")
    for data_name, lookup_name in pairs:
        _column(df, data_name, "gs_lookup", "keyColumns")
        if lookup_name not in lookup.columns:
            raise VisualTransformError(f"gs_lookup: {lookupTable} has no column {lookup_name!r} "
                                       f"(columns: {', '.join(lookup.columns)})")
    for name in take:
        if name not in lookup.columns:
            raise VisualTransformError(f"gs_lookup: columnsToTake names {name!r}, which {lookupTable} does not "
                                       f"have (columns: {', '.join(lookup.columns)})")
    keys = [f"__lookup_key{i}" for i in range(len(pairs))]
    right = lookup.select(*[F.col(f"`{lk}`").alias(k) for (_, lk), k in zip(pairs, keys, strict=True)],
                          *[F.col(f"`{t}`").alias(f"__lookup_take_{t}") for t in take])
    condition = [F.col(f"`{dk}`") == F.col(k) for (dk, _), k in zip(pairs, keys, strict=True)]
    joined = df.join(right, condition if len(condition) > 1 else condition[0], "left")
    kept = [F.col(f"`{c}`") for c in df.columns if c not in take]
    return joined.select(*kept, *[F.col(f"__lookup_take_{t}").alias(t) for t in take])


def lookup_frame(spark: Any, lookupTable: str) -> DataFrame:  # noqa: N803
    """The catalog table ``db.table`` as a DataFrame (Spark SQL sees the Data Catalog in glueball)."""
    if lookupTable.count(".") != 1:
        raise VisualTransformError(f"gs_lookup: lookupTable must be database.table, got {lookupTable!r}")
    database, table = lookupTable.split(".")
    from glueball.runtime.context import GlueContext

    return GlueContext(spark.sparkContext).create_dynamic_frame.from_catalog(
        database=database, table_name=table).toDF()
