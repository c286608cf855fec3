"""IAM users, groups, roles, their tags, group membership and access keys.

IAM is global: entities belong to an account, not a region. Names are unique per account and
kind, compared case-insensitively (``Alice`` and ``alice`` are one user), and kept as written.
Deleting an entity that still has policies, keys or members answers ``DeleteConflict`` as IAM
does; nothing is deleted half-way.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from urllib.parse import unquote

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from glueball.clock import now
from glueball.iam.errors import (
    DeleteConflict,
    EntityAlreadyExists,
    InvalidInput,
    LimitExceeded,
    MalformedPolicyDocument,
    NoSuchEntity,
)
from glueball.iam.models import (
    ACCESS_KEY_PREFIX,
    ID_PREFIX,
    AccessKey,
    Entity,
    Kind,
    Tag,
    check_path,
    new_id,
    new_secret,
)
from glueball.iam.policy import PolicyError, PolicyKind, parse_policy
from glueball.store.engine import Store
from glueball.store.identity_tables import (
    AccessKeyRow,
    AccountRow,
    AttachmentRow,
    GroupMemberRow,
    InlinePolicyRow,
    PrincipalRow,
)

MAX_KEYS_PER_USER = 2
MAX_TAGS = 50
DEFAULT_SESSION_SECONDS = 3600


def policy_text(document: str, kind: PolicyKind) -> str:
    """A policy document as given (IAM keeps the text), once checked.

    Raises:
        MalformedPolicyDocument: it breaks the policy grammar.
    """
    text = unquote(document) if document.lstrip().startswith("%7B") else document
    try:
        parse_policy(text, kind)
    except PolicyError as exc:
        raise MalformedPolicyDocument(str(exc)) from exc
    return text


def to_entity(row: PrincipalRow) -> Entity:
    return Entity(Kind(row.kind), row.account_id, row.name, row.unique_id, row.path, row.create_time,
                  tuple(Tag(t["Key"], t["Value"]) for t in row.tags), row.trust_policy, row.description,
                  row.max_session_duration)


def _tags(tags: Sequence[Tag]) -> list[dict[str, str]]:
    keys = [t.key.lower() for t in tags]
    duplicate = next((k for k in keys if keys.count(k) > 1), None)
    if duplicate is not None:
        raise InvalidInput(f"Duplicate tag keys found. Please note that Tag keys are case insensitive: {duplicate}")
    if len(tags) > MAX_TAGS:
        raise LimitExceeded(f"The number of tags has reached the maximum limit of {MAX_TAGS}.")
    return [{"Key": t.key, "Value": t.value} for t in tags]


class IamService:
    """Users, groups, roles and access keys of every account of one installation."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.generation = 0  # counts this process's IAM changes: cached policies older than it are stale

    @contextmanager
    def writing(self) -> Iterator[Session]:
        """A write transaction; after it commits, what this process cached about identities is stale."""
        with self.store.write() as session:
            yield session
        self.generation += 1

    # -- accounts

    def ensure_account(self, session: Session, account_id: str) -> None:
        if session.get(AccountRow, account_id) is None:
            session.add(AccountRow(account_id=account_id, alias=None, create_time=now()))
            session.flush()

    def create_account(self, account_id: str, alias: str | None = None) -> None:
        with self.writing() as session:
            if session.get(AccountRow, account_id) is not None:
                raise EntityAlreadyExists(f"Account {account_id} already exists.")
            session.add(AccountRow(account_id=account_id, alias=alias, create_time=now()))

    def accounts(self) -> list[tuple[str, str | None]]:
        with self.store.read() as session:
            rows = session.scalars(select(AccountRow).order_by(AccountRow.account_id))
            return [(r.account_id, r.alias) for r in rows]

    # -- users, groups, roles

    def find_row(self, session: Session, account_id: str, kind: Kind, name: str) -> PrincipalRow | None:
        found: PrincipalRow | None = session.scalars(select(PrincipalRow).where(
            PrincipalRow.account_id == account_id, PrincipalRow.kind == kind.value,
            PrincipalRow.name_key == name.lower())).one_or_none()
        return found

    def row(self, session: Session, account_id: str, kind: Kind, name: str) -> PrincipalRow:
        found = self.find_row(session, account_id, kind, name)
        if found is None:
            raise NoSuchEntity(f"The {kind.value} with name {name} cannot be found.")
        return found

    def create(self, account_id: str, kind: Kind, name: str, path: str | None = None, tags: Sequence[Tag] = (),
               trust_policy: str | None = None, description: str | None = None,
               max_session_duration: int | None = None) -> Entity:
        path = check_path(path or "/")
        if kind is Kind.ROLE:
            if trust_policy is None:
                raise InvalidInput("AssumeRolePolicyDocument is required to create a role")
            trust_policy = policy_text(trust_policy, PolicyKind.TRUST)
            max_session_duration = max_session_duration or DEFAULT_SESSION_SECONDS
            if not 3600 <= max_session_duration <= 43200:
                raise InvalidInput("MaxSessionDuration must be between 3600 and 43200 seconds")
        with self.writing() as session:
            self.ensure_account(session, account_id)
            if self.find_row(session, account_id, kind, name) is not None:
                raise EntityAlreadyExists(f"{kind.value.capitalize()} with name {name} already exists.")
            row = PrincipalRow(account_id=account_id, kind=kind.value, name=name, name_key=name.lower(),
                               unique_id=new_id(ID_PREFIX[kind]), path=path, trust_policy=trust_policy,
                               description=description, max_session_duration=max_session_duration,
                               tags=_tags(tags), create_time=now())
            session.add(row)
            session.flush()
            return to_entity(row)

    def get(self, account_id: str, kind: Kind, name: str) -> Entity:
        with self.store.read() as session:
            return to_entity(self.row(session, account_id, kind, name))

    def entities(self, account_id: str, kind: Kind, path_prefix: str = "/") -> list[Entity]:
        with self.store.read() as session:
            rows = session.scalars(select(PrincipalRow).where(
                PrincipalRow.account_id == account_id, PrincipalRow.kind == kind.value).order_by(PrincipalRow.name_key))
            return [to_entity(r) for r in rows if r.path.startswith(path_prefix)]

    def delete(self, account_id: str, kind: Kind, name: str) -> None:
        with self.writing() as session:
            row = self.row(session, account_id, kind, name)
            if session.scalar(select(func.count()).select_from(AttachmentRow).where(
                    AttachmentRow.principal_id == row.id)):
                raise DeleteConflict("Cannot delete entity, must detach all policies first.")
            if session.scalar(select(func.count()).select_from(InlinePolicyRow).where(
                    InlinePolicyRow.principal_id == row.id)):
                raise DeleteConflict("Cannot delete entity, must delete policies first.")
            if kind is Kind.USER:
                if session.scalar(select(func.count()).select_from(AccessKeyRow).where(
                        AccessKeyRow.user_id == row.id)):
                    raise DeleteConflict("Cannot delete entity, must delete access keys first.")
                if session.scalar(select(func.count()).select_from(GroupMemberRow).where(
                        GroupMemberRow.user_id == row.id)):
                    raise DeleteConflict("Cannot delete entity, must remove users from group first.")
            if kind is Kind.GROUP and session.scalar(select(func.count()).select_from(GroupMemberRow).where(
                    GroupMemberRow.group_id == row.id)):
                raise DeleteConflict("Cannot delete entity, must remove users from group first.")
            session.delete(row)

    def update_role(self, account_id: str, name: str, description: str | None = None,
                    max_session_duration: int | None = None, trust_policy: str | None = None) -> None:
        if max_session_duration is not None and not 3600 <= max_session_duration <= 43200:
            raise InvalidInput("MaxSessionDuration must be between 3600 and 43200 seconds")
        text = policy_text(trust_policy, PolicyKind.TRUST) if trust_policy is not None else None
        with self.writing() as session:
            row = self.row(session, account_id, Kind.ROLE, name)
            if description is not None:
                row.description = description
            if max_session_duration is not None:
                row.max_session_duration = max_session_duration
            if text is not None:
                row.trust_policy = text

    def tag(self, account_id: str, kind: Kind, name: str, tags: Sequence[Tag]) -> None:
        with self.writing() as session:
            row = self.row(session, account_id, kind, name)
            merged = {t["Key"].lower(): t for t in row.tags}
            for tag in tags:
                merged[tag.key.lower()] = {"Key": tag.key, "Value": tag.value}
            row.tags = _tags([Tag(t["Key"], t["Value"]) for t in merged.values()])

    def untag(self, account_id: str, kind: Kind, name: str, keys: Sequence[str]) -> None:
        lowered = {k.lower() for k in keys}
        with self.writing() as session:
            row = self.row(session, account_id, kind, name)
            row.tags = [t for t in row.tags if t["Key"].lower() not in lowered]

    # -- groups

    def add_to_group(self, account_id: str, group: str, user: str) -> None:
        with self.writing() as session:
            group_row = self.row(session, account_id, Kind.GROUP, group)
            user_row = self.row(session, account_id, Kind.USER, user)
            if session.get(GroupMemberRow, (group_row.id, user_row.id)) is None:
                session.add(GroupMemberRow(group_id=group_row.id, user_id=user_row.id))

    def remove_from_group(self, account_id: str, group: str, user: str) -> None:
        with self.writing() as session:
            group_row = self.row(session, account_id, Kind.GROUP, group)
            user_row = self.row(session, account_id, Kind.USER, user)
            member = session.get(GroupMemberRow, (group_row.id, user_row.id))
            if member is None:
                raise NoSuchEntity(f"User {user} is not in group {group}.")
            session.delete(member)

    def members(self, account_id: str, group: str) -> tuple[Entity, list[Entity]]:
        with self.store.read() as session:
            group_row = self.row(session, account_id, Kind.GROUP, group)
            users = session.scalars(select(PrincipalRow).join(GroupMemberRow, GroupMemberRow.user_id == PrincipalRow.id)
                                    .where(GroupMemberRow.group_id == group_row.id).order_by(PrincipalRow.name_key))
            return to_entity(group_row), [to_entity(u) for u in users]

    def groups_of(self, account_id: str, user: str) -> list[Entity]:
        with self.store.read() as session:
            user_row = self.row(session, account_id, Kind.USER, user)
            return [to_entity(g) for g in self._group_rows(session, user_row.id)]

    @staticmethod
    def _group_rows(session: Session, user_id: int) -> list[PrincipalRow]:
        query = (select(PrincipalRow).join(GroupMemberRow, GroupMemberRow.group_id == PrincipalRow.id)
                 .where(GroupMemberRow.user_id == user_id).order_by(PrincipalRow.name_key))
        return list(session.scalars(query))

    # -- access keys

    def create_access_key(self, account_id: str, user: str | None) -> AccessKey:
        """A new key of ``user``, or of the account's root when ``user`` is None."""
        with self.writing() as session:
            self.ensure_account(session, account_id)
            user_id = None
            if user is not None:
                user_id = self.row(session, account_id, Kind.USER, user).id
                if (session.scalar(select(func.count()).select_from(AccessKeyRow).where(
                        AccessKeyRow.user_id == user_id)) or 0) >= MAX_KEYS_PER_USER:
                    raise LimitExceeded(f"Cannot exceed quota for AccessKeysPerUser: {MAX_KEYS_PER_USER}")
            row = AccessKeyRow(access_key_id=new_id(ACCESS_KEY_PREFIX), secret=new_secret(), account_id=account_id,
                               user_id=user_id, status="Active", create_time=now())
            session.add(row)
            return AccessKey(row.access_key_id, user, row.status, row.create_time, row.secret)

    def import_access_key(self, account_id: str, access_key_id: str, secret: str) -> None:
        """A root key of ``account_id`` with a secret chosen by the operator (``--access-key KEY=ACCOUNT:SECRET``)."""
        with self.writing() as session:
            self.ensure_account(session, account_id)
            row = session.get(AccessKeyRow, access_key_id)
            if row is None:
                session.add(AccessKeyRow(access_key_id=access_key_id, secret=secret, account_id=account_id,
                                         user_id=None, status="Active", create_time=now()))
            elif row.account_id != account_id or row.user_id is not None:
                raise EntityAlreadyExists(f"Access key {access_key_id} belongs to another identity")
            else:
                row.secret = secret

    def access_keys(self, account_id: str, user: str | None) -> list[AccessKey]:
        with self.store.read() as session:
            user_id = self.row(session, account_id, Kind.USER, user).id if user is not None else None
            rows = session.scalars(select(AccessKeyRow).where(AccessKeyRow.account_id == account_id,
                                                              AccessKeyRow.user_id == user_id)
                                   .order_by(AccessKeyRow.create_time))
            return [AccessKey(r.access_key_id, user, r.status, r.create_time) for r in rows]

    def _key_row(self, session: Session, account_id: str, user: str | None, key_id: str) -> AccessKeyRow:
        user_id = self.row(session, account_id, Kind.USER, user).id if user is not None else None
        row = session.get(AccessKeyRow, key_id)
        if row is None or row.account_id != account_id or row.user_id != user_id:
            raise NoSuchEntity(f"The Access Key with id {key_id} cannot be found.")
        return row

    def update_access_key(self, account_id: str, user: str | None, key_id: str, status: str) -> None:
        with self.writing() as session:
            self._key_row(session, account_id, user, key_id).status = status

    def delete_access_key(self, account_id: str, user: str | None, key_id: str) -> None:
        with self.writing() as session:
            session.delete(self._key_row(session, account_id, user, key_id))

    def root_key(self, account_id: str) -> tuple[str, str] | None:
        """An active access key of the account's root and its secret (the server's own engines act with it)."""
        with self.store.read() as session:
            row = session.scalars(select(AccessKeyRow).where(
                AccessKeyRow.account_id == account_id, AccessKeyRow.user_id.is_(None),
                AccessKeyRow.status == "Active").order_by(AccessKeyRow.access_key_id).limit(1)).first()
            return (row.access_key_id, row.secret) if row is not None else None

    def has_root_key(self, account_id: str) -> bool:
        with self.store.read() as session:
            return (session.scalar(select(func.count()).select_from(AccessKeyRow).where(
                AccessKeyRow.account_id == account_id, AccessKeyRow.user_id.is_(None))) or 0) > 0
