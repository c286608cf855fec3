"""Streaming ETL: Spark streaming sources of our own and Glue's ``forEachBatch``.

- ``kafka``: the ``glueball-kafka`` streaming Python data source (confluent-kafka);
- ``kinesis``: the ``glueball-kinesis`` streaming Python data source (boto3);
- ``sources``: ``create_data_frame.from_options(connection_type="kafka"|"kinesis", ...)`` and
  ``create_data_frame.from_catalog`` for streaming catalog tables;
- ``decode``: the payload of each micro-batch decoded (``classification`` json/csv,
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
    """Register the streaming sources (``glueball-kafka``, ``glueball-kinesis``) with ``spark``, once per session."""
    key = id(spark._jsparkSession)
    if key in _registered:
        return
    from glueball.runtime.streaming.kafka import KafkaDataSource
    from glueball.runtime.streaming.kinesis import KinesisDataSource

    spark.dataSource.register(KafkaDataSource)
    spark.dataSource.register(KinesisDataSource)
    _registered.add(key)
