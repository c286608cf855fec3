"""Lookups of log groups and streams, and CloudWatch Logs' continuation tokens.

Missing resources answer CloudWatch Logs' own words: ``The specified log group does not exist.``
and ``The specified log stream does not exist.`` (ResourceNotFoundException).
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from glueball.logs.errors import InvalidParameterException, ResourceNotFoundException
from glueball.store.log_tables import LogGroupRow, LogStreamRow
from glueball.store.scoped import Scope

GROUP_MISSING = "The specified log group does not exist."
STREAM_MISSING = "The specified log stream does not exist."


def group_row(session: Session, scope: Scope, name: str, lock: bool = False) -> LogGroupRow:
    """The log group ``name`` of ``scope``.

    Raises:
        ResourceNotFoundException: there is no such group.
    """
    query = select(LogGroupRow).where(LogGroupRow.account_id == scope.account_id,
                                      LogGroupRow.region == scope.region, LogGroupRow.name == name)
    row = session.scalars(query.with_for_update() if lock else query).one_or_none()
    if row is None:
        raise ResourceNotFoundException(GROUP_MISSING)
    return row


def stream_row(session: Session, group: LogGroupRow, name: str, lock: bool = False) -> LogStreamRow:
    """The stream ``name`` of ``group``.

    Raises:
        ResourceNotFoundException: there is no such stream.
    """
    query = select(LogStreamRow).where(LogStreamRow.group_id == group.id, LogStreamRow.name == name)
    row = session.scalars(query.with_for_update() if lock else query).one_or_none()
    if row is None:
        raise ResourceNotFoundException(STREAM_MISSING)
    return row


def changed(result: Any) -> int:
    """The rows an UPDATE or DELETE changed (what a compare-and-swap reads)."""
    return int(result.rowcount)


def group_arn(scope: Scope, name: str) -> str:
    """``logGroupArn``: the group's ARN as IAM and TagResource name it."""
    return f"arn:aws:logs:{scope.region}:{scope.account_id}:log-group:{name}"


def stream_arn(scope: Scope, group: str, stream: str) -> str:
    return f"{group_arn(scope, group)}:log-stream:{stream}"


def group_of_identifier(scope: Scope, identifier: str) -> str:
    """The group named by a ``logGroupIdentifier`` or a ``resourceArn``: a name, or an ARN of a group of the
    caller's account and region (with or without its trailing ``:*``).

    Raises:
        InvalidParameterException: an ARN that is not a log group's, or of another account or region.
        ResourceNotFoundException: an ARN of a group in another account (glueball links no accounts).
    """
    if not identifier.startswith("arn:"):
        return identifier
    parts = identifier.split(":", 6)
    if len(parts) < 7 or parts[2] != "logs" or parts[5] != "log-group":
        raise InvalidParameterException(f"{identifier} is not the ARN of a log group")
    if parts[4] != scope.account_id or parts[3] != scope.region:
        raise ResourceNotFoundException(GROUP_MISSING)
    name = parts[6]
    return name[:-2] if name.endswith(":*") else name


def one_group(scope: Scope, name: str | None, identifier: str | None) -> str:
    """The group a request names by ``logGroupName`` or ``logGroupIdentifier`` (exactly one of them).

    Raises:
        InvalidParameterException: neither or both are given.
    """
    if (name is None) == (identifier is None):
        raise InvalidParameterException("Exactly one of logGroupName and logGroupIdentifier must be given")
    return name if name is not None else group_of_identifier(scope, str(identifier))


def encode_token(kind: str, position: Any) -> str:
    """A continuation token of listing ``kind`` at ``position`` (JSON-able)."""
    return base64.urlsafe_b64encode(json.dumps([kind, position], separators=(",", ":")).encode()).decode()


def decode_token(token: str | None, kind: str) -> Any:
    """The position a token of listing ``kind`` carries (None for no token).

    Raises:
        InvalidParameterException: not a token glueball issued for this listing.
    """
    if token is None:
        return None
    try:
        decoded = json.loads(base64.urlsafe_b64decode(token.encode("utf-8", "strict")))
    except (ValueError, UnicodeError, binascii.Error, RecursionError):
        decoded = None
    if not (isinstance(decoded, list) and len(decoded) == 2 and decoded[0] == kind):
        raise InvalidParameterException(f"The specified nextToken is invalid: {token[:64]!r}")
    return decoded[1]
