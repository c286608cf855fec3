"""Wire handlers of Glue development endpoints."""

from __future__ import annotations

from typing import Any

from glueball.api.identity import Caller
from glueball.api.operations import Request, Response
from glueball.api.pagination import page_size, paged
from glueball.devendpoints.area import OPERATIONS, DevEndpointNeeds
from glueball.devendpoints.models import DevEndpoint, DevEndpointChange
from glueball.devendpoints.service import DevEndpointService
from glueball.store.scoped import Scope

_SETTINGS = ("SecurityGroupIds", "SubnetId", "NumberOfNodes", "WorkerType", "GlueVersion", "NumberOfWorkers",
             "ExtraPythonLibsS3Path", "ExtraJarsS3Path", "SecurityConfiguration")


def endpoints(needs: DevEndpointNeeds, caller: Caller) -> DevEndpointService:
    return DevEndpointService(needs.store, Scope(caller.account_id, caller.region))


def endpoint_wire(endpoint: DevEndpoint) -> dict[str, Any]:
    wire: dict[str, Any] = {"EndpointName": endpoint.name, "RoleArn": endpoint.role_arn, "Status": endpoint.status,
                            **endpoint.settings, "CreatedTimestamp": endpoint.created,
                            "LastModifiedTimestamp": endpoint.modified, "Arguments": dict(endpoint.arguments)}
    if endpoint.public_key is not None:
        wire["PublicKey"] = endpoint.public_key
    if endpoint.public_keys:
        wire["PublicKeys"] = list(endpoint.public_keys)
    if endpoint.last_update_status is not None:
        wire["LastUpdateStatus"] = endpoint.last_update_status
    return wire


@OPERATIONS.operation("CreateDevEndpoint")
def create_dev_endpoint(needs: DevEndpointNeeds, caller: Caller, request: Request) -> Response:
    endpoint = DevEndpoint(name=request["EndpointName"], role_arn=request["RoleArn"],
                           settings={k: request[k] for k in _SETTINGS if request.get(k) is not None},
                           public_key=request.get("PublicKey"), public_keys=list(request.get("PublicKeys") or []),
                           arguments=dict(request.get("Arguments") or {}))
    created = endpoints(needs, caller).create(endpoint, request.get("Tags"))
    wire = endpoint_wire(created)
    for member in ("PublicKey", "PublicKeys", "LastModifiedTimestamp", "LastUpdateStatus"):  # not in the answer
        wire.pop(member, None)
    return wire


@OPERATIONS.operation("GetDevEndpoint")
def get_dev_endpoint(needs: DevEndpointNeeds, caller: Caller, request: Request) -> Response:
    return {"DevEndpoint": endpoint_wire(endpoints(needs, caller).get(request["EndpointName"]))}


@OPERATIONS.operation("GetDevEndpoints")
def get_dev_endpoints(needs: DevEndpointNeeds, caller: Caller, request: Request) -> Response:
    found, token = endpoints(needs, caller).page(page_size(request.get("MaxResults")), request.get("NextToken"))
    return paged("DevEndpoints", [endpoint_wire(e) for e in found], token)


@OPERATIONS.operation("ListDevEndpoints")
def list_dev_endpoints(needs: DevEndpointNeeds, caller: Caller, request: Request) -> Response:
    found, token = endpoints(needs, caller).page(page_size(request.get("MaxResults")), request.get("NextToken"),
                                                 request.get("Tags"))
    return paged("DevEndpointNames", [e.name for e in found], token)


@OPERATIONS.operation("BatchGetDevEndpoints")
def batch_get_dev_endpoints(needs: DevEndpointNeeds, caller: Caller, request: Request) -> Response:
    found, missing = endpoints(needs, caller).get_many(request["DevEndpointNames"])
    return {"DevEndpoints": [endpoint_wire(e) for e in found], "DevEndpointsNotFound": missing}


@OPERATIONS.operation("UpdateDevEndpoint")
def update_dev_endpoint(needs: DevEndpointNeeds, caller: Caller, request: Request) -> Response:
    libraries = request.get("CustomLibraries") or {}
    change = DevEndpointChange(
        public_key=request.get("PublicKey"), add_public_keys=list(request.get("AddPublicKeys") or []),
        delete_public_keys=list(request.get("DeletePublicKeys") or []),
        python_libs=libraries.get("ExtraPythonLibsS3Path"), jars=libraries.get("ExtraJarsS3Path"),
        delete_arguments=list(request.get("DeleteArguments") or []),
        add_arguments=dict(request.get("AddArguments") or {}))
    endpoints(needs, caller).update(request["EndpointName"], change)
    return {}


@OPERATIONS.operation("DeleteDevEndpoint")
def delete_dev_endpoint(needs: DevEndpointNeeds, caller: Caller, request: Request) -> Response:
    endpoints(needs, caller).delete(request["EndpointName"])
    return {}
