"""Wire handlers of the Data Catalog: databases and tables.

Partitions, statistics and functions have handler modules of their own,
imported at the bottom so that all catalog operations register together.
"""

from __future__ import annotations

from typing import Any

from glueball.api.dispatch import Request, Response, operation
from glueball.api.identity import Caller
from glueball.api.pagination import page_size
from glueball.app import Glueball
from glueball.catalog.databases import DatabaseService
from glueball.catalog.models import Database, Scope
from glueball.errors import InvalidInputException


def scope_of(caller: Caller) -> Scope:
    return Scope(caller.account_id, caller.region)


def databases(app: Glueball, caller: Caller) -> DatabaseService:
    return DatabaseService(app.store, scope_of(caller))


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
    found, token = databases(app, caller).list(page_size(request.get("MaxResults")), request.get("NextToken"))
    wires = [database_wire(d, caller.account_id) for d in found]
    attributes = request.get("AttributesToGet")
    if attributes:
        keep = {"Name", "CatalogId"} | {a.title().replace("_", "") for a in attributes}
        wires = [{k: v for k, v in w.items() if k in keep} for w in wires]
    response: Response = {"DatabaseList": wires}
    if token:
        response["NextToken"] = token
    return response


@operation("UpdateDatabase")
def update_database(app: Glueball, caller: Caller, request: Request) -> Response:
    databases(app, caller).update(request["Name"], _database_input(request["DatabaseInput"]))
    return {}


@operation("DeleteDatabase")
def delete_database(app: Glueball, caller: Caller, request: Request) -> Response:
    databases(app, caller).delete(request["Name"])
    return {}
