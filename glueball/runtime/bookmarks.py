"""Job bookmarks in a driver: what sources skip, what ``job.commit()`` records.

``Job.init`` loads the job's bookmark (``job-bookmark-enable`` or ``-pause``) and
makes it the process's active :class:`JobBookmarks`; a source read with a
``transformation_ctx`` asks it what to read and records its new state as
*pending*; ``job.commit()`` sends all pending states at once. Sources without a
``transformation_ctx`` have no bookmark (as on Glue).

- Files (``s3``/``file`` sources, ``from_catalog`` over files): a file is processed
  when its path was read before with the same modification time and size, or when
  it is older than the bookmark's band: Glue tracks files by path and modification
  time, keeping the individual files only for the last ``maxBand`` milliseconds
  (default 900000) before the newest file read; older files count as processed.
  New and changed files are read; ``maxFilesInBand`` caps how many of the files in
  that band one run takes (the newest are left to the next run).
- JDBC sources: rows whose bookmark keys (``jobBookmarkKeys``, default the table's
  primary key) compare greater than the last recorded keys (smaller with
  ``jobBookmarkKeysSortOrder`` ``desc``) — see ``glueball.runtime.io.jdbc``.

Options: ``job-bookmark-enable`` reads what is new and advances at commit;
``job-bookmark-pause`` reads what is new without advancing, or, with
``--job-bookmark-from A --job-bookmark-to B``, exactly the input that runs after A
up to and including B processed; ``job-bookmark-disable`` reads everything and
records nothing.

The bookmark service is glueball's own operations (``Glueball.GetJobBookmarkState``,
``Glueball.CommitJobBookmarkState``), called through the process's glueball client
(:func:`glueball.runtime.client.internal_client`: boto3 with glueball's model, answered
in-process when embedded or by the server on ``GLUEBALL_ENDPOINT``).
Against AWS Glue itself (``GLUEBALL_ENDPOINT=aws``) bookmarks are not available here.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from glueball.runtime.errors import GlueRuntimeError
from glueball.supervise import driverenv

if TYPE_CHECKING:
    from glueball.runtime.io.files import InputFile

log = logging.getLogger("glueball.job")

ENABLE, PAUSE, DISABLE = "job-bookmark-enable", "job-bookmark-pause", "job-bookmark-disable"
FILES_STATE = "HadoopDataSourceJobBookmarkState"
JDBC_STATE = "JDBCDataSourceJobBookmarkState"
DEFAULT_MAX_BAND_MS = 900_000


class BookmarkError(GlueRuntimeError):
    """The bookmark service refused or failed a call (``code`` is the Glue error code)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code


# ---------------------------------------------------------------- transport

def call_service(operation: str, request: Mapping[str, Any]) -> dict[str, Any]:
    """Call glueball's own operation ``Glueball.<operation>`` through the process's glueball client.

    Raises:
        BookmarkError: the service answered an error, or cannot serve bookmarks (AWS Glue).
    """
    from botocore.exceptions import ClientError, ParamValidationError

    from glueball.runtime.client import NoGlueballService, internal_client

    try:
        client = internal_client()
        answer: dict[str, Any] = getattr(client, _snake(operation))(**request)
    except NoGlueballService as exc:
        raise BookmarkError("UnsupportedOperation", "job bookmarks are kept by AWS Glue itself, not by a "
                                                    "script run outside it") from exc
    except ClientError as err:
        error = err.response.get("Error", {})
        raise BookmarkError(str(error.get("Code", "InternalServiceException")),
                            str(error.get("Message", ""))) from err
    except ParamValidationError as err:
        raise BookmarkError("InvalidInputException", str(err)) from err
    answer.pop("ResponseMetadata", None)
    return answer


def _snake(operation: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in operation).lstrip("_")


# ---------------------------------------------------------------- the run's bookmarks

@dataclass
class JobBookmarks:
    """The bookmark of one job run: the states it starts from, and what it will commit."""

    job_name: str
    run_id: str
    option: str = DISABLE
    attempt: int = 0
    previous_run_id: str | None = None
    current: dict[str, Any] = field(default_factory=dict)
    # with --job-bookmark-from/--job-bookmark-to: the states those runs committed
    range_from: dict[str, Any] | None = None
    range_to: dict[str, Any] | None = None
    pending: dict[str, Any] = field(default_factory=dict)
    version: int = 0

    @property
    def active(self) -> bool:
        return self.option != DISABLE

    @property
    def advancing(self) -> bool:
        return self.option == ENABLE

    @property
    def ranged(self) -> bool:
        return self.range_to is not None

    def state(self, ctx: str) -> dict[str, Any] | None:
        """The state ``ctx`` starts from (this run's own pending state first)."""
        found = self.pending.get(ctx, self.current.get(ctx))
        return found if isinstance(found, dict) else None

    def record(self, ctx: str, state: dict[str, Any]) -> None:
        """``ctx``'s new state, committed by ``job.commit()`` (only with job-bookmark-enable)."""
        if self.advancing:
            self.pending[ctx] = state

    def commit(self) -> dict[str, Any] | None:
        """Commit the pending states (all at once); the entry, or None when the option does not advance."""
        if not self.advancing:
            return None
        request: dict[str, Any] = {"JobName": self.job_name, "RunId": self.run_id, "Attempt": self.attempt,
                                   "States": self.pending}
        if self.previous_run_id:
            request["PreviousRunId"] = self.previous_run_id
        entry: dict[str, Any] = call_service("CommitJobBookmarkState", request)["JobBookmarkEntry"]
        return entry


_active: JobBookmarks | None = None


def load(job_name: str, run_id: str, args: Mapping[str, Any]) -> JobBookmarks:
    """The bookmark of a starting run, from the resolved job ``args``; it becomes the active one.

    Raises:
        BookmarkError: the service failed, or a ``--job-bookmark-from``/``-to`` run committed no bookmark.
    """
    global _active
    option = str(args.get("job_bookmark_option") or DISABLE)
    if option not in (ENABLE, PAUSE, DISABLE):
        raise GlueRuntimeError(f"--job-bookmark-option must be one of {ENABLE}, {PAUSE}, {DISABLE}; got {option!r}")
    contract = driverenv.current()
    bookmarks = JobBookmarks(job_name, run_id, option, contract.attempt, contract.previous_run_id)
    if option != DISABLE:
        if contract.on_aws:
            log.warning("job bookmarks are kept by AWS Glue; this run reads without them")
            bookmarks.option = DISABLE
        else:
            answer = call_service("GetJobBookmarkState", {"JobName": job_name})
            bookmarks.current = dict(answer.get("States") or {})
            bookmarks.version = int(answer.get("Version") or 0)
            start, end = args.get("job_bookmark_from"), args.get("job_bookmark_to")
            if option == PAUSE and start and end:
                bookmarks.range_from = _run_states(job_name, str(start))
                bookmarks.range_to = _run_states(job_name, str(end))
    _active = bookmarks
    log.info("job %s run %s: %s, bookmark version %s", job_name, run_id, bookmarks.option, bookmarks.version)
    return bookmarks


def _run_states(job_name: str, run_id: str) -> dict[str, Any]:
    answer = call_service("GetJobBookmarkState", {"JobName": job_name, "RunId": run_id})
    return dict(answer.get("States") or {})


def active() -> JobBookmarks | None:
    """The bookmark of the process's job run, if ``Job.init`` loaded one."""
    return _active


def deactivate() -> None:
    global _active
    _active = None


def for_source(transformation_ctx: str | None) -> JobBookmarks | None:
    """The bookmark a source read with ``transformation_ctx`` uses: None without a ctx or when disabled."""
    bookmarks = _active
    if not transformation_ctx or bookmarks is None or not bookmarks.active:
        return None
    return bookmarks


# ---------------------------------------------------------------- files

def _band_ms(options: Mapping[str, Any], state: Mapping[str, Any] | None) -> int:
    value = options.get("maxBand")
    if value is None:
        return int(state.get("maxBand", DEFAULT_MAX_BAND_MS)) if state else DEFAULT_MAX_BAND_MS
    try:
        band = int(value)
    except (TypeError, ValueError) as err:
        raise GlueRuntimeError(f"maxBand must be a whole number of milliseconds, got {value!r}") from err
    if band < 0:
        raise GlueRuntimeError(f"maxBand must not be negative, got {band}")
    return band


def processed(item: InputFile, state: Mapping[str, Any] | None) -> bool:
    """Whether a files bookmark state covers ``item`` (same path, mtime and size, or older than its band)."""
    if not state or state.get("jsonClass") != FILES_STATE:
        return False
    seen = state.get("files", {}).get(item.uri)
    if seen is not None:
        return bool(float(seen[0]) == item.mtime and int(seen[1]) == item.size)
    floor = state.get("floor")
    return floor is not None and item.mtime <= float(floor)


def advanced(state: Mapping[str, Any] | None, read: list[InputFile], band_ms: int) -> dict[str, Any]:
    """The files state after reading ``read`` on top of ``state``.

    ``latest`` is the newest modification time read so far and ``floor`` is
    ``latest - maxBand``: files are kept individually only above the floor.
    """
    files: dict[str, list[Any]] = {}
    latest: float | None = None
    floor: float | None = None
    if state and state.get("jsonClass") == FILES_STATE:
        files = {k: list(v) for k, v in state.get("files", {}).items()}
        latest = state.get("latest")
        floor = state.get("floor")
    for item in read:
        files[item.uri] = [item.mtime, item.size]
        latest = item.mtime if latest is None else max(float(latest), item.mtime)
    if latest is not None:
        lowest = float(latest) - band_ms / 1000.0
        floor = lowest if floor is None else max(float(floor), lowest)
    kept = {uri: seen for uri, seen in files.items() if floor is None or float(seen[0]) > floor}
    return {"jsonClass": FILES_STATE, "maxBand": band_ms, "latest": latest, "floor": floor,
            "files": dict(sorted(kept.items()))}


def select_files(transformation_ctx: str | None, listed: list[InputFile],
                 options: Mapping[str, Any]) -> list[InputFile]:
    """The listed files a bookmarked read covers, recording the new state for the commit."""
    bookmarks = for_source(transformation_ctx)
    if bookmarks is None:
        return listed
    ctx = str(transformation_ctx)
    if bookmarks.ranged:
        start = (bookmarks.range_from or {}).get(ctx)
        end = (bookmarks.range_to or {}).get(ctx)
        chosen = [f for f in listed if processed(f, end) and not processed(f, start)]
        log.info("bookmark %s: %d of %d files between the runs", ctx, len(chosen), len(listed))
        return chosen
    state = bookmarks.state(ctx)
    band = _band_ms(options, state)
    chosen = _limit_band([f for f in listed if not processed(f, state)], band, options.get("maxFilesInBand"))
    log.info("bookmark %s: %d new or changed of %d files", ctx, len(chosen), len(listed))
    if chosen:
        bookmarks.record(ctx, advanced(state, chosen, band))
    return chosen


def _limit_band(chosen: list[InputFile], band_ms: int, limit: Any) -> list[InputFile]:
    """``maxFilesInBand``: at most that many files of the last ``maxBand`` ms; the newest wait for the next run."""
    if limit is None:
        return chosen
    try:
        most = int(limit)
    except (TypeError, ValueError) as err:
        raise GlueRuntimeError(f"maxFilesInBand must be a whole number, got {limit!r}") from err
    if most < 1:
        raise GlueRuntimeError(f"maxFilesInBand must be at least 1, got {most}")
    if not chosen:
        return chosen
    floor = max(f.mtime for f in chosen) - band_ms / 1000.0
    in_band = sorted((f for f in chosen if f.mtime > floor), key=lambda f: (f.mtime, f.uri))
    deferred = {f.uri for f in in_band[most:]}
    return [f for f in chosen if f.uri not in deferred]
