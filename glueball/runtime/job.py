"""``Job``: a script's run of a Glue job (upstream ``awsglue.job.Job``).

``init`` names the run and reads its arguments; ``commit`` marks it done. Job
bookmarks (state per ``transformation_ctx`` made visible at ``commit``) hook in
here through ``glueball.runtime.bookmarks`` when the jobs service provides them.
"""

from __future__ import annotations

import logging
import os
import uuid
from collections.abc import Mapping
from typing import Any

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

    def init(self, job_name: str, args: Mapping[str, Any] | None = None) -> None:
        """Start the run of ``job_name`` with the resolved ``args``."""
        if not job_name:
            raise ValueError("Job.init needs a job name (pass args['JOB_NAME'])")
        self._name = job_name
        self._args = dict(args or {})
        self._run_id = (self._args.get("JOB_RUN_ID") or os.environ.get("GLUEBALL_JOB_RUN_ID")
                        or f"jr_{uuid.uuid4().hex}")
        self._committed = False
        log.info("job %s run %s started (bookmarks: %s)", job_name, self._run_id,
                 self._args.get("job_bookmark_option", "job-bookmark-disable"))

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

    def commit(self) -> None:
        """Finish the run successfully (bookmark state, when enabled, becomes visible now)."""
        if self._name is None:
            raise RuntimeError("Job.commit() called before Job.init()")
        self._committed = True
        log.info("job %s run %s committed", self._name, self._run_id)
