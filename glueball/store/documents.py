"""Stored resources of one kind in one account and region: create, read, list, change, delete.

The areas whose resources are plain documents (security configurations, dev endpoints, ML
transforms, blueprints, the catalog's encryption settings) keep them in ``glue_stored_resource``
through :class:`Documents`; each area keeps its own models, checks and messages. A document is
found by its name, or by its generated id (``resource_id``) for the kinds that have one.

Errors are the API's: a missing name is ``EntityNotFoundException`` ("<Noun> <name> not found."),
a taken name ``AlreadyExistsException`` ("<Noun> <name> already exists."). Tags are the areas'
business: ``on_create`` and ``on_delete`` run inside the same transaction as the row's change.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from glueball.errors import AlreadyExistsException, EntityNotFoundException, InvalidInputException
from glueball.store.engine import Store
from glueball.store.resource_tables import SECURITY_CONFIGURATION, StoredResourceRow
from glueball.store.schema import TagRow
from glueball.store.scoped import Scope

Spec = dict[str, Any]
Hook = Callable[[Session, str], None]


@dataclass
class Document:
    """One stored resource: its name, generated id (or None), wire structure and times."""

    name: str
    resource_id: str | None
    spec: Spec
    create_time: float
    update_time: float


def document_exists(session: Session, scope: Scope, kind: str, name: str) -> bool:
    """Whether a resource of ``kind`` called ``name`` exists in ``scope`` (inside a session)."""
    query = select(StoredResourceRow.id).where(StoredResourceRow.account_id == scope.account_id,
                                               StoredResourceRow.region == scope.region,
                                               StoredResourceRow.kind == kind, StoredResourceRow.name == name)
    return session.scalars(query).first() is not None


def resource_id_exists(session: Session, scope: Scope, kind: str, resource_id: str) -> bool:
    """Whether a resource of ``kind`` whose generated id is ``resource_id`` exists in ``scope``."""
    query = select(StoredResourceRow.id).where(StoredResourceRow.account_id == scope.account_id,
                                               StoredResourceRow.region == scope.region,
                                               StoredResourceRow.kind == kind,
                                               StoredResourceRow.resource_id == resource_id)
    return session.scalars(query).first() is not None


def _document(row: StoredResourceRow) -> Document:
    return Document(row.name, row.resource_id, dict(row.spec), row.create_time, row.update_time)


class Documents:
    """The stored resources of one ``kind`` in one scope.

    Args:
        noun: how messages name one of them ("Security configuration", "Dev endpoint").
        arn_kind: the ARN's resource type when they are tagged (tags are kept by ARN), else None.
    """

    def __init__(self, store: Store, scope: Scope, kind: str, noun: str, arn_kind: str | None = None) -> None:
        self.store = store
        self.scope = scope
        self.kind = kind
        self.noun = noun
        self.arn_kind = arn_kind

    def arn(self, name: str) -> str:
        return self.scope.arn(f"{self.arn_kind or self.kind}/{name}")

    def not_found(self, name: str) -> EntityNotFoundException:
        return EntityNotFoundException(f"{self.noun} {name} not found.")

    def _query(self) -> Any:
        return select(StoredResourceRow).where(StoredResourceRow.account_id == self.scope.account_id,
                                               StoredResourceRow.region == self.scope.region,
                                               StoredResourceRow.kind == self.kind)

    def row(self, session: Session, name: str, for_update: bool = False) -> StoredResourceRow:
        """The row called ``name`` (locked with ``for_update``).

        Raises:
            EntityNotFoundException: there is none.
        """
        query = self._query().where(StoredResourceRow.name == name)
        if for_update:
            query = query.with_for_update()
        row: StoredResourceRow | None = session.scalars(query).one_or_none()
        if row is None:
            raise self.not_found(name)
        return row

    def exists(self, session: Session, name: str) -> bool:
        return document_exists(session, self.scope, self.kind, name)

    def create(self, name: str, spec: Spec, stamp: float, resource_id: str | None = None,
               on_create: Hook | None = None) -> Document:
        """Store a new resource.

        Raises:
            AlreadyExistsException: one of this name (or id) exists.
        """
        try:
            with self.store.write() as session:
                if self.exists(session, name):
                    raise AlreadyExistsException(f"{self.noun} {name} already exists.")
                row = StoredResourceRow(account_id=self.scope.account_id, region=self.scope.region, kind=self.kind,
                                        name=name, resource_id=resource_id, spec=spec, create_time=stamp,
                                        update_time=stamp)
                session.add(row)
                session.flush()
                if on_create is not None:
                    on_create(session, name)
                return _document(row)
        except IntegrityError as exc:  # a concurrent create won
            raise AlreadyExistsException(f"{self.noun} {name} already exists.") from exc

    def get(self, name: str) -> Document:
        """The resource called ``name``.

        Raises:
            EntityNotFoundException: there is none.
        """
        with self.store.read() as session:
            return _document(self.row(session, name))

    def find(self, name: str) -> Document | None:
        with self.store.read() as session:
            row = session.scalars(self._query().where(StoredResourceRow.name == name)).one_or_none()
            return _document(row) if row is not None else None

    def name_of(self, resource_id: str) -> str:
        """The name of the resource whose generated id is ``resource_id``.

        Raises:
            EntityNotFoundException: there is none.
        """
        with self.store.read() as session:
            name = session.scalars(select(StoredResourceRow.name).where(
                StoredResourceRow.account_id == self.scope.account_id, StoredResourceRow.region == self.scope.region,
                StoredResourceRow.kind == self.kind, StoredResourceRow.resource_id == resource_id)).one_or_none()
        if name is None:
            raise self.not_found(resource_id)
        return name

    def get_many(self, names: Iterable[str]) -> tuple[list[Document], list[str]]:
        """The resources of the given names that exist (in the order asked), and the names that do not."""
        wanted = list(dict.fromkeys(names))
        with self.store.read() as session:
            rows = {row.name: row for row in session.scalars(self._query().where(StoredResourceRow.name.in_(wanted)))}
        found = [_document(rows[name]) for name in wanted if name in rows]
        return found, [name for name in wanted if name not in rows]

    def all(self) -> list[Document]:
        """Every resource of the kind in the scope, in name order."""
        with self.store.read() as session:
            return [_document(row) for row in session.scalars(self._query().order_by(StoredResourceRow.name))]

    def tagged(self, documents: list[Document], tags: Mapping[str, str] | None,
               arn_of: Callable[[Document], str] | None = None) -> list[Document]:
        """Those of ``documents`` that carry every one of ``tags`` (all of them without ``tags``); a document's
        ARN is ``arn_of(document)``, by default :meth:`arn` of its name."""
        if not tags:
            return documents
        kept = []
        with self.store.read() as session:
            for document in documents:
                arn = arn_of(document) if arn_of is not None else self.arn(document.name)
                rows = session.scalars(select(TagRow).where(TagRow.resource_arn == arn))
                present = {row.key: row.value for row in rows}
                if all(present.get(key) == value for key, value in tags.items()):
                    kept.append(document)
        return kept

    def replace(self, name: str, change: Callable[[Document], Spec], stamp: float) -> Document:
        """Replace the stored structure of ``name`` by ``change(current)`` (in one transaction).

        Raises:
            EntityNotFoundException: there is none; whatever ``change`` raises (nothing is written then).
        """
        with self.store.write() as session:
            row = self.row(session, name, for_update=True)
            row.spec = change(_document(row))
            row.update_time = stamp
            return _document(row)

    def delete(self, name: str, on_delete: Hook | None = None) -> None:
        """Delete ``name``.

        Raises:
            EntityNotFoundException: there is none.
        """
        with self.store.write() as session:
            row = self.row(session, name, for_update=True)
            if on_delete is not None:
                on_delete(session, name)
            session.delete(row)


def require_security_configuration(session: Session, scope: Scope, name: str | None, where: str = "") -> None:
    """Refuse a reference (a job's, a run's, a crawler's, a trigger action's) to a security configuration that does
    not exist in ``scope``; glueball keeps the name and encrypts nothing (docs/security-configurations.md).

    Raises:
        InvalidInputException: no security configuration called ``name``.
    """
    if name and not document_exists(session, scope, SECURITY_CONFIGURATION, name):
        raise InvalidInputException(f"{where}Security configuration {name} does not exist")
