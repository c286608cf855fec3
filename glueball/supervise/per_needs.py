"""One runner per installation object, made on first use: what each area that runs things in the background
(data quality runs, blueprint runs, column statistics task runs) keeps for the needs it was given."""

from __future__ import annotations

import logging
import threading
import weakref
from collections.abc import Callable
from typing import Generic, TypeVar

log = logging.getLogger("glueball.supervise")

N = TypeVar("N")
R = TypeVar("R")


class RunnerPerNeeds(Generic[N, R]):
    """Runners keyed by (weakly held) needs objects.

    Args:
        make: the runner of a needs object.
        settle: what a process serving runs does once, when it makes the runner: settle the runs a stopped
            process left (failures are logged; the next process retries, serving goes on).
        what: the runs, for the log ("blueprint runs").
    """

    def __init__(self, make: Callable[[N], R], settle: Callable[[N, R], object], what: str) -> None:
        self._make = make
        self._settle = settle
        self._what = what
        self._runners: weakref.WeakKeyDictionary[N, R] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def get(self, needs: N, serves_runs: bool) -> R:
        """The runner of ``needs``; made (and, when ``serves_runs``, left runs settled) on first use."""
        with self._lock:
            found = self._runners.get(needs)
            if found is None:
                found = self._runners[needs] = self._make(needs)
                if serves_runs:
                    try:
                        self._settle(needs, found)
                    except Exception:  # the next process retries; serving goes on
                        log.exception("reconciling %s failed", self._what)
            return found
