"""Processes: who supervises (``host:pid:boot``), whether a supervisor or a driver still lives, signals.

A supervising process records :func:`process_identity` and a heartbeat on every run it watches;
:func:`is_orphan` tells from those two whether that process is gone (another host: only by a stale
heartbeat). A driver is recorded as ``(host, pid, start)``, the start time telling a reused pid
apart (:func:`driver_alive`). Drivers lead their own process group, so :func:`signal_group` ends
the driver with its JVM and any other child.
"""

from __future__ import annotations

import os
import signal
import socket
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

STALE_SECONDS = 120.0
TIMEOUT_UNIT_ENV = "GLUEBALL_JOB_TIMEOUT_UNIT_SECONDS"
_BOOT_ID = uuid.uuid4().hex[:12]


def host_name() -> str:
    return socket.gethostname()


def process_identity() -> str:
    """``host:pid:boot`` of this process, recorded on the runs it watches."""
    return f"{host_name()}:{os.getpid()}:{_BOOT_ID}"


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def is_orphan(runner: str | None, heartbeat: float | None, now: float | None = None) -> bool:
    """Whether a run recorded as watched by ``runner`` (heartbeat at ``heartbeat``) has no live watcher."""
    if runner is None:
        return True
    now = time.time() if now is None else now
    host, _, rest = runner.partition(":")
    pid_text, _, boot = rest.partition(":")
    stale = heartbeat is None or now - heartbeat > STALE_SECONDS
    if host != host_name():
        return stale
    if not pid_text.isdigit():
        return True
    pid = int(pid_text)
    if pid == os.getpid():
        return boot != _BOOT_ID
    return not pid_alive(pid) or stale


@dataclass(frozen=True)
class DriverProcess:
    """A driver as recorded on its run: where it runs, its pid, and its start time (clock ticks after boot)."""

    host: str | None
    pid: int | None
    start: int | None

    def alive(self) -> bool:
        return driver_alive(self.host, self.pid, self.start)


def process_start(pid: int) -> int | None:
    """The start time of process ``pid`` in clock ticks after boot (Linux), to tell a reused pid apart."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text.rpartition(")")[2].split()
    try:
        return int(fields[19])  # field 22 of stat; fields[0] is field 3 (state)
    except (IndexError, ValueError):
        return None


def driver_alive(host: str | None, pid: int | None, start: int | None) -> bool:
    """Whether the recorded driver still runs: same host, its pid alive (not a zombie) and started when recorded."""
    if host != host_name() or pid is None:
        return False
    current = process_start(pid)
    if current is None:
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[:1]
    except OSError:
        return False
    if state == ["Z"]:
        return False
    return start is None or current == start


def signal_group(pid: int, sig: int = signal.SIGTERM) -> None:
    """Send ``sig`` to the driver's process group (the driver, its JVM, its children)."""
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def die_with_parent() -> None:
    """In a child before exec: SIGKILL when its parent dies (``PR_SET_PDEATHSIG``, Linux); a child whose parent
    is already gone ends at once."""
    import ctypes

    parent = os.getppid()
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # 1: PR_SET_PDEATHSIG
    if os.getppid() != parent:
        os._exit(1)


def timeout_unit_seconds() -> float:
    """Seconds per minute of a run's ``Timeout``: 60, or ``GLUEBALL_JOB_TIMEOUT_UNIT_SECONDS`` (tests)."""
    try:
        return float(os.environ.get(TIMEOUT_UNIT_ENV, "60"))
    except ValueError:
        return 60.0


def error_message(error_log: Path, limit: int = 4096) -> str | None:
    """The script's exception as Glue reports it: the last traceback's final line (``ValueError: ...``).

    A Py4J error's own line only names the JVM call (``An error occurred while calling o45.load.``): the
    Java exception Py4J prints after it (``: java.sql.SQLException: ...``) and the deepest ``Caused by:``
    of its stack trace are kept too, on the same line, because they say why.
    """
    try:
        with error_log.open("rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - 256 * 1024))
            lines = handle.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return None
    starts = [i for i, line in enumerate(lines) if line.startswith("Traceback (most recent call last)")]
    if not starts:
        return None
    following = lines[starts[-1] + 1:]
    for index, line in enumerate(following):
        if line.strip() and not line[0].isspace():
            return " ".join([line.strip(), *_java_cause(following[index + 1:])])[:limit]
    return None


def _java_cause(lines: list[str]) -> list[str]:
    """The Java exception printed after a Py4J error line, and its deepest ``Caused by:``."""
    found: list[str] = []
    root = ""
    for line in lines:
        if line.startswith(": ") and not found:
            found.append(line.strip())
        elif line.startswith("Caused by: "):
            root = line.strip()
        elif not line.startswith(("\t", " ")) or not found:
            break
    return [*found, root] if root else found
