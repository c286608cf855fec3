"""The Data Catalog side of reads and writes: table formats, partition pruning, catalog updates.

- A table's format comes from ``Parameters["classification"]``, else from its SerDe
  (LazySimpleSerDe/OpenCSVSerde -> csv with ``field.delim``/``separatorChar``, JSON SerDes,
  Parquet, ORC, Avro SerDes); ``skip.header.line.count`` skips csv header lines.
- Partitions are pruned by the catalog (``GetPartitions`` with ``Expression``) before any
  file is listed; ``push_down_predicate`` and ``catalogPartitionPredicate`` are both sent
  there. A ``push_down_predicate`` the catalog's expression grammar rejects is evaluated by
  Spark on the partition values instead (still before listing).
- ``enableUpdateCatalog`` after a write creates the table when missing, updates its schema
  (``updateBehavior`` ``UPDATE_IN_DATABASE``, the default) or leaves it (``LOG``), and
  registers every new partition with ``BatchCreatePartition`` (existing ones are left).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from botocore.exceptions import ClientError

from glueball.runtime.errors import GlueRuntimeError
from glueball.runtime.io import files as file_listing

if TYPE_CHECKING:
    from pyspark.sql import SparkSession
    from pyspark.sql.types import DataType, StructField, StructType

log = logging.getLogger("glueball.runtime.io")

JDBC_CLASSIFICATIONS = ("postgresql", "mysql", "mariadb", "sqlserver", "oracle", "redshift", "jdbc")

_SERDE_FORMATS = (
    ("lazysimpleserde", "csv"), ("opencsvserde", "csv"), ("jsonserde", "json"), ("parquet", "parquet"),
    ("orc", "orc"), ("avro", "avro"), ("xml", "xml"),
)

# what a table written by Glue in each format looks like in the catalog
FORMAT_STORAGE: dict[str, dict[str, str]] = {
    "csv": {"InputFormat": "org.apache.hadoop.mapred.TextInputFormat",
            "OutputFormat": "org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat",
            "SerializationLibrary": "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe"},
    "json": {"InputFormat": "org.apache.hadoop.mapred.TextInputFormat",
             "OutputFormat": "org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat",
             "SerializationLibrary": "org.openx.data.jsonserde.JsonSerDe"},
    "parquet": {"InputFormat": "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
                "OutputFormat": "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat",
                "SerializationLibrary": "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe"},
    "orc": {"InputFormat": "org.apache.hadoop.hive.ql.io.orc.OrcInputFormat",
            "OutputFormat": "org.apache.hadoop.hive.ql.io.orc.OrcOutputFormat",
            "SerializationLibrary": "org.apache.hadoop.hive.ql.io.orc.OrcSerde"},
    "avro": {"InputFormat": "org.apache.hadoop.hive.ql.io.avro.AvroContainerInputFormat",
             "OutputFormat": "org.apache.hadoop.hive.ql.io.avro.AvroContainerOutputFormat",
             "SerializationLibrary": "org.apache.hadoop.hive.serde2.avro.AvroSerDe"},
    "xml": {"InputFormat": "com.ibm.spss.hive.serde2.xml.XmlInputFormat",
            "OutputFormat": "org.apache.hadoop.hive.ql.io.IgnoreKeyTextOutputFormat",
            "SerializationLibrary": "com.ibm.spss.hive.serde2.xml.XmlSerDe"},
}


def get_table(glue_ctx: Any, database: str | None, table_name: str | None) -> dict[str, Any]:
    """The catalog table (``GetTable``); a missing one raises the client's EntityNotFoundException."""
    if not database or not table_name:
        raise GlueRuntimeError(f"database and table_name are required (got {database!r}, {table_name!r})")
    table: dict[str, Any] = glue_ctx.glue_client.get_table(DatabaseName=database, Name=table_name)["Table"]
    return table


def table_exists(glue_ctx: Any, database: str, table_name: str) -> dict[str, Any] | None:
    try:
        return get_table(glue_ctx, database, table_name)
    except ClientError as err:
        if err.response.get("Error", {}).get("Code") == "EntityNotFoundException":
            return None
        raise


def classification(table: Mapping[str, Any]) -> str:
    """The table's classification (lower case), from its parameters or its SerDe."""
    params = {**(table.get("StorageDescriptor", {}).get("Parameters") or {}), **(table.get("Parameters") or {})}
    value = params.get("classification")
    if value:
        return str(value).strip().lower()
    serde = str(table.get("StorageDescriptor", {}).get("SerdeInfo", {}).get("SerializationLibrary") or "").lower()
    for needle, fmt in _SERDE_FORMATS:
        if needle in serde:
            return fmt
    raise GlueRuntimeError(f"cannot tell the format of table {table.get('Name')!r}: no classification and "
                           f"SerDe {serde or 'none'}")


def is_jdbc_table(table: Mapping[str, Any]) -> bool:
    params = table.get("Parameters") or {}
    try:
        kind = classification(table)
    except GlueRuntimeError:
        kind = ""
    return kind in JDBC_CLASSIFICATIONS or (bool(params.get("connectionName")) and
                                           "://" not in str(table.get("StorageDescriptor", {}).get("Location", "")))


def format_options_of(table: Mapping[str, Any], fmt: str) -> tuple[dict[str, Any], int]:
    """Glue format options implied by the table's SerDe, and the csv header lines to skip."""
    sd = table.get("StorageDescriptor", {})
    serde = sd.get("SerdeInfo", {}) or {}
    serde_params = serde.get("Parameters") or {}
    params = {**(sd.get("Parameters") or {}), **(table.get("Parameters") or {})}
    options: dict[str, Any] = {}
    if fmt == "csv":
        delim = serde_params.get("field.delim") or serde_params.get("separatorChar") or params.get("delimiter")
        if delim:
            options["separator"] = delim
        quote = serde_params.get("quoteChar")
        if quote:
            options["quoteChar"] = quote
        escape = serde_params.get("escapeChar") or serde_params.get("escape.delim")
        if escape:
            options["escaper"] = escape
    if fmt == "json" and params.get("jsonPath"):
        options["jsonPath"] = params["jsonPath"]
    if fmt == "xml":
        row_tag = params.get("rowTag") or serde_params.get("xmlinput.start", "").strip("<> ").split(" ")[0]
        if row_tag:
            options["rowTag"] = row_tag
    header = params.get("skip.header.line.count") or serde_params.get("skip.header.line.count") or "0"
    return options, int(header)


def spark_type(hive_type: str) -> DataType:
    """The Spark type of a catalog column type (Hive DDL: ``bigint``, ``array<struct<a:int>>``...)."""
    from pyspark.sql.types import _parse_datatype_string

    text = re.sub(r"\b(var)?char\s*\(\s*\d+\s*\)", "string", hive_type.strip(), flags=re.IGNORECASE)
    text = re.sub(r"\binteger\b", "int", text, flags=re.IGNORECASE)
    try:
        return _parse_datatype_string(text)
    except Exception as err:  # noqa: BLE001  (Spark raises parse errors of several kinds)
        raise GlueRuntimeError(f"cannot map catalog type {hive_type!r} to a Spark type") from err


def hive_type(data_type: DataType) -> str:
    """The catalog (Hive) type string of a Spark type."""
    from pyspark.sql import types as T

    if isinstance(data_type, T.TimestampNTZType):
        return "timestamp"
    if isinstance(data_type, T.StructType):
        return "struct<" + ",".join(f"{f.name}:{hive_type(f.dataType)}" for f in data_type.fields) + ">"
    if isinstance(data_type, T.ArrayType):
        return f"array<{hive_type(data_type.elementType)}>"
    if isinstance(data_type, T.MapType):
        return f"map<{hive_type(data_type.keyType)},{hive_type(data_type.valueType)}>"
    if isinstance(data_type, T.NullType):
        return "string"
    return str(data_type.simpleString())


def column_fields(columns: list[Mapping[str, Any]]) -> list[StructField]:
    from pyspark.sql.types import StructField

    return [StructField(c["Name"], spark_type(c.get("Type") or "string"), True) for c in columns]


# -- partitions -------------------------------------------------------------------------------------


def get_partitions(glue_ctx: Any, database: str, table_name: str, expression: str | None) -> list[dict[str, Any]]:
    """Every partition the catalog returns for ``expression`` (all pages)."""
    client = glue_ctx.glue_client
    request: dict[str, Any] = {"DatabaseName": database, "TableName": table_name}
    if expression:
        request["Expression"] = expression
    return [partition for page in client.get_paginator("get_partitions").paginate(**request)
            for partition in page.get("Partitions", [])]


def select_partitions(glue_ctx: Any, table: Mapping[str, Any], database: str, push_down_predicate: str,
                      catalog_predicate: str) -> list[dict[str, Any]]:
    """The partitions both predicates select, asked of the catalog before anything is listed."""
    name = str(table["Name"])
    parts = [p.strip() for p in (catalog_predicate, push_down_predicate) if p and p.strip()]
    if not parts:
        return get_partitions(glue_ctx, database, name, None)
    combined = " AND ".join(f"({p})" for p in parts)
    try:
        return get_partitions(glue_ctx, database, name, combined)
    except ClientError as err:
        if not push_down_predicate or err.response.get("Error", {}).get("Code") != "InvalidInputException":
            raise
        log.info("push_down_predicate %r evaluated by Spark on partition values: %s", push_down_predicate, err)
    candidates = get_partitions(glue_ctx, database, name, catalog_predicate.strip() or None)
    return filter_partitions(glue_ctx.spark_session, table, candidates, push_down_predicate)


def partition_fields(table: Mapping[str, Any]) -> list[StructField]:
    return column_fields(list(table.get("PartitionKeys") or []))


def filter_partitions(spark: SparkSession, table: Mapping[str, Any], partitions: list[dict[str, Any]],
                      predicate: str) -> list[dict[str, Any]]:
    """Partitions whose typed values satisfy a Spark SQL predicate (a small local job)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import IntegerType, StringType, StructField, StructType

    fields = partition_fields(table)
    if not partitions:
        return []
    raw = StructType([StructField("_i", IntegerType(), False)] +
                     [StructField(f.name, StringType(), True) for f in fields])
    rows = [(i, *p.get("Values", [])) for i, p in enumerate(partitions)]
    typed = spark.createDataFrame(rows, raw).select(
        "_i", *[F.col(f"`{f.name}`").cast(f.dataType).alias(f.name) for f in fields])
    keep = {r["_i"] for r in typed.where(F.expr(predicate)).select("_i").collect()}
    return [p for i, p in enumerate(partitions) if i in keep]


def typed_values(fields: list[StructField], values: list[str]) -> tuple[Any, ...]:
    """Partition values (strings in the catalog) as Python values of their columns' types."""
    import datetime as dt
    from decimal import Decimal

    from pyspark.sql import types as T

    out: list[Any] = []
    for field, value in zip(fields, values, strict=False):
        kind = field.dataType
        try:
            if value is None or value == "__HIVE_DEFAULT_PARTITION__":
                out.append(None)
            elif isinstance(kind, (T.IntegerType, T.LongType, T.ShortType, T.ByteType)):
                out.append(int(value))
            elif isinstance(kind, (T.DoubleType, T.FloatType)):
                out.append(float(value))
            elif isinstance(kind, T.DecimalType):
                out.append(Decimal(value))
            elif isinstance(kind, T.BooleanType):
                out.append(value.strip().lower() == "true")
            elif isinstance(kind, T.DateType):
                out.append(dt.date.fromisoformat(value))
            elif isinstance(kind, T.TimestampType):
                out.append(dt.datetime.fromisoformat(value))
            else:
                out.append(value)
        except ValueError:
            out.append(None)
    return tuple(out)


# -- updating the catalog after a write ------------------------------------------------------------


def storage_descriptor(location: str, fmt: str, columns: list[dict[str, str]],
                       format_options: Mapping[str, Any]) -> dict[str, Any]:
    """A StorageDescriptor for files of ``fmt`` at ``location``, as Glue writes one."""
    storage = FORMAT_STORAGE["parquet" if fmt == "glueparquet" else fmt]
    serde_params: dict[str, str] = {}
    if fmt == "csv":
        serde_params["field.delim"] = str(format_options.get("separator", ","))
    if fmt in ("csv", "json", "xml"):
        serde_params.setdefault("serialization.format", "1")
    return {
        "Columns": columns, "Location": location,
        "InputFormat": storage["InputFormat"], "OutputFormat": storage["OutputFormat"],
        "Compressed": False, "NumberOfBuckets": -1, "StoredAsSubDirectories": False,
        "SerdeInfo": {"SerializationLibrary": storage["SerializationLibrary"], "Parameters": serde_params},
    }


def update_catalog(glue_ctx: Any, *, database: str, table_name: str, location: str, fmt: str,
                   format_options: Mapping[str, Any], schema: StructType, partition_keys: list[str],
                   update_behavior: str) -> None:
    """Glue's ``enableUpdateCatalog``: create or update the table, then add its new partitions.

    Args:
        glue_ctx: the GlueContext.
        database: the catalog database.
        table_name: the catalog table (created if missing).
        location: where the frame was written (``s3://`` URI).
        fmt: the written format.
        format_options: the format options written with.
        schema: the schema of the written frame.
        partition_keys: the ``partitionKeys`` written with.
        update_behavior: ``UPDATE_IN_DATABASE`` (update the table's schema) or ``LOG`` (keep it).
    """
    behavior = (update_behavior or "UPDATE_IN_DATABASE").upper()
    if behavior not in ("UPDATE_IN_DATABASE", "LOG"):
        raise GlueRuntimeError(f"updateBehavior must be UPDATE_IN_DATABASE or LOG, got {update_behavior!r}")
    client = glue_ctx.glue_client
    columns = [{"Name": f.name, "Type": hive_type(f.dataType)} for f in schema.fields
               if f.name not in partition_keys]
    keys = [{"Name": k, "Type": hive_type(schema[k].dataType)} for k in partition_keys]
    kind = "parquet" if fmt == "glueparquet" else fmt
    existing = table_exists(glue_ctx, database, table_name)
    if existing is None:
        params = {"classification": kind}
        if fmt == "csv" and as_header(format_options):
            params["skip.header.line.count"] = "1"
        client.create_table(DatabaseName=database, TableInput={
            "Name": table_name, "TableType": "EXTERNAL_TABLE", "Parameters": params,
            "PartitionKeys": keys,
            "StorageDescriptor": storage_descriptor(location, fmt, columns, format_options),
        })
        table = get_table(glue_ctx, database, table_name)
    else:
        table = existing
        old_keys = [k["Name"] for k in table.get("PartitionKeys") or []]
        if partition_keys and old_keys and old_keys != list(partition_keys):
            raise GlueRuntimeError(f"partitionKeys {partition_keys} differ from the partition keys {old_keys} of "
                                   f"{database}.{table_name}")
        old_columns = [c["Name"] for c in table.get("StorageDescriptor", {}).get("Columns") or []]
        changed = old_columns != [c["Name"] for c in columns] or [
            c.get("Type") for c in table["StorageDescriptor"].get("Columns") or []] != [c["Type"] for c in columns]
        if changed and behavior == "LOG":
            log.warning("schema of %s.%s differs from the written frame; updateBehavior LOG keeps it",
                        database, table_name)
        elif changed:
            sd = dict(table["StorageDescriptor"])
            sd["Columns"] = columns
            update = {k: v for k, v in table.items() if k in (
                "Name", "Description", "Owner", "Retention", "PartitionKeys", "TableType", "Parameters",
                "ViewOriginalText", "ViewExpandedText", "TargetTable")}
            update["StorageDescriptor"] = sd
            if not table.get("PartitionKeys") and keys:
                update["PartitionKeys"] = keys
            client.update_table(DatabaseName=database, TableInput=update)
            table = get_table(glue_ctx, database, table_name)
    if partition_keys:
        register_partitions(glue_ctx, database, table, location, partition_keys)


def as_header(format_options: Mapping[str, Any]) -> bool:
    value = format_options.get("writeHeader", True)
    return value is True or str(value).strip().lower() == "true"


def written_partitions(spark: SparkSession, location: str, keys: list[str]) -> list[tuple[list[str], str]]:
    """The ``key=value`` folders under ``location``: (values, folder URI) for every full path of keys."""
    found: list[tuple[list[str], str]] = [([], location.rstrip("/"))]
    for key in keys:
        deeper: list[tuple[list[str], str]] = []
        for values, uri in found:
            for name, child in file_listing.list_dirs(spark, uri):
                if name.startswith(f"{key}="):
                    value = unquote(name[len(key) + 1:])
                    deeper.append(([*values, value], child))
        found = deeper
    return found


def register_partitions(glue_ctx: Any, database: str, table: Mapping[str, Any], location: str,
                        keys: list[str]) -> None:
    """``BatchCreatePartition`` for every written partition folder; existing partitions are left as they are."""
    client = glue_ctx.glue_client
    sd = table["StorageDescriptor"]
    inputs = []
    for values, uri in written_partitions(glue_ctx.spark_session, location, keys):
        part_sd = {k: v for k, v in sd.items() if k != "Location"}
        part_sd["Location"] = uri + "/"
        inputs.append({"Values": values, "StorageDescriptor": part_sd, "Parameters": {}})
    for start in range(0, len(inputs), 100):
        answer = client.batch_create_partition(DatabaseName=database, TableName=table["Name"],
                                               PartitionInputList=inputs[start:start + 100])
        for error in answer.get("Errors", []):
            code = error.get("ErrorDetail", {}).get("ErrorCode")
            if code != "AlreadyExistsException":
                raise GlueRuntimeError(f"could not register partition {error.get('PartitionValues')} of "
                                       f"{database}.{table['Name']}: {error.get('ErrorDetail')}")
