"""The payload of a streaming micro-batch decoded into records, as Glue's streaming sources do.

``classification`` ``json`` or ``csv`` (``delimiter``, default ``,``) in the connection options;
``schema`` (a Spark DDL string such as ``"id long, name string"``, or a ``StructType``) or, without
one, ``inferSchema``: the schema is detected per micro-batch, as Glue detects it, with glueball's
JSON inference (choices for fields seen with several types) or its CSV typing (``col0``, ``col1``...
typed long, double or a choice with string).

A record that cannot be decoded does not stop the stream: it becomes an error record
(``error_message``, ``error_stage`` "read", ``error_input`` the payload text, ``error_source``
``topic:partition:offset``), found through ``DynamicFrame.fromDF(batch_df, ...).errorsAsDynamicFrame()``
or ``batch_errors(batch_df)``.

With ``includeHeaders`` the records get ``glue_streaming_kafka_headers``
(``array<struct<key: string, value: string>>``), with ``addRecordTimestamp`` ``__src_timestamp``
(the record's Kafka timestamp), as Glue names them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from glueball.runtime.errors import GlueRuntimeError
from glueball.streaming.kafka_options import as_bool, lower_keys

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame
    from pyspark.sql.types import StructType

CLASSIFICATIONS = ("json", "csv")
HEADERS_COLUMN = "glue_streaming_kafka_headers"
TIMESTAMP_COLUMN = "__src_timestamp"
_CORRUPT = "_glueball_corrupt_record"


@dataclass(frozen=True)
class DecodeSpec:
    """How a micro-batch's payload becomes records (see the module docstring)."""

    classification: str
    schema: StructType | None = None
    delimiter: str = ","
    include_headers: bool = False
    add_record_timestamp: bool = False
    emit_consumer_lag_metrics: bool = False

    @classmethod
    def from_options(cls, options: dict[str, Any]) -> DecodeSpec | None:
        """The decoding asked for by connection options; None without a ``classification``."""
        opts = lower_keys(options)
        classification = str(opts.get("classification") or "").strip().lower()
        if not classification:
            for name in ("inferschema", "schema", "delimiter"):
                if opts.get(name) not in (None, ""):
                    raise GlueRuntimeError(f"streaming option {name} needs a classification (json or csv)")
            return None
        if classification not in CLASSIFICATIONS:
            raise GlueRuntimeError(f"streaming classification {classification!r} is not supported here; "
                                   f"supported: {', '.join(CLASSIFICATIONS)}")
        schema = parse_schema(opts.get("schema"))
        if schema is not None and as_bool(opts.get("inferschema"), False):
            raise GlueRuntimeError("streaming options schema and inferSchema=true exclude each other")
        delimiter = str(opts.get("delimiter") or ",")
        if classification == "csv" and len(delimiter) != 1:
            raise GlueRuntimeError(f"streaming csv delimiter must be one character, got {delimiter!r}")
        return cls(classification=classification, schema=schema, delimiter=delimiter,
                   include_headers=as_bool(opts.get("includeheaders"), False),
                   add_record_timestamp=as_bool(opts.get("addrecordtimestamp"), False),
                   emit_consumer_lag_metrics=as_bool(opts.get("emitconsumerlagmetrics"), False))


def parse_schema(value: Any) -> StructType | None:
    """``schema``: a StructType, or DDL (``"id long, name string"`` or ``"struct<...>"``)."""
    from pyspark.sql.types import StructType, _parse_datatype_string

    if value is None or value == "":
        return None
    if isinstance(value, StructType):
        return value
    text = str(value).strip()
    try:
        parsed = _parse_datatype_string(text)
    except Exception as e:  # noqa: BLE001 - Spark's parser raises several kinds
        raise GlueRuntimeError(f"streaming option schema is not a Spark DDL schema ({e}): {text!r}") from None
    if not isinstance(parsed, StructType):
        raise GlueRuntimeError(f"streaming option schema must describe a record (columns), got {text!r}")
    return parsed


def batch_errors(df: DataFrame) -> DataFrame | None:
    """The error records of a decoded micro-batch DataFrame (None: none possible, or not a batch)."""
    from glueball.runtime.errors import attached_errors

    return attached_errors(df)


def _texts(raw: DataFrame, spec: DecodeSpec) -> tuple[DataFrame, list[str]]:
    """The payload as text with its ``source`` and the columns carried onto every record."""
    from pyspark.sql import functions as F

    carried: list[Column] = []
    if spec.include_headers:
        if "headers" not in raw.columns:
            raise GlueRuntimeError("includeHeaders: the stream has no headers column")
        carried.append(F.transform("headers", lambda h: F.struct(h["key"].alias("key"),
                                                                  h["value"].cast("string").alias("value")))
                       .alias(HEADERS_COLUMN))
    if spec.add_record_timestamp:
        carried.append(F.col("timestamp").alias(TIMESTAMP_COLUMN))
    source = F.concat_ws(":", F.col("topic"), F.col("partition").cast("string"), F.col("offset").cast("string"))
    texts = raw.select(F.col("value").cast("string").alias("value"), source.alias("source"), *carried)
    names = [HEADERS_COLUMN] * spec.include_headers + [TIMESTAMP_COLUMN] * spec.add_record_timestamp
    return texts, names


def _error_rows(df: DataFrame, message: Column) -> DataFrame:
    from pyspark.sql import functions as F

    return df.select(message.alias("error_message"), F.lit("read").alias("error_stage"),
                     F.col("value").alias("error_input"), F.col("source").alias("error_source"))


def decode_batch(glue_ctx: Any, raw: DataFrame, spec: DecodeSpec) -> tuple[DataFrame, DataFrame | None]:
    """The records and error records of one micro-batch of the Kafka source's columns."""
    texts, carried = _texts(raw, spec)
    if spec.classification == "json":
        if spec.schema is None:
            from glueball.runtime.inference import frame_from_json_texts

            return frame_from_json_texts(glue_ctx, texts)
        return _json_with_schema(texts, spec.schema, carried)
    return _csv(texts, spec, carried)


def _json_with_schema(texts: DataFrame, schema: StructType, carried: list[str]) -> tuple[DataFrame, DataFrame]:
    from pyspark.sql import functions as F

    docs = (texts.where(F.col("value").isNotNull() & (F.trim(F.col("value")) != ""))
            .withColumn("_kind", F.when(F.try_parse_json(F.col("value")).isNull(), "malformed")
                        .when(F.ltrim(F.col("value")).startswith("{"), "object").otherwise("other")))
    records = (docs.where(F.col("_kind") == "object")
               .select(F.from_json(F.col("value"), schema).alias("_r"), *carried)
               .select(*[F.col("_r").getField(f.name).alias(f.name) for f in schema.fields], *carried))
    errors = _error_rows(docs.where(F.col("_kind") != "object"),
                         F.when(F.col("_kind") == "malformed", "Malformed JSON: the record could not be parsed")
                         .otherwise("The JSON record is not an object"))
    return records, errors


def _csv(texts: DataFrame, spec: DecodeSpec, carried: list[str]) -> tuple[DataFrame, DataFrame]:
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType, StructField

    from glueball.runtime.io.formats import type_csv_columns

    lines = texts.where(F.col("value").isNotNull() & (F.col("value") != ""))
    reader_options = {"sep": spec.delimiter, "mode": "PERMISSIVE", "columnNameOfCorruptRecord": _CORRUPT}
    if spec.schema is not None:
        fields = list(spec.schema.fields)
    else:
        spark = texts.sparkSession
        first = spark.read.option("sep", spec.delimiter).csv(lines.select("value").limit(1))
        fields = [StructField(f"col{i}", StringType(), True) for i in range(max(1, len(first.columns)))]
    ddl = ", ".join(f"`{f.name}` {f.dataType.simpleString()}" for f in [*fields, StructField(_CORRUPT, StringType())])
    parsed = lines.select(F.from_csv(F.col("value"), ddl, reader_options).alias("_r"), "value", "source", *carried)
    corrupt = F.col("_r").getField(_CORRUPT)
    records = parsed.where(corrupt.isNull()).select(
        *[F.col("_r").getField(f.name).alias(f.name) for f in fields], *carried)
    if spec.schema is None:
        records = type_csv_columns(records, keep=tuple(carried))
    errors = _error_rows(parsed.where(corrupt.isNotNull()),
                         F.lit("Malformed CSV record: the number of fields differs from the schema"))
    return records, errors

