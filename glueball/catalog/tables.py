"""Tables of the Data Catalog, their archived versions, and SearchTables.

Every table row carries its current version number; an update is a
compare-and-swap on it (``UPDATE ... WHERE version = :seen``), so of two
writers holding the same version exactly one wins, on SQLite and PostgreSQL.
Each version's definition is kept in ``catalog_table_version`` unless the
update asks to ``SkipArchive``.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from glueball.api.pagination import decode_token, encode_token
from glueball.catalog.lookup import database_row, fold, table_row
from glueball.catalog.models import Scope, Spec, Table, TableVersion
from glueball.clock import now
from glueball.errors import (
    AlreadyExistsException,
    ConcurrentModificationException,
    EntityNotFoundException,
    GlueError,
    InvalidInputException,
)
from glueball.store.engine import Store
from glueball.store.schema import DatabaseRow, TableRow, TableVersionRow


def name_pattern(expression: str) -> re.Pattern[str]:
    """The regex of a GetTables ``Expression``.

    Glue takes a regular expression where, as in Hive's metastore, a bare
    ``*`` stands for ``.*`` (``sales*`` lists every table starting ``sales``).
    """
    translated = re.sub(r"(?<![.\\\])])\*", ".*", expression)
    try:
        return re.compile(translated, re.IGNORECASE)
    except re.error as exc:
        raise InvalidInputException(f"Expression {expression!r} is not a valid pattern: {exc}") from exc


def _to_model(row: TableRow, database: str, spec: Spec | None = None, version: int | None = None) -> Table:
    return Table(
        database_name=database,
        name=row.name,
        spec=row.spec if spec is None else spec,
        version=row.version if version is None else version,
        create_time=row.create_time,
        update_time=row.update_time,
    )


def _key_types(spec: Spec) -> list[tuple[str, str | None]]:
    return [(k["Name"].lower(), (k.get("Type") or "").lower() or None) for k in spec.get("PartitionKeys") or []]


def rowcount(result: Any) -> int:
    """Rows matched by an UPDATE or DELETE (a CursorResult; typed loosely by SQLAlchemy)."""
    return int(result.rowcount)


def parse_version(version_id: str, table: str) -> int:
    if not version_id.isdigit():
        raise InvalidInputException(f"VersionId {version_id!r} of table {table} is not a version number")
    return int(version_id)


class TableService:
    """Tables of one catalog (account and region)."""

    def __init__(self, store: Store, scope: Scope) -> None:
        self.store = store
        self.scope = scope

    # -- tables ---------------------------------------------------------------------------------

    def create(self, database: str, table: Table, partition_indexes: list[dict[str, Any]] | None = None) -> None:
        """Mirror CreateTable: the name is folded to lowercase; the table starts at version 0."""
        name = fold(table.name)
        stamp = now()
        try:
            with self.store.write() as session:
                db = database_row(session, self.scope, database)
                row = TableRow(database_id=db.id, name=name, version=0, spec=table.spec,
                               create_time=stamp, update_time=stamp)
                session.add(row)
                session.flush()
                session.add(TableVersionRow(table_id=row.id, version=0, spec=table.spec, update_time=stamp))
                if partition_indexes:
                    from glueball.catalog.partitions import add_partition_indexes

                    add_partition_indexes(session, row, partition_indexes)
        except IntegrityError as exc:
            raise AlreadyExistsException(f"Table {name} already exists in database {fold(database)}.") from exc

    def get(self, database: str, name: str) -> Table:
        with self.store.read() as session:
            return _to_model(table_row(session, self.scope, database, name), fold(database))

    def page(self, database: str, expression: str | None, max_results: int,
             token: str | None) -> tuple[list[Table], str | None]:
        """Mirror GetTables: tables in name order, filtered by the name pattern, paginated."""
        pattern = name_pattern(expression) if expression else None
        after = decode_token(token, str)
        found: list[Table] = []
        with self.store.read() as session:
            db = database_row(session, self.scope, database)
            query = select(TableRow).where(TableRow.database_id == db.id).order_by(TableRow.name)
            if after is not None:
                query = query.where(TableRow.name > str(after))
            if pattern is None:
                query = query.limit(max_results + 1)
            else:  # match on the names alone, then read only the page's tables (a database may hold 100k)
                names = session.scalars(query.with_only_columns(TableRow.name))
                wanted = list(itertools.islice((n for n in names if pattern.fullmatch(n)), max_results + 1))
                query = query.where(TableRow.name.in_(wanted))
            for row in session.scalars(query):
                if len(found) == max_results:
                    return found, encode_token(found[-1].name)
                found.append(_to_model(row, db.name))
        return found, None

    def update(self, database: str, table: Table, skip_archive: bool = False,
               expected_version: str | None = None) -> int:
        """Mirror UpdateTable; returns the new version number.

        Raises:
            ConcurrentModificationException: ``expected_version`` is not the current
                version, or another writer changed the table meanwhile.
        """
        name = fold(table.name)
        with self.store.write() as session:
            row = table_row(session, self.scope, database, name)
            seen = row.version
            if expected_version is not None:
                expected = parse_version(expected_version, name)
                if expected != seen:
                    raise ConcurrentModificationException(
                        f"Table {name} is at version {seen}, not at VersionId {expected_version}; "
                        "read it again and retry."
                    )
            stamp = now()
            changed = rowcount(session.execute(
                update(TableRow)
                .where(TableRow.id == row.id, TableRow.version == seen)
                .values(version=seen + 1, spec=table.spec, update_time=stamp)
                .execution_options(synchronize_session=False)
            ))
            if changed != 1:
                raise ConcurrentModificationException(
                    f"Table {name} was updated concurrently at version {seen}; read it again and retry."
                )
            session.add(TableVersionRow(table_id=row.id, version=seen + 1, spec=table.spec, update_time=stamp))
            if _key_types(row.spec) != _key_types(table.spec):
                from glueball.catalog.partitions import refresh_partition_values

                session.expire(row)  # reload the new definition written above
                refresh_partition_values(session, row)
            if skip_archive:
                session.execute(delete(TableVersionRow).where(
                    TableVersionRow.table_id == row.id, TableVersionRow.version == seen))
            return seen + 1

    def delete(self, database: str, name: str) -> None:
        """Mirror DeleteTable: partitions, versions, indexes and statistics go with it."""
        with self.store.write() as session:
            session.delete(table_row(session, self.scope, database, name, for_update=True))

    def batch_delete(self, database: str, names: Iterable[str]) -> list[tuple[str, GlueError]]:
        """Mirror BatchDeleteTable: one transaction; missing tables are reported per item."""
        errors: list[tuple[str, GlueError]] = []
        with self.store.write() as session:
            database_row(session, self.scope, database)
            for name in names:
                try:
                    session.delete(table_row(session, self.scope, database, name, for_update=True))
                except EntityNotFoundException:
                    # AWS words a batch entry without DeleteTable's final period (seen live with the AWS
                    # CLI, floci-io/floci issue #1203)
                    errors.append((name, EntityNotFoundException(f"Table {fold(name)} not found")))
        return errors

    # -- versions -------------------------------------------------------------------------------

    def get_version(self, database: str, name: str, version_id: str | None) -> TableVersion:
        with self.store.read() as session:
            row = table_row(session, self.scope, database, name)
            version = row.version if version_id is None else parse_version(version_id, row.name)
            archived = session.scalars(select(TableVersionRow).where(
                TableVersionRow.table_id == row.id, TableVersionRow.version == version)).one_or_none()
            if archived is None:
                raise EntityNotFoundException(f"Version {version} of table {row.name} not found.")
            return TableVersion(_to_model(row, fold(database), archived.spec, version), version)

    def list_versions(self, database: str, name: str, max_results: int,
                      token: str | None) -> tuple[list[TableVersion], str | None]:
        """Mirror GetTableVersions: newest first, paginated."""
        before = decode_token(token, int)
        with self.store.read() as session:
            row = table_row(session, self.scope, database, name)
            query = (select(TableVersionRow).where(TableVersionRow.table_id == row.id)
                     .order_by(TableVersionRow.version.desc()).limit(max_results + 1))
            if before is not None:
                query = query.where(TableVersionRow.version < before)
            archived = list(session.scalars(query))
            more = len(archived) > max_results
            versions = [TableVersion(_to_model(row, fold(database), v.spec, v.version), v.version)
                        for v in archived[:max_results]]
        return versions, encode_token(versions[-1].version) if more else None

    def delete_versions(self, database: str, name: str, version_ids: list[str]) -> list[tuple[str, GlueError]]:
        """Mirror (Batch)DeleteTableVersion; the current version cannot be deleted."""
        errors: list[tuple[str, GlueError]] = []
        with self.store.write() as session:
            row = table_row(session, self.scope, database, name, for_update=True)
            for version_id in version_ids:
                try:
                    self._delete_version(session, row, version_id)
                except GlueError as err:
                    errors.append((version_id, err))
        return errors

    @staticmethod
    def _delete_version(session: Session, row: TableRow, version_id: str) -> None:
        version = parse_version(version_id, row.name)
        if version == row.version:
            raise InvalidInputException(
                f"Version {version} is the current version of table {row.name} and cannot be deleted."
            )
        gone = rowcount(session.execute(delete(TableVersionRow).where(
            TableVersionRow.table_id == row.id, TableVersionRow.version == version)))
        if gone == 0:
            raise EntityNotFoundException(f"Version {version} of table {row.name} not found.")

    # -- search ---------------------------------------------------------------------------------

    def all_tables(self) -> list[Table]:
        """Every table of the catalog, for SearchTables."""
        query = (select(TableRow, DatabaseRow.name)
                 .join(DatabaseRow, TableRow.database_id == DatabaseRow.id)
                 .where(DatabaseRow.account_id == self.scope.account_id,
                        DatabaseRow.region == self.scope.region)
                 .order_by(DatabaseRow.name, TableRow.name))
        with self.store.read() as session:
            return [_to_model(row, db_name) for row, db_name in session.execute(query)]
