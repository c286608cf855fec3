"""``create_data_frame.from_options`` for streaming connection types: a streaming DataFrame.

``connection_type="kafka"`` reads with the ``glueball-kafka`` source (``kafka``); the connection
options are Glue's (``kafka_options``). A ``connectionName`` is resolved here, on the driver, through
the catalog's GetConnection, so the source and its tasks get plain client settings.

With a ``classification`` the frame carries how to decode each micro-batch (``decode.DecodeSpec``);
``forEachBatch`` applies it, so its batch function sees the records. Without one the frame has the
source's own columns (``key``, ``value``, ``topic``, ...).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from glueball.runtime.errors import GlueRuntimeError
from glueball.streaming.decode import DecodeSpec
from glueball.streaming.kafka_options import DECODE_OPTIONS, SOURCE_OPTIONS, KafkaOptions, lower_keys, spark_options

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

log = logging.getLogger("glueball.streaming")

STREAMING_CONNECTION_TYPES = ("kafka",)
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
        raise GlueRuntimeError("connection_type 'kinesis' is not supported yet; streaming sources here: kafka")
    raise GlueRuntimeError(f"connection_type {connection_type!r} is not a streaming source; "
                           f"supported: {', '.join(STREAMING_CONNECTION_TYPES)}")


def kafka_data_frame(glue_ctx: Any, connection_options: Mapping[str, Any]) -> DataFrame:
    """The ``glueball-kafka`` stream of ``connection_options``, with the payload decoding attached."""
    from glueball.streaming import register_sources
    from glueball.streaming.kafka import SOURCE_NAME

    options = dict(connection_options)
    spec = DecodeSpec.from_options(options)
    parsed = KafkaOptions.parse(options)  # checks everything, resolves connectionName
    lowered = lower_keys(options)
    unused = sorted(k for k in lowered if k not in SOURCE_OPTIONS and k not in DECODE_OPTIONS
                    and k != "connectionname" and not k.startswith(("kafka.", "ssl.", "sasl.")))
    if unused:
        log.warning("kafka connection options not used: %s", ", ".join(unused))
    source_options = {k: v for k, v in lowered.items() if k in SOURCE_OPTIONS}
    for resolved in ("security.protocol", "connectionname"):  # now in the client settings below
        source_options.pop(resolved, None)
    source_options.update({f"kafka.{k}": v for k, v in parsed.client_config.items()})
    source_options.pop("kafka.bootstrap.servers", None)
    source_options["bootstrap.servers"] = parsed.client_config["bootstrap.servers"]

    spark = glue_ctx.spark_session
    register_sources(spark)
    frame = spark.readStream.format(SOURCE_NAME).options(**spark_options(source_options)).load()
    if spec is not None:
        vars(frame)[_DECODE_ATTRIBUTE] = spec
    return frame
