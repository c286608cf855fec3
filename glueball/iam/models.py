"""Typed IAM entities, as the service layer hands them to handlers."""

from __future__ import annotations

import re
import secrets
import string
from dataclasses import dataclass, field
from enum import StrEnum

from glueball.iam.errors import InvalidInput


class Kind(StrEnum):
    USER = "user"
    GROUP = "group"
    ROLE = "role"


ID_PREFIX = {Kind.USER: "AIDA", Kind.GROUP: "AGPA", Kind.ROLE: "AROA"}
POLICY_ID_PREFIX = "ANPA"
ACCESS_KEY_PREFIX = "AKIA"
SESSION_KEY_PREFIX = "ASIA"
_ID_ALPHABET = string.ascii_uppercase + "234567"
_PATH = re.compile(r"(\u002F)|(\u002F[\u0021-\u007E]+\u002F)")


def new_id(prefix: str) -> str:
    """An IAM-style identifier: the kind's prefix and [A-Z2-7] characters, 20 in all for access keys
    (``AKIA...``, ``ASIA...``) and 21 for users, groups, roles and policies (``AIDA...``)."""
    length = 16 if prefix in (ACCESS_KEY_PREFIX, SESSION_KEY_PREFIX) else 17
    return prefix + "".join(secrets.choice(_ID_ALPHABET) for _ in range(length))


def new_secret() -> str:
    return secrets.token_urlsafe(30)[:40]


def check_path(path: str) -> str:
    if not _PATH.fullmatch(path) or len(path) > 512:
        raise InvalidInput(f"The specified value for path is invalid. It must begin and end with / and contain only "
                           f"alphanumeric characters and/or / characters: {path!r}")
    return path


@dataclass(frozen=True)
class Tag:
    key: str
    value: str


@dataclass(frozen=True)
class Entity:
    """A user, group or role."""

    kind: Kind
    account_id: str
    name: str
    unique_id: str
    path: str
    create_time: float
    tags: tuple[Tag, ...] = ()
    trust_policy: str | None = None
    description: str | None = None
    max_session_duration: int | None = None

    @property
    def arn(self) -> str:
        return f"arn:aws:iam::{self.account_id}:{self.kind.value}{self.path}{self.name}"


@dataclass(frozen=True)
class ManagedPolicy:
    account_id: str
    name: str
    unique_id: str
    path: str
    default_version: str
    create_time: float
    update_time: float
    attachment_count: int = 0
    description: str | None = None
    tags: tuple[Tag, ...] = ()

    @property
    def arn(self) -> str:
        return f"arn:aws:iam::{self.account_id}:policy{self.path}{self.name}"


@dataclass(frozen=True)
class PolicyVersion:
    version_id: str
    document: str
    is_default: bool
    create_time: float


@dataclass(frozen=True)
class AccessKey:
    access_key_id: str
    user_name: str | None
    status: str
    create_time: float
    secret: str | None = field(default=None, repr=False)  # only when just created


@dataclass(frozen=True)
class Credentials:
    """Temporary credentials of an assumed role."""

    access_key_id: str
    secret: str = field(repr=False)
    session_token: str = field(repr=False)
    expiration: float
    assumed_role_arn: str
    assumed_role_id: str
    packed_policy_size: int | None = None
