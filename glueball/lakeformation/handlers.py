"""BatchGrantPermissions and BatchRevokePermissions: every entry refused in ``Failures``."""

from __future__ import annotations

from typing import Any

from glueball.api.identity import Caller
from glueball.api.operations import Request, Response
from glueball.lakeformation.area import OPERATIONS, LakeFormationNeeds

REFUSAL = ("Lake Formation permissions are not served: access to this catalog is governed by IAM policies "
           "alone (IAM_ALLOWED_PRINCIPALS), as in an account that does not use Lake Formation; "
           "nothing was {what}")


def _refuse_each(request: Request, what: str) -> Response:
    error = {"ErrorCode": "AccessDeniedException", "ErrorMessage": REFUSAL.format(what=what)}
    failures: list[dict[str, Any]] = [{"RequestEntry": entry, "Error": dict(error)}
                                      for entry in request.get("Entries") or []]
    return {"Failures": failures}


@OPERATIONS.operation("BatchGrantPermissions")
def batch_grant_permissions(needs: LakeFormationNeeds, caller: Caller, request: Request) -> Response:
    return _refuse_each(request, "granted")


@OPERATIONS.operation("BatchRevokePermissions")
def batch_revoke_permissions(needs: LakeFormationNeeds, caller: Caller, request: Request) -> Response:
    return _refuse_each(request, "revoked")
