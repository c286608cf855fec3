"""Wire handlers of Glue connections."""

from __future__ import annotations

from typing import Any

from glueball.api.identity import Caller
from glueball.api.operations import Request, Response
from glueball.api.pagination import page_size, paged
from glueball.connections.area import OPERATIONS, ConnectionNeeds
from glueball.connections.models import (
    CONNECTION_SCHEMA_VERSION,
    Connection,
    ConnectionType,
    PhysicalConnectionRequirements,
    is_secret_property,
)
from glueball.connections.probe import probe
from glueball.connections.service import ConnectionFilter, ConnectionService
from glueball.errors import InvalidInputException
from glueball.store.scoped import Scope

_SUPPORTED_TYPES = ", ".join(t.value for t in ConnectionType)
_OVERRIDE_MEMBERS = {"SPARK": "SparkProperties", "ATHENA": "AthenaProperties", "PYTHON": "PythonProperties"}


def connections(needs: ConnectionNeeds, caller: Caller) -> ConnectionService:
    return ConnectionService(needs.store, Scope(caller.account_id, caller.region))


def connection_input(wire: dict[str, Any], updated_by: str | None) -> Connection:
    """A ConnectionInput as a model; members glueball cannot honour are refused."""
    kind = wire["ConnectionType"]
    if kind not in ConnectionType.__members__:
        raise InvalidInputException(
            f"ConnectionType {kind} is not supported by glueball; supported types are: {_SUPPORTED_TYPES}"
        )
    for member in ("AuthenticationConfiguration", "ValidateForComputeEnvironments"):
        if wire.get(member):
            raise InvalidInputException(f"ConnectionInput.{member} is not supported by glueball")
    if wire.get("ValidateCredentials"):
        raise InvalidInputException("ConnectionInput.ValidateCredentials is not supported by glueball; "
                                    "test the connection from a job instead")
    physical = wire.get("PhysicalConnectionRequirements")
    return Connection(
        name=wire["Name"],
        connection_type=ConnectionType(kind),
        properties=dict(wire["ConnectionProperties"]),
        description=wire.get("Description"),
        match_criteria=list(wire.get("MatchCriteria") or []),
        physical=PhysicalConnectionRequirements.from_wire(physical) if physical is not None else None,
        extra={k: wire[k] for k in _OVERRIDE_MEMBERS.values() if wire.get(k) is not None},
        last_updated_by=updated_by,
    )


def connection_wire(connection: Connection, hide_password: bool = False,
                    environment: str | None = None) -> dict[str, Any]:
    """The Connection structure of the model, with an optional compute-environment override applied."""
    shown = connection.without_secrets() if hide_password else connection
    properties = dict(shown.properties)
    if environment is not None:
        overrides = shown.extra.get(_OVERRIDE_MEMBERS[environment]) or {}
        properties.update({k: v for k, v in overrides.items() if not (hide_password and is_secret_property(k))})
    wire: dict[str, Any] = {
        "Name": shown.name,
        "ConnectionType": shown.connection_type.value,
        "MatchCriteria": list(shown.match_criteria),
        "ConnectionProperties": properties,
    }
    if shown.description is not None:
        wire["Description"] = shown.description
    if shown.physical is not None:
        wire["PhysicalConnectionRequirements"] = shown.physical.to_wire()
    for member, value in shown.extra.items():
        if hide_password and member in _OVERRIDE_MEMBERS.values():
            value = {k: v for k, v in value.items() if not is_secret_property(k)}
        wire[member] = value
    wire["CreationTime"] = shown.create_time
    wire["LastUpdatedTime"] = shown.update_time
    if shown.last_updated_by is not None:
        wire["LastUpdatedBy"] = shown.last_updated_by
    wire["Status"] = shown.status.value
    wire["ConnectionSchemaVersion"] = CONNECTION_SCHEMA_VERSION
    return wire


def _updated_by(caller: Caller) -> str:
    return caller.access_key or caller.account_id


@OPERATIONS.operation("CreateConnection")
def create_connection(needs: ConnectionNeeds, caller: Caller, request: Request) -> Response:
    connection = connection_input(request["ConnectionInput"], _updated_by(caller))
    connections(needs, caller).create(connection, request.get("Tags"))
    return {"CreateConnectionStatus": connection.status.value}


@OPERATIONS.operation("GetConnection")
def get_connection(needs: ConnectionNeeds, caller: Caller, request: Request) -> Response:
    connection = connections(needs, caller).get(request["Name"])
    hide = bool(request.get("HidePassword"))
    return {"Connection": connection_wire(connection, hide, request.get("ApplyOverrideForComputeEnvironment"))}


@OPERATIONS.operation("GetConnections")
def get_connections(needs: ConnectionNeeds, caller: Caller, request: Request) -> Response:
    wire_filter = request.get("Filter") or {}
    connection_filter = ConnectionFilter(
        match_criteria=list(wire_filter.get("MatchCriteria") or []),
        connection_type=wire_filter.get("ConnectionType"),
        schema_version=wire_filter.get("ConnectionSchemaVersion"),
    )
    hide = bool(request.get("HidePassword"))
    found, token = connections(needs, caller).page(
        connection_filter, page_size(request.get("MaxResults")), request.get("NextToken"), hide
    )
    return paged("ConnectionList", [connection_wire(c, hide) for c in found], token)


@OPERATIONS.operation("UpdateConnection")
def update_connection(needs: ConnectionNeeds, caller: Caller, request: Request) -> Response:
    connection = connection_input(request["ConnectionInput"], _updated_by(caller))
    connections(needs, caller).update(request["Name"], connection)
    return {}


@OPERATIONS.operation("DeleteConnection")
def delete_connection(needs: ConnectionNeeds, caller: Caller, request: Request) -> Response:
    connections(needs, caller).delete(request["ConnectionName"])
    return {}


@OPERATIONS.operation("BatchDeleteConnection")
def batch_delete_connection(needs: ConnectionNeeds, caller: Caller, request: Request) -> Response:
    succeeded, errors = connections(needs, caller).delete_many(request["ConnectionNameList"])
    return {
        "Succeeded": succeeded,
        "Errors": {name: {"ErrorCode": err.code, "ErrorMessage": err.message} for name, err in errors.items()},
    }


@OPERATIONS.operation("TestConnection")
def test_connection(needs: ConnectionNeeds, caller: Caller, request: Request) -> Response:
    name, wire = request.get("ConnectionName"), request.get("TestConnectionInput")
    if (name is None) == (wire is None):
        raise InvalidInputException("TestConnection takes either ConnectionName or TestConnectionInput, not "
                                    f"{'both' if name is not None else 'neither'}")
    if name is not None:
        connection = connections(needs, caller).get(name)
        probe(f"Connection {name}", connection.connection_type.value, connection.properties, needs.jdbc_jars())
        return {}
    assert wire is not None
    properties = dict(wire["ConnectionProperties"])
    authentication = wire.get("AuthenticationConfiguration") or {}
    basic = authentication.get("BasicAuthenticationCredentials")
    if authentication and (authentication.get("AuthenticationType") not in (None, "BASIC") or basic is None
                           or set(authentication) - {"AuthenticationType", "BasicAuthenticationCredentials"}):
        raise InvalidInputException("TestConnectionInput.AuthenticationConfiguration: glueball tests BASIC "
                                    "authentication (BasicAuthenticationCredentials) only")
    if basic:
        properties.update({"USERNAME": basic.get("Username", ""), "PASSWORD": basic.get("Password", "")})
    kind = wire["ConnectionType"]
    if kind not in (ConnectionType.JDBC, ConnectionType.KAFKA):
        raise InvalidInputException(f"TestConnection supports JDBC and KAFKA connections, not {kind}")
    probe("TestConnectionInput", kind, properties, needs.jdbc_jars())
    return {}
