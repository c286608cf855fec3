"""``with_frame_schema``: a DynamicFrame given its schema instead of computing it.

Glue's ``withFrameSchema`` sets a frame's schema "to avoid costly schema recomputation"; the schema
must contain every column of the data. Over a raw CSV or JSON read whose typing is pending, the
given types resolve the pending fields the way ApplyMapping to those types does: each value
converted from its own kind, with no inference pass (``pending_mapping``). A typed frame's fields are
converted to the given types as ApplyMapping converts them (a choice by its members). Fields the
schema names and the data lacks are null.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from glueball.runtime.errors import GlueRuntimeError
from glueball.runtime.gluetypes import CHOICE_METADATA, ELEMENT_CHOICE_METADATA, from_json, to_spark_schema
from glueball.runtime.gluetypes import StructType as GlueStructType
from glueball.runtime.ops.mapping import mapping_projection
from glueball.runtime.ops.paths import column_ref, select_as
from glueball.runtime.ops.pending_mapping import pending_mapping

if TYPE_CHECKING:
    from pyspark.sql import DataFrame
    from pyspark.sql import types as st

    from glueball.runtime.dynamicframe import DynamicFrame


def spark_schema_of(schema: Any) -> st.StructType:
    """The Spark schema of ``schema``: a Glue ``StructType`` (``awsglue.gluetypes``), its JSON, or a Spark one.

    Raises:
        GlueRuntimeError: anything else.
    """
    from pyspark.sql import types as st

    if isinstance(schema, str):
        try:
            schema = from_json(schema)
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise GlueRuntimeError(f"with_frame_schema needs a StructType schema (awsglue.gluetypes) or its JSON; "
                                   f"{schema!r} is neither: {exc}") from None
    if isinstance(schema, GlueStructType):
        return to_spark_schema(schema)
    if isinstance(schema, st.StructType):
        return schema
    raise GlueRuntimeError(f"with_frame_schema needs a StructType schema (awsglue.gluetypes); got {schema!r}")


def _data_fields(frame: DynamicFrame) -> list[str] | None:
    """The top-level fields the data holds, where known without typing the frame (None: unknown)."""
    pending = frame.pending_typing
    if pending is None:
        return list(frame.toDF().columns)
    if pending.record is None:
        return list(pending.raw.columns)
    others = [c for c in pending.raw.columns if c != pending.record]
    kinds = pending.fields.kinds() if pending.fields is not None else None
    return None if kinds is None else list(dict.fromkeys([*kinds, *others]))


def _declared(field: st.StructField) -> bool:
    """Whether ApplyMapping can convert to the field's type by name (atomic, not a choice)."""
    from pyspark.sql import types as st

    plain = not (field.metadata or {}).get(CHOICE_METADATA) and not (field.metadata or {}).get(
        ELEMENT_CHOICE_METADATA)
    return plain and not isinstance(field.dataType, st.StructType | st.ArrayType | st.MapType | st.VariantType)


def with_frame_schema(frame: DynamicFrame, schema: Any, transformation_ctx: str = "") -> DynamicFrame:
    """``frame`` with ``schema`` as its schema, its records converted to it (field order and types as given).

    Raises:
        GlueRuntimeError: the data holds a field the schema lacks (checked where the fields are known without
            typing: CSV columns, a typed frame, JSON keys once scanned), or ``schema`` is no struct type.
    """
    target = spark_schema_of(schema)
    names = [f.name for f in target.fields]
    present = _data_fields(frame)
    if present is not None:
        extra = [name for name in present if name not in names]
        if extra:
            raise GlueRuntimeError(f"with_frame_schema: the schema must contain every field of the data; it lacks "
                                   f"{extra}")
    mappings = [(f.name, f.name, f.dataType.simpleString()) if _declared(f) else (f.name, f.name)
                for f in target.fields]
    pending = frame.pending_typing
    mapped = pending_mapping(pending, mappings, case_sensitive=True) if pending is not None else None
    if mapped is None:
        typed = frame.toDF()
        mapped = select_as(typed, mapping_projection(typed.schema, mappings, case_sensitive=True))
    return frame.derive(_conformed(mapped, target), transformation_ctx=transformation_ctx)


def _conformed(df: DataFrame, target: st.StructType) -> DataFrame:
    """``df``'s columns with the target's types and markers: complex and choice fields kept as the data had them are
    cast to the declared type where it differs (Spark casts structs by position)."""
    columns = []
    for field in target.fields:
        value = column_ref(field.name)
        if df.schema[field.name].dataType != field.dataType:
            value = value.try_cast(field.dataType)
        columns.append(value.alias(field.name, metadata=field.metadata or {}))
    return df.select(*columns)
