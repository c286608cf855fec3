"""Managed policies with versions, their attachment to users, groups and roles, and inline policies.

A managed policy keeps up to five versions, one of them the default (the one evaluated); the
default cannot be deleted, and a policy still attached, or with versions besides its default,
cannot be deleted (``DeleteConflict``), as IAM answers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from glueball.clock import now
from glueball.iam.errors import DeleteConflict, EntityAlreadyExists, InvalidInput, LimitExceeded, NoSuchEntity
from glueball.iam.models import POLICY_ID_PREFIX, Kind, ManagedPolicy, PolicyVersion, Tag, check_path, new_id
from glueball.iam.policy import PolicyKind
from glueball.iam.service import IamService, _tags, policy_text
from glueball.store.identity_tables import (
    AttachmentRow,
    InlinePolicyRow,
    ManagedPolicyRow,
    PolicyVersionRow,
    PrincipalRow,
)

MAX_VERSIONS = 5
_POLICY_ARN = re.compile(r"arn:aws:iam::(?P<account>\d{12}|aws):policy(?P<path>/(?:[^/]+/)*)(?P<name>[^/]+)")


class PolicyService:
    """Managed and inline policies of every account."""

    def __init__(self, iam: IamService) -> None:
        self.iam = iam
        self.store = iam.store

    # -- managed policies

    def _policy_row(self, session: Session, account_id: str, arn: str) -> ManagedPolicyRow:
        match = _POLICY_ARN.fullmatch(arn)
        row = None
        if match is not None and match["account"] == account_id:
            row = session.scalars(select(ManagedPolicyRow).where(
                ManagedPolicyRow.account_id == account_id,
                ManagedPolicyRow.name_key == match["name"].lower())).one_or_none()
            if row is not None and row.path != match["path"]:
                row = None
        if row is None:
            raise NoSuchEntity(f"Policy {arn} does not exist or is not attachable.")
        return row

    def _to_policy(self, session: Session, row: ManagedPolicyRow) -> ManagedPolicy:
        attached = session.scalar(select(func.count()).select_from(AttachmentRow).where(
            AttachmentRow.policy_id == row.id)) or 0
        return ManagedPolicy(row.account_id, row.name, row.unique_id, row.path, row.default_version, row.create_time,
                             row.update_time, attached, row.description,
                             tuple(Tag(t["Key"], t["Value"]) for t in row.tags))

    def create(self, account_id: str, name: str, document: str, path: str | None = None,
               description: str | None = None, tags: Sequence[Tag] = ()) -> ManagedPolicy:
        text = policy_text(document, PolicyKind.IDENTITY)
        path = check_path(path or "/")
        with self.iam.writing() as session:
            self.iam.ensure_account(session, account_id)
            if session.scalars(select(ManagedPolicyRow.id).where(ManagedPolicyRow.account_id == account_id,
                                                                  ManagedPolicyRow.name_key == name.lower())).first():
                raise EntityAlreadyExists(f"A policy called {name} already exists. Duplicate names are not allowed.")
            stamp = now()
            row = ManagedPolicyRow(account_id=account_id, name=name, name_key=name.lower(),
                                   unique_id=new_id(POLICY_ID_PREFIX), path=path, description=description,
                                   default_version="v1", next_version=2, tags=_tags(tags), create_time=stamp,
                                   update_time=stamp)
            session.add(row)
            session.flush()
            session.add(PolicyVersionRow(policy_id=row.id, version_id="v1", document=text, create_time=stamp))
            return self._to_policy(session, row)

    def get(self, account_id: str, arn: str) -> ManagedPolicy:
        with self.store.read() as session:
            return self._to_policy(session, self._policy_row(session, account_id, arn))

    def managed(self, account_id: str, only_attached: bool = False, path_prefix: str = "/") -> list[ManagedPolicy]:
        with self.store.read() as session:
            rows = session.scalars(select(ManagedPolicyRow).where(ManagedPolicyRow.account_id == account_id)
                                   .order_by(ManagedPolicyRow.name_key))
            found = [self._to_policy(session, r) for r in rows if r.path.startswith(path_prefix)]
            return [p for p in found if p.attachment_count or not only_attached]

    def delete(self, account_id: str, arn: str) -> None:
        with self.iam.writing() as session:
            row = self._policy_row(session, account_id, arn)
            if session.scalar(select(func.count()).select_from(AttachmentRow).where(AttachmentRow.policy_id == row.id)):
                raise DeleteConflict("Cannot delete a policy attached to entities.")
            versions = session.scalar(select(func.count()).select_from(PolicyVersionRow).where(
                PolicyVersionRow.policy_id == row.id)) or 0
            if versions > 1:
                raise DeleteConflict("This policy has more than one version. Before you delete a policy, you must "
                                     "delete the policy's versions. The default version is deleted with the policy.")
            session.delete(row)

    # -- versions

    def create_version(self, account_id: str, arn: str, document: str, set_as_default: bool) -> PolicyVersion:
        text = policy_text(document, PolicyKind.IDENTITY)
        with self.iam.writing() as session:
            row = self._policy_row(session, account_id, arn)
            count = session.scalar(select(func.count()).select_from(PolicyVersionRow).where(
                PolicyVersionRow.policy_id == row.id)) or 0
            if count >= MAX_VERSIONS:
                raise LimitExceeded(f"A managed policy can have up to {MAX_VERSIONS} versions. Before you create a "
                                    f"new version, you must delete an existing version.")
            version_id = f"v{row.next_version}"
            row.next_version += 1
            stamp = now()
            session.add(PolicyVersionRow(policy_id=row.id, version_id=version_id, document=text, create_time=stamp))
            row.update_time = stamp
            if set_as_default:
                row.default_version = version_id
            return PolicyVersion(version_id, text, set_as_default, stamp)

    def _version_row(self, session: Session, row: ManagedPolicyRow, version_id: str) -> PolicyVersionRow:
        found = session.scalars(select(PolicyVersionRow).where(PolicyVersionRow.policy_id == row.id,
                                                               PolicyVersionRow.version_id == version_id)).first()
        if found is None:
            raise NoSuchEntity(f"Policy {row.name} version {version_id} does not exist or is not attachable.")
        return found

    def version(self, account_id: str, arn: str, version_id: str) -> PolicyVersion:
        with self.store.read() as session:
            row = self._policy_row(session, account_id, arn)
            found = self._version_row(session, row, version_id)
            return PolicyVersion(found.version_id, found.document, found.version_id == row.default_version,
                                 found.create_time)

    def versions(self, account_id: str, arn: str) -> list[PolicyVersion]:
        with self.store.read() as session:
            row = self._policy_row(session, account_id, arn)
            rows = session.scalars(select(PolicyVersionRow).where(PolicyVersionRow.policy_id == row.id)
                                   .order_by(PolicyVersionRow.create_time.desc(), PolicyVersionRow.id.desc()))
            return [PolicyVersion(v.version_id, v.document, v.version_id == row.default_version, v.create_time)
                    for v in rows]

    def set_default(self, account_id: str, arn: str, version_id: str) -> None:
        with self.iam.writing() as session:
            row = self._policy_row(session, account_id, arn)
            self._version_row(session, row, version_id)
            row.default_version = version_id
            row.update_time = now()

    def delete_version(self, account_id: str, arn: str, version_id: str) -> None:
        with self.iam.writing() as session:
            row = self._policy_row(session, account_id, arn)
            found = self._version_row(session, row, version_id)
            if version_id == row.default_version:
                raise DeleteConflict("Cannot delete the default version of a policy.")
            session.delete(found)

    # -- attachments

    def attach(self, account_id: str, kind: Kind, name: str, arn: str) -> None:
        with self.iam.writing() as session:
            principal = self.iam.row(session, account_id, kind, name)
            policy = self._policy_row(session, account_id, arn)
            if session.get(AttachmentRow, (principal.id, policy.id)) is None:
                session.add(AttachmentRow(principal_id=principal.id, policy_id=policy.id))

    def detach(self, account_id: str, kind: Kind, name: str, arn: str) -> None:
        with self.iam.writing() as session:
            principal = self.iam.row(session, account_id, kind, name)
            policy = self._policy_row(session, account_id, arn)
            found = session.get(AttachmentRow, (principal.id, policy.id))
            if found is None:
                raise NoSuchEntity(f"Policy {arn} was not found.")
            session.delete(found)

    def attached(self, account_id: str, kind: Kind, name: str) -> list[ManagedPolicy]:
        with self.store.read() as session:
            principal = self.iam.row(session, account_id, kind, name)
            rows = session.scalars(select(ManagedPolicyRow).join(AttachmentRow, AttachmentRow.policy_id ==
                                                                 ManagedPolicyRow.id)
                                   .where(AttachmentRow.principal_id == principal.id)
                                   .order_by(ManagedPolicyRow.name_key))
            return [self._to_policy(session, r) for r in rows]

    # -- inline policies

    def put_inline(self, account_id: str, kind: Kind, name: str, policy_name: str, document: str) -> None:
        text = policy_text(document, PolicyKind.IDENTITY)
        with self.iam.writing() as session:
            principal = self.iam.row(session, account_id, kind, name)
            found = self._find_inline(session, principal, policy_name)
            if found is None:
                session.add(InlinePolicyRow(principal_id=principal.id, name=policy_name, document=text))
            else:
                found.document = text

    @staticmethod
    def _find_inline(session: Session, principal: PrincipalRow, policy_name: str) -> InlinePolicyRow | None:
        found: InlinePolicyRow | None = session.scalars(select(InlinePolicyRow).where(
            InlinePolicyRow.principal_id == principal.id, InlinePolicyRow.name == policy_name)).first()
        return found

    def _inline_row(self, session: Session, principal: PrincipalRow, policy_name: str) -> InlinePolicyRow:
        found = self._find_inline(session, principal, policy_name)
        if found is None:
            raise NoSuchEntity(f"The {principal.kind} policy with name {policy_name} cannot be found.")
        return found

    def get_inline(self, account_id: str, kind: Kind, name: str, policy_name: str) -> str:
        with self.store.read() as session:
            return self._inline_row(session, self.iam.row(session, account_id, kind, name), policy_name).document

    def delete_inline(self, account_id: str, kind: Kind, name: str, policy_name: str) -> None:
        with self.iam.writing() as session:
            session.delete(self._inline_row(session, self.iam.row(session, account_id, kind, name), policy_name))

    def inline_names(self, account_id: str, kind: Kind, name: str) -> list[str]:
        with self.store.read() as session:
            principal = self.iam.row(session, account_id, kind, name)
            return list(session.scalars(select(InlinePolicyRow.name).where(
                InlinePolicyRow.principal_id == principal.id).order_by(InlinePolicyRow.name)))

    # -- what evaluation reads

    def documents_of(self, session: Session, principal_ids: Sequence[int]) -> list[str]:
        """Every identity-based policy document that applies to these principals (a user and its groups,
        or a role): their inline policies and the default versions of their attached policies."""
        if not principal_ids:
            return []
        inline = session.scalars(select(InlinePolicyRow.document).where(
            InlinePolicyRow.principal_id.in_(principal_ids)))
        managed = session.scalars(
            select(PolicyVersionRow.document)
            .join(ManagedPolicyRow, ManagedPolicyRow.id == PolicyVersionRow.policy_id)
            .join(AttachmentRow, AttachmentRow.policy_id == ManagedPolicyRow.id)
            .where(AttachmentRow.principal_id.in_(principal_ids),
                   PolicyVersionRow.version_id == ManagedPolicyRow.default_version))
        return [*inline, *managed]


def check_policy_arn(arn: str) -> None:
    if _POLICY_ARN.fullmatch(arn) is None:
        raise InvalidInput(f"ARN {arn} is not valid.")
