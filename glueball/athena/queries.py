"""Query executions: what StartQueryExecution checks and records, and how a query's state moves (no HTTP, no Spark).

StartQueryExecution resolves the workgroup (its result location when it enforces its configuration or the
request names none, its bytes-scanned cutoff), the idempotency token, the execution parameters and prepared
statements, and plans the statement (:mod:`glueball.athena.plan`). A statement refused there is recorded
FAILED at once with its ``AthenaError``; ``PREPARE`` and ``DEALLOCATE PREPARE`` are done at once (SUCCEEDED);
anything else is QUEUED for an engine, which takes it (RUNNING), runs it and writes the query's durable
outcome record in the query's folder before it tells the server: :meth:`QueryService.settle` then moves the
query to what the record says. A query whose engine ended without a record is FAILED, saying how the engine
ended. Every move is a compare-and-swap on the stored state, allowed by :data:`glueball.athena.models.TRANSITIONS`.
"""

from __future__ import annotations

import os
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from glueball.athena.errors import InvalidRequestException, TooManyRequestsException
from glueball.athena.models import (
    ENDED,
    ErrorCategory,
    ErrorType,
    Failure,
    QueryExecution,
    QueryState,
    StatementType,
    WorkGroupState,
    may_move,
)
from glueball.athena.workgroups import Resources, check_output_location
from glueball.store.athena_tables import AthenaQueryRow
from glueball.store.engine import Store
from glueball.store.scoped import Scope
from glueball.supervise import outcome
from glueball.waits import Changes, held

if TYPE_CHECKING:
    from glueball.athena import plan as planner
    from glueball.athena.trino import Columns

MAX_QUEUED_ENV = "GLUEBALL_ATHENA_MAX_QUEUED"
_arrivals = Changes()  # queries queued, stopped or ended in this process wake a waiting engine or reader at once
_TAKE_POLL_SECONDS = 0.05
# how often a wait for a running query's stop looks at the store: a stop made by another server process (a shared
# store) is seen that late; one made in this process wakes it at once
_WATCH_POLL_SECONDS = 0.2
# GetQueryExecution of a query still QUEUED or RUNNING answers once it has ended, or after this long
# (glueball.waits): PyAthena and awswrangler ask every second, the AWS CLI has no waiter, so a query shorter than
# that answers when it ends instead of at the next poll; a client asking again and again (every 10 ms, say) learns
# of the end as soon as it comes, with a fraction of the requests, whose work would otherwise take the engine's
# CPU on a small machine. At most 64 requests are held at once (on the edge's pool for waiting requests); any
# more answer at once.
HOLD_SECONDS = 1.0
_holders = threading.BoundedSemaphore(64)


def _changed() -> None:
    _arrivals.note()


def query_folder(home: Path, query_id: str) -> Path:
    """Where the engine writes a query's durable outcome record."""
    return home / "athena" / "queries" / query_id


def _query(row: AthenaQueryRow) -> QueryExecution:
    return QueryExecution(row.query_id, row.query, row.workgroup, QueryState(row.state),
                          StatementType(row.statement_type), row.substatement_type, row.submitted, row.database,
                          row.catalog, row.output_location, list(row.execution_parameters or []), row.state_reason,
                          row.started, row.completed, Failure.of(row.error), dict(row.statistics or {}),
                          dict(row.result or {}), dict(row.plan or {}), row.engine_id, row.access_key,
                          row.bytes_cutoff, row.cancel_requested, row.account_id, row.region)


REUSE_MINUTES, MAX_REUSE_MINUTES = 60, 10080  # MaxAgeInMinutes' default and its most (7 days), Athena's


def _reuse_minutes(request: Mapping[str, Any]) -> int | None:
    """``ResultReuseByAgeConfiguration``'s age in minutes when it is enabled, else None.

    Raises:
        InvalidRequestException: an age out of Athena's range (0 to 10080).
    """
    config = (request.get("ResultReuseConfiguration") or {}).get("ResultReuseByAgeConfiguration") or {}
    if not config.get("Enabled"):
        return None
    minutes = int(config.get("MaxAgeInMinutes", REUSE_MINUTES))
    if not 0 <= minutes <= MAX_REUSE_MINUTES:
        raise InvalidRequestException(f"MaxAgeInMinutes must be between 0 and {MAX_REUSE_MINUTES} (got {minutes})",
                                      "INVALID_INPUT")
    return minutes


def changed(db: Session, statement: Any) -> int:
    count: int = db.execute(statement).rowcount  # type: ignore[attr-defined]
    return count


class QueryService:
    """The query executions of one account in one region."""

    def __init__(self, store: Store, scope: Scope, home: Path, columns: Columns | None = None,
                 header_lines: Callable[[str, str], tuple[int, list[str]]] | None = None,
                 table_type: Callable[[str, str], str] | None = None,
                 iceberg: Callable[[], bool] = lambda: False,
                 reusable: Callable[[str, list[str]], bool] | None = None) -> None:
        self.store = store
        self.scope = scope
        self.home = home
        self.resources = Resources(store, scope)
        self.columns = columns  # a catalog table's columns and types, which some translations read
        self.header_lines = header_lines  # a text table's header lines and partition keys (planner.Catalog)
        self.table_type = table_type  # a catalog table's table_type (ICEBERG: read and written through Iceberg)
        self.iceberg = iceberg  # whether the engine has Iceberg
        # whether an earlier query's result file (still there) may answer this caller's query of those tables
        self.reusable = reusable

    # -- starting

    def start(self, request: Mapping[str, Any], access_key: str | None) -> tuple[str, bool]:
        """StartQueryExecution: the query's id, and whether it waits for an engine (QUEUED).

        Raises:
            InvalidRequestException: an unknown or disabled workgroup, no result location, a bad location,
                a ClientRequestToken used for another query.
            TooManyRequestsException: too many queries of the account wait already.
        """
        workgroup = self.resources.workgroup(request.get("WorkGroup"))
        if workgroup.state is not WorkGroupState.ENABLED:
            raise InvalidRequestException(f"WorkGroup {workgroup.name} is disabled.")
        token = request.get("ClientRequestToken")
        text = str(request["QueryString"])
        if token:
            earlier = self._by_token(token)
            if earlier is not None:
                if earlier.query != text or earlier.workgroup != workgroup.name:
                    raise InvalidRequestException("Idempotent parameters do not match", "INVALID_INPUT")
                return earlier.query_id, False
        if request.get("EngineConfiguration"):
            raise InvalidRequestException("EngineConfiguration applies to Apache Spark workgroups (calculations), "
                                          "which glueball does not serve")
        reuse = _reuse_minutes(request)
        result_configuration = request.get("ResultConfiguration") or {}
        if result_configuration.get("EncryptionConfiguration"):
            option = result_configuration["EncryptionConfiguration"].get("EncryptionOption")
            raise InvalidRequestException(f"EncryptionConfiguration ({option}) is not supported: glueball's object "
                                          "store does not encrypt query results", "INVALID_INPUT")
        requested = result_configuration.get("OutputLocation")
        check_output_location(requested)
        location = workgroup.output_location if workgroup.enforced and workgroup.output_location else \
            requested or workgroup.output_location
        if not location:
            raise InvalidRequestException("No output location provided. An output location is required either "
                                          "through the Workgroup result configuration setting or as an API input.")
        self._check_queue()
        context = request.get("QueryExecutionContext") or {}
        parameters = [str(p) for p in request.get("ExecutionParameters") or []]
        query_id = str(uuid.uuid4())
        translating = time.monotonic()
        state, plan, failure = self._plan(text, parameters, workgroup.name, location, query_id,
                                          str(context.get("Database") or "default"))
        preprocessed = int((time.monotonic() - translating) * 1000)  # parsed, translated, planned for the engine
        now = time.time()
        result: dict[str, Any] | None = {"Extension": plan.extension} if state is QueryState.SUCCEEDED else None
        if reuse is not None:
            plan.reuse = reuse
            earlier = self._reused(text, workgroup.name, context, parameters, plan, reuse, now) \
                if state is QueryState.QUEUED else None
            if earlier is not None:  # answered by the earlier query's result, as Athena reuses it
                state, result = QueryState.SUCCEEDED, {**earlier.result, "ReusedFrom": earlier.query_id,
                                                       "ReusedOutput": earlier.result_output}
        row = AthenaQueryRow(
            account_id=self.scope.account_id, region=self.scope.region, query_id=query_id, workgroup=workgroup.name,
            query=text, statement_type=plan.statement_type.value, substatement_type=plan.substatement_type,
            state=state, submitted=now, database=context.get("Database"), catalog=context.get("Catalog"),
            output_location=location.rstrip("/") + "/", execution_parameters=parameters, client_token=token,
            plan=plan.to_json(), bytes_cutoff=workgroup.bytes_cutoff, access_key=access_key,
            error=failure.wire() if failure else None, state_reason=failure.message if failure else None,
            completed=now if state in ENDED else None, started=now if state in ENDED else None,
            statistics={"PreProcessingMillis": preprocessed}, result=result)
        with self.store.write() as db:
            db.add(row)
        if state is QueryState.QUEUED:
            _changed()
        return query_id, state is QueryState.QUEUED

    def _plan(self, text: str, parameters: list[str], workgroup: str, location: str,
              query_id: str, database: str) -> tuple[QueryState, planner.Plan, Failure | None]:
        """The query's first state, its plan, and why it failed when it failed already."""
        from glueball.athena import plan as planner  # sqlglot: imported by a server's first query, not its start

        nothing = planner.Plan("none", [], StatementType.UTILITY, "UNKNOWN")
        try:
            prepared = planner.prepared_statement_of(text)
            if prepared is not None and prepared[0] != "EXECUTE":
                kind, name, prepared_text = prepared
                if kind == "PREPARE":
                    assert prepared_text is not None
                    planner.parse(prepared_text)  # refused now when it does not parse, as Athena refuses it
                    self.resources.put_prepared(workgroup, name, prepared_text, None, None)
                else:
                    self.resources.delete_prepared(workgroup, name)
                return QueryState.SUCCEEDED, planner.Plan("none", [], StatementType.UTILITY, kind, header=False), None
            if prepared is not None:
                text = self.resources.prepared(workgroup, prepared[1]).query_statement
                if parameters and prepared[2]:
                    raise planner.Refusal("EXECUTE ... USING and ExecutionParameters both give parameters: give "
                                          "them one way")
                # EXECUTE name USING a, b; or EXECUTE name with ExecutionParameters (as the AWS CLI passes them)
                parameters = parameters or planner.using_values(prepared[2])
            statement, text = planner.bind_text(text, parameters)
            tables = f"{location.rstrip('/')}/tables/{query_id}/"
            catalog = planner.Catalog(self.columns, database, self.header_lines, self.table_type,
                                      self.iceberg() if self.table_type else False)
            return QueryState.QUEUED, planner.plan(statement, text, tables, catalog), None
        except planner.Refusal as refusal:
            return QueryState.FAILED, nothing, Failure(ErrorCategory.USER, refusal.error_type, refusal.message)
        except Exception as exc:  # noqa: BLE001 - a prepared statement that is not there, named as Athena names it
            message = getattr(exc, "message", str(exc))
            return QueryState.FAILED, nothing, Failure(ErrorCategory.USER, ErrorType.USER, message)

    def _reused(self, text: str, workgroup: str, context: Mapping[str, Any], parameters: list[str],
                plan: planner.Plan, minutes: int, now: float) -> QueryExecution | None:
        """The newest earlier SELECT whose result answers this one (Athena's reuse): the same query text, workgroup,
        database, catalog and execution parameters, SUCCEEDED within ``minutes``, its result file still there, and
        its tables readable by this caller. None: the query runs."""
        if plan.kind != "rows" or plan.substatement_type != "SELECT" or self.reusable is None:
            return None
        with self.store.read() as db:
            rows = db.scalars(select(AthenaQueryRow).where(
                AthenaQueryRow.account_id == self.scope.account_id, AthenaQueryRow.region == self.scope.region,
                AthenaQueryRow.workgroup == workgroup, AthenaQueryRow.state == QueryState.SUCCEEDED,
                AthenaQueryRow.completed >= now - minutes * 60, AthenaQueryRow.query == text,
            ).order_by(AthenaQueryRow.completed.desc()).limit(10)).all()
            candidates = [_query(row) for row in rows]
        database = context.get("Database") or "default"
        tables = [t if "." in t else f"{database}.{t}" for t in plan.tables_read]
        for earlier in candidates:
            if earlier.database != context.get("Database") or earlier.catalog != context.get("Catalog") or \
                    earlier.execution_parameters != parameters or earlier.plan.get("Kind") != "rows":
                continue
            if self.reusable(earlier.result_output, tables):
                return earlier
        return None

    def _by_token(self, token: str) -> QueryExecution | None:
        with self.store.read() as db:
            row = db.scalar(select(AthenaQueryRow).where(
                AthenaQueryRow.account_id == self.scope.account_id, AthenaQueryRow.region == self.scope.region,
                AthenaQueryRow.client_token == token))
            return _query(row) if row is not None else None

    def _check_queue(self) -> None:
        limit = int(os.environ.get(MAX_QUEUED_ENV) or 100)
        with self.store.read() as db:
            waiting = db.scalar(select(func.count()).select_from(AthenaQueryRow).where(
                AthenaQueryRow.account_id == self.scope.account_id, AthenaQueryRow.region == self.scope.region,
                AthenaQueryRow.state == QueryState.QUEUED)) or 0
        if waiting >= limit:
            raise TooManyRequestsException(f"You have exceeded the limit for the number of queries you can run "
                                           f"concurrently: {waiting} queries are queued",
                                           "CONCURRENT_QUERY_LIMIT_EXCEEDED")

    # -- reading

    def get(self, query_id: str) -> QueryExecution:
        """Raises: InvalidRequestException: no such query execution in this account and region."""
        with self.store.read() as db:
            return _query(self._row(db, query_id))

    def get_when_ended(self, query_id: str) -> QueryExecution:
        """GetQueryExecution: the query as it is; when it is still QUEUED or RUNNING, as it is once it has ended (an
        end in this server process is seen at once, one in another within 0.1 s) or after :data:`HOLD_SECONDS`,
        whichever comes first. An ended query, or one asked while many others already wait, is answered at once.

        Raises: InvalidRequestException: no such query execution in this account and region."""
        return held(lambda: self.get(query_id), lambda q: q.state not in (QueryState.QUEUED, QueryState.RUNNING),
                    _arrivals, HOLD_SECONDS, _holders)

    def _row(self, db: Session, query_id: str) -> AthenaQueryRow:
        row = db.scalar(select(AthenaQueryRow).where(
            AthenaQueryRow.account_id == self.scope.account_id, AthenaQueryRow.region == self.scope.region,
            AthenaQueryRow.query_id == query_id))
        if row is None:
            raise InvalidRequestException(f"QueryExecution {query_id} was not found", "INVALID_INPUT")
        found: AthenaQueryRow = row
        return found

    def find(self, query_ids: list[str]) -> dict[str, QueryExecution]:
        with self.store.read() as db:
            rows = db.scalars(select(AthenaQueryRow).where(
                AthenaQueryRow.account_id == self.scope.account_id, AthenaQueryRow.region == self.scope.region,
                AthenaQueryRow.query_id.in_(query_ids)))
            return {row.query_id: _query(row) for row in rows}

    def ids(self, workgroup: str, after: int | None, limit: int) -> tuple[list[str], int | None]:
        """Query ids of ``workgroup``, newest first, from position ``after`` (a row id): a page and the next."""
        query = select(AthenaQueryRow.id, AthenaQueryRow.query_id).where(
            AthenaQueryRow.account_id == self.scope.account_id, AthenaQueryRow.region == self.scope.region,
            AthenaQueryRow.workgroup == workgroup)
        if after is not None:
            query = query.where(AthenaQueryRow.id < after)
        with self.store.read() as db:
            rows = list(db.execute(query.order_by(AthenaQueryRow.id.desc()).limit(limit + 1)))
        page = rows[:limit]
        return [r.query_id for r in page], page[-1].id if len(rows) > limit else None

    # -- stopping

    def stop(self, query_id: str) -> None:
        """StopQueryExecution: a queued query is CANCELLED at once; a running one when its engine has stopped it;
        an ended one stays as it is (Athena answers success)."""
        with self.store.write() as db:
            row = self._row(db, query_id)
            if row.state == QueryState.QUEUED:
                changed(db, update(AthenaQueryRow).where(AthenaQueryRow.id == row.id, AthenaQueryRow.state ==
                                                         QueryState.QUEUED).values(
                    state=QueryState.CANCELLED, completed=time.time(), state_reason="Query cancelled by user"))
            if row.state in (QueryState.QUEUED, QueryState.RUNNING):
                changed(db, update(AthenaQueryRow).where(AthenaQueryRow.id == row.id).values(cancel_requested=True))
        _changed()

    # -- the engine's side

    def take(self, engine_id: str, wait_seconds: float) -> QueryExecution | None:
        """For an engine: the oldest QUEUED query (now RUNNING on it), waiting up to ``wait_seconds``; any account's
        (an engine serves the installation). Looks with reads; takes by compare-and-swap."""
        deadline = time.monotonic() + wait_seconds
        while True:
            seen = _arrivals.count
            with self.store.read() as db:
                waiting = db.scalar(select(AthenaQueryRow.id).where(AthenaQueryRow.state == QueryState.QUEUED)
                                    .order_by(AthenaQueryRow.id).limit(1))
            if waiting is not None:
                with self.store.write() as db:
                    if changed(db, update(AthenaQueryRow).where(
                            AthenaQueryRow.id == waiting, AthenaQueryRow.state == QueryState.QUEUED).values(
                            state=QueryState.RUNNING, started=time.time(), engine_id=engine_id)):
                        return _query(db.get_one(AthenaQueryRow, waiting))
                continue
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            _arrivals.wait(seen, min(left, _TAKE_POLL_SECONDS))

    def cancelling(self, query_id: str, wait_seconds: float = 0.0) -> bool:
        """For an engine: whether ``query_id`` is being stopped; with ``wait_seconds``, the answer once it is, once
        the query has ended (False), or after that long (False): the engine's watch of a running query is one
        request, not a poll."""
        deadline = time.monotonic() + wait_seconds
        while True:
            seen = _arrivals.count
            with self.store.read() as db:
                found = db.execute(select(AthenaQueryRow.cancel_requested, AthenaQueryRow.state).where(
                    AthenaQueryRow.query_id == query_id)).first()
            if found is None or found.cancel_requested or found.state != QueryState.RUNNING:
                return bool(found is not None and found.cancel_requested)
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            _arrivals.wait(seen, min(left, _WATCH_POLL_SECONDS))

    def settle(self, query_id: str, engine_end: str | None = None) -> bool:
        """Move a RUNNING query to what its outcome record says (SUCCEEDED with its statistics and result, FAILED
        with its AthenaError, CANCELLED); with no record, FAILED saying how its engine ended (``engine_end``), or,
        while the engine lives (``engine_end`` None), nothing yet. False when nothing moved."""
        record = outcome.read(query_folder(self.home, query_id))
        if record is None and engine_end is None:
            return False
        if record is not None and record.status in (QueryState.SUCCEEDED, QueryState.CANCELLED, QueryState.FAILED):
            state = QueryState(record.status)
            details = record.details
            failure = Failure.of(details.get("AthenaError")) if state is QueryState.FAILED else None
            if state is QueryState.FAILED and failure is None:
                failure = Failure(ErrorCategory.SYSTEM, ErrorType.ENGINE, record.message or "The query failed")
            values: dict[str, Any] = {"statistics": details.get("Statistics"), "result": details.get("Result")}
            reason = failure.message if failure else (record.message if state is QueryState.CANCELLED else None)
            ended_at = record.ended_at or time.time()
        else:
            state = QueryState.FAILED
            failure = Failure(ErrorCategory.SYSTEM, ErrorType.ENGINE, f"The query's engine ended while it ran: "
                              f"{engine_end}", retryable=True)
            values, reason, ended_at = {}, failure.message, time.time()
        with self.store.write() as db:
            found = db.execute(select(AthenaQueryRow.state, AthenaQueryRow.statistics).where(
                AthenaQueryRow.query_id == query_id)).first()
            if found is None or not may_move(QueryState(found.state), state):
                return False
            current = found.state
            if values.get("statistics") is not None:  # the engine's figures beside the service's own
                values["statistics"] = {**(found.statistics or {}), **values["statistics"]}
            moved = bool(changed(db, update(AthenaQueryRow).where(
                AthenaQueryRow.query_id == query_id, AthenaQueryRow.state == current).values(
                state=state, completed=ended_at, error=failure.wire() if failure else None, state_reason=reason,
                **values)))
        if moved:
            _changed()  # the engine's watch of the query ends with it
        return moved

    def running_on(self, engine_id: str) -> list[str]:
        with self.store.read() as db:
            return list(db.scalars(select(AthenaQueryRow.query_id).where(AthenaQueryRow.engine_id == engine_id,
                                                                         AthenaQueryRow.state == QueryState.RUNNING)))


def queued_anywhere(store: Store) -> bool:
    """Whether any query of the installation waits for an engine."""
    with store.read() as db:
        return db.scalar(select(AthenaQueryRow.id).where(AthenaQueryRow.state == QueryState.QUEUED).limit(1)) \
            is not None


def workgroup_of(store: Store, account_id: str, region: str, kind: str, found_id: str) -> str | None:
    """The workgroup of a query execution (``kind`` ``query``) or named query (``named``); None when there is none
    (what IAM asks about an Athena request that names one)."""
    from glueball.store.athena_tables import AthenaNamedQueryRow

    table: Any = AthenaQueryRow if kind == "query" else AthenaNamedQueryRow
    key = table.query_id if kind == "query" else table.named_query_id
    with store.read() as db:
        name = db.scalar(select(table.workgroup).where(table.account_id == account_id, table.region == region,
                                                      key == found_id))
    return str(name) if name is not None else None
