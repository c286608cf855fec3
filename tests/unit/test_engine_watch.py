"""An Athena engine's watch of the query it runs (glueball.athena.engine_driver.Engine._watch): a query that ends
within WATCH_AFTER_SECONDS is never asked about; a longer one is, and a stop the server answers cancels its jobs."""

from __future__ import annotations

import threading
import time
from typing import Any

from glueball.athena.engine_driver import WATCH_AFTER_SECONDS, Engine


class Server:
    """TakeQuery's watch as the server answers it: held until the query is stopped (then Cancel) or for a while."""

    def __init__(self) -> None:
        self.asked = 0
        self.stopped = threading.Event()

    def take_query(self, EngineId: str, RunningId: str, WaitSeconds: float) -> dict[str, Any]:  # noqa: N803
        self.asked += 1
        return {"Cancel": self.stopped.wait(min(WaitSeconds, 0.2))}


class Spark:
    def __init__(self) -> None:
        self.cancelled: list[str] = []
        self.sparkContext = self

    def cancelJobGroup(self, group: str) -> None:  # noqa: N802 - PySpark's name
        self.cancelled.append(group)


def _watching(server: Server, spark: Spark) -> tuple[threading.Thread, threading.Event, threading.Event]:
    cancelled, done = threading.Event(), threading.Event()
    watch = threading.Thread(target=Engine("eng-1", server, spark)._watch, args=("q-1", cancelled, done))
    watch.start()
    return watch, cancelled, done


def test_a_query_that_ends_at_once_is_never_asked_about() -> None:
    server, spark = Server(), Spark()
    watch, _, done = _watching(server, spark)
    done.set()
    watch.join(5)
    assert server.asked == 0 and not spark.cancelled


def test_a_longer_query_is_watched_and_its_stop_cancels_its_jobs() -> None:
    server, spark = Server(), Spark()
    watch, cancelled, done = _watching(server, spark)
    time.sleep(WATCH_AFTER_SECONDS + 0.1)
    assert server.asked >= 1 and not spark.cancelled
    server.stopped.set()
    assert cancelled.wait(5)
    deadline = time.monotonic() + 5
    while not spark.cancelled and time.monotonic() < deadline:
        time.sleep(0.01)
    done.set()
    watch.join(5)
    assert spark.cancelled and set(spark.cancelled) == {"athena-q-1"}


def test_an_installation_that_ran_athena_keeps_its_engines_shape_warm_from_the_start(tmp_path: Any) -> None:
    from glueball.athena.engines import EngineRunner
    from glueball.store.athena_tables import AthenaEngineRow
    from glueball.store.engine import Store

    store = Store(f"sqlite:///{tmp_path / 'glueball.db'}")
    runner = EngineRunner(store, tmp_path, None, lambda engine_id, folder: ((), {}))  # type: ignore[arg-type]
    assert not runner.ever_started()
    with store.write() as db:
        db.add(AthenaEngineRow(engine_id="eng-1", state="ENDED", created=0.0))
    assert runner.ever_started()
