"""The schema registry area: Glue's registry operations (``handlers``) and what they need.

The Confluent Schema Registry REST surface over the same store is ``confluent``; the SerDe of the wire
format is ``serde``; the parsers and compatibility rules are ``compat``.
"""

from __future__ import annotations

from dataclasses import dataclass

from glueball.api.operations import Operations
from glueball.store.engine import Store

OPERATIONS = Operations("glue")


@dataclass(frozen=True, eq=False)
class RegistryNeeds:
    """What registry handlers are given: the store."""

    store: Store
