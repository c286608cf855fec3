"""The CloudWatch metrics of job runs, as Glue publishes them: namespace ``Glue``, dimensions ``JobName``,
``JobRunId`` and ``Type``.

From a run's Spark event log (the per-30-second figures of ``glueball.jobs.eventlog.timeline``):
``glue.driver.aggregate.*`` (bytesRead, recordsRead, numCompletedTasks, numFailedTasks, numKilledTasks,
numCompletedStages, shuffleBytesWritten, shuffleLocalBytesRead, elapsedTime), ``Type=count``, each a
delta over its interval as Glue reports them; ``glue.driver.jvm.heap.used`` / ``.usage`` and
``glue.<executor>.jvm.heap.*``, ``glue.ALL.jvm.heap.*`` and
``glue.driver.ExecutorAllocationManager.executors.numberAllExecutors``, ``Type=gauge``. From a streaming
run's batch metrics: ``glue.driver.streaming.numRecords`` and ``glue.driver.streaming.batchProcessingTimeInMs``
(``Type=count``) and, where the source reports them, ``glue.driver.streaming.maxConsumerLagInMs`` (gauge).

Every data point is published twice, with ``JobRunId`` the run's id and ``ALL``, as Glue does.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable
from typing import Any

from glueball.logs.datapoints import Datum

NAMESPACE = "Glue"
# a driver's heap when the run sets none (Spark's spark.driver.memory default): usage = used / this
DEFAULT_HEAP_BYTES = 1024 ** 3
UNITS = {"aggregate.bytesRead": "Bytes", "aggregate.shuffleBytesWritten": "Bytes",
         "aggregate.shuffleLocalBytesRead": "Bytes", "aggregate.elapsedTime": "Milliseconds",
         "jvm.heap.used": "Bytes", "jvm.heap.usage": "Percent"}
SPARK_FIGURES = Iterable[tuple[int, str, str, float]]


def _run_data(job: str, run_id: str, name: str, kind: str, stamp: float, value: float, unit: str) -> list[Datum]:
    return [Datum.value(NAMESPACE, name, (("JobName", job), ("JobRunId", run), ("Type", kind)), stamp, value, unit)
            for run in (run_id, "ALL")]


def spark_data(job: str, run_id: str, figures: SPARK_FIGURES, heap_bytes: int = DEFAULT_HEAP_BYTES) -> list[Datum]:
    """The Glue job metrics of a run's Spark figures (``(interval start ms, executor, figure, value)``)."""
    data: list[Datum] = []
    heap: dict[int, float] = {}
    for start_ms, executor, figure, value in figures:
        stamp = start_ms / 1000
        if figure == "jvm.heap.used":
            for name, measured, unit in (("jvm.heap.used", value, "Bytes"),
                                         ("jvm.heap.usage", value / heap_bytes, "Percent")):
                data += _run_data(job, run_id, f"glue.{executor}.{name}", "gauge", stamp, measured, unit)
            heap[start_ms] = heap.get(start_ms, 0.0) + value
        elif figure.startswith("aggregate."):
            data += _run_data(job, run_id, f"glue.driver.{figure}", "count", stamp, value, UNITS.get(figure, "Count"))
        else:
            data += _run_data(job, run_id, f"glue.driver.{figure}", "gauge", stamp, value, "Count")
    for start_ms, used in heap.items():  # glue.ALL: the executors together (the driver alone in local mode)
        data += _run_data(job, run_id, "glue.ALL.jvm.heap.used", "gauge", start_ms / 1000, used, "Bytes")
        data += _run_data(job, run_id, "glue.ALL.jvm.heap.usage", "gauge", start_ms / 1000, used / heap_bytes,
                          "Percent")
    return data


def batch_data(job: str, run_id: str, line: str) -> list[Datum]:
    """The streaming metrics of one batch record (a line of the run's ``metrics-stream.jsonl``); none for a
    line that is not a batch record."""
    try:
        batch: Any = json.loads(line)
        stamp = dt.datetime.fromisoformat(str(batch["timestamp"]).replace("Z", "+00:00")).timestamp()
    except (ValueError, KeyError, TypeError):
        return []
    if not isinstance(batch, dict):
        return []
    data = _run_data(job, run_id, "glue.driver.streaming.numRecords", "count", stamp,
                     float(batch.get("numInputRows") or 0), "Count")
    data += _run_data(job, run_id, "glue.driver.streaming.batchProcessingTimeInMs", "count", stamp,
                      float(batch.get("batchDurationMs") or 0), "Milliseconds")
    lag = batch.get("maxConsumerLagInMs")
    if isinstance(lag, int | float):
        data += _run_data(job, run_id, "glue.driver.streaming.maxConsumerLagInMs", "gauge", stamp, float(lag),
                          "Milliseconds")
    return data
