"""Unnest and Relationalize: nested structs flattened to top-level fields, arrays pivoted into frames.

Unnest is a lazy projection. Relationalize needs data to decide its output: it writes
each level that has arrays to ``staging_path`` and reads it back, as Glue does, so the
generated join keys stay stable.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from glueball.runtime.errors import GlueRuntimeError
from glueball.runtime.ops.paths import column_ref, is_choice_field

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame
    from pyspark.sql.types import StructType

    from glueball.runtime.dynamicframe import DynamicFrame, DynamicFrameCollection


def flatten_columns(schema: StructType, prefix: str = "", source: Column | None = None) -> list[Column]:
    """Structs flattened to top-level columns named ``parent.child``; arrays and choices kept whole."""
    from pyspark.sql.types import StructType

    out: list[Column] = []
    for f in schema.fields:
        column = column_ref(f.name) if source is None else source.getField(f.name)
        name = f"{prefix}{f.name}"
        if isinstance(f.dataType, StructType) and not is_choice_field(f.metadata) and f.dataType.fields:
            out.extend(flatten_columns(f.dataType, name + ".", column))
        else:
            out.append(column.alias(name))
    return out


def unnest(frame: DynamicFrame, transformation_ctx: str = "", stage_threshold: int = 0,
           total_threshold: int = 0) -> DynamicFrame:
    """Unnest: nested struct fields become top-level fields named ``a.b.c``; arrays stay as they are."""
    return frame.derive(frame._df.select(*flatten_columns(frame._df.schema)), transformation_ctx=transformation_ctx,
                        stage_threshold=stage_threshold, total_threshold=total_threshold)


_ROW_ID = "__glueball_row_id"


def _staging_dir(spark: Any, staging_path: str) -> str:
    from glueball.runtime.hadoop import output_path

    if not isinstance(staging_path, str) or not staging_path.strip():
        raise GlueRuntimeError("relationalize needs a staging_path (an s3:// or local directory)")
    base = output_path(spark, staging_path.strip()).rstrip("/")
    return f"{base}/glueball-relationalize-{uuid.uuid4().hex}"


def _pivot(df: DataFrame, table: str, root_name: str, staging: str, level: list[int],
           out: dict[str, DataFrame]) -> None:
    from pyspark.sql import functions as F
    from pyspark.sql.types import ArrayType, StructType

    flat = df.select(*flatten_columns(df.schema))
    arrays = [f for f in flat.schema.fields if isinstance(f.dataType, ArrayType)]
    if not arrays:
        out[table] = flat
        return
    # the join keys must not change between the frames read from this level: write it once, read it back
    level[0] += 1
    path = f"{staging}/{level[0]}"
    flat.withColumn(_ROW_ID, F.monotonically_increasing_id()).write.mode("overwrite").parquet(path)
    stored = flat.sparkSession.read.parquet(path)
    array_names = {f.name for f in arrays}
    out[table] = stored.select(*[
        (F.when(column_ref(name).isNull(), F.lit(None)).otherwise(column_ref(_ROW_ID)).alias(name)
         if name in array_names else column_ref(name))
        for name in flat.columns])
    for f in arrays:
        assert isinstance(f.dataType, ArrayType)
        exploded = stored.select(column_ref(_ROW_ID).alias("id"),
                                 F.posexplode(column_ref(f.name)).alias("index", "__glueball_val"))
        element = f.dataType.elementType
        value = column_ref("__glueball_val")
        if isinstance(element, StructType) and element.fields:
            element_columns = flatten_columns(element, f"{f.name}.val.", value)
        else:
            element_columns = [value.alias(f"{f.name}.val")]
        child = exploded.select("id", "index", *element_columns)
        _pivot(child, f"{root_name}_{_table_part(f.name)}", root_name, staging, level, out)


def _table_part(column: str) -> str:
    """An array column's part of its frame's name: without the leading dots of a joined field (``.links``)
    or trailing dots and underscores, which no JDBC target would accept at a name's end."""
    return column.strip(".").rstrip("_") or column


def relationalize(frame: DynamicFrame, root_table_name: str, staging_path: str,
                  options: Mapping[str, Any] | None = None, transformation_ctx: str = "",
                  stage_threshold: int = 0, total_threshold: int = 0) -> DynamicFrameCollection:
    """Relationalize: flatten structs and pivot every array into its own frame.

    As in Glue: the root frame ``root_table_name`` has nested fields as ``a.b``
    columns and each array column replaced by a bigint join key; the array's frame
    ``<root>_<column>`` has ``id`` (that key), ``index`` (the position) and the
    element as ``<column>.val`` or, for structs, ``<column>.val.<field>``. Arrays
    inside arrays become frames of their own the same way (``<root>_<column>.val.<field>``).
    Each level with arrays is written to ``staging_path`` (s3:// or local) and read
    back, so the keys are fixed — the one pass per level Glue makes too.
    ``options`` are accepted and unused, as upstream documents.
    """
    staging = _staging_dir(frame._df.sparkSession, staging_path)
    tables: dict[str, DataFrame] = {}
    _pivot(frame._df, root_table_name, root_table_name, staging, [0], tables)
    kw: dict[str, Any] = {"transformation_ctx": transformation_ctx, "stage_threshold": stage_threshold,
                          "total_threshold": total_threshold}
    frames = {name: frame.derive(df, name=name, **kw) for name, df in tables.items()}
    return frame.collection(frames)
