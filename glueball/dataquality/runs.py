"""Running data quality runs: one Spark driver process per run, watched by a thread of the server.

StartDataQualityRulesetEvaluationRun and StartDataQualityRuleRecommendationRun record a
STARTING run (:meth:`RunService.begin`) and hand it to a daemon thread, so the request
returns at once. The thread writes what the driver needs into the run's directory
(``$GLUEBALL_HOME/logs/data-quality/<run id>/run.json``: the run's members and, for an
evaluation, the DQDL of its rulesets as they were at the start) and launches the driver
as the job launcher launches a Glue ETL job (:func:`glueball.jobs.launcher.plan_launch`:
``python -m glueball run driver.py`` with ``NumberOfWorkers`` G.1X workers as Spark
resources, its output in ``output.log`` and ``error.log``, ``GLUEBALL_ENDPOINT`` pointing at
this server). The run becomes RUNNING with the driver's pid, and ends:

- SUCCEEDED or FAILED as the driver reported it and its keeper recorded it with the exit
  status (:mod:`glueball.supervise.outcome`; ``ErrorString`` the exception that failed it),
  or FAILED by its exit status or signal when it could not report;
- TIMEOUT past ``Timeout`` minutes (``GLUEBALL_JOB_TIMEOUT_UNIT_SECONDS`` makes them seconds
  for tests): the process group gets SIGTERM, then SIGKILL after a grace period;
- STOPPED after a Cancel (on any server: the watcher sees STOPPING in the store).

The evaluation driver (:func:`glueball.dataquality.driver.drive`) reads the catalog table with
``GlueContext.create_dynamic_frame.from_catalog``, evaluates each ruleset with
:func:`glueball.dataquality.evaluator.evaluate` against the metric history of the ruleset's
evaluation context (the ruleset name), and publishes one result per ruleset with
``RulesetEvaluationRunId`` — the run's ``ResultIds``. The recommendation driver is
:mod:`glueball.dataquality.recommend`.

Reconciliation (:func:`reconcile`, when a process first serves a data quality run
operation): runs whose watching process is gone are watched again when their driver is
alive on this host, settled from the outcome record when it ended meanwhile, and end FAILED
("the server stopped before the run's driver started") when it never started, or STOPPED if
they were stopping.

Testing knob: ``GLUEBALL_DQ_DRIVER=module:function`` makes the driver run another function
(tests use it for drivers that wait, fail or exit without Spark).
"""

from __future__ import annotations

import json
import logging
import math
import signal
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import update

from glueball.clock import now
from glueball.dataquality.driver import RECOMMENDATION_FILE, RUN_FILE
from glueball.dataquality.models import DataQualityRun, RunKind, RunState, is_ended
from glueball.dataquality.service import RunService, parsed_rule_count
from glueball.dataquality.store import active_runs, compare_and_swap, load_run, ruleset_exists, run_row
from glueball.jobs.launcher import LaunchError, LaunchPlan, plan_launch, spawn
from glueball.jobs.models import JobRun, JobRunState
from glueball.store.claims import claim_runner
from glueball.store.engine import Store
from glueball.store.schema import DataQualityRulesetRow, DataQualityRunRow
from glueball.store.scoped import Scope
from glueball.supervise import outcome
from glueball.supervise.per_needs import RunnerPerNeeds
from glueball.supervise.process import DriverProcess, host_name, process_start, signal_group, timeout_unit_seconds
from glueball.supervise.supervisor import (
    NEVER_STARTED_MESSAGE,
    Orphan,
    Supervisor,
    orphan_of,
    reconcile_orphans,
    watch_driver,
)

if TYPE_CHECKING:
    from glueball.dataquality.area import DataQualityNeeds

log = logging.getLogger("glueball.dataquality")

DRIVER_ENV = "GLUEBALL_DQ_DRIVER"
DEFAULT_DRIVER = "glueball.dataquality.driver:drive"
DRIVER_SCRIPT = "driver.py"
# the GlueVersion whose Spark settings a run's driver gets (Glue Data Quality runs on Glue 4.0 and later)
GLUE_VERSION = "5.0"

_SCRIPT = '''import importlib, os
module, _, function = os.environ.get({env!r}, {default!r}).partition(":")
raise SystemExit(getattr(importlib.import_module(module), function)())
'''


# ---------------------------------------------------------------- run state in the store

def mark_running(store: Store, run_id: str, host: str, pid: int, start: int | None) -> RunState | None:
    """STARTING -> RUNNING with the driver's identity; the run's state now (None: the run is gone)."""
    with store.write() as session:
        values: dict[str, Any] = {"driver_host": host, "driver_pid": pid, "driver_start": start,
                                  "last_modified_on": now()}
        if compare_and_swap(session, run_id, RunState.STARTING, RunState.RUNNING, **values):
            return RunState.RUNNING
        session.execute(update(DataQualityRunRow).where(DataQualityRunRow.run_id == run_id).values(**values)
                        .execution_options(synchronize_session=False))
        row = run_row(session, run_id)
        return RunState(row.status) if row is not None else None


def run_state(store: Store, run_id: str) -> RunState | None:
    with store.read() as session:
        row = run_row(session, run_id)
        return RunState(row.status) if row is not None else None


def finish_run(store: Store, run_id: str, outcome: RunState, error: str | None, execution_time: int,
               recommended_ruleset: str | None = None) -> RunState | None:
    """Record how a run ended; a run asked to stop ends STOPPED whatever its driver did.

    A recommendation run that succeeded with ``CreatedRulesetName`` creates that ruleset in the
    same transaction (the run FAILS if a ruleset of that name appeared meanwhile).

    Returns:
        the state recorded, or None if the run had already ended.
    """
    for _ in range(5):
        with store.write() as session:
            row = run_row(session, run_id)
            if row is None or is_ended(RunState(row.status)):
                return None
            current = RunState(row.status)
            target = RunState.STOPPED if current is RunState.STOPPING else outcome
            message = None if target in (RunState.STOPPED, RunState.SUCCEEDED) else error
            stamp = now()
            created = row.spec.get("CreatedRulesetName")
            recommended = recommended_ruleset if target is RunState.SUCCEEDED else None
            if recommended is not None and created:
                scope = Scope(row.account_id, row.region)
                if ruleset_exists(session, scope, created):
                    target, message = RunState.FAILED, (f"Data Quality Ruleset with name {created} already exists; "
                                                        "the recommended ruleset was not created")
                else:
                    session.add(DataQualityRulesetRow(
                        account_id=row.account_id, region=row.region, name=created, description=None,
                        ruleset=recommended, rule_count=parsed_rule_count(recommended),
                        target_database=row.database_name, target_table=row.table_name, target_catalog=None,
                        recommendation_run_id=run_id, client_token=None, create_time=stamp, update_time=stamp))
            if compare_and_swap(session, run_id, current, target, completed_on=stamp, last_modified_on=stamp,
                                error_string=message, execution_time=execution_time,
                                recommended_ruleset=recommended, runner=None, heartbeat=None):
                return target
    return None


def beat(store: Store, run_ids: list[str]) -> None:
    """Refresh the heartbeat of the runs this process watches (so other servers leave them alone)."""
    if run_ids:
        with store.write() as session:
            session.execute(update(DataQualityRunRow).where(DataQualityRunRow.run_id.in_(run_ids))
                            .values(heartbeat=now()).execution_options(synchronize_session=False))


# ---------------------------------------------------------------- the runner (server side)

@dataclass(frozen=True)
class _Watch:
    scope: Scope
    access_key: str | None
    run: DataQualityRun


def runner(app: DataQualityNeeds) -> DataQualityRunner:
    """The data quality runs of ``app``'s process; created (and, in a process that serves runs, runs
    left by a stopped process reconciled) on first use (an embedded installation inside a driver does not
    serve runs: the server's runs are not ours)."""
    return _runners.get(app, app.serves_runs())


class DataQualityRunner:
    """The data quality runs of one process: launches their drivers, watches them (:mod:`glueball.supervise`)."""

    def __init__(self, app: DataQualityNeeds) -> None:
        self.app = app
        self.supervisor = Supervisor("data quality run", lambda runs: beat(app.store, runs))
        self.identity = self.supervisor.identity

    def start(self, scope: Scope, access_key: str | None, kind: RunKind, request: Mapping[str, Any]) -> str:
        """StartDataQuality*Run: a STARTING run whose driver a background thread launches; returns the run id.

        Raises:
            EntityNotFoundException, InvalidInputException: as the Start operation.
        """
        run, new = RunService(self.app.store, scope, kind).begin(dict(request), self.identity, access_key,
                                                                 self.app.settings.logs)
        if new:
            self._launch_thread(_Watch(scope, access_key, run))
        return run.run_id

    def cancel(self, scope: Scope, kind: RunKind, run_id: str) -> None:
        """CancelDataQuality*Run: the run becomes STOPPING and its driver is told to end.

        Raises:
            EntityNotFoundException: no such run. InvalidInputException: it has ended.
        """
        driver = RunService(self.app.store, scope, kind).request_cancel(run_id)
        if self.supervisor.stop(run_id):
            return
        if driver is not None and driver.pid is not None and \
                DriverProcess(driver.host, driver.pid, driver.start).alive():
            signal_group(driver.pid, signal.SIGTERM)  # watched by another process, which records the end

    def adopt(self, scope: Scope, access_key: str | None, run: DataQualityRun, driver: DriverProcess) -> None:
        """Watch a live driver that a stopped process launched (reconciliation)."""
        self._launch_thread(_Watch(scope, access_key, run), driver)

    def active(self) -> list[str]:
        return self.supervisor.active()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until this process watches no run; False on timeout."""
        return self.supervisor.wait_idle(timeout)

    # -- internals

    def _launch_thread(self, watch: _Watch, adopted: DriverProcess | None = None) -> None:
        self.supervisor.track(watch.run.run_id)
        self.supervisor.thread(f"dq-run-{watch.run.run_id[:14]}", self._run, watch, adopted)

    def _run(self, watch: _Watch, adopted: DriverProcess | None) -> None:
        run = watch.run
        try:
            outcome, message = self._execute(watch, adopted)
            self.record_end(run, outcome, message)
        except Exception:
            log.exception("data quality run %s could not be run or recorded", run.run_id)
            try:
                finish_run(self.app.store, run.run_id, RunState.FAILED, "internal error of glueball while running",
                           _elapsed(run))
            except Exception:
                log.exception("recording the failure of data quality run %s failed", run.run_id)
        finally:
            self.supervisor.untrack(run.run_id)

    def _execute(self, watch: _Watch, adopted: DriverProcess | None) -> tuple[RunState, str | None]:
        """Launch (or re-attach to) the driver and watch it to its end: the outcome and its message."""
        run = watch.run
        store = self.app.store
        proc: subprocess.Popen[bytes] | None = None
        if adopted is None:
            if run_state(store, run.run_id) is RunState.STOPPING:  # cancelled before it launched
                return RunState.STOPPED, None
            try:
                proc = spawn(self._plan(watch))
            except (LaunchError, OSError) as exc:
                return RunState.FAILED, str(exc)
            pid = proc.pid
            mark_running(store, run.run_id, host_name(), pid, process_start(pid))
        else:
            assert adopted.pid is not None
            pid = adopted.pid
        ending = watch_driver(pid, proc, adopted, run.started_on + run.timeout_minutes * timeout_unit_seconds(),
                              self.supervisor.track(run.run_id),
                              lambda: run_state(store, run.run_id) in (RunState.STOPPING, None))
        if ending.timed_out:
            return RunState.TIMEOUT, (f"The {run.kind.noun} {run.run_id} exceeded its Timeout of "
                                      f"{run.timeout_minutes} minute(s) and was stopped")
        if ending.stopped:
            return RunState.STOPPED, None
        return driver_outcome(run, ending.code, pid)

    def _plan(self, watch: _Watch) -> LaunchPlan:
        """Write the run's file and driver script, and plan the driver as a Glue ETL job run."""
        run = watch.run
        directory = Path(run.log_dir or self.app.settings.logs / "data-quality" / run.run_id)
        directory.mkdir(parents=True, exist_ok=True)
        info: dict[str, Any] = {"RunId": run.run_id, "Kind": run.kind.value, "Spec": run.spec,
                                "StartedOn": run.started_on}
        if run.kind is RunKind.EVALUATION:
            texts = RunService(self.app.store, watch.scope, run.kind).ruleset_texts(run.spec["RulesetNames"])
            missing = [n for n in run.spec["RulesetNames"] if n not in texts]
            if missing:
                raise LaunchError(f"Data Quality Ruleset(s) {', '.join(missing)} were deleted before the run started")
            info["Rulesets"] = texts
        (directory / RUN_FILE).write_text(json.dumps(info, indent=2))
        script = directory / DRIVER_SCRIPT
        script.write_text(_SCRIPT.format(env=DRIVER_ENV, default=DEFAULT_DRIVER))
        as_job = JobRun(
            run_id=run.run_id, job_name=f"data-quality-{run.kind.value}", attempt=0, state=JobRunState.STARTING,
            started_on=run.started_on, last_modified_on=run.last_modified_on, arguments={},
            spec={"Command": {"Name": "glueetl", "ScriptLocation": str(script)}, "JobId": run.run_id,
                  "WorkerType": "G.1X", "NumberOfWorkers": run.spec["NumberOfWorkers"], "GlueVersion": GLUE_VERSION,
                  "Timeout": run.timeout_minutes},
            log_dir=str(directory))
        settings = self.app.settings
        credentials = None
        if self.app.run_identity is not None:
            credentials = self.app.run_identity(watch.scope, str(run.spec.get("Role") or ""), run.run_id,
                                                run.timeout_minutes * 60 + 600)
        return plan_launch(as_job, settings.home, settings.endpoint or None, watch.scope.region, watch.access_key,
                           settings.store_url, credentials)

    def record_end(self, run: DataQualityRun, outcome: RunState, message: str | None) -> None:
        """Record how ``run`` ended (a recommendation's ruleset with it); a cancelled run ends STOPPED."""
        recommended = None
        if run.kind is RunKind.RECOMMENDATION and outcome is RunState.SUCCEEDED:
            recommended, problem = recommended_ruleset(run)
            if problem is not None:
                outcome, message = RunState.FAILED, problem
        final = finish_run(self.app.store, run.run_id, outcome, message, _elapsed(run), recommended)
        if final is not None:
            log.info("%s %s ended %s%s", run.kind.noun, run.run_id, final.value,
                     f": {message}" if message and final is not RunState.STOPPED else "")


def _elapsed(run: DataQualityRun) -> int:
    return max(0, math.ceil(time.time() - run.started_on))


def driver_outcome(run: DataQualityRun, code: int | None, pid: int | None) -> tuple[RunState, str | None]:
    """How a driver that ended by itself ended: as it reported it (its keeper's record), else by its exit status
    or signal (``code``: what this process saw, None when it adopted the driver)."""
    folder = Path(run.log_dir) if run.log_dir else None
    succeeded, message = outcome.verdict(outcome.ended(folder, code, pid), folder / "error.log" if folder else None,
                                         reported=True)
    return (RunState.SUCCEEDED, None) if succeeded else (RunState.FAILED, message)


def recommended_ruleset(run: DataQualityRun) -> tuple[str | None, str | None]:
    """The DQDL a recommendation driver wrote, checked; or the problem with it."""
    from glueball.errors import InvalidInputException

    try:
        text = (Path(run.log_dir or ".") / RECOMMENDATION_FILE).read_text()
    except OSError:
        return None, "the recommendation driver wrote no recommended ruleset"
    try:
        parsed_rule_count(text)
    except InvalidInputException as err:
        return None, f"the recommended ruleset is not valid DQDL: {err.message}"
    return text, None


def reconcile(app: DataQualityNeeds, owner: DataQualityRunner) -> list[str]:
    """Settle the runs whose watching process is gone; returns their run ids.

    A driver still alive on this host is watched again by ``owner``; a driver that ended meanwhile
    is settled by its outcome record; a run whose driver never started ends FAILED, or STOPPED if it
    was stopping.
    """
    with app.store.read() as session:
        rows = [(row, load_run(session, row)) for row in active_runs(session)]
    orphans = [orphan_of(row.run_id, row, run.log_dir, (row, run)) for row, run in rows]

    def claim(orphan: Orphan[Any]) -> bool:
        return claim_runner(app.store, DataQualityRunRow.run_id, orphan.run_id, orphan.runner, owner.identity)

    def adopt(orphan: Orphan[Any]) -> None:
        row, run = orphan.item
        assert orphan.driver is not None
        owner.adopt(Scope(row.account_id, row.region), row.access_key, run, orphan.driver)

    def settle(orphan: Orphan[Any]) -> bool:
        _, run = orphan.item
        finish_run(app.store, run.run_id, RunState.FAILED, NEVER_STARTED_MESSAGE, _elapsed(run))
        return True

    return reconcile_orphans(orphans, claim, adopt, settle, "data quality run")


_runners: RunnerPerNeeds[DataQualityNeeds, DataQualityRunner] = RunnerPerNeeds(
    DataQualityRunner, reconcile, "data quality runs")
