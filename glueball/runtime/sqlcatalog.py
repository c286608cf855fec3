"""Catalog tables visible to Spark SQL: ``spark.sql("SELECT ... FROM raw_data.orders")``.

Catalog tables become Spark external tables (``CREATE TABLE ... USING fmt LOCATION ...``,
``ALTER TABLE ... ADD PARTITION ... LOCATION ...``), so Spark prunes partitions through those
catalog entries: a query filtering on partition keys lists only the matching partitions'
locations.

They are registered **on first use**, not when the GlueContext starts: constructing a GlueContext
costs the same over an empty catalog and over one of thousands of tables, and a database name
Spark would reject breaks only a query on it. While a GlueContext exists for a Spark session,
``spark.sql(text)``, ``spark.table(name)`` and ``spark.read.table(name)`` on that session first
ask Spark's own parser which tables the statement names (the unresolved relations of its parsed
plan, subqueries and CTE bodies included; CTE names are not tables) and register those the Data
Catalog has and Spark does not; then the statement runs unchanged. Spark's errors stay Spark's
(a statement it cannot parse, a table nobody has). Spark's session catalog accepts only letters,
digits and ``_`` in database and table names: a statement naming a catalog table such as
```sales-eu`.orders`` fails with a ``GlueRuntimeError`` saying so (read such tables with
``create_dynamic_frame.from_catalog``), and such names never get in the way of other tables.

The hook wraps those three methods of pyspark's classes once per process and does nothing for
sessions without a GlueContext: pyspark offers no catalog-lookup callback to Python, and a JVM
catalog plugin would need a jar glueball does not ship.

A table is read from the catalog when first named; ``GlueContext.refresh_sql_catalog()`` mirrors
every table at once and re-reads the definitions of tables already registered (after a crawler or
``UpdateTable`` changed them). ``GLUEBALL_SQL_CATALOG=off`` turns the lazy registration off.
"""

from __future__ import annotations

import logging
import re
import threading
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from glueball.objects.locations import to_spark_path
from glueball.runtime.errors import GlueRuntimeError

log = logging.getLogger("glueball.runtime.sql")
_PARTITION_BATCH = 200


def _quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _literal(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _pages(client: Any, operation: str, member: str, **params: Any) -> Iterator[dict[str, Any]]:
    for page in client.get_paginator(operation).paginate(**params):
        yield from page.get(member, [])


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


def _register(spark: Any, client: Any, database: str, table: dict[str, Any], ddl: str) -> int:
    """(Re)create one catalog table in Spark with its partitions; the number of partitions."""
    spark.sql(f"DROP TABLE IF EXISTS {_quote(database)}.{_quote(table['Name'])}")
    spark.sql(ddl)
    return _mirror_partitions(spark, client, database, table) if table.get("PartitionKeys") else 0


def mirror_catalog(spark: Any, client: Any) -> MirrorReport:
    """Mirror every database, table and partition of the catalog into ``spark``'s session catalog."""
    _registering.active = True  # glueball's own DDL: no statement of it needs registering
    try:
        return _mirror(spark, client)
    finally:
        _registering.active = False


def _mirror(spark: Any, client: Any) -> MirrorReport:
    report = MirrorReport()
    for database in _pages(client, "get_databases", "DatabaseList"):
        db = database["Name"]
        try:
            spark.sql(f"CREATE DATABASE IF NOT EXISTS {_quote(db)}")
        except Exception as exc:  # a database name Spark rejects must not stop the others
            report.skipped[db] = str(exc).splitlines()[0]
            continue
        for table in _pages(client, "get_tables", "TableList", DatabaseName=db):
            qualified = f"{db}.{table['Name']}"
            ddl = table_ddl(db, table)
            if ddl is None:
                report.skipped[qualified] = "no location or a format Spark SQL cannot read natively"
                continue
            try:
                report.partitions += _register(spark, client, db, table, ddl)
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

    for partition in _pages(client, "get_partitions", "Partitions", DatabaseName=database, TableName=table["Name"],
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


# ---------------------------------------------------------------- registration on first use

_SPARK_NAME = re.compile(r"\w+")  # what Spark's session catalog accepts as a database or table name
_RELATION = re.compile(r"'UnresolvedRelation \[(.*?)\], \[")
_CTE = re.compile(r"^[\s:|+-]*'?(?:UnresolvedWith|CTE) \[(.*?)\]", re.MULTILINE)


def named_tables(spark: Any, sql_text: str) -> list[list[str]] | None:
    """The tables a statement names (multi-part names as Spark parsed them), or None if Spark cannot parse it.

    CTE names are left out; relations inside subqueries and CTE bodies are in.
    """
    try:
        plan = spark._jsparkSession.sessionState().sqlParser().parsePlan(sql_text)
        tree = str(plan.treeString())
    except Exception:  # a ParseException: Spark raises it again, as its own, when the statement runs
        return None
    ctes = {name.strip().lower() for found in _CTE.findall(tree) for name in found.split(",")}
    names = []
    for found in _RELATION.findall(tree):
        parts = [p.strip() for p in found.split(",")]
        if len(parts) == 1 and parts[0].lower() in ctes:
            continue
        names.append(parts)
    return names


def parse_table_name(spark: Any, name: str) -> list[str] | None:
    """``db.t`` / ```my-db`.t`` as Spark reads a table name, or None if it is not one."""
    try:
        return [str(p) for p in spark._jsparkSession.sessionState().sqlParser().parseMultipartIdentifier(name)]
    except Exception:
        return None


class LazyCatalog:
    """The catalog tables registered in one Spark session, registering more as statements name them."""

    def __init__(self, spark: Any, client: Callable[[], Any]) -> None:
        self.spark = spark
        self._client = client
        self._registered: set[tuple[str, str]] = set()   # read from the catalog since the last forget()
        self._ours: set[tuple[str, str]] = set()         # every Spark table glueball made in this session
        self._lock = threading.Lock()

    def forget(self) -> None:
        """Re-read each catalog table when it is next named (a new GlueContext, a full mirror)."""
        with self._lock:
            self._registered.clear()

    def mirrored(self, report: MirrorReport) -> None:
        """Tables a full mirror just (re)created: fresh, and glueball's to replace later."""
        with self._lock:
            for qualified in report.tables:
                database, _, table = qualified.partition(".")
                key = (database.lower(), table.lower())
                self._registered.add(key)
                self._ours.add(key)

    def prepare_sql(self, sql_text: str) -> None:
        for parts in named_tables(self.spark, sql_text) or []:
            self.ensure(parts)

    def prepare_table(self, name: str) -> None:
        parts = parse_table_name(self.spark, name)
        if parts:
            self.ensure(parts)

    def ensure(self, parts: list[str]) -> None:
        """Register the catalog table ``parts`` names, unless it is registered or Spark has its own of that name."""
        if len(parts) == 1:
            database, table = str(self.spark.catalog.currentDatabase()), parts[0]
        elif len(parts) == 2:
            database, table = parts
        else:  # catalog.db.table: only Spark's own session catalog is glueball's
            if parts[0].lower() != "spark_catalog":
                return
            database, table = parts[1], parts[2]
        key = (database.lower(), table.lower())
        with self._lock:
            if key in self._registered:
                return
            if key not in self._ours:
                try:
                    if self.spark._jsparkSession.catalog().tableExists(database, table):
                        return  # the script's own table, or a temporary view: not ours to replace
                except Exception:
                    pass  # a database name Spark rejects: the catalog lookup below decides
            self._register(database, table, key)

    def _register(self, database: str, table: str, key: tuple[str, str]) -> None:
        _registering.active = True
        try:
            self._register_now(database, table, key)
        finally:
            _registering.active = False

    def _register_now(self, database: str, table: str, key: tuple[str, str]) -> None:
        from botocore.exceptions import ClientError

        client = self._client()
        try:
            definition = client.get_table(DatabaseName=database, Name=table)["Table"]
        except ClientError as err:
            if err.response["Error"]["Code"] in ("EntityNotFoundException", "ValidationException",
                                                 "InvalidInputException"):
                return  # not a catalog table: Spark reports it as it would
            raise
        ddl = table_ddl(database, definition)
        if ddl is None:
            log.info("catalog table %s.%s is not visible to Spark SQL: no location or a format Spark SQL "
                     "cannot read natively", database, table)
            return
        if not _SPARK_NAME.fullmatch(database) or not _SPARK_NAME.fullmatch(table):
            raise GlueRuntimeError(
                f"Data Catalog table {database}.{table} cannot be queried with Spark SQL: Spark's session "
                "catalog accepts only letters, digits and _ in database and table names. Read it with "
                "glueContext.create_dynamic_frame.from_catalog(database=..., table_name=...) or "
                "create_data_frame.from_catalog instead")
        try:
            self.spark.sql(f"CREATE DATABASE IF NOT EXISTS {_quote(database)}")
            partitions = _register(self.spark, client, database, definition, ddl)
        except Exception as exc:
            log.info("catalog table %s.%s is not visible to Spark SQL: %s", database, table,
                     str(exc).splitlines()[0])
            return
        self._registered.add(key)
        self._ours.add(key)
        log.debug("registered catalog table %s.%s with %d partitions", database, table, partitions)


_catalogs: weakref.WeakValueDictionary[int, LazyCatalog] = weakref.WeakValueDictionary()
_registering = threading.local()  # set while glueball's own DDL runs: it needs no registration
_installed = False
_install_lock = threading.Lock()


def attach(spark: Any, client: Callable[[], Any]) -> LazyCatalog:
    """Register catalog tables in ``spark`` on first use from now on; the session's LazyCatalog.

    The caller keeps the returned object alive (the GlueContext does): when it is gone, the
    session's statements run without the hook.
    """
    key = _session_key(spark)
    found = _catalogs.get(key)
    if found is None:
        found = LazyCatalog(spark, client)
        _catalogs[key] = found
    else:
        found.forget()  # a new GlueContext sees the catalog as it is now
    _install()
    return found


def _session_key(spark: Any) -> int:
    """The JVM session's identity: pyspark wraps one JVM session in several Python objects."""
    key = spark.__dict__.get("_glueball_session_key")
    if key is None:
        key = spark.__dict__["_glueball_session_key"] = int(spark._jsparkSession.hashCode())
    return int(key)


def _lazy_catalog_of(spark: Any) -> LazyCatalog | None:
    if getattr(_registering, "active", False) or not _catalogs:
        return None
    try:
        return _catalogs.get(_session_key(spark))
    except AttributeError:
        return None


def _install() -> None:
    global _installed
    with _install_lock:
        if _installed:
            return
        from pyspark.sql import DataFrameReader, SparkSession

        original_sql, original_table = SparkSession.sql, SparkSession.table
        original_read_table = DataFrameReader.table

        def sql(self: Any, sqlQuery: str, *args: Any, **kwargs: Any) -> Any:  # noqa: N803
            catalog = _lazy_catalog_of(self)
            if catalog is not None and isinstance(sqlQuery, str):
                catalog.prepare_sql(sqlQuery)
            return original_sql(self, sqlQuery, *args, **kwargs)

        def table(self: Any, tableName: str) -> Any:  # noqa: N803
            catalog = _lazy_catalog_of(self)
            if catalog is not None:
                catalog.prepare_table(tableName)
            return original_table(self, tableName)

        def read_table(self: Any, tableName: str) -> Any:  # noqa: N803
            catalog = _lazy_catalog_of(self._spark)
            if catalog is not None:
                catalog.prepare_table(tableName)
            return original_read_table(self, tableName)

        SparkSession.sql = sql  # type: ignore[method-assign]
        SparkSession.table = table  # type: ignore[method-assign]
        DataFrameReader.table = read_table  # type: ignore[method-assign]
        _installed = True
