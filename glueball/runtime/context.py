"""GlueContext: the entry point of a Glue script (upstream ``awsglue.context.GlueContext``)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from glueball.runtime.client import glue_client
from glueball.runtime.dynamicframe import DynamicFrame

if TYPE_CHECKING:
    from pyspark import SparkContext
    from pyspark.sql import DataFrame, SparkSession

# settings a Glue script relies on that can still be set on a running session
_SESSION_CONF = {
    "spark.sql.ansi.enabled": "false",
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.sources.partitionOverwriteMode": "dynamic",
    "spark.sql.legacy.timeParserPolicy": "CORRECTED",
}


@dataclass
class SqlCatalogRefresh:
    """What :meth:`GlueContext.refresh_sql_catalog` did: with the catalog as Spark's metastore, nothing is
    copied (``tables``, ``partitions`` and ``skipped`` stay empty; kept for scripts that read them)."""

    tables: list[str] = field(default_factory=list)
    partitions: int = 0
    skipped: dict[str, str] = field(default_factory=dict)


class GlueContext:
    """Wraps a SparkContext with Glue's readers, writers and catalog.

    Args:
        sparkContext: the script's SparkContext; the process's session is created if None.
    """

    def __init__(self, sparkContext: SparkContext | None = None, **options: Any) -> None:  # noqa: N803
        from pyspark.sql import SparkSession

        from glueball.runtime.spark import spark_session

        if sparkContext is None:
            self.spark_session: SparkSession = spark_session()
        else:
            self.spark_session = SparkSession(sparkContext)
        self._sc = self.spark_session.sparkContext
        for key, value in _SESSION_CONF.items():
            self.spark_session.conf.set(key, value)
        self.options = options
        self.create_dynamic_frame = DynamicFrameReader(self)
        self.write_dynamic_frame = DynamicFrameWriter(self)
        self.create_data_frame = DataFrameReader(self)
        self.write_data_frame = DataFrameWriter(self)

    def refresh_sql_catalog(self) -> SqlCatalogRefresh:
        """Forget what Spark SQL cached of catalog tables (their files, relations, cached data).

        Spark SQL's catalog is the Data Catalog itself (:mod:`glueball.runtime.hivecatalog`): every table
        is read from it when a statement names it, so nothing needs copying. Useful after another client
        changed a table's files while the script runs.
        """
        self.spark_session.catalog.clearCache()
        return SqlCatalogRefresh()

    @property
    def glue_client(self) -> Any:
        """The Glue client: embedded catalog, a glueball server or AWS (see ``glueball.runtime.client``)."""
        return glue_client()

    def get_logger(self) -> logging.Logger:
        return logging.getLogger("glueball.job")

    # upstream's flat aliases of the readers and writers
    def create_dynamic_frame_from_options(self, connection_type: str,
                                          connection_options: Mapping[str, Any] | None = None,
                                          format: str | None = None,  # noqa: A002
                                          format_options: Mapping[str, Any] | None = None,
                                          transformation_ctx: str = "", push_down_predicate: str = "",
                                          **kwargs: Any) -> DynamicFrame:
        return self.create_dynamic_frame.from_options(connection_type, connection_options, format, format_options,
                                                      transformation_ctx, push_down_predicate, **kwargs)

    def create_dynamic_frame_from_catalog(self, database: str | None = None, table_name: str | None = None,
                                          redshift_tmp_dir: str = "", transformation_ctx: str = "",
                                          push_down_predicate: str = "",
                                          additional_options: Mapping[str, Any] | None = None,
                                          catalog_id: str | None = None, **kwargs: Any) -> DynamicFrame:
        return self.create_dynamic_frame.from_catalog(database, table_name, redshift_tmp_dir, transformation_ctx,
                                                      push_down_predicate, additional_options, catalog_id, **kwargs)

    def create_dynamic_frame_from_rdd(self, data: Any, name: str, schema: Any = None,
                                      sample_ratio: float | None = None, transformation_ctx: str = "") -> DynamicFrame:
        return self.create_dynamic_frame.from_rdd(data, name, schema, sample_ratio, transformation_ctx)

    def write_dynamic_frame_from_options(self, frame: DynamicFrame, connection_type: str,
                                         connection_options: Mapping[str, Any] | None = None,
                                         format: str | None = None,  # noqa: A002
                                         format_options: Mapping[str, Any] | None = None,
                                         transformation_ctx: str = "") -> DynamicFrame:
        return self.write_dynamic_frame.from_options(frame, connection_type, connection_options, format,
                                                     format_options, transformation_ctx)

    def write_dynamic_frame_from_catalog(self, frame: DynamicFrame, database: str | None = None,
                                         table_name: str | None = None, redshift_tmp_dir: str = "",
                                         transformation_ctx: str = "",
                                         additional_options: Mapping[str, Any] | None = None,
                                         catalog_id: str | None = None, **kwargs: Any) -> DynamicFrame:
        return self.write_dynamic_frame.from_catalog(frame, database, table_name, redshift_tmp_dir,
                                                     transformation_ctx, additional_options, catalog_id, **kwargs)

    def write_dynamic_frame_from_jdbc_conf(self, frame: DynamicFrame, catalog_connection: str,
                                           connection_options: Mapping[str, Any] | None = None,
                                           redshift_tmp_dir: str = "", transformation_ctx: str = "",
                                           catalog_id: str | None = None) -> DynamicFrame:
        return self.write_dynamic_frame.from_jdbc_conf(frame, catalog_connection, connection_options,
                                                       redshift_tmp_dir, transformation_ctx, catalog_id)

    write_from_options = write_dynamic_frame_from_options

    def getSource(self, connection_type: str, format: str | None = None,  # noqa: N802,A002
                  transformation_ctx: str = "", **options: Any) -> Any:
        from glueball.runtime.io.sources import DataSource

        return DataSource(self, connection_type, format, transformation_ctx, options)

    def getSink(self, connection_type: str, format: str | None = None,  # noqa: N802,A002
                transformation_ctx: str = "", **options: Any) -> Any:
        from glueball.runtime.io.sources import DataSink

        return DataSink(self, connection_type, format, transformation_ctx, options)

    def purge_table(self, database: str, table_name: str, options: Mapping[str, Any] | None = None,
                    transformation_ctx: str = "", catalog_id: str | None = None) -> None:
        from glueball.runtime.io.purge import purge_table

        purge_table(self, database, table_name, dict(options or {}), transformation_ctx)

    def purge_s3_path(self, s3_path: str, options: Mapping[str, Any] | None = None,
                      transformation_ctx: str = "") -> None:
        from glueball.runtime.io.purge import purge_s3_path

        purge_s3_path(self, s3_path, dict(options or {}), transformation_ctx)

    def extract_jdbc_conf(self, connection_name: str, catalog_id: str | None = None) -> dict[str, str]:
        from glueball.runtime.io.jdbc import extract_jdbc_conf

        return extract_jdbc_conf(self, connection_name)

    def create_data_frame_from_options(self, connection_type: str,
                                       connection_options: Mapping[str, Any] | None = None,
                                       format: str | None = None,  # noqa: A002
                                       format_options: Mapping[str, Any] | None = None,
                                       transformation_ctx: str = "", **kwargs: Any) -> DataFrame:
        return self.create_data_frame.from_options(connection_type, connection_options, format, format_options,
                                                   transformation_ctx, **kwargs)

    def create_data_frame_from_catalog(self, database: str | None = None, table_name: str | None = None,
                                       *args: Any, **kwargs: Any) -> DataFrame:
        return self.create_data_frame.from_catalog(database, table_name, *args, **kwargs)

    def forEachBatch(self, frame: DataFrame, batch_function: Any,  # noqa: N802
                     options: Mapping[str, Any] | None = None) -> None:
        """Run ``batch_function(batch_df, batch_id)`` on every non-empty micro-batch of a streaming ``frame``.

        Glue's options: ``windowSize``, ``checkpointLocation``, ``persistDataFrame``, ``storageLevel``,
        ``batchMaxRetries`` (see ``glueball.runtime.streaming.foreach``). Blocks until the query stops.
        """
        from glueball.runtime.streaming.foreach import for_each_batch

        for_each_batch(self, frame, batch_function, options)

    def getSampleStreamingDynamicFrame(self, frame: DataFrame, options: Mapping[str, Any] | None = None,  # noqa: N802
                                       sample_function: Any = None) -> DynamicFrame:
        """A static sample of a streaming ``frame``: ``windowSize``, ``pollingTimeInMs``, ``recordPollingLimit``.

        See ``glueball.runtime.streaming.sampling``; ``sample_function(batch_df, batch_id)`` runs on each batch.
        """
        from glueball.runtime.streaming.sampling import sample_streaming_frame

        return sample_streaming_frame(self, frame, options, sample_function)

    def add_ingestion_time_columns(self, frame: DataFrame, time_granularity: str) -> DataFrame:
        """``frame`` with ``ingest_year``, ``ingest_month``, ``ingest_day`` (+ ``ingest_hour``, ``ingest_minute``).

        ``time_granularity``: ``day``, ``hour`` or ``minute``; the values are the micro-batch's UTC time.
        """
        from glueball.runtime.streaming.sampling import add_ingestion_time_columns

        return add_ingestion_time_columns(frame, time_granularity)


class DynamicFrameReader:
    """``glueContext.create_dynamic_frame``: ``from_options``, ``from_catalog``, ``from_rdd``."""

    def __init__(self, glue_context: GlueContext) -> None:
        self._glue_context = glue_context

    def from_rdd(self, data: Any, name: str, schema: Any = None, sampleRatio: float | None = None,  # noqa: N803
                 transformation_ctx: str = "") -> DynamicFrame:
        spark = self._glue_context.spark_session
        return DynamicFrame(spark.createDataFrame(data, schema=schema, samplingRatio=sampleRatio),
                            self._glue_context, name, transformation_ctx=transformation_ctx)

    def from_options(self, connection_type: str, connection_options: Mapping[str, Any] | None = None,
                     format: str | None = None, format_options: Mapping[str, Any] | None = None,  # noqa: A002
                     transformation_ctx: str = "", push_down_predicate: str = "", **kwargs: Any) -> DynamicFrame:
        from glueball.runtime.io.read import read_dynamic_frame

        return read_dynamic_frame(self._glue_context, connection_type, dict(connection_options or {}), format,
                                  dict(format_options or {}), transformation_ctx, push_down_predicate, kwargs)

    def from_catalog(self, database: str | None = None, table_name: str | None = None, redshift_tmp_dir: str = "",
                     transformation_ctx: str = "", push_down_predicate: str = "",
                     additional_options: Mapping[str, Any] | None = None, catalog_id: str | None = None,
                     **kwargs: Any) -> DynamicFrame:
        from glueball.runtime.io.read import read_catalog_frame

        return read_catalog_frame(self._glue_context, kwargs.pop("name_space", database),
                                  kwargs.pop("table_name", table_name), transformation_ctx, push_down_predicate,
                                  dict(additional_options or {}), kwargs)


class DynamicFrameWriter:
    """``glueContext.write_dynamic_frame``: ``from_options``, ``from_catalog``, ``from_jdbc_conf``."""

    def __init__(self, glue_context: GlueContext) -> None:
        self._glue_context = glue_context

    def from_options(self, frame: DynamicFrame, connection_type: str,
                     connection_options: Mapping[str, Any] | None = None, format: str | None = None,  # noqa: A002
                     format_options: Mapping[str, Any] | None = None, transformation_ctx: str = "") -> DynamicFrame:
        from glueball.runtime.io.write import write_dynamic_frame

        return write_dynamic_frame(self._glue_context, frame, connection_type, dict(connection_options or {}),
                                   format, dict(format_options or {}), transformation_ctx)

    def from_catalog(self, frame: DynamicFrame, database: str | None = None, table_name: str | None = None,
                     redshift_tmp_dir: str = "", transformation_ctx: str = "",
                     additional_options: Mapping[str, Any] | None = None, catalog_id: str | None = None,
                     **kwargs: Any) -> DynamicFrame:
        from glueball.runtime.io.write import write_catalog_frame

        return write_catalog_frame(self._glue_context, frame, kwargs.pop("name_space", database),
                                   table_name, transformation_ctx, dict(additional_options or {}))

    def from_jdbc_conf(self, frame: DynamicFrame, catalog_connection: str,
                       connection_options: Mapping[str, Any] | None = None, redshift_tmp_dir: str = "",
                       transformation_ctx: str = "", catalog_id: str | None = None) -> DynamicFrame:
        from glueball.runtime.io.write import write_jdbc_conf

        return write_jdbc_conf(self._glue_context, frame, catalog_connection, dict(connection_options or {}),
                               transformation_ctx)


class DataFrameReader:
    """``glueContext.create_data_frame``: the same sources as DynamicFrames, answered as DataFrames."""

    def __init__(self, glue_context: GlueContext) -> None:
        self._reader = DynamicFrameReader(glue_context)

    def from_catalog(self, database: str | None = None, table_name: str | None = None, *args: Any,
                     **kwargs: Any) -> DataFrame:
        """A DataFrame of a catalog table; a streaming DataFrame for a streaming table (``typeOfData``).

        A streaming table's parameters (``topicName``, ``streamName``, ``classification``...) and its columns
        (the schema, unless ``inferSchema`` is true) become the connection options, ``additional_options``
        on top (``glueball.runtime.streaming.sources``).
        """
        from glueball.runtime.streaming.sources import catalog_data_frame

        database = kwargs.pop("name_space", database)
        streaming = catalog_data_frame(self._reader._glue_context, database, table_name,
                                       kwargs.get("additional_options") or {})
        if streaming is not None:
            return streaming
        return self._reader.from_catalog(database, table_name, *args, **kwargs).toDF()

    def from_options(self, connection_type: str, connection_options: Mapping[str, Any] | None = None,
                     *args: Any, **kwargs: Any) -> DataFrame:
        """A DataFrame of files or a JDBC table; a streaming DataFrame for ``kafka`` and ``kinesis``."""
        from glueball.runtime.streaming.sources import STREAMING_CONNECTION_TYPES, streaming_data_frame

        if (connection_type or "").strip().lower() in STREAMING_CONNECTION_TYPES:
            return streaming_data_frame(self._reader._glue_context, connection_type, connection_options or {})
        return self._reader.from_options(connection_type, connection_options, *args, **kwargs).toDF()


class DataFrameWriter:
    """``glueContext.write_data_frame``: write a DataFrame to a catalog table."""

    def __init__(self, glue_context: GlueContext) -> None:
        self._glue_context = glue_context
        self._writer = DynamicFrameWriter(glue_context)

    def from_catalog(self, frame: DataFrame, *args: Any, **kwargs: Any) -> DynamicFrame:
        return self._writer.from_catalog(DynamicFrame.fromDF(frame, self._glue_context, "frame"), *args, **kwargs)
