"""Claiming a run for the process that watches it: one compare-and-swap for every table of supervised runs."""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import update
from sqlalchemy.orm import InstrumentedAttribute

from glueball.store.engine import Store


def claim_runner(store: Store, key: InstrumentedAttribute[Any], value: Any, runner: str | None,
                 identity: str) -> bool:
    """Make ``identity`` the process watching the run whose ``key`` column is ``value``, if ``runner`` (None: no
    process) still is; False when another process took it first. The table needs ``runner`` and ``heartbeat``."""
    table: Any = key.class_
    watcher = table.runner
    with store.write() as session:
        moved = session.execute(update(table).where(key == value, watcher.is_(None) if runner is None
                                                    else watcher == runner)
                                .values(runner=identity, heartbeat=time.time())
                                .execution_options(synchronize_session=False))
    return bool(moved.rowcount == 1)  # type: ignore[attr-defined]
