"""Map: a Python function per record, its results returned to Spark as typed columns.

**The schema.** Before the plan is built, the function runs in the driver on the first records of the
input (``spark.glueball.mapSampleRecords``, 10,000 by default; a small job that reads only as far as it
needs). The output schema is inferred from what it returns there (:mod:`glueball.runtime.ops.record_shapes`):
the input's fields first, in their order, then the new fields by name; types that differ between records
make a choice, nested structs merge field by field. A record whose function raises, or returns None or no
mapping, is an error record and adds nothing to the schema. When the sample is the whole input (a frame of
fewer records), the schema is the one every record gives.

**The function's results** come back from the Arrow UDF as one struct per row: a column per output field,
typed, plus the error message of a failed record. A field the function leaves as it was (it returns its
record without setting or deleting that field) is not sent back: a flag says so, and the JVM takes the
input's value (cast when the output type is wider). A field every sampled record left as it was has
no value column and no flag at all: the output is the input's column, and a later record that sets or
deletes it is refused like any other record unlike the sample. The fields sent to the function are those it reads,
when its bytecode shows them (``fields_read(f, returned=True)``: it may return its record), so
``r["amount"] = ...; return r`` sends and returns one column, as a ``withColumn`` UDF does. Nothing is
cached: as for Filter, every action re-runs the function; the error records are a plan of their own,
made when first asked for.

**When the sample decides, and when it does not.** A schema fixed before the job cannot widen for a record
unlike the sample (Glue would add a field or a choice). So the sample's schema is used only where no later record
can return a field it lacks a column for: the sample was the whole input (a frame of fewer records), or the
function's bytecode shows it returns only its record (or None) and sets or deletes only fields named by constants,
every one of which some sampled record set or deleted (:func:`_bounded`). Any other function — one that builds and
returns another mapping, sets a computed key, or whose constant-named field the sample never set (a rare branch) —
gets the exact way: its results travel as JSON text, are materialized once and inferred in two aggregate passes
(:func:`glueball.runtime.ops.record_functions.map_records_exact`), as Glue infers them. What the sample still
decides on the typed way is the kind of each value set: a later record whose value fits no column of its field
(a string where the sample only set numbers) fails the job, naming the field and the value. Raise
``spark.glueball.mapSampleRecords``, or set it to 0 for the exact way always.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from glueball.runtime.dynamicrecord import LazyRecord, error_text, is_choice_field
from glueball.runtime.errors import GlueRuntimeError, LazyErrors
from glueball.runtime.ops.field_reads import fields_changed, fields_read
from glueball.runtime.ops.record_functions import (
    _NONE_RESULT,
    _arrow_udf,
    _error_frame,
    _quote,
    _records,
    _whole_row,
    map_records_exact,
)
from glueball.runtime.ops.record_ops import choice_field
from glueball.runtime.ops.record_shapes import (
    Misfit,
    Typed,
    by_name,
    column_builder,
    merge,
    settled,
    value_type,
    widened,
)

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame
    from pyspark.sql.types import DataType, StructField, StructType

    from glueball.runtime.dynamicframe import DynamicFrame

SAMPLE_CONF = "spark.glueball.mapSampleRecords"
DEFAULT_SAMPLE = 10_000
_RESULT = "__glueball_map__"
_MESSAGE = "m"
_ERRORS = "__glueball_map_error__"


@dataclass(frozen=True)
class _Output:
    """One field of Map's output: its type, and whether a record may keep the input's value for it."""

    name: str
    data_type: DataType
    choice: bool
    kept: StructField | None  # the input field a record may leave unchanged (its value taken in the JVM)
    sent: bool = True  # whether values travel back (False: every sampled record left the input's value)


def sample_size(df: DataFrame) -> int:
    """The records Map's schema is inferred from (``spark.glueball.mapSampleRecords``; 0: every record)."""
    text = df.sparkSession.conf.get(SAMPLE_CONF, None) or str(DEFAULT_SAMPLE)
    try:
        size = int(text)
    except ValueError as exc:
        raise GlueRuntimeError(f"{SAMPLE_CONF} must be a number of records, got {text!r}") from exc
    if size < 0:
        raise GlueRuntimeError(f"{SAMPLE_CONF} must be 0 (every record) or more, got {size}")
    return size


def _outcomes(f: Callable[[Any], Any], records: Iterable[Any],
              partial: bool) -> Iterable[tuple[Any, Any, str | None]]:
    """Each record, what ``f`` returned for it and the error message that makes it an error record.

    ``partial``: the records hold only the fields ``f`` reads, the others staying in the JVM: a record returned
    with all of those deleted still has the others, so it is not an empty record."""
    for record in records:
        try:
            result = f(record)
        except Exception as exc:  # noqa: BLE001 - the record becomes an error record, as in Glue
            yield record, None, error_text(exc)
            continue
        if result is record and partial:
            yield record, result, None
        elif not result:
            yield record, None, _NONE_RESULT
        elif not isinstance(result, Mapping):
            yield record, None, f"User-specified function returned {type(result).__name__} instead of DynamicRecord"
        else:
            yield record, result, None


def _untouched(record: LazyRecord) -> tuple[dict[str, Any], set[str]]:
    """The fields a returned record had set and deleted (``LazyRecord`` keeps them)."""
    return record._changes or {}, record._deleted or set()


def _infer(df: DataFrame, f: Callable[[Any], Any], sent: list[Column], records_of: Callable[..., Iterable[Any]],
           size: int, partial: bool) -> tuple[list[_Output], bool]:
    """Map's output fields, from what ``f`` returns for the first ``size`` records, and whether those were every
    record of the input."""
    from pyspark.sql.types import StringType

    table = df.limit(size).select(*sent).toArrow()
    inputs = {field.name: field for field in df.schema.fields}
    seen: dict[str, Typed | None] = {}  # the fields records set, and their values' types
    kept: set[str] = set()  # the input fields some record left as they were
    always = set(inputs)  # the input fields every record left as they were
    if table.num_rows:
        arrays = [column.combine_chunks() for column in table.columns]
        for record, result, message in _outcomes(f, records_of(*arrays), partial):
            if message is not None:
                continue
            values = result
            if result is record:
                values, deleted = _untouched(record)
                kept.update(name for name in inputs if name not in values and name not in deleted)
                always.difference_update(deleted)
            always.difference_update(values if result is record else inputs)
            for key, value in values.items():
                hint = inputs[key].dataType if key in inputs else None
                seen[str(key)] = merge(seen.get(str(key)), value_type(value, hint))
    seen = {name: None if typed is None else (by_name(typed[0]), typed[1]) for name, typed in seen.items()}
    outputs = []
    for name in [*[n for n in inputs if n in seen or n in kept], *sorted(n for n in seen if n not in inputs)]:
        field = inputs.get(name)
        typed = seen.get(name)
        if field is not None and (name in kept or typed is None):  # kept, or set to None only: its own type
            own = (field.dataType, is_choice_field(field))
            typed = own if typed is None else merge((widened(own[0]), own[1]), typed)
        data_type, choice = typed if typed is not None else (StringType(), False)
        output = _Output(name, settled(data_type), choice, None)
        if field is not None and _may_keep(field, output):
            output = _Output(name, output.data_type, choice, field, sent=name not in always)
        outputs.append(output)
    return outputs, table.num_rows < size


def _bounded(f: Callable[[Any], Any], outputs: list[_Output]) -> bool:
    """Whether no record beyond the sample can return a field the sample's schema lacks a column for: ``f`` returns
    only its record, and every field its bytecode may set or delete was set or deleted by a sampled record
    (:func:`glueball.runtime.ops.field_reads.fields_changed`). What is left to the sample is the kinds of the values
    set; a record whose value fits no column of its field still fails the job, by name."""
    changed = fields_changed(f)
    if changed is None:
        return False
    sent = {output.name for output in outputs if output.sent}
    return changed <= sent


def _may_keep(field: StructField, output: _Output) -> bool:
    """Whether the input's value of ``field`` can stand for itself in ``output`` (its type, or one it widens to)."""
    target = (output.data_type, output.choice)
    return any(merge((own, is_choice_field(field)), target) == target
               for own in (field.dataType, widened(field.dataType)))


def _result_type(outputs: list[_Output]) -> StructType:
    from pyspark.sql.types import BooleanType, StringType, StructField, StructType

    fields = [StructField(_MESSAGE, StringType())]
    for i, output in enumerate(outputs):
        if output.sent:
            fields.append(StructField(f"v{i}", output.data_type))
        if output.sent and output.kept is not None:
            fields.append(StructField(f"k{i}", BooleanType()))
    return StructType(fields)


def _misfit(exc: Misfit, size: int, context: str) -> GlueRuntimeError:
    where = f"Map ({context})" if context else "Map"
    return GlueRuntimeError(
        f"{where}: {exc}. The output schema was inferred from the records returned for the first {size:,} input "
        f"records; set {SAMPLE_CONF} to more records, or to 0 to infer it from every record")


def map_records(frame: DynamicFrame, f: Callable[[Any], Any], transformation_ctx: str = "",
                stage_threshold: int = 0, total_threshold: int = 0) -> DynamicFrame:
    """Apply ``f`` to every record (Glue's ``Map`` / ``DynamicFrame.map``).

    ``f`` receives a ``DynamicRecord`` and returns the new record (a dict, or the record it was given,
    changed or not; it may add, remove or retype fields). The output schema is inferred from the records
    ``f`` returns for a sample of the input (see the module notes). A record whose ``f`` raises, or returns
    None or an empty record, becomes an error record (``error_stage`` "Map", ``error_input`` the input
    record as JSON), as in Glue.
    """
    from pyspark.sql import functions as F
    from pyspark.sql.types import StructType

    df = frame._df
    size = sample_size(df)
    if size == 0:
        return map_records_exact(frame, f, transformation_ctx, stage_threshold, total_threshold)
    reads = fields_read(f, returned=True)
    fields = df.schema.fields if reads is None else [field for field in df.schema.fields if field.name in reads]
    sent = [F.col(_quote(field.name)) for field in fields] or [F.lit(None).cast("boolean")]
    records_of = _records(StructType(fields), narrowed=False)  # lazy records: they keep what f changed
    partial = len(fields) < len(df.schema.fields)  # the function is sent only the fields it reads
    outputs, whole = _infer(df, f, sent, records_of, size, partial)
    if not whole and not _bounded(f, outputs):
        return map_records_exact(frame, f, transformation_ctx, stage_threshold, total_threshold)
    results = _results_function(f, records_of, outputs, [n for n in df.columns if n not in
                                                          {o.name for o in outputs if o.kept is not None}],
                                size, transformation_ctx, partial)
    result = F.col(_RESULT)
    # nondeterministic: the optimizer would otherwise push the filter on the message below the projection of
    # the values, and the function would run twice per record
    function: Any = _arrow_udf(results, _result_type(outputs))  # type: ignore[arg-type]
    tagged = df.withColumn(_RESULT, function.asNondeterministic()(*sent))
    columns = []
    for i, output in enumerate(outputs):
        if not output.sent:  # every record leaves it: the input's column, as it is
            columns.append(F.col(_quote(output.name)).alias(output.name, metadata=_metadata(output)))
            continue
        column = result.getField(f"v{i}")
        if output.kept is not None:
            own = output.kept
            before = F.col(_quote(own.name))
            if (own.dataType, is_choice_field(own)) != (output.data_type, output.choice):
                from glueball.runtime.ops.record_ops import convert_column

                before = convert_column(before, own.dataType, is_choice_field(own), output.data_type, output.choice)
            column = F.when(result.getField(f"k{i}"), before).otherwise(column)
        columns.append(column.alias(output.name, metadata=_metadata(output)))
    records = tagged.where(result.getField(_MESSAGE).isNull()).select(*columns)
    errors = LazyErrors(lambda: _error_frame(tagged.withColumn(_ERRORS, result.getField(_MESSAGE)), _ERRORS,
                                             _whole_row(df), df.schema, "Map", transformation_ctx))
    return frame.derive(records, stage_errors=errors, transformation_ctx=transformation_ctx,
                        stage_threshold=stage_threshold, total_threshold=total_threshold)


def _metadata(output: _Output) -> dict[str, Any]:
    """The output column's choice marker, as a field of its type would carry it."""
    return dict(choice_field(output.name, output.data_type, output.choice).metadata)


def _results_function(f: Callable[[Any], Any], records_of: Callable[..., Iterable[Any]], outputs: list[_Output],
                      fixed: list[str], size: int, context: str, partial: bool) -> Callable[..., pa.Array]:
    """The Arrow UDF's function: the batch's records through ``f``, the results as typed columns.

    ``fixed``: the input fields a returned record may not leave as they were (the output has them of
    another type, or not at all)."""
    position = {output.name: i for i, output in enumerate(outputs) if output.sent}
    untouchable = {output.name for output in outputs if not output.sent}
    keepable = [i for i, output in enumerate(outputs) if output.sent and output.kept is not None]
    builders = [column_builder(o.data_type, o.choice, o.name) for o in outputs]
    arrow_types = [_arrow_type(o.data_type) for o in outputs]
    names = [_MESSAGE]
    for i, output in enumerate(outputs):
        if output.sent:
            names.append(f"v{i}")
        if output.sent and output.kept is not None:
            names.append(f"k{i}")
    always_left = "the input's value (every sampled record left it as it was)"

    def results(*arrays: pa.Array) -> pa.Array:
        rows = len(arrays[0])
        values: list[list[Any]] = [[None] * rows for _ in outputs]
        keeps: dict[int, list[bool]] = {i: [True] * rows for i in keepable}
        messages: list[str | None] = [None] * rows
        try:
            for row, (record, result, message) in enumerate(_outcomes(f, records_of(*arrays), partial)):
                if message is not None:
                    messages[row] = message
                    continue
                if result is record:
                    changes, deleted = _untouched(record)
                    for name in fixed:
                        if name not in changes and name not in deleted:
                            raise Misfit(name, None, "another type, or no such field", kept=True)
                    for name in deleted:
                        if name in untouchable:
                            raise Misfit(name, None, always_left, deleted=True)
                        i = position.get(name)
                        if i in keeps:
                            keeps[i][row] = False
                else:
                    changes = result
                    if untouchable:
                        name = min(untouchable)
                        raise Misfit(name, result.get(name), always_left, new_record=True)
                    for keep in keeps.values():
                        keep[row] = False
                for key, value in changes.items():
                    i = position.get(key)
                    if i is None:
                        raise Misfit(str(key), value, always_left if key in untouchable else "no such field")
                    values[i][row] = value
                    if i in keeps:
                        keeps[i][row] = False
            children = [_message_array(messages)]
            for i, (column, build) in enumerate(zip(values, builders, strict=True)):
                if not outputs[i].sent:
                    continue
                children.append(pa.nulls(rows, arrow_types[i]) if column.count(None) == rows else build(column))
                if i in keeps:
                    children.append(pa.array(keeps[i], pa.bool_()))
        except Misfit as exc:
            raise _misfit(exc, size, context) from None
        return pa.StructArray.from_arrays(children, names=names)

    return results


def _message_array(messages: list[str | None]) -> pa.Array:
    return pa.array(messages, pa.string())


def _arrow_type(data_type: DataType) -> pa.DataType:
    from pyspark.sql.pandas.types import to_arrow_type

    return to_arrow_type(data_type)
