"""Column statistics of tables and partitions.

Rows of ``catalog_column_statistics`` are keyed by table, partition (``""`` for
table-level statistics, else the partition's ``values_key``) and lowercased column
name. Partition-level statistics are found through the partition's id, so they
follow a partition whose values change.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.orm import Session

from glueball.catalog.lookup import fold, table_row, values_key
from glueball.catalog.models import Scope, Spec
from glueball.errors import EntityNotFoundException, GlueError, InvalidInputException
from glueball.store.engine import Store
from glueball.store.schema import ColumnStatisticsRow, PartitionRow, TableRow

# StatisticsData.Type -> the member that must carry the numbers
STATISTICS_MEMBERS = {
    "BOOLEAN": "BooleanColumnStatisticsData",
    "DATE": "DateColumnStatisticsData",
    "DECIMAL": "DecimalColumnStatisticsData",
    "DOUBLE": "DoubleColumnStatisticsData",
    "LONG": "LongColumnStatisticsData",
    "STRING": "StringColumnStatisticsData",
    "BINARY": "BinaryColumnStatisticsData",
}


@dataclass
class ColumnStatistics:
    """Statistics of one column; ``data`` is the StatisticsData structure (timestamps in epoch seconds)."""

    column_name: str
    column_type: str
    analyzed_time: float
    data: Spec = field(default_factory=dict)

    @property
    def statistics_type(self) -> str:
        return str(self.data["Type"])

    def to_spec(self) -> Spec:
        return {"ColumnName": self.column_name, "ColumnType": self.column_type,
                "AnalyzedTime": self.analyzed_time, "StatisticsData": self.data}

    @classmethod
    def from_spec(cls, spec: Spec) -> ColumnStatistics:
        return cls(column_name=spec["ColumnName"], column_type=spec["ColumnType"],
                   analyzed_time=spec["AnalyzedTime"], data=spec["StatisticsData"])


@dataclass
class StatisticsFailure:
    """A column of a request that could not be served, with its Glue error."""

    column_name: str
    error: GlueError
    statistics: ColumnStatistics | None = None


def check_statistics_data(statistics: ColumnStatistics) -> None:
    """Check that StatisticsData carries exactly the member its Type names.

    Raises:
        InvalidInputException: the member of the Type is missing, or another member is present.
    """
    kind = statistics.statistics_type
    expected = STATISTICS_MEMBERS[kind]
    if statistics.data.get(expected) is None:
        raise InvalidInputException(
            f"StatisticsData of column {statistics.column_name} has Type {kind} but no {expected}"
        )
    others = sorted(m for m in STATISTICS_MEMBERS.values() if m != expected and statistics.data.get(m) is not None)
    if others:
        raise InvalidInputException(
            f"StatisticsData of column {statistics.column_name} has Type {kind} but also {', '.join(others)}"
        )


def _columns(spec: Spec) -> list[str]:
    return [c["Name"] for c in (spec.get("StorageDescriptor") or {}).get("Columns") or []]


class _Target:
    """The table or partition whose statistics a request reads or writes."""

    def __init__(self, session: Session, scope: Scope, database: str, table: str,
                 partition_values: Sequence[str] | None, for_update: bool = False) -> None:
        self.table: TableRow = table_row(session, scope, database, table, for_update=for_update)
        self.qualified = f"{fold(database)}.{self.table.name}"
        self.partition: PartitionRow | None = None
        spec = self.table.spec
        columns = _columns(spec) + [k["Name"] for k in spec.get("PartitionKeys") or []]
        if partition_values is not None:
            query = select(PartitionRow).where(PartitionRow.table_id == self.table.id,
                                               PartitionRow.values_key == values_key(list(partition_values)))
            self.partition = session.scalars(query).one_or_none()
            if self.partition is None:
                raise EntityNotFoundException(
                    f"Partition {list(partition_values)} not found in table {self.qualified}."
                )
            columns = _columns(self.partition.spec) or _columns(spec)
        self.columns = {fold(c): c for c in columns}

    @property
    def where(self) -> str:
        return f"table {self.qualified}" if self.partition is None else \
            f"partition {list(self.partition.values)} of table {self.qualified}"

    def rows(self, session: Session, column_names: Sequence[str]) -> dict[str, ColumnStatisticsRow]:
        query = select(ColumnStatisticsRow).where(ColumnStatisticsRow.table_id == self.table.id,
                                                  ColumnStatisticsRow.column_name.in_(list(column_names)))
        if self.partition is None:
            query = query.where(ColumnStatisticsRow.partition_key == "")
        else:
            query = query.where(ColumnStatisticsRow.partition_id == self.partition.id)
        return {row.column_name: row for row in session.scalars(query)}

    def missing_column(self, column: str) -> EntityNotFoundException:
        return EntityNotFoundException(f"Column {column} not found in {self.where}.")


class ColumnStatisticsService:
    """Update, get and delete column statistics of tables and partitions (per account and region).

    ``partition_values=None`` addresses the table's own statistics; a list of values
    addresses those of one partition.
    """

    def __init__(self, store: Store, scope: Scope) -> None:
        self.store = store
        self.scope = scope

    def update(self, database: str, table: str, statistics: list[ColumnStatistics],
               partition_values: Sequence[str] | None = None) -> list[StatisticsFailure]:
        """Mirror UpdateColumnStatisticsFor{Table,Partition}: store each column's statistics.

        Columns the table (or partition) does not have are reported per item, the
        others are written.

        Raises:
            EntityNotFoundException: the database, table or partition does not exist.
            InvalidInputException: a StatisticsData does not carry the member its Type names.
        """
        for item in statistics:
            check_statistics_data(item)
        failures: list[StatisticsFailure] = []
        with self.store.write() as session:
            target = _Target(session, self.scope, database, table, partition_values, for_update=True)
            accepted: dict[str, ColumnStatistics] = {}
            for item in statistics:
                column = target.columns.get(fold(item.column_name))
                if column is None:
                    failures.append(StatisticsFailure(item.column_name, target.missing_column(item.column_name),
                                                      item))
                    continue
                item.column_name = column
                accepted[fold(column)] = item
            existing = target.rows(session, list(accepted))
            partition_key = "" if target.partition is None else target.partition.values_key
            for key, item in accepted.items():
                row = existing.get(key)
                if row is None:
                    session.add(ColumnStatisticsRow(
                        table_id=target.table.id, partition_id=target.partition.id if target.partition else None,
                        partition_key=partition_key, column_name=key, spec=item.to_spec()))
                else:
                    row.spec = item.to_spec()
            session.flush()
        return failures

    def get(self, database: str, table: str, column_names: Sequence[str],
            partition_values: Sequence[str] | None = None) -> tuple[list[ColumnStatistics], list[StatisticsFailure]]:
        """Mirror GetColumnStatisticsFor{Table,Partition}: found statistics, and an error per other column.

        Raises:
            EntityNotFoundException: the database, table or partition does not exist.
        """
        found: list[ColumnStatistics] = []
        failures: list[StatisticsFailure] = []
        with self.store.read() as session:
            target = _Target(session, self.scope, database, table, partition_values)
            wanted = list(dict.fromkeys(column_names))
            rows = target.rows(session, [fold(c) for c in wanted])
            for column in wanted:
                row = rows.get(fold(column))
                if row is not None:
                    found.append(ColumnStatistics.from_spec(row.spec))
                elif fold(column) not in target.columns:
                    failures.append(StatisticsFailure(column, target.missing_column(column)))
                else:
                    failures.append(StatisticsFailure(column, EntityNotFoundException(
                        f"No statistics for column {column} in {target.where}.")))
        return found, failures

    def delete(self, database: str, table: str, column_name: str,
               partition_values: Sequence[str] | None = None) -> None:
        """Mirror DeleteColumnStatisticsFor{Table,Partition}.

        Raises:
            EntityNotFoundException: the database, table, partition, column or its statistics do not exist.
        """
        with self.store.write() as session:
            target = _Target(session, self.scope, database, table, partition_values, for_update=True)
            row = target.rows(session, [fold(column_name)]).get(fold(column_name))
            if row is None:
                if fold(column_name) not in target.columns:
                    raise target.missing_column(column_name)
                raise EntityNotFoundException(f"No statistics for column {column_name} in {target.where}.")
            session.delete(row)
