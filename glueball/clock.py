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
