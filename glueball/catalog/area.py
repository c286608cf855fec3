"""The Data Catalog area: the Glue operations it serves and what it needs to serve them.

Handlers live in ``handlers`` (databases, tables), ``partition_handlers``,
``statistics_handlers`` and ``function_handlers``; all register on :data:`OPERATIONS`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from glueball.api.operations import Operations
from glueball.store.engine import Store
from glueball.store.scoped import Scope

OPERATIONS = Operations("glue")
# the Columns of a StorageDescriptor.SchemaReference (a schema registry version), in a scope
ReferencedColumns = Callable[[Scope, dict[str, Any]], list[dict[str, str]]]


@dataclass(frozen=True, eq=False)
class CatalogNeeds:
    """What catalog handlers are given: the store, and how a schema reference becomes columns (the
    schema registry's, wired by the composition root; None: references are kept but not resolved)."""

    store: Store
    referenced_columns: ReferencedColumns | None = None
