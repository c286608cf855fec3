"""Map's Python side: the records of an Arrow batch through the function, and what it did as typed columns.

This runs in the Arrow UDF that :mod:`glueball.runtime.ops.record_map` plans (the output fields, their types, which
of them may be left to the JVM), and on the driver for the sample that plan comes from.

**The records handed to the function.** When the function's bytecode shows every use of its record
(:func:`~glueball.runtime.ops.field_reads.fields_read`), it gets a ``TrackedRecord`` of the fields it reads: a dict
whose sets are noted in two lists per batch (no object per record), a deleted field being one no longer in it. Else
it gets the lazy whole record (``LazyRecord``), which keeps its own changes, and each record is looked at as soon as
the function returns it.

**Tracked records, column by column.** The function runs over ``CHUNK`` records at a time (records alive together
for longer would be moved to the garbage collector's oldest generation, whose collections walk every object of
the worker). What it did to them is then read per output field rather than per record: the records it set the
field on (from the noted sets; when every record had the same fields set, as most functions do, by checking the
sets' order against the records'), those it deleted it from, their values (``dict.get`` mapped over the records).
Records that raised or returned something else (None, an empty record, another mapping) are taken one by one. A
chunk in which a record set a field without a column, or left or deleted one it may not, is read record by record
instead, in order, to find the first record refused and why, as the lazy records are.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import compress, repeat
from operator import eq, is_
from typing import TYPE_CHECKING, Any

import pyarrow as pa  # at module level: PySpark reads the Arrow UDFs' type hints (pa.Array) at run time

from glueball.runtime.dynamicrecord import LazyRecord, TrackedRecord, error_text, tracked_kind, tracked_records
from glueball.runtime.ops.record_functions import _NONE_RESULT, _records
from glueball.runtime.ops.record_shapes import Misfit, column_builder

if TYPE_CHECKING:
    from pyspark.sql.types import DataType, StructType

    from glueball.runtime.ops.record_map import Output

MESSAGE = "m"  # the result struct's error message field
CHUNK = 256  # tracked records looked at together (see dynamicrecord.tracked_records)
_ALWAYS_LEFT = "the input's value (every sampled record left it as it was)"


@dataclass(frozen=True)
class Handed:
    """How a UDF's input columns become the records Map's function is handed.

    ``tracked``: the function's bytecode shows every use of its record, so it gets a ``TrackedRecord`` of the fields
    it reads; else the lazy whole record."""

    schema: StructType  # the fields sent: those the function reads, or every field
    tracked: bool
    partial: bool  # some fields of the input are not sent (the function does not read them)

    @property
    def names(self) -> list[str]:
        return self.schema.fieldNames()

    def lazy(self, arrays: Sequence[pa.Array]) -> Iterable[LazyRecord]:
        """The lazy records of a batch (``tracked`` false)."""
        return _records(self.schema, narrowed=False)(*arrays)

    def tracked_chunks(self, arrays: Sequence[pa.Array]) -> tuple[Iterable[list[TrackedRecord]], type[TrackedRecord]]:
        """The tracked records of a batch, in lists of ``CHUNK``, and their class (which notes the sets)."""
        kind = tracked_kind()
        return tracked_records(arrays, self.schema, kind, CHUNK), kind


def refusal(result: Any) -> str | None:
    """Why a function's result (not the record it was handed) makes an error record, if it does."""
    if not result:
        return _NONE_RESULT
    if not isinstance(result, Mapping):
        return f"User-specified function returned {type(result).__name__} instead of DynamicRecord"
    return None


def returned_itself(record: Any, result: Any, partial: bool) -> bool:
    """Whether ``f`` returned the record it was handed, and that is a record rather than an empty one: it has a field
    left, or it was not sent every field (``partial``: the fields it was not sent are still the record's, so deleting
    every sent one does not empty it). Anything else — None, another mapping, an empty record — is looked at by
    :func:`refusal` and :meth:`_Columns.take_other`."""
    return result is record and (partial or bool(result))


def outcomes(f: Callable[[Any], Any], handed: Handed,
             arrays: Sequence[pa.Array]) -> Iterable[tuple[Any, Any, str | None, dict[str, Any], set[str]]]:
    """Each record of a batch, one at a time: what ``f`` returned for it (None for an error record), the error
    message, and, when it returned the record itself, the fields it set (with their values) and those of the sent
    fields it deleted (the driver's sample: :func:`glueball.runtime.ops.record_map._infer`).

    A record returned with all its sent fields deleted still has the fields it was not sent when the function reads
    only some (``handed.partial``), so it is not an empty record."""
    kind: type[TrackedRecord] | None = None
    if handed.tracked:
        chunks, kind = handed.tracked_chunks(arrays)
        records: Iterable[Any] = (record for chunk in chunks for record in chunk)
    else:
        records = handed.lazy(arrays)
    for record in records:
        if kind is not None:
            kind.set_on.clear()
            kind.set_keys.clear()
        try:
            result = f(record)
        except Exception as exc:  # noqa: BLE001 - the record becomes an error record, as in Glue
            yield record, None, error_text(exc), {}, set()
            continue
        if returned_itself(record, result, handed.partial):
            changes, deleted = _untouched(record, handed.names, kind.set_keys if kind is not None else ())
            yield record, result, None, changes, deleted
        else:
            message = refusal(result)
            yield record, None if message else result, message, {}, set()


def _untouched(record: Any, names: Iterable[str], keys: Iterable[str]) -> tuple[dict[str, Any], set[str]]:
    """The fields a returned record had set, with their values, and the fields of ``names`` (those it was sent) it
    had deleted; ``keys``: the fields set on it, for a ``TrackedRecord`` (a ``LazyRecord`` keeps both)."""
    if isinstance(record, LazyRecord):
        return record._changes or {}, record._deleted or set()
    return {key: record[key] for key in keys if key in record}, {name for name in names if name not in record}


def results_function(f: Callable[[Any], Any], handed: Handed, outputs: list[Output], fixed: list[str],
                     refuse: Callable[[Misfit], Exception]) -> Callable[..., pa.Array]:
    """The Arrow UDF's function: a batch's records through ``f``, the results as one struct per row: the error
    message, then per output field that travels back its value (``v<i>``) and, if the input's value may stand for
    it, whether the record left it as it was (``k<i>``).

    ``fixed``: the input fields a returned record may not leave as they were (the output has them of another type,
    or not at all). ``refuse``: the error a value unlike the sample's fails the job with."""
    plan = _Plan(outputs, fixed, handed)

    def results(*arrays: pa.Array) -> pa.Array:
        rows = len(arrays[0])
        columns = _Columns(plan, rows)
        try:
            if handed.tracked:
                _tracked_batch(f, plan, columns, arrays)
            else:
                _lazy_batch(f, plan, columns, arrays)
            return columns.arrow()
        except Misfit as exc:
            raise refuse(exc) from None

    return results


class _Plan:
    """What the results of every batch are made of (built once, on the driver)."""

    def __init__(self, outputs: list[Output], fixed: list[str], handed: Handed) -> None:
        self.outputs = outputs
        self.handed = handed
        self.fixed = fixed
        self.fixed_set = frozenset(fixed)
        self.position = {output.name: i for i, output in enumerate(outputs) if output.sent}
        self.untouchable = {output.name for output in outputs if not output.sent}
        self.keepable = [i for i, output in enumerate(outputs) if output.sent and output.kept is not None]
        self.builders = [column_builder(o.data_type, o.choice, o.name) for o in outputs]
        self.arrow_types = [_arrow_type(o.data_type) for o in outputs]
        self.names = [MESSAGE]
        for i, output in enumerate(outputs):
            if output.sent:
                self.names.append(f"v{i}")
            if output.sent and output.kept is not None:
                self.names.append(f"k{i}")
        self.sent_names = handed.names
        self.sent_set = frozenset(handed.names)
        self.fixed_outside = [name for name in fixed if name not in self.position]  # only a deletion satisfies them


class _Columns:
    """One batch's output columns being filled: per output its values, per keepable output whether each record left
    it, and each record's error message."""

    def __init__(self, plan: _Plan, rows: int) -> None:
        self.plan = plan
        self.rows = rows
        self.values: list[list[Any]] = [[None] * rows for _ in plan.outputs]
        self.keeps: dict[int, list[bool]] = {i: [True] * rows for i in plan.keepable}
        self.messages: list[str | None] = [None] * rows

    def take_record(self, row: int, changes: Mapping[str, Any], deleted: Collection[str]) -> None:
        """The record itself returned, having set ``changes`` and deleted ``deleted``."""
        plan = self.plan
        for name in plan.fixed:
            if name not in changes and name not in deleted:
                raise Misfit(name, None, "another type, or no such field", kept=True)
        for name in deleted:
            if name in plan.untouchable:
                raise Misfit(name, None, _ALWAYS_LEFT, deleted=True)
            i = plan.position.get(name)
            if i in self.keeps:
                self.keeps[i][row] = False
        self._take(row, changes)

    def take_other(self, row: int, result: Any) -> None:
        """Something other than the record returned: an error record, or a new record (another mapping)."""
        message = refusal(result)
        if message is not None:
            self.messages[row] = message
            return
        plan = self.plan
        if plan.untouchable:
            name = min(plan.untouchable)
            raise Misfit(name, result.get(name), _ALWAYS_LEFT, new_record=True)
        for keep in self.keeps.values():
            keep[row] = False
        self._take(row, result)

    def _take(self, row: int, changes: Mapping[str, Any]) -> None:
        plan = self.plan
        for key, value in changes.items():
            i = plan.position.get(key)
            if i is None:
                raise Misfit(str(key), value, _ALWAYS_LEFT if key in plan.untouchable else "no such field")
            self.values[i][row] = value
            if i in self.keeps:
                self.keeps[i][row] = False

    def arrow(self) -> pa.Array:
        plan = self.plan
        messages = self.messages
        children = [pa.nulls(self.rows, pa.string()) if messages.count(None) == self.rows else
                    pa.array(messages, pa.string())]
        for i, (column, build) in enumerate(zip(self.values, plan.builders, strict=True)):
            if not plan.outputs[i].sent:
                continue
            children.append(pa.nulls(self.rows, plan.arrow_types[i]) if column.count(None) == self.rows
                            else build(column))
            if i in self.keeps:
                children.append(pa.array(self.keeps[i], pa.bool_()))
        return pa.StructArray.from_arrays(children, names=plan.names)


def _lazy_batch(f: Callable[[Any], Any], plan: _Plan, columns: _Columns, arrays: Sequence[pa.Array]) -> None:
    """Lazy records, each looked at as soon as ``f`` returns it (the function may keep and change a record)."""
    partial = plan.handed.partial
    for row, record in enumerate(plan.handed.lazy(arrays)):
        try:
            result = f(record)
        except Exception as exc:  # noqa: BLE001 - the record becomes an error record, as in Glue
            columns.messages[row] = error_text(exc)
            continue
        if returned_itself(record, result, partial):  # the call: within the noise of bench/map_worker.py
            columns.take_record(row, record._changes or {}, record._deleted or ())
        else:
            columns.take_other(row, result)


def _tracked_batch(f: Callable[[Any], Any], plan: _Plan, columns: _Columns, arrays: Sequence[pa.Array]) -> None:
    """Tracked records, a chunk at a time: ``f`` over the chunk's records, then what it did read by column or,
    failing that, by record."""
    chunks, kind = plan.handed.tracked_chunks(arrays)
    messages = columns.messages
    start = 0
    for records in chunks:
        kind.set_on.clear()
        kind.set_keys.clear()
        returned: list[Any] = []
        failed = 0
        handing = iter(records)
        while True:
            try:
                returned.extend(map(f, handing))  # the loop in C; a record that raises stops it, after it the rest
                break
            except Exception as exc:  # noqa: BLE001 - the record becomes an error record, as in Glue
                messages[start + len(returned)] = error_text(exc)
                returned.append(None)
                failed += 1
        if not _by_column(plan, columns, records, returned, kind, start, failed):
            _by_record(plan, columns, records, returned, kind, start)
        start += len(records)


def _by_record(plan: _Plan, columns: _Columns, records: list[TrackedRecord], returned: list[Any],
               kind: type[TrackedRecord], start: int) -> None:
    """Each record in turn (the batch's rows from ``start``), the fields set on it taken from the noted sets."""
    keys_of: dict[int, list[str]] = {}
    for record, key in zip(kind.set_on, kind.set_keys, strict=True):
        keys_of.setdefault(id(record), []).append(key)
    partial = plan.handed.partial
    for row, (record, result) in enumerate(zip(records, returned, strict=True), start):
        if columns.messages[row] is not None:
            continue
        if returned_itself(record, result, partial):
            changes, deleted = _untouched(record, plan.sent_names, keys_of.get(id(record), ()))
            columns.take_record(row, changes, deleted)
        else:
            columns.take_other(row, result)


def _by_column(plan: _Plan, columns: _Columns, records: list[TrackedRecord], returned: list[Any],
               kind: type[TrackedRecord], start: int, failed: int) -> bool:
    """Fill the columns of the batch's rows from ``start`` per output field, when no record returned as itself set a
    field without a column, or left or deleted one it may not; else False (such a record is refused), with nothing
    filled. ``failed``: how many of the records raised."""
    rows = len(records)
    messages = columns.messages[start:start + rows]
    if not failed and all(map(is_, returned, records)) and (plan.handed.partial or all(records)):
        odd: list[int] = []
    else:  # error records, and records that returned something else: taken one by one
        partial = plan.handed.partial
        odd = [row for row, (record, result) in enumerate(zip(records, returned, strict=True))
               if messages[row] is not None or not returned_itself(record, result, partial)]
    keys, set_on = kind.set_keys, kind.set_on
    shape = [] if odd else _shape(keys, set_on, records)
    every = set(shape)  # the fields set on every record
    named = every if shape else set(keys)
    if not named <= plan.position.keys():  # a field without a column (or one that must stay as it was) set
        return False
    count = len(plan.sent_names)  # the fields a record starts with: fewer after the function, it deleted one
    if shape or named <= plan.sent_set:  # then no record has more than these
        deleted = min(map(len, records)) != count + len(every - plan.sent_set)
    else:
        deleted = not all(map(plan.sent_set.issubset, records))
    own = rows - len(odd)  # the records returned as themselves
    odd_ids = {id(records[row]) for row in odd}
    gone: dict[str, set[int]] = {}  # per sent field, the records returned as themselves without it
    if deleted:
        for name in plan.sent_names:
            ids = {id(record) for record in records if name not in record} - odd_ids
            if ids and name in plan.untouchable:  # deleted where the output is the input's column
                return False
            gone[name] = ids
    if any(len(gone.get(name, ())) != own for name in plan.fixed_outside):  # one only a deletion satisfies
        return False
    found = []
    for name, i in plan.position.items():
        on = set() if name in every or name not in named else \
            set(map(id, compress(set_on, map(eq, repeat(name), keys)))) - odd_ids
        dropped = gone.get(name, set())
        if name in plan.fixed_set and name not in every and len(on | dropped) != own:
            return False  # a record left a field it had to change
        found.append((name, i, on, dropped))
    end = start + rows
    for name, i, on, dropped in found:
        keep = columns.keeps.get(i)
        if name in every:
            columns.values[i][start:end] = map(dict.get, records, repeat(name))  # None where deleted after
            if keep is not None:
                keep[start:end] = repeat(False, rows)
            continue
        if on:
            columns.values[i][start:end] = [record.get(name) if id(record) in on else None for record in records]
        if keep is not None and (on or dropped):
            touched = on | dropped
            keep[start:end] = [id(record) not in touched for record in records]
    for row in odd:
        if messages[row] is None:
            columns.take_other(start + row, returned[row])
    return True


def _shape(keys: list[str], set_on: list[TrackedRecord], records: list[TrackedRecord]) -> list[str]:
    """The fields set on each record, when every record had the same fields set in the same order (most
    functions' way); else none. The sets are noted in the order the records were handed over."""
    every, extra = divmod(len(keys), len(records))
    if extra or not every:
        return []
    if every == 1:
        return keys[:1] if keys.count(keys[0]) == len(keys) and all(map(is_, set_on, records)) else []
    shape = keys[:every]
    for j, name in enumerate(shape):
        if keys[j::every].count(name) != len(records) or not all(map(is_, set_on[j::every], records)):
            return []
    return shape


def _arrow_type(data_type: DataType) -> pa.DataType:
    from pyspark.sql.pandas.types import to_arrow_type

    return to_arrow_type(data_type)
