"""The column statistics driver: what runs in a task run's own process (``python -m glueball run driver.py``).

The server side (:mod:`glueball.catalog.statistics_task_runs`) writes ``run.json`` (the table, its
columns with their Glue types, ``SampleSize``) and launches ``driver.py``, which calls :func:`drive`.
It reads the table through the catalog as a Glue job does
(``GlueContext.create_dynamic_frame.from_catalog``), keeps ``SampleSize`` percent of its rows, and
computes in one Spark aggregation, per column as its Glue type says:

- BOOLEAN: trues, falses, nulls;
- LONG, DOUBLE, DECIMAL, DATE: minimum, maximum, nulls, distinct values (HyperLogLog estimate, as Glue's);
- STRING: maximum and average length, nulls, distinct values; BINARY: maximum and average length, nulls.

The statistics are stored with UpdateColumnStatisticsForTable (25 columns a request), and the driver
reports SUCCEEDED, or FAILED with the exception as ``ErrorMessage``
(:func:`glueball.supervise.outcome.report`, recorded by its keeper). Nothing here runs in the server.
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
import re
import traceback
from pathlib import Path
from typing import Any

from glueball.supervise import outcome

RUN_FILE = "run.json"
BATCH = 25  # UpdateColumnStatisticsForTable takes at most 25 columns
_DECIMAL = re.compile(r"decimal\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)", re.IGNORECASE)


def drive() -> int:
    """A run's driver: compute and store the statistics ``run.json`` (in the working directory) asks for."""
    directory = Path.cwd()
    info = json.loads((directory / RUN_FILE).read_text())
    try:
        statistics = compute(info)
        store(info, statistics)
    except Exception as exc:
        traceback.print_exc()
        outcome.report(outcome.FAILED, f"{type(exc).__name__}: {exc}", directory)
        return 1
    outcome.report(outcome.SUCCEEDED, None, directory)
    return 0


def _spark_type(kind: str, glue_type: str) -> str:
    if kind == "DECIMAL":
        found = _DECIMAL.search(glue_type)
        return f"decimal({found.group(1)},{found.group(2)})" if found else "decimal(10,0)"
    return {"BOOLEAN": "boolean", "LONG": "bigint", "DOUBLE": "double", "DATE": "date", "STRING": "string",
            "BINARY": "binary"}[kind]


def compute(info: dict[str, Any]) -> list[dict[str, Any]]:
    """The ColumnStatistics structures of the run's columns, computed on Spark."""
    from pyspark.context import SparkContext
    from pyspark.sql import functions as F  # noqa: N812 - Spark's own spelling

    from awsglue.context import GlueContext
    from glueball.catalog.statistics_tasks import statistics_type

    glue = GlueContext(SparkContext.getOrCreate())
    frame = glue.create_dynamic_frame.from_catalog(database=info["DatabaseName"], table_name=info["TableName"]).toDF()
    sample = info.get("SampleSize")
    if sample is not None and sample < 100:
        frame = frame.sample(fraction=float(sample) / 100.0)
    present = {name.lower(): name for name in frame.columns}
    aggregates = [F.count(F.lit(1)).alias("rows")]
    kinds: dict[str, str] = {}
    for index, (name, glue_type) in enumerate(info["Columns"].items()):
        kind = statistics_type(glue_type)
        assert kind is not None
        kinds[name] = kind
        actual = present.get(name.lower())
        column = F.col(f"`{actual}`").cast(_spark_type(kind, glue_type)) if actual else \
            F.lit(None).cast(_spark_type(kind, glue_type))
        prefix = f"c{index}_"
        aggregates.append(F.sum(F.when(column.isNull(), 1).otherwise(0)).alias(prefix + "nulls"))
        if kind == "BOOLEAN":
            aggregates += [F.sum(F.when(column, 1).otherwise(0)).alias(prefix + "trues"),
                           F.sum(F.when(~column, 1).otherwise(0)).alias(prefix + "falses")]
        elif kind in ("STRING", "BINARY"):
            aggregates += [F.max(F.length(column)).alias(prefix + "maxlen"),
                           F.avg(F.length(column)).alias(prefix + "avglen")]
        else:
            aggregates += [F.min(column).alias(prefix + "min"), F.max(column).alias(prefix + "max")]
        if kind not in ("BOOLEAN", "BINARY"):
            aggregates.append(F.approx_count_distinct(column).alias(prefix + "distinct"))
    result = frame.agg(*aggregates).collect()[0].asDict()
    analyzed = dt.datetime.now(dt.UTC)
    statistics = []
    for index, (name, glue_type) in enumerate(info["Columns"].items()):
        values = {key[len(f"c{index}_"):]: value for key, value in result.items() if key.startswith(f"c{index}_")}
        statistics.append({"ColumnName": name, "ColumnType": glue_type, "AnalyzedTime": analyzed,
                           "StatisticsData": statistics_data(kinds[name], values)})
    return statistics


def _decimal_number(value: decimal.Decimal) -> dict[str, Any]:
    sign, digits, exponent = value.as_tuple()
    scale = -int(exponent) if isinstance(exponent, int) and exponent < 0 else 0
    unscaled = int(value.scaleb(scale))
    length = max(1, (unscaled.bit_length() + 8) // 8)
    return {"UnscaledValue": unscaled.to_bytes(length, "big", signed=True), "Scale": scale}


def statistics_data(kind: str, values: dict[str, Any]) -> dict[str, Any]:
    """One column's StatisticsData from the aggregation's values (``nulls``, ``min``, ``maxlen``, ...)."""
    nulls = int(values.get("nulls") or 0)
    distinct = int(values.get("distinct") or 0)
    if kind == "BOOLEAN":
        return {"Type": kind, "BooleanColumnStatisticsData": {
            "NumberOfTrues": int(values.get("trues") or 0), "NumberOfFalses": int(values.get("falses") or 0),
            "NumberOfNulls": nulls}}
    if kind in ("STRING", "BINARY"):
        lengths = {"MaximumLength": int(values.get("maxlen") or 0),
                   "AverageLength": float(values.get("avglen") or 0.0), "NumberOfNulls": nulls}
        if kind == "STRING":
            return {"Type": kind, "StringColumnStatisticsData": {**lengths, "NumberOfDistinctValues": distinct}}
        return {"Type": kind, "BinaryColumnStatisticsData": lengths}
    bounds: dict[str, Any] = {}
    for key, member in (("min", "MinimumValue"), ("max", "MaximumValue")):
        value = values.get(key)
        if value is None:
            continue
        if kind == "LONG":
            bounds[member] = int(value)
        elif kind == "DOUBLE":
            bounds[member] = float(value)
        elif kind == "DECIMAL":
            bounds[member] = _decimal_number(value)
        else:  # DATE
            bounds[member] = dt.datetime.combine(value, dt.time(), dt.UTC)
    member = {"LONG": "LongColumnStatisticsData", "DOUBLE": "DoubleColumnStatisticsData",
              "DECIMAL": "DecimalColumnStatisticsData", "DATE": "DateColumnStatisticsData"}[kind]
    return {"Type": kind, member: {**bounds, "NumberOfNulls": nulls, "NumberOfDistinctValues": distinct}}


def store(info: dict[str, Any], statistics: list[dict[str, Any]]) -> None:
    """Store the statistics with UpdateColumnStatisticsForTable.

    Raises:
        RuntimeError: the catalog refused a column's statistics (its error says why).
    """
    from glueball.runtime.client import glue_client

    client = glue_client()
    for start in range(0, len(statistics), BATCH):
        answer = client.update_column_statistics_for_table(
            DatabaseName=info["DatabaseName"], TableName=info["TableName"],
            ColumnStatisticsList=statistics[start:start + BATCH])
        errors = answer.get("Errors") or []
        if errors:
            first = errors[0]
            raise RuntimeError(f"storing the statistics of column {first['ColumnStatistics']['ColumnName']} failed: "
                               f"{first['Error'].get('ErrorMessage')}")
        print(f"stored the statistics of {len(statistics[start:start + BATCH])} column(s)", flush=True)
