"""glueball.supervise: orphan detection, driver liveness, the watch loop, reconciliation, the env contract."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from glueball.supervise import driverenv, outcome
from glueball.supervise.launch import spawn
from glueball.supervise.process import (
    STALE_SECONDS,
    DriverProcess,
    host_name,
    is_orphan,
    process_identity,
    process_start,
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
    proc = _driver(tmp_path, "import os, sys; print(os.getpid()); sys.exit(3)")
    ending = watch_driver(proc.pid, proc, None, time.time() + 60, threading.Event(), lambda: False)
    assert (ending.code, ending.stopped, ending.timed_out) == (3, False, False)  # the keeper exits as its driver
    child = int((tmp_path / "out.log").read_text())
    assert child != proc.pid
    record = outcome.read(tmp_path)
    assert record is not None and (record.pid, record.code, record.signal, record.status) == (child, 3, None, None)
    noted = outcome.read_driver(tmp_path)
    assert noted is not None and (noted.host, noted.pid) == (host_name(), proc.pid), "noted at launch"


def test_the_keeper_records_the_signal_that_killed_its_driver_and_dies_of_it(tmp_path: Path) -> None:
    proc = _driver(tmp_path, "import os, signal; os.kill(os.getpid(), signal.SIGKILL)")
    assert proc.wait(30) == -signal.SIGKILL
    end = outcome.ended(tmp_path, proc.returncode, proc.pid)
    assert end.recorded and end.signal == signal.SIGKILL and end.code is None and end.pid != proc.pid
    assert outcome.verdict(end, tmp_path / "err.log", "Job run driver") == (
        False, f"Job run driver (pid {end.pid}) was killed (signal 9)")


def test_what_the_driver_reports_is_folded_into_its_record(tmp_path: Path) -> None:
    report = ("import pathlib\nfrom glueball.supervise import outcome\n"
              f"outcome.report('FAILED', 'no rows', pathlib.Path({str(tmp_path)!r}))")
    proc = _driver(tmp_path, report)
    assert proc.wait(30) == 0
    end = outcome.ended(tmp_path, 0, proc.pid)
    assert (end.code, end.status, end.message) == (0, "FAILED", "no rows")
    assert outcome.verdict(end, None, reported=True) == (False, "no rows")
    assert outcome.verdict(end, None) == (False, "no rows"), "a failure reported is a failure whatever the exit"
    silent = _driver(tmp_path, "pass")  # the next run in the folder: the old report is cleared at launch
    assert silent.wait(30) == 0
    quiet = outcome.ended(tmp_path, 0, silent.pid)
    assert quiet.status is None and outcome.verdict(quiet, None) == (True, None)
    assert outcome.verdict(quiet, None, reported=True) == (False, "the driver exited without recording the run's "
                                                                  "outcome")


def test_a_failed_script_is_failed_by_its_exception_and_an_unseen_end_says_so(tmp_path: Path) -> None:
    proc = _driver(tmp_path, "raise ValueError('the input bucket is empty')")
    assert proc.wait(30) == 1
    end = outcome.ended(tmp_path, 1, proc.pid)
    assert outcome.verdict(end, tmp_path / "err.log") == (False, "ValueError: the input bucket is empty")
    unseen = outcome.ended(tmp_path / "elsewhere", None, 4242)
    assert not unseen.seen and not unseen.recorded
    succeeded, message = outcome.verdict(unseen, tmp_path / "err.log", "Job run driver")
    assert not succeeded and message is not None
    assert message.startswith("Job run driver (pid 4242) ended without recording how")


def test_a_killed_keeper_takes_its_driver_along_and_records_nothing(tmp_path: Path) -> None:
    proc = _driver(tmp_path, "import os, time; print(os.getpid(), flush=True); time.sleep(60)")
    child = int(wait_output(tmp_path / "out.log"))
    os.kill(proc.pid, signal.SIGKILL)
    assert proc.wait(30) == -signal.SIGKILL
    deadline = time.time() + 10
    while DriverProcess(host_name(), child, None).alive() and time.time() < deadline:
        time.sleep(0.05)
    assert not DriverProcess(host_name(), child, None).alive(), "no driver runs without its keeper"
    assert outcome.read(tmp_path) is None


def wait_output(path: Path, timeout: float = 30) -> str:
    deadline = time.time() + timeout
    while time.time() < deadline:
        text = path.read_text().strip() if path.exists() else ""
        if text:
            return text
        time.sleep(0.05)
    raise AssertionError(f"nothing in {path}")


def _orphaned_keeper(tmp_path: Path, assigned: Path) -> tuple[int, int]:
    """A keeper over a sleeping driver, started by a process that exits at once: (keeper pid, driver pid)."""
    from glueball.supervise import keeper

    argv = keeper.command([sys.executable, "-c", "import os, time; print(os.getpid(), flush=True); time.sleep(60)"],
                          assigned=assigned)
    starter = ("import subprocess, sys; p = subprocess.Popen(sys.argv[1:], start_new_session=True, "
               f"stdout=open({str(tmp_path / 'out.log')!r}, 'w'), stderr=subprocess.DEVNULL, "
               "stdin=subprocess.DEVNULL); print(p.pid)")
    keeper_pid = int(subprocess.run([sys.executable, "-c", starter, *argv], capture_output=True, text=True,
                                    check=True).stdout)
    return keeper_pid, int(wait_output(tmp_path / "out.log"))


def test_an_idle_warm_keeper_ends_its_driver_when_its_server_goes(tmp_path: Path) -> None:
    keeper_pid, child = _orphaned_keeper(tmp_path, tmp_path / "assigned")
    deadline = time.time() + 20
    while (DriverProcess(host_name(), child, None).alive() or DriverProcess(host_name(), keeper_pid, None).alive()) \
            and time.time() < deadline:
        time.sleep(0.1)
    assert not DriverProcess(host_name(), child, None).alive() and not DriverProcess(host_name(), keeper_pid,
                                                                                       None).alive()


def test_an_assigned_warm_keeper_outlives_its_server_and_records_in_the_run_folder(tmp_path: Path) -> None:
    run = tmp_path / "run"
    outcome.note_assignment(tmp_path / "assigned", run)
    keeper_pid, child = _orphaned_keeper(tmp_path, tmp_path / "assigned")
    time.sleep(1.5)  # a few of the keeper's looks at its parent, which is gone
    assert DriverProcess(host_name(), child, None).alive(), "a driver serving a run outlives the pool's server"
    os.kill(child, signal.SIGKILL)
    deadline = time.time() + 20
    while outcome.read(run) is None and time.time() < deadline:
        time.sleep(0.05)
    record = outcome.read(run)
    assert record is not None and record.pid == child and record.signal == signal.SIGKILL


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


def test_an_adopted_driver_is_watched_until_it_ends_and_its_record_tells_how(tmp_path: Path) -> None:
    proc = _driver(tmp_path, "import sys, time; time.sleep(0.5); sys.exit(4)")
    recorded = DriverProcess(host_name(), proc.pid, process_start(proc.pid))
    assert recorded.alive()
    reaper = threading.Thread(target=proc.wait)
    reaper.start()
    ending = watch_driver(proc.pid, None, recorded, time.time() + 60, threading.Event(), lambda: False)
    reaper.join()
    assert ending.code is None and not ending.stopped and not recorded.alive()
    assert outcome.ended(tmp_path, ending.code, proc.pid).code == 4, "not this process's child: the record tells"
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


def test_reconciliation_claims_then_adopts_launched_drivers_and_settles_the_rest(tmp_path: Path) -> None:
    proc = _driver(tmp_path, "import time; time.sleep(30)")
    try:
        live = DriverProcess(host_name(), proc.pid, process_start(proc.pid))
        gone = DriverProcess(host_name(), 999_999_999, None)
        mine = process_identity()
        candidates = [Orphan("live", None, None, live, "a"), Orphan("gone", None, None, gone, "b"),
                      Orphan("taken", None, None, None, "c"), Orphan("watched", mine, time.time(), None, "d"),
                      Orphan("never", None, None, None, "e")]
        adopted: list[str] = []
        settled: list[str] = []
        result = reconcile_orphans(candidates, lambda o: o.run_id != "taken", lambda o: adopted.append(o.item),
                                   lambda o: settled.append(o.item) or True, "test run")
        # a launched driver, alive or not, is watched again (its record settles it); one never launched is settled
        assert (adopted, settled, result) == (["a", "b"], ["e"], ["live", "gone", "never"])
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


def test_a_keeper_refuses_a_command_line_it_does_not_know() -> None:
    for argv in ([], ["--record", "/tmp"], ["--record", "/tmp", "--"], ["--bogus", "x", "--", "true"],
                 ["--assigned", "/tmp/a", "--parent", "x", "--", "true"], ["--assigned", "/tmp/a", "--", "true"],
                 ["--record", "/tmp", "--generation", "x", "--", "true"],
                 ["--assigned", "/tmp/a", "--parent", "1", "--generation", "1", "--", "true"]):
        done = subprocess.run([sys.executable, "-m", "glueball.supervise.keeper", *argv], capture_output=True,
                              text=True)
        assert done.returncode == 2 and done.stderr.startswith("usage: python -m glueball.supervise.keeper"), argv


def test_a_keeper_that_cannot_record_says_so_and_still_exits_as_its_driver(tmp_path: Path) -> None:
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("")
    done = subprocess.run([sys.executable, "-m", "glueball.supervise.keeper", "--record", str(not_a_folder), "--",
                           sys.executable, "-c", "import sys; sys.exit(5)"], capture_output=True, text=True)
    assert done.returncode == 5
    assert "the outcome of pid" in done.stderr and "could not be recorded" in done.stderr


def test_an_orphans_driver_is_the_stored_one_else_the_one_its_folder_noted_at_launch(tmp_path: Path) -> None:
    from types import SimpleNamespace

    from glueball.supervise.supervisor import orphan_of

    unstored = SimpleNamespace(runner=None, heartbeat=None, driver_host=None, driver_pid=None, driver_start=None)
    assert orphan_of("never", unstored, tmp_path, "x").driver is None, "nothing launched"
    outcome.write_driver(tmp_path, os.getpid())
    noted = orphan_of("noted", unstored, str(tmp_path), "x").driver
    assert noted is not None and noted.pid == os.getpid() and noted.alive(), "launched, then its server died"
    stored = SimpleNamespace(runner="h:1:b", heartbeat=1.0, driver_host="h", driver_pid=7, driver_start=9)
    found = orphan_of("stored", stored, tmp_path, "x")
    assert (found.driver, found.runner, found.heartbeat) == (DriverProcess("h", 7, 9), "h:1:b", 1.0)


def test_a_launch_is_run_by_its_keeper_or_abandoned_by_a_taker_never_both(tmp_path: Path) -> None:
    from glueball.supervise import fence

    assert fence.abandon(tmp_path / "none") == fence.Decided(None, never_ran=True), "nothing begun"
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "output.log").write_text("")
    assert fence.abandon(tmp_path / "old") == fence.Decided(None, never_ran=False), \
        "something was launched there without numbering it: not provably unlaunched"
    first = fence.begin(tmp_path)
    assert (first, fence.begin(tmp_path)) == (1, 2), "numbered one after the other"
    # the keeper claims first: a taker finds it claimed, and is given the keeper to watch
    assert fence.claim(tmp_path, 2) and fence.claim(tmp_path, 2), "a keeper's own claim holds"
    claimed = fence.abandon(tmp_path)
    assert claimed.claimant is not None and (claimed.claimant.host, claimed.claimant.pid) == (host_name(), os.getpid())
    assert not claimed.never_ran
    # the taker abandons first: the keeper's claim fails, the launch never runs, the next one is numbered after it
    assert fence.begin(tmp_path) == 3
    assert fence.abandon(tmp_path) == fence.Decided(None, never_ran=True)
    assert not fence.claim(tmp_path, 3)
    assert fence.abandon(tmp_path) == fence.Decided(None, never_ran=True), \
        "abandoned again by a later taker: still nobody's"
    assert fence.begin(tmp_path) == 4


def test_a_keeper_whose_launch_was_abandoned_starts_nothing_and_records_nothing(tmp_path: Path) -> None:
    from glueball.supervise import fence

    generation = fence.begin(tmp_path)
    assert fence.abandon(tmp_path).claimant is None
    marker = tmp_path / "ran"
    done = subprocess.run([sys.executable, "-m", "glueball.supervise.keeper", "--record", str(tmp_path),
                           "--generation", str(generation), "--", sys.executable, "-c",
                           f"open({str(marker)!r}, 'w').write('x')"], capture_output=True, text=True)
    assert done.returncode == 0 and "abandoned this launch" in done.stderr
    assert not marker.exists() and outcome.read(tmp_path) is None
    # a launch of its own runs: numbered by spawn, claimed by the keeper before its driver starts
    proc = _driver(tmp_path, f"open({str(marker)!r}, 'w').write('x')")
    assert proc.wait(30) == 0 and marker.exists()
    claim = json.loads((tmp_path / f"launch.{generation + 1}.json").read_text())
    assert claim["Pid"] == proc.pid


def test_reconciliation_fences_an_unnoted_launch_on_this_machine_only(tmp_path: Path) -> None:
    from glueball.supervise import fence

    here, there = tmp_path / "here", tmp_path / "there"
    for folder in (here, there):
        folder.mkdir()
        fence.begin(folder)
    elsewhere = "another-host:1:boot"
    candidates = [Orphan("here", None, None, None, "a", here), Orphan("there", elsewhere, 0.0, None, "b", there)]
    settled: list[tuple[str, bool]] = []
    reconcile_orphans(candidates, lambda o: True, lambda o: None,
                      lambda o: settled.append((o.item, o.abandoned)) or True, "test run")
    assert settled == [("a", True), ("b", False)]
    assert json.loads((here / "launch.1.json").read_text())["Abandoned"] is True
    assert not (there / "launch.1.json").exists(), "another machine's folder is not fenced from here"
