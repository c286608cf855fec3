"""Typing that is decided lazily: the raw records of a read whose per-column types are not yet known.

A raw CSV read yields text columns; typing them as Glue does (long, double, choices)
needs a pass over the data. A frame read that way keeps the raw records and the names
of the columns still to type in a ``PendingTyping``. Transformations that state the
types they want (ApplyMapping with target types) read the raw columns directly; the
typing pass runs only when something needs the inferred schema (``schema()``,
``toDF()``, an unmapped write, choice resolution), once per frame.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

Resolver = Callable[["DataFrame", tuple[str, ...]], "DataFrame"]


@dataclass(frozen=True)
class PendingTyping:
    """Raw records and the columns whose typing is pending.

    Attributes:
        raw: the records, the pending columns as text.
        columns: the names of the pending columns; every other column is typed already.
        resolver: types ``raw``'s pending columns (the eager typing), given ``raw`` and ``columns``.
    """

    raw: DataFrame
    columns: tuple[str, ...]
    resolver: Resolver

    def resolve(self) -> DataFrame:
        """The records typed as an eager read types them (costs the inference pass)."""
        return self.resolver(self.raw, self.columns)
