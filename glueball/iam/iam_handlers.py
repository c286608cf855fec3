"""IAM over the query protocol: users, groups, roles, managed and inline policies, access keys, tags.

Wire shapes only: each handler reads the validated request, calls the identity services and
returns the output members. Policy documents go out URL-encoded, as IAM sends them (boto3 and the
AWS CLI decode them). Listings page with ``Marker`` / ``IsTruncated`` / ``MaxItems``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from glueball.api.identity import Caller
from glueball.api.operations import Request, Response
from glueball.api.pagination import decode_token, encode_token
from glueball.errors import InvalidInputException
from glueball.iam.area import IAM_OPERATIONS, IdentityNeeds
from glueball.iam.errors import InvalidInput
from glueball.iam.models import AccessKey, Entity, Kind, ManagedPolicy, PolicyVersion, Tag

op = IAM_OPERATIONS.operation


def _tags(request: Request) -> list[Tag]:
    return [Tag(t["Key"], t["Value"]) for t in request.get("Tags") or []]


def _tag_list(tags: Sequence[Tag]) -> list[dict[str, str]]:
    return [{"Key": t.key, "Value": t.value} for t in tags]


def _entity(entity: Entity) -> dict[str, Any]:
    prefix = entity.kind.value.capitalize()
    out: dict[str, Any] = {"Path": entity.path, f"{prefix}Name": entity.name, f"{prefix}Id": entity.unique_id,
                           "Arn": entity.arn, "CreateDate": entity.create_time}
    if entity.kind is Kind.ROLE:
        out["AssumeRolePolicyDocument"] = quote(entity.trust_policy or "")
        out["MaxSessionDuration"] = entity.max_session_duration
        if entity.description is not None:
            out["Description"] = entity.description
    if entity.tags and entity.kind is not Kind.GROUP:
        out["Tags"] = _tag_list(entity.tags)
    return out


def _policy(policy: ManagedPolicy) -> dict[str, Any]:
    out: dict[str, Any] = {"PolicyName": policy.name, "PolicyId": policy.unique_id, "Arn": policy.arn,
                           "Path": policy.path, "DefaultVersionId": policy.default_version,
                           "AttachmentCount": policy.attachment_count, "PermissionsBoundaryUsageCount": 0,
                           "IsAttachable": True, "CreateDate": policy.create_time, "UpdateDate": policy.update_time}
    if policy.description is not None:
        out["Description"] = policy.description
    if policy.tags:
        out["Tags"] = _tag_list(policy.tags)
    return out


def _version(version: PolicyVersion) -> dict[str, Any]:
    return {"Document": quote(version.document), "VersionId": version.version_id,
            "IsDefaultVersion": version.is_default, "CreateDate": version.create_time}


def _key(key: AccessKey) -> dict[str, Any]:
    out: dict[str, Any] = {"AccessKeyId": key.access_key_id, "Status": key.status, "CreateDate": key.create_time}
    if key.user_name is not None:
        out["UserName"] = key.user_name
    if key.secret is not None:
        out["SecretAccessKey"] = key.secret
    return out


def _page(member: str, items: list[Any], request: Request) -> Response:
    """IAM's paging: ``Marker`` in, ``IsTruncated`` and ``Marker`` out (at most ``MaxItems``, default 100)."""
    try:
        start = decode_token(request.get("Marker"), int) or 0
    except InvalidInputException as exc:
        raise InvalidInput(exc.message.replace("NextToken", "Marker")) from exc
    size = request.get("MaxItems") or 100
    page = items[start:start + size]
    response: Response = {member: page, "IsTruncated": start + size < len(items)}
    if response["IsTruncated"]:
        response["Marker"] = encode_token(start + size)
    return response


def _user_or_caller(caller: Caller, request: Request) -> str | None:
    """``UserName``, or the calling user when it is left out (None: the account's root)."""
    if request.get("UserName"):
        return str(request["UserName"])
    principal = caller.who
    return principal.name if principal.kind.value == "user" else None


# ---------------------------------------------------------------- users, groups, roles

@op("CreateUser")
def create_user(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
    user = needs.iam.create(caller.account_id, Kind.USER, request["UserName"], request.get("Path"), _tags(request))
    return {"User": _entity(user)}


@op("GetUser")
def get_user(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
    name = _user_or_caller(caller, request)
    if name is None:
        return {"User": {"Path": "/", "UserName": caller.account_id, "UserId": caller.account_id,
                         "Arn": f"arn:aws:iam::{caller.account_id}:root", "CreateDate": 0}}
    return {"User": _entity(needs.iam.get(caller.account_id, Kind.USER, name))}


@op("ListUsers")
def list_users(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
    users = needs.iam.entities(caller.account_id, Kind.USER, request.get("PathPrefix") or "/")
    return _page("Users", [_entity(u) for u in users], request)


@op("DeleteUser")
def delete_user(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
    needs.iam.delete(caller.account_id, Kind.USER, request["UserName"])
    return {}


@op("CreateGroup")
def create_group(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
    return {"Group": _entity(needs.iam.create(caller.account_id, Kind.GROUP, request["GroupName"],
                                              request.get("Path")))}


@op("GetGroup")
def get_group(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
    group, users = needs.iam.members(caller.account_id, request["GroupName"])
    return {"Group": _entity(group), **_page("Users", [_entity(u) for u in users], request)}


@op("ListGroups")
def list_groups(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
    groups = needs.iam.entities(caller.account_id, Kind.GROUP, request.get("PathPrefix") or "/")
    return _page("Groups", [_entity(g) for g in groups], request)


@op("DeleteGroup")
def delete_group(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
    needs.iam.delete(caller.account_id, Kind.GROUP, request["GroupName"])
    return {}


@op("AddUserToGroup")
def add_user_to_group(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
    needs.iam.add_to_group(caller.account_id, request["GroupName"], request["UserName"])
    return {}


@op("RemoveUserFromGroup")
def remove_user_from_group(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
    needs.iam.remove_from_group(caller.account_id, request["GroupName"], request["UserName"])
    return {}


@op("ListGroupsForUser")
def list_groups_for_user(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
    groups = needs.iam.groups_of(caller.account_id, request["UserName"])
    return _page("Groups", [_entity(g) for g in groups], request)


@op("CreateRole")
def create_role(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
    role = needs.iam.create(caller.account_id, Kind.ROLE, request["RoleName"], request.get("Path"), _tags(request),
                            request["AssumeRolePolicyDocument"], request.get("Description"),
                            request.get("MaxSessionDuration"))
    return {"Role": _entity(role)}


@op("GetRole")
def get_role(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
    return {"Role": _entity(needs.iam.get(caller.account_id, Kind.ROLE, request["RoleName"]))}


@op("ListRoles")
def list_roles(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
    roles = needs.iam.entities(caller.account_id, Kind.ROLE, request.get("PathPrefix") or "/")
    return _page("Roles", [_entity(r) for r in roles], request)


@op("DeleteRole")
def delete_role(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
    needs.iam.delete(caller.account_id, Kind.ROLE, request["RoleName"])
    return {}


@op("UpdateRole")
def update_role(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
    needs.iam.update_role(caller.account_id, request["RoleName"], request.get("Description"),
                          request.get("MaxSessionDuration"))
    return {}


@op("UpdateAssumeRolePolicy")
def update_assume_role_policy(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
    needs.iam.update_role(caller.account_id, request["RoleName"], trust_policy=request["PolicyDocument"])
    return {}


def _tagging(kind: Kind, member: str) -> None:
    def tag(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
        needs.iam.tag(caller.account_id, kind, request[member], _tags(request))
        return {}

    def untag(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
        needs.iam.untag(caller.account_id, kind, request[member], request["TagKeys"])
        return {}

    def list_tags(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
        entity = needs.iam.get(caller.account_id, kind, request[member])
        return _page("Tags", _tag_list(entity.tags), request)

    noun = kind.value.capitalize()
    op(f"Tag{noun}")(tag)
    op(f"Untag{noun}")(untag)
    op(f"List{noun}Tags")(list_tags)


_tagging(Kind.USER, "UserName")
_tagging(Kind.ROLE, "RoleName")


# ---------------------------------------------------------------- access keys

@op("CreateAccessKey")
def create_access_key(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
    return {"AccessKey": _key(needs.iam.create_access_key(caller.account_id, _user_or_caller(caller, request)))}


@op("ListAccessKeys")
def list_access_keys(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
    keys = needs.iam.access_keys(caller.account_id, _user_or_caller(caller, request))
    return _page("AccessKeyMetadata", [_key(k) for k in keys], request)


@op("UpdateAccessKey")
def update_access_key(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
    needs.iam.update_access_key(caller.account_id, _user_or_caller(caller, request), request["AccessKeyId"],
                                request["Status"])
    return {}


@op("DeleteAccessKey")
def delete_access_key(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
    needs.iam.delete_access_key(caller.account_id, _user_or_caller(caller, request), request["AccessKeyId"])
    return {}


# ---------------------------------------------------------------- managed policies

@op("CreatePolicy")
def create_policy(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
    policy = needs.policies.create(caller.account_id, request["PolicyName"], request["PolicyDocument"],
                                   request.get("Path"), request.get("Description"), _tags(request))
    return {"Policy": _policy(policy)}


@op("GetPolicy")
def get_policy(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
    return {"Policy": _policy(needs.policies.get(caller.account_id, request["PolicyArn"]))}


@op("ListPolicies")
def list_policies(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
    if request.get("Scope") == "AWS":  # glueball keeps no AWS-managed policies
        return _page("Policies", [], request)
    found = needs.policies.managed(caller.account_id, bool(request.get("OnlyAttached")),
                                   request.get("PathPrefix") or "/")
    return _page("Policies", [_policy(p) for p in found], request)


@op("DeletePolicy")
def delete_policy(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
    needs.policies.delete(caller.account_id, request["PolicyArn"])
    return {}


@op("CreatePolicyVersion")
def create_policy_version(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
    version = needs.policies.create_version(caller.account_id, request["PolicyArn"], request["PolicyDocument"],
                                            bool(request.get("SetAsDefault")))
    return {"PolicyVersion": {k: v for k, v in _version(version).items() if k != "Document"}}


@op("GetPolicyVersion")
def get_policy_version(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
    return {"PolicyVersion": _version(needs.policies.version(caller.account_id, request["PolicyArn"],
                                                             request["VersionId"]))}


@op("ListPolicyVersions")
def list_policy_versions(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
    versions = needs.policies.versions(caller.account_id, request["PolicyArn"])
    return _page("Versions", [{k: v for k, v in _version(x).items() if k != "Document"} for x in versions], request)


@op("SetDefaultPolicyVersion")
def set_default_policy_version(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
    needs.policies.set_default(caller.account_id, request["PolicyArn"], request["VersionId"])
    return {}


@op("DeletePolicyVersion")
def delete_policy_version(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
    needs.policies.delete_version(caller.account_id, request["PolicyArn"], request["VersionId"])
    return {}


# ---------------------------------------------------------------- attached and inline policies, per kind

def _per_kind(kind: Kind) -> None:
    noun = kind.value.capitalize()
    member = f"{noun}Name"

    def attach(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
        needs.policies.attach(caller.account_id, kind, request[member], request["PolicyArn"])
        return {}

    def detach(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
        needs.policies.detach(caller.account_id, kind, request[member], request["PolicyArn"])
        return {}

    def list_attached(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
        found = needs.policies.attached(caller.account_id, kind, request[member])
        prefix = request.get("PathPrefix") or "/"
        return _page("AttachedPolicies", [{"PolicyName": p.name, "PolicyArn": p.arn} for p in found
                                          if p.path.startswith(prefix)], request)

    def put(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
        needs.policies.put_inline(caller.account_id, kind, request[member], request["PolicyName"],
                                  request["PolicyDocument"])
        return {}

    def get(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
        document = needs.policies.get_inline(caller.account_id, kind, request[member], request["PolicyName"])
        return {member: request[member], "PolicyName": request["PolicyName"], "PolicyDocument": quote(document)}

    def remove(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
        needs.policies.delete_inline(caller.account_id, kind, request[member], request["PolicyName"])
        return {}

    def names(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
        return _page("PolicyNames", needs.policies.inline_names(caller.account_id, kind, request[member]), request)

    op(f"Attach{noun}Policy")(attach)
    op(f"Detach{noun}Policy")(detach)
    op(f"ListAttached{noun}Policies")(list_attached)
    op(f"Put{noun}Policy")(put)
    op(f"Get{noun}Policy")(get)
    op(f"Delete{noun}Policy")(remove)
    op(f"List{noun}Policies")(names)


for _kind in Kind:
    _per_kind(_kind)
