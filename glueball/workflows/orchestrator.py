"""Firing triggers and driving workflow runs.

A *fire* is one firing of a trigger: a ``glue_trigger_fire`` row holding the actions to start,
written in the same transaction that decided the fire (a schedule's compare-and-swap, a workflow
run's creation, a satisfied predicate). Its actions are then started (:meth:`Engine.execute_fire`)
and each outcome recorded on the row; a fire whose process died before it was done is finished
by another (:meth:`Engine.recover_fires`), which first looks for runs already started under the
fire's id, so an action is started once.

A workflow run is driven by its state, not by messages: :meth:`Engine.evaluate_run` locks the run,
reads the job runs and crawls it holds (each carries its workflow run id), fires every activated
CONDITIONAL trigger of the workflow whose predicate now holds and that has not fired in this run
(a unique constraint makes "at most once per run" hold across servers), and ends the run when
nothing is running and nothing more can fire. Any process may evaluate any run at any time with
the same result, so a restart loses nothing.

Predicates look at each watched job's or crawler's latest run within the workflow run. A job run
that failed with retries left (MaxRetries) is still running as far as predicates are concerned.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from glueball.clock import now
from glueball.crawlers.service import CrawlerService
from glueball.errors import (
    ConcurrentRunsExceededException,
    CrawlerNotRunningException,
    CrawlerStoppingException,
    EntityNotFoundException,
    GlueError,
    IllegalWorkflowStateException,
    InvalidInputException,
)
from glueball.jobs.models import ACTIVE_STATES, RETRIED_STATES, JobRun, JobRunState
from glueball.jobs.service import JobRunService
from glueball.jobs.store import to_run
from glueball.store.schema import (
    CrawlerRow,
    CrawlRow,
    JobRow,
    JobRunRow,
    TriggerFireRow,
    TriggerRow,
    WorkflowRow,
    WorkflowRunRow,
)
from glueball.store.scoped import Scope
from glueball.supervise.process import is_orphan, process_identity, stale_seconds
from glueball.workflows.graph import CRAWLER, JOB, TRIGGER, Graph
from glueball.workflows.models import (
    EVENT_IDS_PROPERTY,
    START_TYPES,
    WORKFLOW_NAME_ARG,
    WORKFLOW_RUN_ID_ARG,
    Spec,
    Trigger,
    TriggerState,
    TriggerType,
    WorkflowRunStatus,
)
from glueball.workflows.store import (
    active_workflow_runs,
    move_run,
    run_fires,
    to_trigger,
    workflow_row,
    workflow_run_row,
    workflow_triggers,
)

if TYPE_CHECKING:
    from glueball.workflows.area import WorkflowNeeds

log = logging.getLogger("glueball.workflows")

# a failed attempt whose retry has not appeared this long after it ended counts as final
RETRY_SETTLE_SECONDS = 60.0

CRAWL_STATES = {"RUNNING": "RUNNING", "COMPLETED": "SUCCEEDED", "FAILED": "FAILED", "STOPPED": "CANCELLED"}


def new_workflow_run_id() -> str:
    return "wr_" + hashlib.sha256(uuid.uuid4().bytes).hexdigest()


@dataclass
class WorkflowCrawl:
    """A crawl as a workflow run shows it (Glue's ``Crawl`` structure)."""

    crawl_id: str
    crawler_name: str
    state: str
    started_on: float
    completed_on: float | None
    error_message: str | None
    fire_id: int | None


@dataclass
class RunActions:
    """The job runs and crawls of one workflow run (its own and those a resumed run keeps)."""

    job_runs: dict[str, list[JobRun]] = field(default_factory=dict)
    crawls: dict[str, list[WorkflowCrawl]] = field(default_factory=dict)
    own_job_runs: list[JobRun] = field(default_factory=list)
    own_crawls: list[WorkflowCrawl] = field(default_factory=list)
    errored: int = 0
    pending_fires: int = 0
    fired: set[str] = field(default_factory=set)

    def latest_job_run(self, name: str) -> JobRun | None:
        runs = self.job_runs.get(name)
        return runs[-1] if runs else None

    def latest_crawl(self, name: str) -> WorkflowCrawl | None:
        crawls = self.crawls.get(name)
        return crawls[-1] if crawls else None

    def job_state(self, name: str) -> str | None:
        """The watched job's final state in this run; None while it runs (or never ran)."""
        run = self.latest_job_run(name)
        if run is None or not job_run_settled(run):
            return None
        return run.state.value

    def crawl_state(self, name: str) -> str | None:
        crawl = self.latest_crawl(name)
        if crawl is None or crawl.state in ("RUNNING", "CANCELLING"):
            return None
        return crawl.state

    def active(self) -> bool:
        if self.pending_fires:
            return True
        if any(not job_run_settled(runs[-1]) for runs in self.job_runs.values() if runs):
            return True
        return any(c.state in ("RUNNING", "CANCELLING") for crawls in self.crawls.values() for c in crawls)

    def statistics(self) -> Spec:
        """Glue's WorkflowRunStatistics over the run's own actions."""
        counts = {"TotalActions": 0, "TimeoutActions": 0, "FailedActions": 0, "StoppedActions": 0,
                  "SucceededActions": 0, "RunningActions": 0, "ErroredActions": self.errored, "WaitingActions": 0}
        member = {"SUCCEEDED": "SucceededActions", "FAILED": "FailedActions", "STOPPED": "StoppedActions",
                  "TIMEOUT": "TimeoutActions", "ERROR": "ErroredActions", "WAITING": "WaitingActions",
                  "CANCELLED": "StoppedActions"}
        for run in self.own_job_runs:
            counts["TotalActions"] += 1
            state = run.state.value
            counts[member.get(state, "RunningActions")] += 1
        for crawl in self.own_crawls:
            counts["TotalActions"] += 1
            counts[member.get(crawl.state, "RunningActions")] += 1
        counts["TotalActions"] += self.errored
        return counts


def job_run_settled(run: JobRun) -> bool:
    """Whether a job run has ended for good (a failed attempt with retries left has not)."""
    if run.state in ACTIVE_STATES:
        return False
    if run.state in RETRIED_STATES and run.attempt < run.max_retries:
        return run.completed_on is not None and time.time() - run.completed_on > RETRY_SETTLE_SECONDS
    return True


def load_actions(session: Session, run: WorkflowRunRow) -> RunActions:
    """Everything a workflow run started, and what a resumed run inherited from its predecessor."""
    actions = RunActions()
    inherited = run.inherited or {}
    inherited_runs = [i for ids in (inherited.get("jobs") or {}).values() for i in ids]
    query = (select(JobRunRow, JobRow.name).join(JobRow, JobRow.id == JobRunRow.job_id)
             .order_by(JobRunRow.started_on, JobRunRow.id))
    for row, name in session.execute(query.where(JobRunRow.workflow_run_id == run.run_id)):
        job_run = to_run(row, name)
        actions.own_job_runs.append(job_run)
        actions.job_runs.setdefault(name, []).append(job_run)
    if inherited_runs:
        for row, name in session.execute(query.where(JobRunRow.run_id.in_(inherited_runs))):
            actions.job_runs.setdefault(name, []).append(to_run(row, name))
        for runs in actions.job_runs.values():
            runs.sort(key=lambda r: r.started_on)
    inherited_crawls = [i for ids in (inherited.get("crawlers") or {}).values() for i in ids]
    crawl_query = (select(CrawlRow, CrawlerRow.name, CrawlerRow.state)
                   .join(CrawlerRow, CrawlerRow.id == CrawlRow.crawler_id).order_by(CrawlRow.start_time, CrawlRow.id))

    def crawl_of(row: CrawlRow, name: str, crawler_state: str) -> WorkflowCrawl:
        state = CRAWL_STATES.get(row.state, row.state)
        if state == "RUNNING" and crawler_state == "STOPPING":
            state = "CANCELLING"
        return WorkflowCrawl(row.crawl_id, name, state, row.start_time, row.end_time, row.error_message, row.fire_id)

    for crawl_row, name, crawler_state in session.execute(crawl_query.where(CrawlRow.workflow_run_id == run.run_id)):
        crawl = crawl_of(crawl_row, name, crawler_state)
        actions.own_crawls.append(crawl)
        actions.crawls.setdefault(name, []).append(crawl)
    if inherited_crawls:
        for crawl_row, name, crawler_state in session.execute(
                crawl_query.where(CrawlRow.crawl_id.in_(inherited_crawls))):
            actions.crawls.setdefault(name, []).append(crawl_of(crawl_row, name, crawler_state))
        for crawls in actions.crawls.values():
            crawls.sort(key=lambda c: c.started_on)
    for fire in run_fires(session, run.run_id):
        actions.fired.add(fire.trigger_name)
        if not fire.done:
            actions.pending_fires += 1
        actions.errored += sum(1 for outcome in fire.outcomes or [] if outcome and "ErrorCode" in outcome)
    actions.fired.update(inherited.get("triggers") or [])
    return actions


def predicate_holds(trigger: Trigger, actions: RunActions) -> bool:
    """Whether a CONDITIONAL trigger's predicate holds over a workflow run's latest job runs and crawls."""
    results = []
    for condition in trigger.conditions:
        if condition.job_name:
            results.append(actions.job_state(condition.job_name) == condition.state)
        else:
            results.append(actions.crawl_state(condition.crawler_name or "") == condition.crawl_state)
    if not results:
        return False
    return any(results) if trigger.logical == "ANY" else all(results)


def fire_actions(trigger_actions: list[Spec], workflow: str | None, run_id: str | None) -> list[Spec]:
    """A trigger's actions as a fire starts them: jobs in a workflow run get --WORKFLOW_NAME/--WORKFLOW_RUN_ID."""
    actions: list[Spec] = []
    for action in trigger_actions:
        action = json.loads(json.dumps(action))
        if action.get("JobName") and workflow and run_id:
            arguments = dict(action.get("Arguments") or {})
            arguments[WORKFLOW_NAME_ARG] = workflow
            arguments[WORKFLOW_RUN_ID_ARG] = run_id
            action["Arguments"] = arguments
        actions.append(action)
    return actions


def add_fire(session: Session, scope: Scope, trigger_name: str, actions: list[Spec], run_id: str | None,
             runner: str, access_key: str | None) -> TriggerFireRow:
    fire = TriggerFireRow(account_id=scope.account_id, region=scope.region, trigger_name=trigger_name,
                          workflow_run_id=run_id, fired_on=now(), actions=actions, outcomes=[None] * len(actions),
                          done=not actions, runner=runner, access_key=access_key)
    session.add(fire)
    session.flush()
    return fire


def open_run(session: Session, scope: Scope, workflow: WorkflowRow, properties: dict[str, str] | None,
             runner: str, access_key: str | None, batch: Spec | None = None) -> tuple[str, int | None]:
    """Create a RUNNING workflow run with the fire of its starting trigger, in the caller's transaction.

    A workflow without a starting trigger gets a run that ends at once in ``ERROR``, its ``ErrorMessage``
    saying why (no fire; AWS's answer to this request is not documented: docs/fidelity.md).

    Raises:
        ConcurrentRunsExceededException: MaxConcurrentRuns runs of the workflow are running.
    """
    start = next((row for row in workflow_triggers(session, scope, workflow.name)
                  if TriggerType(row.type) in START_TYPES), None)
    limit = workflow.spec.get("MaxConcurrentRuns")
    if limit is not None and active_workflow_runs(session, workflow.id) >= int(limit):
        raise ConcurrentRunsExceededException(f"Concurrent runs exceeded for workflow: {workflow.name}")
    run_id = new_workflow_run_id()
    merged = dict(workflow.spec.get("DefaultRunProperties") or {})
    merged.update(properties or {})
    stamp = now()
    if start is None:
        session.add(WorkflowRunRow(
            workflow_id=workflow.id, run_id=run_id, status=WorkflowRunStatus.ERROR.value, started_on=stamp,
            completed_on=stamp, properties=merged, starting_batch=batch, access_key=access_key,
            error_message=f"Workflow {workflow.name} has no starting trigger (ON_DEMAND, SCHEDULED or EVENT) to "
                          "start its run; create one with WorkflowName"))
        session.flush()
        return run_id, None
    session.add(WorkflowRunRow(workflow_id=workflow.id, run_id=run_id, status=WorkflowRunStatus.RUNNING.value,
                               started_on=stamp, properties=merged, starting_batch=batch, access_key=access_key))
    session.flush()
    actions = fire_actions(list(start.spec.get("Actions") or []), workflow.name, run_id)
    fire = add_fire(session, scope, start.name, actions, run_id, runner, access_key)
    return run_id, fire.id


class Engine:
    """Fires triggers and drives workflow runs for one process (the server's scheduler and handlers)."""

    def __init__(self, needs: WorkflowNeeds) -> None:
        self.needs = needs
        self.identity = process_identity()

    # -- starting workflow runs and firing triggers on request

    def start_run(self, scope: Scope, access_key: str | None, name: str,
                  properties: dict[str, str] | None) -> str:
        """Mirror StartWorkflowRun: a RUNNING run whose starting trigger's actions start now.

        Raises:
            EntityNotFoundException: no such workflow.
            ConcurrentRunsExceededException: MaxConcurrentRuns runs are running.
        """
        with self.needs.store.write() as session:
            workflow = workflow_row(session, scope, name, for_update=True)
            run_id, fire_id = open_run(session, scope, workflow, properties, self.identity, access_key)
        if fire_id is not None:
            self.execute_fire(fire_id)
        return run_id

    def fire_on_demand(self, scope: Scope, access_key: str | None, trigger: Trigger) -> str | None:
        """StartTrigger of an ON_DEMAND trigger: its workflow's run (the run id) or its actions now.

        Raises:
            ConcurrentRunsExceededException, EntityNotFoundException: no action could be started, with
                the first action's error.
        """
        if trigger.workflow_name:
            return self.start_run(scope, access_key, trigger.workflow_name, None)
        with self.needs.store.write() as session:
            fire = add_fire(session, scope, trigger.name, fire_actions(trigger.actions, None, None), None,
                            self.identity, access_key)
            fire_id = fire.id
        outcomes = self.execute_fire(fire_id)
        if outcomes and all("ErrorCode" in o for o in outcomes):
            first = outcomes[0]
            error = GlueError(first["ErrorMessage"])
            error.code = first["ErrorCode"]
            raise error
        return None

    # -- starting a fire's actions

    def execute_fire(self, fire_id: int) -> list[Spec]:
        """Start every action of a fire that has no outcome yet; the outcomes.

        Inside a workflow run that is no longer RUNNING the remaining actions are not started.
        """
        with self.needs.store.read() as session:
            fire = session.get(TriggerFireRow, fire_id)
            if fire is None:
                return []
            scope = Scope(fire.account_id, fire.region)
            actions, outcomes = list(fire.actions), list(fire.outcomes or [None] * len(fire.actions))
            run_id, trigger_name, access_key = fire.workflow_run_id, fire.trigger_name, fire.access_key
        for index, action in enumerate(actions):
            if outcomes[index]:
                continue
            outcomes[index] = self._start_action(scope, access_key, trigger_name, run_id, fire_id, action)
            with self.needs.store.write() as session:
                session.execute(update(TriggerFireRow).where(TriggerFireRow.id == fire_id)
                                .values(outcomes=list(outcomes)).execution_options(synchronize_session=False))
        with self.needs.store.write() as session:
            session.execute(update(TriggerFireRow).where(TriggerFireRow.id == fire_id).values(done=True)
                            .execution_options(synchronize_session=False))
        self.needs.action_ended()
        return outcomes

    def _start_action(self, scope: Scope, access_key: str | None, trigger_name: str, run_id: str | None,
                      fire_id: int, action: Spec) -> Spec:
        if run_id is not None and self._run_status(run_id) is not WorkflowRunStatus.RUNNING:
            return {"ErrorCode": "IllegalWorkflowStateException",
                    "ErrorMessage": f"workflow run {run_id} stopped before the action started", "Skipped": True}
        started = self._already_started(fire_id, action)
        if started is not None:
            return started
        shown_trigger = None if trigger_name.startswith("crawler-schedule:") else trigger_name
        try:
            if action.get("JobName"):
                request = {m: action[m] for m in ("Arguments", "Timeout", "NotificationProperty") if action.get(m)}
                job_run_id = self.needs.jobs.start(scope, access_key, action["JobName"], request,
                                                 trigger_name=shown_trigger, workflow_run_id=run_id, fire_id=fire_id)
                log.info("trigger %s started job %s run %s", trigger_name, action["JobName"], job_run_id)
                return {"JobRunId": job_run_id}
            crawl_id = self.needs.crawls.start(scope, access_key, action["CrawlerName"], workflow_run_id=run_id,
                                             fire_id=fire_id)
            log.info("trigger %s started crawler %s (crawl %s)", trigger_name, action["CrawlerName"], crawl_id)
            return {"CrawlId": crawl_id}
        except GlueError as err:
            target = action.get("JobName") or action.get("CrawlerName")
            log.warning("trigger %s could not start %s: %s: %s", trigger_name, target, err.code, err.message)
            return {"ErrorCode": err.code, "ErrorMessage": err.message}
        except Exception as exc:  # a bug or an unreachable store: the action errs, the fire still ends
            log.exception("trigger %s could not start %s", trigger_name, action)
            return {"ErrorCode": "InternalServiceException", "ErrorMessage": f"{type(exc).__name__}: {exc}"}

    def _already_started(self, fire_id: int, action: Spec) -> Spec | None:
        """The run a fire already started for ``action`` (a recovered fire must not start it twice)."""
        with self.needs.store.read() as session:
            if action.get("JobName"):
                found = session.scalars(select(JobRunRow.run_id).join(JobRow, JobRow.id == JobRunRow.job_id).where(
                    JobRunRow.fire_id == fire_id, JobRow.name == action["JobName"])).first()
                return {"JobRunId": found} if found else None
            crawl = session.scalars(select(CrawlRow.crawl_id).join(CrawlerRow, CrawlerRow.id == CrawlRow.crawler_id)
                                    .where(CrawlRow.fire_id == fire_id,
                                           CrawlerRow.name == action.get("CrawlerName"))).first()
            return {"CrawlId": crawl} if crawl else None

    def _run_status(self, run_id: str) -> WorkflowRunStatus | None:
        with self.needs.store.read() as session:
            row = workflow_run_row(session, run_id)
            return WorkflowRunStatus(row.status) if row is not None else None

    def recover_fires(self) -> list[int]:
        """Finish fires whose process died (or stalled past the heartbeat timeout) before every action was started."""
        recovered: list[int] = []
        with self.needs.store.read() as session:
            pending = list(session.scalars(select(TriggerFireRow).where(TriggerFireRow.done.is_(False))))
            candidates = [(f.id, f.runner) for f in pending
                          if f.runner != self.identity and (is_orphan(f.runner, f.fired_on)
                                                            or time.time() - f.fired_on > stale_seconds())]
        for fire_id, runner in candidates:
            with self.needs.store.write() as session:
                claimed = session.execute(
                    update(TriggerFireRow).where(TriggerFireRow.id == fire_id, TriggerFireRow.runner == runner,
                                                 TriggerFireRow.done.is_(False))
                    .values(runner=self.identity).execution_options(synchronize_session=False)
                ).rowcount  # type: ignore[attr-defined]
            if claimed:
                log.warning("finishing trigger fire %s left unfinished by %s", fire_id, runner)
                self.execute_fire(fire_id)
                recovered.append(fire_id)
        return recovered

    # -- workflow runs

    @staticmethod
    def _due_triggers(session: Session, scope: Scope, workflow: str, actions: RunActions) -> list[Trigger]:
        """The activated CONDITIONAL triggers of the workflow that have not fired in the run and now hold."""
        due = []
        for trigger_row in workflow_triggers(session, scope, workflow):
            trigger = to_trigger(trigger_row)
            if (trigger.type is TriggerType.CONDITIONAL and trigger.state is TriggerState.ACTIVATED
                    and trigger.name not in actions.fired and predicate_holds(trigger, actions)):
                due.append(trigger)
        return due

    def _needs_change(self, run_id: str) -> bool:
        """A read-only look: whether evaluating the run would fire a trigger or end the run."""
        with self.needs.store.read() as session:
            row = workflow_run_row(session, run_id)
            if row is None or row.status not in (WorkflowRunStatus.RUNNING.value, WorkflowRunStatus.STOPPING.value):
                return False
            workflow = session.get(WorkflowRow, row.workflow_id)
            if workflow is None:
                return False
            actions = load_actions(session, row)
            if not actions.active():
                return True
            return row.status == WorkflowRunStatus.RUNNING.value and bool(
                self._due_triggers(session, Scope(workflow.account_id, workflow.region), workflow.name, actions))

    def evaluate_run(self, run_id: str) -> WorkflowRunStatus | None:
        """Fire what a workflow run's state calls for, or end the run; its status afterwards.

        A read-only look decides first whether anything would change, so that watching a run that
        is busy running its jobs costs no write transaction.
        """
        if not self._needs_change(run_id):
            return self._run_status(run_id)
        new_fires: list[int] = []
        with self.needs.store.write() as session:
            row = session.scalars(select(WorkflowRunRow).where(WorkflowRunRow.run_id == run_id)
                                  .with_for_update()).one_or_none()
            if row is None:
                return None
            status = WorkflowRunStatus(row.status)
            if status not in (WorkflowRunStatus.RUNNING, WorkflowRunStatus.STOPPING):
                return status
            workflow = session.get(WorkflowRow, row.workflow_id)
            assert workflow is not None
            scope = Scope(workflow.account_id, workflow.region)
            actions = load_actions(session, row)
            if status is WorkflowRunStatus.RUNNING:
                for trigger in self._due_triggers(session, scope, workflow.name, actions):
                    try:
                        with session.begin_nested():
                            fire = add_fire(session, scope, trigger.name,
                                            fire_actions(trigger.actions, workflow.name, run_id), run_id,
                                            self.identity, row.access_key)
                    except IntegrityError:  # another server fired it in this run first
                        continue
                    log.info("workflow %s run %s: trigger %s fired", workflow.name, run_id, trigger.name)
                    new_fires.append(fire.id)
            if not new_fires and not actions.active():
                target = (WorkflowRunStatus.COMPLETED if status is WorkflowRunStatus.RUNNING
                          else WorkflowRunStatus.STOPPED)
                if move_run(session, run_id, status, target, completed_on=now()):
                    log.info("workflow %s run %s ended %s", workflow.name, run_id, target.value)
                    status = target
        for fire_id in new_fires:
            self.execute_fire(fire_id)
        return status

    def evaluate_active_runs(self) -> None:
        with self.needs.store.read() as session:
            run_ids = list(session.scalars(select(WorkflowRunRow.run_id).where(WorkflowRunRow.status.in_(
                [WorkflowRunStatus.RUNNING.value, WorkflowRunStatus.STOPPING.value]))))
        for run_id in run_ids:
            try:
                self.evaluate_run(run_id)
            except Exception:
                log.exception("evaluating workflow run %s failed", run_id)

    def stop_run(self, scope: Scope, name: str, run_id: str) -> None:
        """Mirror StopWorkflowRun: RUNNING -> STOPPING, its running job runs and crawls are stopped.

        Raises:
            EntityNotFoundException: no such workflow or run.
            IllegalWorkflowStateException: the run is not RUNNING.
        """
        with self.needs.store.write() as session:
            workflow = workflow_row(session, scope, name)
            row = workflow_run_row(session, run_id)
            if row is None or row.workflow_id != workflow.id:
                raise EntityNotFoundException(f"Workflow run {run_id} of workflow {name} not found")
            status = WorkflowRunStatus(row.status)
            if status is not WorkflowRunStatus.RUNNING or not move_run(session, run_id, status,
                                                                         WorkflowRunStatus.STOPPING):
                raise IllegalWorkflowStateException(f"Workflow run {run_id} is {row.status}; only a RUNNING "
                                                    "workflow run can be stopped")
            actions = load_actions(session, row)
        jobs = JobRunService(self.needs.store, scope)
        for run in actions.own_job_runs:
            if run.state in (JobRunState.STARTING, JobRunState.RUNNING, JobRunState.WAITING):
                _, _, drivers = jobs.request_stop(run.job_name, [run.run_id])
                self.needs.jobs.signal_stop(drivers)
        crawlers = CrawlerService(self.needs.store, scope)
        for crawl in actions.own_crawls:
            if crawl.state == "RUNNING":
                try:
                    crawlers.request_stop(crawl.crawler_name)
                    self.needs.crawls.signal_stop(scope, crawl.crawler_name)
                except (CrawlerNotRunningException, CrawlerStoppingException):
                    pass
        self.needs.action_ended()

    def resume_run(self, scope: Scope, access_key: str | None, name: str, run_id: str,
                   node_ids: list[str]) -> tuple[str, list[str]]:
        """Mirror ResumeWorkflowRun: a new run that restarts the given nodes and what follows them.

        The new run (``PreviousRunId`` = the resumed run) keeps the job runs and crawls of every node
        that is neither restarted nor downstream of a restarted node, and the fires of the triggers
        upstream; the restarted jobs get the arguments they ran with, with the new run's id.

        Raises:
            EntityNotFoundException: no such workflow or run.
            IllegalWorkflowStateException: the run is still running (or stopping).
            InvalidInputException: a node id that is not a job or crawler node of the workflow, or one
                without a run attempt in the resumed run.
            ConcurrentRunsExceededException: MaxConcurrentRuns runs are running.
        """
        with self.needs.store.write() as session:
            workflow = workflow_row(session, scope, name, for_update=True)
            old = workflow_run_row(session, run_id)
            if old is None or old.workflow_id != workflow.id:
                raise EntityNotFoundException(f"Workflow run {run_id} of workflow {name} not found")
            if old.status not in (WorkflowRunStatus.COMPLETED.value, WorkflowRunStatus.STOPPED.value):
                raise IllegalWorkflowStateException(f"Workflow run {run_id} is {old.status}; only a COMPLETED or "
                                                    "STOPPED workflow run can be resumed")
            triggers = [to_trigger(r) for r in workflow_triggers(session, scope, name)]
            graph = Graph.build(name, triggers)
            actions = load_actions(session, old)
            selected: list[str] = []
            for node_id in dict.fromkeys(node_ids):
                node = graph.nodes.get(node_id)
                if node is None or node.type == TRIGGER:
                    raise InvalidInputException(f"Node {node_id} is not a job or crawler node of workflow {name}")
                attempted = actions.job_runs.get(node.name) if node.type == JOB else actions.crawls.get(node.name)
                if not attempted:
                    raise InvalidInputException(f"Node {node_id} ({node.type} {node.name}) has no run attempt in "
                                                f"workflow run {run_id}")
                selected.append(node_id)
            limit = workflow.spec.get("MaxConcurrentRuns")
            if limit is not None and active_workflow_runs(session, workflow.id) >= int(limit):
                raise ConcurrentRunsExceededException(f"Concurrent runs exceeded for workflow: {name}")
            downstream = graph.downstream(set(selected))
            inherited: Spec = {"jobs": {}, "crawlers": {}, "triggers": []}
            for uid, node in graph.nodes.items():
                if uid in downstream:
                    continue
                if node.type == JOB and actions.job_runs.get(node.name):
                    inherited["jobs"][node.name] = [r.run_id for r in actions.job_runs[node.name]]
                elif node.type == CRAWLER and actions.crawls.get(node.name):
                    inherited["crawlers"][node.name] = [c.crawl_id for c in actions.crawls[node.name]]
                elif node.type == TRIGGER and node.name in actions.fired:
                    inherited["triggers"].append(node.name)
            new_id = new_workflow_run_id()
            session.add(WorkflowRunRow(workflow_id=workflow.id, run_id=new_id, previous_run_id=run_id,
                                       status=WorkflowRunStatus.RUNNING.value, started_on=now(),
                                       properties=dict(old.properties or {}), inherited=inherited,
                                       access_key=access_key))
            session.flush()
            restarts = self._restart_actions(session, graph, actions, selected, name, new_id)
            fire_ids = [add_fire(session, scope, trigger_name, fired, new_id, self.identity, access_key).id
                        for trigger_name, fired in restarts.items()]
        for fire_id in fire_ids:
            self.execute_fire(fire_id)
        return new_id, selected

    @staticmethod
    def _restart_actions(session: Session, graph: Graph, actions: RunActions, selected: list[str], workflow: str,
                         new_run_id: str) -> dict[str, list[Spec]]:
        """The actions that restart the selected nodes, grouped by the trigger that had started each."""
        restarts: dict[str, list[Spec]] = {}
        for uid in selected:
            node = graph.nodes[uid]
            fire_id: int | None
            if node.type == JOB:
                fire_id = actions.job_runs[node.name][-1].fire_id
                key = "JobName"
            else:
                fire_id = actions.crawls[node.name][-1].fire_id
                key = "CrawlerName"
            fire = session.get(TriggerFireRow, fire_id) if fire_id is not None else None
            action: Spec = {key: node.name}
            trigger_name = f"resume:{node.name}"
            if fire is not None:
                trigger_name = fire.trigger_name
                action = next((dict(a) for a in fire.actions if a.get(key) == node.name), action)
            restarts.setdefault(trigger_name, []).extend(fire_actions([action], workflow, new_run_id))
        return restarts

    # -- EVENT triggers

    def notify_event(self, scope: Scope, workflow_name: str, event_id: str | None, clock_now: float) -> Spec:
        """glueball's NotifyEvent: one event for the workflow's EVENT trigger (what EventBridge delivers).

        The event joins the trigger's batch; a batch of BatchSize events starts a workflow run at once
        (the scheduler starts it when BatchWindow seconds have passed since the batch's first event).

        Raises:
            EntityNotFoundException: no such workflow, or it has no EVENT trigger.
        """
        event_id = event_id or str(uuid.uuid4())
        with self.needs.store.write() as session:
            workflow = workflow_row(session, scope, workflow_name, for_update=True)
            trigger = next((r for r in workflow_triggers(session, scope, workflow_name)
                            if r.type == TriggerType.EVENT.value), None)
            if trigger is None:
                raise EntityNotFoundException(f"Workflow {workflow_name} has no EVENT trigger")
            if trigger.state != TriggerState.ACTIVATED.value:
                return {"EventId": event_id, "Accepted": False,
                        "Reason": f"trigger {trigger.name} is {trigger.state}, not ACTIVATED"}
            batch = dict(trigger.event_batch or {"first": clock_now, "ids": []})
            batch["ids"] = [*batch["ids"], event_id]
            size = int(trigger.spec.get("EventBatchingCondition", {}).get("BatchSize") or 1)
            response: Spec = {"EventId": event_id, "Accepted": True, "BatchCount": len(batch["ids"])}
            fire_id = None
            if len(batch["ids"]) >= size:
                try:
                    with session.begin_nested():
                        run_id, fire_id = open_run(
                            session, scope, workflow, {EVENT_IDS_PROPERTY: json.dumps(batch["ids"])},
                            self.identity, trigger.access_key, {"BatchSize": len(batch["ids"])})
                    response["RunId"] = run_id
                except ConcurrentRunsExceededException as err:
                    log.warning("EVENT trigger %s: batch of %d events dropped: %s", trigger.name,
                                len(batch["ids"]), err.message)
                    response["Dropped"] = err.message
                session.execute(update(TriggerRow).where(TriggerRow.id == trigger.id).values(
                    event_batch=None, version=trigger.version + 1).execution_options(synchronize_session=False))
            else:
                session.execute(update(TriggerRow).where(TriggerRow.id == trigger.id).values(
                    event_batch=batch, version=trigger.version + 1).execution_options(synchronize_session=False))
        if fire_id is not None:
            self.execute_fire(fire_id)
        return response
