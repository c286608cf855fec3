"""A session driver's long poll (SessionService.take) without a server: a statement submitted or a cancel in this
process, or the session's end, wakes it at once, even when it comes while the poll reads the store."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from glueball.sessions import service as sessions
from glueball.sessions.models import SessionState, StatementState
from glueball.sessions.service import SessionService
from glueball.store.engine import Store
from glueball.store.scoped import Scope

SCOPE = Scope("123456789012", "us-east-1")


@pytest.fixture()
def service(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SessionService:
    monkeypatch.setattr(sessions, "_TAKE_POLL_SECONDS", 30.0)  # a wake can only come from this process's note
    found = SessionService(Store(f"sqlite:///{tmp_path / 'glueball.db'}"), SCOPE)
    found.create({"Id": "s1", "Command": {"Name": "glueetl"}, "Role": "r"}, None)
    assert found.ready("s1")
    return found


def _take_in_thread(service: SessionService, wait: float) -> tuple[threading.Thread, list[Any]]:
    answered: list[Any] = []

    def take() -> None:
        begun = time.monotonic()
        answered.append((*service.take("s1", wait), time.monotonic() - begun))

    taker = threading.Thread(target=take)
    taker.start()
    return taker, answered


def test_a_statement_submitted_during_the_takes_read_is_taken_at_once(service: SessionService,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The statement is written after the take's read found nothing and before it waits: the note of it must not be
    lost (a wait on a bare condition misses it and sleeps until its next look)."""
    reads = 0
    real_row = SessionService._row

    def row_then_submit(self: SessionService, db: Any, session_id: str) -> Any:
        nonlocal reads
        found = real_row(self, db, session_id)
        reads += 1
        if reads == 1:  # the take's first look: a statement arrives from another thread meanwhile
            submitter = threading.Thread(target=lambda: service.run_statement("s1", "1 + 1"))
            submitter.start()
            submitter.join()
        return found

    monkeypatch.setattr(SessionService, "_row", row_then_submit)
    taker, answered = _take_in_thread(service, 20.0)
    taker.join(25)
    statement, ended, took = answered[0]
    assert statement is not None and statement.state is StatementState.RUNNING and not ended
    assert took < 5, f"the take waited {took:.1f} s for a statement that had arrived"


def test_the_sessions_end_wakes_a_waiting_take(service: SessionService) -> None:
    taker, answered = _take_in_thread(service, 20.0)
    time.sleep(0.3)  # the take is waiting
    service.stop("s1")  # STOPPING: the driver is still asked for statements until its watcher settles it
    assert service.settle("s1", (SessionState.STOPPING,), SessionState.STOPPED)
    taker.join(25)
    statement, ended, took = answered[0]
    assert statement is None and ended
    assert took < 5


def test_a_take_with_nothing_to_take_ends_at_its_wait(service: SessionService) -> None:
    taker, answered = _take_in_thread(service, 0.5)
    taker.join(25)
    statement, ended, took = answered[0]
    assert statement is None and not ended
    assert 0.4 < took < 5
