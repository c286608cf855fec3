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

- SUCCEEDED or FAILED as the driver recorded it in ``outcome.json`` (``ErrorString`` the
  exception that failed it), or by its exit status when it could not record it;
- TIMEOUT past ``Timeout`` minutes (``GLUEBALL_JOB_TIMEOUT_UNIT_SECONDS`` makes them seconds
  for tests): the process group gets SIGTERM, then SIGKILL after a grace period;
- STOPPED after a Cancel (on any server: the watcher sees STOPPING in the store).

The evaluation driver (:func:`drive`) reads the catalog table with
``GlueContext.create_dynamic_frame.from_catalog``, evaluates each ruleset with
:func:`glueball.dataquality.evaluator.evaluate` against the metric history of the ruleset's
evaluation context (the ruleset name), and publishes one result per ruleset with
``RulesetEvaluationRunId`` — the run's ``ResultIds``. The recommendation driver is
:mod:`glueball.dataquality.recommend`.

Reconciliation (:func:`reconcile`, when a process first serves a data quality run
operation): runs whose watching process is gone are watched again when their driver is
alive on this host, settled from ``outcome.json`` when it ended meanwhile, and otherwise end
FAILED ("server restarted during the run"), or STOPPED if they were stopping.

Testing knob: ``GLUEBALL_DQ_DRIVER=module:function`` makes the driver run another function
(tests use it for drivers that wait, fail or exit without Spark).
"""

from __future__ import annotations

import json
import logging
import math
import os
import signal
import subprocess
import threading
import time
import traceback
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import update

from glueball.catalog.models import Scope
from glueball.clock import now
from glueball.crawlers.runner import is_orphan, process_identity
from glueball.dataquality.models import DataQualityRun, RunKind, RunState, is_ended
from glueball.dataquality.service import RunService, parsed_rule_count
from glueball.dataquality.store import active_runs, compare_and_swap, load_run, ruleset_exists, run_row
from glueball.jobs.launcher import (
    LaunchError,
    LaunchPlan,
    driver_alive,
    error_message,
    host_name,
    local_path,
    plan_launch,
    process_start,
    signal_group,
    spawn,
    timeout_unit_seconds,
)
from glueball.jobs.models import Driver, JobRun, JobRunState
from glueball.store.engine import Store
from glueball.store.schema import DataQualityRulesetRow, DataQualityRunRow

if TYPE_CHECKING:
    from glueball.app import Glueball

log = logging.getLogger("glueball.dataquality")

DRIVER_ENV = "GLUEBALL_DQ_DRIVER"
DEFAULT_DRIVER = "glueball.dataquality.runs:drive"
RUN_FILE = "run.json"
OUTCOME_FILE = "outcome.json"
RECOMMENDATION_FILE = "recommended_ruleset.dqdl"
DRIVER_SCRIPT = "driver.py"
RESTARTED_MESSAGE = "server restarted during the run"
HEARTBEAT_SECONDS = 15.0
POLL_SECONDS = 0.1
STORE_POLL_SECONDS = 0.5
STOP_GRACE_SECONDS = 10.0
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

@dataclass
class _Watch:
    scope: Scope
    access_key: str | None
    run: DataQualityRun
    stop: threading.Event = field(default_factory=threading.Event)


_runners: weakref.WeakKeyDictionary[Glueball, DataQualityRunner] = weakref.WeakKeyDictionary()
_runners_lock = threading.Lock()


def runner(app: Glueball) -> DataQualityRunner:
    """The data quality runs of ``app``'s process; created (and runs left by a stopped process
    reconciled) on first use."""
    with _runners_lock:
        found = _runners.get(app)
        if found is None:
            found = _runners[app] = DataQualityRunner(app)
            try:
                reconcile(app, found)
            except Exception:  # reconciliation is retried by the next process; serving goes on
                log.exception("reconciling data quality runs failed")
        return found


class DataQualityRunner:
    """The data quality runs of one process: launches their drivers, watches them, keeps their heartbeat."""

    def __init__(self, app: Glueball) -> None:
        self.app = app
        self.identity = process_identity()
        self._watches: dict[str, _Watch] = {}
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._heartbeat: threading.Thread | None = None

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
        with self._lock:
            watch = self._watches.get(run_id)
        if watch is not None:
            watch.stop.set()
        elif driver is not None and driver.pid is not None and driver_alive(driver.host, driver.pid, driver.start):
            signal_group(driver.pid, signal.SIGTERM)  # watched by another process, which records the end

    def adopt(self, scope: Scope, access_key: str | None, run: DataQualityRun, driver: Driver) -> None:
        """Watch a live driver that a stopped process launched (reconciliation)."""
        self._launch_thread(_Watch(scope, access_key, run), driver)

    def active(self) -> list[str]:
        with self._lock:
            return list(self._watches)

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until this process watches no run; False on timeout."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._idle:
            while self._watches:
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return False
                self._idle.wait(remaining)
        return True

    # -- internals

    def _launch_thread(self, watch: _Watch, adopted: Driver | None = None) -> None:
        with self._lock:
            self._watches[watch.run.run_id] = watch
            if self._heartbeat is None:
                self._heartbeat = threading.Thread(target=self._beat, name="dq-heartbeat", daemon=True)
                self._heartbeat.start()
        threading.Thread(target=self._run, args=(watch, adopted), name=f"dq-run-{watch.run.run_id[:14]}",
                         daemon=True).start()

    def _beat(self) -> None:
        while True:
            time.sleep(HEARTBEAT_SECONDS)
            with self._lock:
                runs = list(self._watches)
                if not runs:
                    self._heartbeat = None
                    return
            try:
                beat(self.app.store, runs)
            except Exception:  # the store may be briefly unreachable; the next beat retries
                log.warning("data quality run heartbeat failed", exc_info=True)

    def _run(self, watch: _Watch, adopted: Driver | None) -> None:
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
            with self._idle:
                self._watches.pop(run.run_id, None)
                self._idle.notify_all()

    def _execute(self, watch: _Watch, adopted: Driver | None) -> tuple[RunState, str | None]:
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
        deadline = run.started_on + run.timeout_minutes * timeout_unit_seconds()
        ending: RunState | None = None
        signalled = checked = 0.0
        code: int | None = None
        while True:
            if proc is not None:
                code = proc.poll()
                if code is not None:
                    break
            elif not driver_alive(adopted.host if adopted else None, pid, adopted.start if adopted else None):
                break
            moment = time.monotonic()
            if ending is None:
                if not watch.stop.is_set() and moment - checked >= STORE_POLL_SECONDS:
                    checked = moment
                    if run_state(store, run.run_id) in (RunState.STOPPING, None):
                        watch.stop.set()
                if watch.stop.is_set():
                    ending = RunState.STOPPED
                elif time.time() >= deadline:
                    ending = RunState.TIMEOUT
                if ending is not None:
                    signal_group(pid, signal.SIGTERM)
                    signalled = moment
            elif signalled and moment - signalled >= STOP_GRACE_SECONDS:
                signal_group(pid, signal.SIGKILL)
                signalled = 0.0
            time.sleep(POLL_SECONDS)
        signal_group(pid, signal.SIGKILL)  # whatever the driver left behind in its group (the JVM)
        if ending is RunState.TIMEOUT:
            return RunState.TIMEOUT, (f"The {run.kind.noun} {run.run_id} exceeded its Timeout of "
                                      f"{run.timeout_minutes} minute(s) and was stopped")
        if ending is RunState.STOPPED:
            return RunState.STOPPED, None
        return driver_outcome(run, code, pid)

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
        return plan_launch(as_job, settings.home, settings.endpoint or None, watch.scope.region, watch.access_key,
                           settings.store_url)

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
    """How a driver that ended by itself ended: as it recorded it, else by its exit status."""
    directory = Path(run.log_dir or ".")
    try:
        recorded = json.loads((directory / OUTCOME_FILE).read_text())
    except (OSError, ValueError):
        recorded = None
    if isinstance(recorded, dict) and recorded.get("Status") in (RunState.SUCCEEDED, RunState.FAILED):
        return RunState(recorded["Status"]), recorded.get("ErrorString")
    if code == 0:
        return RunState.FAILED, "the driver exited without recording the run's outcome"
    if code is not None and code < 0:
        return RunState.FAILED, f"The driver (pid {pid}) was killed (signal {-code})"
    message = error_message(directory / "error.log")
    return RunState.FAILED, message or (f"Command failed with exit code {code}" if code is not None
                                        else "the driver ended without recording the run's outcome")


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


def reconcile(app: Glueball, owner: DataQualityRunner) -> list[str]:
    """Settle the runs whose watching process is gone; returns their run ids.

    A driver still alive on this host is watched again by ``owner``; a driver that ended meanwhile
    is settled by the outcome it recorded; otherwise the run ends FAILED ("server restarted during
    the run"), or STOPPED if it was stopping.
    """
    settled: list[str] = []
    with app.store.read() as session:
        rows = [(row, load_run(session, row)) for row in active_runs(session)]
    for row, run in rows:
        if not is_orphan(row.runner, row.heartbeat):
            continue
        with app.store.write() as session:
            moved = session.execute(
                update(DataQualityRunRow).where(DataQualityRunRow.run_id == row.run_id,
                                                DataQualityRunRow.runner == row.runner)
                .values(runner=owner.identity, heartbeat=time.time())
                .execution_options(synchronize_session=False)).rowcount  # type: ignore[attr-defined]
        if moved != 1:  # another process took it over first
            continue
        scope = Scope(row.account_id, row.region)
        driver = Driver(row.run_id, row.driver_host, row.driver_pid, row.driver_start)
        if row.driver_pid is not None and driver_alive(driver.host, driver.pid, driver.start):
            owner.adopt(scope, row.access_key, run, driver)
        elif row.driver_pid is not None and (Path(run.log_dir or ".") / OUTCOME_FILE).is_file():
            outcome, message = driver_outcome(run, None, row.driver_pid)
            owner.record_end(run, outcome, message)
        else:
            finish_run(app.store, run.run_id, RunState.FAILED, RESTARTED_MESSAGE, _elapsed(run))
        settled.append(row.run_id)
    if settled:
        log.warning("data quality runs left by a stopped process were settled: %s", ", ".join(settled))
    return settled


# ---------------------------------------------------------------- the drivers (in the run's process)

def drive() -> int:
    """A run's driver: evaluate or recommend as ``run.json`` (in the working directory) says.

    Records ``outcome.json`` (SUCCEEDED, or FAILED with the exception as ``ErrorString``) and
    returns the exit status.
    """
    directory = Path.cwd()
    info = json.loads((directory / RUN_FILE).read_text())
    try:
        if info["Kind"] == RunKind.EVALUATION.value:
            evaluate_run(info)
        else:
            from glueball.dataquality.recommend import recommend_run

            (directory / RECOMMENDATION_FILE).write_text(recommend_run(info))
    except Exception as exc:
        traceback.print_exc()
        record_outcome(directory, RunState.FAILED, f"{type(exc).__name__}: {exc}")
        return 1
    record_outcome(directory, RunState.SUCCEEDED, None)
    return 0


def record_outcome(directory: Path, state: RunState, error: str | None) -> None:
    """Write ``outcome.json`` (atomically: a watcher never reads half of it)."""
    temporary = directory / (OUTCOME_FILE + ".tmp")
    temporary.write_text(json.dumps({"Status": state.value, "ErrorString": error}))
    os.replace(temporary, directory / OUTCOME_FILE)


def glue_context() -> Any:
    """The driver's GlueContext (Spark configured by ``glueball run``)."""
    from pyspark.context import SparkContext

    from awsglue.context import GlueContext

    return GlueContext(SparkContext.getOrCreate())


def read_source(glue: Any, data_source: Mapping[str, Any]) -> Any:
    """A run's DataSource.GlueTable as a Spark DataFrame, read through the catalog like a Glue job."""
    table = data_source["GlueTable"]
    options = table.get("AdditionalOptions") or {}
    extra = {"catalogPartitionPredicate": options["catalogPartitionPredicate"]} \
        if options.get("catalogPartitionPredicate") else {}
    return glue.create_dynamic_frame.from_catalog(
        database=table["DatabaseName"], table_name=table["TableName"],
        push_down_predicate=options.get("pushDownPredicate", ""), additional_options=extra).toDF()


def evaluate_run(info: Mapping[str, Any]) -> list[str]:
    """Evaluate each ruleset of an evaluation run on its table and publish one result each; the ResultIds."""
    from glueball.dataquality.outcomes import data_quality_result
    from glueball.dataquality.publish import history, publish

    spec = info["Spec"]
    options = spec.get("AdditionalRunOptions") or {}
    glue = glue_context()
    frame = read_source(glue, spec["DataSource"])
    additional = {alias: read_source(glue, source) for alias, source in (spec.get("AdditionalDataSources") or {})
                  .items()}
    if len(spec["RulesetNames"]) > 1:
        frame = frame.cache()
    result_ids = []
    for name in spec["RulesetNames"]:
        evaluation = _evaluate(frame, info["Rulesets"][name], additional, history(name), options)
        result = data_quality_result(evaluation, evaluation_context=name, ruleset_name=name,
                                     data_source=spec["DataSource"], ruleset_evaluation_run_id=info["RunId"])
        result_id = publish(result)
        result_ids.append(result_id)
        print(f"ruleset {name}: result {result_id}, score {result.get('Score')}", flush=True)
        if options.get("ResultsS3Prefix"):
            _write_result(options["ResultsS3Prefix"], info["RunId"], result_id, result)
    return result_ids


def _evaluate(frame: Any, text: str, additional: dict[str, Any], metric_history: Any,
              options: Mapping[str, Any]) -> Any:
    from glueball.dataquality.evaluator import evaluate

    return evaluate(frame, text, additional=additional or None, history=metric_history,
                    composite_method=options.get("CompositeRuleEvaluationMethod", "COLUMN"),
                    observations=options.get("ObservationScope", "ALL") != "NONE")


def _write_result(prefix: str, run_id: str, result_id: str, result: Mapping[str, Any]) -> None:
    """ResultsS3Prefix: the result as JSON at ``<prefix>/<run id>/<result id>.json`` in the object store."""
    home = Path(os.environ.get("GLUEBALL_HOME", "~/.glueball")).expanduser()
    target = local_path(prefix.rstrip("/") + f"/{run_id}/{result_id}.json", home)
    target.parent.mkdir(parents=True, exist_ok=True)
    body = {"ResultId": result_id, **{k: v for k, v in result.items() if k != "Metrics"}}
    target.write_text(json.dumps(body, indent=2))
