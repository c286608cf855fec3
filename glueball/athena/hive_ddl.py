"""Athena's Hive DDL (``CREATE EXTERNAL TABLE ... ROW FORMAT ... STORED AS ... LOCATION``) as glueball makes the
table: Spark's Hive support runs it as written, except for the SerDes Spark's class path lacks - the JSON SerDes
become Spark's JSON data source over the same files, and Glue's other SerDes (Grok, Ion, XML, CloudTrail) a table
made in the catalog with Glue's CreateTable, as Athena makes it.
"""

from __future__ import annotations

import re
from typing import Any

from sqlglot import exp

from glueball.athena.models import StatementType
from glueball.athena.plans import READ, WRITE, Plan, Refusal, escaped, quoted_name
from glueball.metastore.shapes import FOREIGN_SERDES, TEXT_INPUT, TEXT_OUTPUT

# the JSON SerDes Athena's DDL names (OpenX's and Hive's HCatalog one); neither is on Spark's class path
_JSON_SERDES = frozenset({"org.openx.data.jsonserde.jsonserde", "org.apache.hive.hcatalog.data.jsonserde"})


# what Hive's STORED AS <format> stands for when the DDL also names the SerDe (Athena's Avro tables: ROW FORMAT SERDE
# '...AvroSerDe' WITH SERDEPROPERTIES ('avro.schema.literal' = ...) STORED AS AVRO); Spark refuses a SerDe beside
# a format that brings its own ("ROW FORMAT SERDE is incompatible with format 'avro'"), Hive takes the formats
_FORMAT_CLASSES = {
    "AVRO": ("org.apache.hadoop.hive.ql.io.avro.AvroContainerInputFormat",
             "org.apache.hadoop.hive.ql.io.avro.AvroContainerOutputFormat"),
    "PARQUET": ("org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
                "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat"),
    "ORC": ("org.apache.hadoop.hive.ql.io.orc.OrcInputFormat", "org.apache.hadoop.hive.ql.io.orc.OrcOutputFormat"),
    "RCFILE": ("org.apache.hadoop.hive.ql.io.RCFileInputFormat", "org.apache.hadoop.hive.ql.io.RCFileOutputFormat"),
}
_FOREIGN = {name.lower(): name for name in FOREIGN_SERDES}


def hive_ddl(statement: exp.Create) -> Plan:
    """A CREATE TABLE in Hive's DDL as Spark runs it: sqlglot's Spark text, except that partition columns keep
    their types in the PARTITIONED BY clause (a Hive-format table's), as Athena's DDL gives them. A table of a SerDe
    Spark's class path lacks is made in the catalog without Spark (:func:`_catalog_table`)."""
    properties = statement.args.get("properties")
    serde = properties.find(exp.RowFormatSerdeProperty) if properties is not None else None
    if serde is not None and serde.name.lower() in _JSON_SERDES:
        return Plan("ddl", [_json_table(statement)], StatementType.DDL, "CREATE_TABLE")
    if serde is not None and serde.name.lower() in _FOREIGN:
        return _catalog_table(statement, _FOREIGN[serde.name.lower()])
    stored = properties.find(exp.FileFormatProperty) if properties is not None else None
    if serde is not None and stored is not None and isinstance(stored.this, exp.Var) and \
            stored.name.upper() in _FORMAT_CLASSES:
        input_format, output_format = _FORMAT_CLASSES[stored.name.upper()]
        stored.set("this", exp.InputOutputFormat(input_format=exp.Literal.string(input_format),
                                                 output_format=exp.Literal.string(output_format)))
    return Plan("ddl", [_hive_text(statement)], StatementType.DDL, "CREATE_TABLE")


def _hive_text(statement: exp.Create) -> str:
    properties = statement.args.get("properties")
    partitioned = properties.find(exp.PartitionedByProperty) if properties is not None else None
    if partitioned is None:
        return statement.sql(WRITE)
    # the Hive dialect keeps ``PARTITIONED BY (day STRING)`` as written
    return statement.sql("hive")


def _catalog_table(statement: exp.Create, library: str) -> Plan:
    """A table of a SerDe Spark's class path lacks (Glue's Grok, Ion, XML SerDes, CloudTrail's): Spark's Hive client
    loads a table's SerDe class to create it, so the engine makes it in the Data Catalog with Glue's CreateTable as
    Athena does - the same columns, partition keys, SerDe and its properties, formats (Hive's text formats unless
    given), location and table properties. A query of it is refused naming the SerDe (the engine cannot read it).

    Raises:
        Refusal: no column list, or a clause such a table cannot take here.
    """
    schema = statement.this
    if not isinstance(schema, exp.Schema) or not schema.expressions:
        raise Refusal(f"NOT_SUPPORTED: a table of the SerDe {library} needs its columns")
    table = schema.this
    assert isinstance(table, exp.Table)
    properties = statement.args["properties"]
    serde_parameters = _serde_properties(properties)
    serde_parameters.setdefault("serialization.format", "1")  # as Hive's client stores a table's SerDe
    descriptor: dict[str, Any] = {"Columns": [_glue_column(c) for c in schema.expressions],
                                  "InputFormat": TEXT_INPUT, "OutputFormat": TEXT_OUTPUT,
                                  "SerdeInfo": {"SerializationLibrary": library, "Parameters": serde_parameters}}
    table_input: dict[str, Any] = {"Name": table.name, "TableType": "EXTERNAL_TABLE",
                                   "Parameters": {"EXTERNAL": "TRUE"}, "StorageDescriptor": descriptor}
    for prop in properties.expressions:
        if isinstance(prop, exp.ExternalProperty | exp.RowFormatSerdeProperty):
            continue
        if isinstance(prop, exp.LocationProperty):
            descriptor["Location"] = prop.name
        elif isinstance(prop, exp.PartitionedByProperty) and isinstance(prop.this, exp.Schema):
            table_input["PartitionKeys"] = [_glue_column(c) for c in prop.this.expressions]
        elif isinstance(prop, exp.FileFormatProperty) and isinstance(prop.this, exp.InputOutputFormat):
            descriptor["InputFormat"] = prop.this.args["input_format"].name
            descriptor["OutputFormat"] = prop.this.args["output_format"].name
        elif isinstance(prop, exp.FileFormatProperty) and prop.name.upper() == "TEXTFILE":
            continue
        elif isinstance(prop, exp.SchemaCommentProperty):
            table_input["Description"] = prop.name
            table_input["Parameters"]["comment"] = prop.name
        elif type(prop) is exp.Property:
            table_input["Parameters"][prop.name] = str(prop.args["value"].name)
        else:
            raise Refusal(f"NOT_SUPPORTED: {prop.sql(READ)} in a table of the SerDe {library}")
    return Plan("catalog", [], StatementType.DDL, "CREATE_TABLE",
                table={"Database": table.db or None, "TableInput": table_input,
                       "IfNotExists": bool(statement.args.get("exists"))})


def _glue_column(column: exp.Expression) -> dict[str, str]:
    """A column of Hive's DDL as Glue stores it (Athena's lower-case type names)."""
    kind = column.args.get("kind")
    written = re.sub(r"([:,])\s+", r"\1", kind.sql("hive").lower()) if kind is not None else "string"
    found = {"Name": column.name.lower(), "Type": written}
    comment = column.find(exp.CommentColumnConstraint)
    if comment is not None:
        found["Comment"] = comment.name
    return found


def _json_table(statement: exp.Create) -> str:
    """A table of JSON lines declared with a JSON SerDe: Spark's JSON data source over the same location, with
    the same columns and partitions (the catalog stores it with OpenX's SerDe, as Glue's crawlers do).

    Raises:
        Refusal: no location, or SerDe properties Spark's JSON reader has no counterpart for (``mapping.*``).
    """
    properties = statement.args["properties"]
    schema = statement.this
    location = properties.find(exp.LocationProperty)
    if not isinstance(schema, exp.Schema) or location is None:
        raise Refusal("NOT_SUPPORTED: a JSON SerDe table needs its columns and a LOCATION")
    serde = _serde_properties(properties)
    for name in serde:
        if name.lower().startswith("mapping."):
            raise Refusal(f"NOT_SUPPORTED: SERDEPROPERTIES '{name}': Spark's JSON reader maps no keys to "
                          "other column names; name the columns as the JSON keys")
    columns = [c.sql(WRITE) for c in schema.expressions]
    partitioned = properties.find(exp.PartitionedByProperty)
    keys = list(partitioned.this.expressions) if partitioned is not None else []
    columns += [c.sql(WRITE) for c in keys]
    # OpenX's SerDe fails a query over a line that is no JSON unless told to ignore it (then: a row of NULLs)
    lenient = any(k.lower() == "ignore.malformed.json" and v.lower() == "true" for k, v in serde.items())
    clauses = ["USING json", f"OPTIONS ('mode' = '{'PERMISSIVE' if lenient else 'FAILFAST'}')"]
    if keys:
        clauses.append("PARTITIONED BY (" + ", ".join(f"`{c.name}`" for c in keys) + ")")
    clauses.append(f"LOCATION '{escaped(location.name)}'")
    table_properties = [p for p in properties.expressions if type(p) is exp.Property]
    if table_properties:
        clauses.append("TBLPROPERTIES (" + ", ".join(p.sql(WRITE) for p in table_properties) + ")")
    table = schema.this
    exists = "IF NOT EXISTS " if statement.args.get("exists") else ""
    return f"CREATE TABLE {exists}{quoted_name(table)} ({', '.join(columns)}) {' '.join(clauses)}"


def _serde_properties(properties: exp.Properties) -> dict[str, str]:
    """The ``WITH SERDEPROPERTIES (...)`` of a ``ROW FORMAT SERDE`` clause, as written."""
    clause = properties.find(exp.RowFormatSerdeProperty)
    given = clause.args.get("serde_properties") if clause is not None else None
    return {p.name: str(p.args["value"].name) for p in (given.expressions if given is not None else [])}
