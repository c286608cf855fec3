"""Task runs of the smaller areas (blueprint runs, column statistics task runs) in ``glue_task_run``.

A run's ``state`` changes only by compare-and-swap (:func:`swap_state`): of two processes acting on
one run, one wins and the other sees zero rows. ``runner``/``heartbeat`` say which process watches
it (:mod:`glueball.supervise`), so a restarted server settles what a stopped one left.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from glueball.errors import EntityNotFoundException
from glueball.store.claims import claim_runner
from glueball.store.engine import Store
from glueball.store.resource_tables import TaskRunRow
from glueball.store.scoped import Scope


def scoped_runs(scope: Scope, kind: str) -> Any:
    """``SELECT`` the task runs of ``kind`` in ``scope``."""
    return select(TaskRunRow).where(TaskRunRow.account_id == scope.account_id, TaskRunRow.region == scope.region,
                                    TaskRunRow.kind == kind)


def find_run(session: Session, scope: Scope, kind: str, run_id: str) -> TaskRunRow | None:
    row: TaskRunRow | None = session.scalars(scoped_runs(scope, kind).where(TaskRunRow.run_id == run_id)).one_or_none()
    return row


def run_row(session: Session, scope: Scope, kind: str, run_id: str, message: str) -> TaskRunRow:
    """The run ``run_id``.

    Raises:
        EntityNotFoundException: with ``message``, when there is none.
    """
    row = find_run(session, scope, kind, run_id)
    if row is None:
        raise EntityNotFoundException(message)
    return row


def row_by_id(session: Session, row_id: int) -> TaskRunRow | None:
    return session.get(TaskRunRow, row_id)


def swap_state(session: Session, row_id: int, expected: Iterable[str], state: str, **values: Any) -> bool:
    """Move the run (by row id) from one of the ``expected`` states to ``state`` with ``values``; False when it
    was in none of them (another process moved it first)."""
    moved = session.execute(update(TaskRunRow).where(TaskRunRow.id == row_id, TaskRunRow.state.in_(list(expected)))
                            .values(state=state, **values).execution_options(synchronize_session=False))
    return bool(moved.rowcount == 1)  # type: ignore[attr-defined]


def set_values(store: Store, row_id: int, **values: Any) -> None:
    """Record ``values`` on the run (whatever its state)."""
    with store.write() as session:
        session.execute(update(TaskRunRow).where(TaskRunRow.id == row_id).values(**values)
                        .execution_options(synchronize_session=False))


def beat(store: Store, row_ids: list[str]) -> None:
    """Refresh the heartbeat of the runs (by row id, as text) this process watches."""
    ids = [int(i) for i in row_ids]
    if ids:
        with store.write() as session:
            session.execute(update(TaskRunRow).where(TaskRunRow.id.in_(ids)).values(heartbeat=time.time())
                            .execution_options(synchronize_session=False))


def unended_runs(store: Store, kind: str, states: Iterable[str]) -> list[TaskRunRow]:
    """Every run of ``kind`` (all scopes) in one of ``states``."""
    with store.read() as session:
        return list(session.scalars(select(TaskRunRow).where(TaskRunRow.kind == kind,
                                                             TaskRunRow.state.in_(list(states)))))


def claim(store: Store, row_id: int, runner: str | None, identity: str) -> bool:
    """Make ``identity`` the watcher of the run, if ``runner`` still is (compare-and-swap)."""
    return claim_runner(store, TaskRunRow.id, row_id, runner, identity)
