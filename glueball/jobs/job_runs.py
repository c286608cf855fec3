"""Running jobs: one driver process per run, watched by a background thread of the server.

StartJobRun records a STARTING run (:meth:`JobRunService.begin`) and hands it to a
daemon thread, so the request returns at once. The thread launches the driver
(:mod:`glueball.jobs.launcher`) under its keeper (:mod:`glueball.supervise.keeper`),
moves the run to RUNNING with the keeper's pid, and watches it; how the driver ended
is read from the outcome record its keeper wrote (:mod:`glueball.supervise.outcome`):

- exit 0 -> SUCCEEDED; exit N -> FAILED with the script's exception (the last
  traceback line of ``error.log``) or ``Command failed with exit code N``; killed by
  a signal -> FAILED (``... was killed (signal 9)``);
- past ``Timeout`` (minutes; ``GLUEBALL_JOB_TIMEOUT_UNIT_SECONDS`` for tests) -> the
  process group gets SIGTERM, then SIGKILL after a grace period -> TIMEOUT;
- BatchStopJobRun moved the run to STOPPING (any server) -> the same ending -> STOPPED;
- FAILED or TIMEOUT with attempts left under ``MaxRetries`` -> a new run
  ``<first run id>_attempt_<n>`` with ``Attempt`` + 1 and ``PreviousRunId``.

A run that ends FAILED, TIMEOUT or STOPPED has an uncommitted bookmark withdrawn
(``BookmarkService.discard_uncommitted``). Its metrics (ExecutionTime, DPUSeconds, and
rows/bytes read and written from Spark's event log) are recorded with the end state
and written to ``metrics.json`` in the run's log directory.

A process records itself (host, pid, boot id) and a heartbeat on the runs it watches,
and each run's driver (host, pid, start time). At start-up (:func:`reconcile`), runs
whose watcher is gone are taken over: a driver still alive on this host is watched
again, a driver that ended meanwhile is settled from its outcome record (the same
states as above: SUCCEEDED only for exit status 0; a driver that ended with no record
FAILED, saying so); a run whose driver never started ends FAILED ("the server stopped
before the run's driver started"), or STOPPED if it was stopping.
"""

from __future__ import annotations

import json
import logging
import math
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import select

from glueball.errors import GlueError
from glueball.jobs.bookmarks import BookmarkService
from glueball.jobs.eventlog import EventLogError, run_metrics
from glueball.jobs.launcher import LaunchError, LaunchPlan, job_shape, merged_arguments, plan_launch, spawn
from glueball.jobs.models import PYTHON_SHELL, RETRIED_STATES, Driver, JobRun, JobRunState, RunMetrics
from glueball.jobs.service import JobRunService, beat
from glueball.jobs.store import active_runs, to_run
from glueball.objects.access import installation_objects
from glueball.objects.locations import LocationError, is_s3
from glueball.runtime.streaming.metrics import StreamTally, read_stream_metrics, stream_summary
from glueball.store.claims import claim_runner
from glueball.store.schema import JobRow, JobRunRow
from glueball.store.scoped import Scope
from glueball.supervise import fence, outcome
from glueball.supervise.process import DriverProcess, host_name, process_start, signal_group, timeout_unit_seconds
from glueball.supervise.supervisor import (
    NEVER_STARTED_MESSAGE,
    Orphan,
    Supervisor,
    orphan_of,
    reconcile_orphans,
    watch_driver,
)
from glueball.supervise.warm import Shape, WarmPool

if TYPE_CHECKING:
    from glueball.config import Settings
    from glueball.store.engine import Store

log = logging.getLogger("glueball.jobs")



# (scope, role, run id, seconds) -> temporary credentials the run's driver acts with (--auth iam);
# raises LaunchError when the run cannot act as its role
RunIdentity = Callable[[Scope, str, str, float], tuple[str, str, str]]


class JobRunner:
    """The job runs of one process: launches their drivers, watches them (:mod:`glueball.supervise`)."""

    def __init__(self, store: Store, settings: Settings, on_end: Callable[[], None],
                 run_identity: RunIdentity | None = None, warm: WarmPool | None = None) -> None:
        self.store = store
        self.settings = settings
        self.warm = warm  # warm drivers (glueball.supervise.warm), when the server keeps them
        self.on_end = on_end
        self.run_identity = run_identity
        self.supervisor = Supervisor("job run", lambda runs: beat(store, runs))
        self.identity = self.supervisor.identity
        self._scopes: dict[str, tuple[Scope, str | None, JobRun]] = {}

    # -- entry points

    def start(self, scope: Scope, access_key: str | None, name: str, request: dict[str, Any],
              trigger_name: str | None = None, workflow_run_id: str | None = None,
              fire_id: int | None = None) -> str:
        """StartJobRun: a STARTING run whose driver a background thread launches; returns the run id.

        A trigger starts runs with its name, and within a workflow run with the run's id and the fire's.

        Raises:
            EntityNotFoundException, InvalidInputException, ConcurrentRunsExceededException: as StartJobRun.
        """
        _, run = JobRunService(self.store, scope).begin(name, request, self.identity, access_key,
                                                            self.settings.logs, trigger_name,
                                                            workflow_run_id=workflow_run_id, fire_id=fire_id)
        self._track(scope, access_key, run)
        self.supervisor.thread(f"job-run-{run.run_id[:12]}", self._run, run.run_id)
        return run.run_id

    def signal_stop(self, drivers: list[Driver]) -> None:
        """After BatchStopJobRun or DeleteJob: stop the drivers now (watchers elsewhere notice through the store)."""
        for driver in drivers:
            if not self.supervisor.stop(driver.run_id) and driver.pid is not None and \
                    DriverProcess(driver.host, driver.pid, driver.start).alive():
                signal_group(driver.pid, signal.SIGTERM)

    def adopt(self, scope: Scope, access_key: str | None, run: JobRun, driver: Driver | None = None) -> None:
        """Watch a live driver that a stopped process launched (reconciliation); without one, launch the run's
        driver anew (a run whose launch was abandoned: it never ran)."""
        self._track(scope, access_key, run)
        self.supervisor.thread(f"job-run-{run.run_id[:12]}", self._run, run.run_id, driver)

    def recent_shapes(self, limit: int = 3) -> list[Shape]:
        """The warm-driver shapes of the Spark jobs changed or run most recently (at most ``limit``)."""
        with self.store.read() as session:
            rows = session.execute(select(JobRow.spec).order_by(JobRow.update_time.desc()).limit(20)).all()
        shapes: list[Shape] = []
        for (spec,) in rows:
            shape = job_shape(dict(spec), self.settings.home)
            if shape is not None and shape not in shapes:
                shapes.append(shape)
        return shapes[:limit]

    def active(self) -> list[str]:
        return self.supervisor.active()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until this process watches no run (retries included); False on timeout."""
        return self.supervisor.wait_idle(timeout)

    def close(self) -> None:
        self.supervisor.close()

    # -- internals

    def _track(self, scope: Scope, access_key: str | None, run: JobRun) -> None:
        self._scopes[run.run_id] = (scope, access_key, run)
        self.supervisor.track(run.run_id)

    def _untrack(self, run_id: str) -> None:
        self._scopes.pop(run_id, None)
        self.supervisor.untrack(run_id)

    def _run(self, run_id: str, adopted: Driver | None = None) -> None:
        scope, access_key, run = self._scopes[run_id]
        retry: JobRun | None = None
        try:
            retry = self._execute(scope, access_key, run, adopted)
        except Exception:
            log.exception("job run %s of job %s could not be run or recorded", run_id, run.job_name)
            try:
                self._finish(scope, run, JobRunState.FAILED, "internal error of glueball while running the job",
                             None, [])
            except Exception:
                log.exception("recording the failure of job run %s failed", run_id)
        finally:
            if retry is None:
                self._untrack(run_id)
                self.on_end()
        if retry is not None:
            self._retry(scope, access_key, retry)

    def _retry(self, scope: Scope, access_key: str | None, ended: JobRun) -> None:
        try:
            _, run = JobRunService(self.store, scope).begin(
                ended.job_name, {}, self.identity, access_key, self.settings.logs, ended.trigger_name,
                retry_of=ended)
        except GlueError as err:
            log.warning("retry of job run %s was not started: %s: %s", ended.run_id, err.code, err.message)
            self._untrack(ended.run_id)
            self.on_end()
            return
        self._track(scope, access_key, run)
        self._untrack(ended.run_id)
        self._run(run.run_id)

    def _execute(self, scope: Scope, access_key: str | None, run: JobRun, adopted: Driver | None) -> JobRun | None:
        """Launch (or re-attach to) the driver and watch it to its end; the ended run if it is to be retried."""
        service = JobRunService(self.store, scope)
        plan: LaunchPlan | None = None
        proc: subprocess.Popen[bytes] | None = None
        recorded: DriverProcess | None = None
        if adopted is None:
            if service.state(run.run_id) is JobRunState.STOPPING:  # stopped before it launched
                return self._finish(scope, run, JobRunState.STOPPED, None, None, [])
            settings = self.settings
            try:
                # numbered before anything else: a server that takes the run over decides whether this launch runs
                generation = fence.begin(Path(run.log_dir)) if run.log_dir else None
                credentials = None
                if self.run_identity is not None:
                    credentials = self.run_identity(scope, str(run.spec.get("Role") or ""), run.run_id,
                                                    run.timeout_minutes * timeout_unit_seconds() + 600)
                plan = plan_launch(run, settings.home, settings.endpoint or None,
                                   scope.region, access_key, settings.store_url, credentials,
                                   settings.allow_local_scripts, settings.object_store_url)
                proc = spawn(plan, self.warm, generation)
            except (LaunchError, OSError) as exc:
                return self._finish(scope, run, JobRunState.FAILED, str(exc), None, [])
            pid = proc.pid
            service.mark_running(run.run_id, host_name(), pid, process_start(pid))
        else:
            assert adopted.pid is not None
            pid = adopted.pid
            recorded = DriverProcess(adopted.host, adopted.pid, adopted.start)
            if service.state(run.run_id) is JobRunState.STARTING:  # launched by a server that died before it
                service.mark_running(run.run_id, adopted.host or host_name(), pid, adopted.start)  # said so
        stop = self.supervisor.track(run.run_id)
        batches = _StreamSummary(service, run)

        def stopping() -> bool:  # asked every half second: also the moment to keep a streaming run's batches
            batches()
            return service.state(run.run_id) in (JobRunState.STOPPING, None)

        ending = watch_driver(pid, proc, recorded, run.started_on + run.timeout_minutes * timeout_unit_seconds(),
                              stop, stopping)
        folder = Path(run.log_dir) if run.log_dir else None
        end = outcome.ended(folder, ending.code, pid, recorded.host if recorded else None)
        if ending.timed_out:
            state, message = JobRunState.TIMEOUT, (f"Job run {run.run_id} exceeded its Timeout of "
                                                   f"{run.timeout_minutes} minute(s) and was stopped")
        elif ending.stopped:
            state, message = JobRunState.STOPPED, None
        else:
            succeeded, message = outcome.verdict(end, folder / "error.log" if folder else None, "Job run driver")
            state = JobRunState.SUCCEEDED if succeeded else JobRunState.FAILED
        exit_code = end.code if end.code is not None else -end.signal if end.signal is not None else ending.code
        return self._finish(scope, run, state, message, exit_code,
                            plan.event_dirs if plan else outcome.event_dirs(folder), end.ended_at)

    def _remote_event_logs(self, run: JobRun) -> list[Path]:
        """A run's Spark event logs kept in a remote object store (``--spark-event-logs-path s3://...`` with
        ``--object-store``), fetched into its log folder for its metrics and the console: [that folder], or []."""
        arguments = merged_arguments(run.spec, run.arguments)
        location = arguments.get("--spark-event-logs-path", "")
        if not (self.settings.object_store_url and run.log_dir and is_s3(location)
                and arguments.get("--enable-spark-ui", "").lower() == "true"):
            return []
        folder = Path(run.log_dir) / "events-fetched"
        try:
            objects = installation_objects(self.settings.home, self.settings.object_store_url)
            folder.mkdir(parents=True, exist_ok=True)
            for entry in objects.walk(location):
                if "/" not in entry.name and not entry.name.startswith(".") and entry.mtime >= run.started_on - 1:
                    objects.download(location.rstrip("/") + "/" + entry.name, folder / entry.name)
        except (OSError, ValueError, LocationError):
            log.warning("could not fetch the event logs of job run %s from %s", run.run_id, location, exc_info=True)
        return [folder]

    def _finish(self, scope: Scope, run: JobRun, state: JobRunState, message: str | None, code: int | None,
                event_dirs: list[Path], ended_at: float | None = None) -> JobRun | None:
        """Record how the run ended (``ended_at``: when its driver did, as recorded; else now)."""
        execution_time = max(0, math.ceil((ended_at or time.time()) - run.started_on))
        metrics, dpu_seconds = RunMetrics(), None
        spark = _spark_metrics(run, [*event_dirs, *self._remote_event_logs(run)])
        if spark is not None:
            metrics, dpu_seconds = spark
        if dpu_seconds is None:
            dpu_seconds = round(execution_time * float(run.spec.get("MaxCapacity") or 0.0), 3)
        service = JobRunService(self.store, scope)
        streaming = stream_summary(read_stream_metrics(run.log_dir))  # the batches up to the very end
        if streaming is not None:
            service.keep_streaming(run.run_id, streaming)
        final = service.finish(run.run_id, state, message, execution_time, dpu_seconds, metrics.to_json(), ended_at)
        if run.log_dir:
            try:
                summary = {"JobRunState": final.value if final else None, "ExitCode": code,
                           "ExecutionTime": execution_time, "DPUSeconds": dpu_seconds, **metrics.to_json()}
                Path(run.log_dir).mkdir(parents=True, exist_ok=True)
                (Path(run.log_dir) / "metrics.json").write_text(json.dumps(summary, indent=2) + "\n")
            except OSError:
                log.warning("could not write the metrics of job run %s", run.run_id, exc_info=True)
        if final is None:
            return None
        log.info("job run %s of job %s ended %s%s", run.run_id, run.job_name, final.value,
                 f": {message}" if message and final is not JobRunState.STOPPED else "")
        if final in (JobRunState.FAILED, JobRunState.TIMEOUT, JobRunState.STOPPED):
            _discard_bookmark(self.store, scope, run)
        if final in RETRIED_STATES and run.attempt < run.max_retries:
            try:
                return service.get(run.job_name, run.run_id)
            except GlueError:  # the job was deleted meanwhile
                return None
        return None


class _StreamSummary:
    """Keeps a streaming run's batch summary on the run as its driver appends batches to its folder (which only
    the driver's host has), so that every server's ``GetJobRunMetrics`` shows the same."""

    def __init__(self, service: JobRunService, run: JobRun) -> None:
        self.service = service
        self.run_id = run.run_id
        self.folder = run.log_dir
        self.tally = StreamTally()

    def __call__(self) -> None:
        if self.folder and self.tally.read(self.folder):
            summary = self.tally.summary()
            if summary is not None:
                self.service.keep_streaming(self.run_id, summary)


def _spark_metrics(run: JobRun, event_dirs: list[Path]) -> tuple[RunMetrics, float | None] | None:
    """Rows and bytes read and written and DPU-seconds from the run's Spark event logs, if any."""
    if run.spec["Command"]["Name"] == PYTHON_SHELL:
        return None
    logs: list[Path] = []
    for directory in event_dirs:
        if directory.is_dir():
            logs += [p for p in directory.iterdir() if p.stat().st_mtime >= run.started_on - 1]
    if not logs:
        return None
    try:
        spark = run_metrics(logs)
    except (EventLogError, OSError, ValueError):
        log.warning("could not read the event log of job run %s", run.run_id, exc_info=True)
        return None
    metrics = RunMetrics(records_read=spark.records_read, bytes_read=spark.bytes_read,
                         records_written=spark.records_written, bytes_written=spark.bytes_written,
                         executor_seconds=round(spark.executor_seconds, 3))
    return metrics, (round(spark.dpu_seconds, 3) if spark.applications else None)


def _discard_bookmark(store: Store, scope: Scope, run: JobRun) -> None:
    try:
        BookmarkService(store, scope).discard_uncommitted(run.job_name, run.run_id)
    except Exception:
        log.warning("could not withdraw the bookmark commit of job run %s", run.run_id, exc_info=True)


def reconcile(store: Store, runner: JobRunner) -> list[str]:
    """At start-up: take over the runs whose watching process is gone; returns their run ids.

    A run whose driver was launched is watched again by this process: to its end while it runs, else settled at
    once from the outcome record its keeper wrote (SUCCEEDED only for exit status 0). A run whose launch was
    abandoned (:mod:`glueball.supervise.fence`: its driver provably never ran) is launched again by this process;
    one that was stopping ends STOPPED. A run whose driver's start cannot be decided here (launched on another
    machine, or before its launch was numbered) ends FAILED.
    """
    with store.read() as session:
        rows = [(row, session.get(JobRow, row.job_id)) for row in active_runs(session)]
    orphans = [orphan_of(row.run_id, row, row.log_dir, (row, job)) for row, job in rows if job is not None]

    def claim(orphan: Orphan[Any]) -> bool:
        return claim_runner(store, JobRunRow.run_id, orphan.run_id, orphan.runner, runner.identity)

    def adopt(orphan: Orphan[Any]) -> None:
        row, job = orphan.item
        assert orphan.driver is not None
        runner.adopt(Scope(job.account_id, job.region), row.access_key, to_run(row, job.name),
                     Driver(row.run_id, orphan.driver.host, orphan.driver.pid, orphan.driver.start))

    def settle(orphan: Orphan[Any]) -> bool:
        row, job = orphan.item
        scope = Scope(job.account_id, job.region)
        if orphan.abandoned:  # it never ran: run it now (a stopping run ends STOPPED before it launches)
            runner.adopt(scope, row.access_key, to_run(row, job.name))
            return True
        final = JobRunService(store, scope).finish(row.run_id, JobRunState.FAILED, NEVER_STARTED_MESSAGE,
                                                   max(0, math.ceil(time.time() - row.started_on)), None, None)
        if final is None:
            return False
        _discard_bookmark(store, scope, to_run(row, job.name))
        return True

    return reconcile_orphans(orphans, claim, adopt, settle, "job run")
