"""Athena's query executions, workgroups and the rest, as botocore's ``athena`` model describes them.

A query execution is a long-running thing: :class:`QueryState` with the transitions :data:`TRANSITIONS`
allows, changed by compare-and-swap in the store. QUEUED -> RUNNING when an engine takes it, RUNNING ->
SUCCEEDED / FAILED / CANCELLED as the engine's durable outcome record says (or FAILED when the engine ended
without one), QUEUED -> CANCELLED or FAILED (StopQueryExecution; a statement refused before it could run).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
from typing import Any


class QueryState(StrEnum):
    QUEUED = "QUEUED"
    RUNNING = "RUNNING"
    SUCCEEDED = "SUCCEEDED"
    FAILED = "FAILED"
    CANCELLED = "CANCELLED"


TRANSITIONS: dict[QueryState, frozenset[QueryState]] = {
    QueryState.QUEUED: frozenset({QueryState.RUNNING, QueryState.CANCELLED, QueryState.FAILED}),
    QueryState.RUNNING: frozenset({QueryState.SUCCEEDED, QueryState.FAILED, QueryState.CANCELLED}),
    QueryState.SUCCEEDED: frozenset(),
    QueryState.FAILED: frozenset(),
    QueryState.CANCELLED: frozenset(),
}
ENDED = frozenset({QueryState.SUCCEEDED, QueryState.FAILED, QueryState.CANCELLED})


def may_move(current: QueryState, target: QueryState) -> bool:
    """Whether a query execution may go from ``current`` to ``target``."""
    return target in TRANSITIONS[current]


class ErrorCategory(IntEnum):
    """``AthenaError.ErrorCategory``: who is at fault."""

    SYSTEM = 1
    USER = 2
    OTHER = 3


class ErrorType(IntEnum):
    """The ``AthenaError.ErrorType`` values glueball answers (Athena's error type reference)."""

    INTERNAL = 100
    ENGINE = 200
    METASTORE = 204
    TIMED_OUT = 206
    RESULTS_NOT_WRITTEN = 401
    USER = 1000
    DATA = 1001
    DDL_FAILED = 1003
    SCHEMA = 1004
    SYNTAX = 1006
    QUERY_REJECTED = 1008


@dataclass(frozen=True)
class Failure:
    """Why a query execution failed: ``Status.AthenaError`` and ``StateChangeReason``."""

    category: ErrorCategory
    type: ErrorType
    message: str
    retryable: bool = False

    def wire(self) -> dict[str, Any]:
        return {"ErrorCategory": int(self.category), "ErrorType": int(self.type), "Retryable": self.retryable,
                "ErrorMessage": self.message}

    @staticmethod
    def of(body: dict[str, Any] | None) -> Failure | None:
        if not body:
            return None
        return Failure(ErrorCategory(int(body.get("ErrorCategory", 1))), ErrorType(int(body.get("ErrorType", 100))),
                       str(body.get("ErrorMessage") or ""), bool(body.get("Retryable", False)))


class StatementType(StrEnum):
    DDL = "DDL"
    DML = "DML"
    UTILITY = "UTILITY"


@dataclass
class QueryExecution:
    """One query execution as stored."""

    query_id: str
    query: str
    workgroup: str
    state: QueryState
    statement_type: StatementType
    substatement_type: str
    submitted: float
    database: str | None = None
    catalog: str | None = None
    output_location: str | None = None
    execution_parameters: list[str] = field(default_factory=list)
    state_reason: str | None = None
    started: float | None = None
    completed: float | None = None
    failure: Failure | None = None
    statistics: dict[str, Any] = field(default_factory=dict)
    result: dict[str, Any] = field(default_factory=dict)
    plan: dict[str, Any] = field(default_factory=dict)
    engine_id: str | None = None
    access_key: str | None = None
    bytes_cutoff: int | None = None
    cancel_requested: bool = False
    account_id: str = ""
    region: str = ""

    @property
    def result_output(self) -> str:
        """Where the query's result is: its own file (``<output>/<QueryExecutionId>.csv``, ``.txt`` for SHOW and
        DESCRIBE), or the earlier query's whose result it reused."""
        reused = self.result.get("ReusedOutput")
        if reused:
            return str(reused)
        extension = self.result.get("Extension") or self.plan.get("Extension") or "csv"
        return f"{(self.output_location or '').rstrip('/')}/{self.query_id}.{extension}"


class WorkGroupState(StrEnum):
    ENABLED = "ENABLED"
    DISABLED = "DISABLED"


PRIMARY = "primary"  # the workgroup every account has
AWS_DATA_CATALOG = "AwsDataCatalog"  # the Data Catalog itself, built in


@dataclass
class WorkGroup:
    name: str
    state: WorkGroupState
    configuration: dict[str, Any]
    created: float
    description: str | None = None

    @property
    def output_location(self) -> str | None:
        location = (self.configuration.get("ResultConfiguration") or {}).get("OutputLocation")
        return str(location) if location else None

    @property
    def enforced(self) -> bool:
        return bool(self.configuration.get("EnforceWorkGroupConfiguration", True))

    @property
    def bytes_cutoff(self) -> int | None:
        cutoff = self.configuration.get("BytesScannedCutoffPerQuery")
        return int(cutoff) if cutoff is not None else None


@dataclass
class NamedQuery:
    named_query_id: str
    name: str
    database: str
    query_string: str
    workgroup: str
    description: str | None = None


@dataclass
class PreparedStatement:
    name: str
    workgroup: str
    query_statement: str
    last_modified: float
    description: str | None = None


@dataclass
class DataCatalog:
    name: str
    type: str
    description: str | None = None
    parameters: dict[str, str] = field(default_factory=dict)
