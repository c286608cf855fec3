"""The security configurations area: CreateSecurityConfiguration and its siblings, and what they need."""

from __future__ import annotations

from dataclasses import dataclass

from glueball.api.operations import Operations
from glueball.store.engine import Store

OPERATIONS = Operations("glue")


@dataclass(frozen=True, eq=False)
class SecurityNeeds:
    """What security configuration handlers are given: the store."""

    store: Store
