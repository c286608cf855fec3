"""Opaque continuation tokens: the sort key of the last item returned."""

from __future__ import annotations

import base64
import json
from typing import Any

from glueball.errors import InvalidInputException


def encode_token(position: Any) -> str:
    return base64.urlsafe_b64encode(json.dumps(position).encode()).decode()


def decode_token(token: str | None) -> Any:
    """The position of a token from :func:`encode_token`, or None for the first page."""
    if token is None:
        return None
    try:
        return json.loads(base64.urlsafe_b64decode(token.encode()))
    except (ValueError, UnicodeDecodeError) as exc:
        raise InvalidInputException(f"Invalid NextToken: {token[:64]!r}") from exc


def page_size(max_results: int | None, default: int = 100, limit: int = 1000) -> int:
    return min(max_results or default, limit)


def paged(member: str, items: list[Any], token: str | None) -> dict[str, Any]:
    """A list response: ``{member: items}``, with ``NextToken`` when there is a next page."""
    response: dict[str, Any] = {member: items}
    if token:
        response["NextToken"] = token
    return response
