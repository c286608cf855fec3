"""Wire handlers of sessions and statements (Glue's), and of the drivers' ``Glueball.*Statement``."""

from __future__ import annotations

import time
from typing import Any

from glueball.api.identity import Caller
from glueball.api.operations import Request, Response
from glueball.api.pagination import decode_token, encode_token, page_size
from glueball.errors import InvalidInputException
from glueball.sessions.area import INTERNAL_OPERATIONS, OPERATIONS, SessionNeeds
from glueball.sessions.models import (
    DEFAULT_GLUE_VERSION,
    ENDED,
    LIVE,
    Session,
    SessionState,
    Statement,
    StatementState,
)
from glueball.sessions.service import SessionService
from glueball.store.scoped import Scope
from glueball.usage.models import UsageKind, billed_seconds, run_dpus

_SPEC_MEMBERS = ("Description", "Role", "Command", "DefaultArguments", "Connections", "MaxCapacity", "GlueVersion",
                 "NumberOfWorkers", "WorkerType", "IdleTimeout", "SessionType")


def _page(items: list[Any], token: str | None, size: int) -> tuple[list[Any], str | None]:
    start = decode_token(token, int) or 0
    end = start + size
    return items[start:end], encode_token(end) if end < len(items) else None


def sessions(needs: SessionNeeds, caller: Caller) -> SessionService:
    return SessionService(needs.store, Scope(caller.account_id, caller.region))


def session_wire(session: Session) -> dict[str, Any]:
    """The model's Session structure."""
    wire: dict[str, Any] = {"Id": session.session_id, "CreatedOn": session.created_on,
                            "Status": session.state.value}
    wire.update({k: session.spec[k] for k in _SPEC_MEMBERS if session.spec.get(k) is not None})
    wire.setdefault("GlueVersion", DEFAULT_GLUE_VERSION)
    wire.setdefault("IdleTimeout", session.idle_timeout_minutes)
    if wire.get("MaxCapacity") is None and not wire.get("WorkerType"):
        wire["WorkerType"], wire["NumberOfWorkers"] = "G.1X", 5  # Glue's default for an interactive session
    wire["MaxCapacity"] = wire.get("MaxCapacity") or run_dpus(wire)
    if session.error_message:
        wire["ErrorMessage"] = session.error_message
    end = session.completed_on if session.state in ENDED else None
    if end is not None:
        wire["CompletedOn"] = end
    seconds = max(0.0, (end or time.time()) - session.created_on)
    wire["ExecutionTime"] = round(seconds, 3)
    wire["DPUSeconds"] = round(billed_seconds(UsageKind.SESSION, seconds) * run_dpus(wire), 3)
    wire["Progress"] = 1.0 if session.state not in LIVE or session.state.value == "READY" else 0.0
    return wire


def statement_wire(statement: Statement) -> dict[str, Any]:
    """The model's Statement structure (its times in epoch milliseconds, as Glue gives them)."""
    wire: dict[str, Any] = {"Id": statement.statement_id, "Code": statement.code, "State": statement.state.value,
                            "Progress": 1.0 if statement.state is StatementState.AVAILABLE else statement.progress}
    if statement.output is not None:
        wire["Output"] = statement.output
    elif statement.state is StatementState.CANCELLED:
        wire["Output"] = {"Status": "cancelled", "ExecutionCount": statement.statement_id + 1}
    if statement.started_on is not None:
        wire["StartedOn"] = int(statement.started_on * 1000)
    if statement.completed_on is not None:
        wire["CompletedOn"] = int(statement.completed_on * 1000)
    return wire


@OPERATIONS.operation("CreateSession")
def create_session(needs: SessionNeeds, caller: Caller, request: Request) -> Response:
    service = sessions(needs, caller)
    session = service.create(request, caller.access_key, needs.runner.identity)
    needs.runner.start(service.scope, session)
    return {"Session": session_wire(session)}


@OPERATIONS.operation("GetSession")
def get_session(needs: SessionNeeds, caller: Caller, request: Request) -> Response:
    return {"Session": session_wire(sessions(needs, caller).get_when_provisioned(request["Id"]))}


@OPERATIONS.operation("ListSessions")
def list_sessions(needs: SessionNeeds, caller: Caller, request: Request) -> Response:
    found = sessions(needs, caller).find(request.get("Tags"))
    page, token = _page([s.session_id for s in found], request.get("NextToken"),
                        page_size(request.get("MaxResults"), 1000, 1000))
    wanted = set(page)
    return {"Ids": page, "Sessions": [session_wire(s) for s in found if s.session_id in wanted],
            **({"NextToken": token} if token else {})}


@OPERATIONS.operation("StopSession")
def stop_session(needs: SessionNeeds, caller: Caller, request: Request) -> Response:
    sessions(needs, caller).stop(request["Id"])
    needs.runner.stop(request["Id"])
    return {"Id": request["Id"]}


@OPERATIONS.operation("DeleteSession")
def delete_session(needs: SessionNeeds, caller: Caller, request: Request) -> Response:
    service = sessions(needs, caller)
    if service.get(request["Id"]).state in LIVE:
        service.stop(request["Id"])
        needs.runner.stop(request["Id"])
    service.delete(request["Id"])
    return {"Id": request["Id"]}


@OPERATIONS.operation("RunStatement")
def run_statement(needs: SessionNeeds, caller: Caller, request: Request) -> Response:
    return {"Id": sessions(needs, caller).run_statement(request["SessionId"], request["Code"])}


@OPERATIONS.operation("GetStatement")
def get_statement(needs: SessionNeeds, caller: Caller, request: Request) -> Response:
    return {"Statement": statement_wire(sessions(needs, caller).statement_when_ended(request["SessionId"],
                                                                                   int(request["Id"])))}


@OPERATIONS.operation("ListStatements")
def list_statements(needs: SessionNeeds, caller: Caller, request: Request) -> Response:
    found = sessions(needs, caller).statements(request["SessionId"])
    page, token = _page(found, request.get("NextToken"), 100)
    return {"Statements": [statement_wire(s) for s in page], **({"NextToken": token} if token else {})}


@OPERATIONS.operation("CancelStatement")
def cancel_statement(needs: SessionNeeds, caller: Caller, request: Request) -> Response:
    sessions(needs, caller).cancel(request["SessionId"], int(request["Id"]))
    return {}


# -- the drivers' operations


@INTERNAL_OPERATIONS.operation("TakeStatement")
def take_statement(needs: SessionNeeds, caller: Caller, request: Request) -> Response:
    service = sessions(needs, caller)
    session_id = request.get("SessionId")
    wait = request.get("WaitSeconds", 0.0)
    running = request.get("RunningId")
    if not isinstance(session_id, str) or not session_id:
        raise InvalidInputException(f"SessionId must be a session's id, got {session_id!r}")
    if isinstance(wait, bool) or not isinstance(wait, int | float) or not 0 <= wait <= 30:
        raise InvalidInputException(f"WaitSeconds must be a number from 0 to 30, got {wait!r}")
    if running is not None and (isinstance(running, bool) or not isinstance(running, int)):
        raise InvalidInputException(f"RunningId must be a statement's id (an integer), got {running!r}")
    if service.get(session_id).state is SessionState.PROVISIONING:
        service.ready(session_id)  # the driver's first call: it is up
    statement, flag = service.take(session_id, float(wait), running)
    if running is not None:
        ended = service.get(session_id).state not in LIVE
        return {"Cancel": flag and not ended, "SessionEnded": ended}
    if statement is None:
        return {"SessionEnded": flag}
    return {"Statement": {"Id": statement.statement_id, "Code": statement.code}}


@INTERNAL_OPERATIONS.operation("FinishStatement")
def finish_statement(needs: SessionNeeds, caller: Caller, request: Request) -> Response:
    try:
        state = StatementState(str(request.get("State")))
    except ValueError:
        raise InvalidInputException(f"State must be AVAILABLE, ERROR or CANCELLED, got {request.get('State')!r}") \
            from None
    if state not in (StatementState.AVAILABLE, StatementState.ERROR, StatementState.CANCELLED):
        raise InvalidInputException(f"State must be AVAILABLE, ERROR or CANCELLED, got {state.value}")
    output = request.get("Output")
    if not isinstance(output, dict):
        raise InvalidInputException("Output must be a StatementOutput structure")
    recorded = sessions(needs, caller).finish(str(request.get("SessionId") or ""), int(request.get("Id", -1)), state,
                                              output)
    return {"Recorded": recorded}
