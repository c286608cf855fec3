"""JDBC sources and sinks: PostgreSQL and MySQL/MariaDB, directly or through a catalog connection.

Connection options (Glue's names):

- ``url``, ``user``, ``password``, ``dbtable`` — or ``connectionName`` (with or without
  ``useConnectionProperties``) naming a catalog connection (``ConnectionType`` JDBC) whose
  ``JDBC_CONNECTION_URL``/``USERNAME``/``PASSWORD`` are used; ``database`` replaces the
  database of the URL (as ``from_jdbc_conf`` does).
- parallel reads: ``hashfield`` (any column: rows are split by a hash of its value),
  ``hashexpression`` (an SQL expression giving a whole number: split by its value modulo
  the partition count), ``hashpartitions`` (default 7). Each partition is one query.
- ``sampleQuery`` (read with this SQL instead of the whole table), ``enablePartitioningForSampleQuery``
  (then the query must end in ``where`` or ``and`` and each partition's condition is
  appended), ``sampleSize`` (at most that many rows).
- ``customJdbcDriverClassName`` (the jar must be on Spark's classpath: ``GLUEBALL_EXTRA_JARS``),
  ``bulkSize`` (parallel inserts on write).
- job bookmarks (a read with a ``transformation_ctx`` in a run with bookmarks enabled or
  paused): ``jobBookmarkKeys`` (a list of columns, or a JSON list / comma-separated string;
  default: the table's primary key, read from the database's metadata) and
  ``jobBookmarkKeysSortOrder`` (``asc``, the default: new rows have larger keys; or ``desc``).
  A run reads the rows whose keys compare greater (``desc``: smaller) than the recorded
  ones — several keys compare as one tuple — and no further than the last key found when
  the read starts, which is what it records; rows with a NULL key are only read by a run
  without a recorded state (a NULL never compares greater). With ``sampleQuery`` the keys
  must be given. Keys must be strictly monotonic, as Glue requires.

MySQL URLs (``jdbc:mysql://``, also ``jdbc:mariadb://``) work with MariaDB Connector/J
when MySQL's driver is not on the classpath: Spark's MySQL dialect is kept and the
driver class is ``org.mariadb.jdbc.Driver``, which accepts ``jdbc:mysql:`` URLs.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from glueball.runtime import bookmarks
from glueball.runtime.errors import GlueRuntimeError

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

log = logging.getLogger("glueball.runtime.io")

JDBC_CONNECTION_TYPES = ("postgresql", "mysql")
_DRIVERS = {"postgresql": ("org.postgresql.Driver",),
            "mysql": ("com.mysql.cj.jdbc.Driver", "org.mariadb.jdbc.Driver", "com.mysql.jdbc.Driver")}
_URL_RE = re.compile(r"^jdbc:(?P<sub>[a-z0-9]+):(?P<rest>//(?P<host>[^/?;]*)(?P<path>/[^?;]*)?(?P<tail>.*))$",
                     re.IGNORECASE)


@dataclass
class JdbcTarget:
    """Where to connect: URL (Spark's dialect is chosen by its prefix), credentials, driver, vendor."""

    url: str
    user: str | None
    password: str | None
    driver: str
    vendor: str

    def properties(self) -> dict[str, str]:
        props = {"driver": self.driver}
        if self.user is not None:
            props["user"] = self.user
        if self.password is not None:
            props["password"] = self.password
        return props


def vendor_of(url: str) -> str:
    """``postgresql`` or ``mysql`` (MariaDB URLs count as mysql) from a JDBC URL."""
    match = _URL_RE.match(url)
    sub = match.group("sub").lower() if match else ""
    if sub == "postgresql":
        return "postgresql"
    if sub in ("mysql", "mariadb"):
        return "mysql"
    raise GlueRuntimeError(f"unsupported JDBC URL {url!r}: supported are jdbc:postgresql:, jdbc:mysql:, "
                           "jdbc:mariadb:")


def with_database(url: str, database: str | None) -> str:
    """The URL with its database (path) replaced by ``database``."""
    if not database:
        return url
    match = _URL_RE.match(url)
    if not match:
        raise GlueRuntimeError(f"malformed JDBC URL {url!r}")
    return f"jdbc:{match.group('sub')}://{match.group('host')}/{database}{match.group('tail')}"


def _strip_database(url: str) -> str:
    match = _URL_RE.match(url)
    if not match:
        return url
    return f"jdbc:{match.group('sub')}://{match.group('host')}"


def extract_jdbc_conf(glue_ctx: Any, connection_name: str) -> dict[str, str]:
    """The JDBC settings of a catalog connection, keyed as Glue's ``extract_jdbc_conf`` keys them.

    Returns ``url`` (without the database, as Glue gives it), ``fullUrl`` (as stored),
    ``user``, ``password``, ``vendor``, ``enforceSSL``, ``customJDBCCert``,
    ``customJDBCCertString``, ``skipCustomJDBCCertValidation``.
    """
    answer = glue_ctx.glue_client.get_connection(Name=connection_name, HidePassword=False)
    connection = answer["Connection"]
    props = connection.get("ConnectionProperties") or {}
    full_url = props.get("JDBC_CONNECTION_URL")
    if not full_url:
        raise GlueRuntimeError(f"connection {connection_name!r} ({connection.get('ConnectionType')}) has no "
                               "JDBC_CONNECTION_URL")
    if props.get("SECRET_ID") and not props.get("USERNAME"):
        raise GlueRuntimeError(f"connection {connection_name!r} keeps its credentials in secret "
                               f"{props['SECRET_ID']!r}; secrets are not supported, set USERNAME/PASSWORD")
    return {
        "url": _strip_database(full_url), "fullUrl": full_url, "user": props.get("USERNAME", ""),
        "password": props.get("PASSWORD", ""), "vendor": vendor_of(full_url),
        "enforceSSL": props.get("JDBC_ENFORCE_SSL", "false"),
        "customJDBCCert": props.get("CUSTOM_JDBC_CERT", ""),
        "customJDBCCertString": props.get("CUSTOM_JDBC_CERT_STRING", ""),
        "skipCustomJDBCCertValidation": props.get("SKIP_CUSTOM_JDBC_CERT_VALIDATION", "false"),
    }


@lru_cache(maxsize=16)
def _class_available(class_name: str) -> bool:
    from glueball.runtime.spark import spark_session

    session: Any = spark_session()
    try:
        session._jvm.org.apache.spark.util.Utils.classForName(class_name, True, False)
        return True
    except Exception:  # noqa: BLE001  (py4j wraps ClassNotFoundException)
        return False


def driver_for(vendor: str, custom: str | None = None) -> str:
    """The driver class: ``custom`` if given, else the first of the vendor's drivers on the classpath."""
    if custom:
        return custom
    for name in _DRIVERS[vendor]:
        if _class_available(name):
            return name
    raise GlueRuntimeError(f"no JDBC driver for {vendor} on Spark's classpath (looked for "
                           f"{', '.join(_DRIVERS[vendor])}); install the Debian package "
                           f"{'libpostgresql-jdbc-java' if vendor == 'postgresql' else 'libmariadb-java'}")


def resolve_target(glue_ctx: Any, connection_type: str | None, options: Mapping[str, Any]) -> JdbcTarget:
    """Where ``options`` point: their own ``url``/``user``/``password`` or a catalog connection's."""
    url = options.get("url")
    user = options.get("user")
    password = options.get("password")
    name = options.get("connectionName")
    if name and (url is None or _truthy(options.get("useConnectionProperties"))):
        conf = extract_jdbc_conf(glue_ctx, str(name))
        url = conf["fullUrl"]
        user = user if user is not None else conf["user"]
        password = password if password is not None else conf["password"]
    if not url:
        raise GlueRuntimeError("JDBC options need url (with user, password) or connectionName")
    url = with_database(str(url), options.get("database"))
    vendor = vendor_of(url)
    if connection_type and connection_type in JDBC_CONNECTION_TYPES and connection_type != vendor:
        raise GlueRuntimeError(f"connection_type {connection_type!r} does not match the URL {url!r}")
    if url.lower().startswith("jdbc:mariadb:"):
        # Spark picks its MySQL dialect by the jdbc:mysql: prefix; MariaDB's driver accepts it
        url = "jdbc:mysql:" + url[len("jdbc:mariadb:"):]
    driver = driver_for(vendor, options.get("customJdbcDriverClassName"))
    return JdbcTarget(url, None if user is None else str(user), None if password is None else str(password),
                      driver, vendor)


def _truthy(value: Any) -> bool:
    return value is True or str(value).strip().lower() == "true"


def partition_predicates(vendor: str, hashfield: str | None, hashexpression: str | None,
                         partitions: int) -> list[str]:
    """One WHERE condition per parallel read: disjoint, together covering every row (NULLs in the first)."""
    if partitions < 1:
        raise GlueRuntimeError(f"hashpartitions must be at least 1, got {partitions}")
    if hashexpression:
        value = f"({hashexpression})"
        bucket = f"ABS(MOD({value}, {partitions}))"
    elif hashfield:
        value = hashfield
        if vendor == "postgresql":
            bucket = f"MOD(ABS(hashtext(CAST({hashfield} AS text))::bigint), {partitions})"
        else:
            bucket = f"MOD(CRC32({hashfield}), {partitions})"
    else:
        return []
    out = [f"{bucket} = {i}" for i in range(partitions)]
    out[0] = f"({out[0]} OR {value} IS NULL)"
    return out


def _sample_source(query: str, partitioned: bool) -> str:
    text = query.strip().rstrip(";").strip()
    if partitioned:
        lowered = text.lower()
        for tail in (" where", " and"):
            if lowered.endswith(tail):
                return text[: -len(tail)]
        raise GlueRuntimeError("with enablePartitioningForSampleQuery, sampleQuery must end with 'where' or 'and'")
    return text


def read_jdbc(glue_ctx: Any, connection_type: str | None, options: Mapping[str, Any],
              transformation_ctx: str = "") -> DataFrame:
    """A DataFrame of a JDBC table or query, with Glue's parallel-read, sampling and bookmark options."""
    spark: SparkSession = glue_ctx.spark_session
    target = resolve_target(glue_ctx, connection_type, options)
    sample_query = options.get("sampleQuery")
    dbtable = options.get("dbtable")
    if not sample_query and not dbtable:
        raise GlueRuntimeError("JDBC reads need dbtable or sampleQuery")
    partitions = int(options.get("hashpartitions", 7))
    hashfield = options.get("hashfield")
    hashexpression = options.get("hashexpression")
    partition_sample = _truthy(options.get("enablePartitioningForSampleQuery"))
    sample_size = options.get("sampleSize")
    if sample_query:
        source = _sample_source(str(sample_query), partition_sample)
        if not partition_sample:
            hashfield = hashexpression = None
        if sample_size is not None and not (hashfield or hashexpression):
            source = f"SELECT * FROM ({source}) glueball_sample LIMIT {int(sample_size)}"
        table = f"({source}) glueball_sample"
    else:
        table = str(dbtable)
    bookmark = bookmarks.for_source(transformation_ctx)
    if bookmark is not None:
        table = _bookmarked_table(spark, target, table, options, bookmark, transformation_ctx)
    predicates = partition_predicates(target.vendor, hashfield, hashexpression, partitions)
    props = target.properties()
    if options.get("fetchsize"):
        props["fetchsize"] = str(options["fetchsize"])
    if predicates:
        df = spark.read.jdbc(target.url, table, predicates=predicates, properties=props)
    else:
        df = spark.read.jdbc(target.url, table, properties=props)
    if sample_size is not None and (hashfield or hashexpression or not sample_query):
        df = df.limit(int(sample_size))
    return df


def write_jdbc(glue_ctx: Any, df: DataFrame, connection_type: str | None, options: Mapping[str, Any]) -> None:
    """Append ``df`` to ``dbtable`` (created with Spark's types when missing), as Glue's JDBC sink does."""
    target = resolve_target(glue_ctx, connection_type, options)
    dbtable = options.get("dbtable")
    if not dbtable:
        raise GlueRuntimeError("JDBC writes need dbtable")
    writer = df.write.format("jdbc").mode("append").option("url", target.url).option("dbtable", str(dbtable))
    for key, value in target.properties().items():
        writer = writer.option(key, value)
    if options.get("bulkSize"):
        writer = writer.option("numPartitions", str(int(options["bulkSize"])))
    if options.get("batchsize"):
        writer = writer.option("batchsize", str(int(options["batchsize"])))
    writer.save()


# ---------------------------------------------------------------- job bookmarks

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]*$")
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


def bookmark_keys(options: Mapping[str, Any]) -> list[str] | None:
    """``jobBookmarkKeys`` as a list (None when not given)."""
    value = options.get("jobBookmarkKeys")
    if value is None or value == "" or value == []:
        return None
    if isinstance(value, str):
        text = value.strip()
        keys = json.loads(text) if text.startswith("[") else [k.strip() for k in text.split(",")]
    else:
        keys = list(value)
    for key in keys:
        if not isinstance(key, str) or not _IDENTIFIER.match(key):
            raise GlueRuntimeError(f"jobBookmarkKeys must be column names, got {key!r}")
    return [str(k) for k in keys]


def bookmark_sort_order(options: Mapping[str, Any]) -> str:
    order = str(options.get("jobBookmarkKeysSortOrder") or "asc").strip().lower()
    if order not in ("asc", "desc"):
        raise GlueRuntimeError(f"jobBookmarkKeysSortOrder must be asc or desc, got {order!r}")
    return order


def _connection(spark: SparkSession, target: JdbcTarget) -> Any:
    jvm: Any = spark._jvm
    props = jvm.java.util.Properties()
    for key, value in target.properties().items():
        props.setProperty(key, value)
    jvm.java.lang.Class.forName(target.driver)
    return jvm.java.sql.DriverManager.getConnection(target.url, props)


def primary_key(spark: SparkSession, target: JdbcTarget, dbtable: str) -> list[str]:
    """The primary key columns of ``dbtable`` (``[schema.]table``), in key order, from the JDBC metadata."""
    parts = [p.strip() for p in dbtable.split(".")]
    if not all(parts) or len(parts) > 2:
        raise GlueRuntimeError(f"cannot find the primary key of dbtable {dbtable!r}; give jobBookmarkKeys")

    def name(part: str) -> str:
        if part.startswith(('"', "`")):
            return part[1:-1]
        return part.lower() if target.vendor == "postgresql" else part

    table = name(parts[-1])
    conn = _connection(spark, target)
    try:
        if target.vendor == "postgresql":
            catalog, schema = None, name(parts[0]) if len(parts) == 2 else conn.getSchema()
        else:
            catalog, schema = (name(parts[0]) if len(parts) == 2 else conn.getCatalog()), None
        result = conn.getMetaData().getPrimaryKeys(catalog, schema, table)
        columns: list[tuple[int, str]] = []
        while result.next():
            columns.append((int(result.getShort("KEY_SEQ")), str(result.getString("COLUMN_NAME"))))
        result.close()
    finally:
        conn.close()
    if not columns:
        raise GlueRuntimeError(f"table {dbtable} has no primary key: give jobBookmarkKeys for its job bookmark")
    return [column for _seq, column in sorted(columns)]


def _literal(vendor: str, value: str, numeric: bool) -> str:
    if numeric:
        if not _NUMBER.match(value):
            raise GlueRuntimeError(f"bookmark key value {value!r} is not a number")
        return value
    text = value.replace("'", "''")
    if vendor == "mysql":
        text = text.replace("\\", "\\\\")
    return f"'{text}'"


def _compare(vendor: str, keys: list[str], values: list[str], numeric: list[bool], op: str) -> str:
    literals = [_literal(vendor, v, n) for v, n in zip(values, numeric, strict=True)]
    if len(keys) == 1:
        return f"{keys[0]} {op} {literals[0]}"
    return f"({', '.join(keys)}) {op} ({', '.join(literals)})"


def _key_types(spark: SparkSession, target: JdbcTarget, table: str, keys: list[str]) -> list[bool]:
    """Whether each key column is numeric (then compared with number literals, else with text ones)."""
    from pyspark.sql.types import NumericType

    schema = spark.read.jdbc(target.url, table, properties=target.properties()).schema
    types = {f.name.lower(): f.dataType for f in schema.fields}
    missing = [k for k in keys if k.lower() not in types]
    if missing:
        raise GlueRuntimeError(f"job bookmark keys {', '.join(missing)} are not columns of {table}")
    return [isinstance(types[k.lower()], NumericType) for k in keys]


def _last_keys(spark: SparkSession, target: JdbcTarget, table: str, keys: list[str], order: str,
               condition: str) -> list[str] | None:
    """The keys (as text) of the row furthest along the sort order that satisfies ``condition``."""
    as_text = "text" if target.vendor == "postgresql" else "CHAR"
    columns = ", ".join(f"CAST({k} AS {as_text}) AS glueball_k{i}" for i, k in enumerate(keys))
    direction = "DESC" if order == "asc" else "ASC"
    ordering = ", ".join(f"{k} {direction}" for k in keys)
    not_null = " AND ".join(f"{k} IS NOT NULL" for k in keys)
    query = (f"(SELECT {columns} FROM {table} WHERE {condition} AND {not_null} ORDER BY {ordering} LIMIT 1) "
             "glueball_bound")
    rows = spark.read.jdbc(target.url, query, properties=target.properties()).collect()
    if not rows:
        return None
    return [str(rows[0][f"glueball_k{i}"]) for i in range(len(keys))]


def _bookmarked_table(spark: SparkSession, target: JdbcTarget, table: str, options: Mapping[str, Any],
                      bookmark: bookmarks.JobBookmarks, ctx: str) -> str:
    """``table`` restricted to the rows this run's bookmark covers; records the new state."""
    keys = bookmark_keys(options)
    if keys is None:
        if options.get("sampleQuery"):
            raise GlueRuntimeError("a bookmarked sampleQuery read needs jobBookmarkKeys")
        keys = primary_key(spark, target, str(options.get("dbtable")))
    order = bookmark_sort_order(options)
    after, up_to = (">", "<=") if order == "asc" else ("<", ">=")
    numeric = _key_types(spark, target, table, keys)

    def values_of(state: Mapping[str, Any] | None) -> list[str] | None:
        if not state or state.get("jsonClass") != bookmarks.JDBC_STATE:
            return None
        if [k.lower() for k in state.get("keys", [])] != [k.lower() for k in keys] or state.get("sortOrder") != order:
            raise GlueRuntimeError(f"the job bookmark of {ctx!r} was recorded with keys {state.get('keys')} "
                                   f"{state.get('sortOrder')}, not {keys} {order}: reset the job bookmark")
        return [str(v) for v in state.get("values", [])]

    if bookmark.ranged:
        start = values_of((bookmark.range_from or {}).get(ctx))
        end = values_of((bookmark.range_to or {}).get(ctx))
    else:
        start = values_of(bookmark.state(ctx))
        lower = "1 = 1" if start is None else _compare(target.vendor, keys, start, numeric, after)
        end = _last_keys(spark, target, table, keys, order, lower)
        if end is not None:
            bookmark.record(ctx, {"jsonClass": bookmarks.JDBC_STATE, "keys": keys, "sortOrder": order,
                                  "values": end})
    if end is None:
        log.info("bookmark %s: no new rows in %s", ctx, table)
        return f"(SELECT * FROM {table} WHERE 1 = 0) glueball_bookmark"
    if start is None:  # from the beginning: rows with a NULL key too (they never compare greater later)
        nulls = " OR ".join(f"{k} IS NULL" for k in keys)
        condition = f"({_compare(target.vendor, keys, end, numeric, up_to)}) OR {nulls}"
    else:
        condition = (f"{_compare(target.vendor, keys, start, numeric, after)} AND "
                     f"{_compare(target.vendor, keys, end, numeric, up_to)}")
    log.info("bookmark %s: rows of %s where %s", ctx, table, condition)
    return f"(SELECT * FROM {table} WHERE {condition}) glueball_bookmark"
