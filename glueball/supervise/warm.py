"""A pool of warm drivers (:mod:`glueball.runtime.warm_driver`): Spark drivers started before anyone asks.

Every job run and session needs a Spark driver, and starting one (Python, the JVM, the
SparkContext, the JIT) costs seconds. The pool keeps up to ``size`` idle warm drivers for each
*shape* a run asked for — its Python and the Spark settings ``glueball run`` would give it (master,
memory, parallelism, ``--conf``), the event log directory aside — starting with the shape of a
default Glue job. A run whose shape has a ready driver takes it: the driver becomes the run's
(:meth:`WarmPool.assign`) and exits with it.

Idle drivers are attached to warm JVMs (:mod:`glueball.runtime.warm_jvm`), which outlive them: when
a run ends, its JVM is reset (the SparkContext it left stopped, Hadoop's file system cache closed)
and a new driver — a new Python process with a SparkContext of its own — attaches to it, in a
second or two. So a run never shares a Python process or a SparkContext with another, yet only the
first run of a shape waits for a JVM to start and to warm up. A new JVM starts only while no run
of the server is working (unless a run is waiting for it), so that it does not compete with the
runs for the CPU; attaching a driver to a free JVM does not wait. A JVM serves at most
:data:`MAX_RUNS_PER_JVM` drivers. A run whose shape has no driver ready or coming starts cold, as
without the pool.

A warm driver runs under its keeper (:mod:`glueball.supervise.keeper`), which leads its process group as
a cold driver's does, so stopping, timing out and killing a run that took one works the same (the JVM,
outside that group, then stops what the run left), and which records the run's outcome in the run's
folder once the driver has taken it up. Drivers and JVMs read from pipes, so when the server stops (or
dies) idle ones see end-of-file and exit; a JVM serving a run stays up until that run's driver ends, so
the run lives on for the next server to adopt, as a cold driver's does.
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

from glueball.supervise import keeper, outcome
from glueball.supervise.launch import pass_gate

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


MAX_RUNS_PER_JVM = 20  # then a warm JVM is retired and a fresh one started: no slow build-up of leftovers
JVM_START_SECONDS = 180.0
RESET_SECONDS = 30.0


@dataclass(eq=False)
class WarmJvm:
    """A warm JVM (:mod:`glueball.runtime.warm_jvm`): the Spark driver JVM that warm drivers of its shape attach to,
    one after another."""

    shape: Shape
    proc: subprocess.Popen[bytes]
    folder: Path
    runs: int = 0  # drivers it has served
    resets: int = 0
    driver: WarmDriver | None = None  # attached now: idle, or running a run

    @property
    def gateway_file(self) -> Path:
        return self.folder / "gateway"

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def gateway(self) -> dict[str, object] | None:
        """The published port, secret and JVM process id, once it is up."""
        try:
            found: dict[str, object] = json.loads(self.gateway_file.read_text())
            return found
        except (OSError, ValueError):
            return None


@dataclass(eq=False)
class WarmDriver:
    """One warm driver process, where it keeps its Spark event logs, and the warm JVM it is attached to (None:
    one of its own, started for one run by :meth:`WarmPool.start_now`)."""

    shape: Shape
    proc: subprocess.Popen[bytes]
    ready_file: Path
    events: Path
    taken: bool = False  # assigned to a run: no longer the pool's
    jvm: WarmJvm | None = None

    @property
    def ready(self) -> bool:
        return self.proc.poll() is None and self.ready_file.exists()

    @property
    def serving(self) -> bool:
        """Assigned a run that has not ended."""
        return self.taken and self.proc.poll() is None


class WarmPool:
    """Warm drivers by shape, at most ``size`` idle of each; ``size`` 0 keeps none.

    Idle drivers are attached to warm JVMs: when a run on one ends, its JVM is reset and the next driver
    of that shape attaches to it, so only the first run of a shape (and runs beyond the JVMs there are)
    waits for a JVM to start.

    Args:
        folder: where warm drivers and JVMs keep their logs, ready files and event logs until they are assigned.
        size: idle warm drivers to keep per shape.
        env: the environment warm drivers start with (the server's, without any run's variables).
        busy: whether runs of this process are working (a JVM starting waits for them, unless a run waits).
    """

    def __init__(self, folder: Path, size: int, env: Callable[[], dict[str, str]],
                 busy: Callable[[], bool] = lambda: False) -> None:
        self.folder = folder
        self.size = size
        self._env = env
        self._busy = busy
        self._waiting = 0  # runs waiting in take() for a driver
        self._idle: dict[Shape, list[WarmDriver]] = {}
        self._jvms: list[WarmJvm] = []
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

        When none is ready but one of the shape is coming (a driver starting, or a warm JVM of the shape about
        to get one), it is awaited up to ``wait_seconds``: it is ready before a driver started now would be."""
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
                if not self._coming(shape) or left <= 0 or self._closed:
                    break
                self._wake.wait(min(left, _READY_POLL_SECONDS))
            self._waiting -= 1
        if self._filler is None:
            self.want(shape)
        return found

    def wait_ready(self, shape: Shape, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds until a driver of ``shape`` is ready to take; whether one is."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while not any(d.ready for d in self._idle.get(shape, [])):
                left = deadline - time.monotonic()
                if left <= 0 or self._closed or self.size <= 0:
                    return False
                self._wake.wait(min(left, _READY_POLL_SECONDS))
        return True

    def assign(self, driver: WarmDriver, argv: list[str], env: dict[str, str], cwd: Path, stdout: Path,
               stderr: Path) -> subprocess.Popen[bytes]:
        """Make ``driver`` run ``argv`` (what would follow ``python`` for a cold start) as its run, whose folder
        (``cwd``) gets the run's outcome record from the driver's keeper."""
        pass_gate()
        assignment = {"argv": argv, "env": env, "cwd": str(cwd), "stdout": str(stdout), "stderr": str(stderr)}
        driver.taken = True
        driver.ready_file.unlink(missing_ok=True)  # no longer warm: a ready file marks an idle driver
        outcome.clear(cwd)
        outcome.write_driver(cwd, driver.proc.pid, driver.events)
        assert driver.proc.stdin is not None
        driver.proc.stdin.write((json.dumps(assignment) + "\n").encode())
        driver.proc.stdin.close()
        with self._lock:
            self._wake.notify_all()  # its JVM is busy now: the pool may want another
        return driver.proc

    def start_now(self, shape: Shape, argv: list[str], env: dict[str, str], cwd: Path, stdout: Path,
                  stderr: Path) -> subprocess.Popen[bytes]:
        """A driver of ``shape`` started now for this run alone, with a JVM of its own: a warm driver assigned at
        once (it becomes the run as soon as Spark is up). What a run that found no ready driver gets, when it
        starts this way."""
        pass_gate()
        driver = self._start(shape, self._env())
        return self.assign(driver, argv, env, cwd, stdout, stderr)

    def close(self) -> None:
        """Let the idle warm drivers and the warm JVMs go (they exit on end-of-file). A JVM serving a run stays up
        until that run's driver ends, so the run lives on for the next server to adopt, as a cold driver does."""
        with self._lock:
            self._closed = True
            drivers = [d for ds in self._idle.values() for d in ds]
            jvms = list(self._jvms)
            self._idle.clear()
            self._jvms.clear()
            self._wake.notify_all()
        serving = [j.proc for j in jvms if j.driver is not None and j.driver.serving]
        for proc in serving:
            _close_input(proc)
        for proc in [d.proc for d in drivers] + [j.proc for j in jvms if j.proc not in serving]:
            _let_go(proc)

    # the filler thread: one start at a time

    def _fill(self) -> None:
        while True:
            with self._lock:
                while not self._closed and not self._work():
                    self._wake.wait(0.25 if self._jvms or self._short() else 5.0)
                if self._closed:
                    return
            self._release()
            with self._lock:
                shape = self._short()
                jvm = self._free_jvm(shape) if shape is not None else None
                may_start = shape is not None and (not self._busy() or self._waiting > 0)
            if shape is None:
                self._retire_spares()
                continue
            if jvm is None:
                if not may_start:
                    continue
                jvm = self._start_jvm(shape)
                if jvm is None:
                    time.sleep(5.0)  # not a tight loop of failing starts
                    continue
            try:
                driver = self._start(shape, self._env(), jvm)
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

    def _work(self) -> bool:
        """Something for the filler: a JVM whose driver ended, a dead JVM, or a shape short of drivers that a free
        JVM can serve or a new one may be started for."""
        if any(j.driver is not None and j.driver.proc.poll() is not None or not j.alive for j in self._jvms):
            return True
        shape = self._short()
        if shape is None:
            return any(j.driver is None for j in self._jvms)  # a spare to retire
        return self._free_jvm(shape) is not None or not self._busy() or self._waiting > 0

    def _short(self) -> Shape | None:
        for shape in sorted(self._wanted):
            live = [d for d in self._idle.get(shape, []) if d.proc.poll() is None]
            self._idle[shape] = live
            if len(live) < self.size:
                return shape
        return None

    def _coming(self, shape: Shape) -> bool:
        """Whether a driver of ``shape`` will be ready without a JVM starting for it: one is starting, or a warm
        JVM of the shape has none running."""
        if self._idle.get(shape):
            return True
        return any(j.shape == shape and j.alive and (j.driver is None or j.driver.proc.poll() is not None)
                   for j in self._jvms)

    def _free_jvm(self, shape: Shape) -> WarmJvm | None:
        return next((j for j in self._jvms if j.shape == shape and j.alive and j.driver is None), None)

    def _release(self) -> None:
        """Reset the JVMs whose driver ended (its run is over, or it died idle) for the next; retire worn ones."""
        with self._lock:
            ended = [j for j in self._jvms if j.driver is not None and j.driver.proc.poll() is not None]
            for jvm in ended:
                assert jvm.driver is not None
                if jvm.driver.taken:
                    jvm.runs += 1
                else:
                    drivers = self._idle.get(jvm.shape, [])
                    if jvm.driver in drivers:
                        drivers.remove(jvm.driver)
                jvm.driver = None
            dead = [j for j in self._jvms if not j.alive]
            for jvm in dead:
                self._jvms.remove(jvm)
        for jvm in dead:
            log.warning("a warm JVM exited (%s)", jvm.folder / "error.log")
        for jvm in ended:
            if jvm.runs >= MAX_RUNS_PER_JVM or not self._reset(jvm):
                self._retire(jvm)

    def _reset(self, jvm: WarmJvm) -> bool:
        jvm.resets += 1
        answer_file = Path(f"{jvm.gateway_file}.reset")
        if not _command(jvm, f"reset {jvm.resets}"):
            return False
        deadline = time.monotonic() + RESET_SECONDS
        while time.monotonic() < deadline and jvm.alive:
            try:
                answer = answer_file.read_text()
            except OSError:
                answer = ""
            if answer.partition(" ")[0] == str(jvm.resets):
                if answer.strip() != str(jvm.resets):
                    log.warning("a warm JVM could not be reset: %s", answer)
                    return False
                return True
            time.sleep(0.02)
        return False

    def _retire(self, jvm: WarmJvm) -> None:
        with self._lock:
            if jvm in self._jvms:
                self._jvms.remove(jvm)
        _let_go(jvm.proc)

    def _retire_spares(self) -> None:
        """Let go of JVMs no shape needs (two runs ended at once, and one idle driver was enough)."""
        with self._lock:
            spares = [j for j in self._jvms if j.driver is None and j.alive]
        for jvm in spares:
            self._retire(jvm)

    def _start_jvm(self, shape: Shape) -> WarmJvm | None:
        """A warm JVM of ``shape``, once it is up (None if it could not start)."""
        folder = self.folder / f"jvm-{uuid.uuid4().hex[:12]}"
        folder.mkdir(parents=True)
        env = self._env()
        env["GLUEBALL_WARM_GATEWAY"] = str(folder / "gateway")
        env["PYTHONUNBUFFERED"] = "1"
        try:
            with (folder / "output.log").open("ab") as out, (folder / "error.log").open("ab") as err:
                proc = subprocess.Popen([shape[0], "-m", "glueball.runtime.warm_jvm", *_options(shape)],
                                        stdin=subprocess.PIPE, stdout=out, stderr=err, env=env, cwd=folder,
                                        start_new_session=True)
        except OSError:
            log.exception("a warm JVM could not be started")
            return None
        jvm = WarmJvm(shape, proc, folder)
        with self._lock:
            self._jvms.append(jvm)
        deadline = time.monotonic() + JVM_START_SECONDS
        while time.monotonic() < deadline and jvm.alive and jvm.gateway() is None and not self._closed:
            time.sleep(_READY_POLL_SECONDS)
        if jvm.gateway() is None:
            log.warning("a warm JVM did not start (%s)", folder / "error.log")
            self._retire(jvm)
            return None
        return jvm

    def _start(self, shape: Shape, env: dict[str, str], jvm: WarmJvm | None = None) -> WarmDriver:
        token = uuid.uuid4().hex[:12]
        home = self.folder / token
        events = home / "events"
        events.mkdir(parents=True)
        options = [*_options(shape), "--conf", "spark.eventLog.enabled=true", "--conf",
                   f"spark.eventLog.dir=file://{events}", "--conf", "spark.eventLog.compress=false"]
        env["GLUEBALL_WARM_READY"] = str(home / "ready")
        env[keeper.ASSIGNED_ENV] = str(home / "assigned")  # the driver names its run's folder there, for its keeper
        env["PYTHONUNBUFFERED"] = "1"
        gateway = jvm.gateway() if jvm is not None else None
        if gateway is not None:  # attach to the warm JVM rather than start one (pyspark's own way of doing it)
            env["PYSPARK_GATEWAY_PORT"] = str(gateway["port"])
            env["PYSPARK_GATEWAY_SECRET"] = str(gateway["secret"])
            (home / "jvm").write_text(str(jvm.proc.pid) if jvm is not None else "")
        argv = keeper.command([shape[0], "-m", "glueball.runtime.warm_driver", *options], assigned=home / "assigned")
        with (home / "output.log").open("ab") as out, (home / "error.log").open("ab") as err:
            proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=out, stderr=err, env=env, cwd=home,
                                    start_new_session=True)
        driver = WarmDriver(shape, proc, home / "ready", events, jvm=jvm if gateway is not None else None)
        if driver.jvm is not None:
            with self._lock:
                driver.jvm.driver = driver
            _command(driver.jvm, f"attach {proc.pid}")  # the JVM outlives its server while this driver runs
        return driver

    def _wait_ready(self, driver: WarmDriver, timeout: float = 120.0) -> None:
        """One warm driver starts at a time: wait until it is ready (or dead) before starting the next."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and driver.proc.poll() is None and not driver.ready_file.exists() \
                and not driver.taken:  # taken as soon as ready: its ready file is already gone
            time.sleep(_READY_POLL_SECONDS)
        if driver.proc.poll() is not None and not driver.ready_file.exists() and not driver.taken:
            log.warning("a warm driver exited before it was ready (%s)", driver.ready_file.parent / "error.log")
            time.sleep(5.0)  # not a tight loop of failing starts


def _options(shape: Shape) -> list[str]:
    """The ``--spark-master`` / ``--conf`` options of ``shape`` (for ``glueball run``'s option parser)."""
    options: list[str] = []
    for setting in shape[1:]:
        name, _, value = setting.partition(" ")
        options += [name, value]
    return options


def _command(jvm: WarmJvm, line: str) -> bool:
    """Send a warm JVM one command (:mod:`glueball.runtime.warm_jvm`); False when it can no longer read."""
    try:
        assert jvm.proc.stdin is not None
        jvm.proc.stdin.write(f"{line}\n".encode())
        jvm.proc.stdin.flush()
    except (OSError, ValueError):
        return False
    return True


def _close_input(proc: subprocess.Popen[bytes]) -> None:
    try:
        if proc.stdin is not None:
            proc.stdin.close()
    except OSError:
        pass


def _let_go(proc: subprocess.Popen[bytes]) -> None:
    """End a warm driver or JVM: close its input (it exits on end-of-file), kill it if it lingers."""
    _close_input(proc)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


# the AWS SDK's environment credentials: a warm JVM outlives the run that takes it and cannot change its environment,
# and some of its AWS clients (the MSK IAM login) read the environment before the system properties a run's
# identity is given as (glueball.runtime.lakeformats.share_run_identity): the server's would sign for the run
AWS_CREDENTIAL_VARIABLES = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN")


def driver_env(dropped: tuple[str, ...] = ()) -> dict[str, str]:
    """The server's environment for a warm driver: without the variables of any run, nor AWS credentials (a run
    that takes the driver brings its own, or the server's, as a cold driver gets them)."""
    left_out = {*dropped, *AWS_CREDENTIAL_VARIABLES, "PYSPARK_SUBMIT_ARGS"}
    return {k: v for k, v in os.environ.items() if k not in left_out}

