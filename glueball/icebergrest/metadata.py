"""Iceberg table metadata as a catalog keeps it: a JSON file per version under the table's ``metadata/`` folder,
the Glue table pointing at the current one (``table_type`` ICEBERG, ``metadata_location``).

The metadata model, its updates and the checks of a commit's requirements are pyiceberg's (the library's
``TableMetadata``, ``update_table_metadata`` and ``TableRequirement.validate``): this module only decides file
names, reads and writes them through the callables it is given, and turns the Glue API's Iceberg shapes
(``CreateIcebergTableInput``) into Iceberg's own JSON.
"""

from __future__ import annotations

import gzip
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from glueball.errors import InvalidInputException

__all__ = ["GLUE_TABLE_TYPE", "ReadObject", "WriteObject", "create_input_of", "create_table_files", "from_create_input",
           "glue_columns", "glue_table_input", "metadata_file", "parse", "to_json", "version_of"]

GLUE_TABLE_TYPE = "ICEBERG"
ReadObject = Callable[[str], bytes]
WriteObject = Callable[[str, bytes], None]

# Iceberg's primitive types as Hive type names (what Iceberg's GlueCatalog writes as a column's Type)
_HIVE_TYPES = {"boolean": "boolean", "int": "int", "long": "bigint", "float": "float", "double": "double",
               "date": "date", "time": "string", "timestamp": "timestamp", "timestamptz": "timestamp",
               "string": "string", "uuid": "string", "binary": "binary"}


def metadata_file(location: str, version: int) -> str:
    """Where version ``version`` of a table's metadata goes: ``LOCATION/metadata/NNNNN-UUID.metadata.json``, the
    name Iceberg's catalogs give it."""
    return f"{location.rstrip('/')}/metadata/{version:05d}-{uuid.uuid4()}.metadata.json"


def version_of(metadata_location: str) -> int:
    """The version number a metadata file's name starts with (-1 when it has none)."""
    name = metadata_location.rsplit("/", 1)[-1]
    head = name.split("-", 1)[0]
    return int(head) if head.isdigit() else -1


def parse(data: bytes) -> Any:
    """A metadata file's ``TableMetadata`` (gzip-compressed files too, as ``.gz.metadata.json``)."""
    from pyiceberg.table.metadata import TableMetadataUtil

    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return TableMetadataUtil.parse_raw(data.decode())


def to_json(metadata: Any) -> bytes:
    return str(metadata.model_dump_json()).encode()


def _hive_type(field_type: Any) -> str:
    from pyiceberg.types import DecimalType, FixedType, ListType, MapType, StructType

    if isinstance(field_type, StructType):
        return "struct<" + ",".join(f"{f.name}:{_hive_type(f.field_type)}" for f in field_type.fields) + ">"
    if isinstance(field_type, ListType):
        return f"array<{_hive_type(field_type.element_type)}>"
    if isinstance(field_type, MapType):
        return f"map<{_hive_type(field_type.key_type)},{_hive_type(field_type.value_type)}>"
    if isinstance(field_type, DecimalType):
        return f"decimal({field_type.precision},{field_type.scale})"
    if isinstance(field_type, FixedType):
        return "binary"
    return _HIVE_TYPES.get(str(field_type), str(field_type))


def glue_columns(metadata: Any) -> list[dict[str, Any]]:
    """The current schema's fields as Glue columns, with the Iceberg field ids and optionality in each column's
    parameters (as Iceberg's GlueCatalog writes them)."""
    columns = []
    for field in metadata.schema().fields:
        column: dict[str, Any] = {"Name": field.name, "Type": _hive_type(field.field_type), "Parameters": {
            "iceberg.field.id": str(field.field_id), "iceberg.field.optional": str(not field.required).lower(),
            "iceberg.field.current": "true"}}
        if field.doc:
            column["Comment"] = field.doc
        columns.append(column)
    return columns


def glue_table_input(name: str, metadata: Any, metadata_location: str, previous: str | None = None,
                     base: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The Glue ``TableInput`` of a table whose current metadata is ``metadata`` at ``metadata_location``
    (``base``: the table's present definition, whose other parameters are kept)."""
    parameters = dict((base or {}).get("Parameters") or {})
    parameters.update({"table_type": GLUE_TABLE_TYPE, "metadata_location": metadata_location})
    if previous:
        parameters["previous_metadata_location"] = previous
    else:
        parameters.pop("previous_metadata_location", None)
    descriptor = {**((base or {}).get("StorageDescriptor") or {}), "Location": metadata.location,
                  "Columns": glue_columns(metadata)}
    return {"Name": name, "TableType": "EXTERNAL_TABLE", "Parameters": parameters, "StorageDescriptor": descriptor}


# -- the Glue API's Iceberg shapes (CreateIcebergTableInput) as Iceberg's JSON -------------------------------

_FIELD_KEYS = {"Id": "id", "Name": "name", "Type": "type", "Required": "required", "Doc": "doc",
               "InitialDefault": "initial-default", "WriteDefault": "write-default"}
_PARTITION_KEYS = {"SourceId": "source-id", "Transform": "transform", "Name": "name", "FieldId": "field-id"}
_SORT_KEYS = {"SourceId": "source-id", "Transform": "transform", "Direction": "direction", "NullOrder": "null-order"}


def _renamed(wire: Mapping[str, Any], keys: Mapping[str, str]) -> dict[str, Any]:
    return {keys[k]: v for k, v in wire.items() if k in keys}


def from_create_input(wire: Mapping[str, Any]) -> Any:
    """The first metadata of a table ``CreateIcebergTableInput`` describes (Location, Schema, PartitionSpec,
    WriteOrder, Properties), as AWS makes it for ``CreateTable`` with ``OpenTableFormatInput``.

    Raises:
        InvalidInputException: the schema, partition spec or sort order is not valid Iceberg, naming why.
    """
    from pydantic import ValidationError
    from pyiceberg.partitioning import UNPARTITIONED_PARTITION_SPEC, PartitionSpec
    from pyiceberg.schema import Schema
    from pyiceberg.table.metadata import new_table_metadata
    from pyiceberg.table.sorting import UNSORTED_SORT_ORDER, SortOrder

    schema_wire = wire["Schema"]
    try:
        schema = Schema.model_validate({
            "type": "struct", "schema-id": schema_wire.get("SchemaId", 0),
            "identifier-field-ids": schema_wire.get("IdentifierFieldIds", []),
            "fields": [_renamed(f, _FIELD_KEYS) for f in schema_wire["Fields"]]})
        spec = UNPARTITIONED_PARTITION_SPEC
        if wire.get("PartitionSpec"):
            spec = PartitionSpec.model_validate({
                "spec-id": wire["PartitionSpec"].get("SpecId", 0),
                "fields": [_renamed(f, _PARTITION_KEYS) for f in wire["PartitionSpec"]["Fields"]]})
        order = UNSORTED_SORT_ORDER
        if wire.get("WriteOrder"):
            order = SortOrder.model_validate({
                "order-id": wire["WriteOrder"]["OrderId"],
                "fields": [{**_renamed(f, _SORT_KEYS), "direction": str(f["Direction"]).lower(),
                            "null-order": str(f["NullOrder"]).lower().replace("_", "-")}
                           for f in wire["WriteOrder"]["Fields"]]})
        return new_table_metadata(schema, spec, order, str(wire["Location"]).rstrip("/"),
                                  dict(wire.get("Properties") or {}))
    except (ValidationError, ValueError, KeyError, TypeError) as exc:
        raise InvalidInputException(f"CreateIcebergTableInput is not a valid Iceberg table: {exc}") from exc


_FROM_HIVE = {"boolean": "boolean", "tinyint": "int", "smallint": "int", "int": "int", "integer": "int",
              "bigint": "long", "float": "float", "double": "double", "date": "date", "timestamp": "timestamp",
              "string": "string", "varchar": "string", "char": "string", "binary": "binary"}


def create_input_of(table_input: Mapping[str, Any]) -> dict[str, Any]:
    """A ``CreateIcebergTableInput`` from a ``TableInput`` (its ``StorageDescriptor``'s Location and Columns, the
    partition keys as identity partitions), for ``CreateTable`` with ``OpenTableFormatInput`` but no
    ``CreateIcebergTableInput``.

    Raises:
        InvalidInputException: no location, or a column type with no Iceberg primitive (name and type given).
    """
    descriptor = table_input.get("StorageDescriptor") or {}
    if not descriptor.get("Location"):
        raise InvalidInputException("An Iceberg table needs TableInput.StorageDescriptor.Location (or "
                                    "OpenTableFormatInput.IcebergInput.CreateIcebergTableInput.Location)")
    fields: list[dict[str, Any]] = []
    partitions: list[dict[str, Any]] = []
    columns = [*(descriptor.get("Columns") or []), *(table_input.get("PartitionKeys") or [])]
    partition_names = {c["Name"] for c in table_input.get("PartitionKeys") or []}
    for number, column in enumerate(columns, start=1):
        hive = str(column.get("Type") or "").strip().lower()
        base = hive.split("(", 1)[0]
        if base == "decimal":
            iceberg: str = hive.replace(" ", "")
        elif base in _FROM_HIVE:
            iceberg = _FROM_HIVE[base]
        else:
            raise InvalidInputException(f"Column {column['Name']!r} has type {column.get('Type')!r}, which has no "
                                        "Iceberg type here; give CreateIcebergTableInput.Schema instead")
        fields.append({"Id": number, "Name": column["Name"], "Type": iceberg, "Required": False})
        if column["Name"] in partition_names:
            partitions.append({"SourceId": number, "Transform": "identity", "Name": column["Name"],
                               "FieldId": 999 + len(partitions) + 1})
    wire: dict[str, Any] = {"Location": descriptor["Location"], "Schema": {"Fields": fields}}
    if partitions:
        wire["PartitionSpec"] = {"Fields": partitions}
    return wire


def create_table_files(name: str, iceberg_input: Mapping[str, Any], table_input: Mapping[str, Any],
                       write: WriteObject) -> dict[str, Any]:
    """Write the first metadata file of a new Iceberg table and give the Glue ``TableInput`` that points at it:
    ``CreateTable`` with ``OpenTableFormatInput`` (its ``IcebergInput``; without ``CreateIcebergTableInput`` the
    table is the ``TableInput``'s columns at its location; ``Version`` is the format version).

    Raises:
        InvalidInputException: the input is not a valid Iceberg table, or its location cannot be written.
    """
    from glueball.errors import ServiceError

    create = dict(iceberg_input.get("CreateIcebergTableInput") or create_input_of(table_input))
    if iceberg_input.get("Version"):
        create["Properties"] = {**(create.get("Properties") or {}), "format-version": iceberg_input["Version"]}
    metadata = from_create_input(create)
    location = metadata_file(metadata.location, 0)
    try:
        write(location, to_json(metadata))
    except (ServiceError, ValueError) as exc:
        raise InvalidInputException(f"Cannot write the table's metadata to {location}: {exc}") from exc
    return glue_table_input(name, metadata, location)
