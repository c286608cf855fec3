"""The jobs area: jobs, job runs and bookmarks (Glue's operations and glueball's own)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from glueball.api.operations import Operations
from glueball.store.engine import Store

if TYPE_CHECKING:
    from glueball.jobs.job_runs import JobRunner

OPERATIONS = Operations("glue")
INTERNAL_OPERATIONS = Operations("glueball")


@dataclass(frozen=True, eq=False)
class JobNeeds:
    """What job handlers are given: the store and the process's job runs."""

    store: Store
    jobs: JobRunner
