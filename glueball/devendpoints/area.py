"""The dev endpoints area: Glue's development endpoints as stored resources, and what they need."""

from __future__ import annotations

from dataclasses import dataclass

from glueball.api.operations import Operations
from glueball.store.engine import Store

OPERATIONS = Operations("glue")


@dataclass(frozen=True, eq=False)
class DevEndpointNeeds:
    """What dev endpoint handlers are given: the store."""

    store: Store
