"""``glueContext.forEachBatch(frame, batch_function, options)``: Glue's micro-batch loop on Spark.

Options (Glue's names):

- ``windowSize``: the trigger interval (``"100 seconds"``, the default; any Spark processing-time
  interval such as ``"1 second"`` or ``"500 milliseconds"``).
- ``checkpointLocation`` (required): where Spark keeps the query's offsets and commits; ``s3://``
  paths go to the object store. A restarted job resumes after the last committed batch; a batch that
  was planned but not committed runs again with the same id and the same offsets, so a batch function
  that writes idempotently by batch id loses and duplicates nothing.
- ``persistDataFrame`` (default true) and ``storageLevel`` (default ``MEMORY_AND_DISK``): the
  micro-batch is persisted while the batch function runs (decoding, an emptiness check and the
  function's own actions then read the source once) and released after.
- ``batchMaxRetries`` (0–100, default 3): a failed batch restarts the query from its checkpoint after
  a back-off of 1, 2, 4... seconds (at most 60), up to that many times in a row; then the error is
  raised.

Spark 4.1.1's Kafka source fails a restarted query right after it has replayed (and committed) a batch that
the previous run planned but did not commit: its progress report reads the latest offsets it has not fetched
in that run (a NullPointerException in ``KafkaMicroBatchStream.metrics``). The batch's work is done, so
``forEachBatch`` starts the query again at once, without counting a failure (:func:`is_spark_kafka_replay_bug`).

Empty micro-batches are skipped: the batch function is called only for batches with records. With a
frame from ``create_data_frame.from_options`` that has a ``classification``, the batch function gets
the decoded records; the batch's error records ride along (``DynamicFrame.fromDF(batch_df, ...)``).
The call blocks until the query stops (``query.stop()`` from another thread, or a failure).

Each batch's metrics (input rows, rates, duration, consumer lag) are kept by ``StreamMetrics``
(``glueball.runtime.streaming.metrics``): in ``BatchRunner.metrics``, and in a job run's log directory.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from glueball.runtime.errors import GlueRuntimeError, attach_errors
from glueball.runtime.streaming.decode import decode_batch
from glueball.runtime.streaming.metrics import StreamMetrics
from glueball.runtime.streaming.option_values import as_bool, lower_keys
from glueball.runtime.streaming.sources import decode_spec_of

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

log = logging.getLogger("glueball.runtime.streaming")

OPTIONS = ("windowSize", "checkpointLocation", "persistDataFrame", "storageLevel", "batchMaxRetries")
DEFAULT_WINDOW = "100 seconds"
MAX_RETRIES = 100
RETRY_BACKOFF_SECONDS = 1.0
RETRY_BACKOFF_MAX_SECONDS = 60.0


def _storage_level(name: Any) -> Any:
    from pyspark import StorageLevel

    text = str(name or "MEMORY_AND_DISK").strip().upper()
    level = getattr(StorageLevel, text, None)
    if not isinstance(level, StorageLevel):
        raise GlueRuntimeError(f"forEachBatch storageLevel {name!r} is not a Spark storage level "
                               f"(MEMORY_ONLY, MEMORY_AND_DISK, DISK_ONLY, ...)")
    return level


def _retries(value: Any) -> int:
    if value is None or value == "":
        return 3
    try:
        retries = int(str(value).strip())
    except ValueError:
        raise GlueRuntimeError(f"forEachBatch batchMaxRetries must be an integer, got {value!r}") from None
    if not 0 <= retries <= MAX_RETRIES:
        raise GlueRuntimeError(f"forEachBatch batchMaxRetries must be between 0 and {MAX_RETRIES}, got {retries}")
    return retries


class BatchRunner:
    """One ``forEachBatch`` call: the query, its restarts, and what happened (for logs and tests)."""

    def __init__(self, glue_ctx: Any, frame: DataFrame, batch_function: Callable[[DataFrame, int], Any],
                 options: Mapping[str, Any]) -> None:
        from glueball.objects.locations import to_spark_path

        opts = lower_keys(options or {})
        known = {o.lower() for o in OPTIONS}
        unused = sorted(k for k in opts if k not in known)
        if unused:
            log.warning("forEachBatch options not used: %s", ", ".join(unused))
        if not frame.isStreaming:
            raise GlueRuntimeError("forEachBatch needs a streaming DataFrame (create_data_frame.from_options with "
                                   "a streaming connection type)")
        checkpoint = opts.get("checkpointlocation")
        if not checkpoint:
            raise GlueRuntimeError("forEachBatch needs the option checkpointLocation (where the query's offsets "
                                   "are kept between runs)")
        self.glue_ctx = glue_ctx
        self.frame = frame
        self.batch_function = batch_function
        self.checkpoint = to_spark_path(str(checkpoint))
        self.window = str(opts.get("windowsize") or DEFAULT_WINDOW)
        self.persist = as_bool(opts.get("persistdataframe"), True)
        self.storage_level = _storage_level(opts.get("storagelevel"))
        self.max_retries = _retries(opts.get("batchmaxretries"))
        self.spec = decode_spec_of(frame)
        self.failures = 0
        self.restarts = 0
        self.replay_bug_restarts = 0
        self.batches_run: list[int] = []
        self.batches_skipped: list[int] = []
        self.query: Any = None
        self.metrics = StreamMetrics.for_job_run()
        self._stopped = threading.Event()

    def on_batch(self, df: DataFrame, batch_id: int) -> None:
        raw = df.persist(self.storage_level) if self.persist else df
        try:
            if raw.isEmpty():
                self.batches_skipped.append(batch_id)
                return
            if self.spec is not None and self.spec.emit_consumer_lag_metrics:
                self._consumer_lag(raw, batch_id)
            if self.spec is not None:
                records, errors = decode_batch(self.glue_ctx, raw, self.spec)
                attach_errors(records, errors)
            else:
                records = raw
            self.batch_function(records, batch_id)
            self.batches_run.append(batch_id)
            self.failures = 0
        finally:
            if self.persist:
                raw.unpersist()

    def _consumer_lag(self, raw: DataFrame, batch_id: int) -> None:
        """Log and record the age of the batch's oldest record (``maxConsumerLagInMs``)."""
        from pyspark.sql import functions as F

        oldest = raw.agg(F.min(F.unix_micros("timestamp")).alias("t")).first()
        if oldest is not None and oldest["t"] is not None:
            lag_ms = max(0, int(time.time() * 1000) - oldest["t"] // 1000)
            log.info("batch %s: glue.driver.streaming.maxConsumerLagInMs=%d", batch_id, lag_ms)
            self.metrics.note(batch_id, maxConsumerLagInMs=lag_ms)

    def start(self) -> Any:
        try:
            writer = (self.frame.writeStream.foreachBatch(self.on_batch).trigger(processingTime=self.window)
                      .option("checkpointLocation", self.checkpoint))
        except Exception as e:  # noqa: BLE001 - Spark rejects a bad interval with several error types
            raise GlueRuntimeError(f"forEachBatch windowSize {self.window!r} is not an interval: {e}") from None
        self.query = writer.start()
        return self.query

    def stop(self) -> None:
        """Stop the query (and any restart still to come); ``run`` then returns."""
        self._stopped.set()
        if self.query is not None:
            self.query.stop()

    def run(self) -> None:
        """Run until the query is stopped; restart a failed batch up to ``batchMaxRetries`` times in a row."""
        streams = self.frame.sparkSession.streams
        listener = self.metrics.listener(lambda: str(self.query.id) if self.query is not None else None)
        streams.addListener(listener)
        try:
            self._run()
        finally:
            streams.removeListener(listener)

    def _run(self) -> None:
        from pyspark.errors import StreamingQueryException

        while not self._stopped.is_set():
            query = self.start()
            if self._stopped.is_set():  # stopped while starting
                query.stop()
                return
            batches_before = len(self.batches_run)
            try:
                query.awaitTermination()
                return
            except StreamingQueryException as e:
                if self._stopped.is_set():
                    return
                if len(self.batches_run) > batches_before and is_spark_kafka_replay_bug(e):
                    log.info("forEachBatch: Spark's Kafka source failed reporting the progress of the batch it "
                             "replayed (committed); starting the query again")
                    self.replay_bug_restarts += 1
                    continue
                self.failures += 1
                if self.failures > self.max_retries:
                    log.error("forEachBatch: batch failed %d time(s) in a row; giving up", self.failures)
                    raise
                delay = min(RETRY_BACKOFF_SECONDS * 2 ** (self.failures - 1), RETRY_BACKOFF_MAX_SECONDS)
                log.warning("forEachBatch: batch failed (%s); restarting from the checkpoint in %.0f s "
                            "(retry %d of %d)", str(e).splitlines()[0], delay, self.failures, self.max_retries)
                self.restarts += 1
                if self._stopped.wait(delay):
                    return


def is_spark_kafka_replay_bug(error: Exception) -> bool:
    """Whether ``error`` is Spark 4.1.1's Kafka source failing its progress report after a replayed batch."""
    text = f"{error}\n{getattr(error, '_stackTrace', '') or ''}"  # PySpark keeps the JVM's stack trace there
    return "NullPointerException" in text and "KafkaMicroBatchStream$.metrics" in text


def for_each_batch(glue_ctx: Any, frame: DataFrame, batch_function: Callable[[DataFrame, int], Any],
                   options: Mapping[str, Any] | None) -> None:
    """``glueContext.forEachBatch``: see the module docstring."""
    BatchRunner(glue_ctx, frame, batch_function, options or {}).run()
