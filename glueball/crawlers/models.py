"""Typed models of crawlers, crawls and classifiers.

A crawler's lifecycle is ``READY -> RUNNING -> STOPPING -> READY`` (or
``RUNNING -> READY`` when a crawl ends by itself); :data:`CRAWLER_TRANSITIONS`
is the whole table and the store refuses anything else. Crawler and classifier
definitions keep the validated wire members in ``spec`` so that every member a
client sent round-trips.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

Spec = dict[str, Any]

LOG_GROUP = "/aws-glue/crawlers"


class CrawlerState(StrEnum):
    READY = "READY"
    RUNNING = "RUNNING"
    STOPPING = "STOPPING"


CRAWLER_TRANSITIONS: dict[CrawlerState, frozenset[CrawlerState]] = {
    CrawlerState.READY: frozenset({CrawlerState.RUNNING}),
    CrawlerState.RUNNING: frozenset({CrawlerState.STOPPING, CrawlerState.READY}),
    CrawlerState.STOPPING: frozenset({CrawlerState.READY}),
}


def can_transition(current: CrawlerState, target: CrawlerState) -> bool:
    """Whether the crawler state machine allows ``current -> target``."""
    return target in CRAWLER_TRANSITIONS[current]


class ScheduleState(StrEnum):
    SCHEDULED = "SCHEDULED"
    NOT_SCHEDULED = "NOT_SCHEDULED"
    TRANSITIONING = "TRANSITIONING"


class LastCrawlStatus(StrEnum):
    SUCCEEDED = "SUCCEEDED"
    CANCELLED = "CANCELLED"
    FAILED = "FAILED"


class CrawlState(StrEnum):
    """A crawl's state in ListCrawls (CrawlerHistoryState)."""

    RUNNING = "RUNNING"
    COMPLETED = "COMPLETED"
    FAILED = "FAILED"
    STOPPED = "STOPPED"


CRAWL_STATE_OF_STATUS = {
    LastCrawlStatus.SUCCEEDED: CrawlState.COMPLETED,
    LastCrawlStatus.CANCELLED: CrawlState.STOPPED,
    LastCrawlStatus.FAILED: CrawlState.FAILED,
}


class ClassifierKind(StrEnum):
    """The member of CreateClassifier/Classifier that holds each kind of custom classifier."""

    GROK = "GrokClassifier"
    XML = "XMLClassifier"
    JSON = "JsonClassifier"
    CSV = "CsvClassifier"


@dataclass
class Schedule:
    expression: str
    state: ScheduleState


@dataclass
class LastCrawl:
    """LastCrawlInfo: how the most recent crawl ended and where its log is."""

    status: LastCrawlStatus
    crawl_id: str
    start_time: float
    error_message: str | None = None
    log_stream: str | None = None

    def to_json(self) -> Spec:
        return {"Status": self.status.value, "CrawlId": self.crawl_id, "StartTime": self.start_time,
                "ErrorMessage": self.error_message, "LogStream": self.log_stream}

    @classmethod
    def from_json(cls, data: Spec) -> LastCrawl:
        return cls(status=LastCrawlStatus(data["Status"]), crawl_id=data["CrawlId"],
                   start_time=data["StartTime"], error_message=data.get("ErrorMessage"),
                   log_stream=data.get("LogStream"))


@dataclass
class Crawler:
    """A crawler definition with its runtime state.

    Attributes:
        spec: the CreateCrawler/UpdateCrawler members other than Name, Schedule, Tags
            and CatalogId, with Glue's defaults filled in.
        crawl_start: when the crawl in progress started (epoch seconds), if one is.
    """

    name: str
    spec: Spec
    state: CrawlerState = CrawlerState.READY
    schedule: Schedule | None = None
    version: int = 1
    create_time: float = 0.0
    update_time: float = 0.0
    crawl_start: float | None = None
    last_crawl: LastCrawl | None = None

    @property
    def classifier_names(self) -> list[str]:
        return list(self.spec.get("Classifiers") or [])


@dataclass
class CrawlStats:
    """What one crawl changed in the catalog."""

    tables_created: int = 0
    tables_updated: int = 0
    tables_deleted: int = 0
    partitions_created: int = 0
    partitions_updated: int = 0
    partitions_deleted: int = 0

    def to_json(self) -> dict[str, int]:
        return dict(self.__dict__)

    @classmethod
    def from_json(cls, data: Spec | None) -> CrawlStats:
        known = cls.__dataclass_fields__
        return cls(**{k: int(v) for k, v in (data or {}).items() if k in known})


@dataclass
class Crawl:
    """One crawl: a row of ListCrawls."""

    crawl_id: str
    crawler_name: str
    state: CrawlState
    start_time: float
    end_time: float | None = None
    error_message: str | None = None
    stats: CrawlStats = field(default_factory=CrawlStats)

    @property
    def runtime_seconds(self) -> float | None:
        return None if self.end_time is None else max(0.0, self.end_time - self.start_time)


@dataclass
class CrawlerMetrics:
    """GetCrawlerMetrics' CrawlerMetrics of one crawler."""

    crawler_name: str
    time_left_seconds: float = 0.0
    still_estimating: bool = False
    last_runtime_seconds: float = 0.0
    median_runtime_seconds: float = 0.0
    tables_created: int = 0
    tables_updated: int = 0
    tables_deleted: int = 0

    @classmethod
    def of(cls, crawler: Crawler, finished: list[Crawl], now: float) -> CrawlerMetrics:
        """Metrics from the crawler's finished crawls (newest first) and its crawl in progress."""
        runtimes = [c.runtime_seconds for c in finished if c.runtime_seconds is not None]
        metrics = cls(crawler.name)
        if finished:
            last = finished[0]
            metrics.last_runtime_seconds = runtimes[0] if runtimes else 0.0
            metrics.tables_created = last.stats.tables_created
            metrics.tables_updated = last.stats.tables_updated
            metrics.tables_deleted = last.stats.tables_deleted
        if runtimes:
            metrics.median_runtime_seconds = float(statistics.median(runtimes))
        if crawler.state is not CrawlerState.READY and crawler.crawl_start is not None:
            elapsed = max(0.0, now - crawler.crawl_start)
            if runtimes and metrics.median_runtime_seconds > elapsed:
                metrics.time_left_seconds = metrics.median_runtime_seconds - elapsed
            else:
                # no history to estimate from, or already slower than usual
                metrics.still_estimating = True
        return metrics


@dataclass
class Classifier:
    """A custom classifier: ``spec`` is its Create*ClassifierRequest members minus Name."""

    name: str
    kind: ClassifierKind
    spec: Spec
    version: int = 1
    create_time: float = 0.0
    update_time: float = 0.0
