"""Interactive sessions and their statements, as Glue's ``Session`` and ``Statement`` describe them."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class SessionState(StrEnum):
    PROVISIONING = "PROVISIONING"
    READY = "READY"
    FAILED = "FAILED"
    TIMEOUT = "TIMEOUT"
    STOPPING = "STOPPING"
    STOPPED = "STOPPED"


ENDED = frozenset({SessionState.FAILED, SessionState.TIMEOUT, SessionState.STOPPED})
LIVE = frozenset({SessionState.PROVISIONING, SessionState.READY, SessionState.STOPPING})


class StatementState(StrEnum):
    WAITING = "WAITING"
    RUNNING = "RUNNING"
    AVAILABLE = "AVAILABLE"
    CANCELLING = "CANCELLING"
    CANCELLED = "CANCELLED"
    ERROR = "ERROR"


STATEMENT_ENDED = frozenset({StatementState.AVAILABLE, StatementState.CANCELLED, StatementState.ERROR})

# Glue's defaults: a session idles out after 2,880 minutes and lives at most 2,880 (glueetl) minutes
DEFAULT_IDLE_TIMEOUT_MINUTES = 2880
DEFAULT_TIMEOUT_MINUTES = 2880
DEFAULT_GLUE_VERSION = "4.0"
COMMANDS = ("glueetl", "gluestreaming")


@dataclass
class Session:
    """One session as stored: its request (``spec``) and where it stands."""

    session_id: str
    state: SessionState
    created_on: float
    last_activity: float
    spec: dict[str, Any]
    completed_on: float | None = None
    error_message: str | None = None
    access_key: str | None = None
    log_dir: str | None = None
    driver_host: str | None = None
    driver_pid: int | None = None
    driver_start: int | None = None

    @property
    def idle_timeout_minutes(self) -> int:
        return int(self.spec.get("IdleTimeout") or DEFAULT_IDLE_TIMEOUT_MINUTES)

    @property
    def timeout_minutes(self) -> int:
        return int(self.spec.get("Timeout") or DEFAULT_TIMEOUT_MINUTES)


@dataclass
class Statement:
    statement_id: int
    code: str
    state: StatementState
    submitted_on: float
    output: dict[str, Any] | None = None
    progress: float = 0.0
    started_on: float | None = None
    completed_on: float | None = None
    cancel_requested: bool = False
