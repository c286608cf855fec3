"""Opaque continuation tokens, bound to the operation that issued them.

A token carries the position after the last item returned (a name, an offset, a key tuple) and
the operation it belongs to. :func:`decode_token` refuses a token that is not one of ours, that
another operation issued (a GetJobs token handed to GetJobRuns), or whose position is not of the
kind the listing expects, with ``InvalidInputException`` naming ``NextToken`` - never a 500, never
a silently empty page.

The edge binds the operation being served (:func:`serving`); code that lists outside a request
(the CLI, the runtime) shares one unnamed binding, so its tokens round-trip among themselves.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

from glueball.errors import InvalidInputException

_OPERATION: ContextVar[str] = ContextVar("glueball_paginated_operation", default="")
_MAX_OFFSET = 2**31 - 1
T = TypeVar("T")


@contextmanager
def serving(operation: str) -> Iterator[None]:
    """Bind the tokens issued and accepted while serving ``operation`` (``service:Operation``)."""
    reset = _OPERATION.set(operation)
    try:
        yield
    finally:
        _OPERATION.reset(reset)


def encode_token(position: Any) -> str:
    """A token for ``position`` (JSON-able), bound to the operation being served."""
    payload = json.dumps([_OPERATION.get(), position], separators=(",", ":"))
    return base64.urlsafe_b64encode(payload.encode()).decode()


def decode_token(token: str | None, expect: type[T]) -> T | None:
    """The position a token of this operation carries, or None for the first page.

    ``expect`` is the position's kind: ``str`` (a name), ``int`` (an offset, 0 to 2^31-1) or
    ``list`` (a key tuple of strings and integers).

    Raises:
        InvalidInputException: a token glueball did not issue, issued by another operation, or
            whose position is not an ``expect``.
    """
    if token is None:
        return None
    try:
        decoded = json.loads(base64.urlsafe_b64decode(token.encode("utf-8", "strict")))
    except (ValueError, UnicodeError, binascii.Error, RecursionError) as exc:
        raise _invalid(token, "it is not a token glueball issued") from exc
    if not (isinstance(decoded, list) and len(decoded) == 2 and isinstance(decoded[0], str)):
        raise _invalid(token, "it is not a token glueball issued")
    operation, position = decoded
    if operation != _OPERATION.get():
        raise _invalid(token, "it was issued by another operation")
    if not _is(position, expect):
        raise _invalid(token, "it does not mark a position of this listing")
    return position


def _is(position: Any, expect: type) -> bool:
    if expect is int:
        return type(position) is int and 0 <= position <= _MAX_OFFSET
    if expect is str:
        return isinstance(position, str)
    if expect is list:
        return isinstance(position, list) and all(
            isinstance(p, str) or (type(p) is int and abs(p) < 2**63) for p in position)
    return False


def _invalid(token: str, why: str) -> InvalidInputException:
    shown = token if len(token) <= 64 else token[:61] + "..."
    return InvalidInputException(f"Invalid NextToken {shown!r}: {why}")


def page_size(max_results: int | None, default: int = 100, limit: int = 1000) -> int:
    return min(max_results or default, limit)


def paged(member: str, items: list[Any], token: str | None) -> dict[str, Any]:
    """A list response: ``{member: items}``, with ``NextToken`` when there is a next page."""
    response: dict[str, Any] = {member: items}
    if token:
        response["NextToken"] = token
    return response


def page_in_order(items: list[T], key: Any, max_results: int, token: str | None) -> tuple[list[T], str | None]:
    """One page of ``items`` (already in ``key`` order, ``key(item)`` a str): those after the token's
    position, at most ``max_results``, and the token of the next page (None on the last).

    Raises:
        InvalidInputException: the token is not one of this listing's.
    """
    after = decode_token(token, str)
    rest = [item for item in items if after is None or key(item) > after]
    page = rest[:max_results]
    return page, encode_token(key(page[-1])) if len(rest) > max_results else None
