"""Wire handlers of the Data Catalog: databases and tables.

Partitions, statistics and functions have handler modules of their own,
imported at the bottom so that all catalog operations register together.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from glueball.api.identity import Caller
from glueball.api.operations import Request, Response
from glueball.api.pagination import decode_token, encode_token, page_size, paged
from glueball.catalog.area import OPERATIONS, CatalogNeeds
from glueball.catalog.databases import DatabaseService
from glueball.catalog.lookup import fold
from glueball.catalog.models import Database, Scope, Table, TableVersion
from glueball.catalog.search import search_tables
from glueball.catalog.tables import TableService
from glueball.clock import epoch
from glueball.errors import GlueError, InvalidInputException


def scope_of(caller: Caller) -> Scope:
    return Scope(caller.account_id, caller.region)


def databases(needs: CatalogNeeds, caller: Caller) -> DatabaseService:
    return DatabaseService(needs.store, scope_of(caller))


def tables(needs: CatalogNeeds, caller: Caller) -> TableService:
    return TableService(needs.store, scope_of(caller))


def reject_unsupported(request: Request, *members: str) -> None:
    """Refuse members glueball does not support rather than ignore them."""
    for member in members:
        if request.get(member) not in (None, "", [], {}):
            raise InvalidInputException(f"{member} is not supported by glueball")


def database_wire(database: Database, catalog_id: str) -> dict[str, Any]:
    wire: dict[str, Any] = {"Name": database.name}
    wire.update(database.spec)
    wire["CreateTime"] = database.create_time
    wire["CatalogId"] = catalog_id
    return wire


def _database_input(wire: dict[str, Any]) -> Database:
    spec = {k: v for k, v in wire.items() if k != "Name"}
    if "FederatedDatabase" in spec:
        raise InvalidInputException("FederatedDatabase is not supported by glueball")
    return Database(name=wire["Name"], spec=spec)


@OPERATIONS.operation("CreateDatabase")
def create_database(needs: CatalogNeeds, caller: Caller, request: Request) -> Response:
    databases(needs, caller).create(_database_input(request["DatabaseInput"]), request.get("Tags"))
    return {}


@OPERATIONS.operation("GetDatabase")
def get_database(needs: CatalogNeeds, caller: Caller, request: Request) -> Response:
    database = databases(needs, caller).get(request["Name"])
    return {"Database": database_wire(database, caller.account_id)}


@OPERATIONS.operation("GetDatabases")
def get_databases(needs: CatalogNeeds, caller: Caller, request: Request) -> Response:
    share = request.get("ResourceShareType", "ALL")
    if share in ("FOREIGN", "FEDERATED"):
        return {"DatabaseList": []}  # nothing is shared with or federated into this catalog
    found, token = databases(needs, caller).page(page_size(request.get("MaxResults")), request.get("NextToken"))
    wires = [database_wire(d, caller.account_id) for d in found]
    attributes = request.get("AttributesToGet")
    if attributes:
        keep = {"Name", "CatalogId"} | {a.title().replace("_", "") for a in attributes}
        wires = [{k: v for k, v in w.items() if k in keep} for w in wires]
    return paged("DatabaseList", wires, token)


@OPERATIONS.operation("UpdateDatabase")
def update_database(needs: CatalogNeeds, caller: Caller, request: Request) -> Response:
    databases(needs, caller).update(request["Name"], _database_input(request["DatabaseInput"]))
    return {}


@OPERATIONS.operation("DeleteDatabase")
def delete_database(needs: CatalogNeeds, caller: Caller, request: Request) -> Response:
    databases(needs, caller).delete(request["Name"])
    return {}


# -- tables -------------------------------------------------------------------------------------

_TABLE_TIMESTAMPS = ("LastAccessTime", "LastAnalyzedTime")
_UNSUPPORTED_TABLE_MEMBERS = ("TransactionId", "QueryAsOfTime")


def error_detail(err: GlueError) -> dict[str, str]:
    return {"ErrorCode": err.code, "ErrorMessage": err.message}


def table_input(wire: dict[str, Any] | None) -> Table:
    """A TableInput as a model; timestamps are kept as epoch seconds."""
    if wire is None:
        raise InvalidInputException("TableInput is required")
    spec = {k: v for k, v in wire.items() if k != "Name"}
    for key in _TABLE_TIMESTAMPS:
        if key in spec:
            spec[key] = epoch(spec[key])
    return Table(database_name="", name=wire["Name"], spec=spec)


def table_wire(table: Table, catalog_id: str, attributes: list[str] | None = None) -> dict[str, Any]:
    wire: dict[str, Any] = {"Name": table.name, "DatabaseName": table.database_name}
    wire.update(table.spec)
    wire.update({
        "CreateTime": table.create_time,
        "UpdateTime": table.update_time,
        "IsRegisteredWithLakeFormation": False,
        "CatalogId": catalog_id,
        "VersionId": str(table.version),
    })
    if attributes and "DEFAULT" not in attributes:
        keep = {"Name", "DatabaseName", "CatalogId"}
        if "TABLE_TYPE" in attributes:
            keep.add("TableType")
        wire = {k: v for k, v in wire.items() if k in keep}
    return wire


def _version_wire(version: TableVersion, catalog_id: str) -> dict[str, Any]:
    return {"Table": table_wire(version.table, catalog_id), "VersionId": str(version.version)}


def _reference(table: Table) -> dict[str, Any] | None:
    descriptor = table.spec.get("StorageDescriptor") or {}
    reference = descriptor.get("SchemaReference")
    return reference if isinstance(reference, dict) else None


def check_reference(needs: CatalogNeeds, caller: Caller, table: Table) -> None:
    """A table's ``SchemaReference`` must name a schema version that exists (its columns are read from it).

    Raises:
        EntityNotFoundException / InvalidInputException: the registry's, naming what is missing or wrong.
    """
    reference = _reference(table)
    if reference is not None and needs.referenced_columns is not None:
        needs.referenced_columns(scope_of(caller), reference)


def with_referenced_columns(needs: CatalogNeeds, caller: Caller, table: Table) -> Table:
    """``table`` with the columns of the schema version its ``SchemaReference`` names now (the latest
    version, unless the reference names one); unchanged without a reference or when it no longer resolves."""
    reference = _reference(table)
    if reference is None or needs.referenced_columns is None:
        return table
    try:
        columns = needs.referenced_columns(scope_of(caller), reference)
    except GlueError:
        return table  # the schema went away since: the table keeps the columns it was stored with
    descriptor = {**table.spec["StorageDescriptor"], "Columns": columns}
    return replace(table, spec={**table.spec, "StorageDescriptor": descriptor})


def _open_table_format_input(needs: CatalogNeeds, request: Request) -> dict[str, Any]:
    """The TableInput of ``CreateTable`` with ``OpenTableFormatInput``: as AWS, a new Iceberg table whose first
    metadata file is written at its location, from ``CreateIcebergTableInput`` or else the TableInput's columns."""
    iceberg = request["OpenTableFormatInput"].get("IcebergInput")
    if iceberg is None:
        raise InvalidInputException("OpenTableFormatInput needs IcebergInput (Iceberg is the one open table format "
                                    "CreateTable creates)")
    if needs.iceberg_table_files is None:
        raise InvalidInputException("This installation cannot write Iceberg metadata files")
    given = request.get("TableInput") or {}
    name = request.get("Name") or given.get("Name")
    if not name:
        raise InvalidInputException("An Iceberg table needs a Name (or TableInput.Name)")
    if iceberg.get("Version") not in (None, "1", "2"):
        raise InvalidInputException(f"IcebergInput.Version {iceberg['Version']!r} is not an Iceberg format version "
                                    "glueball creates (1 or 2)")
    made = needs.iceberg_table_files(name, iceberg, given)
    if given.get("Description"):
        made["Description"] = given["Description"]
    return made


@OPERATIONS.operation("CreateTable")
def create_table(needs: CatalogNeeds, caller: Caller, request: Request) -> Response:
    reject_unsupported(request, "TransactionId")
    if request.get("OpenTableFormatInput") is not None:
        table = table_input(_open_table_format_input(needs, request))
    else:
        table = table_input(request.get("TableInput"))
    if request.get("Name") and fold(request["Name"]) != fold(table.name):
        raise InvalidInputException(
            f"Name {request['Name']!r} and TableInput.Name {table.name!r} must name the same table")
    check_reference(needs, caller, table)
    tables(needs, caller).create(request["DatabaseName"], table, request.get("PartitionIndexes"))
    return {}


@OPERATIONS.operation("GetTable")
def get_table(needs: CatalogNeeds, caller: Caller, request: Request) -> Response:
    reject_unsupported(request, *_UNSUPPORTED_TABLE_MEMBERS)
    table = tables(needs, caller).get(request["DatabaseName"], request["Name"])
    table = with_referenced_columns(needs, caller, table)
    return {"Table": table_wire(table, caller.account_id, request.get("AttributesToGet"))}


@OPERATIONS.operation("GetTables")
def get_tables(needs: CatalogNeeds, caller: Caller, request: Request) -> Response:
    reject_unsupported(request, *_UNSUPPORTED_TABLE_MEMBERS)
    if request.get("ResourceShareType") in ("FOREIGN", "FEDERATED"):
        return {"TableList": []}
    found, token = tables(needs, caller).page(request["DatabaseName"], request.get("Expression"),
                                            page_size(request.get("MaxResults")), request.get("NextToken"))
    attributes = request.get("AttributesToGet")
    return paged("TableList", [table_wire(with_referenced_columns(needs, caller, t), caller.account_id, attributes)
                               for t in found], token)


@OPERATIONS.operation("UpdateTable")
def update_table(needs: CatalogNeeds, caller: Caller, request: Request) -> Response:
    reject_unsupported(request, "TransactionId", "ViewUpdateAction", "UpdateOpenTableFormatInput")
    table = table_input(request.get("TableInput"))
    if request.get("Name") and fold(request["Name"]) != fold(table.name):
        raise InvalidInputException(
            f"Renaming a table is not supported: Name {request['Name']!r} and TableInput.Name "
            f"{table.name!r} differ")
    check_reference(needs, caller, table)
    tables(needs, caller).update(request["DatabaseName"], table, bool(request.get("SkipArchive")),
                               request.get("VersionId"))
    return {}


@OPERATIONS.operation("DeleteTable")
def delete_table(needs: CatalogNeeds, caller: Caller, request: Request) -> Response:
    reject_unsupported(request, "TransactionId")
    tables(needs, caller).delete(request["DatabaseName"], request["Name"])
    return {}


@OPERATIONS.operation("BatchDeleteTable")
def batch_delete_table(needs: CatalogNeeds, caller: Caller, request: Request) -> Response:
    reject_unsupported(request, "TransactionId")
    errors = tables(needs, caller).batch_delete(request["DatabaseName"], request["TablesToDelete"])
    return {"Errors": [{"TableName": name, "ErrorDetail": error_detail(err)} for name, err in errors]}


@OPERATIONS.operation("SearchTables")
def search_tables_(needs: CatalogNeeds, caller: Caller, request: Request) -> Response:
    if request.get("ResourceShareType") == "FOREIGN":
        return {"TableList": []}
    found = search_tables(tables(needs, caller).all_tables(), request.get("SearchText"),
                          request.get("Filters") or [], request.get("SortCriteria") or [])
    offset = decode_token(request.get("NextToken"), int) or 0
    size = page_size(request.get("MaxResults"))
    page = found[offset:offset + size]
    token = encode_token(offset + size) if offset + size < len(found) else None
    return paged("TableList", [table_wire(t, caller.account_id) for t in page], token)


@OPERATIONS.operation("GetTableVersion")
def get_table_version(needs: CatalogNeeds, caller: Caller, request: Request) -> Response:
    version = tables(needs, caller).get_version(request["DatabaseName"], request["TableName"],
                                              request.get("VersionId"))
    return {"TableVersion": _version_wire(version, caller.account_id)}


@OPERATIONS.operation("GetTableVersions")
def get_table_versions(needs: CatalogNeeds, caller: Caller, request: Request) -> Response:
    versions, token = tables(needs, caller).list_versions(
        request["DatabaseName"], request["TableName"], page_size(request.get("MaxResults")),
        request.get("NextToken"))
    return paged("TableVersions", [_version_wire(v, caller.account_id) for v in versions], token)


@OPERATIONS.operation("DeleteTableVersion")
def delete_table_version(needs: CatalogNeeds, caller: Caller, request: Request) -> Response:
    errors = tables(needs, caller).delete_versions(request["DatabaseName"], request["TableName"],
                                                 [request["VersionId"]])
    if errors:
        raise errors[0][1]
    return {}


@OPERATIONS.operation("BatchDeleteTableVersion")
def batch_delete_table_version(needs: CatalogNeeds, caller: Caller, request: Request) -> Response:
    name = fold(request["TableName"])
    errors = tables(needs, caller).delete_versions(request["DatabaseName"], name, request["VersionIds"])
    return {"Errors": [{"TableName": name, "VersionId": version, "ErrorDetail": error_detail(err)}
                       for version, err in errors]}
