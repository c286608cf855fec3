"""Databases of the Data Catalog."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from glueball.api.pagination import decode_token, encode_token
from glueball.catalog.lookup import database_row, fold
from glueball.catalog.models import Database, Scope
from glueball.clock import now
from glueball.errors import AlreadyExistsException, InvalidInputException
from glueball.store.engine import Store
from glueball.store.schema import DatabaseRow
from glueball.tagging.service import delete_tags, write_tags

DEFAULT_TABLE_PERMISSIONS = [
    {"Principal": {"DataLakePrincipalIdentifier": "IAM_ALLOWED_PRINCIPALS"}, "Permissions": ["ALL"]}
]


def _to_model(row: DatabaseRow) -> Database:
    return Database(name=row.name, spec=row.spec, create_time=row.create_time)


class DatabaseService:
    """Create, read, update and delete catalog databases (per account and region)."""

    def __init__(self, store: Store, scope: Scope) -> None:
        self.store = store
        self.scope = scope

    def arn(self, name: str) -> str:
        return self.scope.arn(f"database/{fold(name)}")

    def create(self, database: Database, tags: dict[str, str] | None = None) -> None:
        """Mirror CreateDatabase: names are folded to lowercase; duplicates are AlreadyExists."""
        spec = dict(database.spec)
        spec.setdefault("CreateTableDefaultPermissions", DEFAULT_TABLE_PERMISSIONS)
        name = fold(database.name)
        try:
            with self.store.write() as session:
                session.add(DatabaseRow(account_id=self.scope.account_id, region=self.scope.region,
                                        name=name, spec=spec, create_time=now()))
                session.flush()
                write_tags(session, self.arn(name), tags)
        except IntegrityError as exc:
            raise AlreadyExistsException(f"Database {name} already exists.") from exc

    def get(self, name: str) -> Database:
        with self.store.read() as session:
            return _to_model(database_row(session, self.scope, name))

    def page(self, max_results: int, token: str | None) -> tuple[list[Database], str | None]:
        after = decode_token(token, str)
        query = (
            select(DatabaseRow)
            .where(DatabaseRow.account_id == self.scope.account_id, DatabaseRow.region == self.scope.region)
            .order_by(DatabaseRow.name)
            .limit(max_results + 1)
        )
        if after is not None:
            query = query.where(DatabaseRow.name > str(after))
        with self.store.read() as session:
            rows = list(session.scalars(query))
        more = len(rows) > max_results
        rows = rows[:max_results]
        return [_to_model(r) for r in rows], encode_token(rows[-1].name) if more else None

    def update(self, name: str, database: Database) -> None:
        """Mirror UpdateDatabase: the new definition replaces the old one entirely."""
        if fold(database.name) != fold(name):
            raise InvalidInputException(
                f"Renaming a database is not supported: Name {fold(name)!r} and "
                f"DatabaseInput.Name {fold(database.name)!r} differ"
            )
        with self.store.write() as session:
            row = database_row(session, self.scope, name, for_update=True)
            spec = dict(database.spec)
            spec.setdefault("CreateTableDefaultPermissions",
                            row.spec.get("CreateTableDefaultPermissions", DEFAULT_TABLE_PERMISSIONS))
            row.spec = spec

    def delete(self, name: str) -> None:
        """Mirror DeleteDatabase: its tables, partitions, versions and functions go with it."""
        with self.store.write() as session:
            row = database_row(session, self.scope, name, for_update=True)
            delete_tags(session, self.arn(row.name))
            session.delete(row)
