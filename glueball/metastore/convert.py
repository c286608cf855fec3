"""Glue's catalog shapes and the Hive metastore's Thrift structs, each way.

Glue's ``Database``/``Table``/``Partition``/``UserDefinedFunction`` (the dicts boto3 answers) become
the Hive metastore's ``Database``/``Table``/``Partition``/``Function`` structs (the Python bindings of
``hive_metastore.thrift`` that the ``pymetastore`` package ships), and the structs a Hive client sends
become Glue's ``DatabaseInput``/``TableInput``/``PartitionInput``/``UserDefinedFunctionInput``. Field
for field, as AWS's Glue catalog client for Hive maps them: times are epoch seconds in Hive, a
missing ``TableType`` is read as ``EXTERNAL_TABLE``, zeros and empty members are left out of Glue's
inputs.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping
from typing import Any

from pymetastore.hive_metastore import ttypes as hms

EXTERNAL_TABLE = "EXTERNAL_TABLE"
MANAGED_TABLE = "MANAGED_TABLE"
VIRTUAL_VIEW = "VIRTUAL_VIEW"

# what Spark writes into a Hive table's properties when it stores a data source table
PROVIDER = "spark.sql.sources.provider"
SCHEMA_PARTS = "spark.sql.sources.schema.numParts"
SCHEMA_PART = "spark.sql.sources.schema.part."
SCHEMA = "spark.sql.sources.schema"
PARTITION_PROVIDER = "spark.sql.partitionProvider"
NUM_PART_COLS = "spark.sql.sources.schema.numPartCols"
PART_COL = "spark.sql.sources.schema.partCol."
CREATED_BY_SPARK = "spark.sql.create.version"

_OWNER_TYPES = {"USER": hms.PrincipalType.USER, "ROLE": hms.PrincipalType.ROLE, "GROUP": hms.PrincipalType.GROUP}
_RESOURCE_TYPES = {"JAR": hms.ResourceType.JAR, "FILE": hms.ResourceType.FILE, "ARCHIVE": hms.ResourceType.ARCHIVE}


def epoch(value: Any) -> int:
    """Epoch seconds of a time boto3 answered (a datetime) or 0."""
    if isinstance(value, dt.datetime):
        return int(value.timestamp())
    return int(value or 0)


def _time(seconds: int | None) -> dt.datetime | None:
    return dt.datetime.fromtimestamp(seconds, dt.UTC) if seconds and seconds > 0 else None


def _params(values: Mapping[str, Any] | None) -> dict[str, str]:
    return {str(k): "" if v is None else str(v) for k, v in (values or {}).items()}


# ---------------------------------------------------------------- Glue -> Hive


def to_hive_database(database: Mapping[str, Any], default_location: str) -> hms.Database:
    """A Glue database as Hive's; one without ``LocationUri`` answers ``default_location``."""
    return hms.Database(
        name=database["Name"], description=database.get("Description") or "",
        locationUri=database.get("LocationUri") or default_location,
        parameters=_params(database.get("Parameters")), ownerName="", ownerType=hms.PrincipalType.USER)


def to_hive_columns(columns: list[Mapping[str, Any]] | None) -> list[hms.FieldSchema]:
    return [hms.FieldSchema(name=c["Name"], type=c.get("Type") or "string", comment=c.get("Comment"))
            for c in columns or []]


def to_hive_storage(descriptor: Mapping[str, Any] | None) -> hms.StorageDescriptor:
    descriptor = descriptor or {}
    serde = descriptor.get("SerdeInfo") or {}
    skewed = descriptor.get("SkewedInfo") or {}
    return hms.StorageDescriptor(
        cols=to_hive_columns(descriptor.get("Columns")),
        location=descriptor.get("Location"),
        inputFormat=descriptor.get("InputFormat"),
        outputFormat=descriptor.get("OutputFormat"),
        compressed=bool(descriptor.get("Compressed", False)),
        numBuckets=int(descriptor.get("NumberOfBuckets", -1) or -1),
        serdeInfo=hms.SerDeInfo(name=serde.get("Name"), serializationLib=serde.get("SerializationLibrary"),
                                parameters=_params(serde.get("Parameters"))),
        bucketCols=list(descriptor.get("BucketColumns") or []),
        sortCols=[hms.Order(col=s["Column"], order=int(s.get("SortOrder", 1)))
                  for s in descriptor.get("SortColumns") or []],
        parameters=_params(descriptor.get("Parameters")),
        skewedInfo=hms.SkewedInfo(
            skewedColNames=list(skewed.get("SkewedColumnNames") or []),
            skewedColValues=[json.loads(v) if v.startswith("[") else [v]
                             for v in skewed.get("SkewedColumnValues") or []],
            skewedColValueLocationMaps={}),
        storedAsSubDirectories=bool(descriptor.get("StoredAsSubDirectories", False)),
    )


def to_hive_table(table: Mapping[str, Any], database: str) -> hms.Table:
    """A Glue table as Hive's (``TableType`` ``EXTERNAL_TABLE`` when Glue has none)."""
    return hms.Table(
        tableName=table["Name"], dbName=table.get("DatabaseName") or database, owner=table.get("Owner") or "",
        createTime=epoch(table.get("CreateTime")), lastAccessTime=epoch(table.get("LastAccessTime")),
        retention=int(table.get("Retention") or 0), sd=to_hive_storage(table.get("StorageDescriptor")),
        partitionKeys=to_hive_columns(table.get("PartitionKeys")), parameters=_params(table.get("Parameters")),
        viewOriginalText=table.get("ViewOriginalText"), viewExpandedText=table.get("ViewExpandedText"),
        tableType=table.get("TableType") or EXTERNAL_TABLE, temporary=False, rewriteEnabled=False)


def to_hive_partition(partition: Mapping[str, Any], table: hms.Table) -> hms.Partition:
    """A Glue partition as Hive's; without a storage descriptor of its own it has its table's."""
    descriptor = partition.get("StorageDescriptor")
    storage = to_hive_storage(descriptor) if descriptor else to_hive_storage(None)
    if not descriptor or not descriptor.get("Columns"):
        storage.cols = list(table.sd.cols or [])
    if not descriptor or not (descriptor.get("SerdeInfo") or {}).get("SerializationLibrary"):
        storage.serdeInfo = table.sd.serdeInfo
        storage.inputFormat = storage.inputFormat or table.sd.inputFormat
        storage.outputFormat = storage.outputFormat or table.sd.outputFormat
    return hms.Partition(
        values=list(partition["Values"]), dbName=table.dbName, tableName=table.tableName,
        createTime=epoch(partition.get("CreationTime")), lastAccessTime=epoch(partition.get("LastAccessTime")),
        sd=storage, parameters=_params(partition.get("Parameters")))


def to_hive_function(function: Mapping[str, Any], database: str) -> hms.Function:
    return hms.Function(
        functionName=function["FunctionName"], dbName=function.get("DatabaseName") or database,
        className=function.get("ClassName") or "", ownerName=function.get("OwnerName") or "",
        ownerType=_OWNER_TYPES.get(function.get("OwnerType") or "USER", hms.PrincipalType.USER),
        createTime=epoch(function.get("CreateTime")), functionType=hms.FunctionType.JAVA,
        resourceUris=[hms.ResourceUri(resourceType=_RESOURCE_TYPES.get(r.get("ResourceType") or "JAR",
                                                                      hms.ResourceType.JAR), uri=r.get("Uri"))
                      for r in function.get("ResourceUris") or []])


# ---------------------------------------------------------------- Hive -> Glue


def database_input(database: hms.Database) -> dict[str, Any]:
    """Glue's ``DatabaseInput`` for a Hive database."""
    found: dict[str, Any] = {"Name": database.name}
    if database.description:
        found["Description"] = database.description
    if database.locationUri:
        found["LocationUri"] = database.locationUri
    if database.parameters:
        found["Parameters"] = _params(database.parameters)
    return found


def columns_input(columns: list[hms.FieldSchema] | None) -> list[dict[str, str]]:
    found = []
    for column in columns or []:
        item = {"Name": column.name, "Type": column.type or "string"}
        if column.comment:
            item["Comment"] = column.comment
        found.append(item)
    return found


def storage_input(storage: hms.StorageDescriptor | None) -> dict[str, Any]:
    """Glue's ``StorageDescriptor`` for a Hive one."""
    if storage is None:
        return {}
    found: dict[str, Any] = {"Columns": columns_input(storage.cols)}
    for key, value in (("Location", storage.location), ("InputFormat", storage.inputFormat),
                       ("OutputFormat", storage.outputFormat)):
        if value:
            found[key] = value
    found["Compressed"] = bool(storage.compressed)
    found["NumberOfBuckets"] = storage.numBuckets if storage.numBuckets is not None else -1
    serde = storage.serdeInfo
    if serde is not None:
        info: dict[str, Any] = {"Parameters": _params(serde.parameters)}
        if serde.name:
            info["Name"] = serde.name
        if serde.serializationLib:
            info["SerializationLibrary"] = serde.serializationLib
        found["SerdeInfo"] = info
    found["BucketColumns"] = list(storage.bucketCols or [])
    found["SortColumns"] = [{"Column": o.col, "SortOrder": int(o.order)} for o in storage.sortCols or []]
    found["Parameters"] = _params(storage.parameters)
    skewed = storage.skewedInfo
    if skewed is not None and skewed.skewedColNames:
        found["SkewedInfo"] = {
            "SkewedColumnNames": list(skewed.skewedColNames),
            "SkewedColumnValues": [json.dumps(v) for v in skewed.skewedColValues or []],
            "SkewedColumnValueLocationMaps": {json.dumps(k): v
                                              for k, v in (skewed.skewedColValueLocationMaps or {}).items()}}
    found["StoredAsSubDirectories"] = bool(storage.storedAsSubDirectories)
    return found


def table_input(table: hms.Table) -> dict[str, Any]:
    """Glue's ``TableInput`` for a Hive table, as Spark sent it (see :mod:`glueball.metastore.shapes` for
    what the endpoint adds on creation)."""
    found: dict[str, Any] = {"Name": table.tableName, "TableType": table.tableType or EXTERNAL_TABLE,
                             "PartitionKeys": columns_input(table.partitionKeys),
                             "Parameters": _params(table.parameters)}
    if table.owner:
        found["Owner"] = table.owner
    if table.retention:
        found["Retention"] = int(table.retention)
    if (accessed := _time(table.lastAccessTime)) is not None:
        found["LastAccessTime"] = accessed
    comment = (table.parameters or {}).get("comment")
    if comment:
        found["Description"] = comment
    if table.sd is not None:
        found["StorageDescriptor"] = storage_input(table.sd)
    if table.viewOriginalText:
        found["ViewOriginalText"] = table.viewOriginalText
    if table.viewExpandedText:
        found["ViewExpandedText"] = table.viewExpandedText
    return found


def partition_input(partition: hms.Partition) -> dict[str, Any]:
    """Glue's ``PartitionInput`` for a Hive partition."""
    found: dict[str, Any] = {"Values": list(partition.values or []), "Parameters": _params(partition.parameters)}
    if partition.sd is not None:
        found["StorageDescriptor"] = storage_input(partition.sd)
    if (accessed := _time(partition.lastAccessTime)) is not None:
        found["LastAccessTime"] = accessed
    return found


def function_input(function: hms.Function) -> dict[str, Any]:
    """Glue's ``UserDefinedFunctionInput`` for a Hive function."""
    owner_types = {v: k for k, v in _OWNER_TYPES.items()}
    resource_types = {v: k for k, v in _RESOURCE_TYPES.items()}
    found: dict[str, Any] = {"FunctionName": function.functionName, "ClassName": function.className or "",
                             "OwnerType": owner_types.get(function.ownerType, "USER"),
                             "ResourceUris": [{"ResourceType": resource_types.get(r.resourceType, "JAR"),
                                               "Uri": r.uri} for r in function.resourceUris or []]}
    if function.ownerName:
        found["OwnerName"] = function.ownerName
    return found


def glue_partition_as_input(partition: Mapping[str, Any]) -> dict[str, Any]:
    keep = ("Values", "LastAccessTime", "StorageDescriptor", "Parameters", "LastAnalyzedTime")
    return {k: partition[k] for k in keep if k in partition}
