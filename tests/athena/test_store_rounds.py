"""What a query's requests ask of the store without a server: the primary workgroup and an engine's state are read,
and written only when they change (StartQueryExecution and TakeQuery ask on every query); a query queued beside an
engine this process watches asks nothing."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

import pytest
from sqlalchemy import select

from glueball.athena.engines import ENDED, READY, STARTING, EngineRunner, engine_ready
from glueball.athena.errors import InvalidRequestException
from glueball.athena.workgroups import PRIMARY, Resources
from glueball.store.athena_tables import AthenaEngineRow, AthenaWorkGroupRow
from glueball.store.engine import Store
from glueball.store.scoped import Scope

SCOPE = Scope("123456789012", "us-east-1")


@pytest.fixture()
def store(tmp_path: Path) -> Store:
    return Store(f"sqlite:///{tmp_path / 'glueball.db'}")


@contextmanager
def no_writes(store: Store, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    def refused() -> Any:
        raise AssertionError("a write transaction where a read answers")

    with monkeypatch.context() as patch:
        patch.setattr(store, "write", refused)
        yield


def test_primary_workgroup_made_once_then_read(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    resources = Resources(store, SCOPE)
    made = resources.workgroup(None)
    assert made.name == PRIMARY
    with no_writes(store, monkeypatch):
        assert resources.workgroup(None).name == PRIMARY
        assert resources.workgroup(PRIMARY).name == PRIMARY
        with pytest.raises(InvalidRequestException, match="WorkGroup nightly is not found"):
            resources.workgroup("nightly")
    with store.read() as db:
        assert len(list(db.scalars(select(AthenaWorkGroupRow.id)))) == 1
    assert Resources(store, Scope("210987654321", "us-east-1")).workgroup(None).name == PRIMARY  # each account's


def test_engine_ready_writes_only_from_starting(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    with store.write() as db:
        db.add(AthenaEngineRow(engine_id="eng-1", state=STARTING, created=time.time()))
    assert engine_ready(store, "eng-1")

    def state() -> str:
        with store.read() as db:
            found: str = db.scalar(select(AthenaEngineRow.state).where(AthenaEngineRow.engine_id == "eng-1"))
            return found

    assert state() == READY
    with no_writes(store, monkeypatch):
        assert engine_ready(store, "eng-1")
        assert not engine_ready(store, "eng-unknown")
    with store.write() as db:
        db.get_one(AthenaEngineRow, 1).state = ENDED
    with no_writes(store, monkeypatch):
        assert not engine_ready(store, "eng-1")
    assert state() == ENDED


def test_a_query_queued_beside_an_engine_this_process_watches_reads_nothing(store: Store, tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    runner = EngineRunner(store, tmp_path, cast(Any, None), cast(Any, None))
    try:
        runner.supervisor.track("eng-watched")
        with monkeypatch.context() as patch:
            patch.setattr(store, "read", lambda: (_ for _ in ()).throw(AssertionError("a store read")))
            patch.setattr(store, "write", lambda: (_ for _ in ()).throw(AssertionError("a store write")))
            runner.queued()  # the watched engine takes it: no read, no second engine
        runner.supervisor.untrack("eng-watched")
        with store.write() as db:  # one engine of another server process, live: that one takes it
            db.add(AthenaEngineRow(engine_id="eng-elsewhere", state=READY, created=time.time()))
        with monkeypatch.context() as patch:
            patch.setattr(store, "write", lambda: (_ for _ in ()).throw(AssertionError("a store write")))
            runner.queued()
        with store.read() as db:
            assert list(db.scalars(select(AthenaEngineRow.engine_id))) == ["eng-elsewhere"]
    finally:
        runner.close()
