"""The identity tables: accounts, IAM users, groups, roles, managed and inline policies, access keys,
and STS sessions (temporary credentials).

IAM is global, not regional: rows are per account only. Names are unique per account and compared
case-insensitively, as IAM compares them (``name_key`` is the lower-cased name). Secret keys are
kept as given, since the server must compute the same HMAC as the client (docs/identity.md says how
to protect the store); they never appear in an answer after the one that creates them, nor in a log.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Float, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from glueball.store.schema import Base


class AccountRow(Base):
    __tablename__ = "iam_account"

    account_id: Mapped[str] = mapped_column(String(12), primary_key=True)
    alias: Mapped[str | None] = mapped_column(String(63))
    create_time: Mapped[float] = mapped_column(Float)


class PrincipalRow(Base):
    """A user, group or role (``kind``), with what IAM answers about it."""

    __tablename__ = "iam_principal"
    __table_args__ = (UniqueConstraint("account_id", "kind", "name_key"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("iam_account.account_id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(8))  # user | group | role
    name: Mapped[str] = mapped_column(String(128))
    name_key: Mapped[str] = mapped_column(String(128))
    unique_id: Mapped[str] = mapped_column(String(32), unique=True)  # AIDA..., AGPA..., AROA...
    path: Mapped[str] = mapped_column(String(512))
    trust_policy: Mapped[str | None] = mapped_column(Text)  # roles
    description: Mapped[str | None] = mapped_column(String(1000))
    max_session_duration: Mapped[int | None] = mapped_column(Integer)  # roles, seconds
    tags: Mapped[list[Any]]
    create_time: Mapped[float] = mapped_column(Float)


class GroupMemberRow(Base):
    __tablename__ = "iam_group_member"

    group_id: Mapped[int] = mapped_column(ForeignKey("iam_principal.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("iam_principal.id", ondelete="CASCADE"), primary_key=True)


class ManagedPolicyRow(Base):
    __tablename__ = "iam_managed_policy"
    __table_args__ = (UniqueConstraint("account_id", "name_key"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("iam_account.account_id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(128))
    name_key: Mapped[str] = mapped_column(String(128))
    unique_id: Mapped[str] = mapped_column(String(32), unique=True)  # ANPA...
    path: Mapped[str] = mapped_column(String(512))
    description: Mapped[str | None] = mapped_column(String(1000))
    default_version: Mapped[str] = mapped_column(String(16))
    next_version: Mapped[int] = mapped_column(Integer)
    tags: Mapped[list[Any]]
    create_time: Mapped[float] = mapped_column(Float)
    update_time: Mapped[float] = mapped_column(Float)


class PolicyVersionRow(Base):
    __tablename__ = "iam_policy_version"
    __table_args__ = (UniqueConstraint("policy_id", "version_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    policy_id: Mapped[int] = mapped_column(ForeignKey("iam_managed_policy.id", ondelete="CASCADE"))
    version_id: Mapped[str] = mapped_column(String(16))
    document: Mapped[str] = mapped_column(Text)
    create_time: Mapped[float] = mapped_column(Float)


class AttachmentRow(Base):
    __tablename__ = "iam_attachment"

    principal_id: Mapped[int] = mapped_column(ForeignKey("iam_principal.id", ondelete="CASCADE"), primary_key=True)
    policy_id: Mapped[int] = mapped_column(ForeignKey("iam_managed_policy.id", ondelete="CASCADE"),
                                           primary_key=True)


class InlinePolicyRow(Base):
    __tablename__ = "iam_inline_policy"
    __table_args__ = (UniqueConstraint("principal_id", "name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    principal_id: Mapped[int] = mapped_column(ForeignKey("iam_principal.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(128))
    document: Mapped[str] = mapped_column(Text)


class AccessKeyRow(Base):
    """A long-term key: a user's (``user_id``) or the account root's (no user)."""

    __tablename__ = "iam_access_key"

    access_key_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    secret: Mapped[str] = mapped_column(String(128))
    account_id: Mapped[str] = mapped_column(ForeignKey("iam_account.account_id", ondelete="CASCADE"))
    user_id: Mapped[int | None] = mapped_column(ForeignKey("iam_principal.id", ondelete="CASCADE"))
    status: Mapped[str] = mapped_column(String(8))  # Active | Inactive
    create_time: Mapped[float] = mapped_column(Float)


class SessionRow(Base):
    """Temporary credentials of an assumed role (STS AssumeRole)."""

    __tablename__ = "sts_session"

    access_key_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    secret: Mapped[str] = mapped_column(String(128))
    session_token: Mapped[str] = mapped_column(Text)
    account_id: Mapped[str] = mapped_column(ForeignKey("iam_account.account_id", ondelete="CASCADE"))
    role_id: Mapped[int] = mapped_column(ForeignKey("iam_principal.id", ondelete="CASCADE"))
    session_name: Mapped[str] = mapped_column(String(64))
    source_arn: Mapped[str] = mapped_column(String(2048))
    session_tags: Mapped[list[Any]]
    session_policy: Mapped[str | None] = mapped_column(Text)
    expires_at: Mapped[float] = mapped_column(Float)
    create_time: Mapped[float] = mapped_column(Float)


class GlueResourcePolicyRow(Base):
    """A Glue Data Catalog resource policy (PutResourcePolicy): one per catalog, per account and region."""

    __tablename__ = "glue_resource_policy"
    __table_args__ = (UniqueConstraint("account_id", "region", "resource_arn"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[str] = mapped_column(String(12))
    region: Mapped[str] = mapped_column(String(64))
    resource_arn: Mapped[str] = mapped_column(String(2048))
    policy: Mapped[str] = mapped_column(Text)
    policy_hash: Mapped[str] = mapped_column(String(64))
    create_time: Mapped[float] = mapped_column(Float)
    update_time: Mapped[float] = mapped_column(Float)
