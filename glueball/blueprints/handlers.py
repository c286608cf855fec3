"""Wire handlers of Glue blueprints and blueprint runs."""

from __future__ import annotations

from typing import Any

from glueball.api.identity import Caller
from glueball.api.operations import Request, Response
from glueball.api.pagination import page_size, paged
from glueball.blueprints.area import OPERATIONS, BlueprintNeeds
from glueball.blueprints.blueprint_runs import BlueprintRunService, runner
from glueball.blueprints.models import Blueprint, BlueprintRun, Definition
from glueball.blueprints.service import BlueprintService
from glueball.store.scoped import Scope


def _scope(caller: Caller) -> Scope:
    return Scope(caller.account_id, caller.region)


def blueprints(needs: BlueprintNeeds, caller: Caller) -> BlueprintService:
    return BlueprintService(needs.store, _scope(caller), needs.home, needs.read_object)


def _definition_wire(definition: Definition, include_blueprint: bool, include_spec: bool) -> dict[str, Any]:
    wire: dict[str, Any] = {"BlueprintLocation": definition.location, "LastModifiedOn": definition.modified}
    if definition.description is not None:
        wire["Description"] = definition.description
    if include_blueprint and definition.service_location:
        wire["BlueprintServiceLocation"] = definition.service_location
    if include_spec and definition.parameter_spec:
        wire["ParameterSpec"] = definition.parameter_spec
    return wire


def blueprint_wire(blueprint: Blueprint, include_blueprint: bool = False, include_spec: bool = False) -> dict[str, Any]:
    wire = {"Name": blueprint.name, "CreatedOn": blueprint.created, "Status": blueprint.status.value,
            **_definition_wire(blueprint.definition, include_blueprint, include_spec)}
    if blueprint.error_message:
        wire["ErrorMessage"] = blueprint.error_message
    if blueprint.last_active is not None:
        wire["LastActiveDefinition"] = _definition_wire(blueprint.last_active, include_blueprint, include_spec)
    return wire


def run_wire(run: BlueprintRun) -> dict[str, Any]:
    wire: dict[str, Any] = {"BlueprintName": run.blueprint_name, "RunId": run.run_id, "State": run.state.value,
                            "StartedOn": run.started, "RoleArn": run.role_arn}
    optional = {"WorkflowName": run.workflow_name, "CompletedOn": run.completed, "ErrorMessage": run.error_message,
                "RollbackErrorMessage": run.rollback_error_message, "Parameters": run.parameters}
    wire.update({k: v for k, v in optional.items() if v is not None})
    return wire


@OPERATIONS.operation("CreateBlueprint")
def create_blueprint(needs: BlueprintNeeds, caller: Caller, request: Request) -> Response:
    created = blueprints(needs, caller).create(request["Name"], request.get("Description"),
                                               request["BlueprintLocation"], request.get("Tags"))
    return {"Name": created.name}


@OPERATIONS.operation("GetBlueprint")
def get_blueprint(needs: BlueprintNeeds, caller: Caller, request: Request) -> Response:
    found = blueprints(needs, caller).get(request["Name"])
    return {"Blueprint": blueprint_wire(found, bool(request.get("IncludeBlueprint")),
                                        bool(request.get("IncludeParameterSpec")))}


@OPERATIONS.operation("BatchGetBlueprints")
def batch_get_blueprints(needs: BlueprintNeeds, caller: Caller, request: Request) -> Response:
    found, missing = blueprints(needs, caller).get_many(request["Names"])
    include = bool(request.get("IncludeBlueprint")), bool(request.get("IncludeParameterSpec"))
    return {"Blueprints": [blueprint_wire(b, *include) for b in found], "MissingBlueprints": missing}


@OPERATIONS.operation("ListBlueprints")
def list_blueprints(needs: BlueprintNeeds, caller: Caller, request: Request) -> Response:
    names, token = blueprints(needs, caller).names(page_size(request.get("MaxResults"), 25, 25),
                                                   request.get("NextToken"), request.get("Tags"))
    return paged("Blueprints", names, token)


@OPERATIONS.operation("UpdateBlueprint")
def update_blueprint(needs: BlueprintNeeds, caller: Caller, request: Request) -> Response:
    updated = blueprints(needs, caller).update(request["Name"], request.get("Description"),
                                               request["BlueprintLocation"])
    return {"Name": updated.name}


@OPERATIONS.operation("DeleteBlueprint")
def delete_blueprint(needs: BlueprintNeeds, caller: Caller, request: Request) -> Response:
    blueprints(needs, caller).delete(request["Name"])
    return {"Name": request["Name"]}


@OPERATIONS.operation("StartBlueprintRun")
def start_blueprint_run(needs: BlueprintNeeds, caller: Caller, request: Request) -> Response:
    run_id = runner(needs).start(_scope(caller), caller.access_key, request["BlueprintName"],
                                 request.get("Parameters"), request["RoleArn"])
    return {"RunId": run_id}


@OPERATIONS.operation("GetBlueprintRun")
def get_blueprint_run(needs: BlueprintNeeds, caller: Caller, request: Request) -> Response:
    runner(needs)  # settles what a stopped server left before answering
    run = BlueprintRunService(needs, _scope(caller)).get(request["BlueprintName"], request["RunId"])
    return {"BlueprintRun": run_wire(run)}


@OPERATIONS.operation("GetBlueprintRuns")
def get_blueprint_runs(needs: BlueprintNeeds, caller: Caller, request: Request) -> Response:
    runner(needs)
    runs, token = BlueprintRunService(needs, _scope(caller)).page(request["BlueprintName"],
                                                                  page_size(request.get("MaxResults")),
                                                                  request.get("NextToken"))
    return paged("BlueprintRuns", [run_wire(r) for r in runs], token)
