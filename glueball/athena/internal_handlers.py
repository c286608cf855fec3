"""glueball's own operations for Athena's engines (``Glueball.TakeQuery``, ``Glueball.FinishQuery``)."""

from __future__ import annotations

import json

from glueball.api.identity import Caller
from glueball.api.operations import Request, Response
from glueball.athena.area import INTERNAL_OPERATIONS, AthenaNeeds
from glueball.athena.engines import engine_ready
from glueball.athena.models import QueryState
from glueball.athena.queries import QueryService, query_folder
from glueball.errors import InvalidInputException
from glueball.store.scoped import Scope
from glueball.supervise import outcome


def _service(needs: AthenaNeeds, caller: Caller) -> QueryService:
    return QueryService(needs.store, Scope(caller.account_id, caller.region), needs.home)


@INTERNAL_OPERATIONS.operation("TakeQuery")
def take_query(needs: AthenaNeeds, caller: Caller, request: Request) -> Response:
    """The next queued query for the engine (any account's: an engine serves the installation), with the plan,
    where to write, and the credentials of the caller that started it; or, with ``RunningId``, whether that
    query is being stopped (with ``WaitSeconds``, once it is or has ended, or after that long)."""
    engine_id = request.get("EngineId")
    wait = request.get("WaitSeconds", 0.0)
    if not isinstance(engine_id, str) or not engine_id:
        raise InvalidInputException(f"EngineId must be an engine's id, got {engine_id!r}")
    if isinstance(wait, bool) or not isinstance(wait, int | float) or not 0 <= wait <= 30:
        raise InvalidInputException(f"WaitSeconds must be a number from 0 to 30, got {wait!r}")
    if not engine_ready(needs.store, engine_id):
        return {"EngineEnded": True}
    service = _service(needs, caller)
    running = request.get("RunningId")
    if running is not None:  # asked with WaitSeconds, answered once the query is stopped or ends (or then)
        return {"Cancel": service.cancelling(str(running), float(wait))}
    while True:
        query = service.take(engine_id, float(wait))
        if query is None:
            return {}
        credentials = needs.credentials(query.access_key)
        if credentials is not None:
            break
        # the key that started it is gone (deleted, deactivated): the query cannot act as anyone
        outcome.record(query_folder(needs.home, query.query_id), QueryState.FAILED,
                       "The credentials that started the query are no longer valid",
                       AthenaError={"ErrorCategory": 2, "ErrorType": 1000, "Retryable": False,
                                    "ErrorMessage": "The credentials that started the query are no longer valid"})
        service.settle(query.query_id)
    key, secret, token = credentials
    return {"Query": {
        "QueryExecutionId": query.query_id, "Plan": json.dumps(query.plan), "Database": query.database or "default",
        "OutputLocation": query.output_location or "", "Folder": str(query_folder(needs.home, query.query_id)),
        **({"BytesScannedCutoff": query.bytes_cutoff} if query.bytes_cutoff is not None else {}),
        "AccountId": query.account_id, "Region": query.region,
        "Credentials": {"AccessKeyId": key, "SecretAccessKey": secret, **({"SessionToken": token} if token else {})}}}


@INTERNAL_OPERATIONS.operation("FinishQuery")
def finish_query(needs: AthenaNeeds, caller: Caller, request: Request) -> Response:
    """The engine has written the query's outcome record: the query settles from it."""
    return {"Recorded": _service(needs, caller).settle(str(request["QueryExecutionId"]))}
