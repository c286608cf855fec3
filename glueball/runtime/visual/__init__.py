"""Glue Studio's visual transforms as methods of ``DynamicFrame`` and ``DataFrame``.

Glue Studio's generated scripts ``import gs_concat`` (and the others) and call
``frame.gs_concat(colName=..., colList=...)``: importing a ``gs_*`` module attaches the method to
both classes. :func:`enrich` does that attaching for the built-in ten and for custom visual
transforms, whose Python files set ``DynamicFrame.<functionName> = <function>`` themselves.

On a ``DynamicFrame`` the method works on its DataFrame and returns a ``DynamicFrame`` in the
same GlueContext (its error records carried along); on a ``DataFrame`` it returns a DataFrame.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pyspark.sql import DataFrame

from glueball.runtime.dynamicframe import DynamicFrame
from glueball.runtime.visual import gs_functions as functions
from glueball.runtime.visual.gs_functions import VisualTransformError

__all__ = ["BUILT_IN", "VisualTransformError", "enrich", "enrich_all"]

BUILT_IN: dict[str, Callable[..., DataFrame]] = {
    "gs_concat": functions.gs_concat,
    "gs_split": functions.gs_split,
    "gs_array_to_cols": functions.gs_array_to_cols,
    "gs_now": functions.gs_now,
    "gs_pivot": functions.gs_pivot,
    "gs_unpivot": functions.gs_unpivot,
    "gs_explode": functions.gs_explode,
    "gs_derived": functions.gs_derived,
    "gs_repartition": functions.gs_repartition,
}


def _on_frame(name: str, function: Callable[..., DataFrame]) -> Callable[..., Any]:
    def method(self: DynamicFrame, *args: Any, **kwargs: Any) -> DynamicFrame:
        return self.derive(function(self.toDF(), *args, **kwargs), name=f"{self.name or name}_{name}")

    method.__name__ = name
    method.__doc__ = function.__doc__
    return method


def _lookup_on_frame(self: DynamicFrame, lookupTable: str, keyColumns: Any, columnsToTake: Any) -> DynamicFrame:  # noqa: N803
    if lookupTable.count(".") != 1:
        raise VisualTransformError(f"gs_lookup: lookupTable must be database.table, got {lookupTable!r}")
    database, table = lookupTable.split(".")
    lookup = self.glue_ctx.create_dynamic_frame.from_catalog(database=database, table_name=table).toDF()
    joined = functions.gs_lookup(self.toDF(), lookup, keyColumns, columnsToTake, lookupTable)
    return self.derive(joined, name=f"{self.name or 'lookup'}_gs_lookup")


def _lookup_on_df(self: DataFrame, lookupTable: str, keyColumns: Any, columnsToTake: Any) -> DataFrame:  # noqa: N803
    lookup = functions.lookup_frame(self.sparkSession, lookupTable)
    return functions.gs_lookup(self, lookup, keyColumns, columnsToTake, lookupTable)


def enrich(name: str, function: Callable[..., DataFrame]) -> None:
    """Attach ``function`` (DataFrame in, DataFrame out) as the method ``name`` of both frame classes."""
    setattr(DataFrame, name, function)
    setattr(DynamicFrame, name, _on_frame(name, function))


def enrich_all() -> None:
    """Attach the ten built-in visual transforms (``gs_lookup`` included)."""
    for name, function in BUILT_IN.items():
        enrich(name, function)
    DataFrame.gs_lookup = _lookup_on_df  # type: ignore[attr-defined]
    DynamicFrame.gs_lookup = _lookup_on_frame  # type: ignore[attr-defined]
