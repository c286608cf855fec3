"""A driver's keeper: ``python -m glueball.supervise.keeper (--record DIR [--generation G] | --assigned FILE) --
ARGV...``.

Only a process's parent learns how it ended, and a server does not stay the parent of its drivers: it
may be restarted while they run, and a server that adopts a driver cannot read its exit status. So
every supervised driver is started under a keeper - a small process that leads the driver's process
group (it is the pid recorded on the run), starts the driver as its child, waits for it, and writes the
run's outcome record (:func:`glueball.supervise.outcome.record_exit`: the driver's pid, exit code or
signal, and what the driver reported) before it exits itself the way its driver did (the same exit
code, or killed by the same signal). Whoever watches the run then reads the record, whether it
launched the driver or adopted it after a restart.

- ``--record DIR``: the run's folder, known at launch; with ``--generation G`` the keeper first claims launch
  ``G`` of that folder (:mod:`glueball.supervise.fence`) and, should a server that took the run over have
  abandoned it, exits at once (status 0, nothing recorded) without starting the driver;
- ``--assigned FILE --parent PID``: a warm driver (:mod:`glueball.runtime.warm_driver`), started by the
  pool of server ``PID`` before it has a run: once it has read a run's assignment it writes the run's
  folder into ``FILE`` (``$GLUEBALL_WARM_ASSIGNED``), and the record goes there - a driver that never
  took its run records nothing, so it is not taken for one that ran. While ``FILE`` does not exist the
  driver is idle, and should the server go away (the keeper's parent is no longer ``PID``), the keeper
  ends it: an idle warm driver does not outlive its pool.

The driver dies with its keeper (``PR_SET_PDEATHSIG``), so no driver runs unwatched by one. Signals
sent to the keeper alone (SIGTERM, SIGINT, SIGHUP) are passed on to the driver; a signal to the whole
group (how runs are stopped) reaches both.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from glueball.supervise import fence
from glueball.supervise.outcome import assignment_of, record_exit
from glueball.supervise.process import die_with_parent

ASSIGNED_ENV = "GLUEBALL_WARM_ASSIGNED"  # where a warm driver names the folder of the run it took
PASSED_ON = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
IDLE_POLL_SECONDS = 0.5
GRACE_SECONDS = 10.0
# testing knob: a keeper waits while the file this names exists, before it claims its launch
CLAIM_GATE_ENV = "GLUEBALL_CLAIM_GATE"


def pass_gate(variable: str) -> None:
    """Wait while the gate ``variable`` names (a testing knob: a file) is closed."""
    gate = os.environ.get(variable)
    while gate and Path(gate).exists():
        time.sleep(0.05)


def command(argv: list[str], record: Path | None = None, assigned: Path | None = None,
            generation: int | None = None) -> list[str]:
    """``argv`` run under a keeper recording into ``record`` (claiming its launch ``generation`` there first, when
    given), or into the folder ``assigned`` will name (a warm driver, which is this process's to assign)."""
    if record is not None:
        where = ["--record", str(record), *(["--generation", str(generation)] if generation is not None else [])]
    else:
        where = ["--assigned", str(assigned), "--parent", str(os.getpid())]
    return [sys.executable, "-m", "glueball.supervise.keeper", *where, "--", *argv]


USAGE = ("usage: python -m glueball.supervise.keeper (--record DIR [--generation G] | --assigned FILE --parent PID) "
         "-- ARGV...")


@dataclass(frozen=True)
class Kept:
    """What the keeper keeps: where it records (``record``, or the folder ``assigned`` names), the launch it claims
    first (``generation``), the process that started it (``parent``) and the driver's command."""

    record: Path | None
    assigned: Path | None
    parent: int
    argv: list[str]
    generation: int | None = None


def _parse(argv: list[str]) -> Kept:
    if "--" not in argv:
        raise ValueError(USAGE)
    split = argv.index("--")
    options, driver = dict(zip(argv[:split:2], argv[1:split:2], strict=False)), argv[split + 1:]
    if not driver or len(options) * 2 != split or \
            set(options) not in ({"--record"}, {"--record", "--generation"}, {"--assigned", "--parent"}):
        raise ValueError(USAGE)
    if "--record" in options:
        generation = options.get("--generation")
        if generation is not None and not generation.isdigit():
            raise ValueError(USAGE)
        return Kept(Path(options["--record"]), None, os.getppid(), driver,
                    int(generation) if generation is not None else None)
    if not options["--parent"].isdigit():
        raise ValueError(USAGE)
    return Kept(None, Path(options["--assigned"]), int(options["--parent"]), driver)


ABANDONED = "glueball keeper: a server that took this run over abandoned this launch; the driver is not started"


def keep(kept: Kept) -> int:
    """Run the kept driver; its exit status (negative: the signal that killed it). With a ``generation``, the launch
    is claimed first: an abandoned one ends here, status 0 and nothing recorded."""
    record, assigned, parent = kept.record, kept.assigned, kept.parent
    if record is not None and kept.generation is not None:
        pass_gate(CLAIM_GATE_ENV)
        if not fence.claim(record, kept.generation):
            print(ABANDONED, file=sys.stderr)
            return 0
    child = subprocess.Popen(kept.argv, preexec_fn=die_with_parent)  # safe: the keeper has no threads

    def pass_on(number: int, _frame: object) -> None:
        if child.returncode is None:
            try:
                child.send_signal(number)
            except ProcessLookupError:
                pass

    for number in PASSED_ON:
        signal.signal(number, pass_on)
    while True:
        try:
            returncode = child.wait(timeout=IDLE_POLL_SECONDS if assigned is not None else None)
            break
        except subprocess.TimeoutExpired:
            if assigned is not None and os.getppid() != parent and not assigned.exists():
                _end_idle(child)  # the pool's server is gone and the driver had no run: it goes too
                return 0
    folder = record if record is not None else (assignment_of(assigned) if assigned is not None else None)
    if folder is not None:
        try:
            record_exit(folder, child.pid, returncode)
        except OSError as exc:  # the folder cannot be written: the watcher says the end went unrecorded
            print(f"glueball keeper: the outcome of pid {child.pid} could not be recorded: {exc}", file=sys.stderr)
    return returncode


def _end_idle(child: subprocess.Popen[bytes]) -> None:
    child.terminate()
    try:
        child.wait(timeout=GRACE_SECONDS)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()


def exit_as(returncode: int) -> None:
    """End this process as the driver ended: its exit code, or killed by its signal."""
    if returncode >= 0:
        sys.exit(returncode)
    number = -returncode
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        if number != signal.SIGKILL:
            signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)
    except (OSError, ValueError):
        pass
    os._exit(128 + number)  # a signal whose default is not to end the process


def main(argv: list[str]) -> None:
    try:
        kept = _parse(argv)
    except ValueError as exc:
        print(str(exc), file=sys.stderr)
        sys.exit(2)
    exit_as(keep(kept))


if __name__ == "__main__":
    main(sys.argv[1:])
