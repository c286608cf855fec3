"""Partitions of catalog tables and their partition indexes.

A partition is kept as one ``catalog_partition`` row (its values and the rest
of its ``PartitionInput`` as ``spec``) plus one ``catalog_partition_value`` row
per key, typed (``int_value`` for integer keys), which the store indexes per
(table, position, value) whether or not the table has a partition index. So,
unlike Glue (which loads every partition of a table without an index), the
top-level ``AND`` conjuncts on keys of indexable types are always answered by
the store first, and the whole expression is evaluated on that subset only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, Select, delete, exists, func, insert, literal, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from glueball.api.pagination import decode_token, encode_token
from glueball.catalog.expression import (
    INDEXABLE_KINDS,
    IndexCondition,
    KeyKind,
    PartitionFilter,
    compile_filter,
    key_kind,
    parse_int,
)
from glueball.catalog.lookup import fold, table_row, values_key
from glueball.catalog.models import Scope, Spec
from glueball.clock import now
from glueball.errors import (
    AlreadyExistsException,
    ConcurrentModificationException,
    EntityNotFoundException,
    GlueError,
    InvalidInputException,
    ResourceNumberLimitExceededException,
)
from glueball.store.engine import Store
from glueball.store.schema import (
    ColumnStatisticsRow,
    DatabaseRow,
    PartitionIndexRow,
    PartitionRow,
    PartitionValueRow,
    TableRow,
)

MAX_PARTITION_INDEXES = 3
_SCAN_CHUNK = 5000
_COUNT_CAP = 20000
_VALUES = PartitionValueRow.__table__
_WRITE_ATTEMPTS = 3
_NOT_FOUND = "Cannot find partition."
_INDEX_TYPES = "string, char, varchar, int, bigint, long, tinyint, smallint and date"

T = TypeVar("T")


@dataclass
class Partition:
    """A partition: its values and the other members of its ``PartitionInput`` (``spec``)."""

    values: list[str] | None
    spec: Spec = field(default_factory=dict)
    database_name: str = ""
    table_name: str = ""
    create_time: float | None = None


@dataclass
class PartitionFailure:
    """One failed item of a batch call: the values it named and Glue's error."""

    values: list[str]
    error: GlueError


@dataclass
class PartitionIndex:
    """A partition index: its name, its keys ``[{"Name", "Type"}]`` and its status."""

    name: str
    keys: list[dict[str, str]]
    status: str = "ACTIVE"


@dataclass(frozen=True)
class Segment:
    """A GetPartitions segment: partitions whose id is ``number`` modulo ``total``."""

    number: int
    total: int


# ---------------------------------------------------------------- helpers on a session

def _keys_of(table: TableRow) -> list[tuple[str, str | None]]:
    return [(k["Name"], k.get("Type")) for k in table.spec.get("PartitionKeys") or []]


def _qualified(table: TableRow, database: str) -> str:
    return f"{fold(database)}.{table.name}"


def _check_values(table: TableRow, database: str, values: Sequence[str]) -> None:
    """One value per partition key, refused in AWS's words (a table without partition keys has no partitions)."""
    keys = _keys_of(table)
    if not keys or len(values) != len(keys):
        raise InvalidInputException("The number of partition keys do not match the number of partition values")


def _value_rows(table: TableRow, partition_id: int, values: Sequence[str]) -> list[dict[str, Any]]:
    kinds = [key_kind(t) for _, t in _keys_of(table)]
    return [
        {
            "partition_id": partition_id,
            "position": position,
            "table_id": table.id,
            "text_value": value,
            "int_value": parse_int(value) if position < len(kinds) and kinds[position] == KeyKind.INT else None,
        }
        for position, value in enumerate(values)
    ]


def refresh_partition_values(session: Session, table: TableRow) -> None:
    """Recompute every partition's typed key values after the table's partition keys changed."""
    session.execute(delete(PartitionValueRow).where(PartitionValueRow.table_id == table.id))
    rows: list[dict[str, Any]] = []
    for partition_id, values in session.execute(
            select(PartitionRow.id, PartitionRow.values).where(PartitionRow.table_id == table.id)):
        rows += _value_rows(table, partition_id, values)
    if rows:
        session.execute(insert(PartitionValueRow), rows)


def _insert_partitions(session: Session, table: TableRow, partitions: Sequence[Partition]) -> None:
    """Insert new partitions and their typed values with two bulk statements."""
    if not partitions:
        return
    created = now()
    rows = [
        {"table_id": table.id, "values_key": values_key(p.values or []), "values": list(p.values or []),
         "spec": p.spec, "create_time": created}
        for p in partitions
    ]
    ids = session.scalars(
        insert(PartitionRow).returning(PartitionRow.id, sort_by_parameter_order=True), rows
    ).all()
    value_rows: list[dict[str, Any]] = []
    for partition_id, partition in zip(ids, partitions, strict=True):
        value_rows += _value_rows(table, partition_id, partition.values or [])
    session.execute(insert(PartitionValueRow), value_rows)


def _existing_keys(session: Session, table: TableRow, keys: Sequence[str]) -> set[str]:
    if not keys:
        return set()
    query = select(PartitionRow.values_key).where(
        PartitionRow.table_id == table.id, PartitionRow.values_key.in_(set(keys))
    )
    return set(session.scalars(query))


def _partition_row(session: Session, table: TableRow, values: Sequence[str]) -> PartitionRow:
    query = select(PartitionRow).where(PartitionRow.table_id == table.id,
                                       PartitionRow.values_key == values_key(list(values)))
    row = session.scalars(query).one_or_none()
    if row is None:
        raise EntityNotFoundException(_NOT_FOUND)
    return row


def _to_model(row: PartitionRow, table: TableRow, database: str) -> Partition:
    return Partition(values=list(row.values), spec=row.spec, database_name=fold(database),
                     table_name=table.name, create_time=row.create_time)


def _index_keys(table: TableRow, database: str, name: str, keys: Sequence[str]) -> list[dict[str, str]]:
    """The keys of a new partition index as ``[{"Name", "Type"}]``, validated like Glue."""
    declared = {k.lower(): (k, t or "string") for k, t in _keys_of(table)}
    found: list[dict[str, str]] = []
    for key in keys:
        if key.lower() not in declared:
            raise InvalidInputException(
                f"Partition index {name}: {key} is not a partition key of table {_qualified(table, database)}; "
                f"its partition keys are: {', '.join(k for k, _ in declared.values()) or '(none)'}"
            )
        key_name, key_type = declared[key.lower()]
        if any(f["Name"] == key_name for f in found):
            raise InvalidInputException(f"Partition index {name}: key {key_name} is listed twice")
        if key_kind(key_type) not in INDEXABLE_KINDS:
            raise InvalidInputException(
                f"Partition index {name}: key {key_name} has type {key_type}; partition indexes support "
                f"{_INDEX_TYPES} keys"
            )
        found.append({"Name": key_name, "Type": key_type})
    return found


def add_partition_indexes(session: Session, table: TableRow, indexes: list[dict[str, Any]],
                          database: str | None = None) -> None:
    """Add partition indexes (wire ``PartitionIndex`` dicts) to a table in the caller's transaction.

    Used by CreatePartitionIndex and by CreateTable's ``PartitionIndexes``;
    ``table`` must be flushed (have an id).

    Raises:
        InvalidInputException: a key is not a partition key, is listed twice or has an unsupported type.
        AlreadyExistsException: an index of that name exists on the table.
        ResourceNumberLimitExceededException: the table would have more than three indexes.
    """
    database = database if database is not None else _database_name(session, table)
    names = set(session.scalars(select(PartitionIndexRow.name).where(PartitionIndexRow.table_id == table.id)))
    for index in indexes:
        name = index["IndexName"]
        keys = _index_keys(table, database, name, index["Keys"])
        if name in names:
            raise AlreadyExistsException(
                f"Partition index {name} already exists on table {_qualified(table, database)}."
            )
        if len(names) >= MAX_PARTITION_INDEXES:
            raise ResourceNumberLimitExceededException(
                f"Table {_qualified(table, database)} already has {MAX_PARTITION_INDEXES} partition indexes, "
                "the maximum per table."
            )
        names.add(name)
        session.add(PartitionIndexRow(table_id=table.id, name=name, keys=keys, status="ACTIVE"))
    session.flush()


def _database_name(session: Session, table: TableRow) -> str:
    return session.get_one(DatabaseRow, table.database_id).name


_SQL_COMPARE: dict[str, Callable[[Any, Any], ColumnElement[bool]]] = {
    "=": lambda c, v: c == v, ">": lambda c, v: c > v, ">=": lambda c, v: c >= v,
    "<": lambda c, v: c < v, "<=": lambda c, v: c <= v,
}


def _value_matches(values: Any, table: TableRow, position: int,
                   conditions: list[IndexCondition]) -> list[ColumnElement[bool]]:
    """The tests of one key's conditions on an alias of ``catalog_partition_value``."""
    column = values.c.int_value if conditions[0].kind == KeyKind.INT else values.c.text_value
    return [values.c.table_id == table.id, values.c.position == position,
            *(_SQL_COMPARE[c.op](column, c.literal) for c in conditions)]


def _candidates(session: Session, table: TableRow, position: int, conditions: list[IndexCondition],
                cap: int) -> int:
    """How many partitions one key's conditions select, counted up to ``cap`` on the index alone."""
    values = _VALUES.alias()
    capped = select(literal(1)).where(*_value_matches(values, table, position, conditions)).limit(cap)
    return int(session.scalar(select(func.count()).select_from(capped.subquery())) or 0)


def _most_selective_first(session: Session, table: TableRow,
                          groups: list[tuple[int, list[IndexCondition]]]) -> list[tuple[int, list[IndexCondition]]]:
    """Order the keys' condition groups so that the one selecting the fewest partitions comes first.

    Equalities are counted first, and each count stops at the smallest so far,
    so that ranking costs about as much as reading the winner's index range.
    """
    if len(groups) < 2:
        return groups
    ordered = sorted(groups, key=lambda group: not any(c.op == "=" for c in group[1]))
    best, best_count = 0, _COUNT_CAP
    for i, (position, conditions) in enumerate(ordered):
        count = _candidates(session, table, position, conditions, best_count)
        if count < best_count:
            best, best_count = i, count
    return [ordered[best], *ordered[:best], *ordered[best + 1:]]


def partition_query(session: Session, table: TableRow, predicate: PartitionFilter | None,
                    segment: Segment | None) -> Select[tuple[int, list[Any]]]:
    """The store query of the candidate partitions (id, values) of a GetPartitions call, by id.

    The indexable conjuncts of the predicate narrow the candidates in the store (every key's values are
    indexed, with or without a partition index): the most selective key's index range drives the query
    and the other keys are probed by primary key (``EXISTS``). The caller still evaluates the whole
    predicate on each candidate.
    """
    positions = set(range(len(_keys_of(table))))
    conditions = predicate.index_conditions(positions) if predicate is not None else []
    query = select(PartitionRow.id, PartitionRow.values)
    if conditions:
        by_position: dict[int, list[IndexCondition]] = {}
        for condition in conditions:
            by_position.setdefault(condition.position, []).append(condition)
        groups = _most_selective_first(session, table, list(by_position.items()))
        driver = _VALUES.alias()
        query = query.join(driver, PartitionRow.id == driver.c.partition_id).where(
            *_value_matches(driver, table, *groups[0]))
        for position, group in groups[1:]:
            probe = _VALUES.alias()
            query = query.where(exists().where(probe.c.partition_id == driver.c.partition_id,
                                               *_value_matches(probe, table, position, group)))
    else:
        query = query.where(PartitionRow.table_id == table.id)
    if segment is not None and segment.total > 1:
        query = query.where(PartitionRow.id % segment.total == segment.number)
    return query.order_by(PartitionRow.id)


class PartitionService:
    """Partitions and partition indexes of catalog tables (per account and region)."""

    def __init__(self, store: Store, scope: Scope) -> None:
        self.store = store
        self.scope = scope

    def _write(self, work: Callable[[Session], T]) -> T:
        """Run ``work`` in a write transaction, again if a concurrent writer made it conflict."""
        for attempt in range(_WRITE_ATTEMPTS):
            try:
                with self.store.write() as session:
                    return work(session)
            except IntegrityError as exc:
                if attempt == _WRITE_ATTEMPTS - 1:
                    raise ConcurrentModificationException(
                        "Partitions of the table were changed concurrently; retry the request"
                    ) from exc
        raise AssertionError("unreachable")  # pragma: no cover

    # ------------------------------------------------------------ partitions

    def create(self, database: str, table: str, partition: Partition) -> None:
        """Mirror CreatePartition: the values must match the partition keys and be new."""
        values = partition.values or []
        try:
            with self.store.write() as session:
                row = table_row(session, self.scope, database, table)
                _check_values(row, database, values)
                if _existing_keys(session, row, [values_key(values)]):
                    raise AlreadyExistsException("Partition already exists.")
                _insert_partitions(session, row, [partition])
        except IntegrityError as exc:  # a concurrent writer created it first
            raise AlreadyExistsException("Partition already exists.") from exc

    def batch_create(self, database: str, table: str, partitions: list[Partition]) -> list[PartitionFailure]:
        """Mirror BatchCreatePartition: one transaction; duplicates and bad values fail per item."""

        def work(session: Session) -> list[PartitionFailure]:
            row = table_row(session, self.scope, database, table)
            keys = len(_keys_of(row))
            existing = _existing_keys(
                session, row, [values_key(p.values or []) for p in partitions if len(p.values or []) == keys]
            )
            failures: list[PartitionFailure] = []
            new: list[Partition] = []
            for partition in partitions:
                values = partition.values or []
                try:
                    _check_values(row, database, values)
                    key = values_key(values)
                    if key in existing:
                        raise AlreadyExistsException("Partition already exists.")
                except GlueError as exc:
                    failures.append(PartitionFailure(values, exc))
                    continue
                existing.add(key)
                new.append(partition)
            _insert_partitions(session, row, new)
            return failures

        return self._write(work)

    def get(self, database: str, table: str, values: list[str]) -> Partition:
        """Mirror GetPartition."""
        with self.store.read() as session:
            row = table_row(session, self.scope, database, table)
            _check_values(row, database, values)
            return _to_model(_partition_row(session, row, values), row, database)

    def batch_get(self, database: str, table: str, values_list: list[list[str]]) -> list[Partition]:
        """Mirror BatchGetPartition: partitions that do not exist are simply absent."""
        with self.store.read() as session:
            row = table_row(session, self.scope, database, table)
            for values in values_list:
                _check_values(row, database, values)
            keys = {values_key(v) for v in values_list}
            if not keys:
                return []
            query = (select(PartitionRow)
                     .where(PartitionRow.table_id == row.id, PartitionRow.values_key.in_(keys))
                     .order_by(PartitionRow.id))
            return [_to_model(p, row, database) for p in session.scalars(query)]

    def _update_one(self, session: Session, row: TableRow, database: str, values: list[str],
                    partition: Partition) -> None:
        _check_values(row, database, values)
        current = _partition_row(session, row, values)
        new_values = list(partition.values) if partition.values is not None else list(current.values)
        _check_values(row, database, new_values)
        new_key = values_key(new_values)
        if new_key != current.values_key:
            if _existing_keys(session, row, [new_key]):
                raise AlreadyExistsException("Partition already exists.")
            current.values_key = new_key
            current.values = new_values
            # statistics are unique per (table, partition values key): they move with the partition
            session.execute(update(ColumnStatisticsRow).where(ColumnStatisticsRow.partition_id == current.id)
                            .values(partition_key=new_key))
            session.execute(delete(PartitionValueRow).where(PartitionValueRow.partition_id == current.id))
            session.flush()
            session.execute(insert(PartitionValueRow), _value_rows(row, current.id, new_values))
        current.spec = partition.spec
        session.flush()

    def update(self, database: str, table: str, values: list[str], partition: Partition) -> None:
        """Mirror UpdatePartition: the new definition replaces the old; new Values move the partition."""
        try:
            with self.store.write() as session:
                row = table_row(session, self.scope, database, table)
                self._update_one(session, row, database, values, partition)
        except IntegrityError as exc:
            raise AlreadyExistsException("Partition already exists.") from exc

    def batch_update(self, database: str, table: str,
                     entries: list[tuple[list[str], Partition]]) -> list[PartitionFailure]:
        """Mirror BatchUpdatePartition: one transaction; entries fail one by one."""

        def work(session: Session) -> list[PartitionFailure]:
            row = table_row(session, self.scope, database, table)
            failures: list[PartitionFailure] = []
            for values, partition in entries:
                try:
                    with session.begin_nested():
                        self._update_one(session, row, database, values, partition)
                except GlueError as exc:
                    failures.append(PartitionFailure(values, exc))
            return failures

        return self._write(work)

    def delete(self, database: str, table: str, values: list[str]) -> None:
        """Mirror DeletePartition (its statistics go with it)."""
        with self.store.write() as session:
            row = table_row(session, self.scope, database, table)
            _check_values(row, database, values)
            session.delete(_partition_row(session, row, values))

    def batch_delete(self, database: str, table: str, values_list: list[list[str]]) -> list[PartitionFailure]:
        """Mirror BatchDeletePartition: missing partitions fail per item."""
        with self.store.write() as session:
            row = table_row(session, self.scope, database, table)
            failures: list[PartitionFailure] = []
            keys: set[str] = set()
            for values in values_list:
                try:
                    _check_values(row, database, values)
                except InvalidInputException as exc:
                    failures.append(PartitionFailure(values, exc))
                else:
                    keys.add(values_key(values))
            existing = _existing_keys(session, row, list(keys))
            for values in values_list:
                key = values_key(values)
                if key in keys and key not in existing:
                    failures.append(PartitionFailure(values, EntityNotFoundException(_NOT_FOUND)))
            if existing:
                session.execute(delete(PartitionRow).where(PartitionRow.table_id == row.id,
                                                           PartitionRow.values_key.in_(existing)))
            return failures

    def list_partitions(self, database: str, table: str, expression: str | None, max_results: int,
                        token: str | None, segment: Segment | None = None) -> tuple[list[Partition], str | None]:
        """Mirror GetPartitions: filter by ``expression``, page by partition id, split by segment.

        Raises:
            InvalidInputException: a bad expression, token or segment.
        """
        after = decode_token(token, int)
        if segment is not None and not (1 <= segment.total <= 10 and 0 <= segment.number < segment.total):
            raise InvalidInputException(
                f"Invalid Segment: SegmentNumber {segment.number} must be less than TotalSegments "
                f"{segment.total}, which must be between 1 and 10"
            )
        with self.store.read() as session:
            row = table_row(session, self.scope, database, table)
            predicate = compile_filter(expression or "", _keys_of(row))
            query = partition_query(session, row, predicate, segment)
            chunk = _SCAN_CHUNK if predicate is not None else max_results + 1
            matched: list[int] = []
            cursor = after
            while len(matched) <= max_results:
                page = query if cursor is None else query.where(PartitionRow.id > cursor)
                rows = session.execute(page.limit(chunk)).all()
                for partition_id, values in rows:
                    if predicate is None or predicate.matches(values):
                        matched.append(partition_id)
                        if len(matched) > max_results:
                            break
                if len(rows) < chunk:
                    break
                cursor = rows[-1][0]
            more = len(matched) > max_results
            ids = matched[:max_results]
            found = list(session.scalars(select(PartitionRow).where(PartitionRow.id.in_(ids))
                                         .order_by(PartitionRow.id))) if ids else []
            partitions = [_to_model(p, row, database) for p in found]
        return partitions, encode_token(ids[-1]) if more else None

    # ------------------------------------------------------------ partition indexes

    def create_index(self, database: str, table: str, name: str, keys: list[str]) -> None:
        """Mirror CreatePartitionIndex; the index is ACTIVE at once (values are always indexed)."""
        try:
            with self.store.write() as session:
                row = table_row(session, self.scope, database, table, for_update=True)
                add_partition_indexes(session, row, [{"IndexName": name, "Keys": keys}], database)
        except IntegrityError as exc:
            raise AlreadyExistsException(f"Partition index {name} already exists on table "
                                         f"{fold(database)}.{fold(table)}.") from exc

    def list_indexes(self, database: str, table: str, token: str | None) -> list[PartitionIndex]:
        """Mirror GetPartitionIndexes: a table has at most three, so all come in one page."""
        after = decode_token(token, int)
        with self.store.read() as session:
            row = table_row(session, self.scope, database, table)
            query = select(PartitionIndexRow).where(PartitionIndexRow.table_id == row.id)
            if after is not None:
                query = query.where(PartitionIndexRow.id > after)
            rows = session.scalars(query.order_by(PartitionIndexRow.id)).all()
            return [PartitionIndex(r.name, list(r.keys), r.status) for r in rows]

    def delete_index(self, database: str, table: str, name: str) -> None:
        """Mirror DeletePartitionIndex."""
        with self.store.write() as session:
            row = table_row(session, self.scope, database, table, for_update=True)
            index = session.scalars(select(PartitionIndexRow).where(
                PartitionIndexRow.table_id == row.id, PartitionIndexRow.name == name)).one_or_none()
            if index is None:
                raise EntityNotFoundException(
                    f"Partition index {name} not found on table {_qualified(row, database)}."
                )
            session.delete(index)
