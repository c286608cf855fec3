"""Record-level transformations: join, union, mergeDynamicFrame, spigot — lazy DataFrame operations.

Filter, Map and mapPartitions, which run a Python function per record, are in
:mod:`glueball.runtime.ops.record_functions`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import reduce
from typing import TYPE_CHECKING, Any

from glueball.runtime.dynamicrecord import is_choice_field, record_converter, record_to_json
from glueball.runtime.errors import GlueRuntimeError, LazyErrors
from glueball.runtime.gluetypes import CHOICE_METADATA, ELEMENT_CHOICE_METADATA

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame
    from pyspark.sql.types import DataType, StructField, StructType

    from glueball.runtime.dynamicframe import DynamicFrame



# -- shared helpers ------------------------------------------------------------------------------

def _quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def split_path(path: str) -> list[str]:
    """Split a Glue field path (``a.b.c``; backticks quote names holding dots) into names."""
    parts: list[str] = []
    for match in re.finditer(r"`((?:[^`]|``)*)`|([^.`]+)", path):
        parts.append(match.group(1).replace("``", "`") if match.group(1) is not None else match.group(2))
    if not parts:
        raise GlueRuntimeError(f"Invalid field path {path!r}")
    return parts


def _path_column(df: DataFrame, path: str, renames: Mapping[str, str] | None = None) -> Column:
    names = split_path(path)
    top = renames.get(names[0], names[0]) if renames else names[0]
    if top not in df.columns:
        raise GlueRuntimeError(f"Field {path!r} is not in the frame; its fields are {df.columns}")
    column = df[_quote(top)]
    for name in names[1:]:
        column = column.getField(name)
    return column


def _union_all(parts: Iterable[DataFrame | None]) -> DataFrame | None:
    present = [p for p in parts if p is not None]
    return reduce(lambda a, b: a.unionByName(b), present) if present else None


def _combine(first: DynamicFrame, df: DataFrame, others: Iterable[DynamicFrame], transformation_ctx: str,
             stage_threshold: int, total_threshold: int, name: str | None = None) -> DynamicFrame:
    """A frame made from several frames: the error records of all of them are its prior errors."""
    inputs: list[DynamicFrame] = [first]
    for other in others:
        if all(other is not seen for seen in inputs):
            inputs.append(other)
    prior = LazyErrors(lambda: _union_all(f.lineage_errors().frame() for f in inputs))
    return first.derive(df, prior_errors=prior, transformation_ctx=transformation_ctx, name=name,
                        stage_threshold=stage_threshold, total_threshold=total_threshold)


# -- Join -----------------------------------------------------------------------------------------

def join(frame1: DynamicFrame, paths1: list[str] | str, paths2: list[str] | str, frame2: DynamicFrame,
         transformation_ctx: str = "", stage_threshold: int = 0, total_threshold: int = 0) -> DynamicFrame:
    """Equality (inner) join of two frames on key paths (Glue's ``Join`` / ``DynamicFrame.join``).

    ``paths1[i]`` of ``frame1`` must equal ``paths2[i]`` of ``frame2``; paths may be nested
    (``address.zip``). Every field of both frames is kept, the keys of both included. A
    non-key top-level field both frames have is one field of the result, as in Glue's documented
    output (the legislators tutorial's history frame has one ``links`` and one ``image``): frame1's
    value, or frame2's where frame1's is null. A key field of ``frame2`` whose name ``frame1``
    already has, and a shared field whose types differ, are kept apart: renamed with a leading dot
    (``.id``), again until unique, as Glue does for same-named keys. Null keys match nothing. The
    result is named ``frame1.name + frame2.name`` and carries the error records of both frames.
    """
    from pyspark.sql import functions as F

    keys1 = [paths1] if isinstance(paths1, str) else list(paths1)
    keys2 = [paths2] if isinstance(paths2, str) else list(paths2)
    if not keys1 or len(keys1) != len(keys2):
        raise GlueRuntimeError(f"join needs as many keys in paths1 as in paths2, got {keys1} and {keys2}")
    left = frame1._df
    left_types = {f.name: f.dataType.simpleString() for f in left.schema.fields}  # nullability aside
    key_fields2 = {split_path(path)[0] for path in keys2}
    taken = set(left.columns)
    renames: dict[str, str] = {}
    shared: set[str] = set()
    for field in frame2._df.schema.fields:
        name = field.name
        if name in left_types and name not in key_fields2 and left_types[name] == field.dataType.simpleString():
            shared.add(name)
            renames[name] = "__glueball_shared_" + name  # a temporary name: merged into frame1's column below
            continue
        new = name
        while new in taken:
            new = "." + new
        taken.add(new)
        renames[name] = new
    for path in keys2:
        _path_column(frame2._df, path)  # a missing key path fails here, with frame2's own field names
    # aliasing every column gives the right side fresh attributes, so a frame joined with itself works
    right = frame2._df.select(*[F.col(_quote(n)).alias(renames[n]) for n in frame2._df.columns])
    condition = reduce(lambda a, b: a & b, [
        _path_column(left, k1) == _path_column(right, k2, renames) for k1, k2 in zip(keys1, keys2, strict=True)])
    joined = left.join(right, condition, "inner").select(
        *[F.coalesce(left[_quote(n)], right[_quote(renames[n])]).alias(n) if n in shared else left[_quote(n)]
          for n in left.columns],
        *[right[_quote(renames[n])] for n in frame2._df.columns if n not in shared])
    return _combine(frame1, joined, [frame2], transformation_ctx, stage_threshold, total_threshold,
                    name=frame1.name + frame2.name)


# -- Union and merge: schemas merged by name, type conflicts become choices ----------------------

_GLUE_NAMES = {
    "byte": "byte", "short": "short", "integer": "int", "long": "long", "float": "float", "double": "double",
    "string": "string", "varchar": "string", "char": "string", "boolean": "boolean", "binary": "binary",
    "date": "date", "timestamp": "timestamp", "timestamp_ntz": "timestamp", "struct": "struct",
    "array": "array", "map": "map", "void": "null",
}


def glue_type_name(data_type: DataType) -> str:
    """The Glue type name of a Spark type (``awsglue.gluetypes`` ``typeName``): a choice member's name."""
    name = data_type.typeName()
    if name.startswith("decimal"):
        return "decimal"
    return _GLUE_NAMES.get(name, name)


def _choice_here(data_type: DataType, choice: bool) -> bool:
    from pyspark.sql.types import StructType

    return choice and isinstance(data_type, StructType)


_is_choice = is_choice_field


def choice_field(name: str, data_type: DataType, choice: bool, base: Mapping[str, Any] | None = None) -> StructField:
    """A nullable field; ``choice`` marks a struct as a choice, an array as an array of choices."""
    from pyspark.sql.types import ArrayType, StructField

    markers = (CHOICE_METADATA, ELEMENT_CHOICE_METADATA)
    metadata = {k: v for k, v in (base or {}).items() if k not in markers}
    if choice:
        metadata[ELEMENT_CHOICE_METADATA if isinstance(data_type, ArrayType) else CHOICE_METADATA] = True
    return StructField(name, data_type, True, metadata)


def _members(data_type: DataType, choice: bool) -> list[StructField]:
    if _choice_here(data_type, choice):
        return list(data_type.fields)  # type: ignore[attr-defined]
    return [choice_field(glue_type_name(data_type), data_type, choice)]


def merge_types(a: DataType, a_choice: bool, b: DataType, b_choice: bool) -> tuple[DataType, bool]:
    """The type of a field seen as ``a`` in some records and ``b`` in others, and whether it is a choice.

    Structs merge field by field, arrays by element, different Glue types make a choice
    (choices absorb more members; members are ordered by name, as ``gluetypes`` stores
    them). Two types of one Glue name (decimals of different
    precision, maps) take the wider decimal, or the first type. For an array the choice flag
    marks its innermost element.
    """
    from pyspark.sql.types import ArrayType, DecimalType, NullType, StructType

    if a == b and a_choice == b_choice:
        return a, a_choice
    if isinstance(a, NullType):
        return b, b_choice
    if isinstance(b, NullType):
        return a, a_choice
    if isinstance(a, ArrayType) and isinstance(b, ArrayType):
        element, flag = merge_types(a.elementType, a_choice, b.elementType, b_choice)
        return ArrayType(element, True), flag
    if _choice_here(a, a_choice) or _choice_here(b, b_choice):
        merged: dict[str, StructField] = {}
        for member in [*_members(a, a_choice), *_members(b, b_choice)]:
            known = merged.get(member.name)
            if known is None:
                merged[member.name] = member
            else:
                data_type, flag = merge_types(known.dataType, _is_choice(known), member.dataType, _is_choice(member))
                merged[member.name] = choice_field(member.name, data_type, flag)
        return StructType([merged[name] for name in sorted(merged)]), True
    if isinstance(a, StructType) and isinstance(b, StructType):
        return merge_schemas(a, b), False
    if glue_type_name(a) == glue_type_name(b):
        if isinstance(a, DecimalType) and isinstance(b, DecimalType):
            scale = max(a.scale, b.scale)
            return DecimalType(min(38, max(a.precision - a.scale, b.precision - b.scale) + scale), scale), False
        return a, a_choice
    members = sorted([*_members(a, a_choice), *_members(b, b_choice)], key=lambda m: m.name)
    return StructType(members), True


def merge_schemas(a: StructType, b: StructType) -> StructType:
    """Fields of ``a`` then the new fields of ``b``; a field in both gets ``merge_types``."""
    from pyspark.sql.types import StructType

    fields = {f.name: f for f in a.fields}
    for field in b.fields:
        known = fields.get(field.name)
        if known is None:
            fields[field.name] = choice_field(field.name, field.dataType, _is_choice(field), field.metadata)
        else:
            data_type, flag = merge_types(known.dataType, _is_choice(known), field.dataType, _is_choice(field))
            fields[field.name] = choice_field(field.name, data_type, flag, known.metadata)
    return StructType(list(fields.values()))


def _null(data_type: DataType) -> Column:
    from pyspark.sql import functions as F

    return F.lit(None).cast(data_type)


def convert_column(column: Column, src: DataType, src_choice: bool, dst: DataType, dst_choice: bool) -> Column:
    """``column`` (of ``src``) as a value of the merged type ``dst`` (a choice takes it as the member of its kind)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import ArrayType, NullType, StructType

    if src == dst and src_choice == dst_choice:
        return column
    if isinstance(src, NullType):
        return _null(dst)
    if isinstance(src, ArrayType) and isinstance(dst, ArrayType):
        return F.transform(column, lambda item: convert_column(item, src.elementType, src_choice, dst.elementType,
                                                         dst_choice))
    if _choice_here(dst, dst_choice):
        assert isinstance(dst, StructType)
        if _choice_here(src, src_choice):
            assert isinstance(src, StructType)
            present = {f.name: f for f in src.fields}
            parts = [convert_column(column.getField(m.name), present[m.name].dataType, _is_choice(present[m.name]),
                              m.dataType, _is_choice(m)) if m.name in present else _null(m.dataType)
                     for m in dst.fields]
        else:
            own = glue_type_name(src)
            parts = [convert_column(column, src, src_choice, m.dataType, _is_choice(m)) if m.name == own
                     else _null(m.dataType) for m in dst.fields]
        built = F.struct(*[p.alias(m.name) for p, m in zip(parts, dst.fields, strict=True)])
        return F.when(column.isNull(), _null(dst)).otherwise(built)
    if isinstance(src, StructType) and isinstance(dst, StructType):
        present = {f.name: f for f in src.fields}
        parts = [(convert_column(column.getField(f.name), present[f.name].dataType, _is_choice(present[f.name]),
                           f.dataType, _is_choice(f)) if f.name in present else _null(f.dataType)).alias(f.name)
                 for f in dst.fields]
        return F.when(column.isNull(), _null(dst)).otherwise(F.struct(*parts))
    return column.cast(dst)


def _conform(df: DataFrame, schema: StructType) -> DataFrame:
    """``df`` with exactly ``schema``'s columns: missing fields null, the others converted."""
    present = {f.name: f for f in df.schema.fields}
    columns = []
    for field in schema.fields:
        if field.name in present:
            own = present[field.name]
            column = convert_column(df[_quote(field.name)], own.dataType, _is_choice(own), field.dataType,
                              _is_choice(field))
            if own.dataType != field.dataType:
                column = column.cast(field.dataType)  # carries nested choice metadata
        else:
            column = _null(field.dataType)
        columns.append(column.alias(field.name, metadata=field.metadata))
    return df.select(*columns)


def union_dataframes(first: DataFrame, second: DataFrame) -> DataFrame:
    """All rows of both, by field name: missing fields null, conflicting types choices."""
    schema = merge_schemas(first.schema, second.schema)
    return _conform(first, schema).unionByName(_conform(second, schema))


def union(frame: DynamicFrame, other: DynamicFrame, transformation_ctx: str = "", stage_threshold: int = 0,
          total_threshold: int = 0) -> DynamicFrame:
    """All records of both frames (Glue's ``DynamicFrame.union`` / ``Union``).

    Fields are matched by name; a field one frame lacks is null in its records; a field with
    different types in the two frames becomes a choice (``choice<long,string>``), nested
    structs merging field by field. Duplicates are kept. Error records of both are carried.
    """
    return _combine(frame, union_dataframes(frame._df, other._df), [other], transformation_ctx,
                    stage_threshold, total_threshold)


def merge(frame: DynamicFrame, stage_frame: DynamicFrame, primary_keys: list[str] | str,
          transformation_ctx: str = "", stage_threshold: int = 0, total_threshold: int = 0) -> DynamicFrame:
    """Merge a staging frame into this one by primary keys (Glue's ``mergeDynamicFrame``).

    Every staging record is in the result; a source record stays only if no staging record
    has its primary key (otherwise the staging records replace it); staging records with new
    keys are added. Duplicates (records with the same keys) are not de-duplicated, on either
    side. Keys may be nested paths; null keys compare equal. The two frames need not have the
    same schema: fields are merged as in ``union``. Error records of both frames are carried.
    """
    from pyspark.sql import functions as F

    keys = [primary_keys] if isinstance(primary_keys, str) else list(primary_keys)
    if not keys:
        raise GlueRuntimeError("mergeDynamicFrame needs at least one primary key")
    source, staged = frame._df, stage_frame._df
    staged_keys = staged.select(*[_path_column(staged, k).alias(f"__glueball_key_{i}__") for i, k in enumerate(keys)])
    condition = reduce(lambda a, b: a & b, [
        _path_column(source, k).eqNullSafe(F.col(f"__glueball_key_{i}__")) for i, k in enumerate(keys)])
    unmatched = source.join(staged_keys, condition, "left_anti")
    schema = merge_schemas(source.schema, staged.schema)
    merged = _conform(unmatched, schema).unionByName(_conform(staged, schema))
    return _combine(frame, merged, [stage_frame], transformation_ctx, stage_threshold, total_threshold)


# -- Spigot ---------------------------------------------------------------------------------------

def spigot(frame: DynamicFrame, path: str, options: Mapping[str, Any], transformation_ctx: str = "",
           stage_threshold: int = 0, total_threshold: int = 0) -> DynamicFrame:
    """Write a sample of the records to ``path`` as JSON lines and pass the frame on (Glue's ``Spigot``).

    ``topk``: the first k records (default 100); ``prob``: the probability (0 to 1) of picking
    each record, applied before ``topk``. The sample is written when ``spigot`` is called (one
    small job), not when the frame is later evaluated, and appended under ``path`` (s3:// or
    local). Choice fields are written as the value each record holds.
    """
    from glueball.runtime.hadoop import output_path

    unknown = sorted(set(options) - {"topk", "prob"})
    if unknown:
        raise GlueRuntimeError(f"Unknown spigot options {unknown}; spigot takes 'topk' and 'prob'")
    try:
        topk = int(options.get("topk", 100))
        prob = None if options.get("prob") is None else float(options["prob"])
    except (TypeError, ValueError) as exc:
        raise GlueRuntimeError(f"Invalid spigot options {dict(options)}: {exc}") from exc
    if topk < 0:
        raise GlueRuntimeError(f"spigot topk must be 0 or more, got {topk}")
    if prob is not None and not 0.0 <= prob <= 1.0:
        raise GlueRuntimeError(f"spigot prob must be between 0 and 1, got {prob}")
    df = frame._df
    sample = df.sample(withReplacement=False, fraction=prob) if prob is not None and prob < 1.0 else df
    convert = record_converter(df.schema)
    lines = [(record_to_json(convert(row)),) for row in sample.limit(topk).collect()]
    spark = df.sparkSession
    spark.createDataFrame(lines, "value string").coalesce(1).write.mode("append").text(output_path(spark, path))
    return frame.derive(df, transformation_ctx=transformation_ctx, stage_threshold=stage_threshold,
                        total_threshold=total_threshold)
