"""Iceberg tables through Athena's engine: which statements read or write one, and the Spark SQL they become.

An Athena engine with Iceberg (its driver started with ``--datalake-formats iceberg``: Iceberg's jars, SQL
extensions and ``glue_catalog``, Iceberg's ``SparkCatalog`` over Iceberg's ``GlueCatalog`` pointed at this
glueball) reads and writes the catalog's Iceberg tables (``table_type`` ``ICEBERG``) through Iceberg: every name of
such a table in a statement becomes ``glue_catalog``'s (:func:`route`), decided from the catalog table the server
read for the statement anyway, so a statement of Hive tables only costs nothing more and Spark never reads an
Iceberg table's folder as a Hive table's files. What Athena's Iceberg DDL says becomes Iceberg's Spark DDL:

- ``CREATE TABLE ... PARTITIONED BY (day(ts), bucket(16, id)) LOCATION ... TBLPROPERTIES ('table_type'='ICEBERG')``
  and CTAS ``WITH (table_type = 'ICEBERG', location = ..., partitioning = ARRAY[...])``: ``USING iceberg`` with
  Iceberg's transforms (``days``, ``bucket`` ...), a format version 2 table whose row-level changes are written
  as delete files (merge-on-read, as Athena writes them), Athena's properties kept and those Iceberg reads set
  (:func:`table_properties`); Athena's ``timestamp`` is Iceberg's ``timestamp`` without a zone (Spark's
  ``timestamp_ntz``);
- ``DELETE``, ``UPDATE``, ``MERGE INTO``: Spark's, on Iceberg tables only (a Hive table's rows are not changed, as
  Athena refuses it);
- ``OPTIMIZE ... REWRITE DATA USING BIN_PACK [WHERE ...]`` and ``VACUUM``: Iceberg's ``rewrite_data_files`` and
  ``expire_snapshots`` + ``remove_orphan_files`` procedures, with the table's Athena properties as their options;
- ``"t$snapshots"`` and Athena's other metadata tables: Iceberg's (``glue_catalog.db.t.snapshots``);
- ``DROP TABLE`` of an Iceberg table removes its data too (``PURGE``): Athena's Iceberg tables are managed tables.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

import sqlglot
from sqlglot import exp

from glueball.athena.plans import READ, WRITE, Refusal, escaped

__all__ = ["CATALOG", "NO_ICEBERG", "TABLE_PROPERTIES", "TableType", "altered", "create_table", "ctas_clauses",
           "is_iceberg_ddl", "maintenance", "procedure_calls", "route", "spark_name", "table_properties"]

CATALOG = "glue_catalog"
TableType = Callable[[str, str], str]  # a catalog table's table_type ("ICEBERG", "" for a Hive table or none)
# Athena's metadata tables of an Iceberg table ("t$snapshots"): Iceberg's of the same names
METADATA_TABLES = frozenset({"files", "manifests", "history", "partitions", "snapshots", "refs"})
NO_ICEBERG = ("NOT_SUPPORTED: Iceberg tables need Iceberg's jars, which this glueball installation does not have: "
              "run `glueball jars fetch iceberg` (Maven), and the next Athena engine reads and writes them")
_TRANSFORMS = {"year": "years", "month": "months", "day": "days", "hour": "hours"}
# Athena's Iceberg table properties (CREATE TABLE's TBLPROPERTIES, CTAS's WITH) and the Iceberg properties they set
TABLE_PROPERTIES = frozenset({
    "format", "write_compression", "write_target_data_file_size_bytes", "optimize_rewrite_min_data_file_size_bytes",
    "optimize_rewrite_max_data_file_size_bytes", "optimize_rewrite_data_file_threshold",
    "optimize_rewrite_delete_file_threshold", "vacuum_min_snapshots_to_keep", "vacuum_max_snapshot_age_seconds",
    "vacuum_max_metadata_files_to_keep"})
_FORMATS = frozenset({"parquet", "orc", "avro"})
_ROW_LEVEL = {"format-version": "2", "write.delete.mode": "merge-on-read", "write.update.mode": "merge-on-read",
              "write.merge.mode": "merge-on-read"}
_DEFAULT_TARGET_BYTES = 536870912  # write_target_data_file_size_bytes' default (512 MB)
_DEFAULT_SNAPSHOT_AGE_SECONDS = 432000  # vacuum_max_snapshot_age_seconds' default (5 days)


def route(statement: exp.Expression, table_type: TableType | None, database: str | None) -> bool:
    """Name each Iceberg table of ``statement`` (and each of Athena's metadata tables of one, ``"t$snapshots"``) in
    ``glue_catalog``, in place; whether any was."""
    if table_type is None:
        return False
    ctes = {cte.alias_or_name.lower() for cte in statement.find_all(exp.CTE)}
    routed = False
    for table in list(statement.find_all(exp.Table)):
        if not isinstance(table.this, exp.Identifier) or table.catalog and \
                table.catalog.lower() not in ("awsdatacatalog", "hive"):
            continue
        schema = (table.db or database or "").lower()
        name, _, metadata = table.name.partition("$")
        if not schema or not name or (not table.db and name.lower() in ctes):
            continue
        if table_type(schema, name.lower()) != "ICEBERG":
            continue
        if metadata and metadata.lower() not in METADATA_TABLES:
            raise Refusal(f"TABLE_NOT_FOUND: Table '{schema}.{table.name}' does not exist (an Iceberg table's "
                          f"metadata tables are {', '.join('$' + m for m in sorted(METADATA_TABLES))})")
        this: exp.Expression = exp.to_identifier(name.lower(), quoted=True)  # the catalog's names are lower case
        if metadata:
            this = exp.Dot(this=this, expression=exp.to_identifier(metadata.lower(), quoted=True))
        table.set("this", this)
        table.set("db", exp.to_identifier(schema, quoted=True))
        table.set("catalog", exp.to_identifier(CATALOG))
        routed = True
    return routed


def is_iceberg_ddl(properties: exp.Properties | None) -> bool:
    """Whether a CREATE TABLE's properties make an Iceberg table (``table_type`` = ``ICEBERG``)."""
    return any(isinstance(p, exp.Property) and p.name.lower() == "table_type" and
               str(p.args["value"].name).upper() == "ICEBERG" for p in (properties.expressions if properties else []))


def table_properties(given: dict[str, str], creating: bool = True) -> dict[str, str]:
    """An Iceberg table's properties from Athena's (``table_type`` aside): Athena's as given, the Iceberg properties
    they stand for, and, ``creating`` a table, the row-level settings of Athena's tables (format version 2,
    merge-on-read) and its file format (Parquet unless given). Altering one (``ALTER TABLE ... SET TBLPROPERTIES``),
    only what is given: a ``write_compression`` without its ``format`` sets each format's codec.

    Raises:
        Refusal: a property Athena does not allow, or a value it refuses.
    """
    properties = dict(_ROW_LEVEL) if creating else {}
    for key, value in given.items():
        if key not in TABLE_PROPERTIES:
            raise Refusal(f"INVALID_TABLE_PROPERTY: Unsupported table property key: {key}")
        properties[key] = value
    fmt = given.get("format", "parquet" if creating else "").lower()
    if fmt and fmt not in _FORMATS:
        raise Refusal(f"INVALID_TABLE_PROPERTY: format '{fmt}' is not an Iceberg table's (parquet, orc, avro)")
    if fmt:
        properties["write.format.default"] = fmt
    if "write_compression" in given:
        for each in [fmt] if fmt else sorted(_FORMATS):
            properties[f"write.{each}.compression-codec"] = given["write_compression"].lower()
    for key in sorted(TABLE_PROPERTIES - {"format", "write_compression"}):
        if key in given and not re.fullmatch(r"\d+", given[key].strip()):
            raise Refusal(f"INVALID_TABLE_PROPERTY: {key} must be a non-negative number (got '{given[key]}')")
    if "write_target_data_file_size_bytes" in given:
        properties["write.target-file-size-bytes"] = given["write_target_data_file_size_bytes"]
    if "vacuum_min_snapshots_to_keep" in given:
        properties["history.expire.min-snapshots-to-keep"] = given["vacuum_min_snapshots_to_keep"]
    if "vacuum_max_snapshot_age_seconds" in given:
        properties["history.expire.max-snapshot-age-ms"] = str(int(given["vacuum_max_snapshot_age_seconds"]) * 1000)
    if "vacuum_max_metadata_files_to_keep" in given:
        properties["write.metadata.previous-versions-max"] = given["vacuum_max_metadata_files_to_keep"]
        properties["write.metadata.delete-after-commit.enabled"] = "true"
    return properties


def altered(statement: exp.Alter) -> None:
    """An Iceberg table's ``ALTER TABLE ... SET TBLPROPERTIES`` with Athena's properties checked and the Iceberg
    properties they stand for set too, in place (:func:`table_properties`).

    Raises:
        Refusal: as :func:`table_properties`.
    """
    for action in statement.args.get("actions") or []:
        if not isinstance(action, exp.AlterSet):
            continue
        for properties in action.find_all(exp.Properties):
            given = {str(p.this.name).lower(): str(p.args["value"].name) for p in properties.expressions
                     if isinstance(p, exp.Property)}
            properties.set("expressions", [exp.Property(this=exp.Literal.string(k), value=exp.Literal.string(v))
                                           for k, v in table_properties(given, creating=False).items()])


def _properties_sql(properties: dict[str, str]) -> str:
    return "TBLPROPERTIES (" + ", ".join(f"'{escaped(k)}' = '{escaped(v)}'" for k, v in properties.items()) + ")"


def _transform(node: exp.Expression) -> str:
    """One of Athena's partition transforms (``day(ts)``, ``bucket(16, id)``, a column) in Iceberg's Spark DDL."""
    if isinstance(node, exp.Identifier | exp.Column) or isinstance(node, exp.Literal) and node.is_string:
        return _column(node.name)
    column = next(node.find_all(exp.Column, exp.Identifier), None)
    if column is None:
        raise Refusal(f"NOT_SUPPORTED: partition transform {node.sql(READ)}")
    if isinstance(node, exp.PartitionedByBucket | exp.PartitionByTruncate):
        width = node.expression
        name = "bucket" if isinstance(node, exp.PartitionedByBucket) else "truncate"
        return f"{name}({int(width.name)}, {_column(column.name)})"
    kind = type(node).__name__.lower()
    if kind not in _TRANSFORMS:
        raise Refusal(f"NOT_SUPPORTED: partition transform {node.sql(READ)} (Athena's are year, month, day, hour, "
                      "bucket and truncate)")
    return f"{_TRANSFORMS[kind]}({_column(column.name)})"


def _column(name: str) -> str:
    return "`" + name.lower().replace("`", "``") + "`"  # the catalog's names are lower case, as Athena makes them


def _transforms(partitioned: exp.Expression | None) -> list[str]:
    if partitioned is None:
        return []
    items = partitioned.expressions if isinstance(partitioned, exp.Schema | exp.Tuple) else [partitioned]
    return [_transform(item) for item in items]


def _partitioning(items: list[str]) -> list[str]:
    """CTAS's ``partitioning = ARRAY['day(ts)', 'category']`` as Iceberg's transforms."""
    if not items:
        return []
    ddl = sqlglot.parse_one(f"CREATE TABLE t (c INT) PARTITIONED BY ({', '.join(items)})", read=READ)
    properties = ddl.args.get("properties")
    found = next((p for p in properties.expressions if isinstance(p, exp.PartitionedByProperty)), None) \
        if properties else None
    return _transforms(found.this if found is not None else None)


def _no_zone(column: exp.ColumnDef) -> str:
    """A column's definition with Athena's ``timestamp`` as Iceberg's (no zone: Spark's ``timestamp_ntz``), its
    names quoted (a column named ``date`` or ``order``)."""
    copied = column.copy()
    for identifier in copied.find_all(exp.Identifier):
        identifier.set("quoted", True)
    for kind in list(copied.find_all(exp.DataType)):
        if kind.this == exp.DataType.Type.TIMESTAMP:
            kind.replace(exp.DataType.build("timestamp_ntz"))
    return copied.sql(WRITE)


def create_table(statement: exp.Create, qualified: Callable[[exp.Table], str]) -> str:
    """Athena's Iceberg ``CREATE TABLE`` as Spark's: ``USING iceberg`` in ``glue_catalog``, the table named by
    ``qualified`` (its ``database.table``).

    Raises:
        Refusal: ``EXTERNAL`` (Athena's own error), no columns, no LOCATION, a property Athena does not allow.
    """
    if statement.args.get("kind") == "TABLE" and any(
            isinstance(p, exp.ExternalProperty) for p in statement.args["properties"].expressions):
        raise Refusal("NOT_SUPPORTED: External keyword not supported for table type ICEBERG")
    schema = statement.this
    if not isinstance(schema, exp.Schema) or not isinstance(schema.this, exp.Table):
        raise Refusal("NOT_SUPPORTED: an Iceberg table's CREATE TABLE names its columns")
    target = schema.this
    location, partitioned, given, comment = None, None, {}, ""
    for prop in statement.args["properties"].expressions:
        if isinstance(prop, exp.LocationProperty):
            location = prop.this.name
        elif isinstance(prop, exp.SchemaCommentProperty):  # the table's COMMENT
            comment = f" COMMENT '{escaped(prop.this.name)}'"
        elif isinstance(prop, exp.PartitionedByProperty):
            partitioned = prop.this
        elif isinstance(prop, exp.Property) and prop.name.lower() != "table_type":
            given[prop.name.lower()] = prop.args["value"].name
        elif not isinstance(prop, exp.Property):
            raise Refusal(f"NOT_SUPPORTED: {prop.sql(READ)} in an Iceberg table's CREATE TABLE")
    if not location:
        raise Refusal("NOT_SUPPORTED: an Iceberg table's CREATE TABLE needs a LOCATION")
    columns = ", ".join(_no_zone(c) for c in schema.expressions if isinstance(c, exp.ColumnDef))
    transforms = _transforms(partitioned)
    exists = "IF NOT EXISTS " if statement.args.get("exists") else ""
    partitions = f" PARTITIONED BY ({', '.join(transforms)})" if transforms else ""
    return (f"CREATE TABLE {exists}{spark_name(qualified(target))} ({columns}) USING iceberg{partitions} "
            f"LOCATION '{escaped(location)}'{comment} {_properties_sql(table_properties(given))}")


def spark_name(name: str) -> str:
    """A table's name in Iceberg's catalog from its ``database.table`` (the catalog's names are lower case)."""
    schema, _, table = name.lower().partition(".")
    return f"{CATALOG}.{_column(schema)}.{_column(table)}"


def ctas_clauses(options: dict[str, Any], default_location: str | None) -> tuple[str, str]:
    """An Iceberg CTAS's ``USING iceberg PARTITIONED BY ... LOCATION ... TBLPROPERTIES ...`` and its location, from
    its ``WITH`` properties (``table_type``, ``is_external``, ``location``, ``partitioning`` and Athena's Iceberg
    table properties).

    Raises:
        Refusal: ``is_external = true``, a Hive table's property, a property Athena does not allow.
    """
    given = {k: v for k, v in options.items() if k not in ("table_type", "is_external", "location", "partitioning")}
    if str(options.get("is_external", "false")).lower() == "true":
        raise Refusal("NOT_SUPPORTED: is_external must be false for an Iceberg table (it is a managed table)")
    for hive in ("external_location", "partitioned_by", "bucketed_by", "bucket_count", "field_delimiter"):
        if hive in given:
            raise Refusal(f"INVALID_TABLE_PROPERTY: {hive} is a Hive table's property: an Iceberg table's CTAS "
                          "names location and partitioning")
    location = options.get("location") or default_location
    if not location:
        raise Refusal("CTAS needs location or a query result location to write the Iceberg table to")
    partitioning = options.get("partitioning") or []
    transforms = _partitioning([str(p) for p in partitioning] if isinstance(partitioning, list) else [partitioning])
    clauses = ["USING iceberg"]
    if transforms:
        clauses.append(f"PARTITIONED BY ({', '.join(transforms)})")
    clauses.append(f"LOCATION '{escaped(str(location))}'")
    clauses.append(_properties_sql(table_properties({k: str(v) for k, v in given.items()})))
    return " ".join(clauses), str(location)


_OPTIMIZE = re.compile(r"^\s*OPTIMIZE\s+(?P<table>.+?)\s+REWRITE\s+DATA\s+USING\s+BIN_PACK"
                       r"(?:\s+WHERE\s+(?P<where>.+))?\s*$", re.IGNORECASE | re.DOTALL)
_VACUUM = re.compile(r"^\s*VACUUM\s+(?P<table>\S+)\s*$", re.IGNORECASE | re.DOTALL)


def maintenance(text: str, table_type: TableType | None, database: str | None) -> dict[str, str] | None:
    """``OPTIMIZE ... REWRITE DATA USING BIN_PACK [WHERE ...]`` or ``VACUUM``: what the engine runs it for
    (``Verb``, ``Name``: ``db.table``, ``Where``: the predicate in Spark's SQL), None for another statement.

    Raises:
        Refusal: the form is not Athena's, or the table is not an Iceberg table.
    """
    first = text.split(None, 1)[0].upper() if text.strip() else ""
    if first not in ("OPTIMIZE", "VACUUM"):
        return None
    found = (_OPTIMIZE if first == "OPTIMIZE" else _VACUUM).match(text)
    if found is None:
        form = "OPTIMIZE [db.]table REWRITE DATA USING BIN_PACK [WHERE predicate]" if first == "OPTIMIZE" else \
            "VACUUM [db.]table"
        raise Refusal(f"NOT_SUPPORTED: {first} takes the form {form}")
    table = exp.to_table(found["table"].replace('"', "`"), dialect=WRITE)
    schema = (table.db or database or "").lower()
    if table_type is None or table_type(schema, table.name.lower()) != "ICEBERG":
        raise Refusal(f"NOT_SUPPORTED: {first} is only supported for Iceberg tables ({schema}.{table.name} is not "
                      "one)")
    where = _predicate(found["where"]) if first == "OPTIMIZE" and found["where"] else ""
    return {"Verb": first, "Name": f"{schema}.{table.name}", "Where": where}


def procedure_calls(verb: str, name: str, where: str, properties: dict[str, str], now: float) -> list[str]:
    """Iceberg's procedures that do what Athena's ``OPTIMIZE`` (``rewrite_data_files``, bin-packing files smaller
    or larger than the table's bounds, and those with delete files) or ``VACUUM`` (``expire_snapshots`` and
    ``remove_orphan_files``, older than the table's snapshot age) does, with the options of the table's Athena
    ``properties`` (their defaults where it has none)."""
    quoted = escaped(name)
    if verb == "OPTIMIZE":
        target = int(properties.get("write_target_data_file_size_bytes", _DEFAULT_TARGET_BYTES))
        options = {"min-input-files": properties.get("optimize_rewrite_data_file_threshold", "5"),
                   "delete-file-threshold": properties.get("optimize_rewrite_delete_file_threshold", "2"),
                   "target-file-size-bytes": str(target),
                   "min-file-size-bytes": properties.get("optimize_rewrite_min_data_file_size_bytes",
                                                         str(int(target * 0.75))),
                   "max-file-size-bytes": properties.get("optimize_rewrite_max_data_file_size_bytes",
                                                         str(int(target * 1.8)))}
        mapped = ", ".join(f"'{k}', '{escaped(v)}'" for k, v in options.items())
        predicate = f", where => '{escaped(where)}'" if where else ""
        return [f"CALL {CATALOG}.system.rewrite_data_files(table => '{quoted}', strategy => 'binpack'{predicate}, "
                f"options => map({mapped}))"]
    age = int(properties.get("vacuum_max_snapshot_age_seconds", _DEFAULT_SNAPSHOT_AGE_SECONDS))
    keep = int(properties.get("vacuum_min_snapshots_to_keep", "1"))
    older = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(now - age))
    return [f"CALL {CATALOG}.system.expire_snapshots(table => '{quoted}', older_than => TIMESTAMP '{older}', "
            f"retain_last => {keep})",
            f"CALL {CATALOG}.system.remove_orphan_files(table => '{quoted}', older_than => TIMESTAMP '{older}')"]


def _predicate(text: str) -> str:
    """OPTIMIZE's WHERE predicate (Trino's SQL) as Spark's, which Iceberg's procedure parses."""
    return sqlglot.parse_one(f"SELECT 1 WHERE {text}", read=READ).args["where"].this.sql(WRITE)
