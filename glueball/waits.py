"""Answers that wait for a change: a read held until what it reads has moved on, or a while has passed.

Clients of Glue's and Athena's APIs learn that a statement, a session or a query has ended by asking again and
again (the Glue kernel and dbt-glue every second, boto3's waiters every few). A request that would answer "still
running" can instead be held by the server until the thing ends, so the client learns of the end when it comes
rather than at its next poll: a one-second statement's floor becomes the statement's own time. What a held request
answers is still a fresh read of the store: holding changes when it is answered, never what.

A change made in this server process wakes its holders at once (:class:`Changes`); one made by another process
that shares the store is seen by the holder's next look (every :data:`LOOK_SECONDS`). Held requests run on the
edge's pool for waiting requests (:mod:`glueball.edge.asgi`), never on the threads that answer the rest of the API.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

LOOK_SECONDS = 0.1  # how often a held read looks at the store for a change made by another server process


class Changes:
    """How many changes of one kind this process has made, and a wait for the next one."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self.count = 0  # a wait that began after the count was read misses no change made since

    def note(self) -> None:
        with self._changed:
            self.count += 1
            self._changed.notify_all()

    def wait(self, seen: int, seconds: float) -> None:
        """Until a change is noted after ``seen`` (a value of :attr:`count`) or ``seconds`` pass."""
        with self._changed:
            self._changed.wait_for(lambda: self.count != seen, seconds)


def held(read: Callable[[], T], settled: Callable[[T], bool], changes: Changes, seconds: float,
         holders: threading.BoundedSemaphore) -> T:
    """``read()`` once ``settled`` says yes of it, or as it is after ``seconds``; at once when it is settled
    already, or when every one of ``holders`` is taken (then the request holds no thread beyond its own read)."""
    seen = changes.count
    found = read()
    if settled(found) or seconds <= 0 or not holders.acquire(blocking=False):
        return found
    try:
        deadline = time.monotonic() + seconds
        while True:
            left = deadline - time.monotonic()
            if left > 0:
                changes.wait(seen, min(left, LOOK_SECONDS))
            seen = changes.count
            found = read()
            if settled(found) or time.monotonic() >= deadline:
                return found
    finally:
        holders.release()
