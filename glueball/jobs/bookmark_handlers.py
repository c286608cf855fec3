"""Wire handlers of job bookmarks: Glue's GetJobBookmark and ResetJobBookmark, and glueball's own
operations for job drivers.

glueball's own operations (``X-Amz-Target: Glueball.<Operation>``, AWS JSON 1.1,
signed like any Glue request; not part of the Glue API):

- ``Glueball.GetJobBookmarkState`` ``{"JobName": str, "RunId"?: str}`` ->
  ``{"JobName", "Version", "Run", "RunId"?, "States": {ctx: state}}``: the state a
  driver starts from (Version 0 and no States when the job has no bookmark yet),
  or with ``RunId`` the state that run committed (``--job-bookmark-from``/``-to``);
- ``Glueball.CommitJobBookmarkState`` ``{"JobName", "RunId", "Attempt"?: int,
  "PreviousRunId"?: str, "States": {ctx: state}}`` -> ``{"JobBookmarkEntry": ...}``:
  ``job.commit()`` of a run; idempotent per ``RunId``.
"""

from __future__ import annotations

import json
from typing import Any

from glueball.api.identity import Caller
from glueball.api.operations import Request, Response
from glueball.errors import InvalidInputException
from glueball.jobs.area import INTERNAL_OPERATIONS, OPERATIONS, JobNeeds
from glueball.jobs.bookmarks import BookmarkEntry, BookmarkService
from glueball.store.scoped import Scope

_NAME_MAX = 255
_STATE_MAX_BYTES = 16 * 1024 * 1024


def bookmarks(needs: JobNeeds, caller: Caller) -> BookmarkService:
    return BookmarkService(needs.store, Scope(caller.account_id, caller.region))


def entry_wire(entry: BookmarkEntry) -> dict[str, Any]:
    """The model's JobBookmarkEntry structure (JobBookmark: the per-ctx states as a JSON string)."""
    wire: dict[str, Any] = {"JobName": entry.job_name, "Version": entry.version, "Run": entry.run,
                            "Attempt": entry.attempt, "JobBookmark": json.dumps(entry.states, sort_keys=True)}
    if entry.run_id:
        wire["RunId"] = entry.run_id
    if entry.previous_run_id:
        wire["PreviousRunId"] = entry.previous_run_id
    return wire


@OPERATIONS.operation("GetJobBookmark")
def get_job_bookmark(needs: JobNeeds, caller: Caller, request: Request) -> Response:
    entry = bookmarks(needs, caller).get(request["JobName"], request.get("RunId") or None)
    return {"JobBookmarkEntry": entry_wire(entry)}


@OPERATIONS.operation("ResetJobBookmark")
def reset_job_bookmark(needs: JobNeeds, caller: Caller, request: Request) -> Response:
    entry = bookmarks(needs, caller).reset(request["JobName"], request.get("RunId") or None)
    return {"JobBookmarkEntry": entry_wire(entry)}


# ---------------------------------------------------------------- glueball's own

def _string(request: Request, member: str, required: bool) -> str | None:
    value = request.get(member)
    if value is None:
        if required:
            raise InvalidInputException(f"{member} is required")
        return None
    if not isinstance(value, str) or not value or len(value) > _NAME_MAX:
        raise InvalidInputException(f"{member} must be a string of 1 to {_NAME_MAX} characters, got {value!r}")
    return value


def _check_members(request: Request, allowed: tuple[str, ...], operation_name: str) -> None:
    unknown = sorted(set(request) - set(allowed))
    if unknown:
        raise InvalidInputException(f"Glueball.{operation_name} does not take {', '.join(unknown)}; "
                                    f"members are {', '.join(allowed)}")


def _states(request: Request) -> dict[str, Any]:
    states = request.get("States")
    if not isinstance(states, dict):
        raise InvalidInputException("States must be an object of transformation_ctx -> state object")
    for ctx, state in states.items():
        if not ctx or len(ctx) > _NAME_MAX:
            raise InvalidInputException(f"transformation_ctx must have 1 to {_NAME_MAX} characters, got {ctx!r}")
        if not isinstance(state, dict):
            raise InvalidInputException(f"the state of transformation_ctx {ctx!r} must be an object")
    if len(json.dumps(states)) > _STATE_MAX_BYTES:
        raise InvalidInputException(f"States exceed {_STATE_MAX_BYTES} bytes")
    return states


@INTERNAL_OPERATIONS.operation("GetJobBookmarkState")
def get_job_bookmark_state(needs: JobNeeds, caller: Caller, request: Request) -> Response:
    _check_members(request, ("JobName", "RunId"), "GetJobBookmarkState")
    job_name = _string(request, "JobName", True)
    assert job_name is not None
    entry = bookmarks(needs, caller).states(job_name, _string(request, "RunId", False))
    if entry is None:
        return {"JobName": job_name, "Version": 0, "Run": 0, "States": {}}
    response: dict[str, Any] = {"JobName": job_name, "Version": entry.version, "Run": entry.run,
                                "States": entry.states}
    if entry.run_id:
        response["RunId"] = entry.run_id
    return response


@INTERNAL_OPERATIONS.operation("CommitJobBookmarkState")
def commit_job_bookmark_state(needs: JobNeeds, caller: Caller, request: Request) -> Response:
    _check_members(request, ("JobName", "RunId", "Attempt", "PreviousRunId", "States"), "CommitJobBookmarkState")
    job_name = _string(request, "JobName", True)
    run_id = _string(request, "RunId", True)
    assert job_name is not None and run_id is not None
    attempt = request.get("Attempt", 0)
    if isinstance(attempt, bool) or not isinstance(attempt, int) or attempt < 0:
        raise InvalidInputException(f"Attempt must be a non-negative integer, got {attempt!r}")
    entry = bookmarks(needs, caller).commit(job_name, run_id, _states(request), attempt=attempt,
                                          previous_run_id=_string(request, "PreviousRunId", False))
    return {"JobBookmarkEntry": entry_wire(entry)}
