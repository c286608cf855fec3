"""``create_dynamic_frame.from_options`` and ``from_catalog``.

Connection types: ``s3`` and ``file`` (files, see ``files`` and ``formats``), ``postgresql``
and ``mysql`` (JDBC, see ``jdbc``). S3 connection options (Glue's names): ``paths``
(required), ``recurse``, ``exclusions``, ``groupFiles`` (``inPartition``/``none``) with
``groupSize`` (bytes per Spark partition: the read is coalesced to total size / groupSize),
``compressionType`` (input compression is recognised by extension, as in Glue),
``attachFilename`` / ``attachTimestamp`` (add the source file / its modification time as a
column), ``excludeStorageClasses``, ``maxBand``, ``maxFilesInBand``, ``isFailFast`` (accepted).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from glueball.runtime import bookmarks
from glueball.runtime.dynamicframe import DynamicFrame
from glueball.runtime.errors import Errors, GlueRuntimeError
from glueball.runtime.io import catalog as cat
from glueball.runtime.io import files as file_listing
from glueball.runtime.io import formats, jdbc, laketables
from glueball.runtime.pending import PendingTyping

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

log = logging.getLogger("glueball.runtime.io")

FILE_CONNECTION_TYPES = ("s3", "file")
SUPPORTED_CONNECTION_TYPES = FILE_CONNECTION_TYPES + jdbc.JDBC_CONNECTION_TYPES
_STREAMING = ("kafka", "kinesis")
S3_OPTIONS = frozenset({
    "paths", "path", "recurse", "exclusions", "groupFiles", "groupSize", "compressionType", "attachFilename",
    "attachTimestamp", "excludeStorageClasses", "maxBand", "maxFilesInBand", "isFailFast",
    "catalogPartitionPredicate", "useS3ListImplementation", "boundedFiles", "boundedSize",
})


def unsupported_connection(connection_type: str) -> GlueRuntimeError:
    supported = ", ".join(SUPPORTED_CONNECTION_TYPES)
    if connection_type in _STREAMING:
        return GlueRuntimeError(f"connection_type {connection_type!r} is a streaming source: read it with "
                                f"create_data_frame.from_options and forEachBatch; batch reads and writes "
                                f"support: {supported}")
    return GlueRuntimeError(f"unsupported connection_type {connection_type!r}; supported: {supported}")


def _paths(options: Mapping[str, Any]) -> list[str]:
    value = options.get("paths", options.get("path"))
    if value is None or value == [] or value == "":
        raise GlueRuntimeError("s3 connection_options need paths (a list of s3:// paths)")
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value]


def _frame(glue_ctx: Any, df: DataFrame, errors: Errors | None, transformation_ctx: str,
           kwargs: Mapping[str, Any], pending: PendingTyping | None = None) -> DynamicFrame:
    """The frame of a read; with ``pending`` typing, ``df`` is raw and its typing is left lazy."""
    typing = pending.with_raw(df) if pending is not None else None
    return DynamicFrame(None if typing else df, glue_ctx, transformation_ctx or "frame", stage_errors=errors,
                        transformation_ctx=transformation_ctx,
                        stage_threshold=int(kwargs.get("stageThreshold", 0) or 0),
                        total_threshold=int(kwargs.get("totalThreshold", 0) or 0), pending=typing)


def _group(df: DataFrame, listed: list[file_listing.InputFile], options: Mapping[str, Any]) -> DataFrame:
    """``groupFiles``/``groupSize``: fewer, bigger Spark partitions (coalesced, no shuffle)."""
    group = str(options.get("groupFiles", "") or "").strip()
    size = options.get("groupSize")
    if not group or group.lower() == "none" or size is None:
        return df
    if group not in ("inPartition", "acrossPartitions"):
        raise GlueRuntimeError(f"groupFiles must be inPartition or none, got {group!r}")
    target = max(1, math.ceil(sum(f.size for f in listed) / max(1, int(size))))
    return df.coalesce(target)


def _attach_file_columns(df: DataFrame, fmt: str, options: Mapping[str, Any]) -> DataFrame:
    from pyspark.sql import functions as F

    name_col = options.get("attachFilename")
    time_col = options.get("attachTimestamp")
    if not name_col and not time_col:
        return df
    if fmt in ("avro", "json"):
        raise GlueRuntimeError(f"attachFilename/attachTimestamp are not supported for format {fmt}")
    if name_col:
        df = df.withColumn(str(name_col), F.col("_metadata.file_path"))
    if time_col:
        df = df.withColumn(str(time_col), F.col("_metadata.file_modification_time"))
    return df


def read_files_frame(glue_ctx: Any, uris: list[str], fmt: str | None, format_options: Mapping[str, Any],
                     options: Mapping[str, Any], transformation_ctx: str, kwargs: Mapping[str, Any],
                     recurse_default: bool = False) -> formats.FileRead:
    """List and read files of ``uris``: the records, error records and the typing left pending (csv, json)."""
    name = formats.normalize_format(fmt)
    spark = glue_ctx.spark_session
    listed = file_listing.list_files(uris, recurse=formats.as_bool(options.get("recurse"), recurse_default),
                                     exclusions=file_listing.parse_exclusions(options.get("exclusions")),
                                     spark=spark)
    listed = bookmarks.select_files(transformation_ctx, listed, options)
    if not listed:
        log.warning("no files to read under %s: the frame is empty", ", ".join(uris))
        return formats.FileRead(formats.empty_frame(spark, []), None)
    read = formats.read_files(spark, glue_ctx, listed, name, format_options, stage=transformation_ctx,
                              lazy_typing=True)
    df = _attach_file_columns(read.df, name, options)
    return read.with_df(_group(df, listed, options))


def read_dynamic_frame(glue_ctx: Any, connection_type: str, connection_options: dict[str, Any],
                       format: str | None, format_options: dict[str, Any],  # noqa: A002
                       transformation_ctx: str, push_down_predicate: str, kwargs: Mapping[str, Any]) -> DynamicFrame:
    """``create_dynamic_frame.from_options``: a DynamicFrame of files or of a JDBC table.

    Args:
        glue_ctx: the GlueContext.
        connection_type: ``s3``, ``file``, ``postgresql`` or ``mysql``.
        connection_options: Glue's connection options (see the module docstrings).
        format: the file format (``csv``, ``json``, ``parquet``, ``glueparquet``, ``orc``, ``avro``, ``xml``).
        format_options: Glue's format options.
        transformation_ctx: the transformation context (names error records; keys the job bookmark).
        push_down_predicate: a Spark SQL filter applied to the records read.
        kwargs: other keyword arguments (``stageThreshold``, ``totalThreshold``).
    """
    kind = (connection_type or "").strip().lower()
    lake = (format or "").strip().lower()
    if kind in FILE_CONNECTION_TYPES and lake in laketables.LAKE_FORMATS:
        df = laketables.read_lake_paths(glue_ctx.spark_session, lake, _paths(connection_options), format_options)
        if push_down_predicate:
            df = df.where(push_down_predicate)
        return _frame(glue_ctx, df, None, transformation_ctx, kwargs)
    if kind in FILE_CONNECTION_TYPES:
        unknown = sorted(set(connection_options) - S3_OPTIONS)
        if unknown:
            log.warning("s3 connection options not used: %s", ", ".join(unknown))
        read = read_files_frame(glue_ctx, _paths(connection_options), format, format_options,
                                connection_options, transformation_ctx, kwargs)
    elif kind in jdbc.JDBC_CONNECTION_TYPES:
        read = formats.FileRead(jdbc.read_jdbc(glue_ctx, kind, connection_options, transformation_ctx), None)
    else:
        raise unsupported_connection(connection_type)
    df, pending = read.df, read.pending
    if push_down_predicate:
        # the predicate compares typed values: the typing cannot wait
        df, pending = read.typed().where(push_down_predicate), None
    return _frame(glue_ctx, df, read.errors, transformation_ctx, kwargs, pending)


def _jdbc_table_options(glue_ctx: Any, table: Mapping[str, Any], additional: Mapping[str, Any]) -> dict[str, Any]:
    """Connection options of a catalog table over a JDBC connection: its connection and ``dbtable``."""
    params = dict(table.get("Parameters") or {})
    connection = params.get("connectionName") or additional.get("connectionName")
    if not connection:
        raise GlueRuntimeError(f"table {table.get('Name')!r} is a JDBC table without a connectionName parameter")
    location = str(table.get("StorageDescriptor", {}).get("Location") or "")
    # crawled JDBC tables keep database.schema.table (PostgreSQL) or database.table (MySQL)
    dbtable = location.split(".", 1)[1] if "." in location else location or str(table["Name"])
    options: dict[str, Any] = {k: v for k, v in params.items() if k in (
        "hashfield", "hashexpression", "hashpartitions", "sampleQuery", "enablePartitioningForSampleQuery",
        "sampleSize", "jobBookmarkKeys", "jobBookmarkKeysSortOrder")}
    options.update({"connectionName": connection, "useConnectionProperties": "true", "dbtable": dbtable})
    options.update(additional)
    return options


def read_catalog_frame(glue_ctx: Any, database: str | None, table_name: str | None, transformation_ctx: str,
                       push_down_predicate: str, additional_options: dict[str, Any],
                       kwargs: Mapping[str, Any]) -> DynamicFrame:
    """``create_dynamic_frame.from_catalog``: the table's data, partitions pruned by the catalog.

    ``push_down_predicate`` and ``additional_options["catalogPartitionPredicate"]`` select
    partitions through ``GetPartitions`` before any file is listed; only the selected
    partitions' locations are read, with the partition columns added, typed as the
    table's partition keys. JDBC tables are read through their connection
    (``additional_options`` may carry the JDBC options, e.g. ``hashfield``).
    """
    table = cat.get_table(glue_ctx, database, table_name)
    spark = glue_ctx.spark_session
    if cat.is_jdbc_table(table):
        options = _jdbc_table_options(glue_ctx, table, additional_options)
        df = jdbc.read_jdbc(glue_ctx, None, options, transformation_ctx)
        if push_down_predicate:
            df = df.where(push_down_predicate)
        return _frame(glue_ctx, df, None, transformation_ctx, kwargs)
    lake = laketables.lake_format(table)
    if lake is not None:  # Iceberg and Delta: the format's reader, which knows the table's live files
        df = laketables.read_lake_table(spark, table, str(database), lake,
                                        {k: v for k, v in additional_options.items()
                                         if k not in cat_only() and k != "catalogPartitionPredicate"})
        if push_down_predicate:
            df = df.where(push_down_predicate)
        return _frame(glue_ctx, df, None, transformation_ctx, kwargs)
    fmt = formats.normalize_format(cat.classification(table))
    table_options, header_lines = cat.format_options_of(table, fmt)
    format_options = {**table_options, **{k: v for k, v in additional_options.items() if k not in cat_only()}}
    columns = list(table.get("StorageDescriptor", {}).get("Columns") or [])
    column_names = [c["Name"] for c in columns] if fmt == "csv" and columns else None
    key_fields = cat.partition_fields(table)
    exclusions = file_listing.parse_exclusions(additional_options.get("exclusions"))
    location = str(table.get("StorageDescriptor", {}).get("Location") or "")
    if key_fields:
        partitions = cat.select_partitions(glue_ctx, table, str(database), push_down_predicate,
                                           str(additional_options.get("catalogPartitionPredicate") or ""))
        listed: list[file_listing.InputFile] = []
        partition_of: dict[str, tuple[Any, ...]] = {}
        for partition in partitions:
            part_location = partition.get("StorageDescriptor", {}).get("Location") or location
            values = cat.typed_values(key_fields, list(partition.get("Values", [])))
            for item in file_listing.list_files([part_location], recurse=True, exclusions=exclusions, spark=spark):
                listed.append(item)
                partition_of[item.spark_path] = values
    else:
        if not location:
            raise GlueRuntimeError(f"table {database}.{table_name} has no location")
        listed = file_listing.list_files([location], recurse=True, exclusions=exclusions, spark=spark)
        partition_of = {}
    listed = bookmarks.select_files(transformation_ctx, listed, additional_options)
    if not listed:
        df = formats.empty_frame(spark, cat.column_fields(columns) + key_fields)
        return _frame(glue_ctx, df, None, transformation_ctx, kwargs)
    read = formats.read_files(spark, glue_ctx, listed, fmt, format_options, stage=transformation_ctx,
                              column_names=column_names, header_lines=header_lines,
                              partition_fields=key_fields, partition_of=partition_of, lazy_typing=True)
    read = read.with_df(_group(read.df, listed, additional_options))
    df, pending = read.df, read.pending
    if push_down_predicate and not key_fields:
        df, pending = read.typed().where(push_down_predicate), None
    return _frame(glue_ctx, df, read.errors, transformation_ctx, kwargs, pending)


def cat_only() -> frozenset[str]:
    """additional_options of from_catalog that are not format options."""
    return S3_OPTIONS | {"partitionKeys", "enableUpdateCatalog", "updateBehavior", "hashfield", "hashexpression",
                         "hashpartitions", "sampleQuery", "jobBookmarkKeys", "jobBookmarkKeysSortOrder"}
