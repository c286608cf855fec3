"""Blueprint runs: StartBlueprintRun runs the layout script and creates the workflow it declares.

A run is RUNNING from StartBlueprintRun on. A daemon thread of the server (watched by the shared
supervision, :mod:`glueball.supervise`: a heartbeat, reconciliation after a restart):

1. extracts the blueprint's archive into the run's folder (``$GLUEBALL_HOME/logs/blueprints/<run id>``)
   and runs its layout generator in a process of its own
   (:mod:`glueball.blueprints.layout_driver`, ``output.log`` and ``error.log`` there) with the run's
   parameters (``user_params``: the given ones and the spec's defaults) and ``system_params``
   (``region``, ``accountId``, ``blueprintName``, ``runId``);
2. creates, through the Glue API as the run's caller (as its role with ``--auth iam``), the workflow,
   then its jobs, crawlers and triggers, recording each as it goes;
3. ends SUCCEEDED with the ``WorkflowName``; or, when the layout fails or an entity cannot be
   created, goes ROLLING_BACK, deletes what it created (newest first) and ends FAILED with the reason
   as ``ErrorMessage`` (and ``RollbackErrorMessage`` when something could not be deleted).

What the layout script itself does through boto3 (creating a database, uploading a script) is not
rolled back, as on AWS. When a server next serves blueprint runs, a run a stopped server left is taken
over: its layout process, which outlives the server under its keeper (:mod:`glueball.supervise.keeper`),
is watched again or, when it ended meanwhile, judged from its outcome record, and the run goes on; a run
that had begun creating its entities (the stopped server cannot say which it finished) or whose layout
never started is rolled back and ends FAILED, saying so.
"""

from __future__ import annotations

import json
import logging
import shutil
import subprocess
import sys
import threading
import time
import uuid
import zipfile
from pathlib import Path
from typing import Any

from botocore.exceptions import ClientError
from sqlalchemy import select

from glueball.api.pagination import decode_token, encode_token
from glueball.blueprints.archive import run_parameters
from glueball.blueprints.area import BlueprintNeeds
from glueball.blueprints.layout_driver import ARCHIVE_DIR, LAYOUT_FILE, RUN_FILE
from glueball.blueprints.models import UNENDED, BlueprintRun, BlueprintRunState, BlueprintStatus
from glueball.blueprints.service import BlueprintService
from glueball.clock import now
from glueball.errors import EntityNotFoundException, IllegalBlueprintStateException
from glueball.store import task_runs
from glueball.store.resource_tables import BLUEPRINT_RUN, TaskRunRow
from glueball.store.scoped import Scope
from glueball.supervise import outcome
from glueball.supervise.launch import spawn
from glueball.supervise.per_needs import RunnerPerNeeds
from glueball.supervise.process import DriverProcess, host_name, process_start
from glueball.supervise.supervisor import (
    NEVER_STARTED_MESSAGE,
    Orphan,
    Supervisor,
    orphan_of,
    reconcile_orphans,
    watch_driver,
)

log = logging.getLogger("glueball.blueprints")

LAYOUT_TIMEOUT_SECONDS = 900.0
INTERRUPTED_MESSAGE = "the server stopped while the run was creating the workflow's entities"
# a layout's entity kind -> (the Glue operation creating it, the one deleting it, the name's member there)
_CREATE = {"Job": "create_job", "Crawler": "create_crawler", "Trigger": "create_trigger"}
_DELETE = {"Workflow": ("delete_workflow", "Name"), "Job": ("delete_job", "JobName"),
           "Crawler": ("delete_crawler", "Name"), "Trigger": ("delete_trigger", "Name")}


class RunFailure(Exception):
    """Why a blueprint run failed (its ErrorMessage)."""


def _model(row: TaskRunRow) -> BlueprintRun:
    spec = row.spec
    return BlueprintRun(blueprint_name=row.subject, run_id=row.run_id, state=BlueprintRunState(row.state),
                        role_arn=spec["RoleArn"], parameters=spec.get("Parameters"), started=row.started_on,
                        workflow_name=spec.get("WorkflowName"), completed=row.completed_on,
                        error_message=row.error_message, rollback_error_message=row.rollback_error_message,
                        created=list(spec.get("Created") or []))


def _not_found(blueprint: str, run_id: str) -> str:
    return f"Blueprint run {run_id} of blueprint {blueprint} not found."


class BlueprintRunService:
    """Read blueprint runs (per account and region)."""

    def __init__(self, needs: BlueprintNeeds, scope: Scope) -> None:
        self.needs = needs
        self.scope = scope

    def get(self, blueprint: str, run_id: str) -> BlueprintRun:
        """Mirror GetBlueprintRun.

        Raises:
            EntityNotFoundException: no such run of that blueprint.
        """
        with self.needs.store.read() as session:
            row = task_runs.run_row(session, self.scope, BLUEPRINT_RUN, run_id, _not_found(blueprint, run_id))
            if row.subject != blueprint:
                raise EntityNotFoundException(_not_found(blueprint, run_id))
            return _model(row)

    def page(self, blueprint: str, max_results: int, token: str | None) -> tuple[list[BlueprintRun], str | None]:
        """Mirror GetBlueprintRuns: newest first, one page at a time.

        Raises:
            EntityNotFoundException: no blueprint of this name.
        """
        BlueprintService(self.needs.store, self.scope, self.needs.home, self.needs.read_object).get(blueprint)
        offset = decode_token(token, int) or 0
        query = task_runs.scoped_runs(self.scope, BLUEPRINT_RUN).where(TaskRunRow.subject == blueprint) \
            .order_by(TaskRunRow.started_on.desc(), TaskRunRow.id.desc()).offset(offset).limit(max_results + 1)
        with self.needs.store.read() as session:
            rows = list(session.scalars(query))
        more = len(rows) > max_results
        return [_model(r) for r in rows[:max_results]], encode_token(offset + max_results) if more else None


def runner(needs: BlueprintNeeds) -> BlueprintRunner:
    """The blueprint runs of ``needs``' process; created (and, in a process serving runs, runs left by a stopped
    process settled) on first use."""
    return _runners.get(needs, needs.serves_runs())


class BlueprintRunner:
    """Runs blueprint runs on threads of this process, each watched by :class:`Supervisor`."""

    def __init__(self, needs: BlueprintNeeds) -> None:
        self.needs = needs
        self.supervisor = Supervisor("blueprint run", lambda ids: task_runs.beat(needs.store, ids))

    def start(self, scope: Scope, access_key: str | None, name: str, parameters: str | None, role_arn: str) -> str:
        """Mirror StartBlueprintRun: a RUNNING run whose layout a background thread runs; its RunId.

        Raises:
            EntityNotFoundException: no blueprint of this name.
            IllegalBlueprintStateException: the blueprint is not ACTIVE.
            InvalidInputException: the parameters do not fit the blueprint's parameter spec.
        """
        blueprint = BlueprintService(self.needs.store, scope, self.needs.home, self.needs.read_object).get(name)
        if blueprint.status is not BlueprintStatus.ACTIVE:
            raise IllegalBlueprintStateException(
                f"Blueprint {name} is {blueprint.status.value}, not ACTIVE: {blueprint.error_message or ''}".rstrip(
                    ": "))
        definition = blueprint.definition
        values = run_parameters(json.loads(definition.parameter_spec or "{}"), parameters)
        run_id = uuid.uuid4().hex
        stamp = now()
        directory = self.needs.home / "logs" / "blueprints" / run_id
        spec: dict[str, Any] = {"Parameters": parameters, "Values": values, "RoleArn": role_arn, "Created": [],
                "ServiceLocation": definition.service_location, "LayoutGenerator": definition.layout_generator}
        with self.needs.store.write() as session:
            row = TaskRunRow(account_id=scope.account_id, region=scope.region, kind=BLUEPRINT_RUN, run_id=run_id,
                             subject=name, state=BlueprintRunState.RUNNING.value, spec=spec, started_on=stamp,
                             last_modified_on=stamp, access_key=access_key, runner=self.supervisor.identity,
                             heartbeat=time.time(), log_dir=str(directory))
            session.add(row)
            session.flush()
            row_id = row.id
        self.supervisor.track(str(row_id))
        self.supervisor.thread(f"blueprint-run-{run_id[:12]}", self._run, scope, row_id)
        return run_id

    def wait_idle(self, timeout: float | None = None) -> bool:
        return self.supervisor.wait_idle(timeout)

    # -- a run

    def _run(self, scope: Scope, row_id: int, adopted: DriverProcess | None = None) -> None:
        try:
            with self.needs.store.read() as session:
                row = task_runs.row_by_id(session, row_id)
                assert row is not None
                access_key, run = row.access_key, _model(row)
                spec, directory = dict(row.spec), Path(str(row.log_dir))
            try:
                if adopted is not None and "WorkflowName" in spec:  # its server stopped while creating entities
                    raise RunFailure(INTERRUPTED_MESSAGE)
                layout = self._layout(scope, access_key, row_id, run, spec, directory, adopted)
                self._create(scope, access_key, run, row_id, layout)
            except RunFailure as failure:
                self._fail(scope, access_key, row_id, str(failure))
                return
            except Exception as exc:
                log.exception("blueprint run %s failed inside glueball", run.run_id)
                self._fail(scope, access_key, row_id, f"internal error of glueball while running: {exc}")
                return
            with self.needs.store.write() as session:
                stamp = now()
                task_runs.swap_state(session, row_id, [BlueprintRunState.RUNNING.value],
                                     BlueprintRunState.SUCCEEDED.value, completed_on=stamp, last_modified_on=stamp,
                                     runner=None, heartbeat=None)
        finally:
            self.supervisor.untrack(str(row_id))

    def _layout(self, scope: Scope, access_key: str | None, row_id: int, run: BlueprintRun, spec: dict[str, Any],
                directory: Path, adopted: DriverProcess | None) -> dict[str, Any]:
        """Run the layout generator in its own process (or watch the one a stopped server started); the workflow
        it declared."""
        if adopted is None:
            proc: subprocess.Popen[bytes] | None = self._launch_layout(scope, access_key, row_id, run, spec,
                                                                       directory)
            assert proc is not None
            pid = proc.pid
        else:
            proc, pid = None, adopted.pid or 0
        ending = watch_driver(pid, proc, adopted, run.started + LAYOUT_TIMEOUT_SECONDS, threading.Event(),
                              lambda: False)
        if ending.timed_out:
            raise RunFailure(f"The layout generator did not finish within {LAYOUT_TIMEOUT_SECONDS:g} seconds")
        succeeded, reason = outcome.verdict(outcome.ended(directory, ending.code, pid), directory / "error.log",
                                            "The layout generator", reported=True)
        if succeeded and (directory / LAYOUT_FILE).is_file():
            layout: dict[str, Any] = json.loads((directory / LAYOUT_FILE).read_text())
            return layout
        raise RunFailure(f"The layout generator {spec['LayoutGenerator']} failed: {reason or 'it wrote no layout'}")

    def _launch_layout(self, scope: Scope, access_key: str | None, row_id: int, run: BlueprintRun,
                       spec: dict[str, Any], directory: Path) -> subprocess.Popen[bytes]:
        archive = Path(str(spec["ServiceLocation"]).removeprefix("file://"))
        root = directory / ARCHIVE_DIR
        if root.exists():
            shutil.rmtree(root)
        root.mkdir(parents=True)
        try:
            with zipfile.ZipFile(archive) as source:
                source.extractall(root)
        except (OSError, zipfile.BadZipFile) as exc:
            raise RunFailure(f"The blueprint archive {archive} could not be extracted: {exc}") from exc
        system = {"region": scope.region, "accountId": scope.account_id, "blueprintName": run.blueprint_name,
                  "runId": run.run_id}
        (directory / RUN_FILE).write_text(json.dumps({"LayoutGenerator": spec["LayoutGenerator"],
                                                      "UserParams": spec["Values"], "SystemParams": system}))
        try:
            env = self.needs.layout_env(scope, access_key, run.role_arn, run.run_id)
        except Exception as exc:  # with --auth iam: the role does not exist or does not trust Glue
            raise RunFailure(f"The run cannot act as its role {run.role_arn}: {exc}") from exc
        proc = spawn([sys.executable, "-m", "glueball.blueprints.layout_driver", str(directory)], env, directory,
                     directory / "output.log", directory / "error.log")
        task_runs.set_values(self.needs.store, row_id, driver_host=host_name(),
                             driver_pid=proc.pid, driver_start=process_start(proc.pid))
        return proc

    def _record_created(self, row_id: int, created: list[dict[str, str]], **more: Any) -> None:
        with self.needs.store.write() as session:
            row = task_runs.row_by_id(session, row_id)
            assert row is not None
            row.spec = {**row.spec, **more, "Created": list(created)}
            row.last_modified_on = now()

    def _create(self, scope: Scope, access_key: str | None, run: BlueprintRun, row_id: int,
                layout: dict[str, Any]) -> None:
        """Create the workflow, jobs, crawlers and triggers of ``layout``, recording each."""
        client = self.needs.glue_client(scope, access_key, run.role_arn, run.run_id)
        workflow = dict(layout["Workflow"])
        created: list[dict[str, str]] = []
        self._record_created(row_id, created, WorkflowName=workflow["Name"])
        steps: list[tuple[str, str, dict[str, Any]]] = [("Workflow", "create_workflow", workflow)]
        steps += [("Job", _CREATE["Job"], job) for job in layout.get("Jobs") or []]
        steps += [("Crawler", _CREATE["Crawler"], _crawler_input(c)) for c in layout.get("Crawlers") or []]
        steps += [("Trigger", _CREATE["Trigger"], trigger) for trigger in layout.get("Triggers") or []]
        for kind, operation, members in steps:
            try:
                getattr(client, operation)(**members)
            except ClientError as exc:
                error = exc.response["Error"]
                raise RunFailure(f"Creating {kind.lower()} {members.get('Name')} failed: {error.get('Code')}: "
                                 f"{error.get('Message')}") from exc
            except (TypeError, ValueError) as exc:  # botocore's own checks of the members (ParamValidationError)
                raise RunFailure(f"Creating {kind.lower()} {members.get('Name')} failed: {exc}") from exc
            created.append({"Kind": kind, "Name": str(members["Name"])})
            self._record_created(row_id, created)

    def _fail(self, scope: Scope, access_key: str | None, row_id: int, message: str) -> None:
        """Roll back what the run created and end it FAILED with ``message``."""
        with self.needs.store.write() as session:
            row = task_runs.row_by_id(session, row_id)
            if row is None or row.state not in UNENDED:
                return
            task_runs.swap_state(session, row_id, [s.value for s in UNENDED], BlueprintRunState.ROLLING_BACK.value,
                                 error_message=message, last_modified_on=now())
            run = _model(row)
        problems = self._roll_back(scope, access_key, run)
        with self.needs.store.write() as session:
            stamp = now()
            task_runs.swap_state(session, row_id, [BlueprintRunState.ROLLING_BACK.value],
                                 BlueprintRunState.FAILED.value, completed_on=stamp, last_modified_on=stamp,
                                 rollback_error_message="; ".join(problems) or None, runner=None, heartbeat=None)
        log.info("blueprint run %s failed: %s", run.run_id, message)

    def _roll_back(self, scope: Scope, access_key: str | None, run: BlueprintRun) -> list[str]:
        """Delete what ``run`` created, newest first; what could not be deleted, and why."""
        if not run.created:
            return []
        problems: list[str] = []
        try:
            client = self.needs.glue_client(scope, access_key, run.role_arn, run.run_id)
        except Exception as exc:
            return [f"no Glue client to roll back with: {exc}"]
        for entity in reversed(run.created):
            operation, member = _DELETE[entity["Kind"]]
            try:
                getattr(client, operation)(**{member: entity["Name"]})
            except ClientError as exc:
                problems.append(f"Deleting {entity['Kind'].lower()} {entity['Name']} failed: "
                                f"{exc.response['Error'].get('Message')}")
        return problems

    # -- after a restart

    def reconcile(self) -> list[str]:
        """Take over the runs a stopped process left unended; their run ids. A layout process that was started is
        watched again (or its outcome record read) and the run goes on; a run that had begun creating its entities,
        or whose layout never started, is rolled back and ends FAILED, saying which."""
        rows = task_runs.unended_runs(self.needs.store, BLUEPRINT_RUN, [s.value for s in UNENDED])
        orphans = [orphan_of(str(r.id), r, r.log_dir, r) for r in rows]

        def adopt(orphan: Orphan[TaskRunRow]) -> None:
            row = orphan.item
            self.supervisor.track(str(row.id))
            self.supervisor.thread(f"blueprint-run-{row.run_id[:12]}", self._run, Scope(row.account_id, row.region),
                                   row.id, orphan.driver)

        def settle(orphan: Orphan[TaskRunRow]) -> bool:
            row = orphan.item
            self._fail(Scope(row.account_id, row.region), row.access_key, row.id, NEVER_STARTED_MESSAGE)
            return True

        settled = reconcile_orphans(orphans, lambda o: task_runs.claim(self.needs.store, o.item.id, o.runner,
                                                                       self.supervisor.identity),
                                    adopt, settle, "blueprint run")
        with self.needs.store.read() as session:
            return list(session.scalars(select(TaskRunRow.run_id).where(TaskRunRow.id.in_([int(i) for i in settled]))))


def _crawler_input(crawler: dict[str, Any]) -> dict[str, Any]:
    """A layout's crawler as CreateCrawler takes it (AWS's layout library spells ``JdbcTargets`` ``JDBCTargets``)."""
    members = dict(crawler)
    targets = dict(members.get("Targets") or {})
    if "JDBCTargets" in targets:
        targets["JdbcTargets"] = targets.pop("JDBCTargets")
    members["Targets"] = targets
    return members


_runners: RunnerPerNeeds[BlueprintNeeds, BlueprintRunner] = RunnerPerNeeds(
    BlueprintRunner, lambda _, found: found.reconcile(), "blueprint runs")
