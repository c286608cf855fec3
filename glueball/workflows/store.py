"""Rows and queries of triggers, workflows, workflow runs and trigger fires.

Changes the scheduler races on are compare-and-swap: a trigger's ``version``
(its next fire time, its event batch, its watermark) and a workflow run's
``status``. Zero rows updated means another thread, process or server got there
first, so two servers sharing a store never both fire the same schedule.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from glueball.errors import EntityNotFoundException
from glueball.store.schema import TriggerFireRow, TriggerRow, WorkflowRow, WorkflowRunRow
from glueball.store.scoped import Scope, find_scoped, scoped_query
from glueball.workflows.models import (
    Trigger,
    TriggerState,
    TriggerType,
    Workflow,
    WorkflowRun,
    WorkflowRunStatus,
    can_transition,
)


def trigger_query(scope: Scope) -> Any:
    return scoped_query(TriggerRow, scope)


def find_trigger_row(session: Session, scope: Scope, name: str, for_update: bool = False) -> TriggerRow | None:
    return find_scoped(session, TriggerRow, scope, name, for_update)


def trigger_row(session: Session, scope: Scope, name: str, for_update: bool = False) -> TriggerRow:
    """The trigger called ``name``.

    Raises:
        EntityNotFoundException: there is none.
    """
    row = find_trigger_row(session, scope, name, for_update)
    if row is None:
        raise EntityNotFoundException(f"Trigger with name {name} not found")
    return row


def trigger_exists(session: Session, scope: Scope, name: str) -> bool:
    return find_trigger_row(session, scope, name) is not None


def workflow_triggers(session: Session, scope: Scope, workflow_name: str) -> list[TriggerRow]:
    query = trigger_query(scope).where(TriggerRow.workflow_name == workflow_name).order_by(TriggerRow.name)
    return list(session.scalars(query))


def to_trigger(row: TriggerRow) -> Trigger:
    return Trigger(name=row.name, trigger_id=row.trigger_id, type=TriggerType(row.type),
                   state=TriggerState(row.state), spec=dict(row.spec), workflow_name=row.workflow_name,
                   next_fire=row.next_fire, access_key=row.access_key)


def bump_trigger(session: Session, row_id: int, version: int, **values: Any) -> bool:
    """Compare-and-swap on a trigger's version: True when this writer won."""
    result = session.execute(
        update(TriggerRow).where(TriggerRow.id == row_id, TriggerRow.version == version)
        .values(version=version + 1, **values).execution_options(synchronize_session=False))
    return bool(result.rowcount)  # type: ignore[attr-defined]


def workflow_query(scope: Scope) -> Any:
    return scoped_query(WorkflowRow, scope)


def find_workflow_row(session: Session, scope: Scope, name: str, for_update: bool = False) -> WorkflowRow | None:
    return find_scoped(session, WorkflowRow, scope, name, for_update)


def workflow_row(session: Session, scope: Scope, name: str, for_update: bool = False) -> WorkflowRow:
    """The workflow called ``name``.

    Raises:
        EntityNotFoundException: there is none.
    """
    row = find_workflow_row(session, scope, name, for_update)
    if row is None:
        raise EntityNotFoundException(f"Workflow with name {name} not found")
    return row


def workflow_exists(session: Session, scope: Scope, name: str) -> bool:
    return find_workflow_row(session, scope, name) is not None


def to_workflow(row: WorkflowRow) -> Workflow:
    return Workflow(name=row.name, spec=dict(row.spec), create_time=row.create_time, update_time=row.update_time)


def to_workflow_run(row: WorkflowRunRow, workflow_name: str) -> WorkflowRun:
    return WorkflowRun(workflow_name=workflow_name, run_id=row.run_id, status=WorkflowRunStatus(row.status),
                       started_on=row.started_on, properties=dict(row.properties or {}),
                       previous_run_id=row.previous_run_id, completed_on=row.completed_on,
                       error_message=row.error_message, starting_batch=row.starting_batch,
                       inherited=dict(row.inherited or {}), access_key=row.access_key)


def workflow_run_row(session: Session, run_id: str) -> WorkflowRunRow | None:
    row: WorkflowRunRow | None = session.scalars(
        select(WorkflowRunRow).where(WorkflowRunRow.run_id == run_id)).one_or_none()
    return row


def active_workflow_runs(session: Session, workflow_id: int) -> int:
    query = select(WorkflowRunRow.id).where(
        WorkflowRunRow.workflow_id == workflow_id,
        WorkflowRunRow.status.in_([WorkflowRunStatus.RUNNING.value, WorkflowRunStatus.STOPPING.value]))
    return len(list(session.scalars(query)))


def move_run(session: Session, run_id: str, expected: WorkflowRunStatus, target: WorkflowRunStatus,
             **values: Any) -> bool:
    """Compare-and-swap a workflow run's status along the transition table: True when this writer won.

    Raises:
        ValueError: the state machine has no such transition (a bug of ours).
    """
    if not can_transition(expected, target):
        raise ValueError(f"workflow run {run_id}: no transition {expected.value} -> {target.value}")
    result = session.execute(
        update(WorkflowRunRow).where(WorkflowRunRow.run_id == run_id, WorkflowRunRow.status == expected.value)
        .values(status=target.value, **values).execution_options(synchronize_session=False))
    return bool(result.rowcount)  # type: ignore[attr-defined]


def run_fires(session: Session, run_id: str) -> list[TriggerFireRow]:
    query = select(TriggerFireRow).where(TriggerFireRow.workflow_run_id == run_id).order_by(TriggerFireRow.id)
    return list(session.scalars(query))
