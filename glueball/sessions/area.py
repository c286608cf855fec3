"""The sessions area: Glue's session and statement operations, glueball's own for session drivers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from glueball.api.operations import Operations
from glueball.store.engine import Store

if TYPE_CHECKING:
    from glueball.sessions.runner import SessionRunner

OPERATIONS = Operations("glue")
INTERNAL_OPERATIONS = Operations("glueball")


@dataclass(frozen=True, eq=False)
class SessionNeeds:
    """What session handlers are given: the store and the process's session runner."""

    store: Store
    runner: SessionRunner
