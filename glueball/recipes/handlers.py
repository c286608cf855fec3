"""DataBrew's recipe operations: wire shapes in and out of :class:`~glueball.recipes.service.RecipeService`."""

from __future__ import annotations

from typing import Any

from glueball.api.identity import Caller
from glueball.api.operations import Request, Response
from glueball.api.pagination import page_size
from glueball.recipes.area import OPERATIONS, RecipeNeeds
from glueball.recipes.models import RecipeVersion
from glueball.recipes.service import RecipeService
from glueball.store.scoped import Scope


def _service(needs: RecipeNeeds, caller: Caller) -> RecipeService:
    return RecipeService(needs.store, Scope(caller.account_id, caller.region), needs.quotas)


def _who(caller: Caller) -> str:
    return caller.who.arn


def _recipe(found: RecipeVersion) -> dict[str, Any]:
    wire: dict[str, Any] = {
        "Name": found.name, "RecipeVersion": found.version, "Steps": found.steps, "ResourceArn": found.arn,
        "CreatedBy": found.created_by, "CreateDate": found.create_date, "LastModifiedBy": found.last_modified_by,
        "LastModifiedDate": found.last_modified_date, "Description": found.description,
        "PublishedBy": found.published_by, "PublishedDate": found.published_date, "Tags": found.tags or None}
    return {key: value for key, value in wire.items() if value is not None}


@OPERATIONS.operation("CreateRecipe")
def create_recipe(needs: RecipeNeeds, caller: Caller, request: Request) -> Response:
    name = _service(needs, caller).create_recipe(request["Name"], request["Steps"], _who(caller),
                                                 request.get("Description"), request.get("Tags"))
    return {"Name": name}


@OPERATIONS.operation("UpdateRecipe")
def update_recipe(needs: RecipeNeeds, caller: Caller, request: Request) -> Response:
    return {"Name": _service(needs, caller).update_recipe(request["Name"], _who(caller), request.get("Steps"),
                                                          request.get("Description"))}


@OPERATIONS.operation("DescribeRecipe")
def describe_recipe(needs: RecipeNeeds, caller: Caller, request: Request) -> Response:
    return _recipe(_service(needs, caller).describe_recipe(request["Name"], request.get("RecipeVersion")))


@OPERATIONS.operation("ListRecipes")
def list_recipes(needs: RecipeNeeds, caller: Caller, request: Request) -> Response:
    found, token = _service(needs, caller).list_recipes(request.get("RecipeVersion"),
                                                        page_size(request.get("MaxResults"), limit=100),
                                                        request.get("NextToken"))
    return {"Recipes": [_recipe(r) for r in found], **({"NextToken": token} if token else {})}


@OPERATIONS.operation("ListRecipeVersions")
def list_recipe_versions(needs: RecipeNeeds, caller: Caller, request: Request) -> Response:
    found, token = _service(needs, caller).list_recipe_versions(
        request["Name"], page_size(request.get("MaxResults"), limit=100), request.get("NextToken"))
    return {"Recipes": [_recipe(r) for r in found], **({"NextToken": token} if token else {})}


@OPERATIONS.operation("PublishRecipe")
def publish_recipe(needs: RecipeNeeds, caller: Caller, request: Request) -> Response:
    return {"Name": _service(needs, caller).publish_recipe(request["Name"], _who(caller), request.get("Description"))}


@OPERATIONS.operation("DeleteRecipeVersion")
def delete_recipe_version(needs: RecipeNeeds, caller: Caller, request: Request) -> Response:
    name, version = _service(needs, caller).delete_recipe_version(request["Name"], request["RecipeVersion"])
    return {"Name": name, "RecipeVersion": version}


@OPERATIONS.operation("BatchDeleteRecipeVersion")
def batch_delete_recipe_version(needs: RecipeNeeds, caller: Caller, request: Request) -> Response:
    errors = _service(needs, caller).batch_delete_recipe_version(request["Name"], request["RecipeVersions"])
    response: Response = {"Name": request["Name"]}
    if errors:
        response["Errors"] = [{"ErrorCode": e.code, "ErrorMessage": e.message, "RecipeVersion": e.version}
                              for e in errors]
    return response
