"""Running jobs: one driver process per run, watched by a background thread of the server.

StartJobRun records a STARTING run (:meth:`JobRunService.begin`) and hands it to a
daemon thread, so the request returns at once. The thread launches the driver
(:mod:`glueball.jobs.launcher`), moves the run to RUNNING with the driver's pid,
and watches it:

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
whose watcher is gone are settled: a driver still alive on this host is watched again
(its exit status is then unknown: a traceback in its error log means FAILED, else
SUCCEEDED); otherwise the run ends FAILED ("server restarted during the run"), or
STOPPED if it was stopping.
"""

from __future__ import annotations

import json
import logging
import math
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import update

from glueball.catalog.models import Scope
from glueball.crawlers.runner import is_orphan, process_identity
from glueball.errors import GlueError
from glueball.jobs.launcher import (
    LaunchError,
    LaunchPlan,
    driver_alive,
    error_message,
    host_name,
    plan_launch,
    process_start,
    signal_group,
    spawn,
    timeout_unit_seconds,
)
from glueball.jobs.models import PYTHON_SHELL, RETRIED_STATES, Driver, JobRun, JobRunState, RunMetrics
from glueball.jobs.service import JobRunService, beat
from glueball.jobs.store import active_runs, to_run
from glueball.store.schema import JobRow, JobRunRow

if TYPE_CHECKING:
    from glueball.app import Glueball

log = logging.getLogger("glueball.jobs")

RESTARTED_MESSAGE = "server restarted during the run"
HEARTBEAT_SECONDS = 15.0
POLL_SECONDS = 0.1
STORE_POLL_SECONDS = 0.5
STOP_GRACE_SECONDS = 10.0


@dataclass
class _Watch:
    scope: Scope
    access_key: str | None
    run: JobRun
    stop: threading.Event = field(default_factory=threading.Event)


class JobRunner:
    """The job runs of one process: launches their drivers, watches them, keeps their heartbeat."""

    def __init__(self, app: Glueball) -> None:
        self.app = app
        self.identity = process_identity()
        self._watches: dict[str, _Watch] = {}
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._heartbeat: threading.Thread | None = None
        self._idle = threading.Condition(self._lock)

    # -- entry points

    def start(self, scope: Scope, access_key: str | None, name: str, request: dict[str, Any],
              trigger_name: str | None = None, workflow_run_id: str | None = None,
              fire_id: int | None = None) -> str:
        """StartJobRun: a STARTING run whose driver a background thread launches; returns the run id.

        A trigger starts runs with its name, and within a workflow run with the run's id and the fire's.

        Raises:
            EntityNotFoundException, InvalidInputException, ConcurrentRunsExceededException: as StartJobRun.
        """
        _, run = JobRunService(self.app.store, scope).begin(name, request, self.identity, access_key,
                                                            self.app.settings.logs, trigger_name,
                                                            workflow_run_id=workflow_run_id, fire_id=fire_id)
        self._track(_Watch(scope, access_key, run))
        threading.Thread(target=self._run, args=(run.run_id,), name=f"job-run-{run.run_id[:12]}",
                         daemon=True).start()
        return run.run_id

    def signal_stop(self, drivers: list[Driver]) -> None:
        """After BatchStopJobRun or DeleteJob: stop the drivers now (watchers elsewhere notice through the store)."""
        for driver in drivers:
            with self._lock:
                watch = self._watches.get(driver.run_id)
            if watch is not None:
                watch.stop.set()
            elif driver_alive(driver.host, driver.pid, driver.start) and driver.pid is not None:
                signal_group(driver.pid, signal.SIGTERM)

    def adopt(self, scope: Scope, access_key: str | None, run: JobRun, driver: Driver) -> None:
        """Watch a live driver that a stopped process launched (reconciliation)."""
        self._track(_Watch(scope, access_key, run))
        threading.Thread(target=self._run, args=(run.run_id, driver), name=f"job-run-{run.run_id[:12]}",
                         daemon=True).start()

    def active(self) -> list[str]:
        with self._lock:
            return list(self._watches)

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until this process watches no run (retries included); False on timeout."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._idle:
            while self._watches:
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return False
                self._idle.wait(remaining)
        return True

    def close(self) -> None:
        self._closed.set()

    # -- internals

    def _track(self, watch: _Watch) -> None:
        with self._lock:
            self._watches[watch.run.run_id] = watch
            if self._heartbeat is None:
                self._heartbeat = threading.Thread(target=self._beat, name="job-heartbeat", daemon=True)
                self._heartbeat.start()

    def _untrack(self, run_id: str) -> None:
        with self._idle:
            self._watches.pop(run_id, None)
            self._idle.notify_all()

    def _beat(self) -> None:
        while not self._closed.wait(HEARTBEAT_SECONDS):
            with self._lock:
                runs = list(self._watches)
                if not runs:
                    self._heartbeat = None
                    return
            try:
                beat(self.app.store, runs)
            except Exception:  # the store may be briefly unreachable; the next beat retries
                log.warning("job run heartbeat failed", exc_info=True)

    def _run(self, run_id: str, adopted: Driver | None = None) -> None:
        with self._lock:
            watch = self._watches[run_id]
        retry: JobRun | None = None
        try:
            retry = self._execute(watch, adopted)
        except Exception:
            log.exception("job run %s of job %s could not be run or recorded", run_id, watch.run.job_name)
            try:
                self._finish(watch, JobRunState.FAILED, "internal error of glueball while running the job", None,
                             [])
            except Exception:
                log.exception("recording the failure of job run %s failed", run_id)
        finally:
            if retry is None:
                self._untrack(run_id)
                self.app.action_ended()
        if retry is not None:
            self._retry(watch, retry)

    def _retry(self, watch: _Watch, ended: JobRun) -> None:
        try:
            _, run = JobRunService(self.app.store, watch.scope).begin(
                ended.job_name, {}, self.identity, watch.access_key, self.app.settings.logs, ended.trigger_name,
                retry_of=ended)
        except GlueError as err:
            log.warning("retry of job run %s was not started: %s: %s", ended.run_id, err.code, err.message)
            self._untrack(ended.run_id)
            self.app.action_ended()
            return
        self._track(_Watch(watch.scope, watch.access_key, run))
        self._untrack(ended.run_id)
        self._run(run.run_id)

    def _execute(self, watch: _Watch, adopted: Driver | None) -> JobRun | None:
        """Launch (or re-attach to) the driver and watch it to its end; the ended run if it is to be retried."""
        run = watch.run
        service = JobRunService(self.app.store, watch.scope)
        plan: LaunchPlan | None = None
        proc: subprocess.Popen[bytes] | None = None
        if adopted is None:
            if service.state(run.run_id) is JobRunState.STOPPING:  # stopped before it launched
                return self._finish(watch, JobRunState.STOPPED, None, None, [])
            settings = self.app.settings
            try:
                plan = plan_launch(run, settings.home, settings.endpoint or None,
                                   watch.scope.region, watch.access_key, settings.store_url)
                proc = spawn(plan)
            except (LaunchError, OSError) as exc:
                return self._finish(watch, JobRunState.FAILED, str(exc), None, [])
            pid = proc.pid
            service.mark_running(run.run_id, host_name(), pid, process_start(pid))
        else:
            assert adopted.pid is not None
            pid = adopted.pid
        started = run.started_on
        deadline = time.monotonic() + max(0.0, started + run.timeout_minutes * timeout_unit_seconds() - time.time())
        stopping_since: float | None = None
        timed_out = False
        checked = 0.0
        code: int | None = None
        while True:
            if proc is not None:
                code = proc.poll()
                if code is not None:
                    break
            elif not driver_alive(adopted.host if adopted else None, pid, adopted.start if adopted else None):
                break
            moment = time.monotonic()
            if stopping_since is None:
                if not watch.stop.is_set() and moment - checked >= STORE_POLL_SECONDS:
                    checked = moment
                    if service.state(run.run_id) in (JobRunState.STOPPING, None):
                        watch.stop.set()
                if moment >= deadline:
                    timed_out = True
                if watch.stop.is_set() or timed_out:
                    signal_group(pid, signal.SIGTERM)
                    stopping_since = moment
            elif moment - stopping_since >= STOP_GRACE_SECONDS:
                signal_group(pid, signal.SIGKILL)
                stopping_since = math.inf
            if watch.stop.is_set():
                time.sleep(POLL_SECONDS)
            else:
                watch.stop.wait(POLL_SECONDS)
        signal_group(pid, signal.SIGKILL)  # whatever the driver left behind in its group (the JVM)
        error_log = Path(run.log_dir or ".") / "error.log"
        if timed_out:
            outcome, message = JobRunState.TIMEOUT, (f"Job run {run.run_id} exceeded its Timeout of "
                                                     f"{run.timeout_minutes} minute(s) and was stopped")
        elif watch.stop.is_set():
            outcome, message = JobRunState.STOPPED, None
        elif code is None:  # an adopted driver: its exit status is not ours to read
            message = error_message(error_log)
            outcome = JobRunState.FAILED if message else JobRunState.SUCCEEDED
        elif code == 0:
            outcome, message = JobRunState.SUCCEEDED, None
        elif code < 0:
            outcome, message = JobRunState.FAILED, f"Job run driver (pid {pid}) was killed (signal {-code})"
        else:
            outcome = JobRunState.FAILED
            message = error_message(error_log) or f"Command failed with exit code {code}"
        return self._finish(watch, outcome, message, code, plan.event_dirs if plan else
                            [Path(run.log_dir or ".") / "events"])

    def _finish(self, watch: _Watch, outcome: JobRunState, message: str | None, code: int | None,
                event_dirs: list[Path]) -> JobRun | None:
        run = watch.run
        execution_time = max(0, math.ceil(time.time() - run.started_on))
        metrics, dpu_seconds = RunMetrics(), None
        spark = _spark_metrics(run, event_dirs)
        if spark is not None:
            metrics, dpu_seconds = spark
        if dpu_seconds is None:
            dpu_seconds = round(execution_time * float(run.spec.get("MaxCapacity") or 0.0), 3)
        service = JobRunService(self.app.store, watch.scope)
        final = service.finish(run.run_id, outcome, message, execution_time, dpu_seconds, metrics.to_json())
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
            _discard_bookmark(self.app, watch.scope, run)
        if final in RETRIED_STATES and run.attempt < run.max_retries:
            try:
                return service.get(run.job_name, run.run_id)
            except GlueError:  # the job was deleted meanwhile
                return None
        return None


def _spark_metrics(run: JobRun, event_dirs: list[Path]) -> tuple[RunMetrics, float | None] | None:
    """Rows and bytes read and written and DPU-seconds from the run's Spark event logs, if any."""
    if run.spec["Command"]["Name"] == PYTHON_SHELL:
        return None
    try:
        from glueball.jobs.eventlog import EventLogError, run_metrics
    except ImportError:
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


def _discard_bookmark(app: Glueball, scope: Scope, run: JobRun) -> None:
    try:
        from glueball.jobs.bookmarks import BookmarkService
    except ImportError:
        return
    try:
        BookmarkService(app.store, scope).discard_uncommitted(run.job_name, run.run_id)
    except Exception:
        log.warning("could not withdraw the bookmark commit of job run %s", run.run_id, exc_info=True)


def reconcile(app: Glueball) -> list[str]:
    """At start-up: settle the runs whose watching process is gone; returns their run ids.

    A driver still alive on this host is watched again by this process; otherwise the run
    ends FAILED ("server restarted during the run"), or STOPPED if it was stopping.
    """
    settled: list[str] = []
    with app.store.read() as session:
        rows = [(row, session.get(JobRow, row.job_id)) for row in active_runs(session)]
    for row, job in rows:
        if job is None or not is_orphan(row.runner, row.heartbeat):
            continue
        scope = Scope(job.account_id, job.region)
        driver = Driver.of(row)
        if driver_alive(driver.host, driver.pid, driver.start):
            with app.store.write() as session:
                moved = session.execute(
                    update(JobRunRow).where(JobRunRow.run_id == row.run_id, JobRunRow.runner == row.runner)
                    .values(runner=app.jobs.identity, heartbeat=time.time())
                    .execution_options(synchronize_session=False)).rowcount  # type: ignore[attr-defined]
            if moved == 1:
                app.jobs.adopt(scope, row.access_key, to_run(row, job.name), driver)
                settled.append(row.run_id)
            continue
        final = JobRunService(app.store, scope).finish(row.run_id, JobRunState.FAILED, RESTARTED_MESSAGE,
                                                       max(0, math.ceil(time.time() - row.started_on)), None, None)
        if final is not None:
            _discard_bookmark(app, scope, to_run(row, job.name))
            settled.append(row.run_id)
    if settled:
        log.warning("job runs left by a stopped process were settled: %s", ", ".join(settled))
    return settled


def supervise(argv: list[str] | None = None) -> int:
    """``python -m glueball.jobs.runner HOME STORE REGION NAME REQUEST_JSON``: run one job detached.

    ``glueball jobs start`` without ``--wait`` on the embedded catalog starts this in a session
    of its own: it starts the run, prints ``{"JobRunId": ...}`` (or ``{"Code": ..., "Message":
    ...}``) as one line, and then watches the run and its retries to their end, as a server would.
    """
    import os
    import sys

    from glueball.app import Glueball
    from glueball.config import Settings, log_to_home

    home, store_url, region, name, request = (argv if argv is not None else sys.argv[1:])[:5]
    settings = Settings(home=Path(home), store_url=store_url, region=region)
    app = Glueball(settings)
    log_to_home(settings)
    try:
        run_id = app.jobs.start(Scope(app.accounts.default_account, region), None, name, json.loads(request))
    except GlueError as err:
        print(json.dumps({"Code": err.code, "Message": err.message}), flush=True)
        app.close()
        return 1
    print(json.dumps({"JobRunId": run_id}), flush=True)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    app.jobs.wait_idle()
    app.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(supervise())
