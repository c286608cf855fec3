"""Typing that is decided lazily: the raw records of a read whose types are not yet known.

A raw CSV read yields text columns; typing them as Glue does (long, double, choices)
needs a pass over the data. A JSON read yields each record as a VARIANT; typing its
fields (structs, choices) needs the inference passes. A frame read either way keeps the
raw records in a ``PendingTyping``: the names of the text columns still to type (CSV) or
the variant column holding each record (JSON). Transformations that state the types they
want (ApplyMapping with target types, resolveChoice with casts) read the raw values
directly; the typing runs only when something needs the inferred schema (``schema()``,
``toDF()``, an unmapped write, choice resolution), once per frame.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from glueball.runtime.io.jsonfields import JsonFields

Resolver = Callable[["DataFrame", tuple[str, ...]], "DataFrame"]


@dataclass(frozen=True)
class PendingTyping:
    """Raw records and what of them is still to type.

    Attributes:
        raw: the records: pending CSV columns as text, a JSON record as a variant in column ``record``.
        columns: the names of the pending text columns (CSV).
        resolver: types ``raw`` (the eager typing), given ``raw`` and ``columns``.
        record: the variant column holding each JSON record, whose fields are all pending (None for CSV).
            Every other column of ``raw`` is typed already.
        fields: for JSON lines, reads top-level fields of the same records as ``raw`` with Spark's JSON reader
            (``JsonFields``); None when there is no such reader or ``raw`` changed.
    """

    raw: DataFrame
    columns: tuple[str, ...]
    resolver: Resolver
    record: str | None = None
    fields: JsonFields | None = None

    def resolve(self) -> DataFrame:
        """The records typed as an eager read types them (costs the inference pass).

        JSON lines are typed from one scan and read by Spark's JSON reader where the scan settles the types
        (``glueball.runtime.io.jsonshapes``); otherwise, and for CSV, by ``resolver``.
        """
        if self.fields is not None:
            from glueball.runtime.io.jsonshapes import typed_records

            typed = typed_records(self.fields)
            if typed is not None:
                return typed
        return self.resolver(self.raw, self.columns)

    def with_raw(self, raw: DataFrame, columns: tuple[str, ...] | None = None) -> PendingTyping:
        """The same typing over ``raw`` (the records coalesced, filtered, or some columns typed already)."""
        fields = self.fields if raw is self.raw else None
        return replace(self, raw=raw, columns=self.columns if columns is None else columns, fields=fields)
