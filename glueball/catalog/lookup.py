"""Finding catalog rows by name, with Glue's not-found errors."""

from __future__ import annotations

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from glueball.catalog.models import Scope
from glueball.errors import EntityNotFoundException
from glueball.store.schema import DatabaseRow, TableRow


def fold(name: str) -> str:
    """Glue folds database and table names to lowercase (Hive compatibility)."""
    return name.lower()


_DATABASE_BY_NAME = select(DatabaseRow).where(
    DatabaseRow.account_id == bindparam("account"),
    DatabaseRow.region == bindparam("region"),
    DatabaseRow.name == bindparam("database"),
)
_TABLE_BY_NAME = (
    select(TableRow)
    .join(DatabaseRow, TableRow.database_id == DatabaseRow.id)
    .where(
        DatabaseRow.account_id == bindparam("account"),
        DatabaseRow.region == bindparam("region"),
        DatabaseRow.name == bindparam("database"),
        TableRow.name == bindparam("table"),
    )
)
# built once: constructing these expressions costs more than running them
_DATABASE_FOR_UPDATE = _DATABASE_BY_NAME.with_for_update()
_TABLE_FOR_UPDATE = _TABLE_BY_NAME.with_for_update(of=TableRow)


def database_row(session: Session, scope: Scope, name: str, for_update: bool = False) -> DatabaseRow:
    params = {"account": scope.account_id, "region": scope.region, "database": fold(name)}
    row = session.scalars(_DATABASE_FOR_UPDATE if for_update else _DATABASE_BY_NAME, params).one_or_none()
    if row is None:
        raise EntityNotFoundException(f"Database {fold(name)} not found.")
    return row


def table_row(session: Session, scope: Scope, database: str, name: str, for_update: bool = False) -> TableRow:
    params = {"account": scope.account_id, "region": scope.region, "database": fold(database),
              "table": fold(name)}
    row = session.scalars(_TABLE_FOR_UPDATE if for_update else _TABLE_BY_NAME, params).one_or_none()
    if row is None:
        database_row(session, scope, database)  # a missing database is reported as such
        raise EntityNotFoundException(f"Table {fold(name)} not found.")  # AWS's text
    return row

def values_key(values: list[str]) -> str:
    """The bounded uniqueness key of a partition's values (sha256 of their JSON)."""
    import hashlib
    import json

    return hashlib.sha256(json.dumps(list(values), ensure_ascii=False).encode()).hexdigest()
