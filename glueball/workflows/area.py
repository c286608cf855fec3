"""The workflows area: triggers, workflows and their runs, and what they need to start actions."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from glueball.api.operations import Operations
from glueball.clock import SchedulerClock
from glueball.store.engine import Store

if TYPE_CHECKING:
    from glueball.crawlers.crawl_runs import CrawlRunner
    from glueball.jobs.job_runs import JobRunner

OPERATIONS = Operations("glue")
INTERNAL_OPERATIONS = Operations("glueball")


@dataclass(frozen=True, eq=False)
class WorkflowNeeds:
    """What workflow handlers, the engine and the scheduler are given.

    Attributes:
        store: the store.
        clock: the scheduler's clock (schedules and fire times).
        jobs: the process's job runs (actions start job runs).
        crawls: the process's crawls (actions start crawls).
        action_ended: tells the scheduler to look at workflow runs now.
    """

    store: Store
    clock: SchedulerClock
    jobs: JobRunner
    crawls: CrawlRunner
    action_ended: Callable[[], None]
