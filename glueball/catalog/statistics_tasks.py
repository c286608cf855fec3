"""Column statistics task runs: Spark computes the statistics the catalog keeps for a table's columns.

StartColumnStatisticsTaskRun checks the table and the columns (all of the table's columns whose type
has Glue statistics, unless ``ColumnNameList`` names some) and records a STARTING run; one run per
table at a time (``ColumnStatisticsTaskRunningException``). The run's driver
(:mod:`glueball.catalog.statistics_driver`) reads the table as a Glue job would, samples
``SampleSize`` percent of its rows, computes each column's statistics and stores them with
UpdateColumnStatisticsForTable, where GetColumnStatisticsForTable finds them. The runner
(:mod:`glueball.catalog.statistics_task_runs`) launches and watches it.

States: STARTING -> RUNNING -> SUCCEEDED | FAILED | STOPPED; StopColumnStatisticsTaskRun makes a
run STOPPING (answered as RUNNING: Glue's model has no STOPPING) until its driver has ended.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from sqlalchemy import select

from glueball.api.pagination import decode_token, encode_token
from glueball.catalog.lookup import fold, table_row
from glueball.clock import now
from glueball.errors import (
    ColumnStatisticsTaskNotRunningException,
    ColumnStatisticsTaskRunningException,
    ColumnStatisticsTaskStoppingException,
    EntityNotFoundException,
    InvalidInputException,
)
from glueball.store import task_runs
from glueball.store.documents import document_exists
from glueball.store.engine import Store
from glueball.store.resource_tables import COLUMN_STATISTICS_RUN, SECURITY_CONFIGURATION, TaskRunRow
from glueball.store.scoped import Scope

WORKER_TYPE = "G.1X"
NUMBER_OF_WORKERS = 2


class TaskState(StrEnum):
    STARTING = "STARTING"
    RUNNING = "RUNNING"
    STOPPING = "STOPPING"
    SUCCEEDED = "SUCCEEDED"
    FAILED = "FAILED"
    STOPPED = "STOPPED"

    @property
    def wire(self) -> str:
        """The state as Glue's ColumnStatisticsState names it (it has no STOPPING)."""
        return TaskState.RUNNING.value if self is TaskState.STOPPING else self.value


TRANSITIONS: dict[TaskState, tuple[TaskState, ...]] = {
    TaskState.STARTING: (TaskState.RUNNING, TaskState.STOPPING, TaskState.FAILED, TaskState.STOPPED),
    TaskState.RUNNING: (TaskState.STOPPING, TaskState.SUCCEEDED, TaskState.FAILED),
    TaskState.STOPPING: (TaskState.STOPPED,),
    TaskState.SUCCEEDED: (),
    TaskState.FAILED: (),
    TaskState.STOPPED: (),
}
UNENDED = (TaskState.STARTING, TaskState.RUNNING, TaskState.STOPPING)

# Glue column types -> the StatisticsData type the driver computes for them
STATISTICS_TYPES = {
    "boolean": "BOOLEAN", "tinyint": "LONG", "smallint": "LONG", "int": "LONG", "integer": "LONG", "bigint": "LONG",
    "long": "LONG", "float": "DOUBLE", "double": "DOUBLE", "decimal": "DECIMAL", "date": "DATE", "string": "STRING",
    "varchar": "STRING", "char": "STRING", "binary": "BINARY",
}


def statistics_type(column_type: str) -> str | None:
    """The StatisticsData type of a Glue column type (``decimal(10,2)`` -> DECIMAL), None when Glue keeps none."""
    return STATISTICS_TYPES.get(column_type.strip().lower().split("(", 1)[0].strip())


@dataclass
class ColumnStatisticsTaskRun:
    """One column statistics task run.

    Attributes:
        columns: the columns it computes (name -> Glue type), in the table's order.
    """

    run_id: str
    account_id: str
    database: str
    table: str
    state: TaskState
    role: str
    created: float
    updated: float
    columns: dict[str, str] = field(default_factory=dict)
    asked_columns: list[str] | None = None
    sample_size: float | None = None
    security_configuration: str | None = None
    started: float | None = None
    ended: float | None = None
    error_message: str | None = None

    @property
    def dpu_seconds(self) -> float:
        """The nominal DPU-seconds: the run's workers (one DPU each) for as long as its driver ran."""
        if self.started is None:
            return 0.0
        return round(NUMBER_OF_WORKERS * max(0.0, (self.ended or now()) - self.started), 3)


def load_run(row: TaskRunRow) -> ColumnStatisticsTaskRun:
    spec = row.spec
    return ColumnStatisticsTaskRun(
        run_id=row.run_id, account_id=row.account_id, database=spec["DatabaseName"], table=spec["TableName"],
        state=TaskState(row.state), role=spec["Role"], created=row.started_on, updated=row.last_modified_on,
        columns=dict(spec["Columns"]), asked_columns=spec.get("ColumnNameList"), sample_size=spec.get("SampleSize"),
        security_configuration=spec.get("SecurityConfiguration"), started=spec.get("StartTime"),
        ended=row.completed_on, error_message=row.error_message)


def subject_of(database: str, table: str) -> str:
    return f"{fold(database)}.{fold(table)}"


def _not_found(run_id: str) -> str:
    return f"Column statistics task run {run_id} not found."


class ColumnStatisticsTaskService:
    """Start, read, list and stop column statistics task runs (per account and region)."""

    def __init__(self, store: Store, scope: Scope) -> None:
        self.store = store
        self.scope = scope

    def begin(self, database: str, table: str, role: str, column_names: list[str] | None,
              sample_size: float | None, security_configuration: str | None, access_key: str | None,
              runner: str, logs: Any) -> ColumnStatisticsTaskRun:
        """Mirror StartColumnStatisticsTaskRun: a STARTING run (the caller launches its driver).

        Raises:
            EntityNotFoundException: no such database, table or security configuration.
            InvalidInputException: a named column the table does not have, or whose type has no statistics; a
                table with no column that has them.
            ColumnStatisticsTaskRunningException: a run of this table has not ended.
        """
        if sample_size is not None and not 0 < sample_size <= 100:
            raise InvalidInputException(f"SampleSize must be a percentage above 0 and at most 100, got {sample_size}")
        with self.store.write() as session:
            row = table_row(session, self.scope, database, table, for_update=True)
            spec = row.spec
            declared = [*((spec.get("StorageDescriptor") or {}).get("Columns") or []),
                        *(spec.get("PartitionKeys") or [])]
            types = {fold(c["Name"]): (c["Name"], str(c.get("Type") or "")) for c in declared}
            if column_names:
                columns = {}
                for asked in column_names:
                    found = types.get(fold(asked))
                    if found is None:
                        raise InvalidInputException(f"Column {asked} not found in table {fold(database)}.{row.name}.")
                    if statistics_type(found[1]) is None:
                        raise InvalidInputException(f"Column {asked} of type {found[1]} has no column statistics in "
                                                    "Glue (boolean, numbers, decimal, date, string and binary do)")
                    columns[found[0]] = found[1]
            else:
                columns = {name: kind for name, kind in types.values() if statistics_type(kind) is not None}
                if not columns:
                    raise InvalidInputException(f"Table {fold(database)}.{row.name} has no column whose type has "
                                                "column statistics")
            if security_configuration and not document_exists(session, self.scope, SECURITY_CONFIGURATION,
                                                              security_configuration):
                raise EntityNotFoundException(f"Security configuration {security_configuration} not found.")
            subject = subject_of(database, row.name)
            running = session.scalars(task_runs.scoped_runs(self.scope, COLUMN_STATISTICS_RUN).where(
                TaskRunRow.subject == subject, TaskRunRow.state.in_([s.value for s in UNENDED]))).first()
            if running is not None:
                raise ColumnStatisticsTaskRunningException(
                    f"Column statistics task run {running.run_id} of table {subject} is still running.")
            run_id = uuid.uuid4().hex
            stamp = now()
            run_spec = {"DatabaseName": fold(database), "TableName": row.name, "Role": role, "Columns": columns,
                        "ColumnNameList": list(column_names) if column_names else None, "SampleSize": sample_size,
                        "SecurityConfiguration": security_configuration}
            added = TaskRunRow(account_id=self.scope.account_id, region=self.scope.region, kind=COLUMN_STATISTICS_RUN,
                               run_id=run_id, subject=subject, state=TaskState.STARTING.value, spec=run_spec,
                               started_on=stamp, last_modified_on=stamp, access_key=access_key, runner=runner,
                               heartbeat=stamp, log_dir=str(logs / "column-statistics" / run_id))
            session.add(added)
            session.flush()
            return load_run(added)

    def get(self, run_id: str) -> ColumnStatisticsTaskRun:
        """Mirror GetColumnStatisticsTaskRun.

        Raises:
            EntityNotFoundException: no such run.
        """
        with self.store.read() as session:
            return load_run(task_runs.run_row(session, self.scope, COLUMN_STATISTICS_RUN, run_id, _not_found(run_id)))

    def page(self, database: str | None, table: str | None, max_results: int,
             token: str | None) -> tuple[list[ColumnStatisticsTaskRun], str | None]:
        """Mirror GetColumnStatisticsTaskRuns (one table's runs) and ListColumnStatisticsTaskRuns (all): newest
        first, one page at a time."""
        offset = decode_token(token, int) or 0
        query = task_runs.scoped_runs(self.scope, COLUMN_STATISTICS_RUN)
        if database is not None and table is not None:
            query = query.where(TaskRunRow.subject == subject_of(database, table))
        query = query.order_by(TaskRunRow.started_on.desc(), TaskRunRow.id.desc()).offset(offset) \
            .limit(max_results + 1)
        with self.store.read() as session:
            rows = list(session.scalars(query))
        more = len(rows) > max_results
        return [load_run(r) for r in rows[:max_results]], encode_token(offset + max_results) if more else None

    def request_stop(self, database: str, table: str) -> ColumnStatisticsTaskRun:
        """Mirror StopColumnStatisticsTaskRun: the table's unended run becomes STOPPING; that run.

        Raises:
            EntityNotFoundException: no such database or table.
            ColumnStatisticsTaskNotRunningException: no run of the table is running.
            ColumnStatisticsTaskStoppingException: its run is already stopping.
        """
        with self.store.write() as session:
            row = table_row(session, self.scope, database, table)
            subject = subject_of(database, row.name)
            run = session.scalars(task_runs.scoped_runs(self.scope, COLUMN_STATISTICS_RUN).where(
                TaskRunRow.subject == subject, TaskRunRow.state.in_([s.value for s in UNENDED]))).first()
            if run is None:
                raise ColumnStatisticsTaskNotRunningException(
                    f"No column statistics task run of table {subject} is running.")
            if run.state == TaskState.STOPPING:
                raise ColumnStatisticsTaskStoppingException(
                    f"Column statistics task run {run.run_id} of table {subject} is already stopping.")
            task_runs.swap_state(session, run.id, [TaskState.STARTING.value, TaskState.RUNNING.value],
                                 TaskState.STOPPING.value, last_modified_on=now())
            session.refresh(run)
            return load_run(run)


def run_state(store: Store, row_id: int) -> TaskState | None:
    with store.read() as session:
        row = task_runs.row_by_id(session, row_id)
        return TaskState(row.state) if row is not None else None


def row_id_of(store: Store, scope: Scope, run_id: str) -> int:
    with store.read() as session:
        found = session.scalar(select(TaskRunRow.id).where(
            TaskRunRow.account_id == scope.account_id, TaskRunRow.region == scope.region,
            TaskRunRow.kind == COLUMN_STATISTICS_RUN, TaskRunRow.run_id == run_id))
    if found is None:
        raise EntityNotFoundException(_not_found(run_id))
    return int(found)
