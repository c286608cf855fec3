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
from typing import TYPE_CHECKING, Any

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


def plain_records(columns: Sequence[Any], schema: StructType) -> Iterator[DynamicRecord]:
    """The rows of Arrow arrays of ``schema``'s fields (in its order) as ``DynamicRecord`` dicts of those
    fields: what a function that reads only these fields is handed.

    The columns become Python values column by column; the records are made one at a time as they are
    asked for, so a batch's records are never all alive at once (a record the function does not keep is
    freed before the next is made)."""
    names = schema.fieldNames()
    values = []
    for array, field in zip(columns, schema.fields, strict=True):
        convert = _value_converter(field.dataType, is_choice_field(field), by_name=True)
        raw = array.to_pylist()
        values.append(raw if convert is _identity else [convert(v) for v in raw])
    if len(names) == 1:
        name = names[0]
        return (DynamicRecord({name: value}) for value in values[0])
    return (DynamicRecord(zip(names, row, strict=True)) for row in zip(*values, strict=True))


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
