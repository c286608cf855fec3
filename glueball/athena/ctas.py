"""CTAS as Spark runs it: a Hive table's (``format``, ``partitioned_by``, ``external_location`` ...) or an Iceberg
table's (``table_type = 'ICEBERG'``, :mod:`glueball.athena.iceberg`), and the ``WITH (...)`` properties CTAS and
UNLOAD share (formats, compression, delimiters)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlglot import exp

from glueball.athena import iceberg
from glueball.athena.models import StatementType
from glueball.athena.plans import READ, Plan, Refusal, escaped, quoted_name, spark_sql, table_name, tables_of

if TYPE_CHECKING:
    from glueball.athena.plan import Catalog

__all__ = ["FORMATS", "UNLOAD_FORMATS", "avro_options", "ctas", "properties", "write_options"]

# CTAS/UNLOAD properties Athena documents and what glueball does with each
FORMATS = {"PARQUET": "parquet", "ORC": "orc", "JSON": "json", "TEXTFILE": "csv", "CSV": "csv"}
# UNLOAD writes Avro too: with fastavro, as a Glue job's Avro sink (Spark's avro module is no jar the engine has)
UNLOAD_FORMATS = {**FORMATS, "AVRO": "avro"}
# Athena's compression names -> Avro's codecs (an Avro file compresses its blocks: GZIP is their deflate); fastavro's
# snappy and zstandard codecs need libraries glueball does not install (cramjam, backports.zstd)
_AVRO_CODECS = {"none": "null", "uncompressed": "null", "gzip": "deflate", "deflate": "deflate", "bzip2": "bzip2",
                "xz": "xz"}
_TABLE_PROPERTIES = frozenset({"format", "external_location", "location", "partitioned_by", "write_compression",
                               "compression", "parquet_compression", "orc_compression", "field_delimiter",
                               "table_type", "bucketed_by", "bucket_count", "is_external"})
# an Iceberg table's CTAS properties besides those (glueball.athena.iceberg)
_ICEBERG_PROPERTIES = (iceberg.TABLE_PROPERTIES | {"partitioning"}) - _TABLE_PROPERTIES


_WITH_DATA = " with data"  # a CTAS's WITH [NO] DATA among its properties (no property has a space in its name)


def ctas(statement: exp.Create, default_location: str | None, catalog: Catalog) -> Plan:
    target = statement.this
    if isinstance(target, exp.Schema):
        raise Refusal("NOT_SUPPORTED: CREATE TABLE AS SELECT takes no column list: name the columns in the SELECT")
    assert isinstance(target, exp.Table)
    options = properties(statement)
    if str(options.get("table_type", "HIVE")).upper() == "ICEBERG":
        return _iceberg_ctas(statement, target, options, default_location, catalog)
    if str(options.get("table_type", "HIVE")).upper() != "HIVE":
        raise Refusal(f"INVALID_TABLE_PROPERTY: table_type '{options['table_type']}' (Athena's are HIVE and ICEBERG)")
    iceberg_only = sorted(set(options) & _ICEBERG_PROPERTIES)
    if iceberg_only:
        raise Refusal(f"INVALID_TABLE_PROPERTY: '{iceberg_only[0]}' is an Iceberg table's property (table_type = "
                      "'ICEBERG')")
    if str(options.get("is_external", "true")).lower() == "false":
        raise Refusal("NOT_SUPPORTED: is_external = false applies to Iceberg tables: a Hive table's CTAS makes an "
                      "external table")
    if options.get("location"):
        raise Refusal("INVALID_TABLE_PROPERTY: 'location' is an Iceberg table's property: a Hive table's CTAS names "
                      "external_location")
    if options.get("bucketed_by") or options.get("bucket_count"):
        raise Refusal("NOT_SUPPORTED: bucketed_by/bucket_count: glueball's engine does not write bucketed tables")
    fmt = str(options.get("format", "PARQUET")).upper()
    if fmt not in FORMATS:
        raise Refusal(f"NOT_SUPPORTED: format '{fmt}' (supported: {', '.join(sorted(FORMATS))})")
    location = options.get("external_location") or default_location
    if not location:
        raise Refusal("CTAS needs external_location or a query result location to write the table to")
    partitions = [str(p).lower() for p in options.get("partitioned_by") or []]
    query = statement.expression
    assert query is not None
    columns = _ctas_columns(query)
    if partitions and columns[-len(partitions):] != partitions:
        raise Refusal(f"Partition columns {partitions} must be the last columns of the SELECT, in that order "
                      f"(got {columns})")
    writer: list[str] = [f"USING {FORMATS[fmt]}"]
    written = write_options(fmt, options)
    if written:
        writer.append("OPTIONS (" + ", ".join(f"'{k}' = '{v}'" for k, v in written.items()) + ")")
    if partitions:
        writer.append("PARTITIONED BY (" + ", ".join(f"`{p}`" for p in partitions) + ")")
    writer.append(f"LOCATION '{escaped(str(location))}'")
    tables = tables_of(query)
    selected = _selected(query, options, catalog)
    sql = f"CREATE TABLE {_exists(statement)}{quoted_name(target)} {' '.join(writer)} AS {selected}"
    return Plan("ctas", [sql], StatementType.DDL, "CREATE_TABLE_AS_SELECT",
                table={"Name": table_name(target), "Location": str(location), "Format": fmt, "Select": selected},
                tables_read=tables)


def _selected(query: exp.Expression, options: dict[str, Any], catalog: Catalog) -> str:
    """A CTAS's SELECT in Spark's SQL; with ``WITH NO DATA``, the table and its columns, no rows."""
    selected = spark_sql(catalog.kept(query))
    return f"SELECT * FROM ({selected}) AS `_no_data` LIMIT 0" if options.get(_WITH_DATA) is False else selected


def _exists(statement: exp.Create) -> str:
    return "IF NOT EXISTS " if statement.args.get("exists") else ""


def _ctas_columns(query: exp.Expression) -> list[str]:
    """A CTAS's columns: each named, once, in lower case (the table's columns are, as Athena makes them: ``SELECT 1
    AS ID`` makes a column ``id``); the query's own projections named so.

    Raises:
        Refusal: a column of no name, or a name twice (Athena's words).
    """
    for position, projection in enumerate(query.selects if isinstance(query, exp.Query) else [], start=1):
        if not isinstance(projection, exp.Alias | exp.Column | exp.Star):  # Athena names no column itself here
            raise Refusal(f"Column name not specified at position {position}")
        if isinstance(projection, exp.Alias) and projection.alias != projection.alias.lower():
            projection.set("alias", exp.to_identifier(projection.alias.lower(), quoted=True))
        elif isinstance(projection, exp.Column) and projection.name != projection.name.lower():
            projection.replace(exp.alias_(projection.copy(), projection.name.lower(), quoted=True))
    columns = [e.alias_or_name for e in query.selects] if isinstance(query, exp.Query) else []
    seen: set[str] = set()
    for column in columns:
        if column.lower() in seen:
            raise Refusal(f"Column name '{column.lower()}' specified more than once")
        seen.add(column.lower())
    return columns


def _iceberg_ctas(statement: exp.Create, target: exp.Table, options: dict[str, Any], default_location: str | None,
                  catalog: Catalog) -> Plan:
    """A CTAS of an Iceberg table (``table_type = 'ICEBERG'``): Spark's ``CREATE TABLE ... USING iceberg AS SELECT``
    in Iceberg's catalog; the engine writes its timestamps as Iceberg's ``timestamp`` (no zone), as Athena does."""
    if not catalog.iceberg:
        raise Refusal(iceberg.NO_ICEBERG)
    query = statement.expression
    assert query is not None
    _ctas_columns(query)
    clauses, location = iceberg.ctas_clauses(options, default_location)
    selected = _selected(query, options, catalog)
    name = catalog.qualified(target)
    sql = f"CREATE TABLE {_exists(statement)}{iceberg.spark_name(name)} {clauses} AS {{select}}"
    return Plan("ctas", [sql], StatementType.DDL, "CREATE_TABLE_AS_SELECT",
                table={"Name": name, "Location": location, "Format": "ICEBERG",
                       "Select": selected, "Iceberg": True},
                tables_read=tables_of(query))


def properties(statement: exp.Expression, tables: bool = True) -> dict[str, Any]:
    """A CTAS's (``tables``) or UNLOAD's ``WITH (...)`` properties as plain values (``partitioned_by`` a list of
    names).

    Raises:
        Refusal: a property Athena does not know.
    """
    found: dict[str, Any] = {}
    properties = statement.args.get("properties")
    for prop in properties.expressions if properties is not None else []:
        if isinstance(prop, exp.FileFormatProperty):
            found["format"] = prop.this.name if isinstance(prop.this, exp.Literal) else prop.name
        elif isinstance(prop, exp.LocationProperty):  # an Iceberg table's ``location``
            found["location"] = prop.this.name
        elif isinstance(prop, exp.PartitionedByProperty):
            found["partitioned_by"] = _names(prop.this)
        elif isinstance(prop, exp.WithDataProperty):  # CTAS ... WITH [NO] DATA
            found[_WITH_DATA] = not prop.args.get("no")
        elif isinstance(prop, exp.Property) and isinstance(prop.args.get("value"), exp.Expression):
            value = prop.args["value"]
            found[prop.name.lower()] = _names(value) if isinstance(value, exp.Array) else \
                str(bool(value.this)).lower() if isinstance(value, exp.Boolean) else value.name
        else:
            raise Refusal(f"NOT_SUPPORTED: table property {prop.sql(READ)}")
    unknown = sorted(set(found) - _TABLE_PROPERTIES - (_ICEBERG_PROPERTIES if tables else set()) - {_WITH_DATA})
    if unknown:
        raise Refusal(f"INVALID_TABLE_PROPERTY: Catalog 'awsdatacatalog' table property '{unknown[0]}' does not "
                      "exist")
    return found


def _names(value: exp.Expression) -> list[str]:
    items = value.expressions if isinstance(value, exp.Array | exp.Tuple | exp.Schema) else [value]
    return [item.name for item in items]


def write_options(fmt: str, options: dict[str, Any]) -> dict[str, str]:
    written: dict[str, str] = {}
    compression = options.get("write_compression") or options.get("compression") or \
        options.get("parquet_compression") or options.get("orc_compression")
    if compression:
        written["compression"] = str(compression).lower()
    if fmt in ("TEXTFILE", "CSV"):
        written["sep"] = str(options.get("field_delimiter", "\u0001" if fmt == "TEXTFILE" else ","))
    elif options.get("field_delimiter"):
        raise Refusal(f"field_delimiter applies to TEXTFILE and CSV, not {fmt}")
    return written


def avro_options(options: dict[str, Any]) -> dict[str, str]:
    """An Avro UNLOAD's codec (deflate unless ``compression`` names another).

    Raises:
        Refusal: a compression Avro has no codec for, or a ``field_delimiter``.
    """
    if options.get("field_delimiter"):
        raise Refusal("field_delimiter applies to TEXTFILE and CSV, not AVRO")
    compression = str(options.get("write_compression") or options.get("compression") or "gzip").lower()
    if compression not in _AVRO_CODECS:
        raise Refusal(f"NOT_SUPPORTED: compression '{compression.upper()}' for AVRO: glueball's engine writes Avro "
                      f"with {', '.join(name.upper() for name in _AVRO_CODECS)}")
    return {"codec": _AVRO_CODECS[compression]}
