"""``write_dynamic_frame.from_options``, ``from_catalog`` and ``from_jdbc_conf``.

S3 connection options (Glue's names): ``path`` (required), ``partitionKeys`` (Hive-style
``key=value`` folders), ``compressionType`` (``gzip``/``bzip2`` for csv, json and xml);
Glue appends, so does this. With ``enableUpdateCatalog`` (and ``updateBehavior``,
``partitionKeys``; the table named by the sink's ``setCatalogInfo`` or the options
``catalogDatabase``/``catalogTableName`` or ``databaseName``/``tableName``), the catalog
table is created or updated and the new partitions registered (see ``catalog``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from glueball.runtime.dynamicframe import DynamicFrame
from glueball.runtime.errors import GlueRuntimeError
from glueball.runtime.hadoop import output_path
from glueball.runtime.io import catalog as cat
from glueball.runtime.io import formats, jdbc, laketables, outnames
from glueball.runtime.io.read import FILE_CONNECTION_TYPES, unsupported_connection


def _keys(value: Any) -> list[str]:
    if value is None or value == "":
        return []
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value]


def _catalog_target(options: Mapping[str, Any]) -> tuple[str, str] | None:
    for db_key, table_key in (("catalogDatabase", "catalogTableName"), ("databaseName", "tableName"),
                              ("database", "table_name")):
        if options.get(db_key) and options.get(table_key):
            return str(options[db_key]), str(options[table_key])
    return None


def write_files_frame(glue_ctx: Any, frame: DynamicFrame, path: str, fmt: str | None,
                      format_options: Mapping[str, Any], options: Mapping[str, Any],
                      catalog_target: tuple[str, str] | None, transformation_ctx: str = "") -> None:
    """Write ``frame`` under ``path`` in files named as Glue names them (:mod:`outnames`), then update the
    catalog if ``enableUpdateCatalog`` asks for it."""
    name = formats.normalize_format(fmt)
    keys = _keys(options.get("partitionKeys"))
    df = frame.toDF()
    spark = glue_ctx.spark_session
    target = output_path(spark, path)
    before = outnames.existing_files(spark, target)
    formats.write_files(spark, df, path, name, format_options, keys, options.get("compressionType"))
    codec = formats.compression_name(format_options.get("compression") or "snappy") if name in (
        "parquet", "glueparquet") else None
    outnames.rename_written(spark, target, before, name, codec, transformation_ctx, bool(keys))
    if formats.as_bool(options.get("enableUpdateCatalog")):
        if catalog_target is None:
            raise GlueRuntimeError("enableUpdateCatalog needs the catalog table: setCatalogInfo(catalogDatabase, "
                                   "catalogTableName) on the sink, or the options catalogDatabase/catalogTableName")
        cat.update_catalog(glue_ctx, database=catalog_target[0], table_name=catalog_target[1], location=path,
                           fmt=name, format_options=format_options, schema=df.schema, partition_keys=keys,
                           update_behavior=str(options.get("updateBehavior") or "UPDATE_IN_DATABASE"))


def write_dynamic_frame(glue_ctx: Any, frame: DynamicFrame, connection_type: str,
                        connection_options: dict[str, Any], format: str | None,  # noqa: A002
                        format_options: dict[str, Any], transformation_ctx: str) -> DynamicFrame:
    """``write_dynamic_frame.from_options``: write files (s3/file) or append to a JDBC table.

    Returns the frame written, as Glue does.
    """
    kind = (connection_type or "").strip().lower()
    if kind in FILE_CONNECTION_TYPES:
        path = connection_options.get("path")
        if not path:
            raise GlueRuntimeError("s3 connection_options need path")
        write_files_frame(glue_ctx, frame, str(path), format, format_options, connection_options,
                          _catalog_target(connection_options), transformation_ctx)
    elif kind in jdbc.JDBC_CONNECTION_TYPES:
        jdbc.write_jdbc(glue_ctx, frame.toDF(), kind, connection_options)
    else:
        raise unsupported_connection(connection_type)
    return frame


def write_catalog_frame(glue_ctx: Any, frame: DynamicFrame, database: str | None, table_name: str | None,
                        transformation_ctx: str, additional_options: dict[str, Any]) -> DynamicFrame:
    """``write_dynamic_frame.from_catalog``: write to the table's location in its format (or its JDBC table).

    ``additional_options``: ``partitionKeys``, ``enableUpdateCatalog``, ``updateBehavior``,
    ``compressionType`` and format options (over the ones the table's SerDe implies).
    """
    table = cat.get_table(glue_ctx, database, table_name)
    if cat.is_jdbc_table(table):
        from glueball.runtime.io.read import _jdbc_table_options

        jdbc.write_jdbc(glue_ctx, frame.toDF(), None, _jdbc_table_options(glue_ctx, table, additional_options))
        return frame
    lake = laketables.lake_format(table)
    if lake is not None:  # Iceberg and Delta: the format's writer commits, never files dropped into its folder
        laketables.write_lake_table(glue_ctx.spark_session, frame.toDF(), table, str(database), lake)
        return frame
    location = str(table.get("StorageDescriptor", {}).get("Location") or "")
    if not location:
        raise GlueRuntimeError(f"table {database}.{table_name} has no location to write to")
    fmt = formats.normalize_format(cat.classification(table))
    table_options, header_lines = cat.format_options_of(table, fmt)
    format_options = {**table_options, **additional_options}
    if fmt == "csv":
        format_options.setdefault("writeHeader", header_lines > 0)
    write_files_frame(glue_ctx, frame, location, fmt, format_options, additional_options,
                      (str(database), str(table_name)), transformation_ctx)
    return frame


def write_jdbc_conf(glue_ctx: Any, frame: DynamicFrame, catalog_connection: str,
                    connection_options: dict[str, Any], transformation_ctx: str) -> DynamicFrame:
    """``write_dynamic_frame.from_jdbc_conf``: append to ``dbtable`` through a catalog JDBC connection.

    ``connection_options``: ``dbtable`` (required), ``database`` (replaces the URL's database),
    ``bulkSize``.
    """
    options = {**connection_options, "connectionName": catalog_connection, "useConnectionProperties": "true"}
    jdbc.write_jdbc(glue_ctx, frame.toDF(), None, options)
    return frame
