"""A pool of warm drivers (:mod:`glueball.runtime.warm_driver`): Spark drivers started before anyone asks.

Every job run and session needs a Spark driver, and starting one (Python, the JVM, the
SparkContext, the JIT) costs seconds. The pool keeps up to ``size`` idle warm drivers for each
*shape* a run asked for — its Python and the Spark settings ``glueball run`` would give it (master,
memory, parallelism, ``--conf``), the event log directory aside — starting with the shape of a
default Glue job. A run whose shape has a ready driver takes it: the driver becomes the run's
(:meth:`WarmPool.assign`) and is then retired when it exits; the pool starts another for that shape
in the background — one start at a time, and only while no run of the server is working (unless a run is
waiting for it), so that a JVM starting does not compete with the runs for the CPU.
A run whose shape has none starts cold, as without the pool.

A warm driver leads its own process group, as a cold driver does, so stopping, timing out and
killing a run that took one works the same; it reads its assignment from a pipe, so when the
server stops, idle warm drivers see end-of-file and exit.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger("glueball.supervise")

Shape = tuple[str, ...]
EVENT_LOG_KEYS = ("spark.eventLog.dir", "spark.eventLog.enabled", "spark.eventLog.compress")
_READY_POLL_SECONDS = 0.1
STARTING_WAIT_SECONDS = 20.0  # a run waits this long for a driver of its shape that is starting


def shape_of(python: str, options: list[str]) -> Shape:
    """The shape of a Spark driver: its Python and its ``--spark-master`` / ``--conf`` options (sorted), without
    the event log settings (each run has its own)."""
    settings: list[str] = []
    index = 0
    while index < len(options):
        name = options[index]
        value = options[index + 1] if index + 1 < len(options) else ""
        if name in ("--spark-master", "--conf"):
            if name == "--spark-master" or value.partition("=")[0] not in EVENT_LOG_KEYS:
                settings.append(f"{name} {value}")
            index += 2
        else:
            index += 1
    return (python, *sorted(settings))


@dataclass
class WarmDriver:
    """One warm driver process and where it keeps its Spark event logs."""

    shape: Shape
    proc: subprocess.Popen[bytes]
    ready_file: Path
    events: Path
    taken: bool = False  # assigned to a run: no longer the pool's

    @property
    def ready(self) -> bool:
        return self.proc.poll() is None and self.ready_file.exists()


class WarmPool:
    """Warm drivers by shape, at most ``size`` idle of each; ``size`` 0 keeps none.

    Args:
        folder: where warm drivers keep their logs, ready files and event logs until they are assigned.
        size: idle warm drivers to keep per shape.
        env: the environment warm drivers start with (the server's, without any run's variables).
    """

    def __init__(self, folder: Path, size: int, env: Callable[[], dict[str, str]],
                 busy: Callable[[], bool] = lambda: False) -> None:
        self.folder = folder
        self.size = size
        self._env = env
        self._busy = busy  # runs of this process are working: a refill (a JVM starting) waits rather than compete
        self._waiting = 0  # runs waiting in take() for a driver
        self._idle: dict[Shape, list[WarmDriver]] = {}
        self._wanted: set[Shape] = set()
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._closed = False
        self._filler: threading.Thread | None = None

    def want(self, shape: Shape) -> None:
        """Keep warm drivers of ``shape`` from now on."""
        if self.size <= 0:
            return
        with self._lock:
            self._wanted.add(shape)
            if self._filler is None:
                self._filler = threading.Thread(target=self._fill, name="warm-drivers", daemon=True)
                self._filler.start()
            self._wake.notify_all()

    def take(self, shape: Shape, wait_seconds: float = STARTING_WAIT_SECONDS) -> WarmDriver | None:
        """A ready warm driver of ``shape`` (no longer the pool's), or None; the pool refills behind it.

        When none is ready but one of the shape is starting, it is awaited up to ``wait_seconds``: a driver
        part-way through its start is ready before one started now would be."""
        if self.size <= 0:
            return None
        deadline = time.monotonic() + wait_seconds
        with self._lock:
            self._wanted.add(shape)
            self._waiting += 1
            self._wake.notify_all()
            while True:
                drivers = self._idle.get(shape, [])
                for driver in list(drivers):
                    if driver.proc.poll() is not None:  # died while idle
                        drivers.remove(driver)
                found = next((d for d in drivers if d.ready), None)
                if found is not None:
                    drivers.remove(found)
                    break
                left = deadline - time.monotonic()
                if not drivers or left <= 0 or self._closed:
                    break
                self._wake.wait(min(left, _READY_POLL_SECONDS))
            self._waiting -= 1
        if self._filler is None:
            self.want(shape)
        return found

    def assign(self, driver: WarmDriver, argv: list[str], env: dict[str, str], cwd: Path, stdout: Path,
               stderr: Path) -> subprocess.Popen[bytes]:
        """Make ``driver`` run ``argv`` (what would follow ``python`` for a cold start) as its run."""
        assignment = {"argv": argv, "env": env, "cwd": str(cwd), "stdout": str(stdout), "stderr": str(stderr)}
        driver.taken = True
        driver.ready_file.unlink(missing_ok=True)  # no longer warm: a ready file marks an idle driver
        assert driver.proc.stdin is not None
        driver.proc.stdin.write((json.dumps(assignment) + "\n").encode())
        driver.proc.stdin.close()
        return driver.proc

    def start_now(self, shape: Shape, argv: list[str], env: dict[str, str], cwd: Path, stdout: Path,
                  stderr: Path) -> subprocess.Popen[bytes]:
        """A driver of ``shape`` started now for this run alone: a warm driver assigned at once (it becomes the
        run as soon as Spark is up). What a run that found no ready driver gets, when it starts this way."""
        driver = self._start(shape, self._env())
        return self.assign(driver, argv, env, cwd, stdout, stderr)

    def close(self) -> None:
        """Let the idle warm drivers go (they exit on end-of-file)."""
        with self._lock:
            self._closed = True
            drivers = [d for ds in self._idle.values() for d in ds]
            self._idle.clear()
            self._wake.notify_all()
        for driver in drivers:
            try:
                if driver.proc.stdin is not None:
                    driver.proc.stdin.close()
                driver.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                driver.proc.kill()

    def _fill(self) -> None:
        while True:
            with self._lock:
                while not self._closed and (not self._short() or (self._busy() and not self._waiting)):
                    self._wake.wait(0.5 if self._short() else 5.0)
                if self._closed:
                    return
                shape = self._short()
            if shape is None:
                continue
            try:
                driver = self._start(shape, self._env())
            except OSError:
                log.exception("a warm driver could not be started")
                time.sleep(5.0)
                continue
            with self._lock:
                if self._closed:
                    driver.proc.kill()
                    return
                self._idle.setdefault(shape, []).append(driver)
            self._wait_ready(driver)

    def _short(self) -> Shape | None:
        for shape in sorted(self._wanted):
            live = [d for d in self._idle.get(shape, []) if d.proc.poll() is None]
            self._idle[shape] = live
            if len(live) < self.size:
                return shape
        return None

    def _start(self, shape: Shape, env: dict[str, str]) -> WarmDriver:
        token = uuid.uuid4().hex[:12]
        home = self.folder / token
        events = home / "events"
        events.mkdir(parents=True)
        python, *settings = shape
        options: list[str] = []
        for setting in settings:
            name, _, value = setting.partition(" ")
            options += [name, value]
        options += ["--conf", "spark.eventLog.enabled=true", "--conf", f"spark.eventLog.dir=file://{events}",
                    "--conf", "spark.eventLog.compress=false"]
        env["GLUEBALL_WARM_READY"] = str(home / "ready")
        env["PYTHONUNBUFFERED"] = "1"
        with (home / "output.log").open("ab") as out, (home / "error.log").open("ab") as err:
            proc = subprocess.Popen([python, "-m", "glueball.runtime.warm_driver", *options], stdin=subprocess.PIPE,
                                    stdout=out, stderr=err, env=env, cwd=home, start_new_session=True)
        return WarmDriver(shape, proc, home / "ready", events)

    def _wait_ready(self, driver: WarmDriver, timeout: float = 120.0) -> None:
        """One warm driver starts at a time: wait until it is ready (or dead) before starting the next."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and driver.proc.poll() is None and not driver.ready_file.exists() \
                and not driver.taken:  # taken as soon as ready: its ready file is already gone
            time.sleep(_READY_POLL_SECONDS)
        if driver.proc.poll() is not None and not driver.ready_file.exists() and not driver.taken:
            log.warning("a warm driver exited before it was ready (%s)", driver.ready_file.parent / "error.log")
            time.sleep(5.0)  # not a tight loop of failing starts


def driver_env(dropped: tuple[str, ...] = ()) -> dict[str, str]:
    """The server's environment for a warm driver: without the variables of any run."""
    return {k: v for k, v in os.environ.items() if k not in dropped and k != "PYSPARK_SUBMIT_ARGS"}

