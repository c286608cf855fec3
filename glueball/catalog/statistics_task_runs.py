"""Running column statistics task runs: one Spark driver process per run, watched by a thread of the server.

StartColumnStatisticsTaskRun records a STARTING run and hands it to a daemon thread (the request
returns at once). The thread writes ``run.json`` into the run's folder
(``$GLUEBALL_HOME/logs/column-statistics/<run id>``) and launches the driver the way a Glue ETL job
is launched (:func:`glueball.jobs.launcher.plan_launch`: ``python -m glueball run driver.py``, two
G.1X workers as Spark resources, ``output.log`` and ``error.log``, ``GLUEBALL_ENDPOINT`` pointing at
this server). The run is RUNNING with the driver's pid and ends SUCCEEDED or FAILED as the driver
reported it and its keeper recorded it (:mod:`glueball.supervise.outcome`; ``ErrorMessage``: the
exception), or FAILED by its exit status or signal when it could not report; STOPPED
after StopColumnStatisticsTaskRun (on any server: the watcher sees STOPPING in the store; the
process group gets SIGTERM, then SIGKILL).

Reconciliation (when a process first serves these operations): runs whose watching process is gone
are watched again when their driver is alive on this host, settled from the outcome record when it
ended meanwhile, and end FAILED ("the server stopped before the run's driver started") when it never
started, or STOPPED if they were stopping. Testing knob:
``GLUEBALL_COLUMN_STATISTICS_DRIVER=module:function`` runs another driver function (tests use one that
waits or fails without Spark).
"""

from __future__ import annotations

import json
import logging
import subprocess
from pathlib import Path

from glueball.catalog.area import StatisticsTaskNeeds
from glueball.catalog.statistics_driver import RUN_FILE
from glueball.catalog.statistics_tasks import (
    NUMBER_OF_WORKERS,
    UNENDED,
    WORKER_TYPE,
    ColumnStatisticsTaskRun,
    ColumnStatisticsTaskService,
    TaskState,
    load_run,
    row_id_of,
    run_state,
)
from glueball.clock import now
from glueball.jobs.launcher import LaunchError, LaunchPlan, plan_launch, spawn
from glueball.jobs.models import JobRun, JobRunState
from glueball.store import task_runs
from glueball.store.resource_tables import COLUMN_STATISTICS_RUN, TaskRunRow
from glueball.store.scoped import Scope
from glueball.supervise import outcome
from glueball.supervise.per_needs import RunnerPerNeeds
from glueball.supervise.process import DriverProcess, host_name, process_start, signal_group
from glueball.supervise.supervisor import (
    NEVER_STARTED_MESSAGE,
    Orphan,
    Supervisor,
    orphan_of,
    reconcile_orphans,
    watch_driver,
)

log = logging.getLogger("glueball.catalog.statistics")

DRIVER_ENV = "GLUEBALL_COLUMN_STATISTICS_DRIVER"
DEFAULT_DRIVER = "glueball.catalog.statistics_driver:drive"
# Glue bounds no column statistics run; a driver that runs a day is stuck
DEADLINE_SECONDS = 24 * 3600.0
GLUE_VERSION = "5.0"

_SCRIPT = '''import importlib, os
module, _, function = os.environ.get({env!r}, {default!r}).partition(":")
raise SystemExit(getattr(importlib.import_module(module), function)())
'''

def runner(needs: StatisticsTaskNeeds) -> StatisticsTaskRunner:
    """The column statistics task runs of ``needs``' process; created (and, in a process serving runs, runs left
    by a stopped process settled) on first use."""
    return _runners.get(needs, needs.serves_runs())


def finish(needs: StatisticsTaskNeeds, row_id: int, outcome: TaskState, message: str | None) -> TaskState | None:
    """Record how a run ended (a run asked to stop ends STOPPED whatever its driver did); the state recorded, or
    None when it had already ended."""
    for _ in range(5):
        state = run_state(needs.store, row_id)
        if state is None or state not in UNENDED:
            return None
        target = TaskState.STOPPED if state is TaskState.STOPPING else outcome
        stamp = now()
        with needs.store.write() as session:
            if task_runs.swap_state(session, row_id, [state.value], target.value, completed_on=stamp,
                                    last_modified_on=stamp, runner=None, heartbeat=None,
                                    error_message=message if target is TaskState.FAILED else None):
                return target
    return None


class StatisticsTaskRunner:
    """The column statistics task runs of one process: launches their drivers and watches them."""

    def __init__(self, needs: StatisticsTaskNeeds) -> None:
        self.needs = needs
        self.supervisor = Supervisor("column statistics task run", lambda ids: task_runs.beat(needs.store, ids))

    def start(self, scope: Scope, access_key: str | None, database: str, table: str, role: str,
              columns: list[str] | None, sample_size: float | None, security_configuration: str | None) -> str:
        """StartColumnStatisticsTaskRun: a STARTING run whose driver a background thread launches; its id."""
        run = ColumnStatisticsTaskService(self.needs.store, scope).begin(
            database, table, role, columns, sample_size, security_configuration, access_key,
            self.supervisor.identity, self.needs.settings.logs)
        row_id = row_id_of(self.needs.store, scope, run.run_id)
        self._watch(scope, access_key, run, row_id, None)
        return run.run_id

    def stop(self, scope: Scope, database: str, table: str) -> None:
        """StopColumnStatisticsTaskRun: the run becomes STOPPING and its driver is told to end."""
        run = ColumnStatisticsTaskService(self.needs.store, scope).request_stop(database, table)
        row_id = row_id_of(self.needs.store, scope, run.run_id)
        if self.supervisor.stop(str(row_id)):
            return
        with self.needs.store.read() as session:
            row = task_runs.row_by_id(session, row_id)
            driver = DriverProcess(row.driver_host, row.driver_pid, row.driver_start) if row and row.driver_pid \
                else None
        if driver is not None and driver.pid is not None and driver.alive():
            signal_group(driver.pid)  # watched by another process, which records the end

    def wait_idle(self, timeout: float | None = None) -> bool:
        return self.supervisor.wait_idle(timeout)

    def _watch(self, scope: Scope, access_key: str | None, run: ColumnStatisticsTaskRun, row_id: int,
               adopted: DriverProcess | None) -> None:
        self.supervisor.track(str(row_id))
        self.supervisor.thread(f"column-statistics-{run.run_id[:12]}", self._run, scope, access_key, run, row_id,
                               adopted)

    def _run(self, scope: Scope, access_key: str | None, run: ColumnStatisticsTaskRun, row_id: int,
             adopted: DriverProcess | None) -> None:
        try:
            outcome, message = self._execute(scope, access_key, run, row_id, adopted)
            final = finish(self.needs, row_id, outcome, message)
            if final is not None:
                log.info("column statistics task run %s ended %s%s", run.run_id, final.value,
                         f": {message}" if message and final is TaskState.FAILED else "")
        except Exception:
            log.exception("column statistics task run %s could not be run or recorded", run.run_id)
            try:
                finish(self.needs, row_id, TaskState.FAILED, "internal error of glueball while running")
            except Exception:
                log.exception("recording the failure of column statistics task run %s failed", run.run_id)
        finally:
            self.supervisor.untrack(str(row_id))

    def _execute(self, scope: Scope, access_key: str | None, run: ColumnStatisticsTaskRun, row_id: int,
                 adopted: DriverProcess | None) -> tuple[TaskState, str | None]:
        directory = self._directory(row_id)
        proc: subprocess.Popen[bytes] | None = None
        if adopted is None:
            if run_state(self.needs.store, row_id) is TaskState.STOPPING:  # stopped before it launched
                return TaskState.STOPPED, None
            try:
                proc = spawn(self._plan(scope, access_key, run, directory))
            except (LaunchError, OSError) as exc:
                return TaskState.FAILED, str(exc)
            pid = proc.pid
            stamp = now()
            with self.needs.store.write() as session:
                row = task_runs.row_by_id(session, row_id)
                assert row is not None
                row.spec = {**row.spec, "StartTime": stamp}
                row.driver_host, row.driver_pid, row.driver_start = host_name(), pid, process_start(pid)
                row.last_modified_on = stamp
                task_runs.swap_state(session, row_id, [TaskState.STARTING.value], TaskState.RUNNING.value)
        else:
            assert adopted.pid is not None
            pid = adopted.pid
        ending = watch_driver(pid, proc, adopted, run.created + DEADLINE_SECONDS, self.supervisor.track(str(row_id)),
                              lambda: run_state(self.needs.store, row_id) in (TaskState.STOPPING, None))
        if ending.stopped:
            return TaskState.STOPPED, None
        if ending.timed_out:
            return TaskState.FAILED, f"The run did not end within {DEADLINE_SECONDS / 3600:g} hours and was stopped"
        return driver_outcome(directory, ending.code, pid)

    def _directory(self, row_id: int) -> Path:
        with self.needs.store.read() as session:
            row = task_runs.row_by_id(session, row_id)
            assert row is not None and row.log_dir is not None
            return Path(row.log_dir)

    def _plan(self, scope: Scope, access_key: str | None, run: ColumnStatisticsTaskRun, directory: Path) -> LaunchPlan:
        """Write the run's file and driver script, and plan the driver as a Glue ETL job run."""
        directory.mkdir(parents=True, exist_ok=True)
        info = {"RunId": run.run_id, "DatabaseName": run.database, "TableName": run.table, "Columns": run.columns,
                "SampleSize": run.sample_size}
        (directory / RUN_FILE).write_text(json.dumps(info, indent=2))
        script = directory / "driver.py"
        script.write_text(_SCRIPT.format(env=DRIVER_ENV, default=DEFAULT_DRIVER))
        as_job = JobRun(
            run_id=run.run_id, job_name="column-statistics", attempt=0, state=JobRunState.STARTING,
            started_on=run.created, last_modified_on=run.updated, arguments={},
            spec={"Command": {"Name": "glueetl", "ScriptLocation": str(script)}, "JobId": run.run_id,
                  "WorkerType": WORKER_TYPE, "NumberOfWorkers": NUMBER_OF_WORKERS, "GlueVersion": GLUE_VERSION},
            log_dir=str(directory))
        settings = self.needs.settings
        credentials = None
        if self.needs.run_identity is not None:
            credentials = self.needs.run_identity(scope, run.role, run.run_id, DEADLINE_SECONDS)
        return plan_launch(as_job, settings.home, settings.endpoint or None, scope.region, access_key,
                           settings.store_url, credentials)

    def reconcile(self) -> list[str]:
        """Settle the runs whose watching process is gone (see the module's doc); their row ids."""
        rows = task_runs.unended_runs(self.needs.store, COLUMN_STATISTICS_RUN, [s.value for s in UNENDED])
        orphans = [orphan_of(str(r.id), r, r.log_dir, r) for r in rows]

        def adopt(orphan: Orphan[TaskRunRow]) -> None:
            row = orphan.item
            self._watch(Scope(row.account_id, row.region), row.access_key, load_run(row), row.id, orphan.driver)

        def settle(orphan: Orphan[TaskRunRow]) -> bool:
            finish(self.needs, orphan.item.id, TaskState.FAILED, NEVER_STARTED_MESSAGE)
            return True

        return reconcile_orphans(orphans, lambda o: task_runs.claim(self.needs.store, o.item.id, o.runner,
                                                                    self.supervisor.identity),
                                 adopt, settle, "column statistics task run")


def driver_outcome(directory: Path, code: int | None, pid: int | None) -> tuple[TaskState, str | None]:
    """How a driver that ended by itself ended: as it reported it (its keeper's record), else by its exit status
    or signal (``code``: what this process saw, None when it adopted the driver)."""
    succeeded, message = outcome.verdict(outcome.ended(directory, code, pid), directory / "error.log", reported=True)
    return (TaskState.SUCCEEDED, None) if succeeded else (TaskState.FAILED, message)


_runners: RunnerPerNeeds[StatisticsTaskNeeds, StatisticsTaskRunner] = RunnerPerNeeds(
    StatisticsTaskRunner, lambda _, found: found.reconcile(), "column statistics task runs")
