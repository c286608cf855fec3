"""The runs a process watches: stop events, one heartbeat, the watch loop, and reconciliation.

A :class:`Supervisor` belongs to one kind of run (job runs, data quality runs, crawls) of one
process. It tracks each run it watches with a stop event, and while it tracks any, one daemon
thread calls the kind's ``beat(run_ids)`` every ``HEARTBEAT_SECONDS`` so other processes leave
those runs alone. The kind's state table stays the kind's: the supervisor only calls back.

:func:`watch_driver` is the loop every driver process is watched by: until the driver exits it
polls the kind's stored state (a STOPPING run, set by any server, stops it) and the run's
deadline; a stop or a timeout sends the process group SIGTERM, then SIGKILL after a grace period;
at the end whatever the driver left in its group is killed.

:func:`reconcile_orphans` settles, at start-up, the runs whose watching process is gone: each is
claimed by compare-and-swap (so of two starting servers one takes it), then watched again - to its
end when its driver still lives on this host, at once from the driver's outcome record when it ended
meanwhile (:mod:`glueball.supervise.outcome`) - or, when no driver is on record, its last launch is fenced
(:mod:`glueball.supervise.fence`): watched when its keeper had claimed it, else abandoned, so that it never
starts, and the run settled by the kind (which may launch it again: it provably never ran).
"""

from __future__ import annotations

import logging
import math
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Generic, TypeVar

from glueball.supervise import fence, outcome
from glueball.supervise.process import (
    DriverProcess,
    host_name,
    is_orphan,
    process_identity,
    signal_group,
    stale_seconds,
)

log = logging.getLogger("glueball.supervise")

HEARTBEAT_SECONDS = 15.0
TAKEOVER_ENV = "GLUEBALL_TAKEOVER_SECONDS"
POLL_SECONDS = 0.1
STORE_POLL_SECONDS = 0.5
STOP_GRACE_SECONDS = 10.0
# how a run whose driver never started is settled after a restart
NEVER_STARTED_MESSAGE = "the server stopped before the run's driver started"

T = TypeVar("T")


class Supervisor:
    """The runs of one kind this process watches, each with its stop event, and their heartbeat.

    Args:
        kind: names the heartbeat thread and its log lines (``job run``, ``data quality run``, ``crawl``).
        beat: refreshes the heartbeat of the given runs in the kind's state table.
    """

    def __init__(self, kind: str, beat: Callable[[list[str]], None],
                 heartbeat_seconds: float | None = None) -> None:
        self.kind = kind
        self.identity = process_identity()
        self._beat_runs = beat
        # several beats within the heartbeat timeout, however short it is set
        self._heartbeat_seconds = heartbeat_seconds or min(HEARTBEAT_SECONDS, stale_seconds() / 4)
        self._stops: dict[str, threading.Event] = {}
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._closed = threading.Event()
        self._heartbeat: threading.Thread | None = None

    def track(self, run_id: str) -> threading.Event:
        """Watch ``run_id`` from now on; its stop event (the same one if it is already tracked)."""
        with self._lock:
            stop = self._stops.setdefault(run_id, threading.Event())
            if self._heartbeat is None:
                self._heartbeat = threading.Thread(target=self._beat, name=f"{self.kind}-heartbeat".replace(" ", "-"),
                                                   daemon=True)
                self._heartbeat.start()
            return stop

    def untrack(self, run_id: str) -> None:
        with self._idle:
            self._stops.pop(run_id, None)
            self._idle.notify_all()

    def stop(self, run_id: str) -> bool:
        """Set the stop event of a run this process watches; False if it watches no such run."""
        with self._lock:
            event = self._stops.get(run_id)
        if event is None:
            return False
        event.set()
        return True

    def active(self) -> list[str]:
        with self._lock:
            return list(self._stops)

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until this process watches no run of this kind; False on timeout."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._idle:
            while self._stops:
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return False
                self._idle.wait(remaining)
        return True

    def close(self) -> None:
        self._closed.set()

    def thread(self, name: str, target: Callable[..., Any], *args: Any) -> None:
        """Run ``target(*args)`` on a daemon thread (a run's watcher)."""
        threading.Thread(target=target, args=args, name=name, daemon=True).start()

    def _beat(self) -> None:
        while not self._closed.wait(self._heartbeat_seconds):
            with self._lock:  # decide to end under the lock, so that track() starts a new beat after us
                runs = list(self._stops)
                if not runs:
                    self._heartbeat = None
                    return
            try:
                self._beat_runs(runs)
            except Exception:  # the store may be briefly unreachable; the next beat retries
                log.warning("%s heartbeat failed", self.kind, exc_info=True)


def takeover_seconds() -> float:
    """How often a server looks for runs whose watching process is gone (``GLUEBALL_TAKEOVER_SECONDS``, 5 s)."""
    try:
        return max(0.5, float(os.environ.get(TAKEOVER_ENV, "5")))
    except ValueError:
        return 5.0


def every(interval: float, action: Callable[[], Any], name: str) -> threading.Event:
    """Call ``action`` every ``interval`` seconds on a daemon thread until the returned event is set; a failure is
    logged and the next call goes on (the store may be briefly unreachable)."""
    stop = threading.Event()

    def loop() -> None:
        while not stop.wait(interval):
            try:
                action()
            except Exception:
                log.warning("%s failed; trying again in %g s", name, interval, exc_info=True)

    threading.Thread(target=loop, name=name, daemon=True).start()
    return stop


@dataclass(frozen=True)
class Ending:
    """How a watched driver ended: by itself (``code``, None when adopted), stopped, or timed out."""

    code: int | None
    stopped: bool = False
    timed_out: bool = False


def watch_driver(pid: int, proc: subprocess.Popen[bytes] | None, adopted: DriverProcess | None,
                 deadline: float, stop: threading.Event, stopping: Callable[[], bool]) -> Ending:
    """Watch a driver to its end.

    Args:
        pid: the driver's pid (leader of its process group).
        proc: the driver, when this process launched it (its exit status is then known).
        adopted: the recorded driver, when this process took over a run another process launched.
        deadline: epoch seconds past which the run times out.
        stop: set by this process to stop the run.
        stopping: reads the kind's stored state: True when the run is STOPPING (or gone).
    """
    monotonic_deadline = time.monotonic() + max(0.0, deadline - time.time())
    ours = proc is not None or (adopted is not None and adopted.alive())  # a dead pid's number may be reused
    ending: str | None = None
    signalled = checked = 0.0
    code: int | None = None
    while True:
        if proc is not None:
            code = proc.poll()
            if code is not None:
                break
        elif adopted is None or not adopted.alive():
            break
        moment = time.monotonic()
        if ending is None:
            if not stop.is_set() and moment - checked >= STORE_POLL_SECONDS:
                checked = moment
                if stopping():
                    stop.set()
            if stop.is_set():
                ending = "stopped"
            elif moment >= monotonic_deadline:
                ending = "timed out"
            if ending is not None:
                signal_group(pid, signal.SIGTERM)
                signalled = moment
        elif moment - signalled >= STOP_GRACE_SECONDS:
            signal_group(pid, signal.SIGKILL)
            signalled = math.inf
        if ending is None:
            stop.wait(POLL_SECONDS)
        else:
            time.sleep(POLL_SECONDS)
    if ours:
        signal_group(pid, signal.SIGKILL)  # whatever the driver left behind in its group (the JVM)
    return Ending(code, stopped=ending == "stopped", timed_out=ending == "timed out")


@dataclass(frozen=True)
class Orphan(Generic[T]):
    """An unended run as stored: who watched it, its heartbeat, its driver, and the kind's own view of it; its
    folder, and whether its last launch was ``abandoned`` (fenced off by this process: its driver never ran)."""

    run_id: str
    runner: str | None
    heartbeat: float | None
    driver: DriverProcess | None
    item: T
    folder: Path | None = None
    abandoned: bool = False


def orphan_of(run_id: str, row: Any, folder: str | Path | None, item: T) -> Orphan[T]:
    """An unended run as its row stores it (``runner``, ``heartbeat``, ``driver_host``, ``driver_pid``,
    ``driver_start``). Its driver is the stored one, else the one its folder noted at launch (a server that died
    between launching the driver and storing it), else None: it never started."""
    folder = Path(folder) if folder else None
    driver = DriverProcess(row.driver_host, row.driver_pid, row.driver_start) if row.driver_pid is not None \
        else outcome.read_driver(folder)
    return Orphan(run_id, row.runner, row.heartbeat, driver, item, folder)


def _fenced(orphan: Orphan[T]) -> Orphan[T]:
    """A claimed orphan with no driver on record, its last launch decided (:func:`glueball.supervise.fence.abandon`)
    when its folder is on this machine: with the driver whose keeper had claimed it, or ``abandoned`` when its
    driver provably never ran. A run launched on another machine is left as it is (its folder is not here to
    fence)."""
    local = orphan.runner is None or orphan.runner.partition(":")[0] == host_name()
    if orphan.driver is not None or orphan.folder is None or not local:
        return orphan
    decided = fence.abandon(orphan.folder)
    return replace(orphan, driver=decided.claimant, abandoned=decided.never_ran)


def reconcile_orphans(candidates: Iterable[Orphan[T]], claim: Callable[[Orphan[T]], bool],
                      adopt: Callable[[Orphan[T]], None], settle: Callable[[Orphan[T]], bool],
                      kind: str) -> list[str]:
    """Settle the runs whose watcher is gone; their run ids.

    Each orphan is first claimed (``claim``: a compare-and-swap of its runner to this process; False
    when another process took it first). A claimed run with no driver on record has its last launch fenced
    (:func:`_fenced`). A run whose driver was launched is watched again (``adopt``): to its end when it still
    runs on this host, else settled at once from the outcome record its keeper wrote
    (:mod:`glueball.supervise.outcome`); a run whose driver never started is settled by the kind (``settle``:
    True when it ended it, or launched it again, now).
    """
    settled: list[str] = []
    now = time.time()
    for orphan in candidates:
        if not is_orphan(orphan.runner, orphan.heartbeat, now) or not claim(orphan):
            continue
        orphan = _fenced(orphan)
        if orphan.driver is not None:
            adopt(orphan)
            settled.append(orphan.run_id)
        elif settle(orphan):
            settled.append(orphan.run_id)
    if settled:
        log.warning("%ss left by a stopped process were taken over: %s", kind, ", ".join(settled))
    return settled
