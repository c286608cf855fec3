"""What the throwaway servers share: a folder under ``build/services``, a free port, a process that dies
with the one that started it, and a clean stop."""

from __future__ import annotations

import ctypes
import os
import pwd
import shutil
import signal
import socket
import subprocess
import time
import uuid
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

REPO = Path(__file__).resolve().parents[2]
SERVICES_DIR = REPO / "build" / "services"
PR_SET_PDEATHSIG = 1


class ServiceError(RuntimeError):
    """A throwaway server could not be started; the message says what is missing or what it printed."""


def free_port() -> int:
    with closing(socket.socket()) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def die_with_parent() -> None:
    """In the child before exec: SIGKILL when the starting process dies (also kill -9), so no server outlives
    a killed test run. Kept across exec of a plain binary; set after any change of user (which clears it)."""
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def service_user(name: str) -> str | None:
    """The system user a server runs as when this process is root (PostgreSQL refuses root), else None."""
    if os.geteuid() != 0:
        return None
    try:
        pwd.getpwnam(name)
    except KeyError:
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name],
                       check=True, capture_output=True)
    return name


def owner_of_folder(path: Path, user: str | None) -> None:
    if user is not None:
        record = pwd.getpwnam(user)
        for root, dirs, files in os.walk(path):
            for entry in (root, *(os.path.join(root, d) for d in dirs), *(os.path.join(root, f) for f in files)):
                os.chown(entry, record.pw_uid, record.pw_gid)


def new_folder(kind: str) -> Path:
    """A fresh folder ``build/services/<kind>-<pid>-<id>``, after removing any whose process is gone."""
    SERVICES_DIR.mkdir(parents=True, exist_ok=True)
    for old in SERVICES_DIR.glob("*-*-*"):
        try:
            owner = int(old.name.split("-")[1])
        except (IndexError, ValueError):
            continue
        if not _alive(owner):
            shutil.rmtree(old, ignore_errors=True)
    folder = SERVICES_DIR / f"{kind}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
    folder.mkdir()
    # a server running as its own system user must reach its folder through build/services
    for parent in (SERVICES_DIR, SERVICES_DIR.parent):
        parent.chmod(parent.stat().st_mode | 0o711)
    return folder


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def find_binary(names: tuple[str, ...], folders: tuple[str, ...], packages: str) -> str:
    """The first of ``names`` found on PATH or in ``folders`` (globs allowed, newest first)."""
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    for pattern in folders:
        for folder in sorted(Path("/").glob(pattern.lstrip("/")), reverse=True):
            for name in names:
                if (folder / name).exists():
                    return str(folder / name)
    raise ServiceError(f"{names[0]} not found: install Debian's {packages} (as root: `make services`), "
                       f"or point the suite at a running server (see tools/services/__init__.py)")


def wait_until(check: Callable[[], bool], process: subprocess.Popen[bytes] | None, log: Path, what: str,
               timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise ServiceError(f"{what} exited with {process.returncode}:\n{_tail(log)}")
        try:
            if check():
                return
        except Exception:  # noqa: BLE001 - not answering yet
            pass
        time.sleep(0.1)
    raise ServiceError(f"{what} did not answer in {timeout:.0f} s:\n{_tail(log)}")


def _tail(log: Path) -> str:
    try:
        return log.read_text(errors="replace")[-3000:]
    except OSError:
        return "(no log)"


@dataclass
class DatabaseServer:
    """A database server the suite uses: its address and, for a throwaway one, its process and folder."""

    host: str
    port: int
    user: str
    password: str
    database: str
    process: subprocess.Popen[bytes] | None = None
    folder: Path | None = None
    owned: bool = field(default=False)

    ENV_VAR = ""
    SCHEME = ""

    @classmethod
    def from_environment(cls) -> DatabaseServer | None:
        url = os.environ.get(cls.ENV_VAR, "").strip()
        if not url:
            return None
        parts = urlsplit(url)
        if not parts.hostname or not parts.path.strip("/"):
            raise ServiceError(f"{cls.ENV_VAR}={url!r}: expected {cls.SCHEME}://user[:password]@host:port/database")
        server = cls(parts.hostname, parts.port or cls.default_port(), unquote(parts.username or ""),
                     unquote(parts.password or ""), parts.path.strip("/"))
        server.check()
        return server

    @classmethod
    def start_throwaway(cls) -> DatabaseServer:
        raise NotImplementedError

    @staticmethod
    def default_port() -> int:
        raise NotImplementedError

    def check(self) -> None:
        """Fail with a clear message when the server does not answer."""

    @property
    def url(self) -> str:
        """``scheme://user[:password]@host:port/database`` (SQLAlchemy and the drivers' form)."""
        auth = self.user + (f":{self.password}" if self.password else "")
        return f"{self.SCHEME}://{auth}@{self.host}:{self.port}/{self.database}"

    @property
    def jdbc_url(self) -> str:
        raise NotImplementedError

    def connection_properties(self) -> dict[str, str]:
        """A Glue JDBC connection's properties for this server (no PASSWORD when it has none)."""
        properties = {"JDBC_CONNECTION_URL": self.jdbc_url, "USERNAME": self.user}
        if self.password:
            properties["PASSWORD"] = self.password
        return properties

    def url_of(self, database: str) -> str:
        return self.url.rsplit("/", 1)[0] + f"/{database}"

    def stop(self) -> None:
        """Stop a throwaway server and remove its folder; a server given by URL is left alone."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(self.stop_signal())
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None

    def stop_signal(self) -> int:
        return signal.SIGTERM

    def popen(self, argv: list[str], log: Path, user: str | None, **kwargs: Any) -> subprocess.Popen[bytes]:
        with log.open("ab") as out:
            return subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    user=user, preexec_fn=die_with_parent, **kwargs)
