"""Map: a Python function per record, its results returned to Spark as typed columns.

**The schema.** Where the function's bytecode shows the one kind of value (``None`` aside) each field it sets may
take on every path — ``record["amount"] = None if record["amount"] is None else round(record["amount"] * 100)`` sets
an ``int`` — the schema is read from it (:mod:`glueball.runtime.ops.record_kinds`) and no record runs before the
plan is built: the fields are those a sample holding records of every path would give (an input of no records
too). Otherwise, before the plan is built, the function runs in the driver on the first records of the
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
``r["amount"] = ...; return r`` sends and returns one column, as a ``withColumn`` UDF does; such a function gets
dicts that note what it sets, and its results are read a few hundred records at a time, by column
(:mod:`glueball.runtime.ops.record_results`, the UDF's Python side). Nothing is
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

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from glueball.runtime.dynamicrecord import is_choice_field
from glueball.runtime.errors import GlueRuntimeError, LazyErrors
from glueball.runtime.ops.field_reads import fields_changed, fields_read
from glueball.runtime.ops.record_functions import _arrow_udf, _error_frame, _quote, _whole_row, map_records_exact
from glueball.runtime.ops.record_kinds import BOOL, FLOAT, INT, NONE, STR, set_kinds
from glueball.runtime.ops.record_ops import choice_field
from glueball.runtime.ops.record_results import MESSAGE, Handed, outcomes, results_function
from glueball.runtime.ops.record_shapes import Misfit, Typed, by_name, merge, settled, value_type, widened

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame
    from pyspark.sql.types import DataType, StructField, StructType

    from glueball.runtime.dynamicframe import DynamicFrame

SAMPLE_CONF = "spark.glueball.mapSampleRecords"
DEFAULT_SAMPLE = 10_000
_RESULT = "__glueball_map__"
_ERRORS = "__glueball_map_error__"


@dataclass(frozen=True)
class Output:
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


def _infer(df: DataFrame, f: Callable[[Any], Any], sent: list[Column], handed: Handed,
           size: int) -> tuple[list[Output], bool]:
    """Map's output fields, from what ``f`` returns for the first ``size`` records, and whether those were every
    record of the input.

    The sample is read by one task, the input's partitions in order until ``size`` records (``coalesce(1)`` under the
    limit): the same records as ``limit`` alone, which reads up to ``size`` records of every partition and moves them
    to one through a shuffle — a second stage, and the adaptive planner between the two, about a third of the
    sample's cost in the JVM. Where the first partitions hold fewer records (a selective filter before the Map), the
    one task reads on into the next ones, in turn rather than side by side."""
    table = df.select(*sent).coalesce(1).limit(size).toArrow()
    inputs = {field.name: field for field in df.schema.fields}
    seen: dict[str, Typed | None] = {}  # the fields records set, and their values' types
    kept: set[str] = set()  # the input fields some record left as they were
    always = set(inputs)  # the input fields every record left as they were
    if table.num_rows:
        arrays = [column.combine_chunks() for column in table.columns]
        for record, result, message, changes, deleted in outcomes(f, handed, arrays):
            if message is not None:
                continue
            values = result
            if result is record:
                values = changes
                kept.update(name for name in inputs if name not in values and name not in deleted)
                always.difference_update(deleted)
            always.difference_update(values if result is record else inputs)
            for key, value in values.items():
                hint = inputs[key].dataType if key in inputs else None
                seen[str(key)] = merge(seen.get(str(key)), value_type(value, hint))
    return _outputs(inputs, seen, kept, always), table.num_rows < size


def _read_outputs(df: DataFrame, f: Callable[[Any], Any]) -> list[Output] | None:
    """Map's output fields from ``f``'s bytecode, where it shows the one kind of value each field it sets may take on
    every path that returns the record (:mod:`glueball.runtime.ops.record_kinds`); else None (the sample decides).
    The fields are those the sample would give for records of every path: a field set to None only keeps its input
    type, one a path leaves as it was may keep the input's value."""
    inputs = {field.name: field for field in df.schema.fields}
    paths = set_kinds(f, {name: field.dataType for name, field in inputs.items()})
    if paths is None:
        return None
    seen: dict[str, Typed | None] = {}
    for name in {name for sets in paths.sets for name in sets}:
        kinds = frozenset().union(*(sets[name] for sets in paths.sets if name in sets)) - {NONE}
        if len(kinds) > 1:  # two kinds of value (1 or 1.5): which the records hold is the sample's to tell
            return None
        hint = inputs[name].dataType if name in inputs else None
        seen[name] = value_type(_EXAMPLES[next(iter(kinds))], hint) if kinds else None
    kept = {name for name in inputs if any(name not in sets for sets in paths.sets)}
    always = {name for name in inputs if all(name not in sets for sets in paths.sets)}
    return _outputs(inputs, seen, kept, always)


_EXAMPLES = {BOOL: True, INT: 0, FLOAT: 0.0, STR: ""}  # a value of each kind, to type as the sample would


def _outputs(inputs: dict[str, StructField], seen: dict[str, Typed | None], kept: set[str],
             always: set[str]) -> list[Output]:
    """Map's output fields: ``seen``, the fields records set and their values' types; ``kept``, the input fields some
    record left as they were; ``always``, those every record left as they were."""
    from pyspark.sql.types import StringType

    seen = {name: None if typed is None else (by_name(typed[0]), typed[1]) for name, typed in seen.items()}
    outputs = []
    for name in [*[n for n in inputs if n in seen or n in kept], *sorted(n for n in seen if n not in inputs)]:
        field = inputs.get(name)
        typed = seen.get(name)
        if field is not None and (name in kept or typed is None):  # kept, or set to None only: its own type
            own = (field.dataType, is_choice_field(field))
            typed = own if typed is None else merge((widened(own[0]), own[1]), typed)
        data_type, choice = typed if typed is not None else (StringType(), False)
        output = Output(name, settled(data_type), choice, None)
        if field is not None and _may_keep(field, output):
            output = Output(name, output.data_type, choice, field, sent=name not in always)
        outputs.append(output)
    return outputs


def _bounded(f: Callable[[Any], Any], outputs: list[Output]) -> bool:
    """Whether no record beyond the sample can return a field the sample's schema lacks a column for: ``f`` returns
    only its record, and every field its bytecode may set or delete was set or deleted by a sampled record
    (:func:`glueball.runtime.ops.field_reads.fields_changed`). What is left to the sample is the kinds of the values
    set; a record whose value fits no column of its field still fails the job, by name."""
    changed = fields_changed(f)
    if changed is None:
        return False
    sent = {output.name for output in outputs if output.sent}
    return changed <= sent


def _may_keep(field: StructField, output: Output) -> bool:
    """Whether the input's value of ``field`` can stand for itself in ``output`` (its type, or one it widens to)."""
    return _kept_as(field, output) is not None


def _kept_as(field: StructField, output: Output) -> DataType | None:
    """The type the input's value of ``field`` stands in ``output`` as: its own, or the one it widens to (an int
    kept beside strings is the choice's long); None when neither fits."""
    target = (output.data_type, output.choice)
    return next((own for own in (field.dataType, widened(field.dataType))
                 if merge((own, is_choice_field(field)), target) == target), None)


def _kept_value(field: StructField, output: Output) -> Column:
    """The input's value of ``field`` as a value of ``output``'s type (widened first where that is what fits)."""
    from pyspark.sql import functions as F

    from glueball.runtime.ops.record_ops import convert_column

    before = F.col(_quote(field.name))
    if (field.dataType, is_choice_field(field)) == (output.data_type, output.choice):
        return before
    source = _kept_as(field, output) or field.dataType
    if source != field.dataType:
        before = before.cast(source)
    return convert_column(before, source, is_choice_field(field), output.data_type, output.choice)


def _result_type(outputs: list[Output]) -> StructType:
    from pyspark.sql.types import BooleanType, StringType, StructField, StructType

    fields = [StructField(MESSAGE, StringType())]
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
    handed = Handed(StructType(fields), tracked=reads is not None, partial=len(fields) < len(df.schema.fields))
    read = _read_outputs(df, f) if reads is not None else None
    outputs, whole = (read, False) if read is not None else _infer(df, f, sent, handed, size)
    if not whole and not _bounded(f, outputs):
        return map_records_exact(frame, f, transformation_ctx, stage_threshold, total_threshold)
    keepable = {o.name for o in outputs if o.kept is not None}
    results = results_function(f, handed, outputs, [n for n in df.columns if n not in keepable],
                               partial(_misfit, size=size, context=transformation_ctx))
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
            column = F.when(result.getField(f"k{i}"), _kept_value(output.kept, output)).otherwise(column)
        columns.append(column.alias(output.name, metadata=_metadata(output)))
    records = tagged.where(result.getField(MESSAGE).isNull()).select(*columns)
    errors = LazyErrors(lambda: _error_frame(tagged.withColumn(_ERRORS, result.getField(MESSAGE)), _ERRORS,
                                             _whole_row(df), df.schema, "Map", transformation_ctx))
    return frame.derive(records, stage_errors=errors, transformation_ctx=transformation_ctx,
                        stage_threshold=stage_threshold, total_threshold=total_threshold)


def _metadata(output: Output) -> dict[str, Any]:
    """The output column's choice marker, as a field of its type would carry it."""
    return dict(choice_field(output.name, output.data_type, output.choice).metadata)
