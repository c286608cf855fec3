"""ApplyMapping's projection: mapping tuples, Glue type names and the conversions of values.

The mapping compiles to one lazy projection of the frame's DataFrame built from Spark
expressions (``glueball.runtime.ops.paths``), never Python per record. The entry point,
which also serves frames whose typing is pending, is
``glueball.runtime.ops.pending_mapping.apply_mapping``. The other field transforms live
in ``field_ops`` (select, drop, rename, split), ``restructure`` (Unnest, Relationalize) and
``null_fields`` (DropNullFields, FillMissingValues).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

from glueball.runtime.errors import GlueRuntimeError
from glueball.runtime.gluetypes import spark_type_from_glue_name
from glueball.runtime.ops.paths import (
    ELEMENTS,
    ResolvedPath,
    Segment,
    column_ref,
    parse_path,
    read_resolved,
    reader,
    resolve_path,
)

if TYPE_CHECKING:
    from pyspark.sql import Column
    from pyspark.sql.types import DataType, StructType



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


def convert_sql(text: str, source: DataType, target: DataType) -> str:
    """:func:`convert` as Spark SQL text, for SQL expression ``text`` of atomic type ``source`` and an atomic target.

    One ``F.expr`` of a whole conversion costs one call into the JVM where building it from ``Column``
    operations costs one per operation (a tenth of a millisecond each).
    """
    from pyspark.sql import types as T

    if source == target:
        return text
    if isinstance(source, T.StringType) and isinstance(target, (T.DateType, T.TimestampType)):
        return f"TRY_CAST(trim({text}) AS {target.simpleString()})"
    return f"TRY_CAST({text} AS {target.simpleString()})"


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
