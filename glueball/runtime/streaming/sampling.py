"""``getSampleStreamingDynamicFrame`` and ``add_ingestion_time_columns``, as Glue's GlueContext has them.

``getSampleStreamingDynamicFrame(frame, options, sample_function)`` runs the streaming ``frame`` for a
while and returns what it saw as a static DynamicFrame (for interactive development):

- ``windowSize``: the micro-batch trigger interval (default ``"1 second"``; Glue wants it shorter than
  ``pollingTimeInMs``);
- ``pollingTimeInMs``: how long to run, at most (default 10000); at least one micro-batch is planned;
- ``recordPollingLimit``: stop once this many records were taken (default 100).

Batches are decoded as ``forEachBatch`` decodes them (a frame with a ``classification``). ``sample_function
(batch_df, batch_id)``, when given, is called on each non-empty batch; when it returns a DataFrame, that is
what the batch contributes to the sample. The query checkpoints in a temporary directory, removed after.

``add_ingestion_time_columns(frame, time_granularity)`` appends ``ingest_year``, ``ingest_month``,
``ingest_day`` and, with ``hour``/``minute``, ``ingest_hour`` and ``ingest_minute``: zero-padded strings
(``"2024"``, ``"07"``) of the micro-batch's time in UTC (Spark's ``current_timestamp()``, fixed per batch),
ready for ``partitionBy``.
"""

from __future__ import annotations

import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from glueball.runtime.errors import GlueRuntimeError
from glueball.runtime.streaming.option_values import int_option, lower_keys

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

DEFAULT_POLLING_MS = 10_000
DEFAULT_RECORD_LIMIT = 100
DEFAULT_WINDOW = "1 second"
GRANULARITIES = {"day": ("year", "month", "day"), "hour": ("year", "month", "day", "hour"),
                 "minute": ("year", "month", "day", "hour", "minute")}
_PATTERNS = {"year": "yyyy", "month": "MM", "day": "dd", "hour": "HH", "minute": "mm"}


def _positive(opts: Mapping[str, Any], name: str, default: int) -> int:
    return int_option(opts, name, default, "getSampleStreamingDynamicFrame option", minimum=1)


def sample_streaming_frame(glue_ctx: Any, frame: DataFrame, options: Mapping[str, Any] | None,
                           sample_function: Callable[[DataFrame, int], Any] | None = None) -> Any:
    """``glueContext.getSampleStreamingDynamicFrame``: see the module docstring."""
    from glueball.runtime.dynamicframe import DynamicFrame
    from glueball.runtime.streaming.foreach import BatchRunner

    opts = lower_keys(options or {})
    polling_ms = _positive(opts, "pollingTimeInMs", DEFAULT_POLLING_MS)
    limit = _positive(opts, "recordPollingLimit", DEFAULT_RECORD_LIMIT)
    window = str(opts.get("windowsize") or DEFAULT_WINDOW)
    unused = sorted(set(opts) - {"pollingtimeinms", "recordpollinglimit", "windowsize"})
    if unused:
        raise GlueRuntimeError(f"getSampleStreamingDynamicFrame options not known: {', '.join(unused)} "
                               f"(windowSize, pollingTimeInMs, recordPollingLimit)")
    taken: list[DataFrame] = []
    count = 0
    full = threading.Event()
    spark = glue_ctx.spark_session

    def take(batch: DataFrame, batch_id: int) -> None:
        nonlocal count
        chosen = sample_function(batch, batch_id) if sample_function is not None else None
        records = chosen if chosen is not None and hasattr(chosen, "collect") else batch
        if count >= limit:
            return
        rows = records.limit(limit - count).collect()
        if rows:
            taken.append(spark.createDataFrame(rows, records.schema))
            count += len(rows)
        if count >= limit:
            full.set()

    checkpoint = tempfile.mkdtemp(prefix="glueball-sample-")
    runner = BatchRunner(glue_ctx, frame, take, {"windowSize": window, "checkpointLocation": checkpoint,
                                                 "batchMaxRetries": 0})
    query = runner.start()
    try:
        deadline = time.monotonic() + polling_ms / 1000
        while query.isActive and not full.is_set() and time.monotonic() < deadline:
            full.wait(0.1)
        if query.exception() is not None:
            raise GlueRuntimeError(f"getSampleStreamingDynamicFrame: the query failed: {query.exception()}")
    finally:
        runner.stop()
        shutil.rmtree(checkpoint, ignore_errors=True)
    if not taken:
        sample = spark.createDataFrame([], _static_schema(frame, runner))
    else:
        sample = taken[0]
        for more in taken[1:]:
            sample = sample.unionByName(more, allowMissingColumns=True)
    return DynamicFrame(sample, glue_ctx, "sample")


def _static_schema(frame: DataFrame, runner: Any) -> Any:
    # nothing arrived: the raw columns when the batches are not decoded, else no columns at all
    from pyspark.sql.types import StructType

    return StructType([]) if runner.spec is not None else frame.schema


def add_ingestion_time_columns(frame: DataFrame, time_granularity: str) -> DataFrame:
    """``glueContext.add_ingestion_time_columns``: see the module docstring."""
    from pyspark.sql import functions as F

    granularity = str(time_granularity or "").strip().lower()
    if granularity not in GRANULARITIES:
        raise GlueRuntimeError(f"add_ingestion_time_columns time_granularity must be day, hour or minute, "
                               f"got {time_granularity!r}")
    now = F.current_timestamp()
    return frame.withColumns({f"ingest_{unit}": F.date_format(now, _PATTERNS[unit])
                              for unit in GRANULARITIES[granularity]})
