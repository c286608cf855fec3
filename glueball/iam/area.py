"""The identity area: the STS operations it serves (query protocol) and what they need."""

from __future__ import annotations

from dataclasses import dataclass

from glueball.api.operations import Operations

STS_OPERATIONS = Operations("sts")


@dataclass(frozen=True, eq=False)
class IdentityNeeds:
    """What STS handlers are given: nothing yet — every access key is its account's root
    until IAM users and roles are served (the identity work adds their store here)."""
