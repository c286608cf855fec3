"""Catalog tables visible to Spark SQL: ``spark.sql("SELECT ... FROM raw_data.orders")``.

A GlueContext mirrors the Data Catalog's databases, tables and partitions into
the Spark session's catalog as external tables (``CREATE TABLE ... USING fmt
LOCATION ...``, ``ALTER TABLE ... ADD PARTITION ... LOCATION ...``). Spark then
prunes partitions through those catalog entries: a query filtering on partition
keys lists only the matching partitions' locations. The mirror is taken when the
context starts (``GLUEBALL_SQL_CATALOG=off`` skips it) and again on
``GlueContext.refresh_sql_catalog()``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from glueball.runtime.paths import to_spark_path

log = logging.getLogger("glueball.runtime.sql")
_PARTITION_BATCH = 200


def _quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _literal(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _pages(call: Any, member: str, **params: Any) -> Iterator[dict[str, Any]]:
    token: str | None = None
    while True:
        response = call(**params, **({"NextToken": token} if token else {}))
        yield from response.get(member, [])
        token = response.get("NextToken")
        if not token:
            return


@dataclass
class MirrorReport:
    """What a mirror pass did: tables created, and tables skipped with the reason."""

    tables: list[str] = field(default_factory=list)
    partitions: int = 0
    skipped: dict[str, str] = field(default_factory=dict)


def storage_format(table: dict[str, Any]) -> tuple[str, dict[str, str]] | None:
    """Spark's data source name and options for a catalog table, or None if Spark cannot read it natively."""
    descriptor = table.get("StorageDescriptor") or {}
    serde = descriptor.get("SerdeInfo") or {}
    library = (serde.get("SerializationLibrary") or "").lower()
    input_format = (descriptor.get("InputFormat") or "").lower()
    parameters = {**(serde.get("Parameters") or {}), **(table.get("Parameters") or {})}
    classification = (parameters.get("classification") or "").lower()
    for name in ("parquet", "orc", "avro", "json", "xml"):
        if classification == name or name in library or name in input_format:
            if name == "avro":
                return None
            if name == "xml":
                row_tag = parameters.get("rowTag") or parameters.get("xmlRowTag") or "row"
                return "xml", {"rowTag": row_tag}
            return name, {}
    if classification == "csv" or "lazysimpleserde" in library or "opencsvserde" in library:
        options = {"header": "true" if parameters.get("skip.header.line.count") == "1" else "false",
                   "sep": parameters.get("field.delim") or parameters.get("separatorChar") or ","}
        if parameters.get("quoteChar"):
            options["quote"] = parameters["quoteChar"]
        return "csv", options
    return None


def table_ddl(database: str, table: dict[str, Any]) -> str | None:
    """``CREATE TABLE`` for a catalog table, or None when it has no location or readable format."""
    descriptor = table.get("StorageDescriptor") or {}
    location = descriptor.get("Location")
    fmt = storage_format(table)
    if not location or fmt is None:
        return None
    source, options = fmt
    keys = table.get("PartitionKeys") or []
    columns = [*(descriptor.get("Columns") or []), *keys]
    column_sql = ", ".join(f"{_quote(c['Name'])} {c.get('Type') or 'string'}" for c in columns)
    ddl = f"CREATE TABLE {_quote(database)}.{_quote(table['Name'])} ({column_sql}) USING {source}"
    if options:
        ddl += " OPTIONS (" + ", ".join(f"{_quote(k)} {_literal(v)}" for k, v in options.items()) + ")"
    if keys:
        ddl += " PARTITIONED BY (" + ", ".join(_quote(k["Name"]) for k in keys) + ")"
    return ddl + f" LOCATION {_literal(to_spark_path(location))}"


def mirror_catalog(spark: Any, client: Any) -> MirrorReport:
    """Mirror every database, table and partition of the catalog into ``spark``'s session catalog."""
    report = MirrorReport()
    for database in _pages(client.get_databases, "DatabaseList"):
        db = database["Name"]
        spark.sql(f"CREATE DATABASE IF NOT EXISTS {_quote(db)}")
        for table in _pages(client.get_tables, "TableList", DatabaseName=db):
            qualified = f"{db}.{table['Name']}"
            ddl = table_ddl(db, table)
            if ddl is None:
                report.skipped[qualified] = "no location or a format Spark SQL cannot read natively"
                continue
            try:
                spark.sql(f"DROP TABLE IF EXISTS {_quote(db)}.{_quote(table['Name'])}")
                spark.sql(ddl)
                if table.get("PartitionKeys"):
                    report.partitions += _mirror_partitions(spark, client, db, table)
            except Exception as exc:  # a table Spark rejects must not stop the others
                report.skipped[qualified] = str(exc).splitlines()[0]
                continue
            report.tables.append(qualified)
    if report.skipped:
        log.info("catalog tables not visible to Spark SQL: %s", report.skipped)
    return report


def _mirror_partitions(spark: Any, client: Any, database: str, table: dict[str, Any]) -> int:
    keys = [k["Name"] for k in table["PartitionKeys"]]
    target = f"{_quote(database)}.{_quote(table['Name'])}"
    specs: list[str] = []
    count = 0

    def flush() -> None:
        if specs:
            spark.sql(f"ALTER TABLE {target} ADD IF NOT EXISTS " + " ".join(specs))
            specs.clear()

    for partition in _pages(client.get_partitions, "Partitions", DatabaseName=database, TableName=table["Name"],
                            ExcludeColumnSchema=True):
        location = (partition.get("StorageDescriptor") or {}).get("Location")
        values = partition["Values"]
        spec = ", ".join(f"{_quote(k)}={_literal(v)}" for k, v in zip(keys, values, strict=True))
        specs.append(f"PARTITION ({spec})" + (f" LOCATION {_literal(to_spark_path(location))}" if location else ""))
        count += 1
        if len(specs) >= _PARTITION_BATCH:
            flush()
    flush()
    return count
