"""What enforcement remembers between requests: values kept for a second, and forgotten at once when
IAM changes in this process (the identity services count their changes: ``IamService.generation``).
Other server processes (``--workers``) see a change within that second."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

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
            return found[0]  # (what entry() answers, without making a pair: the edge asks this per request)
        return self.entry(key, make, keep)[0]

    def entry(self, key: K, make: Callable[[], V], keep: Callable[[V], bool] | None = None) -> tuple[V, float]:
        """The value of ``key`` and when it was made (``time.monotonic()``, before making it)."""
        generation = self.generation()  # read before making: a change during it is not missed
        found = self._values.get(key)
        if found is not None and found[2] == generation and time.monotonic() - found[1] < SECONDS:
            return found[0], found[1]
        made = time.monotonic()
        value = make()
        if keep is not None and not keep(value):
            return value, made
        with self._lock:
            if len(self._values) > LIMIT:
                self._values.clear()
            self._values[key] = (value, made, generation)
        return value, made

    def clear(self) -> None:
        with self._lock:
            self._values.clear()


_LOWERING = threading.Lock()


class CallerMemory:
    """What the authorizer worked out for one caller object (kept in its ``memo``): the caller's identity-based
    policies, the resource policies of the catalogs it reached, and its decisions that may be remembered. It
    holds while this process makes no IAM change (``generation``) and for at most :data:`SECONDS` (changes made
    by other processes): the same bounds as :class:`Remembered`, checked once per request rather than once per
    value."""

    __slots__ = ("allowed_by_name", "catalogs", "decisions", "generation", "identity_policies", "made")

    def __init__(self, generation: int) -> None:
        self.generation = generation  # read before anything is looked up: a change meanwhile is not missed
        self.made = time.monotonic()
        self.identity_policies: tuple[Any, ...] | None = None
        self.catalogs: dict[tuple[str, str], tuple[Any, ...]] = {}
        self.decisions: dict[tuple[Any, ...], tuple[Any, tuple[Any, ...]]] = {}
        # Glue requests by name (operation, catalog, database, name, table) allowed with a decision kept here
        self.allowed_by_name: set[tuple[str | None, ...]] = set()

    def read(self, made: float) -> None:
        """Something kept here was read at ``made`` (a remembered value, perhaps older than this memory): the
        memory holds no longer than it would."""
        with _LOWERING:  # two requests of one caller may read at once: the earlier read must win
            if made < self.made:
                self.made = made

    def current(self, generation: int) -> bool:
        """Whether what is kept still holds when this process's IAM generation is ``generation``."""
        return self.generation == generation and time.monotonic() - self.made < SECONDS

    def keep(self, question: tuple[Any, ...], outcome: Any, resource_policies: tuple[Any, ...]) -> None:
        if len(self.decisions) >= LIMIT:  # questions come from requests: bounded
            self.decisions.clear()
            self.allowed_by_name.clear()
        self.decisions[question] = (outcome, resource_policies)

    def allow_by_name(self, named: tuple[str | None, ...]) -> None:
        if len(self.allowed_by_name) >= LIMIT:
            self.allowed_by_name.clear()
        self.allowed_by_name.add(named)
