"""STS over the query protocol: ``GetCallerIdentity``.

Until IAM users and roles are served, every access key glueball knows acts as the root of the
account it maps to (``glueball server --access-key KEY=ACCOUNT``), so the caller's identity is
that account's root, as AWS answers for root credentials: ``UserId`` the account id, ``Arn``
``arn:aws:iam::<account>:root``.
"""

from __future__ import annotations

from glueball.api.identity import Caller
from glueball.api.operations import Request, Response
from glueball.iam.area import STS_OPERATIONS, IdentityNeeds


@STS_OPERATIONS.operation("GetCallerIdentity")
def get_caller_identity(needs: IdentityNeeds, caller: Caller, request: Request) -> Response:
    return {"UserId": caller.account_id, "Account": caller.account_id, "Arn": f"arn:aws:iam::{caller.account_id}:root"}
