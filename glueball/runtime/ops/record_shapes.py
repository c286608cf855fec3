"""The Spark types of the records a Map function returns, and those records as typed Arrow columns.

Map infers its output schema from the records its function returns for a sample of the input
(:mod:`glueball.runtime.ops.record_map`), then every batch of results is built into Arrow columns of
that schema in the Python worker: the values keep their types (no JSON text between Python and the JVM).

**Types of values** (:func:`value_type`): ``bool`` boolean, ``int`` long, ``float`` double, ``str``
string, ``datetime`` timestamp, ``date`` date, ``Decimal`` decimal(38,18), ``bytes`` binary, a mapping a
struct (fields by name, in name order), a list, tuple or set an array. A field of the input of the same
name (or a nested field on the same path) lends its own type where the value is of that kind: a decimal's
precision, ``timestamp_ntz``, a map instead of a struct. Other objects are text (``str(value)``), as the
JSON the results travelled as used to make them. Types seen for one field in different records merge as
``union`` merges them (:func:`glueball.runtime.ops.record_ops.merge_types`): structs field by field,
different kinds a choice. A field null in every record sampled is a string.

**Building** (:func:`column_builder`): each value must *fit* its column's type — be of its kind (an ``int``
also fits a double or a decimal column, a ``date`` is not a ``datetime``), within its range and, for a
struct, have no field the struct lacks; a choice column takes each value as the member of its kind. A value
that does not fit raises :class:`Misfit`: the schema came from a sample, and this record was not like it.
"""

from __future__ import annotations

import datetime as dt
import decimal
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, cast

import pyarrow as pa

from glueball.runtime.dynamicrecord import is_choice_field
from glueball.runtime.ops.record_ops import choice_field, merge_types

if TYPE_CHECKING:
    from pyspark.sql.types import DataType

Typed = tuple["DataType", bool]  # a type and whether it is a choice (for an array: its innermost element)
Builder = Callable[[list[Any]], pa.Array]

_INT_RANGES = {"byte": 8, "short": 16, "integer": 32, "long": 64}


class Misfit(ValueError):
    """A returned value that the column's type (inferred from a sample) cannot hold."""

    def __init__(self, path: str, value: Any, expected: str, kept: bool = False, deleted: bool = False,
                 new_record: bool = False) -> None:
        found = f"a {type(value).__name__} ({str(repr(value))[:80]})"
        if kept or deleted or new_record:
            found = "left as the input had it" if kept else "deleted" if deleted else "in a new record, " + found
        super().__init__(f"field {path!r}: {found}, where the schema inferred from the sampled records has "
                         f"{expected}")
        self.path = path


# -- inference --------------------------------------------------------------------------------------

def value_type(value: Any, hint: DataType | None = None) -> Typed | None:
    """The type of one returned value (None for None), ``hint`` the input's type at the same place."""
    from pyspark.sql import types as T

    if value is None:
        return None
    if isinstance(value, bool):
        return T.BooleanType(), False
    if isinstance(value, int):
        return (hint, False) if isinstance(hint, T.DecimalType) else (T.LongType(), False)
    if isinstance(value, float):
        return (hint, False) if isinstance(hint, T.DecimalType) else (T.DoubleType(), False)
    if isinstance(value, str):
        return T.StringType(), False
    if isinstance(value, dt.datetime):
        return (hint, False) if isinstance(hint, T.TimestampType | T.TimestampNTZType) else (T.TimestampType(), False)
    if isinstance(value, dt.date):
        return T.DateType(), False
    if isinstance(value, decimal.Decimal):
        return (hint, False) if isinstance(hint, T.DecimalType) else (T.DecimalType(38, 18), False)
    if isinstance(value, bytes | bytearray | memoryview):
        return T.BinaryType(), False
    if isinstance(value, Mapping):
        if isinstance(hint, T.MapType) and all(isinstance(k, str) for k in value):
            item = merged(value_type(v, hint.valueType) for v in value.values())
            return T.MapType(hint.keyType, item[0] if item else hint.valueType, True), False
        inner = {f.name: f.dataType for f in hint.fields} if isinstance(hint, T.StructType) else {}
        fields = []
        for key in sorted(str(k) for k in value):
            data_type, choice = value_type(value[key], inner.get(key)) or (T.NullType(), False)
            fields.append(choice_field(key, data_type, choice))
        return T.StructType(fields), False
    if isinstance(value, list | tuple | set | frozenset):
        element = hint.elementType if isinstance(hint, T.ArrayType) else None
        found = merged(value_type(v, element) for v in value)
        return (T.ArrayType(found[0], True), found[1]) if found else (T.ArrayType(T.NullType(), True), False)
    return T.StringType(), False


def merge(a: Typed | None, b: Typed | None) -> Typed | None:
    """Two types seen for one field (None: only nulls seen) as one (see ``record_ops.merge_types``)."""
    if a is None:
        return b
    if b is None:
        return a
    return merge_types(a[0], a[1], b[0], b[1])


def merged(types: Any) -> Typed | None:
    found: Typed | None = None
    for typed in types:
        found = merge(found, typed)
    return found


def widened(data_type: DataType) -> DataType:
    """``data_type`` with its small numbers made long or double: an input field some records keep and others
    set to a Python number (inferred long or double) is then one type, not a choice of int and long."""
    from pyspark.sql import types as T

    def wider(leaf: DataType) -> DataType:
        if isinstance(leaf, T.ByteType | T.ShortType | T.IntegerType):
            return T.LongType()
        return T.DoubleType() if isinstance(leaf, T.FloatType) else leaf

    return _rebuilt(data_type, wider)


def by_name(data_type: DataType) -> DataType:
    """``data_type`` with the fields of every struct in name order, as JSON inference gives them (merging
    ``{"n": 1}`` with ``{"label": "x", "n": 2}`` keeps the first record's order)."""
    return _rebuilt(data_type, lambda leaf: leaf, in_name_order=True)


def settled(data_type: DataType) -> DataType:
    """``data_type`` with the types of fields and elements seen only as nulls made string (Parquet has no
    null type), as a field always null in JSON was."""
    from pyspark.sql import types as T

    return _rebuilt(data_type, lambda leaf: T.StringType() if isinstance(leaf, T.NullType) else leaf)


def _rebuilt(data_type: DataType, leaf: Callable[[DataType], DataType], in_name_order: bool = False) -> DataType:
    """``data_type`` with ``leaf`` applied to every type that is not an array, map or struct (a map's values, not
    its keys), everything nullable, structs' fields in name order if asked."""
    from pyspark.sql import types as T

    if isinstance(data_type, T.ArrayType):
        return T.ArrayType(_rebuilt(data_type.elementType, leaf, in_name_order), True)
    if isinstance(data_type, T.MapType):
        return T.MapType(data_type.keyType, _rebuilt(data_type.valueType, leaf, in_name_order), True)
    if isinstance(data_type, T.StructType):
        fields = sorted(data_type.fields, key=lambda f: f.name) if in_name_order else data_type.fields
        return T.StructType([T.StructField(f.name, _rebuilt(f.dataType, leaf, in_name_order), True, f.metadata)
                             for f in fields])
    return leaf(data_type)


# -- building Arrow columns -------------------------------------------------------------------------

def _kind(value: Any) -> str:
    """The Glue type name a value takes in a choice."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "long"
    if isinstance(value, float):
        return "double"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dt.datetime):
        return "timestamp"
    if isinstance(value, dt.date):
        return "date"
    if isinstance(value, decimal.Decimal):
        return "decimal"
    if isinstance(value, bytes | bytearray | memoryview):
        return "binary"
    if isinstance(value, Mapping):
        return "struct"
    if isinstance(value, list | tuple | set | frozenset):
        return "array"
    return "string"


_KIND_STANDINS = {"long": ("long", "int", "short", "byte", "double", "decimal"), "double": ("double", "float"),
                  "struct": ("struct", "map")}


def _mask(values: list[Any]) -> pa.Array | None:
    if None not in values:
        return None
    return pa.array([v is None for v in values], pa.bool_())


def column_builder(data_type: DataType, choice: bool, path: str) -> Builder:
    """A function making a list of returned values (None: null) into an Arrow array of ``data_type``."""
    from pyspark.sql import types as T
    from pyspark.sql.pandas.types import to_arrow_type

    arrow_type = to_arrow_type(data_type) if not isinstance(data_type, T.TimestampType) else \
        pa.timestamp("us", tz="UTC")
    if choice and isinstance(data_type, T.StructType):
        return _choice_builder(data_type, path)
    if isinstance(data_type, T.StructType):
        return _struct_builder(data_type, path)
    if isinstance(data_type, T.ArrayType):
        element = column_builder(data_type.elementType, choice, path + "[]")
        return _list_builder(element, path)
    if isinstance(data_type, T.MapType):
        keys = column_builder(data_type.keyType, False, path + "{}")
        items = column_builder(data_type.valueType, False, path + "{}")
        return _map_builder(keys, items, arrow_type, path)
    name = data_type.typeName()
    if name in _INT_RANGES:
        bits = _INT_RANGES[name]
        low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        return _checked(arrow_type, path, name, (int,), None if bits == 64 else lambda v: low <= v <= high)
    if isinstance(data_type, T.DoubleType | T.FloatType):
        return _checked(arrow_type, path, name, (float, int))
    if isinstance(data_type, T.StringType):
        return _string_builder(path)
    if isinstance(data_type, T.BooleanType):
        return _checked(arrow_type, path, name, (bool,))
    if isinstance(data_type, T.DateType):
        return _checked(arrow_type, path, name, (dt.date,), lambda v: not isinstance(v, dt.datetime))
    if isinstance(data_type, T.TimestampType):
        return _timestamp_builder(arrow_type, path, aware=True)
    if isinstance(data_type, T.TimestampNTZType):
        return _timestamp_builder(arrow_type, path, aware=False)
    if isinstance(data_type, T.DecimalType):
        return _decimal_builder(arrow_type, path, name)
    if isinstance(data_type, T.BinaryType):
        return _checked(arrow_type, path, name, (bytes, bytearray, memoryview))
    raise Misfit(path, None, f"a type Map cannot build ({data_type.simpleString()})")


def _checked(arrow_type: pa.DataType, path: str, expected: str, kinds: tuple[type, ...],
             check: Callable[[Any], bool] | None = None) -> Builder:
    exact = set(kinds) | {type(None)}

    def build(values: list[Any]) -> pa.Array:
        if not set(map(type, values)) <= exact:  # a bool, a subclass, another kind: look closer
            for value in values:
                if value is not None and (not isinstance(value, kinds) or
                                          (isinstance(value, bool) and bool not in kinds)):
                    raise Misfit(path, value, expected)
        if check is not None:
            for value in values:
                if value is not None and not check(value):
                    raise Misfit(path, value, expected)
        try:
            return pa.array(values, arrow_type)
        except (OverflowError, pa.ArrowInvalid) as exc:  # a long's range: Arrow checks it
            raise Misfit(path, next(v for v in values if v is not None), f"{expected} ({exc})") from exc

    return build


def _string_builder(path: str) -> Builder:
    def build(values: list[Any]) -> pa.Array:
        kinds = set(map(type, values))
        if kinds <= {str, type(None)}:
            return pa.array(values, pa.string())
        out = []
        for value in values:
            if value is None or isinstance(value, str):
                out.append(value)
            elif _kind(value) == "string":  # an object JSON could only write as its text
                out.append(str(value))
            else:
                raise Misfit(path, value, "string")
        return pa.array(out, pa.string())

    return build


def _timestamp_builder(arrow_type: pa.DataType, path: str, aware: bool) -> Builder:
    def build(values: list[Any]) -> pa.Array:
        out = []
        for value in values:
            if value is not None:
                if not isinstance(value, dt.datetime):
                    raise Misfit(path, value, "timestamp")
                if aware:  # records hold local time naive, as PySpark's rows do
                    value = value.astimezone(dt.UTC)
                elif value.tzinfo is not None:
                    value = value.astimezone().replace(tzinfo=None)
            out.append(value)
        return pa.array(out, arrow_type)

    return build


def _decimal_builder(arrow_type: pa.DataType, path: str, expected: str) -> Builder:
    def build(values: list[Any]) -> pa.Array:
        out = []
        for value in values:
            if isinstance(value, bool) or not (value is None or isinstance(value, int | float | decimal.Decimal)):
                raise Misfit(path, value, expected)
            out.append(value if value is None or isinstance(value, decimal.Decimal) else decimal.Decimal(repr(value)))
        try:
            return pa.array(out, arrow_type)
        except (pa.ArrowInvalid, OverflowError) as exc:  # more digits than the decimal holds
            raise Misfit(path, next(v for v in out if v is not None), f"{expected} ({exc})") from exc

    return build


def _struct_builder(data_type: Any, path: str) -> Builder:
    names = data_type.fieldNames()
    known = set(names)
    children = [column_builder(f.dataType, is_choice_field(f), f"{path}.{f.name}") for f in data_type.fields]

    def build(values: list[Any]) -> pa.Array:
        for value in values:
            if value is not None and (not isinstance(value, Mapping) or not known.issuperset(value)):
                extra = sorted(set(value) - known) if isinstance(value, Mapping) else None
                raise Misfit(f"{path}.{extra[0]}" if extra else path, value, "a struct of " + ", ".join(names))
        arrays = [child([None if v is None else v.get(name) for v in values])
                  for name, child in zip(names, children, strict=True)]
        return pa.StructArray.from_arrays(arrays, names=names, mask=_mask(values)) if names else \
            pa.array([None if v is None else {} for v in values], pa.struct([]))

    return build


def _choice_builder(data_type: Any, path: str) -> Builder:
    names = data_type.fieldNames()
    children = [column_builder(f.dataType, is_choice_field(f), f"{path}.{f.name}") for f in data_type.fields]

    def build(values: list[Any]) -> pa.Array:
        columns: dict[str, list[Any]] = {name: [None] * len(values) for name in names}
        for row, value in enumerate(values):
            if value is None:
                continue
            kind = _kind(value)
            member = next((m for m in _KIND_STANDINS.get(kind, (kind,)) if m in columns), None)
            if member is None:
                raise Misfit(path, value, "a choice of " + ", ".join(names))
            columns[member][row] = value
        arrays = [child(columns[name]) for name, child in zip(names, children, strict=True)]
        return pa.StructArray.from_arrays(arrays, names=names, mask=_mask(values))

    return build


def _offsets(values: list[Any], path: str, kinds: tuple[type, ...], expected: str) -> tuple[list[int], list[Any]]:
    offsets: list[int] = [0]
    flat: list[Any] = []
    for value in values:
        if value is not None:
            if not isinstance(value, kinds) or isinstance(value, str | bytes):
                raise Misfit(path, value, expected)
            flat.extend(cast("Iterable[Any]", value))
        offsets.append(len(flat))
    return offsets, flat


def _list_builder(element: Builder, path: str) -> Builder:
    def build(values: list[Any]) -> pa.Array:
        offsets, flat = _offsets(values, path, (list, tuple, set, frozenset), "an array")
        return pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), element(flat), mask=_mask(values))

    return build


def _map_builder(keys: Builder, items: Builder, arrow_type: pa.DataType, path: str) -> Builder:
    def build(values: list[Any]) -> pa.Array:
        offsets, flat = _offsets(values, path, (Mapping,), "a map")
        pairs = [(k, value[k]) for value in values if value is not None for k in value]
        assert len(pairs) == len(flat)
        return pa.MapArray.from_arrays(pa.array(offsets, pa.int32()), keys([k for k, _ in pairs]),
                                       items([v for _, v in pairs]), type=arrow_type, mask=_mask(values))

    return build


__all__ = ["Misfit", "by_name", "column_builder", "merge", "merged", "settled", "value_type", "widened"]
