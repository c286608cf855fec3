"""DynamicRecord: one record of a DynamicFrame as Python sees it in Map, Filter and mapPartitions.

Glue hands user functions a ``DynamicRecord`` that behaves like a dict: ``rec["field"]``,
nested dicts for structs, lists for arrays, dicts for maps, ``datetime``/``date``/``Decimal``
for timestamps, dates and decimals. A choice field (a value seen with several types) holds
the value the record actually has, not the struct that encodes the choice in Spark.

This module converts Spark rows to such records (driven by the schema, once per partition)
and records to JSON text (the way Map's results travel back into a DataFrame).
"""

from __future__ import annotations

import base64
import datetime as dt
import decimal
import json
from collections.abc import Callable, Iterator, Mapping, MutableMapping, Sequence
from itertools import repeat
from typing import TYPE_CHECKING, Any, ClassVar

from glueball.runtime.gluetypes import CHOICE_METADATA, ELEMENT_CHOICE_METADATA

if TYPE_CHECKING:
    from pyspark.sql.types import DataType, StructField, StructType

Converter = Callable[[Any], Any]


class DynamicRecord(dict[str, Any]):
    """A self-describing record (upstream ``DynamicRecord``): a dict of field name to value.

    Map functions may change it in place and return it, or return any other mapping.
    """


def _identity(value: Any) -> Any:
    return value


def _choice_converter(members: list[Converter], by_name: bool) -> Converter:
    def convert(value: Any) -> Any:
        if value is None:
            return None
        items = value.values() if by_name else value
        for member, item in zip(members, items, strict=False):
            if item is not None:
                return member(item)
        return None

    return convert


def _naive_timestamp(value: Any) -> Any:
    """Arrow hands timestamps over time-zone aware; records hold them naive in local time, as PySpark's Rows do."""
    if value is None or value.tzinfo is None:
        return value
    return value.astimezone().replace(tzinfo=None)


def is_choice_field(field: StructField) -> bool:
    """Whether the field is a choice (a struct field) or an array of choices (an array field)."""
    from pyspark.sql.types import ArrayType

    key = ELEMENT_CHOICE_METADATA if isinstance(field.dataType, ArrayType) else CHOICE_METADATA
    return bool((field.metadata or {}).get(key))


def _value_converter(data_type: DataType, choice: bool, by_name: bool = False) -> Converter:
    """How to turn a value of ``data_type`` (as PySpark gives it) into a record value.

    ``choice`` marks the field (or, for arrays, the innermost element) as a choice struct.
    ``by_name``: structs arrive as dicts (Arrow's ``to_pylist``) rather than Rows.
    """
    from pyspark.sql.types import ArrayType, MapType, StructType, TimestampType

    if isinstance(data_type, ArrayType):
        element = _value_converter(data_type.elementType, choice, by_name)
        if element is _identity:
            return lambda value: None if value is None else list(value)
        return lambda value: None if value is None else [element(item) for item in value]
    if isinstance(data_type, StructType):
        members = [_value_converter(f.dataType, is_choice_field(f), by_name) for f in data_type.fields]
        if choice:
            return _choice_converter(members, by_name)
        names = data_type.fieldNames()
        pairs = list(zip(names, members, strict=True))

        def convert_struct(value: Any) -> Any:
            if value is None:
                return None
            if by_name:
                return {name: member(value[name]) for name, member in pairs}
            return {name: member(value[index]) for index, (name, member) in enumerate(pairs)}

        return convert_struct
    if isinstance(data_type, MapType):
        values = _value_converter(data_type.valueType, False, by_name)
        if by_name:  # Arrow gives a map as a list of (key, value) pairs
            return lambda value: None if value is None else {k: values(v) for k, v in value}
        return lambda value: None if value is None else {k: values(v) for k, v in value.items()}
    if by_name and isinstance(data_type, TimestampType):
        return _naive_timestamp
    return _identity


def record_converter(schema: StructType, by_name: bool = False) -> Callable[[Any], DynamicRecord]:
    """A function turning a PySpark ``Row`` of ``schema`` (or, ``by_name``, an Arrow row dict) into a record.

    Structs become dicts, arrays lists, maps dicts, choice structs the member value present.
    """
    names = schema.fieldNames()
    members = [_value_converter(f.dataType, is_choice_field(f), by_name) for f in schema.fields]
    pairs = list(zip(names, members, strict=True))

    def convert(row: Any) -> DynamicRecord:
        if by_name:
            return DynamicRecord((name, member(row[name])) for name, member in pairs)
        return DynamicRecord((name, member(row[index])) for index, (name, member) in enumerate(pairs))

    return convert


def _json_default(value: Any) -> Any:
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, bytes | bytearray | memoryview):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    if isinstance(value, Mapping):
        return dict(value.items())
    return str(value)


def record_to_json(record: Any) -> str:
    """The record as one line of JSON text.

    Values JSON cannot hold are written as Glue writes them in JSON: timestamps and dates
    as ISO-8601 text, decimals as numbers, binary as base64 text.
    """
    return json.dumps(record, default=_json_default, ensure_ascii=False, allow_nan=True)


def error_text(exc: BaseException) -> str:
    """The message of an error record made from an exception raised by a user function."""
    message = str(exc)
    return message if message else type(exc).__name__


class _Columns(dict[str, list[Any]]):
    """A batch's columns by name as lists of record values, each converted when first looked up."""

    __slots__ = ("_batch", "_positions", "_converters")

    def __init__(self, batch: Any, positions: dict[str, int], converters: list[Converter]) -> None:
        super().__init__()
        self._batch = batch
        self._positions = positions
        self._converters = converters

    def __missing__(self, name: str) -> list[Any]:
        position = self._positions[name]  # KeyError: no such field
        raw = self._batch.column(position).to_pylist()
        convert = self._converters[position]
        column = raw if convert is _identity else [convert(v) for v in raw]
        self[name] = column
        return column


def _column_values(columns: Sequence[Any], schema: StructType) -> list[list[Any]]:
    """Arrow arrays of ``schema``'s fields (in its order) as lists of record values, column by column."""
    values = []
    for array, field in zip(columns, schema.fields, strict=True):
        convert = _value_converter(field.dataType, is_choice_field(field), by_name=True)
        raw = array.to_pylist()
        values.append(raw if convert is _identity else [convert(v) for v in raw])
    return values


def plain_records(columns: Sequence[Any], schema: StructType) -> Iterator[DynamicRecord]:
    """The rows of Arrow arrays of ``schema``'s fields (in its order) as ``DynamicRecord`` dicts of those
    fields: what a function that reads only these fields is handed.

    The columns become Python values column by column; the records are made one at a time as they are
    asked for, so a batch's records are never all alive at once (a record the function does not keep is
    freed before the next is made)."""
    names = schema.fieldNames()
    values = _column_values(columns, schema)
    if len(names) == 1:
        name = names[0]
        return (DynamicRecord({name: value}) for value in values[0])
    return (DynamicRecord(zip(names, row, strict=True)) for row in zip(*values, strict=True))


def tracked_records(columns: Sequence[Any], schema: StructType, kind: type[TrackedRecord],
                    size: int) -> Iterator[list[TrackedRecord]]:
    """The rows of Arrow arrays of ``schema``'s fields as records of ``kind`` (see :func:`tracked_kind`), in lists of
    ``size`` records made as they are asked for: Map looks at what its function did to many records at once, and
    records that live for a few hundred others stay young for the garbage collector (a batch's 10,000 records
    alive at once would be moved to its oldest generation, each full collection then walking every object of
    the worker)."""
    names = schema.fieldNames()
    values = _column_values(columns, schema) if names else []  # no field read: the UDF's one argument counts rows
    rows = len(columns[0])
    for start in range(0, rows, size):
        yield _made(kind, names, [column[start:start + size] for column in values], min(size, rows - start))


def _made(kind: type[TrackedRecord], names: list[str], values: list[list[Any]], rows: int) -> list[TrackedRecord]:
    """Records of ``kind`` from their values, column by column (for one to three fields a dict display per record,
    the quickest way to make a dict)."""
    if not names:
        return [kind() for _ in range(rows)]
    if len(names) == 1:
        a = names[0]
        return [kind({a: x}) for x in values[0]]
    if len(names) == 2:
        a, b = names
        return [kind({a: x, b: y}) for x, y in zip(*values, strict=True)]
    if len(names) == 3:
        a, b, c = names
        return [kind({a: x, b: y, c: z}) for x, y, z in zip(*values, strict=True)]
    return list(map(kind, map(zip, repeat(names), zip(*values, strict=True))))  # each row's (name, value) pairs


class TrackedRecord(DynamicRecord):
    """A ``DynamicRecord`` that notes the fields set on it, for Map's typed results: a field the function set
    travels back, one it left as it was stays in the JVM; a field deleted is one no longer in the record.

    Each set is noted in two lists of the record's class, one class per batch (:func:`tracked_kind`): ``set_on`` the
    record, ``set_keys`` the field, in the order of the sets — nothing per record but the dict. Only setting through
    ``record["name"] = value`` is noted: Map hands these records only to functions whose bytecode shows no other use
    of the record than reading, testing, setting and deleting constant-named fields and returning it
    (:mod:`glueball.runtime.ops.field_reads`). Reads are the dict's own; a set pays one Python call.
    """

    __slots__ = ()
    set_on: ClassVar[list[TrackedRecord]]  # each class made by tracked_kind() has its own lists
    set_keys: ClassVar[list[str]]


def tracked_kind() -> type[TrackedRecord]:
    """A class of ``TrackedRecord`` with lists of its own, which its ``__setitem__`` appends to (bound once: no
    attribute lookup per set)."""
    set_on: list[TrackedRecord] = []
    set_keys: list[str] = []
    note_record, note_key, set_item = set_on.append, set_keys.append, dict.__setitem__

    def __setitem__(self: TrackedRecord, key: str, value: Any) -> None:
        set_item(self, key, value)
        note_record(self)
        note_key(key)

    kind: type[TrackedRecord] = type("TrackedRecord", (TrackedRecord,), {
        "__slots__": (), "__setitem__": __setitem__, "set_on": set_on, "set_keys": set_keys})
    return kind


class BatchRecords:
    """The records of one Arrow batch; a column becomes Python values only when a function first reads it.

    A Filter on ``r["amount"] > 100`` then converts one column of the batch, not every field of
    every record — what a DataFrame UDF on that column would convert.
    """

    def __init__(self, batch: Any, schema: StructType) -> None:
        self._batch = batch
        self.names = schema.fieldNames()
        self.positions = {name: i for i, name in enumerate(self.names)}
        converters = [_value_converter(f.dataType, is_choice_field(f), by_name=True) for f in schema.fields]
        self.columns = _Columns(batch, self.positions, converters)

    def __len__(self) -> int:
        return int(self._batch.num_rows)

    def value(self, position: int, row: int) -> Any:
        return self.columns[self.names[position]][row]

    def record(self, row: int) -> LazyRecord:
        return LazyRecord(self, row)


class LazyRecord(MutableMapping[str, Any]):
    """A record of a ``BatchRecords`` batch: reads fields on demand, and takes changes as a dict would.

    Reading a field of a record nobody changed is one lookup in the batch's columns: a Filter's
    function runs once per record, so this is the per-record cost a function pays.
    """

    __slots__ = ("_records", "_columns", "_row", "_changes", "_deleted")

    def __init__(self, records: BatchRecords, row: int) -> None:
        self._records = records
        self._columns = records.columns
        self._row = row
        self._changes: dict[str, Any] | None = None  # made on the first change
        self._deleted: set[str] | None = None

    def __getitem__(self, key: str) -> Any:
        if self._changes is None:
            return self._columns[key][self._row]
        if key in self._changes:
            return self._changes[key]
        if key in self._deleted or key not in self._records.positions:  # type: ignore[operator]
            raise KeyError(key)
        return self._columns[key][self._row]

    def _changed(self) -> tuple[dict[str, Any], set[str]]:
        if self._changes is None:
            self._changes, self._deleted = {}, set()
        assert self._deleted is not None
        return self._changes, self._deleted

    def __setitem__(self, key: str, value: Any) -> None:
        changes, deleted = self._changed()
        changes[key] = value
        deleted.discard(key)

    def __delitem__(self, key: str) -> None:
        changes, deleted = self._changed()
        positions = self._records.positions
        if key in changes:
            del changes[key]
            if key in positions:
                deleted.add(key)
            return
        if key not in positions or key in deleted:
            raise KeyError(key)
        deleted.add(key)

    def __contains__(self, key: object) -> bool:
        if self._changes is None:
            return key in self._records.positions
        return key in self._changes or (key in self._records.positions and key not in self._deleted)  # type: ignore[operator]

    def __iter__(self) -> Iterator[str]:
        deleted = self._deleted or ()
        changes = self._changes or {}
        for name in self._records.names:
            if name not in deleted:
                yield name
        for name in changes:
            if name not in self._records.positions:
                yield name

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def copy(self) -> DynamicRecord:
        return DynamicRecord(self.items())

    def __repr__(self) -> str:
        return f"DynamicRecord({dict(self.items())!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mapping) and dict(self.items()) == dict(other.items())

    __hash__ = None  # type: ignore[assignment]
