"""Per-batch metrics of a streaming query, as Glue's streaming jobs report them.

For every micro-batch with records, ``forEachBatch`` records (from Spark's query progress, delivered to
a ``StreamingQueryListener`` on the driver):

- ``batchId``, ``timestamp`` (the trigger's start, ISO-8601 UTC);
- ``numInputRows``; ``inputRowsPerSecond`` (the rate records arrived at since the previous trigger) and
  ``processedRowsPerSecond`` (the rate this batch was processed at), Spark's two rates;
- ``batchDurationMs``: the whole trigger (planning, reading, the batch function, the commit);
- ``consumerLag``: records still waiting on the brokers when the batch was planned — per partition the
  latest offset minus the offset the batch read up to, summed (Glue's ``maxConsumerLag`` family of
  metrics, as a record count); null for sources whose offsets are not Kafka's ``{topic: {partition: n}}``;
- ``maxConsumerLagInMs`` (with ``emitConsumerLagMetrics``): when the batch ran, the age of its oldest
  record (Kafka timestamp, Kinesis arrival time) — Glue's ``glue.driver.streaming.maxConsumerLagInMs``.

Inside a job run (``GLUEBALL_JOB_LOG_DIR`` set by the job launcher) each record is one JSON line of
``metrics-stream.jsonl`` in the run's log directory. The server watching the run (on the driver's host) keeps
their summary (``StreamTally``) on the run in the store as batches come, so ``Glueball.GetJobRunMetrics`` and
``glueball jobs runs`` show the same through every server. Any ``BatchRunner`` keeps them in ``metrics`` too.
"""

from __future__ import annotations

import collections
import json
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from glueball.supervise import driverenv

log = logging.getLogger("glueball.runtime.streaming")

METRICS_FILE = "metrics-stream.jsonl"
RECENT = 10

__all__ = ["METRICS_FILE", "StreamMetrics", "StreamTally", "batch_metrics", "consumer_lag", "read_stream_metrics",
           "stream_summary"]


def _offsets(value: Any) -> dict[str, dict[str, int]] | None:
    """Kafka-style offsets ``{topic: {partition: offset}}`` from Spark's progress (JSON text or parsed)."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return None
    if not isinstance(value, dict):
        return None
    out: dict[str, dict[str, int]] = {}
    for topic, partitions in value.items():
        if not isinstance(partitions, dict):
            return None
        try:
            out[str(topic)] = {str(p): int(o) for p, o in partitions.items()}
        except (TypeError, ValueError):
            return None
    return out


def consumer_lag(sources: list[dict[str, Any]]) -> int | None:
    """Records waiting on the brokers: per partition latest offset minus the batch's end offset, summed.

    A partition the batch has not read yet (a new one) counts from offset 0. None when no source
    reports Kafka-style offsets.
    """
    total: int | None = None
    for source in sources:
        latest, end = _offsets(source.get("latestOffset")), _offsets(source.get("endOffset"))
        if latest is None or end is None:
            continue
        total = total or 0
        for topic, partitions in latest.items():
            for partition, offset in partitions.items():
                total += max(0, offset - end.get(topic, {}).get(partition, 0))
    return total


def _rate(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return round(number, 3) if number == number else None  # NaN (no previous trigger): unknown


def batch_metrics(progress: dict[str, Any]) -> dict[str, Any]:
    """The metrics of one batch from Spark's ``StreamingQueryProgress`` as JSON (``progress.json``)."""
    durations = progress.get("durationMs") or {}
    return {"batchId": int(progress.get("batchId", -1)), "timestamp": progress.get("timestamp"),
            "numInputRows": int(progress.get("numInputRows") or 0),
            "inputRowsPerSecond": _rate(progress.get("inputRowsPerSecond")),
            "processedRowsPerSecond": _rate(progress.get("processedRowsPerSecond")),
            "batchDurationMs": int(durations.get("triggerExecution") or 0),
            "consumerLag": consumer_lag(list(progress.get("sources") or []))}


class StreamMetrics:
    """Collects one query's batch metrics (in memory, and in ``path`` as JSON lines when given)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self.batches: list[dict[str, Any]] = []
        self._notes: dict[int, dict[str, Any]] = {}
        self._lock = threading.Lock()

    @classmethod
    def for_job_run(cls) -> StreamMetrics:
        """Recording into the job run's log directory when the driver runs as a job (else in memory only)."""
        directory = driverenv.current().log_dir
        return cls(directory / METRICS_FILE if directory else None)

    def note(self, batch_id: int, **values: Any) -> None:
        """Metrics measured while batch ``batch_id`` ran, recorded with its progress report."""
        with self._lock:
            self._notes.setdefault(batch_id, {}).update(values)

    def record(self, progress: dict[str, Any]) -> None:
        """Keep the metrics of a progress report that processed records (idle triggers are not batches)."""
        if int(progress.get("numInputRows") or 0) == 0:
            return
        metrics = batch_metrics(progress)
        with self._lock:
            metrics.update(self._notes.pop(metrics["batchId"], {}))
            self.batches.append(metrics)
            if self.path is not None:
                try:
                    with self.path.open("a", encoding="utf-8") as out:
                        out.write(json.dumps(metrics) + "\n")
                except OSError:
                    log.warning("could not write streaming metrics to %s", self.path, exc_info=True)

    def listener(self, query_id: Callable[[], str | None]) -> Any:
        """A ``StreamingQueryListener`` recording the progress of the query whose id ``query_id`` gives."""
        from pyspark.sql.streaming import StreamingQueryListener

        metrics = self

        class _Listener(StreamingQueryListener):
            def onQueryStarted(self, event: Any) -> None:  # noqa: N802 - Spark's name
                pass

            def onQueryProgress(self, event: Any) -> None:  # noqa: N802
                if str(event.progress.id) == query_id():
                    metrics.record(json.loads(event.progress.json))

            def onQueryIdle(self, event: Any) -> None:  # noqa: N802
                pass

            def onQueryTerminated(self, event: Any) -> None:  # noqa: N802
                pass

        return _Listener()


def read_stream_metrics(directory: str | Path | None) -> list[dict[str, Any]]:
    """The batch metrics a streaming job run recorded in its log directory (empty when none)."""
    if not directory:
        return []
    path = Path(directory) / METRICS_FILE
    if not path.is_file():
        return []
    batches = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            batches.append(json.loads(line))
        except ValueError:  # a line being written
            continue
    return batches


def stream_summary(batches: list[dict[str, Any]]) -> dict[str, Any] | None:
    """What ``GetJobRunMetrics`` shows: batch and row counts, the latest batch, and the recent ones."""
    tally = StreamTally()
    for batch in batches:
        tally.add(batch)
    return tally.summary()


class StreamTally:
    """A run's :func:`stream_summary` kept up to date from its growing ``metrics-stream.jsonl``: :meth:`read`
    parses only the complete lines appended since the last call, so a long-running stream costs its new
    batches, not its whole history."""

    def __init__(self) -> None:
        self.batches = 0
        self.input_rows = 0
        self.recent: collections.deque[dict[str, Any]] = collections.deque(maxlen=RECENT)
        self.position = 0

    def add(self, batch: dict[str, Any]) -> None:
        self.batches += 1
        self.input_rows += int(batch.get("numInputRows") or 0)
        self.recent.append(batch)

    def read(self, directory: str | Path) -> bool:
        """Take in the batches appended to the run's file since the last call; whether there were any."""
        path = Path(directory) / METRICS_FILE
        try:
            with path.open("rb") as handle:
                handle.seek(self.position)
                data = handle.read()
        except OSError:  # not written yet (or gone)
            return False
        cut = data.rfind(b"\n") + 1  # a line still being written waits for its newline
        before = self.batches
        for line in data[:cut].splitlines():
            try:
                batch = json.loads(line)
            except ValueError:  # not a batch record
                continue
            if isinstance(batch, dict):
                self.add(batch)
        self.position += cut
        return self.batches > before

    def summary(self) -> dict[str, Any] | None:
        if not self.batches:
            return None
        return {"Batches": self.batches, "InputRows": self.input_rows, "LastBatch": self.recent[-1],
                "RecentBatches": list(self.recent)}
