"""Catalog tables of open table formats read as Glue reads them (``create_dynamic_frame.from_catalog`` and
``create_data_frame.from_catalog`` with ``--datalake-formats``): through the format's own Spark reader, never by
listing the table's files (a Delta or Iceberg folder holds files that are no longer part of the table).

- Iceberg (``table_type`` ICEBERG): the table of the session's Iceberg catalog over Glue (``glue_catalog``), or
  else Iceberg's reader on the table's ``metadata_location``.
- Delta (``spark.sql.sources.provider`` or classification ``delta``): Delta's reader on the table's location
  (a symlink table's location is its manifest folder: the Delta table is the folder above it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from glueball.runtime import lakeformats
from glueball.runtime.errors import GlueRuntimeError

__all__ = ["LAKE_FORMATS", "lake_format", "read_lake_paths", "read_lake_table", "write_lake_table"]

LAKE_FORMATS = ("delta", "iceberg")

MANIFEST_FOLDER = "/_symlink_format_manifest"


def lake_format(table: Mapping[str, Any]) -> str | None:
    """``iceberg`` or ``delta`` for a table of that format, else None."""
    params = {str(k).lower(): str(v) for k, v in (table.get("Parameters") or {}).items()}
    if params.get("table_type", "").upper() == "ICEBERG":
        return "iceberg"
    if params.get("spark.sql.sources.provider", "").lower() == "delta" or params.get("classification") == "delta":
        return "delta"
    return None


def _formats_on(spark: Any) -> tuple[str, ...]:
    return lakeformats.formats_of({lakeformats.FORMATS_CONF: spark.conf.get(lakeformats.FORMATS_CONF, "")})


def _require_format(spark: Any, fmt: str, table: Mapping[str, Any], database: str, use: str) -> None:
    if fmt not in _formats_on(spark):
        raise GlueRuntimeError(f"table {database}.{table.get('Name')} is a {fmt} table: the job needs "
                               f"{lakeformats.ARGUMENT} {fmt} to {use} it")


def _glue_catalog_table(spark: Any, table: Mapping[str, Any], database: str) -> str | None:
    """The table's name in the session's Iceberg catalog over Glue, or None when the session has no such catalog."""
    catalog = f"spark.sql.catalog.{lakeformats.DEFAULT_ICEBERG_CATALOG}"
    if spark.conf.get(catalog, "") not in lakeformats.ICEBERG_CATALOGS:
        return None
    return f"{lakeformats.DEFAULT_ICEBERG_CATALOG}.`{database}`.`{table['Name']}`"


def _delta_location(table: Mapping[str, Any], database: str) -> str:
    """The Delta table's folder as Spark names it (a symlink table's location is its manifest folder: the table is
    the folder above it)."""
    location = str((table.get("StorageDescriptor") or {}).get("Location") or "").rstrip("/")
    if not location:
        raise GlueRuntimeError(f"Delta table {database}.{table.get('Name')} has no location")
    if location.endswith(MANIFEST_FOLDER):
        location = location[: -len(MANIFEST_FOLDER)]
    return _spark_path(location)


def read_lake_table(spark: Any, table: Mapping[str, Any], database: str, fmt: str,
                    options: Mapping[str, Any] | None = None) -> Any:
    """The DataFrame of a catalog table of format ``fmt``; ``options`` are the format reader's (Glue's
    ``additional_options``: Delta's ``versionAsOf``/``timestampAsOf``, Iceberg's ``snapshot-id``/``as-of-timestamp``).

    Raises:
        GlueRuntimeError: the driver has not the format (``--datalake-formats``), or the table has no location.
    """
    _require_format(spark, fmt, table, database, "read")
    if fmt == "iceberg":
        reader = spark.read.options(**_reader_options(options))
        name = _glue_catalog_table(spark, table, database)
        if name is not None:
            return reader.table(name)
        location = (table.get("Parameters") or {}).get("metadata_location")
        if not location:
            raise GlueRuntimeError(f"Iceberg table {database}.{table.get('Name')} has no metadata_location")
        return reader.format("iceberg").load(_spark_path(location))
    return spark.read.format("delta").options(**_reader_options(options)).load(_delta_location(table, database))


def read_lake_paths(spark: Any, fmt: str, paths: list[str], options: Mapping[str, Any] | None = None) -> Any:
    """``create_dynamic_frame.from_options("s3", {"paths": [...]}, format="delta"|"iceberg")``: the table at each
    path through the format's reader (one path: a table is one folder), ``options`` the reader's.

    Raises:
        GlueRuntimeError: the driver has not the format, or not one path.
    """
    if fmt not in _formats_on(spark):
        raise GlueRuntimeError(f"format {fmt} needs {lakeformats.ARGUMENT} {fmt}")
    if len(paths) != 1:
        raise GlueRuntimeError(f"format {fmt} reads one table: give one path in paths, not {len(paths)}")
    return spark.read.format(fmt).options(**_reader_options(options)).load(_spark_path(paths[0]))


def _reader_options(options: Mapping[str, Any] | None) -> dict[str, str]:
    return {str(k): str(v) for k, v in (options or {}).items() if v is not None}


def write_lake_table(spark: Any, df: Any, table: Mapping[str, Any], database: str, fmt: str) -> None:
    """Append ``df`` to a catalog table of format ``fmt``, as Glue's ``write_dynamic_frame.from_catalog`` and
    ``write_data_frame.from_catalog`` do for Iceberg and Delta tables: through the format's writer, one commit
    (Iceberg: through ``glue_catalog``, a ``VersionId`` swap of the Glue table; Delta: a commit to its log).

    Raises:
        GlueRuntimeError: the driver has not the format, the session has no Iceberg catalog over Glue, or the
            table has no location.
    """
    _require_format(spark, fmt, table, database, "write")
    if fmt == "iceberg":
        name = _glue_catalog_table(spark, table, database)
        if name is None:
            raise GlueRuntimeError(f"Iceberg table {database}.{table.get('Name')} is written through the session's "
                                   f"{lakeformats.DEFAULT_ICEBERG_CATALOG} catalog, which this session has not")
        df.writeTo(name).append()
        return
    df.write.format("delta").mode("append").save(_delta_location(table, database))


def _spark_path(location: str) -> str:
    from glueball.objects.locations import is_s3, to_spark_path

    return to_spark_path(location) if is_s3(location) else location
