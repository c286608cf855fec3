"""Finding catalog rows by name, with Glue's not-found errors."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from glueball.catalog.models import Scope
from glueball.errors import EntityNotFoundException
from glueball.store.schema import DatabaseRow, TableRow


def fold(name: str) -> str:
    """Glue folds database and table names to lowercase (Hive compatibility)."""
    return name.lower()


def database_row(session: Session, scope: Scope, name: str, for_update: bool = False) -> DatabaseRow:
    query = select(DatabaseRow).where(
        DatabaseRow.account_id == scope.account_id,
        DatabaseRow.region == scope.region,
        DatabaseRow.name == fold(name),
    )
    if for_update:
        query = query.with_for_update()
    row = session.scalars(query).one_or_none()
    if row is None:
        raise EntityNotFoundException(f"Database {fold(name)} not found.")
    return row


def table_row(session: Session, scope: Scope, database: str, name: str, for_update: bool = False) -> TableRow:
    query = (
        select(TableRow)
        .join(DatabaseRow, TableRow.database_id == DatabaseRow.id)
        .where(
            DatabaseRow.account_id == scope.account_id,
            DatabaseRow.region == scope.region,
            DatabaseRow.name == fold(database),
            TableRow.name == fold(name),
        )
    )
    if for_update:
        query = query.with_for_update(of=TableRow)
    row = session.scalars(query).one_or_none()
    if row is None:
        database_row(session, scope, database)  # a missing database is reported as such
        raise EntityNotFoundException(f"Table {fold(name)} not found in database {fold(database)}.")
    return row


def values_key(values: list[str]) -> str:
    """The bounded uniqueness key of a partition's values (sha256 of their JSON)."""
    import hashlib
    import json

    return hashlib.sha256(json.dumps(list(values), ensure_ascii=False).encode()).hexdigest()
