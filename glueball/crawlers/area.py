"""The crawlers area: crawler and classifier operations, and what they need."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from glueball.api.operations import Operations
from glueball.clock import SchedulerClock
from glueball.store.engine import Store

if TYPE_CHECKING:
    from glueball.crawlers.crawl_runs import CrawlRunner

OPERATIONS = Operations("glue")


@dataclass(frozen=True, eq=False)
class CrawlerNeeds:
    """What crawler handlers are given: the store, the scheduler's clock and the process's crawls."""

    store: Store
    clock: SchedulerClock
    crawls: CrawlRunner
