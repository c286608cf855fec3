"""Time in UTC, as the JSON protocol carries it (epoch seconds)."""

from __future__ import annotations

import datetime as dt
import time
from typing import Any


def now() -> float:
    return round(time.time(), 3)


def epoch(value: Any) -> float:
    """A wire timestamp (epoch number or ISO 8601 text, as validated) in epoch seconds."""
    if isinstance(value, int | float):
        return float(value)
    parsed = dt.datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=dt.UTC)
    return parsed.timestamp()


class SchedulerClock:
    """The time schedules are decided by: the wall clock, or a file's for tests and rehearsals.

    With ``GLUEBALL_CLOCK_FILE`` (``glueball server --clock-file``) set, the scheduler's "now" is the
    epoch seconds written in that file (the wall clock while the file is missing or unreadable), so a
    test moves time forward by rewriting the file: schedules fire at once, without waiting for the
    minute they name, and every server reading the same file sees the same time. Run timestamps
    (StartedOn, CompletedOn) stay on the wall clock.
    """

    def __init__(self, path: str | None = None) -> None:
        import os

        self.path = path if path is not None else os.environ.get("GLUEBALL_CLOCK_FILE") or None

    def now(self) -> float:
        if self.path:
            try:
                with open(self.path) as handle:
                    return float(handle.read().strip())
            except (OSError, ValueError):
                pass
        return time.time()
