"""The durable outcome record of a supervised run: how its process ended, written before anyone reads it.

Every supervised run has a folder of its own (a job run's log directory, a session's, a data quality
run's ...) and three files there:

``driver.json``
    which process runs it (host, pid, start time), written the moment it is launched
    (:func:`write_driver`) - so a server that died before storing the driver still finds it;
``report.json``
    what the driver itself says about its work before it exits (:func:`report`: ``SUCCEEDED`` or
    ``FAILED`` and a message, and any details of its kind) - for the kinds whose exit status alone
    does not say it (a data quality run publishes results; a layout script writes a layout);
``outcome.json``
    the record: written by the driver's keeper (:mod:`glueball.supervise.keeper`), its parent, when
    the driver ended - the driver's pid, its exit code or the signal that killed it, and the report,
    if any, folded in (:func:`record_exit`); or written by the thread that ran the work when there is
    no process (a crawl: :func:`record`).

Each is written to a temporary file, fsync'd, renamed into place and the folder fsync'd: a reader sees
a whole record or none, also after a crash of the machine. Whoever watches the run - its server, or
after a restart the server that adopts or settles it - reads :func:`read`; a run whose process ended
with no record is settled as such (:meth:`Outcome.failure`), never as a success inferred from the
absence of an error.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from glueball.supervise import driverenv
from glueball.supervise.process import DriverProcess, error_message, host_name, process_start, stale_seconds

RECORD = "outcome.json"
REPORT = "report.json"
DRIVER = "driver.json"
SUCCEEDED = "SUCCEEDED"
FAILED = "FAILED"


def write_durably(path: Path, body: dict[str, Any]) -> None:
    """Write ``body`` as JSON to ``path`` so that it is whole or absent, also across a crash of the machine."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with temporary.open("w", encoding="utf-8") as out:
        json.dump(body, out, default=str)
        out.flush()
        os.fsync(out.fileno())
    os.replace(temporary, path)
    sync_folder(path.parent)


def sync_folder(directory: Path) -> None:
    """Make the names just written in ``directory`` survive a crash of the machine."""
    folder = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


def read_json(path: Path) -> dict[str, Any] | None:
    """The JSON object in ``path``; None when there is none (missing, unreadable, not an object)."""
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) else None


@dataclass(frozen=True)
class Outcome:
    """How a run's process ended.

    ``code`` is its exit status and ``signal`` the signal that killed it (one of the two is set when
    the ending was seen); both None when it ended unseen - adopted by a server that is not its parent,
    and no keeper recorded it. ``status``, ``message`` and ``details`` are what the driver reported
    about its work (None: it reported nothing).
    """

    pid: int | None
    code: int | None = None
    signal: int | None = None
    status: str | None = None
    message: str | None = None
    details: dict[str, Any] = field(default_factory=dict)
    recorded: bool = False  # read from a record (not only seen by the watcher)
    ended_at: float | None = None  # epoch seconds, as recorded

    @property
    def seen(self) -> bool:
        """Whether how the process ended is known (an exit status or a signal)."""
        return self.code is not None or self.signal is not None

    @property
    def exited_cleanly(self) -> bool:
        return self.code == 0

    @property
    def reported_success(self) -> bool:
        return self.status == SUCCEEDED and self.exited_cleanly

    def failure(self, driver: str = "The driver") -> str:
        """Why the process did not end well, in words: killed by which signal, which exit code, or unknown."""
        if self.signal is not None:
            return f"{driver} (pid {self.pid}) was killed (signal {self.signal})"
        if self.code is not None:
            return f"Command failed with exit code {self.code}"
        return (f"{driver} (pid {self.pid}) ended without recording how: it was killed together with its "
                "keeper, or it never took up the run")

    def to_json(self) -> dict[str, Any]:
        return {"Pid": self.pid, "ExitCode": self.code, "Signal": self.signal, "Status": self.status,
                "Message": self.message, "Details": self.details, "EndedAt": self.ended_at or time.time()}


def _of_json(body: dict[str, Any]) -> Outcome:
    def number(key: str) -> int | None:
        value = body.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    details, ended_at = body.get("Details"), body.get("EndedAt")
    return Outcome(number("Pid"), number("ExitCode"), number("Signal"),
                   body.get("Status") if isinstance(body.get("Status"), str) else None,
                   body.get("Message") if isinstance(body.get("Message"), str) else None,
                   details if isinstance(details, dict) else {}, recorded=True,
                   ended_at=float(ended_at) if isinstance(ended_at, int | float) else None)


def report(status: str, message: str | None = None, directory: Path | None = None, **details: Any) -> None:
    """The driver's own word on its work (``SUCCEEDED``/``FAILED`` and why), for its keeper to record.

    Written to ``directory``, by default the run's folder of the driver contract
    (``GLUEBALL_JOB_LOG_DIR``, :mod:`glueball.supervise.driverenv`); a driver outside a run has none.
    """
    folder = directory or driverenv.current().log_dir
    if folder is None:
        return
    write_durably(folder / REPORT, {"Status": status, "Message": message, "Details": details})


def record_exit(directory: Path, pid: int, returncode: int) -> Outcome:
    """The keeper's record of its driver's end (``returncode`` as :class:`subprocess.Popen` has it), the
    driver's report folded in."""
    said = read_json(directory / REPORT) or {}
    details = said.get("Details")
    outcome = Outcome(pid, returncode if returncode >= 0 else None, -returncode if returncode < 0 else None,
                      said.get("Status"), said.get("Message"), details if isinstance(details, dict) else {},
                      recorded=True)
    write_durably(directory / RECORD, outcome.to_json())
    return outcome


def record(directory: Path, status: str, message: str | None = None, name: str = RECORD, **details: Any) -> None:
    """The record of work that ran without a process of its own (a crawl in its server's thread): ended now,
    with ``status``."""
    body = Outcome(os.getpid(), 0, None, status, message, details).to_json()
    write_durably(directory / name, body)


def read(directory: Path | None, name: str = RECORD) -> Outcome | None:
    """The run's record, or None when there is none (yet)."""
    if directory is None:
        return None
    body = read_json(directory / name)
    return _of_json(body) if body is not None else None


def ended(directory: Path | None, code: int | None, pid: int | None, host: str | None = None) -> Outcome:
    """How a driver that ended by itself ended: its record; else what its watcher saw of its keeper - the exit
    status (``code``, negative for a signal, as :class:`subprocess.Popen` has it), None when it was adopted.

    A driver adopted from another host (``host``, its server gone: only its heartbeat said so) cannot be watched
    from here, nor its record read: the run is FAILED saying so (:func:`foreign_driver`)."""
    found = read(directory)
    if found is not None:
        return found
    if code is None and host is not None and host != host_name():
        return Outcome(pid, status=FAILED, message=foreign_driver(host, pid))
    if code is None:
        return Outcome(pid)
    return Outcome(pid, code if code >= 0 else None, -code if code < 0 else None)


def foreign_driver(host: str, pid: int | None) -> str:
    """Why a run whose driver runs on another host is failed by the server that took it over."""
    return (f"the server watching this run on host {host} stopped (no heartbeat for {stale_seconds():g} s) and its "
            f"driver (pid {pid}) runs on that host, where this server ({host_name()}) can neither watch it nor read "
            "how it ended: the run is failed (its driver may still be running there)")


def verdict(end: Outcome, error_log: Path | None, driver: str = "The driver",
            reported: bool = False) -> tuple[bool, str | None]:
    """Whether a run whose driver ended by itself succeeded, and if not why.

    Success is exit status 0 (and, for a kind whose driver ``reported`` its work, a SUCCEEDED report): never
    the absence of an error. A failure's message is the driver's own, else the script's exception (the last
    traceback of ``error_log``) for a non-zero exit, else what is known of its end: the signal that killed it,
    its exit code, or that it ended unrecorded.
    """
    if end.exited_cleanly and (end.status == SUCCEEDED if reported else end.status != FAILED):
        return True, None
    if end.status == FAILED:
        return False, end.message or end.failure(driver)
    if end.exited_cleanly:
        return False, "the driver exited without recording the run's outcome"
    if end.code is not None and error_log is not None:
        return False, error_message(error_log) or end.failure(driver)
    return False, end.failure(driver)


def clear(directory: Path) -> None:
    """Forget a previous run's files in a folder used again (a session id may be used again)."""
    for name in (RECORD, REPORT, DRIVER):
        (directory / name).unlink(missing_ok=True)


def write_driver(directory: Path, pid: int, events: Path | None = None) -> None:
    """Note, as it is launched, which process runs the run of ``directory`` (the keeper: its group's leader), and
    where its Spark event logs go when not into the folder's ``events`` (a warm driver's own folder)."""
    body: dict[str, Any] = {"Host": host_name(), "Pid": pid, "Start": process_start(pid)}
    if events is not None:
        body["Events"] = str(events)
    write_durably(directory / DRIVER, body)


def event_dirs(directory: Path | None) -> list[Path]:
    """Where the driver of the run of ``directory`` wrote its Spark event logs."""
    if directory is None:
        return []
    body = read_json(directory / DRIVER) or {}
    events = body.get("Events")
    return [directory / "events", *([Path(events)] if isinstance(events, str) else [])]


def note_assignment(path: Path, folder: Path) -> None:
    """Tell a warm driver's keeper (through ``path``) the folder of the run its driver now serves."""
    write_durably(path, {"Folder": str(folder)})


def assignment_of(path: Path) -> Path | None:
    """The run folder :func:`note_assignment` wrote to ``path``; None while the driver has no run."""
    body = read_json(path)
    folder = body.get("Folder") if body is not None else None
    return Path(folder) if isinstance(folder, str) and folder else None


def read_driver(directory: Path | None) -> DriverProcess | None:
    """The process noted by :func:`write_driver`, or None."""
    body = read_json(directory / DRIVER) if directory is not None else None
    if body is None or not isinstance(body.get("Pid"), int):
        return None
    start = body.get("Start")
    return DriverProcess(str(body.get("Host")), body["Pid"], start if isinstance(start, int) else None)
