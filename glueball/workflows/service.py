"""Workflows and their runs: CreateWorkflow ... DeleteWorkflow, GetWorkflowRun(s), run properties.

Starting, stopping and resuming runs belong to :mod:`glueball.workflows.orchestrator`; this module keeps
the definitions and answers the read operations.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from glueball.api.pagination import decode_token, encode_token
from glueball.clock import now
from glueball.errors import AlreadyExistsException, EntityNotFoundException, InvalidInputException
from glueball.store.engine import Store
from glueball.store.schema import TriggerFireRow, WorkflowRow, WorkflowRunRow
from glueball.store.scoped import Scope
from glueball.tagging.service import delete_tags, list_tagged_names, register_resource_type, write_tags
from glueball.workflows.graph import Graph
from glueball.workflows.models import Spec, Trigger, Workflow, WorkflowRun
from glueball.workflows.orchestrator import RunActions, load_actions
from glueball.workflows.store import (
    find_workflow_row,
    to_trigger,
    to_workflow,
    to_workflow_run,
    workflow_exists,
    workflow_row,
    workflow_run_row,
    workflow_triggers,
)

register_resource_type("workflow", workflow_exists)

_MEMBERS = ("Description", "DefaultRunProperties", "MaxConcurrentRuns")


def workflow_spec(request: Spec, base: Spec | None = None) -> Spec:
    """The stored members of CreateWorkflow / UpdateWorkflow (members not given keep their value).

    Raises:
        InvalidInputException: MaxConcurrentRuns below 1.
    """
    spec = dict(base or {})
    for member in _MEMBERS:
        if request.get(member) is not None:
            spec[member] = request[member]
    limit = spec.get("MaxConcurrentRuns")
    if limit is not None and int(limit) < 1:
        raise InvalidInputException(f"MaxConcurrentRuns must be at least 1, got {limit}")
    return spec


@dataclass
class RunView:
    """A workflow run with what it started, as GetWorkflowRun shows it."""

    run: WorkflowRun
    actions: RunActions
    graph: Graph


class WorkflowService:
    """Workflows of one account and region, and the read side of their runs."""

    def __init__(self, store: Store, scope: Scope) -> None:
        self.store = store
        self.scope = scope

    def arn(self, name: str) -> str:
        return self.scope.arn(f"workflow/{name}")

    def create(self, name: str, spec: Spec, tags: dict[str, str] | None) -> None:
        """Mirror CreateWorkflow.

        Raises:
            AlreadyExistsException: a workflow of this name exists.
        """
        stamp = now()
        try:
            with self.store.write() as session:
                session.add(WorkflowRow(account_id=self.scope.account_id, region=self.scope.region, name=name,
                                        spec=spec, create_time=stamp, update_time=stamp))
                session.flush()
                write_tags(session, self.arn(name), tags)
        except IntegrityError as exc:
            raise AlreadyExistsException(f"Workflow with name {name} already exists") from exc

    def get(self, name: str) -> tuple[Workflow, list[Trigger], RunView | None]:
        """Mirror GetWorkflow: the workflow, its triggers and its latest run (LastRun).

        Raises:
            EntityNotFoundException: no workflow of this name.
        """
        with self.store.read() as session:
            row = workflow_row(session, self.scope, name)
            return self._describe(session, row)

    def _describe(self, session: Session, row: WorkflowRow) -> tuple[Workflow, list[Trigger], RunView | None]:
        triggers = [to_trigger(t) for t in workflow_triggers(session, self.scope, row.name)]
        last = session.scalars(select(WorkflowRunRow).where(WorkflowRunRow.workflow_id == row.id)
                               .order_by(WorkflowRunRow.started_on.desc(), WorkflowRunRow.id.desc())).first()
        view = None
        if last is not None:
            view = RunView(to_workflow_run(last, row.name), load_actions(session, last),
                           Graph.build(row.name, triggers))
        return to_workflow(row), triggers, view

    def get_many(self, names: list[str]) -> tuple[list[tuple[Workflow, list[Trigger], RunView | None]], list[str]]:
        """Mirror BatchGetWorkflows: the workflows found, and the names missing."""
        found, missing = [], []
        with self.store.read() as session:
            for name in dict.fromkeys(names):
                row = find_workflow_row(session, self.scope, name)
                if row is None:
                    missing.append(name)
                else:
                    found.append(self._describe(session, row))
        return found, missing

    def names(self, max_results: int, token: str | None) -> tuple[list[str], str | None]:
        """Mirror ListWorkflows: names in order, a page at a time."""
        return list_tagged_names(self.store, WorkflowRow, self.scope, self.arn, max_results, token, None)

    def update(self, name: str, request: Spec) -> None:
        """Mirror UpdateWorkflow: the members given replace the workflow's.

        Raises:
            EntityNotFoundException: no workflow of this name.
            InvalidInputException: MaxConcurrentRuns below 1.
        """
        with self.store.write() as session:
            row = workflow_row(session, self.scope, name, for_update=True)
            row.spec = workflow_spec(request, row.spec)
            row.update_time = now()

    def delete(self, name: str) -> None:
        """Mirror DeleteWorkflow: the workflow, its triggers and run history go (a missing one is no error).

        Jobs and crawlers stay; actions still running finish outside any workflow run.
        """
        with self.store.write() as session:
            row = find_workflow_row(session, self.scope, name, for_update=True)
            if row is None:
                return
            for trigger in workflow_triggers(session, self.scope, name):
                delete_tags(session, self.scope.arn(f"trigger/{trigger.name}"))
                session.delete(trigger)
            run_ids = list(session.scalars(select(WorkflowRunRow.run_id).where(WorkflowRunRow.workflow_id == row.id)))
            if run_ids:
                session.execute(delete(TriggerFireRow).where(TriggerFireRow.workflow_run_id.in_(run_ids)))
                session.execute(delete(WorkflowRunRow).where(WorkflowRunRow.workflow_id == row.id))
            delete_tags(session, self.arn(name))
            session.delete(row)

    # -- runs

    def run(self, name: str, run_id: str) -> RunView:
        """Mirror GetWorkflowRun.

        Raises:
            EntityNotFoundException: no such workflow, or no such run of it.
        """
        with self.store.read() as session:
            row = workflow_row(session, self.scope, name)
            run = workflow_run_row(session, run_id)
            if run is None or run.workflow_id != row.id:
                raise EntityNotFoundException(f"Workflow run {run_id} of workflow {name} not found")
            triggers = [to_trigger(t) for t in workflow_triggers(session, self.scope, name)]
            return RunView(to_workflow_run(run, name), load_actions(session, run), Graph.build(name, triggers))

    def runs(self, name: str, max_results: int, token: str | None) -> tuple[list[RunView], str | None]:
        """Mirror GetWorkflowRuns: the runs, newest first, a page at a time."""
        offset = decode_token(token, int) or 0
        with self.store.read() as session:
            row = workflow_row(session, self.scope, name)
            rows = list(session.scalars(select(WorkflowRunRow).where(WorkflowRunRow.workflow_id == row.id)
                                        .order_by(WorkflowRunRow.started_on.desc(), WorkflowRunRow.id.desc())
                                        .offset(offset).limit(max_results + 1)))
            graph = Graph.build(name, [to_trigger(t) for t in workflow_triggers(session, self.scope, name)])
            views = [RunView(to_workflow_run(r, name), load_actions(session, r), graph) for r in rows[:max_results]]
        return views, encode_token(offset + max_results) if len(rows) > max_results else None

    def properties(self, name: str, run_id: str) -> dict[str, str]:
        """Mirror GetWorkflowRunProperties."""
        return self.run(name, run_id).run.properties

    def put_properties(self, name: str, run_id: str, properties: dict[str, str]) -> None:
        """Mirror PutWorkflowRunProperties: the given properties are added or overwrite existing ones.

        Raises:
            EntityNotFoundException: no such workflow, or no such run of it.
        """
        with self.store.write() as session:
            row = workflow_row(session, self.scope, name)
            run = session.scalars(select(WorkflowRunRow).where(WorkflowRunRow.run_id == run_id)
                                  .with_for_update()).one_or_none()
            if run is None or run.workflow_id != row.id:
                raise EntityNotFoundException(f"Workflow run {run_id} of workflow {name} not found")
            run.properties = {**(run.properties or {}), **properties}
