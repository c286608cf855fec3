"""The Data Catalog area: the Glue operations it serves and what it needs to serve them.

Handlers live in ``handlers`` (databases, tables), ``partition_handlers``,
``statistics_handlers`` and ``function_handlers``; all register on :data:`OPERATIONS`.
"""

from __future__ import annotations

from dataclasses import dataclass

from glueball.api.operations import Operations
from glueball.store.engine import Store

OPERATIONS = Operations("glue")


@dataclass(frozen=True, eq=False)
class CatalogNeeds:
    """What catalog handlers are given: the store."""

    store: Store
