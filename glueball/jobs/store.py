"""Rows and queries of jobs and job runs.

Run state changes are compare-and-swap: ``UPDATE ... WHERE run_id = :id AND
state = :expected``; zero rows means another thread, process or server moved
the run first, so a stop and a natural end can never both be recorded.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from glueball.errors import EntityNotFoundException
from glueball.jobs.models import ACTIVE_STATES, Job, JobRun, JobRunState, RunMetrics, can_transition
from glueball.store.schema import JobRow, JobRunRow
from glueball.store.scoped import Scope, find_scoped, scoped_query


def job_query(scope: Scope) -> Any:
    return scoped_query(JobRow, scope)


def find_job_row(session: Session, scope: Scope, name: str, for_update: bool = False) -> JobRow | None:
    return find_scoped(session, JobRow, scope, name, for_update)


def job_row(session: Session, scope: Scope, name: str, for_update: bool = False) -> JobRow:
    """The job called ``name``.

    Raises:
        EntityNotFoundException: there is none.
    """
    row = find_job_row(session, scope, name, for_update)
    if row is None:
        raise EntityNotFoundException("Job not found.")  # AWS's text (aws glue get-job of a missing job)
    return row


def job_exists(session: Session, scope: Scope, name: str) -> bool:
    return find_job_row(session, scope, name) is not None


def to_job(row: JobRow) -> Job:
    return Job(name=row.name, job_id=row.job_id, spec=dict(row.spec), create_time=row.create_time,
               update_time=row.update_time)


def to_run(row: JobRunRow, job_name: str) -> JobRun:
    return JobRun(
        run_id=row.run_id,
        job_name=job_name,
        attempt=row.attempt,
        state=JobRunState(row.state),
        started_on=row.started_on,
        last_modified_on=row.last_modified_on,
        arguments=dict(row.arguments or {}),
        spec=dict(row.spec),
        previous_run_id=row.previous_run_id,
        trigger_name=row.trigger_name,
        completed_on=row.completed_on,
        error_message=row.error_message,
        execution_time=row.execution_time or 0,
        dpu_seconds=row.dpu_seconds,
        metrics=RunMetrics.from_json(row.metrics),
        streaming=row.streaming,
        log_dir=row.log_dir,
        driver_pid=row.driver_pid,
        workflow_run_id=row.workflow_run_id,
        fire_id=row.fire_id,
    )


def run_row(session: Session, run_id: str) -> JobRunRow | None:
    row: JobRunRow | None = session.scalars(select(JobRunRow).where(JobRunRow.run_id == run_id)).one_or_none()
    return row


def active_run_count(session: Session, job_id: int) -> int:
    query = select(func.count()).select_from(JobRunRow).where(
        JobRunRow.job_id == job_id, JobRunRow.state.in_([s.value for s in ACTIVE_STATES]))
    return int(session.scalar(query) or 0)


def active_runs(session: Session) -> list[JobRunRow]:
    return list(session.scalars(select(JobRunRow).where(JobRunRow.state.in_([s.value for s in ACTIVE_STATES]))))


def compare_and_swap(session: Session, run_id: str, expected: JobRunState, target: JobRunState,
                     **values: Any) -> bool:
    """Move a run from ``expected`` to ``target`` if it is still in ``expected``; True if it moved.

    Raises:
        ValueError: the transition is not in the run state machine (a bug, never a client error).
    """
    if not can_transition(expected, target):
        raise ValueError(f"job run state {expected} cannot become {target}")
    statement = (
        update(JobRunRow)
        .where(JobRunRow.run_id == run_id, JobRunRow.state == expected.value)
        .values(state=target.value, **values)
        .execution_options(synchronize_session=False)
    )
    moved: int = session.execute(statement).rowcount  # type: ignore[attr-defined]
    return moved == 1
