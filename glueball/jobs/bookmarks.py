"""Job bookmarks: per job, the state of each ``transformation_ctx``, versioned per run.

What Glue documents and this mirrors:

- a bookmark belongs to a job (``JobName``) and holds one state per
  ``transformation_ctx``; ``GetJobBookmark`` answers the ``JobBookmarkEntry``
  (``JobBookmark`` is that map as a JSON string), or ``EntityNotFoundException``
  ("Continuation for job ... not found") when the job never committed one;
- the state advances only when a run calls ``job.commit()``: the driver keeps
  what it read as pending state and commits it in one transaction
  (:meth:`BookmarkService.commit`), so a run that fails before committing leaves
  the previous state and the next run reads the same input again (at-least-once);
  a second commit of the same run changes nothing;
- ``ResetJobBookmark`` empties the bookmark; with ``RunId`` it rewinds it to the
  state that run committed, so what later runs processed is processed again;
- ``--job-bookmark-from``/``--job-bookmark-to`` (with ``job-bookmark-pause``)
  name runs whose committed states bound the input of a run (:meth:`BookmarkService.states`).

Every change (commit, reset, withdrawal) makes a new ``Version`` and is kept in
``glue_job_bookmark_version``, which is what run-relative look-ups read. A run
that committed and then ended FAILED, TIMEOUT or STOPPED has its commit withdrawn
when nothing newer happened since (:meth:`BookmarkService.discard_uncommitted`):
the state is visible only after the commit of a run that succeeds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from glueball.clock import now
from glueball.errors import EntityNotFoundException
from glueball.store.engine import Store
from glueball.store.schema import JobBookmarkRow, JobBookmarkVersionRow, JobRow
from glueball.store.scoped import Scope

COMMIT, RESET, WITHDRAW = "commit", "reset", "withdraw"


@dataclass
class BookmarkEntry:
    """Glue's ``JobBookmarkEntry``: the bookmark after one of its versions."""

    job_name: str
    version: int
    run: int
    attempt: int
    run_id: str | None
    previous_run_id: str | None
    states: dict[str, Any] = field(default_factory=dict)


def _entry_of(job_name: str, row: JobBookmarkRow | JobBookmarkVersionRow) -> BookmarkEntry:
    return BookmarkEntry(job_name=job_name, version=row.version, run=row.run, attempt=row.attempt,
                         run_id=row.run_id, previous_run_id=row.previous_run_id, states=dict(row.states or {}))


def _not_found(job_name: str, run_id: str | None = None) -> EntityNotFoundException:
    if run_id:
        return EntityNotFoundException(f"Continuation for job {job_name} and run {run_id} not found")
    return EntityNotFoundException(f"Continuation for job {job_name} not found")


def job_exists(session: Session, scope: Scope, job_name: str) -> bool:
    """Whether the job ``job_name`` is defined (table ``glue_job`` of the jobs service)."""
    query = select(JobRow.id).where(JobRow.account_id == scope.account_id, JobRow.region == scope.region,
                                    JobRow.name == job_name)
    return session.execute(query).first() is not None


def delete_job_bookmarks(session: Session, scope: Scope, job_name: str) -> None:
    """Forget a job's bookmark and its versions (Glue deletes the bookmark with the job)."""
    session.execute(delete(JobBookmarkRow).where(
        JobBookmarkRow.account_id == scope.account_id, JobBookmarkRow.region == scope.region,
        JobBookmarkRow.job_name == job_name))


class BookmarkService:
    """The bookmarks of one account and region."""

    def __init__(self, store: Store, scope: Scope) -> None:
        self.store = store
        self.scope = scope

    # ------------------------------------------------------------ queries

    def _row(self, session: Session, job_name: str, for_update: bool = False) -> JobBookmarkRow | None:
        query = select(JobBookmarkRow).where(
            JobBookmarkRow.account_id == self.scope.account_id, JobBookmarkRow.region == self.scope.region,
            JobBookmarkRow.job_name == job_name)
        if for_update:
            query = query.with_for_update()
        row: JobBookmarkRow | None = session.scalars(query).one_or_none()
        return row

    @staticmethod
    def _commit_of(session: Session, row: JobBookmarkRow, run_id: str) -> JobBookmarkVersionRow | None:
        found: JobBookmarkVersionRow | None = session.scalars(select(JobBookmarkVersionRow).where(
            JobBookmarkVersionRow.bookmark_id == row.id,
            JobBookmarkVersionRow.commit_run_id == run_id)).one_or_none()
        return found

    def _check_job(self, session: Session, job_name: str) -> None:
        if not job_exists(session, self.scope, job_name):
            raise EntityNotFoundException(f"Job with name: {job_name} not found")

    def get(self, job_name: str, run_id: str | None = None) -> BookmarkEntry:
        """``GetJobBookmark``: the current entry, or the one run ``run_id`` committed.

        Raises:
            EntityNotFoundException: no such job, no bookmark, or the run committed none.
        """
        with self.store.read() as session:
            self._check_job(session, job_name)
            return self._get(session, job_name, run_id)

    def _get(self, session: Session, job_name: str, run_id: str | None) -> BookmarkEntry:
        row = self._row(session, job_name)
        if row is None:
            raise _not_found(job_name)
        if not run_id:
            return _entry_of(job_name, row)
        committed = self._commit_of(session, row, run_id)
        if committed is None:
            raise _not_found(job_name, run_id)
        return _entry_of(job_name, committed)

    def states(self, job_name: str, run_id: str | None = None) -> BookmarkEntry | None:
        """The state a driver starts from: current (None if there is none), or as of run ``run_id``.

        Unlike :meth:`get`, the job need not be defined (a script run by ``glueball run``
        keeps bookmarks under its ``--JOB_NAME``).

        Raises:
            EntityNotFoundException: ``run_id`` was given and that run committed no bookmark.
        """
        with self.store.read() as session:
            if run_id:
                return self._get(session, job_name, run_id)
            row = self._row(session, job_name)
            return None if row is None else _entry_of(job_name, row)

    # ------------------------------------------------------------ changes

    def _locked_row(self, session: Session, job_name: str) -> JobBookmarkRow:
        """The job's bookmark row, locked; created empty (version 0) when missing."""
        row = self._row(session, job_name, for_update=True)
        if row is not None:
            return row
        row = JobBookmarkRow(account_id=self.scope.account_id, region=self.scope.region, job_name=job_name,
                             version=0, run=0, attempt=0, run_id=None, previous_run_id=None, states={},
                             update_time=now())
        session.add(row)
        session.flush()  # a concurrent creator makes this fail with IntegrityError: the caller retries
        return row

    @staticmethod
    def _new_version(session: Session, row: JobBookmarkRow, kind: str, commit_run_id: str | None) -> None:
        row.version += 1
        row.update_time = now()
        session.add(JobBookmarkVersionRow(
            bookmark_id=row.id, version=row.version, kind=kind, commit_run_id=commit_run_id, run=row.run,
            attempt=row.attempt, run_id=row.run_id, previous_run_id=row.previous_run_id, states=dict(row.states),
            create_time=row.update_time))

    def _write(self, job_name: str, change: Any) -> BookmarkEntry:
        """Run ``change(session, row)`` on the locked row; once more if a concurrent writer created it first."""
        for attempt in range(2):
            try:
                with self.store.write() as session:
                    row = self._locked_row(session, job_name)
                    result: BookmarkEntry = change(session, row)
                    return result
            except IntegrityError:
                if attempt == 1:
                    raise
        raise AssertionError("unreachable")

    def commit(self, job_name: str, run_id: str, states: dict[str, Any], attempt: int = 0,
               previous_run_id: str | None = None) -> BookmarkEntry:
        """``job.commit()`` of run ``run_id``: its pending ``states`` (per ctx) become the bookmark.

        Contexts the run did not read keep their state. Committing a run twice
        changes nothing and answers the entry of its first commit.
        """
        def change(session: Session, row: JobBookmarkRow) -> BookmarkEntry:
            earlier = self._commit_of(session, row, run_id)
            if earlier is not None:
                return _entry_of(job_name, row if row.version == earlier.version else earlier)
            row.states = {**(row.states or {}), **states}
            row.run += 1
            row.attempt = attempt
            row.run_id = run_id
            row.previous_run_id = previous_run_id
            self._new_version(session, row, COMMIT, run_id)
            return _entry_of(job_name, row)

        return self._write(job_name, change)

    def reset(self, job_name: str, run_id: str | None = None) -> BookmarkEntry:
        """``ResetJobBookmark``: empty the bookmark, or rewind it to what run ``run_id`` committed.

        Raises:
            EntityNotFoundException: no such job, or ``run_id`` committed no bookmark.
        """
        with self.store.read() as session:
            self._check_job(session, job_name)

        def change(session: Session, row: JobBookmarkRow) -> BookmarkEntry:
            if run_id:
                target = self._commit_of(session, row, run_id)
                if target is None:
                    raise _not_found(job_name, run_id)
                row.states, row.run, row.attempt = dict(target.states), target.run, target.attempt
                row.run_id, row.previous_run_id = target.run_id, target.previous_run_id
            else:
                row.states, row.run, row.attempt, row.run_id, row.previous_run_id = {}, 0, 0, None, None
            self._new_version(session, row, RESET, None)
            return _entry_of(job_name, row)

        return self._write(job_name, change)

    def discard_uncommitted(self, job_name: str, run_id: str) -> bool:
        """A run ended FAILED, TIMEOUT or STOPPED: withdraw its commit if it is still the latest change.

        Pending state lives in the driver until ``job.commit()``, so a run that
        failed before committing left nothing to discard; one that committed and
        failed afterwards has the bookmark put back as it was before that commit.
        Returns whether a commit was withdrawn.
        """
        with self.store.write() as session:
            row = self._row(session, job_name, for_update=True)
            if row is None:
                return False
            committed = self._commit_of(session, row, run_id)
            if committed is None or committed.version != row.version:
                return False
            before: JobBookmarkVersionRow | None = session.scalars(select(JobBookmarkVersionRow).where(
                JobBookmarkVersionRow.bookmark_id == row.id,
                JobBookmarkVersionRow.version == committed.version - 1)).one_or_none()
            if before is None:
                row.states, row.run, row.attempt, row.run_id, row.previous_run_id = {}, 0, 0, None, None
            else:
                row.states, row.run, row.attempt = dict(before.states), before.run, before.attempt
                row.run_id, row.previous_run_id = before.run_id, before.previous_run_id
            # the run may be retried under a new run id; its own id stays spent
            self._new_version(session, row, WITHDRAW, None)
            return True
