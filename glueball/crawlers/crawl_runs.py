"""Running crawls: background threads of the server, or synchronously for ``glueball crawl``.

StartCrawler moves the crawler READY -> RUNNING (compare-and-swap) and hands the
crawl to a daemon thread, so the request returns at once. The thread calls the
crawl engine (``glueball.crawlers.crawl_engine.run_crawl``) with an in-process Glue
client of the caller's account and region, so the engine writes the catalog of
that account. When the engine returns, raises ``CrawlStopped`` (after
StopCrawler) or fails, the crawl's end is recorded: ``LastCrawl`` SUCCEEDED,
CANCELLED or FAILED, the crawl history row, its statistics, the engine's state
for the next incremental crawl, and the crawler is READY again.

Each crawl writes its log to ``$GLUEBALL_HOME/logs/crawlers/<crawler>/<crawl id>.log``
(Glue's LogGroup ``/aws-glue/crawlers``, LogStream the crawler name,
MessagePrefix the crawl id). A process records itself (host, pid, boot id) and
a heartbeat on the crawls it runs, and writes how a crawl ended to its outcome
record (``logs/crawl-outcomes/<crawler>/<crawl id>.json``, :mod:`glueball.supervise.outcome`)
before the store; at start-up, crawls whose process is gone are reconciled to
READY with the last crawl their record says (a process that died between the two),
else FAILED ("server restarted during the crawl").
"""

from __future__ import annotations

import datetime as dt
import importlib
import logging
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO
from urllib.parse import quote

from sqlalchemy import select

from glueball.crawlers.models import LOG_GROUP, CrawlerState, CrawlStats, LastCrawlStatus, Spec
from glueball.crawlers.service import CrawlerService, CrawlStart, beat
from glueball.store.schema import CrawlerRow
from glueball.store.scoped import Scope
from glueball.supervise import outcome
from glueball.supervise.process import is_orphan
from glueball.supervise.supervisor import Supervisor

if TYPE_CHECKING:
    from glueball.config import Settings
    from glueball.store.engine import Store

# a Glue client answered by the installation the crawl runs in, acting for the crawl:
# (scope, the starting caller's access key, the crawler's role, the crawl id) -> boto3 client
GlueClientFactory = Callable[[Scope, str | None, str, str], Any]

log = logging.getLogger("glueball.crawlers")

Progress = Callable[[str, int, int], None]
RESTARTED_MESSAGE = "server restarted during the crawl"
STOP_POLL_SECONDS = 0.5


@dataclass
class EngineHook:
    """A stand-in crawl engine for unit-level tests: ``run_crawl`` and the exception that means "stopped"."""

    run_crawl: Callable[..., Any]
    stopped: type[BaseException]


ENGINE_HOOK: EngineHook | None = None


def _engine() -> EngineHook:
    if ENGINE_HOOK is not None:
        return ENGINE_HOOK
    engine = importlib.import_module("glueball.crawlers.crawl_engine")
    return EngineHook(engine.run_crawl, engine.CrawlStopped)


def log_path(home: Path, crawler_name: str, crawl_id: str) -> Path:
    """Where a crawl's log lives: ``logs/crawlers/<crawler name, %-quoted>/<crawl id>.log``."""
    return home / "logs" / "crawlers" / quote(crawler_name, safe="") / f"{crawl_id}.log"


@dataclass
class CrawlResult:
    """How a crawl ended."""

    crawl_id: str
    status: LastCrawlStatus
    stats: CrawlStats = field(default_factory=CrawlStats)
    error: str | None = None
    log_file: Path | None = None


class _CrawlLog:
    def __init__(self, path: Path, crawl_id: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.crawl_id = crawl_id
        self._file: TextIO = path.open("a", encoding="utf-8")
        self._lock = threading.Lock()

    def __call__(self, message: str) -> None:
        stamp = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        with self._lock:
            for line in str(message).splitlines() or [""]:
                self._file.write(f"{stamp} [{self.crawl_id}] {line}\n")
            self._file.flush()

    def close(self) -> None:
        self._file.close()


class CrawlRunner:
    """The crawls of one process: starts them, stops them, keeps their heartbeat."""

    def __init__(self, store: Store, settings: Settings, client: GlueClientFactory,
                 on_end: Callable[[], None]) -> None:
        self.store = store
        self.settings = settings
        self.client = client
        self.on_end = on_end
        self.supervisor = Supervisor("crawl", lambda crawls: beat(store, crawls))
        self.identity = self.supervisor.identity
        self._names: dict[tuple[Scope, str], str] = {}
        self._lock = threading.Lock()

    # -- entry points

    def start(self, scope: Scope, access_key: str | None, name: str, workflow_run_id: str | None = None,
              fire_id: int | None = None) -> str:
        """StartCrawler: RUNNING now, crawling in a background thread; returns the crawl id.

        A trigger starts crawls with the workflow run's id and the fire's.

        Raises:
            EntityNotFoundException: no such crawler.
            CrawlerRunningException: it is already running or stopping.
        """
        begun = CrawlerService(self.store, scope).begin_crawl(name, self.identity, access_key,
                                                                  workflow_run_id, fire_id)
        self._track(scope, begun)
        thread = threading.Thread(target=self._run_in_background, args=(scope, access_key, begun),
                                  name=f"crawl-{name}", daemon=True)
        thread.start()
        return begun.crawl_id

    def run(self, scope: Scope, access_key: str | None, name: str, progress: Progress | None = None) -> CrawlResult:
        """Crawl synchronously (``glueball crawl``): the same transitions, history and log as a server crawl.

        Raises:
            EntityNotFoundException: no such crawler.
            CrawlerRunningException: it is already running or stopping.
        """
        begun = CrawlerService(self.store, scope).begin_crawl(name, self.identity, access_key)
        self._track(scope, begun)
        return self._execute(scope, access_key, begun, progress)

    def signal_stop(self, scope: Scope, name: str) -> None:
        """After StopCrawler: wake a crawl of this process at once (others notice through the store)."""
        with self._lock:
            crawl_id = self._names.get((scope, name))
        if crawl_id is not None:
            self.supervisor.stop(crawl_id)

    def active(self) -> list[str]:
        return self.supervisor.active()

    def close(self) -> None:
        self.supervisor.close()

    # -- internals

    def _track(self, scope: Scope, begun: CrawlStart) -> None:
        with self._lock:
            self._names[(scope, begun.crawler.name)] = begun.crawl_id
        self.supervisor.track(begun.crawl_id)

    def _untrack(self, scope: Scope, begun: CrawlStart) -> None:
        with self._lock:
            if self._names.get((scope, begun.crawler.name)) == begun.crawl_id:
                del self._names[(scope, begun.crawler.name)]
        self.supervisor.untrack(begun.crawl_id)

    def _run_in_background(self, scope: Scope, access_key: str | None, begun: CrawlStart) -> None:
        try:
            self._execute(scope, access_key, begun, None)
        except Exception:
            log.exception("crawl %s of crawler %s could not be recorded", begun.crawl_id, begun.crawler.name)

    def _should_stop(self, service: CrawlerService, crawl_id: str) -> Callable[[], bool]:
        event = self.supervisor.track(crawl_id)
        checked = [0.0]

        def should_stop() -> bool:
            if event.is_set():
                return True
            moment = time.monotonic()
            if moment - checked[0] >= STOP_POLL_SECONDS:
                checked[0] = moment
                if service.stop_requested(crawl_id):
                    event.set()
            return event.is_set()

        return should_stop

    def _execute(self, scope: Scope, access_key: str | None, begun: CrawlStart,
                 progress: Progress | None) -> CrawlResult:
        name, crawl_id = begun.crawler.name, begun.crawl_id
        service = CrawlerService(self.store, scope)
        path = log_path(self.settings.home, name, crawl_id)
        crawl_log = _CrawlLog(path, crawl_id)
        result = CrawlResult(crawl_id, LastCrawlStatus.FAILED, log_file=path)
        state: dict[str, Any] | None = None
        try:
            crawl_log(f"Crawler {name}: crawl {crawl_id} started (log group {LOG_GROUP}, log stream {name})")
            engine = _engine()
            glue = self.client(scope, access_key, str(begun.crawler.spec.get("Role") or ""), crawl_id)
            crawler = glue.get_crawler(Name=name)["Crawler"]
            classifiers = []
            for classifier_name in crawler.get("Classifiers") or []:
                try:
                    classifiers.append(glue.get_classifier(Name=classifier_name)["Classifier"])
                except Exception:  # deleted since the crawler was defined: crawl without it, as logged
                    crawl_log(f"Classifier {classifier_name} no longer exists; crawling without it")

            def report(stage: str, done: int, total: int) -> None:
                if progress is not None:
                    progress(stage, done, total)

            try:
                outcome = engine.run_crawl(crawler=crawler, classifiers=classifiers, glue=glue,
                                           previous_state=begun.previous_state, progress=report,
                                           should_stop=self._should_stop(service, crawl_id), log=crawl_log,
                                           object_store=self.settings.object_store)
            except engine.stopped:
                result.status = LastCrawlStatus.CANCELLED
                crawl_log(f"Crawler {name}: crawl stopped by StopCrawler")
            else:
                result.status = LastCrawlStatus.SUCCEEDED
                result.stats = CrawlStats(
                    outcome.tables_created, outcome.tables_updated, outcome.tables_deleted,
                    outcome.partitions_created, outcome.partitions_updated, outcome.partitions_deleted)
                state = outcome.state
                crawl_log(f"Crawler {name}: crawl completed: {result.stats.to_json()}")
        except KeyboardInterrupt:
            result.status = LastCrawlStatus.CANCELLED  # Ctrl-C on ``glueball crawl``
            crawl_log(f"Crawler {name}: crawl interrupted")
            raise
        except Exception as exc:
            result.status = LastCrawlStatus.FAILED
            result.error = (str(exc) or type(exc).__name__)[:2048]
            crawl_log(f"Crawler {name}: crawl failed: {type(exc).__name__}: {exc}\n{traceback.format_exc()}")
            log.info("crawl %s of crawler %s failed: %s", crawl_id, name, result.error)
        finally:
            try:
                try:
                    _record(outcome_path(self.settings.home, name, crawl_id), result, state)
                    service.finish_crawl(crawl_id, result.status, result.error, result.stats, state)
                except Exception as exc:  # e.g. an engine state that cannot be stored: still end the crawl
                    log.exception("recording crawl %s of crawler %s failed", crawl_id, name)
                    result.status, result.error = LastCrawlStatus.FAILED, f"could not record the crawl: {exc}"
                    service.finish_crawl(crawl_id, result.status, result.error[:2048], result.stats, None)
            finally:
                self._untrack(scope, begun)
                crawl_log.close()
                self.on_end()
        return result


@dataclass(frozen=True)
class RecordedCrawl:
    """How a crawl ended as the process running it recorded it (its outcome record), before the store heard it."""

    status: LastCrawlStatus
    error: str | None
    stats: CrawlStats
    state: Spec | None


def abandon_orphans(store: Store, is_orphan: Callable[[str | None, float | None], bool], message: str,
                    recorded: Callable[[str, str], RecordedCrawl | None]) -> list[str]:
    """Make crawlers whose crawl's process is gone READY; return their names.

    ``is_orphan(runner, heartbeat)`` decides, from the process identity and heartbeat a crawl recorded, whether
    nobody runs it any more. Its crawl ends as ``recorded(crawler name, crawl id)`` says when the process recorded
    its end before it died, else FAILED with ``message``.
    """
    abandoned: list[str] = []
    with store.read() as session:
        rows = list(session.scalars(select(CrawlerRow).where(
            CrawlerRow.state.in_([CrawlerState.RUNNING.value, CrawlerState.STOPPING.value]))))
    for row in rows:
        if not is_orphan(row.runner, row.heartbeat):
            continue
        service = CrawlerService(store, Scope(row.account_id, row.region))
        if row.current_crawl is not None:
            end = recorded(row.name, row.current_crawl) or RecordedCrawl(LastCrawlStatus.FAILED, message,
                                                                           CrawlStats(), None)
            done = service.finish_crawl(row.current_crawl, end.status, end.error, end.stats, end.state)
        else:
            done = service.abandon_unrecorded(row.id, row.state, message)
        if done:
            abandoned.append(row.name)
    return abandoned


def outcome_path(home: Path, crawler_name: str, crawl_id: str) -> Path:
    """A crawl's outcome record: ``logs/crawl-outcomes/<crawler name, %-quoted>/<crawl id>.json``."""
    return home / "logs" / "crawl-outcomes" / quote(crawler_name, safe="") / f"{crawl_id}.json"


def _record(record: Path, result: CrawlResult, state: dict[str, Any] | None) -> None:
    """How the crawl ended, durably, before the store hears it: a process that dies between the two is settled
    from it (:func:`reconcile`)."""
    outcome.record(record.parent, result.status.value, result.error, record.name, stats=result.stats.to_json(),
                   state=state)


def recorded_end(home: Path, crawler_name: str, crawl_id: str) -> RecordedCrawl | None:
    """How a crawl ended as its process recorded it before it died, or None."""
    record = outcome_path(home, crawler_name, crawl_id)
    found = outcome.read(record.parent, record.name)
    if found is None or found.status is None or found.status not in LastCrawlStatus.__members__:
        return None
    state = found.details.get("state")
    return RecordedCrawl(LastCrawlStatus(found.status), found.message,
                         CrawlStats.from_json(found.details.get("stats")), state if isinstance(state, dict) else None)


def reconcile(store: Store, home: Path) -> list[str]:
    """At start-up: crawlers left RUNNING/STOPPING by a process that died become READY, their crawl ended as its
    outcome record says (it finished, but the store did not hear it), else FAILED."""
    abandoned = abandon_orphans(store, is_orphan, RESTARTED_MESSAGE, lambda name, crawl: recorded_end(home, name,
                                                                                                    crawl))
    if abandoned:
        log.warning("crawlers left running by a stopped process are READY again: %s", ", ".join(abandoned))
    return abandoned
