"""Wire handlers of resource tags."""

from __future__ import annotations

from glueball.api.identity import Caller
from glueball.api.operations import Request, Response
from glueball.store.scoped import Scope
from glueball.tagging.area import OPERATIONS, TaggingNeeds
from glueball.tagging.service import TagService


def _tags(needs: TaggingNeeds, caller: Caller) -> TagService:
    return TagService(needs.store, Scope(caller.account_id, caller.region))


@OPERATIONS.operation("TagResource")
def tag_resource(needs: TaggingNeeds, caller: Caller, request: Request) -> Response:
    _tags(needs, caller).tag(request["ResourceArn"], request["TagsToAdd"])
    return {}


@OPERATIONS.operation("UntagResource")
def untag_resource(needs: TaggingNeeds, caller: Caller, request: Request) -> Response:
    _tags(needs, caller).untag(request["ResourceArn"], request["TagsToRemove"])
    return {}


@OPERATIONS.operation("GetTags")
def get_tags(needs: TaggingNeeds, caller: Caller, request: Request) -> Response:
    return {"Tags": _tags(needs, caller).get(request["ResourceArn"])}
