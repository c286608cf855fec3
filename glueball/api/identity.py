"""Who a request is served for: the caller's principal, account and region.

The edge works this out from the request (the SigV4 signature and the access key's owner,
:mod:`glueball.edge.sigv4`); handlers receive it and keep state per account and region. With
``--auth off`` every access key acts as the root of the account it maps to.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class PrincipalKind(StrEnum):
    ROOT = "root"
    USER = "user"
    ASSUMED_ROLE = "assumed-role"
    SERVICE = "service"


@dataclass(frozen=True)
class Principal:
    """Who makes a request.

    ``arn`` is what AWS reports as the caller (``arn:aws:iam::111122223333:user/alice``,
    ``arn:aws:sts::111122223333:assumed-role/Role/session``, ``arn:aws:iam::111122223333:root``);
    ``role_arn`` the role of an assumed-role session; ``service`` a service principal's name;
    ``unique_id`` what GetCallerIdentity answers as ``UserId``.
    """

    kind: PrincipalKind
    account_id: str
    arn: str
    role_arn: str | None = None
    service: str | None = None
    unique_id: str = ""
    name: str = ""  # a user's name (aws:username), a session's name

    @staticmethod
    def root(account_id: str) -> Principal:
        return Principal(PrincipalKind.ROOT, account_id, f"arn:aws:iam::{account_id}:root", unique_id=account_id)


@dataclass(frozen=True)
class Caller:
    """The identity a request is served for."""

    access_key: str | None
    account_id: str
    region: str
    principal: Principal | None = None  # None: the account's root (--auth off)
    source_ip: str | None = None
    session_tags: tuple[tuple[str, str], ...] = field(default=())
    restrictions: object = None  # what else narrows the caller's rights (KeyHolder.restrictions)
    run_id: str | None = None  # the caller is the driver of this run (credentials the server gave it)
    # what identity enforcement works out about this very object, kept with it (the edge keeps one caller per key
    # holder, made anew when IAM changes): never compared or copied, a caller made by replace() starts empty
    memo: dict[object, object] = field(default_factory=dict, init=False, repr=False, compare=False, hash=False)

    @property
    def who(self) -> Principal:
        return self.principal or Principal.root(self.account_id)


@dataclass(frozen=True)
class KeyHolder:
    """What the server knows of an access key: its secret (and session token and expiry for temporary
    credentials), whether it is active, and the principal it acts as. ``restrictions`` is what else
    narrows the holder's rights (an assumed role's session policy), opaque to the edge."""

    secret: str = field(repr=False)
    principal: Principal
    session_token: str | None = field(default=None, repr=False)
    expires_at: float | None = None
    session_tags: tuple[tuple[str, str], ...] = ()
    active: bool = True
    restrictions: object = None
    run_id: str | None = None  # the run whose driver the server gave these credentials to
