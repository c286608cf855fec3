"""STS over the query protocol: ``GetCallerIdentity`` and ``AssumeRole``.

With ``--auth off`` every access key acts as the root of the account it maps to, so the caller's
identity is that account's root, as AWS answers for root credentials (``UserId`` the account id,
``Arn`` ``arn:aws:iam::<account>:root``). With ``--auth iam`` it is the key's user, the account's
root, or the assumed role's session (``arn:aws:sts::<account>:assumed-role/<role>/<session>``).
"""

from __future__ import annotations

from glueball.api.identity import Caller
from glueball.api.operations import Request, Response
from glueball.iam.area import STS_OPERATIONS, IdentityNeeds
from glueball.iam.models import Tag


@STS_OPERATIONS.operation("GetCallerIdentity")
def get_caller_identity(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
    who = caller.who
    return {"UserId": who.unique_id or caller.account_id, "Account": who.account_id, "Arn": who.arn}


@STS_OPERATIONS.operation("AssumeRole")
def assume_role(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
    tags = [Tag(t["Key"], t["Value"]) for t in request.get("Tags") or []]
    credentials = needs.identities.assume_role(
        caller.who, caller.session_tags, request["RoleArn"], request["RoleSessionName"],
        request.get("DurationSeconds"), request.get("ExternalId"), tags, request.get("Policy"), caller.source_ip)
    response: Response = {
        "Credentials": {"AccessKeyId": credentials.access_key_id, "SecretAccessKey": credentials.secret,
                        "SessionToken": credentials.session_token, "Expiration": credentials.expiration},
        "AssumedRoleUser": {"AssumedRoleId": credentials.assumed_role_id, "Arn": credentials.assumed_role_arn},
    }
    if credentials.packed_policy_size is not None:
        response["PackedPolicySize"] = credentials.packed_policy_size
    return response
