"""Sessions and statements: what each operation checks and records (no HTTP, no processes).

State changes are compare-and-swap on the stored state, so the API, the session's watcher and the
driver (through glueball's own ``Glueball.*Statement`` operations) may act on one session from any
server process without losing or doubling a transition.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session as DbSession

from glueball.errors import (
    AlreadyExistsException,
    EntityNotFoundException,
    IllegalSessionStateException,
    InvalidInputException,
)
from glueball.sessions.models import (
    COMMANDS,
    ENDED,
    LIVE,
    STATEMENT_ENDED,
    Session,
    SessionState,
    Statement,
    StatementState,
)
from glueball.store.engine import Store
from glueball.store.schema import TagRow
from glueball.store.scoped import Scope
from glueball.store.session_tables import GlueSessionRow, StatementRow
from glueball.tagging.service import delete_tags, register_resource_type, write_tags
from glueball.waits import Changes, held

_TAKE_POLL_SECONDS = 0.05  # between a waiting driver's looks, for what another server process changed
_arrivals = Changes()  # new statements, cancels and sessions' ends in this process: a waiting driver wakes at once
# GetStatement of a statement still waiting or running is answered once it has ended, or after STATEMENT_HOLD
# seconds; GetSession of a PROVISIONING session once it is ready (or has failed or stopped), or after SESSION_HOLD
# (glueball.waits). Glue's kernel and dbt-glue ask for a statement every second, so a statement shorter than that
# answers when it ends instead of at the next poll, and a read is never held longer than those clients wait between
# two; a session from a warm driver is ready in 2-3 s, and dbt-glue's session waiter asks every 3 s. At most
# 64 reads (_holders) are held at once; any more are answered at once.
STATEMENT_HOLD_SECONDS = 1.0
SESSION_HOLD_SECONDS = 5.0
_ends = Changes()  # statements that ended and sessions that left PROVISIONING in this process
_holders = threading.BoundedSemaphore(64)


def _exists(session: DbSession, scope: Scope, name: str) -> bool:
    return session.scalar(select(GlueSessionRow.id).where(GlueSessionRow.account_id == scope.account_id,
                                                      GlueSessionRow.region == scope.region,
                                                      GlueSessionRow.session_id == name)) is not None


register_resource_type("session", _exists)


def changed(db: DbSession, statement: Any) -> int:
    """Rows an UPDATE changed (0: the compare-and-swap lost)."""
    count: int = db.execute(statement).rowcount  # type: ignore[attr-defined]
    return count


def to_session(row: GlueSessionRow) -> Session:
    return Session(row.session_id, SessionState(row.state), row.created_on, row.last_activity, dict(row.spec),
                   row.completed_on, row.error_message, row.access_key, row.log_dir, row.driver_host,
                   row.driver_pid, row.driver_start)


def to_statement(row: StatementRow) -> Statement:
    return Statement(row.statement_id, row.code, StatementState(row.state), row.submitted_on,
                     dict(row.output) if row.output is not None else None, row.progress, row.started_on,
                     row.completed_on, row.cancel_requested)


class SessionService:
    """The sessions of one account in one region."""

    def __init__(self, store: Store, scope: Scope) -> None:
        self.store = store
        self.scope = scope

    def arn(self, session_id: str) -> str:
        return self.scope.arn(f"session/{session_id}")

    # -- sessions

    def create(self, request: Mapping[str, Any], access_key: str | None, runner: str | None = None) -> Session:
        """Record a PROVISIONING session for ``request`` (CreateSession's), with its tags, watched by ``runner``
        (the process that launches its driver, from now on: no other server takes it over meanwhile).

        Raises:
            InvalidInputException: a command glueball cannot run, capacity given twice, a security configuration.
            AlreadyExistsException: a session of this id exists.
        """
        command = request.get("Command") or {}
        if command.get("Name") not in COMMANDS:
            raise InvalidInputException(f"Command.Name must be one of {', '.join(COMMANDS)}; got "
                                        f"{command.get('Name')!r}")
        if request.get("SecurityConfiguration"):
            raise InvalidInputException("SecurityConfiguration is not supported by glueball: session data is not "
                                        "encrypted (it stays under GLUEBALL_HOME)")
        if request.get("MaxCapacity") is not None and (request.get("WorkerType") or request.get("NumberOfWorkers")):
            raise InvalidInputException("Please set only one of MaxCapacity or WorkerType/NumberOfWorkers")
        if bool(request.get("WorkerType")) != bool(request.get("NumberOfWorkers")):
            raise InvalidInputException("WorkerType and NumberOfWorkers must be given together")
        spec = {k: v for k, v in request.items() if k not in ("Id", "Tags", "RequestOrigin")}
        now = time.time()
        with self.store.write() as db:
            old = self._find(db, request["Id"])
            if old is not None and SessionState(old.state) not in ENDED:
                raise AlreadyExistsException(f"Session with id {request['Id']} already exists")
            if old is not None:  # an ended session's id may be used again (Glue's kernel re-creates with it)
                db.execute(delete(StatementRow).where(StatementRow.session_row_id == old.id))
                delete_tags(db, self.arn(request["Id"]))
                db.delete(old)
                db.flush()
            row = GlueSessionRow(account_id=self.scope.account_id, region=self.scope.region, session_id=request["Id"],
                             state=SessionState.PROVISIONING, created_on=now, last_activity=now, spec=spec,
                             next_statement=0, access_key=access_key, runner=runner,
                             heartbeat=time.time() if runner else None)
            db.add(row)
            db.flush()
            write_tags(db, self.arn(request["Id"]), request.get("Tags"))
            return to_session(row)

    def get(self, session_id: str) -> Session:
        with self.store.read() as db:
            return to_session(self._row(db, session_id))

    def get_when_provisioned(self, session_id: str) -> Session:
        """GetSession: the session; while it is PROVISIONING, as it is once it is not, or after
        :data:`SESSION_HOLD_SECONDS`.

        Raises:
            EntityNotFoundException: no such session (or it was deleted meanwhile).
        """
        return held(lambda: self.get(session_id), lambda s: s.state is not SessionState.PROVISIONING, _ends,
                    SESSION_HOLD_SECONDS, _holders)

    def find(self, tags: Mapping[str, str] | None = None) -> list[Session]:
        """Every session, newest first; with ``tags``, those carrying all of them."""
        query = select(GlueSessionRow).where(GlueSessionRow.account_id == self.scope.account_id,
                                         GlueSessionRow.region == self.scope.region)
        with self.store.read() as db:
            rows = list(db.scalars(query.order_by(GlueSessionRow.created_on.desc(), GlueSessionRow.id.desc())))
            if tags:
                arns = {self.arn(r.session_id): r for r in rows}
                carried: dict[str, dict[str, str]] = {}
                for tag in db.scalars(select(TagRow).where(TagRow.resource_arn.in_(list(arns)))):
                    carried.setdefault(tag.resource_arn, {})[tag.key] = tag.value
                rows = [r for arn, r in arns.items()
                        if all(carried.get(arn, {}).get(k) == v for k, v in tags.items())]
            return [to_session(r) for r in rows]

    def stop(self, session_id: str) -> Session:
        """Ask a session to stop (its watcher ends the driver and records STOPPED).

        Raises:
            IllegalSessionStateException: it has ended already.
        """
        with self.store.write() as db:
            row = self._row(db, session_id)
            if SessionState(row.state) in ENDED:
                raise IllegalSessionStateException(f"Session {session_id} is {row.state} and cannot be stopped")
            if row.state != SessionState.STOPPING:
                self._move(db, row, SessionState(row.state), SessionState.STOPPING)
            stopping = to_session(row)
        _ends.note()
        return stopping

    def delete(self, session_id: str) -> None:
        """Remove a session, its statements and tags (a live one is stopped: its watcher sees it gone)."""
        with self.store.write() as db:
            row = self._row(db, session_id)
            db.execute(delete(StatementRow).where(StatementRow.session_row_id == row.id))
            delete_tags(db, self.arn(session_id))
            db.delete(row)

    def settle(self, session_id: str, expected: tuple[SessionState, ...], state: SessionState,
               message: str | None = None) -> bool:
        """Move the session from one of ``expected`` to the ended ``state``; False if it was not in one."""
        with self.store.write() as db:
            done = changed(db, update(GlueSessionRow).where(
                GlueSessionRow.account_id == self.scope.account_id, GlueSessionRow.region == self.scope.region,
                GlueSessionRow.session_id == session_id, GlueSessionRow.state.in_([s.value for s in expected])).values(
                state=state, error_message=message, completed_on=time.time() if state in ENDED else None))
            if state in ENDED and done:
                row = self._row(db, session_id)
                changed(db, update(StatementRow).where(
                    StatementRow.session_row_id == row.id,
                    StatementRow.state.in_([StatementState.WAITING, StatementState.RUNNING,
                                            StatementState.CANCELLING])).values(
                    state=StatementState.CANCELLED, completed_on=time.time()))
        if done:
            _ends.note()
            _arrivals.note()
        return bool(done)

    def record_driver(self, session_id: str, host: str, pid: int, start: int | None, log_dir: str,
                      runner: str) -> None:
        with self.store.write() as db:
            row = self._row(db, session_id)
            row.driver_host, row.driver_pid, row.driver_start = host, pid, start
            row.log_dir, row.runner, row.heartbeat = log_dir, runner, time.time()

    def ready(self, session_id: str) -> bool:
        """The driver is up: PROVISIONING becomes READY."""
        with self.store.write() as db:
            row = self._row(db, session_id)
            moved = self._move(db, row, SessionState.PROVISIONING, SessionState.READY, missing_ok=True)
            if moved:
                row.last_activity = time.time()
        if moved:
            _ends.note()
        return moved

    def _find(self, db: DbSession, session_id: str) -> GlueSessionRow | None:
        row: GlueSessionRow | None = db.scalars(select(GlueSessionRow).where(
            GlueSessionRow.account_id == self.scope.account_id, GlueSessionRow.region == self.scope.region,
            GlueSessionRow.session_id == session_id)).one_or_none()
        return row

    def _row(self, db: DbSession, session_id: str) -> GlueSessionRow:
        row = self._find(db, session_id)
        if row is None:
            raise EntityNotFoundException(f"Session with id {session_id} not found")
        return row

    @staticmethod
    def _move(db: DbSession, row: GlueSessionRow, expected: SessionState, state: SessionState,
              missing_ok: bool = False) -> bool:
        done = changed(db, update(GlueSessionRow).where(GlueSessionRow.id == row.id,
                                                        GlueSessionRow.state == expected).values(state=state))
        if not done and not missing_ok:
            raise IllegalSessionStateException(f"Session {row.session_id} is no longer {expected}")
        db.refresh(row)
        return bool(done)

    # -- statements

    def run_statement(self, session_id: str, code: str) -> int:
        """Queue ``code`` in a READY session; its statement id (0, 1, ... in the session).

        Raises:
            IllegalSessionStateException: the session is not READY.
        """
        with self.store.write() as db:
            row = self._row(db, session_id)
            if row.state == SessionState.TIMEOUT:  # what Glue answers (its kernel then starts a new session)
                raise InvalidInputException(f"Session {session_id} has reached TIMEOUT status")
            if row.state != SessionState.READY:
                why = f" ({row.error_message})" if row.error_message else ""
                raise IllegalSessionStateException(f"Session {session_id} is {row.state}{why}: statements run in "
                                                   f"READY sessions")
            number = row.next_statement
            done = changed(db, update(GlueSessionRow).where(GlueSessionRow.id == row.id,
                                                       GlueSessionRow.next_statement == number).values(
                next_statement=number + 1, last_activity=time.time()))
            if not done:
                raise IllegalSessionStateException(f"Session {session_id} took another statement at the same time; "
                                                   f"try again")
            db.add(StatementRow(session_row_id=row.id, statement_id=number, code=code, state=StatementState.WAITING,
                                progress=0.0, submitted_on=time.time(), cancel_requested=False))
        _arrivals.note()
        return number

    def statement(self, session_id: str, statement_id: int) -> Statement:
        with self.store.read() as db:
            return to_statement(self._statement_row(db, session_id, statement_id))

    def statement_when_ended(self, session_id: str, statement_id: int) -> Statement:
        """GetStatement: the statement; while it waits or runs, as it is once it has ended, or after
        :data:`STATEMENT_HOLD_SECONDS`.

        Raises:
            EntityNotFoundException: no such session or statement.
        """
        return held(lambda: self.statement(session_id, statement_id), lambda s: s.state in STATEMENT_ENDED, _ends,
                    STATEMENT_HOLD_SECONDS, _holders)

    def _statement_row(self, db: DbSession, session_id: str, statement_id: int) -> StatementRow:
        row = self._row(db, session_id)
        found = db.scalars(select(StatementRow).where(StatementRow.session_row_id == row.id,
                                                      StatementRow.statement_id == statement_id)).one_or_none()
        if found is None:
            raise EntityNotFoundException(f"Statement {statement_id} of session {session_id} not found")
        return found

    def statements(self, session_id: str) -> list[Statement]:
        with self.store.read() as db:
            row = self._row(db, session_id)
            return [to_statement(r) for r in db.scalars(select(StatementRow).where(
                StatementRow.session_row_id == row.id).order_by(StatementRow.statement_id))]

    def cancel(self, session_id: str, statement_id: int) -> None:
        """A waiting statement is cancelled at once; a running one is asked to stop (CANCELLING).

        Raises:
            IllegalSessionStateException: it has ended already.
        """
        with self.store.write() as db:
            found = self._statement_row(db, session_id, statement_id)
            state = StatementState(found.state)
            if state in STATEMENT_ENDED:
                raise IllegalSessionStateException(f"Statement {statement_id} is {state}: it cannot be cancelled")
            if state is StatementState.WAITING:
                found.state, found.completed_on = StatementState.CANCELLED, time.time()
            else:
                found.state, found.cancel_requested = StatementState.CANCELLING, True
        _arrivals.note()
        if state is StatementState.WAITING:
            _ends.note()

    # -- the driver's side

    def take(self, session_id: str, wait_seconds: float,
             cancelling: int | None = None) -> tuple[Statement | None, bool]:
        """For the session's driver: the next WAITING statement (now RUNNING), waiting up to ``wait_seconds``,
        and whether the session has ended; or, with ``cancelling`` (the statement it runs), None and
        whether that statement is being cancelled (or the session ended). Looks with reads; writes only
        to take a statement (compare-and-swap: of two takers, one gets it)."""
        deadline = time.monotonic() + wait_seconds
        while True:
            seen = _arrivals.count  # read before the look: what arrives after it ends the wait below at once
            with self.store.read() as db:
                row = self._row(db, session_id)
                if SessionState(row.state) not in LIVE:
                    return None, True
                if cancelling is not None:
                    state = db.scalar(select(StatementRow.state).where(StatementRow.session_row_id == row.id,
                                                                       StatementRow.statement_id == cancelling))
                    return None, state in (StatementState.CANCELLING, StatementState.CANCELLED, None)
                waiting = db.scalar(select(StatementRow.id).where(
                    StatementRow.session_row_id == row.id, StatementRow.state == StatementState.WAITING).order_by(
                    StatementRow.statement_id).limit(1))
            if waiting is not None:
                with self.store.write() as db:
                    if changed(db, update(StatementRow).where(
                            StatementRow.id == waiting, StatementRow.state == StatementState.WAITING).values(
                            state=StatementState.RUNNING, started_on=time.time())):
                        return to_statement(db.get_one(StatementRow, waiting)), False
                continue
            left = deadline - time.monotonic()
            if left <= 0:
                return None, False
            _arrivals.wait(seen, min(left, _TAKE_POLL_SECONDS))

    def finish(self, session_id: str, statement_id: int, state: StatementState, output: dict[str, Any],
               progress: float = 1.0) -> bool:
        """The driver's result of a statement; False if it had ended already (cancelled meanwhile)."""
        with self.store.write() as db:
            row = self._row(db, session_id)
            done = changed(db, update(StatementRow).where(
                StatementRow.session_row_id == row.id, StatementRow.statement_id == statement_id,
                StatementRow.state.in_([StatementState.RUNNING, StatementState.CANCELLING])).values(
                state=state, output=output, progress=progress, completed_on=time.time()))
            changed(db, update(GlueSessionRow).where(GlueSessionRow.id == row.id).values(last_activity=time.time()))
        if done:
            _ends.note()
        return bool(done)

    def idle_since(self, session_id: str) -> float | None:
        """When the session last did anything (None while a statement runs or waits: it is not idle)."""
        with self.store.read() as db:
            row = self._row(db, session_id)
            busy = db.scalar(select(func.count()).select_from(StatementRow).where(
                StatementRow.session_row_id == row.id,
                StatementRow.state.in_([StatementState.WAITING, StatementState.RUNNING, StatementState.CANCELLING])))
            return None if busy else row.last_activity
