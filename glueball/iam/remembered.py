"""What enforcement remembers between requests: values kept for a second, and forgotten at once when
IAM changes in this process (the identity services count their changes: ``IamService.generation``).
Other server processes (``--workers``) see a change within that second."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

SECONDS = 1.0
LIMIT = 10000  # entries before the whole memory is dropped (keys come from requests)


class Remembered(Generic[K, V]):
    """A value per key, made by ``make`` when missing, older than :data:`SECONDS`, or older than the
    last IAM change of this process (``generation()``)."""

    def __init__(self, generation: Callable[[], int]) -> None:
        self.generation = generation
        self._values: dict[K, tuple[V, float, int]] = {}
        self._lock = threading.Lock()

    def get(self, key: K, make: Callable[[], V], keep: Callable[[V], bool] | None = None) -> V:
        """The value of ``key``; a new one is remembered unless ``keep`` says no."""
        generation = self.generation()  # read before making: a change during it is not missed
        found = self._values.get(key)
        if found is not None and found[2] == generation and time.monotonic() - found[1] < SECONDS:
            return found[0]
        value = make()
        if keep is not None and not keep(value):
            return value
        with self._lock:
            if len(self._values) > LIMIT:
                self._values.clear()
            self._values[key] = (value, time.monotonic(), generation)
        return value

    def clear(self) -> None:
        with self._lock:
            self._values.clear()
