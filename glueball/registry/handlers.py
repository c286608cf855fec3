"""Wire handlers of Glue's schema registry operations: Glue's shapes in, typed references to the services."""

from __future__ import annotations

from typing import Any

from glueball.api.identity import Caller
from glueball.api.operations import Request, Response
from glueball.api.pagination import page_size, paged
from glueball.errors import InvalidInputException
from glueball.registry.area import OPERATIONS, RegistryNeeds
from glueball.registry.models import (
    Compatibility,
    DataFormat,
    Registry,
    RegistryRef,
    Schema,
    SchemaRef,
    SchemaVersion,
    VersionRef,
    timestamp,
)
from glueball.registry.service import RegistryService
from glueball.registry.versions import VersionService, check_validity
from glueball.store.scoped import Scope


def _scope(caller: Caller) -> Scope:
    return Scope(caller.account_id, caller.region)


def registries(needs: RegistryNeeds, caller: Caller) -> RegistryService:
    return RegistryService(needs.store, _scope(caller))


def versions(needs: RegistryNeeds, caller: Caller) -> VersionService:
    return VersionService(needs.store, _scope(caller))


def registry_ref(wire: dict[str, Any] | None) -> RegistryRef | None:
    return None if wire is None else RegistryRef(wire.get("RegistryName"), wire.get("RegistryArn"))


def schema_ref(wire: dict[str, Any] | None) -> SchemaRef:
    wire = wire or {}
    return SchemaRef(wire.get("SchemaArn"), wire.get("RegistryName"), wire.get("SchemaName"))


def version_ref(request: Request) -> VersionRef:
    """A version named by ``SchemaVersionId``, or by ``SchemaId`` and ``SchemaVersionNumber``."""
    number = request.get("SchemaVersionNumber") or {}
    schema = schema_ref(request["SchemaId"]) if request.get("SchemaId") is not None else None
    return VersionRef(schema, request.get("SchemaVersionId"), number.get("VersionNumber"),
                      bool(number.get("LatestVersion")))


def _required(request: Request, member: str) -> Any:
    if request.get(member) is None:
        raise InvalidInputException(f"{member} is required")
    return request[member]


def registry_wire(registry: Registry) -> dict[str, Any]:
    wire: dict[str, Any] = {"RegistryName": registry.name, "RegistryArn": registry.arn}
    if registry.description is not None:
        wire["Description"] = registry.description
    wire.update(Status=registry.status.value, CreatedTime=timestamp(registry.created),
                UpdatedTime=timestamp(registry.updated))
    return wire


def schema_wire(schema: Schema) -> dict[str, Any]:
    wire: dict[str, Any] = {"RegistryName": schema.registry_name, "RegistryArn": schema.registry_arn,
                            "SchemaName": schema.name, "SchemaArn": schema.arn}
    if schema.description is not None:
        wire["Description"] = schema.description
    wire.update(DataFormat=schema.data_format.value, Compatibility=schema.compatibility.value,
                SchemaCheckpoint=schema.checkpoint, LatestSchemaVersion=schema.latest_version,
                NextSchemaVersion=schema.next_version, SchemaStatus=schema.status.value,
                CreatedTime=timestamp(schema.created), UpdatedTime=timestamp(schema.updated))
    return wire


def _version_item(version: SchemaVersion) -> dict[str, Any]:
    return {"SchemaArn": version.schema.arn, "SchemaVersionId": version.version_id,
            "VersionNumber": version.number, "Status": version.status.value,
            "CreatedTime": timestamp(version.created)}


# -- registries ----------------------------------------------------------------------------------

@OPERATIONS.operation("CreateRegistry")
def create_registry(needs: RegistryNeeds, caller: Caller, request: Request) -> Response:
    registry = registries(needs, caller).create_registry(request["RegistryName"], request.get("Description"),
                                                         request.get("Tags"))
    wire = {k: v for k, v in registry_wire(registry).items() if k in ("RegistryName", "RegistryArn", "Description")}
    return {**wire, "Tags": request.get("Tags") or {}}


@OPERATIONS.operation("GetRegistry")
def get_registry(needs: RegistryNeeds, caller: Caller, request: Request) -> Response:
    ref = registry_ref(request["RegistryId"])
    assert ref is not None
    return registry_wire(registries(needs, caller).get_registry(ref))


@OPERATIONS.operation("ListRegistries")
def list_registries(needs: RegistryNeeds, caller: Caller, request: Request) -> Response:
    found, token = registries(needs, caller).list_registries(page_size(request.get("MaxResults"), 25, 100),
                                                             request.get("NextToken"))
    return paged("Registries", [registry_wire(r) for r in found], token)


@OPERATIONS.operation("UpdateRegistry")
def update_registry(needs: RegistryNeeds, caller: Caller, request: Request) -> Response:
    ref = registry_ref(request["RegistryId"])
    assert ref is not None
    registry = registries(needs, caller).update_registry(ref, request["Description"])
    return {"RegistryName": registry.name, "RegistryArn": registry.arn}


@OPERATIONS.operation("DeleteRegistry")
def delete_registry(needs: RegistryNeeds, caller: Caller, request: Request) -> Response:
    ref = registry_ref(request["RegistryId"])
    assert ref is not None
    registry = registries(needs, caller).delete_registry(ref)
    return {"RegistryName": registry.name, "RegistryArn": registry.arn, "Status": registry.status.value}


# -- schemas -------------------------------------------------------------------------------------

@OPERATIONS.operation("CreateSchema")
def create_schema(needs: RegistryNeeds, caller: Caller, request: Request) -> Response:
    version = registries(needs, caller).create_schema(
        registry_ref(request.get("RegistryId")), request["SchemaName"], DataFormat(request["DataFormat"]),
        Compatibility(request.get("Compatibility") or "BACKWARD"), request.get("Description"),
        request.get("SchemaDefinition"), request.get("Tags"))
    wire = schema_wire(version.schema)
    wire.pop("CreatedTime")
    wire.pop("UpdatedTime")
    return {**wire, "Tags": request.get("Tags") or {}, "SchemaVersionId": version.version_id,
            "SchemaVersionStatus": version.status.value}


@OPERATIONS.operation("GetSchema")
def get_schema(needs: RegistryNeeds, caller: Caller, request: Request) -> Response:
    return schema_wire(registries(needs, caller).get_schema(schema_ref(request["SchemaId"])))


@OPERATIONS.operation("ListSchemas")
def list_schemas(needs: RegistryNeeds, caller: Caller, request: Request) -> Response:
    found, token = registries(needs, caller).list_schemas(
        registry_ref(request.get("RegistryId")), page_size(request.get("MaxResults"), 25, 100),
        request.get("NextToken"))
    keep = ("RegistryName", "SchemaName", "SchemaArn", "Description", "SchemaStatus", "CreatedTime", "UpdatedTime")
    return paged("Schemas", [{k: v for k, v in schema_wire(s).items() if k in keep} for s in found], token)


@OPERATIONS.operation("UpdateSchema")
def update_schema(needs: RegistryNeeds, caller: Caller, request: Request) -> Response:
    wire_number = request.get("SchemaVersionNumber")
    checkpoint = None
    if wire_number is not None:
        checkpoint = VersionRef(None, None, wire_number.get("VersionNumber"), bool(wire_number.get("LatestVersion")))
    compatibility = request.get("Compatibility")
    schema = registries(needs, caller).update_schema(
        schema_ref(request["SchemaId"]), checkpoint, Compatibility(compatibility) if compatibility else None,
        request.get("Description"))
    return {"SchemaArn": schema.arn, "SchemaName": schema.name, "RegistryName": schema.registry_name}


@OPERATIONS.operation("DeleteSchema")
def delete_schema(needs: RegistryNeeds, caller: Caller, request: Request) -> Response:
    schema = registries(needs, caller).delete_schema(schema_ref(request["SchemaId"]))
    return {"SchemaArn": schema.arn, "SchemaName": schema.name, "Status": schema.status.value}


# -- versions ------------------------------------------------------------------------------------

@OPERATIONS.operation("RegisterSchemaVersion")
def register_schema_version(needs: RegistryNeeds, caller: Caller, request: Request) -> Response:
    version = versions(needs, caller).register(schema_ref(request["SchemaId"]), request["SchemaDefinition"])
    return {"SchemaVersionId": version.version_id, "VersionNumber": version.number, "Status": version.status.value}


@OPERATIONS.operation("GetSchemaVersion")
def get_schema_version(needs: RegistryNeeds, caller: Caller, request: Request) -> Response:
    version = versions(needs, caller).get(version_ref(request))
    return {"SchemaVersionId": version.version_id, "SchemaDefinition": version.definition,
            "DataFormat": version.schema.data_format.value, "SchemaArn": version.schema.arn,
            "VersionNumber": version.number, "Status": version.status.value,
            "CreatedTime": timestamp(version.created)}


@OPERATIONS.operation("ListSchemaVersions")
def list_schema_versions(needs: RegistryNeeds, caller: Caller, request: Request) -> Response:
    found, token = versions(needs, caller).page(schema_ref(request["SchemaId"]),
                                                page_size(request.get("MaxResults"), 25, 100),
                                                request.get("NextToken"))
    return paged("Schemas", [_version_item(v) for v in found], token)


@OPERATIONS.operation("GetSchemaByDefinition")
def get_schema_by_definition(needs: RegistryNeeds, caller: Caller, request: Request) -> Response:
    version = versions(needs, caller).by_definition(schema_ref(request["SchemaId"]), request["SchemaDefinition"])
    return {"SchemaVersionId": version.version_id, "SchemaArn": version.schema.arn,
            "DataFormat": version.schema.data_format.value, "Status": version.status.value,
            "CreatedTime": timestamp(version.created)}


@OPERATIONS.operation("GetSchemaVersionsDiff")
def get_schema_versions_diff(needs: RegistryNeeds, caller: Caller, request: Request) -> Response:
    service = versions(needs, caller)
    ref = schema_ref(request["SchemaId"])

    def number(wire: dict[str, Any]) -> int:
        if wire.get("LatestVersion"):
            return service.get(VersionRef(ref, None, None, True)).number
        return int(_required(wire, "VersionNumber"))

    first, second = number(request["FirstSchemaVersionNumber"]), number(request["SecondSchemaVersionNumber"])
    return {"Diff": service.diff(ref, first, second)}


@OPERATIONS.operation("CheckSchemaVersionValidity")
def check_schema_version_validity(needs: RegistryNeeds, caller: Caller, request: Request) -> Response:
    error = check_validity(DataFormat(request["DataFormat"]), request["SchemaDefinition"])
    return {"Valid": True} if error is None else {"Valid": False, "Error": error[:5000]}


@OPERATIONS.operation("DeleteSchemaVersions")
def delete_schema_versions(needs: RegistryNeeds, caller: Caller, request: Request) -> Response:
    errors = versions(needs, caller).delete(schema_ref(request["SchemaId"]), request["Versions"])
    return {"SchemaVersionErrors": [{"VersionNumber": number, "ErrorDetails": {
        "ErrorCode": err.code, "ErrorMessage": err.message}} for number, err in errors]}


# -- metadata ------------------------------------------------------------------------------------

def _metadata_answer(version: SchemaVersion, key: str, value: str) -> Response:
    return {"SchemaArn": version.schema.arn, "SchemaName": version.schema.name,
            "RegistryName": version.schema.registry_name, "LatestVersion": version.is_latest,
            "VersionNumber": version.number, "SchemaVersionId": version.version_id,
            "MetadataKey": key, "MetadataValue": value}


@OPERATIONS.operation("PutSchemaVersionMetadata")
def put_schema_version_metadata(needs: RegistryNeeds, caller: Caller, request: Request) -> Response:
    pair = request["MetadataKeyValue"]
    key, value = _required(pair, "MetadataKey"), _required(pair, "MetadataValue")
    version = versions(needs, caller).put_metadata(version_ref(request), key, value)
    return _metadata_answer(version, key, value)


@OPERATIONS.operation("RemoveSchemaVersionMetadata")
def remove_schema_version_metadata(needs: RegistryNeeds, caller: Caller, request: Request) -> Response:
    pair = request["MetadataKeyValue"]
    key, value = _required(pair, "MetadataKey"), _required(pair, "MetadataValue")
    version = versions(needs, caller).remove_metadata(version_ref(request), key, value)
    return _metadata_answer(version, key, value)


@OPERATIONS.operation("QuerySchemaVersionMetadata")
def query_schema_version_metadata(needs: RegistryNeeds, caller: Caller, request: Request) -> Response:
    wanted = [(_required(item, "MetadataKey"), item.get("MetadataValue")) for item in request.get("MetadataList") or []]
    version, by_key, token = versions(needs, caller).query_metadata(
        version_ref(request), wanted, page_size(request.get("MaxResults"), 50, 50), request.get("NextToken"))
    info = {key: {"MetadataValue": entries[0].value, "CreatedTime": timestamp(entries[0].created),
                  "OtherMetadataValueList": [{"MetadataValue": e.value, "CreatedTime": timestamp(e.created)}
                                             for e in entries[1:]]}
            for key, entries in by_key.items()}
    answer: Response = {"MetadataInfoMap": info, "SchemaVersionId": version.version_id}
    if token:
        answer["NextToken"] = token
    return answer
