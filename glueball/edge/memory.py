"""What request bodies may cost the server in memory, and giving that memory back.

A JSON, query or XML request is read whole and parsed into Python objects, which cost several times
the body's size: 3x for the bytes, their decoded text and the values kept, plus about 64 bytes for
every value and container a comma, bracket, brace, ``<`` or ``&`` opens (measured with tracemalloc on
Python 3.11: an empty list is 64 bytes, a two-member object about 190, a short string 57). A body of
tiny JSON objects costs ten to twenty times its size. :func:`parse_cost` estimates this from counts
the spooler makes as the body arrives, and a :class:`BodyBudget` admits bodies while the estimates of
those in flight fit, so that many concurrent large requests cannot take the server's memory: the
ones that do not fit are answered with the protocol's throttling error, and a body that would not
fit even alone is refused as too large.

Freed memory does not go back to the system by itself. glibc's ``malloc`` raises its mmap threshold
to the size of the largest block freed (up to 32 MiB), so after one 31 MB body every later one is
carved from the heap and kept there; and each thread of the pool has its own heap. The server pins the
threshold (:func:`tune_allocator`: blocks of 1 MiB and more are mapped and unmapped on free) and
returns what its heaps hold free after each large request (:func:`release_memory`, ``malloc_trim``).
Both do nothing where the C library is not glibc.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import threading
from dataclasses import dataclass

log = logging.getLogger("glueball.edge")

MIB = 1024 * 1024
_M_TRIM_THRESHOLD = -1  # mallopt parameters, from glibc's malloc.h
_M_MMAP_THRESHOLD = -3
_MAPPED_FROM = 1 * MIB
_VALUE_COST = 64  # bytes per JSON value, XML element or form pair opened (measured, see the module text)
_OBJECT_COST = 128  # more per JSON object (a dict's table) and XML element (its text and tail)

_libc: ctypes.CDLL | None = None
_looked_up = False


def _glibc() -> ctypes.CDLL | None:
    global _libc, _looked_up
    if not _looked_up:
        _looked_up = True
        name = ctypes.util.find_library("c")
        try:
            libc = ctypes.CDLL(name) if name else None
            if libc is not None and hasattr(libc, "malloc_trim") and hasattr(libc, "mallopt"):
                _libc = libc
        except OSError:
            _libc = None
    return _libc


def tune_allocator() -> bool:
    """Map blocks of 1 MiB and more on their own, so that freeing one gives it back (glibc only).

    Returns:
        whether the allocator was tuned.
    """
    libc = _glibc()
    if libc is None:
        return False
    # setting either threshold turns off glibc's dynamic raising of both
    return bool(libc.mallopt(_M_MMAP_THRESHOLD, _MAPPED_FROM)) and bool(libc.mallopt(_M_TRIM_THRESHOLD, _MAPPED_FROM))


def release_memory() -> None:
    """Give the heaps' free pages back to the system (``malloc_trim(0)``; glibc only)."""
    libc = _glibc()
    if libc is not None:
        libc.malloc_trim(0)


@dataclass
class BodyShape:
    """What a body holds that its parse will cost: its size and the bytes that open values."""

    size: int = 0
    openers: int = 0  # each of , [ { < & opens a value, an element or a form pair
    objects: int = 0  # { < : each a dict or an element

    def count(self, data: bytes | memoryview) -> None:
        raw = bytes(data) if isinstance(data, memoryview) else data
        self.size += len(raw)
        objects = raw.count(b"{") + raw.count(b"<")
        self.objects += objects
        self.openers += objects + raw.count(b",") + raw.count(b"[") + raw.count(b"&")

    @property
    def cost(self) -> int:
        """Bytes that reading and parsing the body may take (an estimate meant to be high)."""
        return parse_cost(self.size, self.openers, self.objects)


def parse_cost(size: int, openers: int = 0, objects: int = 0) -> int:
    """The memory reading a body of ``size`` bytes may take, with ``openers`` values and ``objects``
    objects or elements in it (without them: what its size alone costs)."""
    return 3 * size + _VALUE_COST * openers + _OBJECT_COST * objects


class BodyBudget:
    """Memory for request bodies being read and parsed, shared by the requests of one server process.

    Args:
        capacity: bytes of parse cost (:func:`parse_cost`) admitted at once.
    """

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.in_use = 0
        self.holders = 0
        self._lock = threading.Lock()

    def take(self, cost: int) -> bool:
        """Reserve ``cost`` bytes if they fit beside what is in use; False (nothing reserved) if not."""
        with self._lock:
            if self.in_use + cost > self.capacity:
                return False
            self.in_use += cost
            self.holders += 1
            return True

    def grow(self, held: int, cost: int) -> bool:
        """Turn a reservation of ``held`` bytes into one of ``cost``; False (``held`` still reserved) if
        the difference does not fit."""
        with self._lock:
            if self.in_use - held + cost > self.capacity:
                return False
            self.in_use += cost - held
            return True

    def give_back(self, held: int) -> None:
        with self._lock:
            self.in_use -= held
            self.holders -= 1

    def describe(self) -> str:
        """What is in use, for a refusal's message."""
        with self._lock:
            return (f"{self.holders} other large request(s) hold {self.in_use / MIB:.0f} MiB of the "
                    f"{self.capacity / MIB:.0f} MiB the server reads request bodies in")
