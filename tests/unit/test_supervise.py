"""glueball.supervise: orphan detection, driver liveness, the watch loop, reconciliation, the env contract."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from glueball.supervise import driverenv
from glueball.supervise.process import (
    STALE_SECONDS,
    DriverProcess,
    host_name,
    is_orphan,
    process_identity,
    process_start,
    spawn,
)
from glueball.supervise.supervisor import Orphan, Supervisor, reconcile_orphans, watch_driver


def test_orphan_detection_spares_live_processes() -> None:
    here = socket.gethostname()
    now = time.time()
    assert is_orphan(None, None)
    assert not is_orphan(process_identity(), now)
    assert is_orphan(f"{here}:{os.getpid()}:another-boot", now)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          check=True)
    assert is_orphan(f"{here}:{dead.stdout.strip()}:x", now)
    assert not is_orphan(f"{here}:{os.getppid()}:x", now)
    assert not is_orphan("elsewhere:1:x", now)
    assert is_orphan("elsewhere:1:x", now - STALE_SECONDS - 1)


def _driver(tmp_path: Path, code: str) -> subprocess.Popen[bytes]:
    return spawn([sys.executable, "-c", code], dict(os.environ), tmp_path, tmp_path / "out.log",
                 tmp_path / "err.log")


def test_a_driver_that_exits_by_itself_reports_its_status(tmp_path: Path) -> None:
    proc = _driver(tmp_path, "import sys; print('hi'); sys.exit(3)")
    ending = watch_driver(proc.pid, proc, None, time.time() + 60, threading.Event(), lambda: False)
    assert (ending.code, ending.stopped, ending.timed_out) == (3, False, False)
    assert (tmp_path / "out.log").read_text() == "hi\n"


def test_a_stopping_run_is_terminated_with_its_process_group(tmp_path: Path) -> None:
    # the driver starts a child in its group; stopping the run must end both
    proc = _driver(tmp_path, "import subprocess, sys, time\n"
                             "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
                             "print(child.pid, flush=True)\ntime.sleep(60)")
    while not (tmp_path / "out.log").read_text().strip():
        time.sleep(0.05)
    child = int((tmp_path / "out.log").read_text())
    asked = [0]

    def stopping() -> bool:
        asked[0] += 1
        return asked[0] >= 2

    ending = watch_driver(proc.pid, proc, None, time.time() + 60, threading.Event(), stopping)
    assert ending.stopped and not ending.timed_out and ending.code == -signal.SIGTERM
    deadline = time.time() + 5
    while DriverProcess(host_name(), child, None).alive() and time.time() < deadline:
        time.sleep(0.05)
    assert not DriverProcess(host_name(), child, None).alive()


def test_a_run_past_its_deadline_times_out(tmp_path: Path) -> None:
    proc = _driver(tmp_path, "import time; time.sleep(60)")
    ending = watch_driver(proc.pid, proc, None, time.time() + 0.3, threading.Event(), lambda: False)
    assert ending.timed_out and not ending.stopped


def test_an_adopted_driver_is_watched_until_it_ends_and_its_status_is_unknown(tmp_path: Path) -> None:
    proc = _driver(tmp_path, "import time; time.sleep(0.5)")
    recorded = DriverProcess(host_name(), proc.pid, process_start(proc.pid))
    assert recorded.alive()
    reaper = threading.Thread(target=proc.wait)
    reaper.start()
    ending = watch_driver(proc.pid, None, recorded, time.time() + 60, threading.Event(), lambda: False)
    reaper.join()
    assert ending.code is None and not ending.stopped and not recorded.alive()
    assert not DriverProcess(host_name(), proc.pid, (recorded.start or 0) + 1).alive()   # a reused pid


def test_heartbeat_beats_only_while_runs_are_tracked() -> None:
    beats: list[list[str]] = []
    supervisor = Supervisor("test run", beats.append, heartbeat_seconds=0.05)
    stop = supervisor.track("r1")
    assert supervisor.track("r1") is stop and supervisor.active() == ["r1"]
    time.sleep(0.3)
    assert beats and all(b == ["r1"] for b in beats)
    assert supervisor.stop("r1") and stop.is_set() and not supervisor.stop("unknown")
    supervisor.untrack("r1")
    assert supervisor.wait_idle(1)
    time.sleep(0.2)
    count = len(beats)
    time.sleep(0.2)
    assert len(beats) == count
    supervisor.close()


def test_reconciliation_claims_then_adopts_live_drivers_and_settles_the_rest(tmp_path: Path) -> None:
    proc = _driver(tmp_path, "import time; time.sleep(30)")
    try:
        live = DriverProcess(host_name(), proc.pid, process_start(proc.pid))
        gone = DriverProcess(host_name(), 999_999_999, None)
        mine = process_identity()
        candidates = [Orphan("live", None, None, live, "a"), Orphan("gone", None, None, gone, "b"),
                      Orphan("taken", None, None, None, "c"), Orphan("watched", mine, time.time(), None, "d")]
        adopted: list[str] = []
        settled: list[str] = []
        result = reconcile_orphans(candidates, lambda o: o.run_id != "taken", lambda o: adopted.append(o.item),
                                   lambda o: settled.append(o.item) or True, "test run")
        assert (adopted, settled, result) == (["a"], ["b"], ["live", "gone"])
    finally:
        proc.kill()
        proc.wait()


def test_the_driver_environment_round_trips_and_drops_unset_members(tmp_path: Path) -> None:
    env = {"GLUEBALL_PREVIOUS_RUN_ID": "stale", "OTHER": "x"}
    written = driverenv.DriverEnv(home=tmp_path, endpoint="http://127.0.0.1:1", job_name="j", run_id="jr_1",
                                  attempt=2, log_dir=tmp_path / "logs")
    written.apply(env)
    assert "GLUEBALL_PREVIOUS_RUN_ID" not in env and env["OTHER"] == "x"
    assert driverenv.current(env) == written
    assert driverenv.current(env).in_run and not driverenv.current({}).in_run
    assert driverenv.current({"GLUEBALL_JOB_ATTEMPT": "x"}).attempt == 0


def test_an_installation_is_wired_with_the_clock_it_is_given(tmp_path: Path) -> None:
    """Schedules (triggers, crawler schedules, the scheduler) all follow the clock the installation was
    built with - ``make demo`` gives it a rehearsal clock."""
    from glueball.app import Glueball
    from glueball.clock import SchedulerClock
    from glueball.config import Settings

    clock = SchedulerClock(str(tmp_path / "clock"))
    app = Glueball(Settings(home=tmp_path / "home"), clock=clock)
    try:
        glue = app.edge.services["glue"].operations
        assert glue["CreateTrigger"].needs.clock is clock and glue["CreateCrawler"].needs.clock is clock
        assert app.workflow_needs().clock is clock
    finally:
        app.close()
