"""Athena's engines: Spark drivers that run query executions one after another, supervised like every driver.

An engine is ``python -m glueball.athena.engine_driver ENGINE_ID`` on a warm driver when the pool has one of the
engine's shape — a default Glue job's, with Iceberg (``--datalake-formats iceberg``) when the installation has
Iceberg's jars; kept warm from a server's start once the installation has run an Athena query, so the first query
after a restart waits about a second, not a JVM's start — or started for itself. It asks the server for queries
(``Glueball.TakeQuery``), runs each as Spark SQL over the Data Catalog, writes the query's durable outcome record
and says so (``Glueball.FinishQuery``): a query is a statement on an already-running driver, never a process of its
own.

The runner keeps one engine while queries wait (``GLUEBALL_ATHENA_ENGINES`` more), watches it with the
supervisor every long-running thing shares (heartbeat, process group, the keeper's outcome record), and when
an engine ends settles the queries it was running from their records — or FAILED, saying how the engine
ended. At start-up (:func:`reconcile`) engines whose watcher is gone are claimed: one still alive is watched
again (its queries go on), one that ended has its queries settled. An engine idle for
``GLUEBALL_ATHENA_ENGINE_IDLE_SECONDS`` (600) ends by itself; the next query starts another.
"""

from __future__ import annotations

import logging
import os
import subprocess
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import select, update

from glueball.athena.queries import QueryService, queued_anywhere
from glueball.store.athena_tables import AthenaEngineRow
from glueball.store.claims import claim_runner
from glueball.store.engine import Store
from glueball.store.scoped import Scope
from glueball.supervise import outcome
from glueball.supervise.process import DriverProcess, host_name, process_start
from glueball.supervise.supervisor import (
    NEVER_STARTED_MESSAGE,
    Orphan,
    Supervisor,
    orphan_of,
    reconcile_orphans,
    watch_driver,
)
from glueball.supervise.warm import Shape, WarmPool

log = logging.getLogger("glueball.athena")

ENGINES_ENV = "GLUEBALL_ATHENA_ENGINES"
STARTING, READY, ENDED = "STARTING", "READY", "ENDED"
# (engine id, its folder) -> the shape of its driver and its environment
EnginePlan = Callable[[str, Path], tuple[Shape, dict[str, str]]]


def engine_folder(home: Path, engine_id: str) -> Path:
    return home / "athena" / "engines" / engine_id


class EngineRunner:
    """The engines this process launches and watches.

    Args:
        store: the store.
        home: ``GLUEBALL_HOME``.
        warm: the warm driver pool (an engine takes a ready driver of ``plan``'s shape).
        plan: the shape and environment of an engine driver (the composition root knows the server's endpoint and
            credentials).
    """

    def ever_started(self) -> bool:
        """Whether this installation has started an engine before: a server keeps a driver of the engine's shape
        warm from its start then (an installation that never ran an Athena query keeps none)."""
        with self.store.read() as db:
            return db.scalar(select(AthenaEngineRow.engine_id).limit(1)) is not None

    def __init__(self, store: Store, home: Path, warm: WarmPool, plan: EnginePlan) -> None:
        self.store = store
        self.home = home
        self.warm = warm
        self.plan = plan
        self.supervisor = Supervisor("athena engine", lambda ids: _beat(store, ids))
        self.identity = self.supervisor.identity
        self._lock = threading.Lock()
        self._closed = False

    def wanted(self) -> int:
        return max(1, int(os.environ.get(ENGINES_ENV) or 1))

    def queued(self) -> None:
        """A query waits: start an engine if no live one can take it (the engines this process watches are live
        without asking the store, which StartQueryExecution would otherwise read on every query)."""
        with self._lock:
            if self._closed or len(self.supervisor.active()) >= self.wanted() or self._live() >= self.wanted():
                return
            engine_id = f"eng-{uuid.uuid4().hex[:20]}"
            with self.store.write() as db:
                db.add(AthenaEngineRow(engine_id=engine_id, state=STARTING, created=time.time(),
                                       runner=self.identity, heartbeat=time.time(),
                                       log_dir=str(engine_folder(self.home, engine_id))))
            self.supervisor.track(engine_id)
        self.supervisor.thread(f"athena-{engine_id[:16]}", self._run, engine_id, None)

    def _live(self) -> int:
        with self.store.read() as db:
            return len(list(db.scalars(select(AthenaEngineRow.id).where(AthenaEngineRow.state != ENDED))))

    def adopt(self, engine_id: str, driver: DriverProcess) -> None:
        self.supervisor.track(engine_id)
        self.supervisor.thread(f"athena-{engine_id[:16]}", self._run, engine_id, driver)

    def close(self) -> None:
        with self._lock:
            self._closed = True
        self.supervisor.close()

    def _run(self, engine_id: str, adopted: DriverProcess | None) -> None:
        folder = engine_folder(self.home, engine_id)
        message = "internal error of glueball"
        try:
            message = self._watch(engine_id, folder, adopted)
        except Exception:
            log.exception("athena engine %s could not be run or recorded", engine_id)
        finally:
            settle_engine(self.store, self.home, engine_id, message)
            self.supervisor.untrack(engine_id)
        if not self._closed and queued_anywhere(self.store):
            self.queued()  # queries still wait: another engine takes them

    def _watch(self, engine_id: str, folder: Path, adopted: DriverProcess | None) -> str:
        proc: subprocess.Popen[bytes] | None = None
        if adopted is None:
            folder.mkdir(parents=True, exist_ok=True)
            try:
                shape, env = self.plan(engine_id, folder)
            except Exception as exc:  # noqa: BLE001 - an engine that cannot start says why (its queries wait)
                log.warning("athena engine %s cannot start: %s", engine_id, exc)
                return f"the engine could not start: {exc}"
            argv = ["-m", "glueball.athena.engine_driver", engine_id]
            logs = (folder, folder / "output.log", folder / "error.log")
            driver = self.warm.take(shape)
            proc = self.warm.assign(driver, argv, env, *logs) if driver is not None else \
                self.warm.start_now(shape, argv, env, *logs)
            with self.store.write() as db:
                db.execute(update(AthenaEngineRow).where(AthenaEngineRow.engine_id == engine_id).values(
                    driver_host=host_name(), driver_pid=proc.pid, driver_start=process_start(proc.pid),
                    heartbeat=time.time()))
            pid = proc.pid
        else:
            assert adopted.pid is not None
            pid = adopted.pid
        stop = self.supervisor.track(engine_id)
        ending = watch_driver(pid, proc, adopted, float("inf"), stop, lambda: False)
        end = outcome.ended(folder, ending.code, pid)
        if end.reported_success:
            return end.message or "the engine ended"
        _, why = outcome.verdict(end, folder / "error.log", "The engine")
        return why or "the engine ended"


def settle_engine(store: Store, home: Path, engine_id: str, message: str) -> None:
    """An engine ended: its running queries settle from their records (FAILED with ``message`` without one)."""
    service = QueryService(store, Scope("", ""), home)
    for query_id in service.running_on(engine_id):
        service.settle(query_id, message)
    with store.write() as db:
        db.execute(update(AthenaEngineRow).where(AthenaEngineRow.engine_id == engine_id,
                                                 AthenaEngineRow.state != ENDED).values(
            state=ENDED, ended=time.time(), message=message))


def engine_ready(store: Store, engine_id: str) -> bool:
    """The engine asks for work: STARTING becomes READY. False when it has ended (it should stop). A read, and a
    write only the first time: an engine asks twice per query (the query, then its watch)."""
    with store.read() as db:
        state = db.scalar(select(AthenaEngineRow.state).where(AthenaEngineRow.engine_id == engine_id))
    if state == STARTING:
        with store.write() as db:
            db.execute(update(AthenaEngineRow).where(AthenaEngineRow.engine_id == engine_id,
                                                     AthenaEngineRow.state == STARTING).values(state=READY))
    return state is not None and state != ENDED


def _beat(store: Store, engine_ids: list[str]) -> None:
    if engine_ids:
        with store.write() as db:
            db.execute(update(AthenaEngineRow).where(AthenaEngineRow.engine_id.in_(engine_ids)).values(
                heartbeat=time.time()))


def reconcile(store: Store, runner: EngineRunner) -> list[str]:
    """Take over the engines whose watching process is gone: watch a live one again, settle one that ended."""
    with store.read() as db:
        rows = list(db.scalars(select(AthenaEngineRow).where(AthenaEngineRow.state != ENDED)))
    orphans = [orphan_of(row.engine_id, row, row.log_dir, row) for row in rows]

    def claim(orphan: Orphan[Any]) -> bool:
        return claim_runner(store, AthenaEngineRow.id, orphan.item.id, orphan.runner, runner.identity)

    def adopt(orphan: Orphan[Any]) -> None:
        assert orphan.driver is not None
        runner.adopt(orphan.run_id, orphan.driver)

    def settle(orphan: Orphan[Any]) -> bool:
        settle_engine(store, runner.home, orphan.run_id, NEVER_STARTED_MESSAGE)
        return True

    taken = reconcile_orphans(orphans, claim, adopt, settle, "athena engine")
    if queued_anywhere(store):
        runner.queued()
    return taken
