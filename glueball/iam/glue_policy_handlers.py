"""Glue's resource policy operations (JSON protocol, Glue's shapes): the Data Catalog's policy."""

from __future__ import annotations

from glueball.api.identity import Caller
from glueball.api.operations import Request, Response
from glueball.iam.area import GLUE_POLICY_OPERATIONS, IdentityNeeds
from glueball.iam.resource_policies import StoredPolicy

op = GLUE_POLICY_OPERATIONS.operation


def _wire(stored: StoredPolicy) -> Response:
    return {"PolicyInJson": stored.policy, "PolicyHash": stored.policy_hash, "CreateTime": stored.create_time,
            "UpdateTime": stored.update_time}


@op("PutResourcePolicy")
def put_resource_policy(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
    if request.get("EnableHybrid") == "TRUE":
        from glueball.errors import InvalidInputException

        raise InvalidInputException("EnableHybrid TRUE (Lake Formation hybrid access) is not supported by glueball")
    digest = needs.resource_policies.put(caller.account_id, caller.region, request["PolicyInJson"],
                                         request.get("ResourceArn"), request.get("PolicyHashCondition"),
                                         request.get("PolicyExistsCondition"))
    return {"PolicyHash": digest}


@op("GetResourcePolicy")
def get_resource_policy(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
    return _wire(needs.resource_policies.get(caller.account_id, caller.region, request.get("ResourceArn")))


@op("GetResourcePolicies")
def get_resource_policies(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
    return {"GetResourcePoliciesResponseList": [_wire(p) for p in needs.resource_policies.listing(
        caller.account_id, caller.region)]}


@op("DeleteResourcePolicy")
def delete_resource_policy(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
    needs.resource_policies.delete(caller.account_id, caller.region, request.get("ResourceArn"),
                                   request.get("PolicyHashCondition"))
    return {}
