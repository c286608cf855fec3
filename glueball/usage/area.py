"""The usage area: glueball's own ``GetUsage`` operation and what it needs."""

from __future__ import annotations

from dataclasses import dataclass

from glueball.api.operations import Operations
from glueball.store.engine import Store

INTERNAL_OPERATIONS = Operations("glueball")


@dataclass(frozen=True, eq=False)
class UsageNeeds:
    store: Store
