"""``create_data_frame.from_options`` for streaming connection types, and ``from_catalog`` for streaming tables.

``connection_type="kafka"`` reads with Spark's own Kafka connector (``kafka``); the connection options are
Glue's, turned into Spark's (``kafka_options``). A ``connectionName`` is resolved here, on the driver, through
the catalog's GetConnection, so Spark's source and its tasks get plain client properties.
``connection_type="kinesis"`` reads with the ``glueball-kinesis`` source (``kinesis``, ``kinesis_options``).

A catalog table whose parameters say ``typeOfData`` ``kafka`` or ``kinesis``, or whose ``classification`` is
``kafka`` or ``kinesis`` (the payload's format then comes from its SerDe: JSON, CSV/LazySimple with its
delimiter, Avro with its schema), is a streaming table: ``create_data_frame.from_catalog`` turns its parameters
(table and storage descriptor: ``topicName``, ``connectionName``, ``streamName``/``streamARN``, ``endpointUrl``,
the payload's ``classification``, ``delimiter``...) and its columns (the ``schema``, unless ``inferSchema`` is
true) into connection options, with ``additional_options`` on top.

With a ``classification`` the frame carries how to decode each micro-batch (``decode.DecodeSpec``);
``forEachBatch`` applies it, so its batch function sees the records. Without one the frame has the
source's own columns (``key``, ``value``, ``topic``, ...; Kinesis: ``data``, ``streamName``, ...).
A Kinesis frame with a ``classification`` has the columns the decoding reads (``value`` the payload,
``topic`` the stream, ``partition`` the partition key, ``offset`` the sequence number, ``timestamp`` the
arrival time), so error records name ``stream:partitionKey:sequenceNumber``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from glueball.runtime.errors import GlueRuntimeError
from glueball.runtime.streaming.decode import DecodeSpec
from glueball.runtime.streaming.kafka_options import DECODE_OPTIONS, kafka_source
from glueball.runtime.streaming.option_values import lower_keys, spark_options

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

log = logging.getLogger("glueball.runtime.streaming")

STREAMING_CONNECTION_TYPES = ("kafka", "kinesis")
# table parameters that become connection options, per typeOfData (lower-cased)
_TABLE_OPTIONS = {
    "kafka": ("topicname", "connectionname", "bootstrap.servers", "assign", "subscribepattern"),
    "kinesis": ("streamname", "streamarn", "endpointurl"),
}
_TABLE_DECODE_OPTIONS = ("classification", "delimiter", "avroschema", "grokpattern", "grokcustompatterns")
_DECODE_ATTRIBUTE = "_glueball_decode"


def decode_spec_of(frame: DataFrame) -> DecodeSpec | None:
    """The decoding a streaming frame made by ``streaming_data_frame`` asks for (None: none)."""
    return vars(frame).get(_DECODE_ATTRIBUTE) if hasattr(frame, "__dict__") else None


def streaming_data_frame(glue_ctx: Any, connection_type: str, connection_options: Mapping[str, Any]) -> DataFrame:
    """A streaming DataFrame of ``connection_type`` (``kafka``) with Glue's connection options.

    Raises:
        GlueRuntimeError: an unsupported connection type or a bad option (named, with its value).
    """
    kind = (connection_type or "").strip().lower()
    if kind == "kafka":
        return kafka_data_frame(glue_ctx, connection_options)
    if kind == "kinesis":
        return kinesis_data_frame(glue_ctx, connection_options)
    raise GlueRuntimeError(f"connection_type {connection_type!r} is not a streaming source; "
                           f"supported: {', '.join(STREAMING_CONNECTION_TYPES)}")


def kafka_data_frame(glue_ctx: Any, connection_options: Mapping[str, Any]) -> DataFrame:
    """Spark's Kafka stream of Glue's ``connection_options``, with the payload decoding attached."""
    from glueball.runtime.streaming.kafka import kafka_stream

    spec = DecodeSpec.from_options(dict(connection_options))
    source = kafka_source(connection_options, glue_ctx.glue_client)  # checks everything, resolves connectionName
    frame = kafka_stream(glue_ctx.spark_session, source)
    if spec is not None:
        vars(frame)[_DECODE_ATTRIBUTE] = spec
    return frame


def kinesis_data_frame(glue_ctx: Any, connection_options: Mapping[str, Any]) -> DataFrame:
    """The ``glueball-kinesis`` stream of ``connection_options``, with the payload decoding attached."""
    from pyspark.sql import functions as F

    from glueball.runtime.streaming import register_sources
    from glueball.runtime.streaming.kinesis import SOURCE_NAME
    from glueball.runtime.streaming.kinesis_options import SOURCE_OPTIONS as KINESIS_OPTIONS
    from glueball.runtime.streaming.kinesis_options import KinesisOptions

    options = dict(connection_options)
    KinesisOptions.parse(options)  # checks everything before Spark sees it
    spec = DecodeSpec.from_options(options)
    lowered = lower_keys(options)
    unused = sorted(k for k in lowered if k not in KINESIS_OPTIONS and k not in DECODE_OPTIONS)
    if unused:
        log.warning("kinesis connection options not used: %s", ", ".join(unused))
    spark = glue_ctx.spark_session
    register_sources(spark)
    source_options = {k: v for k, v in lowered.items() if k in KINESIS_OPTIONS}
    frame = spark.readStream.format(SOURCE_NAME).options(**spark_options(source_options)).load()
    if spec is None:
        return frame
    decodable = frame.select(F.col("data").alias("value"), F.col("streamName").alias("topic"),
                             F.col("partitionKey").alias("partition"), F.col("sequenceNumber").alias("offset"),
                             F.col("approximateArrivalTimestamp").alias("timestamp"))
    vars(decodable)[_DECODE_ATTRIBUTE] = spec
    return decodable


def streaming_table_options(table: Mapping[str, Any], additional_options: Mapping[str, Any]
                            ) -> tuple[str, dict[str, Any]] | None:
    """The connection type and options of a streaming catalog table; None for a table that is not one.

    Raises:
        GlueRuntimeError: ``typeOfData`` names a kind of stream glueball cannot read.
    """
    descriptor = table.get("StorageDescriptor") or {}
    params = lower_keys({**(table.get("Parameters") or {}), **(descriptor.get("Parameters") or {})})
    kind = str(params.get("typeofdata") or "").strip().lower()
    if not kind and str(params.get("classification") or "").strip().lower() in _TABLE_OPTIONS:
        kind = str(params.pop("classification")).strip().lower()  # the stream's kind; the payload's is the SerDe's
        params.update(_serde_payload(descriptor.get("SerdeInfo") or {}))
    if not kind:
        return None
    if kind not in _TABLE_OPTIONS:
        raise GlueRuntimeError(f"table {table.get('Name')!r} has typeOfData {kind!r}; streaming tables here: "
                               f"{', '.join(_TABLE_OPTIONS)}")
    options: dict[str, Any] = {k: v for k, v in params.items() if k in _TABLE_OPTIONS[kind] + _TABLE_DECODE_OPTIONS}
    extra = lower_keys(additional_options)
    infer = str(extra.get("inferschema", params.get("inferschema", "false"))).strip().lower() == "true"
    columns = descriptor.get("Columns") or []
    reference = descriptor.get("SchemaReference")
    if reference:  # the registry's version is the schema, looked up again for every micro-batch
        options["schemareference"] = json.dumps(reference)
    elif options.get("classification") and not infer and columns and "schema" not in extra:
        options["schema"] = ", ".join(f"`{c['Name']}` {c['Type']}" for c in columns)
    options.update(extra)
    return kind, options


def _serde_payload(serde: Mapping[str, Any]) -> dict[str, Any]:
    """The payload options a table's SerDe implies (lower-cased): JSON, CSV with its delimiter, Avro with its schema."""
    library = str(serde.get("SerializationLibrary") or "").lower()
    params = serde.get("Parameters") or {}
    if "json" in library:
        return {"classification": "json"}
    if "avro" in library:
        found = {"classification": "avro"}
        if params.get("avro.schema.literal"):
            found["avroschema"] = params["avro.schema.literal"]
        return found
    if "csv" in library or "lazysimpleserde" in library:
        delimiter = params.get("separatorChar") or params.get("field.delim")
        return {"classification": "csv", **({"delimiter": delimiter} if delimiter else {})}
    return {}


def catalog_data_frame(glue_ctx: Any, database: str | None, table_name: str | None,
                       additional_options: Mapping[str, Any]) -> DataFrame | None:
    """``create_data_frame.from_catalog`` of a streaming table (None: the table is not a streaming table)."""
    from glueball.runtime.io.catalog import get_table

    table = get_table(glue_ctx, database, table_name)
    found = streaming_table_options(table, additional_options)
    if found is None:
        return None
    kind, options = found
    return streaming_data_frame(glue_ctx, kind, options)
