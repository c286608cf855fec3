"""The ML transforms area: FindMatches transforms as stored resources (their task runs are refused)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from glueball.api.operations import Operations
from glueball.store.engine import Store

OPERATIONS = Operations("glue")


@dataclass(frozen=True, eq=False)
class MLTransformNeeds:
    """What ML transform handlers are given.

    Attributes:
        store: the store.
        table_columns: (scope, database, table) -> the table's columns as Glue's ``Column`` structures (its
            partition keys last); raises ``EntityNotFoundException`` when the table or database does not exist.
    """

    store: Store
    table_columns: Callable[[Any, str, str], list[dict[str, Any]]]
