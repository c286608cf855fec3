"""Streaming ETL: Glue's streaming sources on Spark and Glue's ``forEachBatch``.

- ``kafka``, ``kafka_options``, ``kafka_connection``: Kafka and MSK through Spark's own Kafka connector, with
  Glue's connection options and catalog KAFKA connections;
- ``kinesis``: the ``glueball-kinesis`` streaming Python data source (boto3);
- ``sources``: ``create_data_frame.from_options(connection_type="kafka"|"kinesis", ...)`` and
  ``create_data_frame.from_catalog`` for streaming tables;
- ``decode``: the payload of each micro-batch decoded (``classification`` json/csv/avro/grok,
  ``inferSchema`` or ``schema``), undecodable records as error records;
- ``foreach``: ``glueContext.forEachBatch`` (trigger window, checkpoint, persistence, retries).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["register_sources"]

_registered: set[int] = set()


def register_sources(spark: SparkSession) -> None:
    """Register glueball's own streaming source (``glueball-kinesis``) with ``spark``, once per session."""
    key = id(spark._jsparkSession)
    if key in _registered:
        return
    from glueball.runtime.streaming.kinesis import KinesisDataSource

    spark.dataSource.register(KinesisDataSource)
    _registered.add(key)
