"""Wire handlers of the Data Catalog: databases and tables.

Partitions, statistics and functions have handler modules of their own,
imported at the bottom so that all catalog operations register together.
"""

from __future__ import annotations

from typing import Any

from glueball.api.dispatch import Request, Response, operation
from glueball.api.identity import Caller
from glueball.api.pagination import decode_token, encode_token, page_size, paged
from glueball.app import Glueball
from glueball.catalog.databases import DatabaseService
from glueball.catalog.lookup import fold
from glueball.catalog.models import Database, Scope, Table, TableVersion
from glueball.catalog.search import search_tables
from glueball.catalog.tables import TableService
from glueball.clock import epoch
from glueball.errors import GlueError, InvalidInputException


def scope_of(caller: Caller) -> Scope:
    return Scope(caller.account_id, caller.region)


def databases(app: Glueball, caller: Caller) -> DatabaseService:
    return DatabaseService(app.store, scope_of(caller))


def tables(app: Glueball, caller: Caller) -> TableService:
    return TableService(app.store, scope_of(caller))


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


@operation("CreateDatabase")
def create_database(app: Glueball, caller: Caller, request: Request) -> Response:
    databases(app, caller).create(_database_input(request["DatabaseInput"]), request.get("Tags"))
    return {}


@operation("GetDatabase")
def get_database(app: Glueball, caller: Caller, request: Request) -> Response:
    database = databases(app, caller).get(request["Name"])
    return {"Database": database_wire(database, caller.account_id)}


@operation("GetDatabases")
def get_databases(app: Glueball, caller: Caller, request: Request) -> Response:
    share = request.get("ResourceShareType", "ALL")
    if share in ("FOREIGN", "FEDERATED"):
        return {"DatabaseList": []}  # nothing is shared with or federated into this catalog
    found, token = databases(app, caller).page(page_size(request.get("MaxResults")), request.get("NextToken"))
    wires = [database_wire(d, caller.account_id) for d in found]
    attributes = request.get("AttributesToGet")
    if attributes:
        keep = {"Name", "CatalogId"} | {a.title().replace("_", "") for a in attributes}
        wires = [{k: v for k, v in w.items() if k in keep} for w in wires]
    return paged("DatabaseList", wires, token)


@operation("UpdateDatabase")
def update_database(app: Glueball, caller: Caller, request: Request) -> Response:
    databases(app, caller).update(request["Name"], _database_input(request["DatabaseInput"]))
    return {}


@operation("DeleteDatabase")
def delete_database(app: Glueball, caller: Caller, request: Request) -> Response:
    databases(app, caller).delete(request["Name"])
    return {}


# -- tables -------------------------------------------------------------------------------------

_TABLE_TIMESTAMPS = ("LastAccessTime", "LastAnalyzedTime")
_UNSUPPORTED_TABLE_MEMBERS = ("TransactionId", "QueryAsOfTime")


def error_detail(err: GlueError) -> dict[str, str]:
    return {"ErrorCode": err.code, "ErrorMessage": err.message}


def table_input(wire: dict[str, Any] | None) -> Table:
    """A TableInput as a model; timestamps are kept as epoch seconds."""
    if wire is None:
        raise InvalidInputException("TableInput is required (OpenTableFormatInput is not supported by glueball)")
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


@operation("CreateTable")
def create_table(app: Glueball, caller: Caller, request: Request) -> Response:
    reject_unsupported(request, "TransactionId", "OpenTableFormatInput")
    table = table_input(request.get("TableInput"))
    if request.get("Name") and fold(request["Name"]) != fold(table.name):
        raise InvalidInputException(
            f"Name {request['Name']!r} and TableInput.Name {table.name!r} must name the same table")
    tables(app, caller).create(request["DatabaseName"], table, request.get("PartitionIndexes"))
    return {}


@operation("GetTable")
def get_table(app: Glueball, caller: Caller, request: Request) -> Response:
    reject_unsupported(request, *_UNSUPPORTED_TABLE_MEMBERS)
    table = tables(app, caller).get(request["DatabaseName"], request["Name"])
    return {"Table": table_wire(table, caller.account_id, request.get("AttributesToGet"))}


@operation("GetTables")
def get_tables(app: Glueball, caller: Caller, request: Request) -> Response:
    reject_unsupported(request, *_UNSUPPORTED_TABLE_MEMBERS)
    if request.get("ResourceShareType") in ("FOREIGN", "FEDERATED"):
        return {"TableList": []}
    found, token = tables(app, caller).page(request["DatabaseName"], request.get("Expression"),
                                            page_size(request.get("MaxResults")), request.get("NextToken"))
    attributes = request.get("AttributesToGet")
    return paged("TableList", [table_wire(t, caller.account_id, attributes) for t in found], token)


@operation("UpdateTable")
def update_table(app: Glueball, caller: Caller, request: Request) -> Response:
    reject_unsupported(request, "TransactionId", "ViewUpdateAction", "UpdateOpenTableFormatInput")
    table = table_input(request.get("TableInput"))
    if request.get("Name") and fold(request["Name"]) != fold(table.name):
        raise InvalidInputException(
            f"Renaming a table is not supported: Name {request['Name']!r} and TableInput.Name "
            f"{table.name!r} differ")
    tables(app, caller).update(request["DatabaseName"], table, bool(request.get("SkipArchive")),
                               request.get("VersionId"))
    return {}


@operation("DeleteTable")
def delete_table(app: Glueball, caller: Caller, request: Request) -> Response:
    reject_unsupported(request, "TransactionId")
    tables(app, caller).delete(request["DatabaseName"], request["Name"])
    return {}


@operation("BatchDeleteTable")
def batch_delete_table(app: Glueball, caller: Caller, request: Request) -> Response:
    reject_unsupported(request, "TransactionId")
    errors = tables(app, caller).batch_delete(request["DatabaseName"], request["TablesToDelete"])
    return {"Errors": [{"TableName": name, "ErrorDetail": error_detail(err)} for name, err in errors]}


@operation("SearchTables")
def search_tables_(app: Glueball, caller: Caller, request: Request) -> Response:
    if request.get("ResourceShareType") == "FOREIGN":
        return {"TableList": []}
    found = search_tables(tables(app, caller).all_tables(), request.get("SearchText"),
                          request.get("Filters") or [], request.get("SortCriteria") or [])
    offset = int(decode_token(request.get("NextToken")) or 0)
    size = page_size(request.get("MaxResults"))
    page = found[offset:offset + size]
    token = encode_token(offset + size) if offset + size < len(found) else None
    return paged("TableList", [table_wire(t, caller.account_id) for t in page], token)


@operation("GetTableVersion")
def get_table_version(app: Glueball, caller: Caller, request: Request) -> Response:
    version = tables(app, caller).get_version(request["DatabaseName"], request["TableName"],
                                              request.get("VersionId"))
    return {"TableVersion": _version_wire(version, caller.account_id)}


@operation("GetTableVersions")
def get_table_versions(app: Glueball, caller: Caller, request: Request) -> Response:
    versions, token = tables(app, caller).list_versions(
        request["DatabaseName"], request["TableName"], page_size(request.get("MaxResults")),
        request.get("NextToken"))
    return paged("TableVersions", [_version_wire(v, caller.account_id) for v in versions], token)


@operation("DeleteTableVersion")
def delete_table_version(app: Glueball, caller: Caller, request: Request) -> Response:
    errors = tables(app, caller).delete_versions(request["DatabaseName"], request["TableName"],
                                                 [request["VersionId"]])
    if errors:
        raise errors[0][1]
    return {}


@operation("BatchDeleteTableVersion")
def batch_delete_table_version(app: Glueball, caller: Caller, request: Request) -> Response:
    name = fold(request["TableName"])
    errors = tables(app, caller).delete_versions(request["DatabaseName"], name, request["VersionIds"])
    return {"Errors": [{"TableName": name, "VersionId": version, "ErrorDetail": error_detail(err)}
                       for version, err in errors]}

import glueball.catalog.function_handlers  # noqa: E402,F401
import glueball.catalog.partition_handlers  # noqa: E402,F401
import glueball.catalog.statistics_handlers  # noqa: E402,F401
import glueball.catalog.taggable  # noqa: E402,F401
