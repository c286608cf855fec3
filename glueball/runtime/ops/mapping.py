"""Field transforms of DynamicFrames: ApplyMapping, RenameField, DropFields, SelectFields,
SplitFields, SplitRows, Unnest, Relationalize, DropNullFields and FillMissingValues.

Each one is a lazy projection or filter of the frame's DataFrame built from
Spark expressions (``glueball.runtime.ops.paths``), never Python per record.
Three need data to decide their output and say so: Relationalize (writes each
level that has arrays to ``staging_path`` and reads it back, as Glue does, so the
generated join keys stay stable), DropNullFields (one aggregate to find the
fields that are null everywhere) and FillMissingValues (one lazy aggregate joined
back).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from glueball.runtime.errors import GlueRuntimeError
from glueball.runtime.gluetypes import spark_type_from_glue_name
from glueball.runtime.ops.paths import (
    ELEMENTS,
    ResolvedPath,
    Segment,
    column_ref,
    drop_paths,
    get_field,
    is_choice_field,
    keep_paths,
    modify_field,
    parse_path,
    read_resolved,
    reader,
    resolve_path,
    select_as,
)

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame
    from pyspark.sql.types import DataType, StructType

    from glueball.runtime.dynamicframe import DynamicFrame, DynamicFrameCollection


# -- Glue type names ------------------------------------------------------------------------------

def spark_type(name: str) -> DataType:
    """The Spark type of a Glue type name (``string``, ``long``, ``decimal(10,2)``, ``array<int>``...).

    Raises:
        GlueRuntimeError: an unknown type name.
    """
    return spark_type_from_glue_name(name)


_KEEP_TYPE_NAMES = {"array", "struct", "map", "choice", "object"}


def declared_type(name: str | None) -> DataType | None:
    """The Spark type a mapping names, or None when it keeps the value's type.

    Glue-generated scripts write bare ``array``, ``struct``, ``map`` (and ``choice``
    for a source): those carry no element types, so the value passes as it is.
    """
    if not name or name.strip().lower() in _KEEP_TYPE_NAMES:
        return None
    return spark_type(name)


def convert(column: Column, source: DataType, target: DataType) -> Column:
    """``column`` of type ``source`` as ``target``, the way ApplyMapping converts.

    Strings become numbers, dates and timestamps when they parse (ISO-like text such
    as ``2024-05-01``, ``2024-05-01 10:00:00``, ``2024-05-01T10:00:00.5Z`` or with an
    offset) and null when they do not; numbers, dates and booleans become their text;
    structs, arrays and maps become JSON text when the target is ``string``.
    """
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    if source == target:
        return column
    if isinstance(source, T.NullType):
        return column.cast(target)
    if isinstance(target, T.StringType) and isinstance(source, (T.StructType, T.ArrayType, T.MapType)):
        return F.to_json(column)
    if isinstance(source, T.StringType) and isinstance(target, (T.DateType, T.TimestampType)):
        # Glue reads ISO-like text; Spark's cast takes those (with 'T', fractions, zone offsets)
        return F.trim(column).try_cast(target)
    return column.try_cast(target)


def choice_cast(column: Column, choice: StructType, target: DataType, preferred: DataType | None = None) -> Column:
    """A choice column cast to one type: the first member that converts to ``target``, as resolveChoice cast.

    The member of ``preferred`` type (the mapping's source type) and members already
    of the target type are tried first.
    """
    from pyspark.sql import functions as F

    members = list(choice.fields)
    members.sort(key=lambda f: (f.dataType != preferred, f.dataType != target))
    return F.coalesce(*[convert(column.getField(m.name), m.dataType, target) for m in members])


# -- apply_mapping ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class MappingSpec:
    """One mapping: source path (and declared type), target path and target type (None: keep)."""

    source: str
    source_type: str | None
    target: str
    target_type: str | None


def parse_mapping(mapping: Sequence[str]) -> MappingSpec:
    """A mapping tuple as upstream accepts it.

    4 items: (source path, source type, target path, target type) — the documented form.
    3 items: (source path, target path, target type).
    2 items: (source path, target path), the type kept.

    Raises:
        GlueRuntimeError: another length or a non-string item.
    """
    if isinstance(mapping, str) or not isinstance(mapping, (tuple, list)):
        raise GlueRuntimeError(f"A mapping must be a tuple; got {mapping!r}")
    if not all(isinstance(item, str) for item in mapping):
        raise GlueRuntimeError(f"Mapping items must be strings; got {mapping!r}")
    if len(mapping) == 4:
        return MappingSpec(mapping[0], mapping[1], mapping[2], mapping[3])
    if len(mapping) == 3:
        return MappingSpec(mapping[0], None, mapping[1], mapping[2])
    if len(mapping) == 2:
        return MappingSpec(mapping[0], None, mapping[1], None)
    raise GlueRuntimeError(f"A mapping tuple must have 2, 3 or 4 items; got {len(mapping)}: {mapping!r}")


@dataclass
class _Leaf:
    index: int
    array_depth: int


@dataclass
class _Struct:
    children: dict[str, _Node] = field(default_factory=dict)


@dataclass
class _Array:
    element: _Node | None = None


_Node = _Leaf | _Struct | _Array


def _place(root: _Struct, segments: Sequence[Segment], leaf: _Leaf, target: str) -> None:
    node: _Struct = root
    for i, segment in enumerate(segments):
        last = i == len(segments) - 1
        if not segment.name:
            raise GlueRuntimeError(f"Target path {target!r}: arrays of arrays cannot be built by a mapping")
        existing = node.children.get(segment.name)
        if not segment.array:
            if last:
                if existing is not None:
                    raise GlueRuntimeError(f"Target path {target!r} is mapped more than once or holds other fields")
                node.children[segment.name] = leaf
                return
            if existing is None:
                existing = node.children[segment.name] = _Struct()
            if not isinstance(existing, _Struct):
                raise GlueRuntimeError(f"Target path {target!r} goes through a field that is not a struct")
            node = existing
            continue
        if existing is None:
            existing = node.children[segment.name] = _Array()
        if not isinstance(existing, _Array):
            raise GlueRuntimeError(f"Target path {target!r}: {segment.name!r} is mapped both as array and not")
        if last:
            if existing.element is not None:
                raise GlueRuntimeError(f"Target path {target!r} is mapped more than once or holds other fields")
            existing.element = leaf
            return
        if existing.element is None:
            existing.element = _Struct()
        if not isinstance(existing.element, _Struct):
            raise GlueRuntimeError(f"Target path {target!r} goes through a field that is not a struct")
        node = existing.element


def _target_array_depths(root: _Struct) -> list[tuple[_Leaf, int]]:
    out: list[tuple[_Leaf, int]] = []

    def walk(node: _Node | None, depth: int) -> None:
        if isinstance(node, _Leaf):
            out.append((node, depth))
        elif isinstance(node, _Struct):
            for child in node.children.values():
                walk(child, depth)
        elif isinstance(node, _Array):
            walk(node.element, depth + 1)

    walk(root, 0)
    return out


def _leaves(node: _Node | None) -> list[int]:
    if isinstance(node, _Leaf):
        return [node.index]
    if isinstance(node, _Struct):
        return [i for child in node.children.values() for i in _leaves(child)]
    if isinstance(node, _Array):
        return _leaves(node.element)
    return []


@dataclass
class _Value:
    """A mapping's value: ``column`` read from the record; when the source goes through arrays, also the
    first array on the way (``array``, keyed by its path) and the value as a function of one of its elements."""

    column: Column
    array_key: tuple[str, ...] | None = None
    array: Column | None = None
    per_element: Callable[[Column], Column] | None = None


def _build(node: _Node | None, values: dict[int, _Value]) -> Column:
    from pyspark.sql import functions as F

    if isinstance(node, _Leaf):
        return values[node.index].column
    if isinstance(node, _Struct):
        return F.struct(*[_build(child, values).alias(name) for name, child in node.children.items()])
    assert isinstance(node, _Array)
    element_node = node.element
    leaves = _leaves(element_node)
    inputs = [values[leaf] for leaf in leaves]
    keys = {v.array_key for v in inputs}
    if len(keys) == 1 and None not in keys:
        # every value comes from the same source array: walk it once, element by element
        base = inputs[0].array
        assert base is not None
        return F.transform(base, lambda element: _build(element_node, {
            leaf: _Value(cast("Callable[[Column], Column]", values[leaf].per_element)(element)) for leaf in leaves}))
    if len(leaves) == 1:
        return F.transform(inputs[0].column, lambda element: _build(element_node, {leaves[0]: _Value(element)}))
    # values from different arrays: zip them (each computed once), position by position
    names = [f"v{leaf}" for leaf in leaves]
    zipped = F.arrays_zip(*[F.coalesce(v.column, F.array()).alias(n) for v, n in zip(inputs, names, strict=True)])
    built = F.transform(zipped, lambda z: _build(element_node, {
        leaf: _Value(z.getField(n)) for leaf, n in zip(leaves, names, strict=True)}))
    return F.when(F.coalesce(*[v.column for v in inputs]).isNull(), F.lit(None)).otherwise(built)


def _wrap_arrays(data_type: DataType, depth: int) -> DataType:
    from pyspark.sql.types import ArrayType

    for _ in range(depth):
        data_type = ArrayType(data_type)
    return data_type


def _convert_through(column: Column, depth: int, fn: Callable[[Column], Column] | None) -> Column:
    from pyspark.sql import functions as F

    if fn is None:
        return column
    if depth == 0:
        return fn(column)
    return F.transform(column, lambda element: _convert_through(element, depth - 1, fn))


def _conversion(resolved: ResolvedPath, spec: MappingSpec) -> Callable[[Column], Column] | None:
    from pyspark.sql.types import StructType

    target_type = declared_type(spec.target_type)
    if target_type is None:
        return None
    source_type = resolved.data_type
    if resolved.is_choice and isinstance(source_type, StructType):
        preferred = declared_type(spec.source_type)
        choice = source_type
        return lambda c: choice_cast(c, choice, target_type, preferred)
    if source_type == target_type:
        return None
    return lambda c: convert(c, source_type, target_type)


def _source_value(schema: StructType, spec: MappingSpec, case_sensitive: bool,
                  target_depth: int) -> tuple[_Value, int]:
    """One mapping's value and how many arrays deep it is."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import NullType

    resolved = resolve_path(schema, spec.source, case_sensitive)
    if resolved is None:
        # Glue: a record without the source field has no target field; as a column, null everywhere
        target_type = declared_type(spec.target_type) or NullType()
        return _Value(F.lit(None).cast(_wrap_arrays(target_type, target_depth))), target_depth
    depth = resolved.through_arrays
    conversion = _conversion(resolved, spec)
    column = _convert_through(read_resolved(resolved), depth, conversion)
    if not depth:
        return _Value(column), 0
    first = resolved.steps.index(ELEMENTS)
    array_steps, inner_steps = resolved.steps[:first], resolved.steps[first + 1:]
    array = reader(array_steps[1:])(column_ref(array_steps[0]))
    inner = reader(inner_steps)
    return _Value(column, array_steps, array,
                  lambda element: _convert_through(inner(element), depth - 1, conversion)), depth


def mapping_projection(schema: StructType, mappings: Sequence[Sequence[str]],
                       case_sensitive: bool = False) -> list[tuple[str, Column]]:
    """The one projection that ApplyMapping runs: a column per top-level target, in mapping order."""
    specs = [parse_mapping(m) for m in mappings]
    if not specs:
        raise GlueRuntimeError("apply_mapping needs at least one mapping")
    root = _Struct()
    leaves: list[_Leaf] = []
    for index, spec in enumerate(specs):
        leaf = _Leaf(index, 0)
        leaves.append(leaf)
        _place(root, parse_path(spec.target), leaf, spec.target)
    values: dict[int, _Value] = {}
    for leaf, depth in _target_array_depths(root):
        spec = specs[leaf.index]
        value, source_depth = _source_value(schema, spec, case_sensitive, depth)
        if source_depth < depth:
            raise GlueRuntimeError(
                f"Mapping {spec.source!r} -> {spec.target!r}: the target is inside {depth} array(s) but the "
                f"source is inside {source_depth}")
        values[leaf.index] = value
    return [(name, _build(child, values)) for name, child in root.children.items()]


# -- field selection -------------------------------------------------------------------------------

def _paths_list(paths: str | Sequence[str]) -> list[str]:
    return [paths] if isinstance(paths, str) else list(paths)


def _resolve_all(schema: StructType, paths: Sequence[str]) -> list[ResolvedPath]:
    resolved = [resolve_path(schema, p) for p in paths]
    return [r for r in resolved if r is not None]


def rename_field(frame: DynamicFrame, old_name: str, new_name: str, transformation_ctx: str = "",
                 stage_threshold: int = 0, total_threshold: int = 0) -> DynamicFrame:
    """RenameField: rename the field at path ``old_name`` to path ``new_name``.

    As in Glue, ``new_name`` is the full new path: ``a.b`` → ``a.c`` renames inside
    struct ``a`` (order kept); a path under another parent moves the field there,
    creating structs as needed. A missing ``old_name`` leaves the frame unchanged.
    """
    schema = frame._df.schema
    resolved = resolve_path(schema, old_name)
    if resolved is None:
        return frame.derive(frame._df, transformation_ctx=transformation_ctx,
                            stage_threshold=stage_threshold, total_threshold=total_threshold)
    old_segments = parse_path(old_name)
    new_segments = parse_path(new_name)
    same_parent = (len(old_segments) == len(new_segments)
                   and [s.name.lower() for s in old_segments[:-1]] == [s.name.lower() for s in new_segments[:-1]])
    if same_parent:
        new_leaf = new_segments[-1].name
        columns = modify_field(schema, resolved, lambda column, _t, _n: [(new_leaf, column)])
        return frame.derive(select_as(frame._df, columns), transformation_ctx=transformation_ctx,
                            stage_threshold=stage_threshold, total_threshold=total_threshold)
    if resolved.through_arrays or any(s.array for s in new_segments):
        raise GlueRuntimeError(f"rename_field cannot move {old_name!r} to {new_name!r} across arrays")
    moved = select_as(frame._df, [*drop_paths(schema, [resolved]), ("__glueball_moved", read_resolved(resolved))])
    return frame.derive(_set_field(moved, new_segments, "__glueball_moved"), transformation_ctx=transformation_ctx,
                        stage_threshold=stage_threshold, total_threshold=total_threshold)


def _set_field(df: DataFrame, segments: Sequence[Segment], value_column: str) -> DataFrame:
    """``df`` with column ``value_column`` moved to the struct path ``segments`` (structs made as needed)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StructType

    value = column_ref(value_column)

    def place(struct: Column | None, struct_type: DataType | None, rest: Sequence[Segment]) -> Column:
        """The struct ``struct`` (None: a new one) with the field at ``rest`` set to the value."""
        name = rest[0].name
        existing = struct_type if isinstance(struct_type, StructType) else None
        if len(rest) == 1:
            inner = value
        else:
            child_type = existing[name].dataType if existing is not None and name in existing.fieldNames() else None
            child = struct.getField(name) if struct is not None and child_type is not None else None
            inner = place(child, child_type, rest[1:])
        kept = [] if existing is None or struct is None else [
            struct.getField(f.name).alias(f.name) for f in existing.fields if f.name != name]
        return F.struct(*kept, inner.alias(name))

    schema = df.schema
    top = segments[0].name
    others = [column_ref(f.name) for f in schema.fields if f.name not in (top, value_column)]
    if len(segments) == 1:
        return df.select(*others, value.alias(top))
    top_type = schema[top].dataType if top in schema.fieldNames() else None
    built = place(column_ref(top) if top_type is not None else None, top_type, segments[1:])
    return df.select(*others, built.alias(top))


def drop_fields(frame: DynamicFrame, paths: str | Sequence[str], transformation_ctx: str = "",
                stage_threshold: int = 0, total_threshold: int = 0) -> DynamicFrame:
    """DropFields: remove fields by path (nested through structs and arrays of structs).

    Paths that are not in the frame are ignored, as in Glue; a struct whose every
    field is dropped goes too.
    """
    schema = frame._df.schema
    resolved = _resolve_all(schema, _paths_list(paths))
    return frame.derive(select_as(frame._df, drop_paths(schema, resolved)), transformation_ctx=transformation_ctx,
                        stage_threshold=stage_threshold, total_threshold=total_threshold)


def select_fields(frame: DynamicFrame, paths: str | Sequence[str], transformation_ctx: str = "",
                  stage_threshold: int = 0, total_threshold: int = 0) -> DynamicFrame:
    """SelectFields: keep only the fields at ``paths``; nested paths keep the structs around them.

    Paths that are not in the frame are ignored, as in Glue.
    """
    schema = frame._df.schema
    resolved = _resolve_all(schema, _paths_list(paths))
    return frame.derive(select_as(frame._df, keep_paths(schema, resolved)), transformation_ctx=transformation_ctx,
                        stage_threshold=stage_threshold, total_threshold=total_threshold)




def split_fields(frame: DynamicFrame, paths: str | Sequence[str], name1: str, name2: str,
                 transformation_ctx: str = "", stage_threshold: int = 0,
                 total_threshold: int = 0) -> DynamicFrameCollection:
    """SplitFields: {name1: the fields at ``paths``, name2: every other field}."""
    schema = frame._df.schema
    resolved = _resolve_all(schema, _paths_list(paths))
    kw: dict[str, Any] = {"transformation_ctx": transformation_ctx, "stage_threshold": stage_threshold,
                          "total_threshold": total_threshold}
    selected = frame.derive(select_as(frame._df, keep_paths(schema, resolved)), name=name1, **kw)
    rest = frame.derive(select_as(frame._df, drop_paths(schema, resolved)), name=name2, **kw)
    return frame.collection({name1: selected, name2: rest})


_OPERATORS = {"=", "==", "!=", "<>", "<", ">", "<=", ">="}


def split_condition(schema: StructType, comparison_dict: Mapping[str, Mapping[str, Any]]) -> Column:
    """The condition of SplitRows: every comparison holds (null or a missing field: it does not)."""
    from pyspark.sql import functions as F

    condition = F.lit(True)
    for path, comparisons in comparison_dict.items():
        found = get_field(schema, path)
        for operator, value in comparisons.items():
            if operator not in _OPERATORS:
                raise GlueRuntimeError(f"split_rows: unknown operator {operator!r} for {path!r}; "
                                       f"use one of {sorted(_OPERATORS)}")
            if found is None:
                condition = F.lit(False)
                continue
            column = found[0]
            literal = F.lit(value)
            comparison = {"=": column == literal, "==": column == literal, "!=": column != literal,
                          "<>": column != literal, "<": column < literal, ">": column > literal,
                          "<=": column <= literal, ">=": column >= literal}[operator]
            condition = condition & comparison
    return F.coalesce(condition, F.lit(False))


def split_rows(frame: DynamicFrame, comparison_dict: Mapping[str, Mapping[str, Any]], name1: str, name2: str,
               transformation_ctx: str = "", stage_threshold: int = 0,
               total_threshold: int = 0) -> DynamicFrameCollection:
    """SplitRows: {name1: rows meeting every comparison, name2: the rest}.

    ``comparison_dict`` maps a field path to {operator: value}, operators ``=``, ``!=``,
    ``<``, ``>``, ``<=``, ``>=`` (e.g. ``{"age": {">": 10, "<": 20}}``). A row whose
    field is null or missing goes to ``name2``.
    """
    condition = split_condition(frame._df.schema, comparison_dict)
    kw: dict[str, Any] = {"transformation_ctx": transformation_ctx, "stage_threshold": stage_threshold,
                          "total_threshold": total_threshold}
    matching = frame.derive(frame._df.where(condition), name=name1, **kw)
    rest = frame.derive(frame._df.where(~condition), name=name2, **kw)
    return frame.collection({name1: matching, name2: rest})


# -- unnest and relationalize ----------------------------------------------------------------------

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


def _staging_dir(staging_path: str) -> str:
    from glueball.objects.locations import to_spark_path

    if not isinstance(staging_path, str) or not staging_path.strip():
        raise GlueRuntimeError("relationalize needs a staging_path (an s3:// or local directory)")
    base = to_spark_path(staging_path.strip()).rstrip("/")
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
    staging = _staging_dir(staging_path)
    tables: dict[str, DataFrame] = {}
    _pivot(frame._df, root_table_name, root_table_name, staging, [0], tables)
    kw: dict[str, Any] = {"transformation_ctx": transformation_ctx, "stage_threshold": stage_threshold,
                          "total_threshold": total_threshold}
    frames = {name: frame.derive(df, name=name, **kw) for name, df in tables.items()}
    return frame.collection(frames)


# -- null fields and missing values ----------------------------------------------------------------

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
