"""``Job``: a script's run of a Glue job (upstream ``awsglue.job.Job``).

``init`` names the run, reads its arguments and loads the job's bookmark
(``job-bookmark-enable``/``-pause``); ``commit`` marks the run done and makes the
state its bookmarked sources recorded (per ``transformation_ctx``) the job's
bookmark, all at once. See ``glueball.runtime.bookmarks``.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping
from typing import Any

from glueball.runtime import bookmarks as job_bookmarks
from glueball.runtime.options import (
    BOOKMARK_RANGE_OPTIONS,
    CONTINUATION_OPTION,
    CONTINUATION_VALUES,
    ENCRYPTION_OPTION,
    ENCRYPTION_VALUES,
    ID_OPTIONS,
    JOB_BOOKMARK_OPTION,
    JOB_BOOKMARK_VALUES,
)
from glueball.supervise import driverenv

log = logging.getLogger("glueball.job")


class Job:
    """One run of a Glue job script."""

    @classmethod
    def continuation_options(cls) -> list[str]:
        return [CONTINUATION_OPTION, *CONTINUATION_VALUES]

    @classmethod
    def job_bookmark_options(cls) -> list[str]:
        return [JOB_BOOKMARK_OPTION, *JOB_BOOKMARK_VALUES]

    @classmethod
    def job_bookmark_range_options(cls) -> list[str]:
        return list(BOOKMARK_RANGE_OPTIONS)

    @classmethod
    def id_params(cls) -> list[str]:
        return list(ID_OPTIONS)

    @classmethod
    def encryption_type_options(cls) -> list[str]:
        return [ENCRYPTION_OPTION, *ENCRYPTION_VALUES]

    def __init__(self, glue_context: Any) -> None:
        self._glue_context = glue_context
        self._name: str | None = None
        self._args: dict[str, Any] = {}
        self._run_id: str | None = None
        self._committed = False
        self._bookmarks: job_bookmarks.JobBookmarks | None = None

    def init(self, job_name: str, args: Mapping[str, Any] | None = None) -> None:
        """Start the run of ``job_name`` with the resolved ``args``."""
        if not job_name:
            raise ValueError("Job.init needs a job name (pass args['JOB_NAME'])")
        self._name = job_name
        self._args = dict(args or {})
        self._run_id = (self._args.get("JOB_RUN_ID") or driverenv.current().run_id
                        or f"jr_{uuid.uuid4().hex}")
        self._committed = False
        self._bookmarks = job_bookmarks.load(job_name, self._run_id, self._args)
        log.info("job %s run %s started (bookmarks: %s)", job_name, self._run_id, self._bookmarks.option)

    def isInitialized(self) -> bool:  # noqa: N802
        return self._name is not None

    @property
    def name(self) -> str | None:
        return self._name

    @property
    def run_id(self) -> str | None:
        return self._run_id

    @property
    def committed(self) -> bool:
        return self._committed

    @property
    def bookmarks(self) -> job_bookmarks.JobBookmarks | None:
        """The run's bookmark (loaded by ``init``)."""
        return self._bookmarks

    def commit(self) -> None:
        """Finish the run successfully: with job-bookmark-enable, what its sources read becomes the bookmark.

        Committing again is harmless: the service keeps the run's first commit.
        """
        if self._name is None:
            raise RuntimeError("Job.commit() called before Job.init()")
        if self._bookmarks is not None:
            entry = self._bookmarks.commit()
            if entry is not None:
                log.info("job %s bookmark version %s committed by run %s", self._name, entry.get("Version"),
                         self._run_id)
        self._committed = True
        log.info("job %s run %s committed", self._name, self._run_id)
