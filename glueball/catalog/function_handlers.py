"""Wire handlers of user-defined functions."""

from __future__ import annotations

from typing import Any

from glueball.api.identity import Caller
from glueball.api.operations import Request, Response
from glueball.api.pagination import page_size, paged
from glueball.catalog.area import OPERATIONS, CatalogNeeds
from glueball.catalog.functions import FunctionService, UserDefinedFunction
from glueball.catalog.lookup import fold
from glueball.catalog.models import Scope
from glueball.clock import epoch


def functions(needs: CatalogNeeds, caller: Caller) -> FunctionService:
    return FunctionService(needs.store, Scope(caller.account_id, caller.region))


def function_input(wire: dict[str, Any], database: str) -> UserDefinedFunction:
    """A UserDefinedFunctionInput as a model; ResourceUris timestamps become epoch seconds."""
    spec = {k: v for k, v in wire.items() if k != "FunctionName"}
    if "ResourceUris" in spec:
        uris = []
        for uri in spec["ResourceUris"]:
            uri = dict(uri)
            if "LastModified" in uri:
                uri["LastModified"] = epoch(uri["LastModified"])
            uris.append(uri)
        spec["ResourceUris"] = uris
    return UserDefinedFunction(database_name=fold(database), name=wire.get("FunctionName") or "", spec=spec)


def function_wire(function: UserDefinedFunction, catalog_id: str) -> dict[str, Any]:
    wire: dict[str, Any] = {"FunctionName": function.name, "DatabaseName": function.database_name}
    wire.update(function.spec)
    wire["CreateTime"] = function.create_time
    wire["CatalogId"] = catalog_id
    return wire


@OPERATIONS.operation("CreateUserDefinedFunction")
def create_user_defined_function(needs: CatalogNeeds, caller: Caller, request: Request) -> Response:
    database = request["DatabaseName"]
    functions(needs, caller).create(database, function_input(request["FunctionInput"], database))
    return {}


@OPERATIONS.operation("GetUserDefinedFunction")
def get_user_defined_function(needs: CatalogNeeds, caller: Caller, request: Request) -> Response:
    function = functions(needs, caller).get(request["DatabaseName"], request["FunctionName"])
    return {"UserDefinedFunction": function_wire(function, caller.account_id)}


@OPERATIONS.operation("GetUserDefinedFunctions")
def get_user_defined_functions(needs: CatalogNeeds, caller: Caller, request: Request) -> Response:
    found, token = functions(needs, caller).page(
        request.get("DatabaseName"), request["Pattern"], request.get("FunctionType"),
        page_size(request.get("MaxResults"), default=100, limit=100), request.get("NextToken"),
    )
    return paged("UserDefinedFunctions", [function_wire(f, caller.account_id) for f in found], token)


@OPERATIONS.operation("UpdateUserDefinedFunction")
def update_user_defined_function(needs: CatalogNeeds, caller: Caller, request: Request) -> Response:
    database = request["DatabaseName"]
    functions(needs, caller).update(database, request["FunctionName"],
                                  function_input(request["FunctionInput"], database))
    return {}


@OPERATIONS.operation("DeleteUserDefinedFunction")
def delete_user_defined_function(needs: CatalogNeeds, caller: Caller, request: Request) -> Response:
    functions(needs, caller).delete(request["DatabaseName"], request["FunctionName"])
    return {}
