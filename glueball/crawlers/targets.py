"""What a crawler reads: object-store listings with exclusions, and JDBC table metadata.

S3 include paths are listed in the installation's object store (:mod:`glueball.objects.access`: its folder
or a remote S3-compatible store).
Exclude patterns are Glue's glob dialect, matched against the path *relative to the include path*:
``*`` stays inside one folder, ``**`` crosses folders, ``?`` is one character, ``[abc]``/``[!abc]``
are sets, ``{a,b}`` alternatives and ``\\`` escapes. A folder whose path matches is not descended
into (so ``**/_temporary/**`` prunes every ``_temporary`` tree). Hidden objects (names starting with
``_`` or ``.``, such as ``_SUCCESS``, and ``*_$folder$`` markers) are skipped, as Glue does.

JDBC include paths are ``database/schema/table`` (``database/table`` for MySQL/MariaDB), where ``%``
stands for any run of characters; column metadata comes from ``information_schema``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from glueball.globs import glob_to_regex
from glueball.objects.access import Objects, process_objects
from glueball.objects.locations import LocationError, parse_s3


class TargetError(Exception):
    """A crawler target that cannot be read (bad path, unreachable database, unsupported URL)."""


# ---------------------------------------------------------------------------------------------- globs


class Exclusions:
    """A compiled list of exclude globs, matched against paths relative to an include path."""

    def __init__(self, patterns: Iterable[str] | None) -> None:
        self.patterns = [p for p in (patterns or []) if p]
        self._regexes = [re.compile(glob_to_regex(p.lstrip("/")), re.DOTALL) for p in self.patterns]

    def __bool__(self) -> bool:
        return bool(self._regexes)

    def excludes(self, relative: str) -> bool:
        """Whether ``relative`` (no leading slash) matches any pattern."""
        return any(regex.fullmatch(relative) for regex in self._regexes)

    def excludes_folder(self, relative: str) -> bool:
        """Whether a whole folder is excluded: its path, or its path with a trailing ``/``, matches."""
        return self.excludes(relative) or self.excludes(relative + "/")


def is_hidden(name: str) -> bool:
    """Objects Glue crawlers skip: ``_SUCCESS``, ``_metadata``, ``.crc`` dot-files, ``*_$folder$`` markers."""
    return name.startswith(("_", ".")) or name.endswith("_$folder$")


# -------------------------------------------------------------------------------------------- S3 lists


def split_s3_uri(uri: str) -> tuple[str, str]:
    """``s3://bucket/a/b/`` → ``("bucket", "a/b")``.

    Raises:
        TargetError: not an s3:// URI, or one that would leave the object store (``s3://../x``).
    """
    try:
        location = parse_s3(uri)
    except LocationError as exc:
        raise TargetError(f"S3 target path {uri!r} is refused: {exc}") from exc
    return location.bucket, location.key


@dataclass(frozen=True)
class ObjectEntry:
    """One data object found under an include path."""

    relative: str   # path relative to the include path ("" parts joined by "/")
    uri: str        # s3://bucket/key
    size: int

    @property
    def name(self) -> str:
        return self.relative.rsplit("/", 1)[-1]


@dataclass
class FolderListing:
    """The data objects directly inside one folder (``relative`` is "" for the include path itself)."""

    relative: str
    files: list[ObjectEntry] = field(default_factory=list)


@dataclass
class S3Listing:
    """An include path's folders with data, and what was left out."""

    include_uri: str
    bucket: str
    prefix: str
    folders: list[FolderListing]
    single_file: bool = False
    excluded: int = 0
    hidden: int = 0
    skipped_known: int = 0


def list_s3_target(include_uri: str, exclusions: Exclusions, known_folders: frozenset[str] | set[str] = frozenset(),
                   should_stop: Callable[[], bool] | None = None, objects: Objects | None = None) -> S3Listing:
    """List an S3 include path on the object store, as a crawler does before classifying.

    Args:
        include_uri: the target's ``Path`` (a folder prefix or a single object).
        exclusions: the target's exclude globs.
        known_folders: folders (relative paths) not to descend into: the partitions an incremental
            crawl (``CRAWL_NEW_FOLDERS_ONLY``) already knows.
        should_stop: polled between folders; listing ends early when it turns true.
        objects: the installation's object store (default: this process's, :mod:`glueball.objects.access`).

    Returns:
        The folders holding data objects, in path order.
    """
    bucket, prefix = split_s3_uri(include_uri)
    objects = objects or process_objects()
    listing = S3Listing(include_uri, bucket, prefix, [])
    base_uri = f"s3://{bucket}/{prefix}".rstrip("/")
    single = objects.stat(base_uri) if prefix else None
    if single is not None:
        listing.single_file = True
        listing.folders.append(FolderListing("", [ObjectEntry(single.name, base_uri, single.size)]))
        return listing
    stack: list[str] = [""]
    while stack:
        if should_stop is not None and should_stop():
            break
        relative = stack.pop()
        files: list[ObjectEntry] = []
        subfolders: list[str] = []
        try:
            entries = objects.listdir(f"{base_uri}/{relative}" if relative else base_uri + "/")
        except OSError:
            continue
        for name in entries.folders:
            child = f"{relative}/{name}" if relative else name
            if child in known_folders:
                listing.skipped_known += 1
            elif exclusions and exclusions.excludes_folder(child):
                listing.excluded += 1
            else:
                subfolders.append(child)
        for entry in entries.files:
            child = f"{relative}/{entry.name}" if relative else entry.name
            if is_hidden(entry.name):
                listing.hidden += 1
            elif exclusions and exclusions.excludes(child):
                listing.excluded += 1
            else:
                files.append(ObjectEntry(child, f"{base_uri}/{child}", entry.size))
        if files:
            listing.folders.append(FolderListing(relative, files))
        stack.extend(reversed(subfolders))
    listing.folders.sort(key=lambda f: f.relative)
    return listing


# ------------------------------------------------------------------------------------------------ JDBC


@dataclass(frozen=True)
class JdbcUrl:
    """The parts of a ``jdbc:postgresql://`` or ``jdbc:mysql://`` (``jdbc:mariadb://``) URL."""

    engine: str     # "postgresql" | "mysql"
    host: str
    port: int
    database: str


def parse_jdbc_url(url: str) -> JdbcUrl:
    """Parse a connection's ``JDBC_CONNECTION_URL``.

    Raises:
        TargetError: for an engine other than PostgreSQL and MySQL/MariaDB.
    """
    if not url.startswith("jdbc:"):
        raise TargetError(f"JDBC_CONNECTION_URL {url!r} does not start with jdbc:")
    parts = urlsplit(url[len("jdbc:"):])
    scheme = parts.scheme.lower()
    if scheme in ("postgresql", "postgres"):
        engine, default_port = "postgresql", 5432
    elif scheme in ("mysql", "mariadb"):
        engine, default_port = "mysql", 3306
    else:
        raise TargetError(f"JDBC crawls support PostgreSQL and MySQL/MariaDB URLs, not {scheme or url!r}")
    return JdbcUrl(engine, parts.hostname or "localhost", parts.port or default_port, parts.path.strip("/"))


@dataclass
class JdbcTable:
    """One table (or view) found by a JDBC include path, with Hive-typed columns."""

    database: str
    schema: str | None
    name: str
    columns: list[tuple[str, str]]

    @property
    def path(self) -> str:
        return "/".join(p for p in (self.database, self.schema, self.name) if p is not None)


def _like(pattern: str) -> re.Pattern[str]:
    """A JDBC include path component: ``%`` is any run of characters, the rest is literal."""
    return re.compile(".*".join(re.escape(piece) for piece in pattern.split("%")), re.DOTALL)


_PG_TYPES = {
    "smallint": "smallint", "integer": "int", "bigint": "bigint", "real": "float", "double precision": "double",
    "boolean": "boolean", "date": "date", "bytea": "binary", "money": "double",
}
_MYSQL_TYPES = {
    "tinyint": "tinyint", "smallint": "smallint", "mediumint": "int", "int": "int", "integer": "int",
    "bigint": "bigint", "float": "float", "double": "double", "real": "double", "date": "date",
    "datetime": "timestamp", "timestamp": "timestamp", "bit": "boolean", "boolean": "boolean", "bool": "boolean",
    "binary": "binary", "varbinary": "binary", "blob": "binary", "tinyblob": "binary", "mediumblob": "binary",
    "longblob": "binary", "year": "int",
}


def hive_type(engine: str, data_type: str, precision: Any = None, scale: Any = None) -> str:
    """The Hive type a Glue JDBC crawler records for a database column type."""
    kind = data_type.lower()
    if kind in ("numeric", "decimal"):
        if precision is None:
            return "decimal(38,18)" if engine == "postgresql" else "decimal(10,0)"
        return f"decimal({int(precision)},{int(scale or 0)})"
    if engine == "postgresql":
        if kind.startswith("timestamp"):
            return "timestamp"
        return _PG_TYPES.get(kind, "string")
    return _MYSQL_TYPES.get(kind, "string")


def _connect(url: JdbcUrl, user: str, password: str, database: str) -> Any:
    try:
        if url.engine == "postgresql":
            import psycopg

            return psycopg.connect(host=url.host, port=url.port, dbname=database, user=user, password=password,
                                   connect_timeout=10)
        import pymysql

        return pymysql.connect(host=url.host, port=url.port, user=user, password=password,
                               database=database or None, connect_timeout=10)
    except Exception as exc:  # the driver's own error types differ; the crawl reports the cause
        raise TargetError(f"cannot connect to {url.engine} at {url.host}:{url.port}/{database}: {exc}") from exc


def list_jdbc_tables(properties: dict[str, str], include_path: str, exclusions: Exclusions) -> tuple[JdbcUrl,
                                                                                                     list[JdbcTable]]:
    """The tables an include path selects, with their columns from ``information_schema``.

    Args:
        properties: the catalog connection's properties (``JDBC_CONNECTION_URL``, ``USERNAME``, ``PASSWORD``).
        include_path: ``database/schema/table`` for PostgreSQL, ``database/table`` for MySQL/MariaDB;
            ``%`` matches any run of characters (``test/public/orders%``, ``test/%``).
        exclusions: globs matched against the table's full path (``db/schema/table``), against the
            path below the include path's fixed part, and against the bare table name.

    Returns:
        The parsed URL and the selected tables in name order.
    """
    url = parse_jdbc_url(properties.get("JDBC_CONNECTION_URL", ""))
    parts = include_path.strip("/").split("/")
    if not parts or not parts[0]:
        raise TargetError("JDBC target Path is empty: use database/schema/table or database/%")
    database = parts[0] if parts[0] != "%" else url.database
    if url.engine == "postgresql":
        schema_pattern = parts[1] if len(parts) > 1 else "%"
        table_pattern = parts[2] if len(parts) > 2 else "%"
    else:
        schema_pattern = ""
        table_pattern = parts[-1] if len(parts) > 1 else "%"
    fixed = 0
    for part in parts:
        if "%" in part:
            break
        fixed += 1
    user = properties.get("USERNAME", "")
    password = properties.get("PASSWORD", "")
    conn = _connect(url, user, password, database if url.engine == "postgresql" else url.database)
    try:
        cur = conn.cursor()
        if url.engine == "postgresql":
            cur.execute(
                "SELECT c.table_schema, c.table_name, c.column_name, c.data_type, c.numeric_precision,"
                " c.numeric_scale FROM information_schema.columns c JOIN information_schema.tables t"
                " ON t.table_schema = c.table_schema AND t.table_name = c.table_name"
                " WHERE c.table_schema NOT IN ('pg_catalog', 'information_schema')"
                " ORDER BY c.table_schema, c.table_name, c.ordinal_position")
        else:
            cur.execute(
                "SELECT c.table_schema, c.table_name, c.column_name, c.data_type, c.numeric_precision,"
                " c.numeric_scale FROM information_schema.columns c WHERE c.table_schema = %s"
                " ORDER BY c.table_schema, c.table_name, c.ordinal_position", (database,))
        rows = cur.fetchall()
    except Exception as exc:
        raise TargetError(f"cannot read information_schema of {url.engine} database {database}: {exc}") from exc
    finally:
        conn.close()
    schema_re, table_re = _like(schema_pattern), _like(table_pattern)
    tables: dict[tuple[str, str], JdbcTable] = {}
    for schema, table, column, data_type, precision, scale in rows:
        if url.engine == "postgresql" and not schema_re.fullmatch(schema):
            continue
        if not table_re.fullmatch(table):
            continue
        key = (schema, table)
        if key not in tables:
            tables[key] = JdbcTable(database, schema if url.engine == "postgresql" else None, table, [])
        tables[key].columns.append((column.lower(), hive_type(url.engine, data_type, precision, scale)))
    selected = []
    for table in sorted(tables.values(), key=lambda t: t.path):
        below = "/".join(table.path.split("/")[fixed:])
        if exclusions and any(exclusions.excludes(p) for p in (table.path, below, table.name) if p):
            continue
        selected.append(table)
    return url, selected
