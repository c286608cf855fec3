"""Failures that come from the server's surroundings, not from a bug: a full disk, a read-only file system.

They still answer each protocol's internal error (a 500: nothing the caller sent was wrong), but the
message names the cause, so that a client and an operator see "No space left on device" rather than
the name of an exception class. The cause is found along the exception's chain (SQLAlchemy wraps the
database driver's error, which may wrap an ``OSError``), by duck typing: the edge imports no store.
"""

from __future__ import annotations

import errno

_SQLITE_READONLY = 8  # SQLite's result codes (sqlite3.h), as sqlite3 exceptions carry them
_SQLITE_FULL = 13
_PG_DISK_FULL = "53100"  # PostgreSQL's SQLSTATE disk_full


def environment_cause(exc: BaseException) -> str | None:
    """What outside glueball made ``exc`` happen, in words for the caller; None for anything else."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        found = _cause_of(current)
        if found is not None:
            return found
        current = current.__cause__ or current.__context__ or getattr(current, "orig", None)
    return None


def _cause_of(exc: BaseException) -> str | None:
    detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return "No space left on device: the server's disk is full"  # which file is the log's to say
    if isinstance(exc, OSError) and exc.errno == errno.EROFS:
        return "Read-only file system: the server cannot write its files"
    code = getattr(exc, "sqlite_errorcode", None)
    if code == _SQLITE_FULL:
        return f"No space left on device: the server's disk is full (the catalog database: {detail})"
    if code == _SQLITE_READONLY:
        return f"Read-only file system: the catalog database cannot be written ({detail})"
    if getattr(exc, "sqlstate", None) == _PG_DISK_FULL:
        return f"No space left on device: the store's disk is full (PostgreSQL: {detail})"
    return None
