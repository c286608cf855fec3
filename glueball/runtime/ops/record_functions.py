"""Filter, mapPartitions and Map's exact way: a Python function per record, as Glue runs them.

**What the function is sent.** Filter and Map call the function through an Arrow UDF
(:func:`pyspark.sql.functions.arrow_udf`): Spark sends Python only the UDF's input columns, keeps each
row's other columns in the JVM and joins the function's answer back to them — what a hand-written
PySpark UDF on those columns costs. The input is the fields the function reads when its bytecode shows
them for certain (:mod:`glueball.runtime.ops.field_reads`): the function then gets each record as a
``DynamicRecord`` (a dict) of exactly those fields. When that cannot be known, every field is sent and
the function gets the lazy record of the whole row (:class:`~glueball.runtime.dynamicrecord.LazyRecord`,
columns converted when first read), as before.

**Filter** computes, per row, a status: NULL (kept), ``""`` (dropped) or the error message of a record
whose function raised. As upstream, a ``KeyError``, ``ValueError`` or ``TypeError`` drops the record; any
other exception makes it an error record. The kept rows are the input ``where`` that status is NULL (the
plan of a hand-written ``where(udf(...))``); the error records are the rows whose status is a message, a
plan made only when they are first asked for. Both are lazy: every action re-runs the filter, and
``errorsCount()``/``stageErrorsCount()`` (or a threshold check) run it again, as Glue's lazy error counting
does. An error record's ``error_input`` is the whole record as JSON, made by a second UDF over every
column of the failed rows only.

**Map** (:mod:`glueball.runtime.ops.record_map`) returns typed columns, its schema inferred from a sample.
Inferred from every record instead (``map_records_exact``), it gets, per row, the returned record as JSON
text or an error message; the failed rows keep their
whole input beside it (a struct, NULL for the others) for their ``error_input``. That frame is
materialized once (memory, spilling to disk) so the function runs once per record, and the result schema
is inferred from the texts (:func:`glueball.runtime.jsonrecords.frame_from_json_texts`: choices for mixed
types; two aggregate passes when ``map`` is called). Fields that kept their name and held a timestamp,
date, binary or decimal in the input are read back as that type (JSON has no such types).

**mapPartitions** hands the function an iterator of a partition's records, so it runs over the Arrow
batches of whole rows (``mapInArrow``), its yielded records read back as Map's are.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

import pyarrow as pa  # at module level: PySpark reads the Arrow UDFs' type hints (pa.Array) at run time

from glueball.runtime.dynamicrecord import BatchRecords, DynamicRecord, error_text, plain_records, record_to_json
from glueball.runtime.errors import GlueRuntimeError, LazyErrors
from glueball.runtime.ops.field_reads import fields_read

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame
    from pyspark.sql.types import DataType, StructType

    from glueball.runtime.dynamicframe import DynamicFrame

_STATUS = "__glueball_status__"
_DROPPED = ""  # the status of a record Filter drops (NULL: kept; other text: an error record's message)
_RESULT = "__glueball_result__"
_ROW = "__glueball_row__"
_ERR_MESSAGE = "__glueball_error_message__"
_ERR_INPUT = "__glueball_error_input__"
_NONE_RESULT = "User-specified function returned None instead of DynamicRecord"


def _quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _arrow_udf(function: Callable[..., pa.Array], return_type: str) -> Callable[..., Column]:
    """A scalar Arrow UDF of ``function``, a function of ``pyarrow.Array`` to ``pyarrow.Array`` (PySpark tells
    the UDF's kind from those hints)."""
    from pyspark.sql import functions as F

    make: Any = F.arrow_udf  # the stubs know only the functionType form, which PySpark warns against
    made: Callable[..., Column] = make(function, return_type)
    return made


def _whole_row(df: DataFrame) -> Column:
    from pyspark.sql import functions as F

    return F.struct(*[F.col(_quote(name)) for name in df.columns])


def _sent(df: DataFrame, f: Callable[..., Any]) -> tuple[StructType, list[Column], bool]:
    """The schema of the fields ``f`` is sent, those fields as the UDF's arguments (one column each: no struct
    to build per row in the JVM and to take apart in Python), and whether they are only the fields it reads
    (``False``: every field, its reads unknown)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StructType

    reads = fields_read(f)
    fields = df.schema.fields if reads is None else [field for field in df.schema.fields if field.name in reads]
    columns = [F.col(_quote(field.name)) for field in fields]
    if not columns:  # a UDF needs an argument: it tells Python how many rows a batch has
        columns = [F.lit(None).cast("boolean")]
    return StructType(fields), columns, reads is not None


def _records(schema: StructType, narrowed: bool) -> Callable[..., Iterable[Any]]:
    """How a UDF's input columns become the records handed to the function, one by one (runs on executors)."""
    names = schema.fieldNames()

    def records(*arrays: pa.Array) -> Iterable[Any]:
        if narrowed and names:
            return plain_records(arrays, schema)
        if narrowed:  # reads no field at all
            return (DynamicRecord() for _ in range(len(arrays[0])))
        if names:
            batch = pa.RecordBatch.from_arrays(list(arrays), schema=pa.schema(
                [pa.field(name, array.type) for name, array in zip(names, arrays, strict=True)]))
        else:
            batch = pa.RecordBatch.from_struct_array(pa.array([{}] * len(arrays[0]), pa.struct([])))
        whole = BatchRecords(batch, schema)
        return (whole.record(row) for row in range(len(whole)))

    return records


def _error_frame(tagged: DataFrame, message: str, row: Column, schema: StructType, stage: str,
                 source: str) -> DataFrame:
    """The error records of a tagged frame: rows whose ``message`` column is set, their input as JSON."""
    from pyspark.sql import functions as F

    def as_json(array: pa.Array) -> pa.Array:
        records = BatchRecords(pa.RecordBatch.from_struct_array(array), schema)
        return pa.array([record_to_json(records.record(i)) for i in range(len(records))], pa.string())

    to_json = _arrow_udf(as_json, "string")
    return tagged.where(F.col(message).isNotNull() & (F.col(message) != _DROPPED)).select(
        F.col(message).alias("error_message"), F.lit(stage).alias("error_stage"), to_json(row).alias("error_input"),
        F.lit(source).alias("error_source"))


# -- Filter ---------------------------------------------------------------------------------------

def filter_records(frame: DynamicFrame, f: Callable[[Any], Any], transformation_ctx: str = "",
                   stage_threshold: int = 0, total_threshold: int = 0) -> DynamicFrame:
    """Keep the records for which ``f(record)`` is true (Glue's ``Filter`` / ``DynamicFrame.filter``).

    ``f`` receives a ``DynamicRecord`` (the fields it reads, or the whole record; see the module notes).
    As in Glue, a ``KeyError``, ``ValueError`` or ``TypeError`` raised by ``f`` (a missing field, a failed
    comparison) drops the record; any other exception turns the record into an error record
    (``error_stage`` "Filter", ``error_message`` the exception text, ``error_input`` the record as JSON,
    ``error_source`` the transformation context). The result has the input's schema.
    """

    df = frame._df
    schema, sent, narrowed = _sent(df, f)
    records_of = _records(schema, narrowed)

    def statuses(*arrays: pa.Array) -> pa.Array:
        found: list[str | None] = []
        for record in records_of(*arrays):
            try:
                found.append(None if f(record) else _DROPPED)
            except (KeyError, ValueError, TypeError):
                found.append(_DROPPED)
            except Exception as exc:  # noqa: BLE001 - every other failure becomes an error record, as in Glue
                found.append(error_text(exc))
        return pa.array(found, pa.string())

    status = _arrow_udf(statuses, "string")(*sent)
    kept = df.where(status.isNull())  # one plan step, as a hand-written ``where(udf(...))``
    errors = LazyErrors(lambda: _error_frame(df.withColumn(_STATUS, status), _STATUS, _whole_row(df), df.schema,
                                             "Filter", transformation_ctx))
    return frame.derive(kept, stage_errors=errors, transformation_ctx=transformation_ctx,
                        stage_threshold=stage_threshold, total_threshold=total_threshold)


# -- Map and mapPartitions ------------------------------------------------------------------------

def _result_text(result: Any) -> str:
    """A function's result as JSON text; raises when it is no record (as Glue's Map refuses it)."""
    if not result:
        raise GlueRuntimeError(_NONE_RESULT)
    if not isinstance(result, Mapping):
        raise GlueRuntimeError(f"User-specified function returned {type(result).__name__} instead of DynamicRecord")
    return record_to_json(result)


def map_records_exact(frame: DynamicFrame, f: Callable[[Any], Any], transformation_ctx: str = "",
                      stage_threshold: int = 0, total_threshold: int = 0) -> DynamicFrame:
    """Map with its schema inferred from every returned record (``spark.glueball.mapSampleRecords`` 0; the
    default infers it from a sample: :mod:`glueball.runtime.ops.record_map`).

    ``f`` receives a ``DynamicRecord`` and returns the new record (a dict; it may add, remove or retype
    fields). A record whose ``f`` raises, or returns None or an empty record, becomes an error record
    (``error_stage`` "Map"), as in Glue.
    """
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    df = frame._df
    schema, sent, narrowed = _sent(df, f)
    records_of = _records(schema, narrowed)

    def results(*arrays: pa.Array) -> pa.Array:
        texts: list[str | None] = []
        messages: list[str | None] = []
        for record in records_of(*arrays):
            try:
                texts.append(_result_text(f(record)))
                messages.append(None)
            except Exception as exc:  # noqa: BLE001 - the record becomes an error record, as in Glue
                texts.append(None)
                messages.append(error_text(exc))
        return pa.StructArray.from_arrays([pa.array(texts, pa.string()), pa.array(messages, pa.string())],
                                          names=["value", "message"])

    result = _arrow_udf(results, "value string, message string")(*sent)
    message = F.col(f"{_RESULT}.message")
    tagged = df.withColumn(_RESULT, result).select(
        F.col(f"{_RESULT}.value").alias("value"), message.alias(_ERR_MESSAGE),
        F.when(message.isNotNull(), _whole_row(df)).alias(_ROW)).persist(StorageLevel.MEMORY_AND_DISK)
    texts = tagged.where(F.col(_ERR_MESSAGE).isNull()).select("value")
    records = _restore_types(_frame_from_json(frame.glue_ctx, texts), df.schema)
    errors = LazyErrors(lambda: _error_frame(tagged, _ERR_MESSAGE, F.col(_ROW), df.schema, "Map",
                                             transformation_ctx))
    return frame.derive(records, stage_errors=errors, transformation_ctx=transformation_ctx,
                        stage_threshold=stage_threshold, total_threshold=total_threshold)


def map_partitions(frame: DynamicFrame, f: Callable[[Iterator[Any]], Iterable[Any]], transformation_ctx: str = "",
                   stage_threshold: int = 0, total_threshold: int = 0) -> DynamicFrame:
    """Apply ``f`` to each partition's records (``DynamicFrame.mapPartitions``).

    ``f`` receives an iterator of ``DynamicRecord`` and yields records (dicts); the result schema is
    inferred from them. An exception raised by ``f`` fails the job, as in Glue (it cannot be tied to one
    record); a yielded value that is not a record becomes an error record (``error_stage``
    "mapPartitions").
    """
    from pyspark import StorageLevel
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType, StructField, StructType

    df = frame._df
    schema = df.schema  # the closure below runs on executors: it must not hold the DataFrame

    def run(records: BatchRecords) -> Iterator[tuple[str | None, str | None, str | None]]:
        for result in f(records.record(row) for row in range(len(records))):
            if isinstance(result, Mapping) and result:
                yield (record_to_json(result), None, None)
            else:
                message = _NONE_RESULT if result is None else (
                    f"User-specified function returned {type(result).__name__} instead of DynamicRecord")
                yield (None, message, None if result is None else repr(result))

    def batches(arrow_batches: Iterable[Any]) -> Iterator[Any]:
        names = ["value", _ERR_MESSAGE, _ERR_INPUT]
        for batch in arrow_batches:
            columns = list(zip(*run(BatchRecords(batch, schema)), strict=True)) or [(), (), ()]
            yield pa.RecordBatch.from_arrays([pa.array(c, pa.string()) for c in columns], names=names)

    texts_schema = StructType([StructField(name, StringType()) for name in ("value", _ERR_MESSAGE, _ERR_INPUT)])
    tagged = df.mapInArrow(batches, texts_schema).persist(StorageLevel.MEMORY_AND_DISK)
    texts = tagged.where(F.col(_ERR_MESSAGE).isNull()).select("value")
    records = _restore_types(_frame_from_json(frame.glue_ctx, texts), df.schema)
    errors = tagged.where(F.col(_ERR_MESSAGE).isNotNull()).select(
        F.col(_ERR_MESSAGE).alias("error_message"), F.lit("mapPartitions").alias("error_stage"),
        F.col(_ERR_INPUT).alias("error_input"), F.lit(transformation_ctx).alias("error_source"))
    return frame.derive(records, stage_errors=errors, transformation_ctx=transformation_ctx,
                        stage_threshold=stage_threshold, total_threshold=total_threshold)


# -- Map's results read back with the input's types ----------------------------------------------

def _frame_from_json(glue_ctx: Any, texts: DataFrame) -> DataFrame:
    """Records from a ``value`` column of JSON objects, typed by the runtime's JSON inference (choices).

    The texts are ``json.dumps`` of mappings, so inference never meets a malformed
    document: its error records are not consulted (that would cost another pass).
    """
    from glueball.runtime.jsonrecords import frame_from_json_texts

    records, _ = frame_from_json_texts(glue_ctx, texts, None)
    return records


def _needs_restore(out_type: DataType, in_type: DataType) -> bool:
    from pyspark.sql.types import (
        ArrayType,
        BinaryType,
        DateType,
        DecimalType,
        DoubleType,
        LongType,
        StringType,
        StructType,
        TimestampNTZType,
        TimestampType,
    )

    if isinstance(out_type, StringType):
        return isinstance(in_type, TimestampType | TimestampNTZType | DateType | BinaryType)
    if isinstance(out_type, DoubleType | LongType):
        return isinstance(in_type, DecimalType)
    if isinstance(out_type, StructType) and isinstance(in_type, StructType):
        inner = {f.name: f.dataType for f in in_type.fields}
        return any(f.name in inner and _needs_restore(f.dataType, inner[f.name]) for f in out_type.fields)
    if isinstance(out_type, ArrayType) and isinstance(in_type, ArrayType):
        return _needs_restore(out_type.elementType, in_type.elementType)
    return False


def _restore(column: Column, out_type: DataType, in_type: DataType) -> Column:
    from pyspark.sql import functions as F
    from pyspark.sql.types import ArrayType, BinaryType, StructType

    if isinstance(out_type, StructType) and isinstance(in_type, StructType):
        inner = {f.name: f.dataType for f in in_type.fields}
        parts = []
        for field in out_type.fields:
            sub = column.getField(field.name)
            if field.name in inner and _needs_restore(field.dataType, inner[field.name]):
                sub = _restore(sub, field.dataType, inner[field.name])
            parts.append(sub.alias(field.name))
        return F.when(column.isNull(), F.lit(None)).otherwise(F.struct(*parts))
    if isinstance(out_type, ArrayType) and isinstance(in_type, ArrayType):
        return F.transform(column, lambda item: _restore(item, out_type.elementType, in_type.elementType))
    if isinstance(in_type, BinaryType):
        return F.unbase64(column)
    return column.cast(in_type)


def _restore_types(records: DataFrame, input_schema: StructType) -> DataFrame:
    """Give fields the input's types JSON could not carry, and the input's field order first."""
    before = {f.name: f.dataType for f in input_schema.fields}
    order = [n for n in input_schema.fieldNames() if n in records.columns]
    order += [n for n in records.columns if n not in before]
    columns = []
    changed = order != records.columns
    for name in order:
        field = records.schema[name]
        column = records[_quote(name)]
        if name in before and _needs_restore(field.dataType, before[name]):
            column = _restore(column, field.dataType, before[name]).alias(name, metadata=field.metadata)
            changed = True
        columns.append(column)
    return records.select(*columns) if changed else records
