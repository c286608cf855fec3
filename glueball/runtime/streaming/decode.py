"""The payload of a streaming micro-batch decoded into records, as Glue's streaming sources do.

``classification`` ``json``, ``csv`` (``delimiter``, default ``,``), ``avro`` (``avroSchema``: the
writer's schema as Avro JSON; each payload is one schemaless Avro datum, or the Confluent wire format
of a magic byte and a 4-byte schema id before it) or ``grok`` (``grokPattern``, ``grokCustomPatterns``:
glueball's crawler grok engine, one record per payload line) in the connection options;
``schema`` (a Spark DDL string such as ``"id long, name string"``, or a ``StructType``) or, without
one, ``inferSchema``: the schema is detected per micro-batch, as Glue detects it, with glueball's
JSON inference (choices for fields seen with several types) or its CSV typing (``col0``, ``col1``...
typed long, double or a choice with string).

A record that cannot be decoded does not stop the stream: it becomes an error record
(``error_message``, ``error_stage`` "read", ``error_input`` the payload text, ``error_source``
``topic:partition:offset``), found through ``DynamicFrame.fromDF(batch_df, ...).errorsAsDynamicFrame()``
or ``batch_errors(batch_df)``.

Payloads compressed with gzip or zlib are decompressed first, recognised by their magic bytes
(``1f 8b``; ``78`` with a valid zlib header check): a gzip payload that does not inflate is an error
record, a zlib-looking one that does not inflate is taken as it is (it may be text starting ``x``).

With ``includeHeaders`` the records get ``glue_streaming_kafka_headers``
(``array<struct<key: string, value: string>>``), with ``addRecordTimestamp`` ``__src_timestamp``
(the record's Kafka timestamp), as Glue names them.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from glueball.runtime.errors import GlueRuntimeError
from glueball.runtime.gluetypes import CHOICE_METADATA
from glueball.runtime.streaming.option_values import as_bool, lower_keys

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame
    from pyspark.sql.types import StructField, StructType

CLASSIFICATIONS = ("json", "csv", "avro", "grok", "protobuf")
HEADERS_COLUMN = "glue_streaming_kafka_headers"
TIMESTAMP_COLUMN = "__src_timestamp"
_CORRUPT = "_glueball_corrupt_record"
# the first two bytes of a gzip member and of the zlib headers a compressor writes (levels 1, 2-5, 6, 7-9)
COMPRESSED_PREFIXES = ("1F8B", "7801", "785E", "789C", "78DA")


@dataclass(frozen=True)
class DecodeSpec:
    """How a micro-batch's payload becomes records (see the module docstring)."""

    classification: str
    schema: StructType | None = None
    delimiter: str = ","
    include_headers: bool = False
    add_record_timestamp: bool = False
    emit_consumer_lag_metrics: bool = False
    avro_schema: str | None = None
    grok_pattern: str | None = None
    grok_custom_patterns: str | None = None
    # records framed by the schema registry (glueball.registry.serde), decoded by the versions they name
    registry: bool = False
    schema_reference: str | None = None  # a table's SchemaReference (JSON): the version records are read with

    @classmethod
    def from_options(cls, options: dict[str, Any]) -> DecodeSpec | None:
        """The decoding asked for by connection options; None without a ``classification``."""
        opts = lower_keys(options)
        classification = str(opts.get("classification") or "").strip().lower()
        reference = opts.get("schemareference")
        if reference not in (None, ""):
            return cls(classification=classification or "avro", registry=True,
                       schema_reference=reference if isinstance(reference, str) else json.dumps(reference),
                       include_headers=as_bool(opts.get("includeheaders"), False),
                       add_record_timestamp=as_bool(opts.get("addrecordtimestamp"), False),
                       emit_consumer_lag_metrics=as_bool(opts.get("emitconsumerlagmetrics"), False))
        if not classification:
            for name in ("inferschema", "schema", "delimiter"):
                if opts.get(name) not in (None, ""):
                    raise GlueRuntimeError(f"streaming option {name} needs a classification (json or csv)")
            return None
        if classification not in CLASSIFICATIONS:
            raise GlueRuntimeError(f"streaming classification {classification!r} is not supported here; "
                                   f"supported: {', '.join(CLASSIFICATIONS)}")
        base = cls(classification=classification, include_headers=as_bool(opts.get("includeheaders"), False),
                   add_record_timestamp=as_bool(opts.get("addrecordtimestamp"), False),
                   emit_consumer_lag_metrics=as_bool(opts.get("emitconsumerlagmetrics"), False))
        if classification == "protobuf":
            return replace(base, registry=True)
        if classification == "avro":
            text = opts.get("avroschema") or opts.get("avro.schema.literal") or opts.get("schema")
            if text is None or str(text).strip() == "":  # no writer's schema: each record names its version
                return replace(base, registry=True)
            return replace(base, avro_schema=check_avro_schema(text))
        if classification == "grok":
            pattern = str(opts.get("grokpattern") or "")
            custom = opts.get("grokcustompatterns")
            check_grok(pattern, custom)
            return replace(base, grok_pattern=pattern, grok_custom_patterns=str(custom) if custom else None)
        schema = parse_schema(opts.get("schema"))
        if schema is not None and as_bool(opts.get("inferschema"), False):
            raise GlueRuntimeError("streaming options schema and inferSchema=true exclude each other")
        delimiter = str(opts.get("delimiter") or ",")
        if classification == "csv" and len(delimiter) != 1:
            raise GlueRuntimeError(f"streaming csv delimiter must be one character, got {delimiter!r}")
        return replace(base, schema=schema, delimiter=delimiter)


def check_avro_schema(value: Any) -> str:
    """``avroSchema``: Avro JSON that fastavro accepts, returned as text (the spec stays hashable)."""
    import fastavro

    if value is None or str(value).strip() == "":
        raise GlueRuntimeError("streaming classification avro needs the option avroSchema (the writer's schema "
                               "as Avro JSON) or a table whose parameters hold it")
    text = value if isinstance(value, str) else json.dumps(value)
    try:
        fastavro.parse_schema(json.loads(text))
    except Exception as e:  # noqa: BLE001 - json and fastavro raise several kinds
        raise GlueRuntimeError(f"streaming option avroSchema is not an Avro schema ({e}): {text[:200]!r}") from None
    return text


def check_grok(pattern: str, custom: Any) -> None:
    """``grokPattern`` (required) and ``grokCustomPatterns`` compile with the crawler's grok engine."""
    from glueball.crawlers.classify.grok import GrokError, compile_grok

    if not pattern.strip():
        raise GlueRuntimeError("streaming classification grok needs the option grokPattern")
    try:
        compile_grok(pattern, str(custom) if custom else None)
    except GrokError as e:
        raise GlueRuntimeError(f"streaming option grokPattern: {e}") from None


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


def _carried(raw: DataFrame, spec: DecodeSpec) -> tuple[list[Column], list[str]]:
    """The columns carried onto every record (``includeHeaders``, ``addRecordTimestamp``) and their names."""
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
    names = [HEADERS_COLUMN] * spec.include_headers + [TIMESTAMP_COLUMN] * spec.add_record_timestamp
    return carried, names


def _payloads(raw: DataFrame, spec: DecodeSpec, as_text: bool = True) -> tuple[DataFrame, list[str]]:
    """The payload (``value``, as text or bytes) with its ``source`` and the carried columns."""
    from pyspark.sql import functions as F

    carried, names = _carried(raw, spec)
    source = F.concat_ws(":", F.col("topic"), F.col("partition").cast("string"), F.col("offset").cast("string"))
    value = F.col("value").cast("string") if as_text else F.col("value")
    return raw.select(value.alias("value"), source.alias("source"), *carried), names


def _error_rows(df: DataFrame, message: Column) -> DataFrame:
    from pyspark.sql import functions as F

    return df.select(message.alias("error_message"), F.lit("read").alias("error_stage"),
                     F.col("value").alias("error_input"), F.col("source").alias("error_source"))


def decode_batch(glue_ctx: Any, raw: DataFrame, spec: DecodeSpec) -> tuple[DataFrame, DataFrame | None]:
    """The records and error records of one micro-batch of the Kafka source's columns."""
    compressed, framed = _payload_kinds(raw, spec.classification == "json" and not spec.registry)
    raw, inflate_errors = decompressed(raw, compressed)
    records, errors = _decode(glue_ctx, raw, spec, framed)
    if inflate_errors is None:
        return records, errors
    return records, inflate_errors if errors is None else errors.unionByName(inflate_errors)


def _payload_kinds(raw: DataFrame, framed_too: bool) -> tuple[bool, bool]:
    """Whether the batch holds compressed payloads, and (``framed_too``) schema-registry-framed ones: one
    pass over the persisted batch."""
    from pyspark.sql import functions as F

    looks_compressed = F.upper(F.hex(F.substring(F.col("value"), 1, 2))).isin(*COMPRESSED_PREFIXES)
    if not framed_too:
        return not raw.where(looks_compressed).isEmpty(), False
    framed = F.substring(F.col("value"), 1, 1) == F.unhex(F.lit("03"))
    found = raw.select(F.bool_or(looks_compressed).alias("c"), F.bool_or(framed).alias("f")).first()
    return (bool(found["c"]), bool(found["f"])) if found is not None else (False, False)


def _decode(glue_ctx: Any, raw: DataFrame, spec: DecodeSpec, framed: bool) -> tuple[DataFrame, DataFrame | None]:
    from glueball.runtime.streaming.registry_frames import registry_batch_decoder

    # JSON text never starts with byte 3: a JSON stream whose records are framed is read through the registry
    if spec.registry or (spec.classification == "json" and framed):
        rows, carried = _payloads(raw, spec, as_text=False)
        fields, make_decoder = registry_batch_decoder(glue_ctx, rows, spec)
        return _in_python(rows, fields, carried, make_decoder)
    if spec.classification == "avro":
        return _avro(raw, spec)
    texts, carried = _payloads(raw, spec)
    if spec.classification == "json":
        if spec.schema is None:
            from glueball.runtime.jsonrecords import frame_from_json_texts

            return frame_from_json_texts(glue_ctx, texts)
        return _json_with_schema(texts, spec.schema, carried)
    if spec.classification == "grok":
        return _grok(texts, spec, carried)
    return _csv(texts, spec, carried)


def _inflate(payload: bytes | None) -> tuple[bytes | None, str | None]:
    """``payload`` decompressed when its magic bytes say gzip or zlib; (value, error message)."""
    import gzip
    import zlib

    if payload is None or len(payload) < 2:
        return payload, None
    if payload[:2] == b"\x1f\x8b":
        try:
            return gzip.decompress(payload), None
        except (OSError, EOFError, zlib.error) as e:
            return None, f"The payload starts like gzip but does not decompress: {e}"
    if payload[0] == 0x78 and (payload[0] * 256 + payload[1]) % 31 == 0:
        try:
            return zlib.decompress(payload), None
        except zlib.error:
            return payload, None  # not zlib after all: text that starts with "x"
    return payload, None


def decompressed(raw: DataFrame, compressed: bool) -> tuple[DataFrame, DataFrame | None]:
    """``raw`` with gzip/zlib payloads decompressed, and the error records of those that do not inflate.

    ``compressed`` says whether the batch has any (``_payload_kinds`` looked first), so a batch without
    any pays no Python round trip.
    """
    from pyspark.sql import functions as F
    from pyspark.sql.types import BinaryType, StringType, StructField, StructType

    if not compressed:
        return raw, None
    inflated_type = StructType([StructField("value", BinaryType()), StructField("error", StringType())])
    inflate = F.udf(lambda payload: _inflate(payload), inflated_type)  # a lambda: no eval type from hints
    marked = raw.withColumn("_inflated", inflate(F.col("value")))
    inflated = marked.where(F.col("_inflated.error").isNull()).withColumn("value", F.col("_inflated.value"))
    source = F.concat_ws(":", F.col("topic"), F.col("partition").cast("string"), F.col("offset").cast("string"))
    errors = marked.where(F.col("_inflated.error").isNotNull()).select(
        F.col("_inflated.error").alias("error_message"), F.lit("read").alias("error_stage"),
        F.base64(F.col("value")).alias("error_input"), source.alias("error_source"))
    return inflated.drop("_inflated"), errors


def _in_python(rows: DataFrame, fields: list[StructField], carried: list[str],
               make_decoder: Callable[[], Callable[[Any], tuple[Any, ...]]]) -> tuple[DataFrame, DataFrame]:
    """Records of ``fields`` decoded per row by Python (``value``, ``source``, carried columns in ``rows``).

    The decoder raises ``ValueError`` with the reason for a row it cannot decode: that row becomes an
    error record whose ``error_input`` is the payload (base64 when it is bytes).
    """
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType, StructField, StructType

    carried_fields = [rows.schema[name] for name in carried]
    schema = StructType([*fields, *carried_fields, StructField("_error", StringType()),
                         StructField("_input", StringType()), StructField("_source", StringType())])
    width = len(fields)

    def decode_partition(items: Iterable[Any]) -> Iterator[tuple[Any, ...]]:
        decode = make_decoder()
        for row in items:
            value, extra = row[0], tuple(row[2:])
            try:
                yield (*decode(value), *extra, None, None, row[1])
            except ValueError as e:
                shown = base64.b64encode(value).decode() if isinstance(value, (bytes, bytearray)) else value
                yield (*([None] * width), *extra, str(e) or type(e).__name__, shown, row[1])

    spark = rows.sparkSession
    out = spark.createDataFrame(rows.rdd.mapPartitions(decode_partition), schema, verifySchema=False)
    records = out.where(F.col("_error").isNull()).select(*[f.name for f in fields], *carried)
    errors = out.where(F.col("_error").isNotNull()).select(
        F.col("_error").alias("error_message"), F.lit("read").alias("error_stage"),
        F.col("_input").alias("error_input"), F.col("_source").alias("error_source"))
    return records, errors


class _AvroDecoder:
    """One schemaless Avro datum per payload (or the Confluent wire format: magic 0, schema id, datum)."""

    def __init__(self, schema_text: str, record_type: Any, wrap: bool, site: str) -> None:
        self.schema_text, self.record_type, self.wrap, self.site = schema_text, record_type, wrap, site

    def __call__(self) -> Callable[[Any], tuple[Any, ...]]:
        import io

        from glueball.runtime.io.avro import _convert, _import_fastavro

        _import_fastavro(self.site)
        import fastavro

        schema = fastavro.parse_schema(json.loads(self.schema_text))
        fields = self.record_type.fields

        def read(payload: bytes) -> Any:
            stream = io.BytesIO(payload)
            datum = fastavro.schemaless_reader(stream, schema, None)
            if stream.tell() != len(payload):
                raise ValueError(f"{len(payload) - stream.tell()} byte(s) left after the Avro datum")
            return datum

        def decode(payload: Any) -> tuple[Any, ...]:
            if payload is None:
                raise ValueError("The record has no payload")
            data = bytes(payload)
            try:
                datum = read(data)
            except Exception as e:  # noqa: BLE001 - fastavro raises many kinds on bad bytes
                if len(data) > 5 and data[0] == 0:
                    try:
                        datum = read(data[5:])
                    except Exception:  # noqa: BLE001
                        raise ValueError(f"Malformed Avro record: {e}") from None
                else:
                    raise ValueError(f"Malformed Avro record: {e}") from None
            body = {"value": datum} if self.wrap else datum
            if not isinstance(body, dict):
                raise ValueError("The Avro datum is not a record")
            return tuple(_convert(body.get(f.name), f.dataType, bool(f.metadata.get(CHOICE_METADATA)))
                         for f in fields)

        return decode


def _avro(raw: DataFrame, spec: DecodeSpec) -> tuple[DataFrame, DataFrame]:
    from pyspark.sql.types import StructField, StructType

    from glueball.runtime.io.avro import _driver_site, avro_to_spark

    assert spec.avro_schema is not None
    record_type = avro_to_spark(json.loads(spec.avro_schema))
    wrap = not isinstance(record_type, StructType)
    if wrap:
        record_type = StructType([StructField("value", record_type, True)])
    rows, carried = _payloads(raw, spec, as_text=False)
    return _in_python(rows, list(record_type.fields), carried,
                      _AvroDecoder(spec.avro_schema, record_type, wrap, _driver_site()))


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


def _first_line_fields(lines: DataFrame, delimiter: str) -> int:
    """How many fields Spark's CSV parser finds in the batch's first line (at least 1)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StructType, _parse_datatype_string

    first = lines.select("value").first()
    if first is None:
        return 1
    found = lines.sparkSession.range(1).select(
        F.schema_of_csv(F.lit(first["value"]), {"sep": delimiter}).alias("schema")).first()
    parsed = _parse_datatype_string(found["schema"]) if found is not None else None
    return max(1, len(parsed.fields)) if isinstance(parsed, StructType) else 1


def _csv(texts: DataFrame, spec: DecodeSpec, carried: list[str]) -> tuple[DataFrame, DataFrame]:
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType, StructField

    from glueball.runtime.io.formats import type_csv_columns

    lines = texts.where(F.col("value").isNotNull() & (F.col("value") != ""))
    reader_options = {"sep": spec.delimiter, "mode": "PERMISSIVE", "columnNameOfCorruptRecord": _CORRUPT}
    if spec.schema is not None:
        fields = list(spec.schema.fields)
    else:
        fields = [StructField(f"col{i}", StringType(), True) for i in range(_first_line_fields(lines, spec.delimiter))]
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



class _GrokDecoder:
    """A payload line matched by the grok pattern: its captures as strings (cast to their types in Spark)."""

    def __init__(self, pattern: str, custom: str | None) -> None:
        self.pattern, self.custom = pattern, custom

    def __call__(self) -> Callable[[Any], tuple[Any, ...]]:
        from glueball.crawlers.classify.grok import compile_grok

        grok = compile_grok(self.pattern, self.custom)
        names = [name for name, _ in grok.columns]

        def decode(line: Any) -> tuple[Any, ...]:
            found = grok.match(str(line).rstrip("\r\n")) if line is not None else None
            if found is None:
                raise ValueError("The record does not match the grok pattern")
            return tuple(found.get(name) for name in names)

        return decode


def _grok(texts: DataFrame, spec: DecodeSpec, carried: list[str]) -> tuple[DataFrame, DataFrame]:
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType, StructField

    from glueball.crawlers.classify.grok import compile_grok

    assert spec.grok_pattern is not None
    columns = compile_grok(spec.grok_pattern, spec.grok_custom_patterns).columns
    lines = texts.where(F.col("value").isNotNull() & (F.col("value") != ""))
    records, errors = _in_python(lines, [StructField(name, StringType(), True) for name, _ in columns], carried,
                                 _GrokDecoder(spec.grok_pattern, spec.grok_custom_patterns))
    typed = records.select(*[F.col(name).cast(hive).alias(name) for name, hive in columns], *carried)
    return typed, errors
