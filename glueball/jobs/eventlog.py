"""A job run's metrics, read from Spark's event log.

Spark writes one JSON object per line (``SparkListener*`` events). An application's log is
a file (``<app id>``, ``<app id>.inprogress`` while running, optionally compressed:
``.zstd``, ``.lz4``...) or, with rolling logs (Spark 4's default), a directory
``eventlog_v2_<app id>`` of ``events_<n>_<app id>[.<codec>]`` files. ``run_metrics``
accepts any of these, or a directory holding several applications' logs (a run's event
log directory), and adds them up.

What it counts, from every ``SparkListenerTaskEnd``'s task metrics (failed attempts
included, as Spark's UI does):

- records and bytes read (input metrics) and written (output metrics);
- shuffle bytes read (local + remote) and written;
- executor run time and CPU time, summed over tasks, in seconds;
- tasks and failed tasks.

Elapsed time is ``SparkListenerApplicationStart`` to ``SparkListenerApplicationEnd`` (to the
last event for a log still in progress). Executor seconds are how long each executor
lived (``SparkListenerExecutorAdded`` to ``ExecutorRemoved`` or the end of the application;
in local mode the driver is the one executor). DPU-seconds follow Glue's ``DPUSeconds``:
the executors' seconds times a DPU factor per executor (1 for ``G.1X``, 2 for ``G.2X``,
0.25 for ``G.025X``); without a given factor it is the executor's cores / 4, a DPU being
4 vCPUs.
"""

from __future__ import annotations

import io
import json
import shutil
import subprocess
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

__all__ = ["COUNTED", "SAMPLED", "EventLogError", "RunMetrics", "application_logs", "run_metrics", "timeline"]

DPU_VCPUS = 4
COMPRESSED_SUFFIXES = (".zstd", ".lz4", ".lzf", ".snappy")


class EventLogError(Exception):
    """An event log is missing, unreadable or compressed with a codec this host cannot read."""


@dataclass
class RunMetrics:
    """The Spark metrics of one run (all of its applications).

    Attributes:
        records_read: records read by tasks (input metrics).
        bytes_read: bytes read by tasks (input metrics).
        records_written: records written by tasks (output metrics).
        bytes_written: bytes written by tasks (output metrics).
        shuffle_bytes_read: shuffle bytes fetched, local and remote.
        shuffle_bytes_written: shuffle bytes written.
        executor_run_seconds: tasks' executor run time, summed.
        executor_cpu_seconds: tasks' executor CPU time, summed.
        elapsed_seconds: application start to end, summed over applications.
        executor_seconds: executors' lifetimes, summed.
        dpu_seconds: ``executor_seconds`` scaled to Glue DPUs.
        tasks: task attempts that ended.
        failed_tasks: task attempts that did not succeed.
        applications: the application ids read.
        complete: whether every application has ended (no log still in progress).
    """

    records_read: int = 0
    bytes_read: int = 0
    records_written: int = 0
    bytes_written: int = 0
    shuffle_bytes_read: int = 0
    shuffle_bytes_written: int = 0
    executor_run_seconds: float = 0.0
    executor_cpu_seconds: float = 0.0
    elapsed_seconds: float = 0.0
    executor_seconds: float = 0.0
    dpu_seconds: float = 0.0
    tasks: int = 0
    failed_tasks: int = 0
    applications: list[str] = field(default_factory=list)
    complete: bool = True

    def as_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


def _is_rolling_dir(path: Path) -> bool:
    return path.is_dir() and path.name.startswith("eventlog_v2_")


def _event_files(log: Path) -> list[Path]:
    """The files of one application's log, in order."""
    if not _is_rolling_dir(log):
        return [log]

    def index(file: Path) -> int:
        try:
            return int(file.name.split("_")[1])
        except (IndexError, ValueError):
            return 0

    return sorted((f for f in log.iterdir() if f.name.startswith("events_") and not f.name.endswith(".crc")),
                  key=index)


def application_logs(path: str | Path) -> list[Path]:
    """The application logs at ``path``: the log itself, or every log inside a directory.

    Raises:
        EventLogError: ``path`` does not exist or holds no event log.
    """
    root = Path(path)
    if not root.exists():
        raise EventLogError(f"No Spark event log at {root}")
    if root.is_file() or _is_rolling_dir(root):
        return [root]
    logs = sorted(p for p in root.iterdir()
                  if _is_rolling_dir(p) or (p.is_file() and not p.name.startswith(".") and not p.name.endswith(".crc")))
    if not logs:
        raise EventLogError(f"No Spark event log in {root}")
    return logs


def _in_progress(log: Path) -> bool:
    if _is_rolling_dir(log):
        return any(f.name.startswith("appstatus_") and f.name.endswith(".inprogress") for f in log.iterdir())
    return log.name.endswith(".inprogress")


def _open_text(file: Path) -> IO[str]:
    name = file.name.removesuffix(".inprogress")
    suffix = next((s for s in COMPRESSED_SUFFIXES if name.endswith(s)), None)
    if suffix is None:
        return file.open(encoding="utf-8", errors="replace")
    if suffix == ".zstd":
        try:
            import zstandard

            reader = zstandard.ZstdDecompressor().stream_reader(file.open("rb"), read_across_frames=True)
            return io.TextIOWrapper(reader, encoding="utf-8", errors="replace")
        except ImportError:
            pass
        if shutil.which("zstd"):
            # a log still being written ends in an unfinished frame: take what decodes
            done = subprocess.run(["zstd", "-dcq", str(file)], capture_output=True, check=False)
            return io.StringIO(done.stdout.decode("utf-8", errors="replace"))
    raise EventLogError(
        f"{file} is compressed ({suffix[1:]}) and this host cannot decompress it; "
        "write event logs with spark.eventLog.compress=false")


def _events(log: Path) -> Iterator[dict[str, Any]]:
    for file in _event_files(log):
        with _open_text(file) as lines:
            for line in lines:
                line = line.strip()
                if not line:
                    continue
                try:
                    event = json.loads(line)
                except json.JSONDecodeError:
                    # the last line of a log in progress may be cut short
                    continue
                if isinstance(event, dict):
                    yield event


def _number(metrics: dict[str, Any] | None, key: str) -> int:
    if not metrics:
        return 0
    value = metrics.get(key, 0)
    return int(value) if isinstance(value, int | float) else 0


@dataclass
class _Application:
    app_id: str = ""
    started_ms: int | None = None
    ended_ms: int | None = None
    last_ms: int = 0
    executors: dict[str, tuple[int, int | None, int]] = field(default_factory=dict)


def _read_application(log: Path, metrics: RunMetrics) -> _Application:
    app = _Application()
    for event in _events(log):
        kind = event.get("Event")
        stamp = event.get("Timestamp")
        if isinstance(stamp, int):
            app.last_ms = max(app.last_ms, stamp)
        if kind == "SparkListenerApplicationStart":
            app.app_id = str(event.get("App ID", ""))
            app.started_ms = int(event["Timestamp"])
        elif kind == "SparkListenerApplicationEnd":
            app.ended_ms = int(event["Timestamp"])
        elif kind == "SparkListenerExecutorAdded":
            cores = _number(event.get("Executor Info"), "Total Cores")
            app.executors[str(event.get("Executor ID"))] = (int(event["Timestamp"]), None, cores)
        elif kind == "SparkListenerExecutorRemoved":
            executor = str(event.get("Executor ID"))
            if executor in app.executors:
                added, _, cores = app.executors[executor]
                app.executors[executor] = (added, int(event["Timestamp"]), cores)
        elif kind == "SparkListenerTaskEnd":
            _add_task(event, metrics)
    return app


def _add_task(event: dict[str, Any], metrics: RunMetrics) -> None:
    info = event.get("Task Info") or {}
    reason = (event.get("Task End Reason") or {}).get("Reason")
    metrics.tasks += 1
    if info.get("Failed") or info.get("Killed") or (reason is not None and reason != "Success"):
        metrics.failed_tasks += 1
    task = event.get("Task Metrics") or {}
    metrics.executor_run_seconds += _number(task, "Executor Run Time") / 1000
    metrics.executor_cpu_seconds += _number(task, "Executor CPU Time") / 1e9
    metrics.records_read += _number(task.get("Input Metrics"), "Records Read")
    metrics.bytes_read += _number(task.get("Input Metrics"), "Bytes Read")
    metrics.records_written += _number(task.get("Output Metrics"), "Records Written")
    metrics.bytes_written += _number(task.get("Output Metrics"), "Bytes Written")
    shuffle_read = task.get("Shuffle Read Metrics")
    metrics.shuffle_bytes_read += (_number(shuffle_read, "Remote Bytes Read")
                                   + _number(shuffle_read, "Local Bytes Read"))
    metrics.shuffle_bytes_written += _number(task.get("Shuffle Write Metrics"), "Shuffle Bytes Written")


def run_metrics(path: str | Path | Iterable[str | Path], dpu_per_executor: float | None = None) -> RunMetrics:
    """The metrics of the Spark applications whose event logs are at ``path``.

    Args:
        path: an application's log (file or ``eventlog_v2_*`` directory), a directory of logs,
            or several of these.
        dpu_per_executor: Glue's DPU factor of one executor (``glueball.runtime.capacity.Capacity``);
            by default an executor's cores / 4.

    Raises:
        EventLogError: no event log at ``path``, or one this host cannot decompress.
    """
    paths = [path] if isinstance(path, str | Path) else list(path)
    metrics = RunMetrics()
    for root in paths:
        for log in application_logs(root):
            app = _read_application(log, metrics)
            if app.started_ms is None:
                continue
            metrics.applications.append(app.app_id)
            if _in_progress(log) or app.ended_ms is None:
                metrics.complete = False
            end_ms = app.ended_ms if app.ended_ms is not None else app.last_ms
            metrics.elapsed_seconds += max(0, end_ms - app.started_ms) / 1000
            for added, removed, cores in app.executors.values():
                lived = max(0, (removed if removed is not None else end_ms) - added) / 1000
                metrics.executor_seconds += lived
                factor = dpu_per_executor if dpu_per_executor is not None else cores / DPU_VCPUS
                metrics.dpu_seconds += lived * factor
    return metrics


# the per-interval figures of :func:`timeline`, named as Glue names its job metrics after ``glue.driver.``
COUNTED = ("aggregate.bytesRead", "aggregate.recordsRead", "aggregate.numCompletedTasks", "aggregate.numFailedTasks",
           "aggregate.numKilledTasks", "aggregate.numCompletedStages", "aggregate.shuffleBytesWritten",
           "aggregate.shuffleLocalBytesRead", "aggregate.elapsedTime")
SAMPLED = ("jvm.heap.used", "ExecutorAllocationManager.executors.numberAllExecutors")


def timeline(path: str | Path, interval_ms: int = 30_000) -> list[tuple[int, str, str, float]]:
    """A run's Spark figures per ``interval_ms`` (Glue reports its job metrics every 30 seconds).

    Each item is ``(interval start in epoch ms, executor, figure, value)``: the figures of
    :data:`COUNTED` are what happened in the interval (bytes and records read, tasks completed, failed
    and killed, stages completed, shuffle bytes, and the application's elapsed milliseconds), executor
    ``driver``; those of :data:`SAMPLED` are the highest value seen in the interval, per executor
    (``driver`` in local mode): the JVM heap in use (from the tasks' executor metrics, sampled while
    they ran) and the executors alive.

    Raises:
        EventLogError: no event log at ``path``, or one this host cannot decompress.
    """
    counted: dict[tuple[int, str], float] = {}
    sampled: dict[tuple[int, str, str], float] = {}

    def bucket(stamp: int) -> int:
        return stamp - stamp % interval_ms

    def count(stamp: int, figure: str, value: float) -> None:
        if value:
            key = (bucket(stamp), figure)
            counted[key] = counted.get(key, 0.0) + value

    def sample(stamp: int, executor: str, figure: str, value: float) -> None:
        key = (bucket(stamp), executor, figure)
        sampled[key] = max(sampled.get(key, 0.0), value)

    for log in application_logs(path):
        started: int | None = None
        executors: set[str] = set()
        for event in _events(log):
            kind = event.get("Event")
            if kind == "SparkListenerApplicationStart":
                started = int(event["Timestamp"])
            elif kind == "SparkListenerApplicationEnd" and started is not None:
                count(int(event["Timestamp"]), "aggregate.elapsedTime", int(event["Timestamp"]) - started)
            elif kind in ("SparkListenerExecutorAdded", "SparkListenerExecutorRemoved"):
                executor = str(event.get("Executor ID"))
                (executors.add if kind == "SparkListenerExecutorAdded" else executors.discard)(executor)
                sample(int(event["Timestamp"]), "driver", SAMPLED[1], len(executors))
            elif kind == "SparkListenerStageCompleted":
                info = event.get("Stage Info") or {}
                if info.get("Completion Time") and not info.get("Failure Reason"):
                    count(int(info["Completion Time"]), "aggregate.numCompletedStages", 1)
            elif kind == "SparkListenerTaskEnd":
                _task_figures(event, count, sample)
    return [(start, "driver", figure, value) for (start, figure), value in sorted(counted.items())] + \
        [(start, executor, figure, value) for (start, executor, figure), value in sorted(sampled.items())]


def _task_figures(event: dict[str, Any], count: Any, sample: Any) -> None:
    info = event.get("Task Info") or {}
    stamp = int(info.get("Finish Time") or 0)
    if not stamp:
        return
    reason = (event.get("Task End Reason") or {}).get("Reason")
    if info.get("Killed") or reason == "TaskKilled":
        count(stamp, "aggregate.numKilledTasks", 1)
    elif info.get("Failed") or (reason is not None and reason != "Success"):
        count(stamp, "aggregate.numFailedTasks", 1)
    else:
        count(stamp, "aggregate.numCompletedTasks", 1)
    task = event.get("Task Metrics") or {}
    count(stamp, "aggregate.bytesRead", _number(task.get("Input Metrics"), "Bytes Read"))
    count(stamp, "aggregate.recordsRead", _number(task.get("Input Metrics"), "Records Read"))
    count(stamp, "aggregate.shuffleBytesWritten", _number(task.get("Shuffle Write Metrics"), "Shuffle Bytes Written"))
    count(stamp, "aggregate.shuffleLocalBytesRead", _number(task.get("Shuffle Read Metrics"), "Local Bytes Read"))
    heap = _number(event.get("Task Executor Metrics"), "JVMHeapMemory")
    if heap:
        executor = str(info.get("Executor ID") or "driver")
        sample(stamp, executor, SAMPLED[0], heap)
