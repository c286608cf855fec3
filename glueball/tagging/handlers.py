"""Wire handlers of resource tags."""

from __future__ import annotations

from glueball.api.dispatch import Request, Response, operation
from glueball.api.identity import Caller
from glueball.app import Glueball
from glueball.catalog.models import Scope
from glueball.tagging.service import TagService


def _tags(app: Glueball, caller: Caller) -> TagService:
    return TagService(app.store, Scope(caller.account_id, caller.region))


@operation("TagResource")
def tag_resource(app: Glueball, caller: Caller, request: Request) -> Response:
    _tags(app, caller).tag(request["ResourceArn"], request["TagsToAdd"])
    return {}


@operation("UntagResource")
def untag_resource(app: Glueball, caller: Caller, request: Request) -> Response:
    _tags(app, caller).untag(request["ResourceArn"], request["TagsToRemove"])
    return {}


@operation("GetTags")
def get_tags(app: Glueball, caller: Caller, request: Request) -> Response:
    return {"Tags": _tags(app, caller).get(request["ResourceArn"])}
