"""DropNullFields and FillMissingValues: transforms that look at the values to decide.

DropNullFields runs one aggregate to find the fields that are null everywhere;
FillMissingValues computes its estimate in one lazy aggregate joined back.
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from glueball.runtime.errors import GlueRuntimeError
from glueball.runtime.ops.paths import (
    ELEMENTS,
    ResolvedPath,
    column_ref,
    drop_paths,
    get_field,
    is_choice_field,
    read_resolved,
    select_as,
)

if TYPE_CHECKING:
    from pyspark.sql import DataFrame
    from pyspark.sql.types import DataType, StructType

    from glueball.runtime.dynamicframe import DynamicFrame


def _null_type_paths(data_type: DataType, steps: tuple[str, ...], out: list[ResolvedPath]) -> None:
    from pyspark.sql.types import ArrayType, NullType, StructType

    if isinstance(data_type, StructType):
        for f in data_type.fields:
            if isinstance(f.dataType, NullType):
                out.append(ResolvedPath((*steps, f.name), f.dataType))
            else:
                _null_type_paths(f.dataType, (*steps, f.name), out)
    elif isinstance(data_type, ArrayType) and isinstance(data_type.elementType, StructType):
        _null_type_paths(data_type.elementType, (*steps, ELEMENTS), out)


def _struct_paths(schema: StructType, steps: tuple[str, ...] = ()) -> list[ResolvedPath]:
    from pyspark.sql.types import NullType, StructType

    out: list[ResolvedPath] = []
    for f in schema.fields:
        if isinstance(f.dataType, NullType):
            continue
        path = ResolvedPath((*steps, f.name), f.dataType)
        out.append(path)
        if isinstance(f.dataType, StructType) and not is_choice_field(f.metadata):
            out.extend(_struct_paths(f.dataType, path.steps))
    return out


def null_fields(df: DataFrame) -> list[ResolvedPath]:
    """Fields DropNullFields removes: of NullType (through structs and arrays of structs), or null in every record.

    The second needs one aggregate over the data (a count of non-null values per
    field outside arrays).
    """
    from pyspark.sql import functions as F

    schema = df.schema
    found: list[ResolvedPath] = []
    _null_type_paths(schema, (), found)
    candidates = _struct_paths(schema)
    if candidates:
        counts = df.agg(*[F.count(read_resolved(p)).alias(f"c{i}") for i, p in enumerate(candidates)]).first()
        assert counts is not None
        found.extend(p for i, p in enumerate(candidates) if counts[i] == 0)
    return found


def drop_null_fields(frame: DynamicFrame, transformation_ctx: str = "", stage_threshold: int = 0,
                     total_threshold: int = 0) -> DynamicFrame:
    """DropNullFields: drop the fields that are null in every record (and every NullType field).

    Glue drops the fields its computed schema types as NullType, i.e. fields missing
    or null in all records; a DataFrame keeps a column's type even when all its values
    are null, so one aggregate pass finds those. Empty strings are values, not nulls.
    """
    paths = null_fields(frame._df)
    df = select_as(frame._df, drop_paths(frame._df.schema, paths)) if paths else frame._df
    return frame.derive(df, transformation_ctx=transformation_ctx, stage_threshold=stage_threshold,
                        total_threshold=total_threshold)


_NUMERIC = ("ByteType", "ShortType", "IntegerType", "LongType", "FloatType", "DoubleType", "DecimalType")


def fill_missing_values(frame: DynamicFrame, missing_values_column: str, output_column: str = "",
                        transformation_ctx: str = "", stage_threshold: int = 0,
                        total_threshold: int = 0) -> DynamicFrame:
    """FillMissingValues: a copy of ``missing_values_column`` in ``output_column`` with missing values filled.

    Missing means null or, for text, the empty string (as Glue documents). The
    output column defaults to ``<missing_values_column>_filled``; present values are
    copied. Glue predicts the fill with a trained model; glueball uses a documented,
    deterministic estimate instead: the mean of the present values for numbers
    (rounded for integer types) and the most frequent present value otherwise
    (smallest on ties). It is computed by one aggregate joined back lazily.

    Raises:
        GlueRuntimeError: the column is not in the frame or is inside an array.
    """
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    df = frame._df
    found = get_field(df.schema, missing_values_column)
    if found is None:
        raise GlueRuntimeError(f"FillMissingValues: no column {missing_values_column!r} in the frame")
    column, resolved = found
    if resolved.through_arrays:
        raise GlueRuntimeError(f"FillMissingValues: {missing_values_column!r} is inside an array")
    data_type = resolved.data_type
    missing = column.isNull()
    if isinstance(data_type, T.StringType):
        missing = missing | (column == F.lit(""))
    present = F.when(~missing, column)
    if type(data_type).__name__ in _NUMERIC:
        estimate = F.avg(present)
        if isinstance(data_type, T.IntegralType):
            estimate = F.round(estimate)
        estimate = estimate.cast(data_type)
    else:
        estimate = F.mode(present, deterministic=True)
    fill_name = f"__glueball_fill_{uuid.uuid4().hex[:8]}"
    stats = df.agg(estimate.alias(fill_name))
    target = output_column or f"{missing_values_column}_filled"
    filled = (df.crossJoin(F.broadcast(stats))
              .withColumn(target, F.when(missing, column_ref(fill_name)).otherwise(column))
              .drop(fill_name))
    return frame.derive(filled, transformation_ctx=transformation_ctx, stage_threshold=stage_threshold,
                        total_threshold=total_threshold)
