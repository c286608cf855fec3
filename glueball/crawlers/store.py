"""Rows and queries of crawlers, crawls and classifiers.

Crawler state changes are compare-and-swap: ``UPDATE ... WHERE id = :id AND
state = :expected``; zero rows means another request (or another server)
changed the state first, so two StartCrawler calls can never both win.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from glueball.crawlers.models import (
    Classifier,
    ClassifierKind,
    Crawl,
    Crawler,
    CrawlerState,
    CrawlState,
    CrawlStats,
    LastCrawl,
    Schedule,
    ScheduleState,
    can_transition,
)
from glueball.errors import EntityNotFoundException
from glueball.store.schema import ClassifierRow, CrawlerRow, CrawlRow
from glueball.store.scoped import Scope, find_scoped, scoped_query


def crawler_query(scope: Scope) -> Any:
    return scoped_query(CrawlerRow, scope)


def find_crawler_row(session: Session, scope: Scope, name: str, for_update: bool = False) -> CrawlerRow | None:
    return find_scoped(session, CrawlerRow, scope, name, for_update)


def crawler_row(session: Session, scope: Scope, name: str, for_update: bool = False) -> CrawlerRow:
    """The crawler called ``name``.

    Raises:
        EntityNotFoundException: there is none.
    """
    row = find_crawler_row(session, scope, name, for_update)
    if row is None:
        raise EntityNotFoundException(f"Crawler entry with name {name} does not exist")
    return row


def crawler_exists(session: Session, scope: Scope, name: str) -> bool:
    return find_crawler_row(session, scope, name) is not None


def to_crawler(row: CrawlerRow) -> Crawler:
    schedule = None
    if row.schedule:
        schedule = Schedule(row.schedule, ScheduleState(row.schedule_state or ScheduleState.NOT_SCHEDULED))
    return Crawler(
        name=row.name,
        spec=dict(row.spec),
        state=CrawlerState(row.state),
        schedule=schedule,
        version=row.version,
        create_time=row.create_time,
        update_time=row.update_time,
        crawl_start=row.crawl_start,
        last_crawl=LastCrawl.from_json(row.last_crawl) if row.last_crawl else None,
    )


def compare_and_swap(session: Session, row_id: int, expected: CrawlerState, target: CrawlerState,
                     **values: Any) -> bool:
    """Move a crawler from ``expected`` to ``target`` if it is still in ``expected``; True if it moved.

    Raises:
        ValueError: the transition is not in the crawler state machine (a bug, never a client error).
    """
    if not can_transition(expected, target):
        raise ValueError(f"crawler state {expected} cannot become {target}")
    statement = (
        update(CrawlerRow)
        .where(CrawlerRow.id == row_id, CrawlerRow.state == expected.value)
        .values(state=target.value, **values)
        .execution_options(synchronize_session=False)
    )
    moved: int = session.execute(statement).rowcount  # type: ignore[attr-defined]
    return moved == 1


def to_crawl(row: CrawlRow, crawler_name: str) -> Crawl:
    return Crawl(
        crawl_id=row.crawl_id,
        crawler_name=crawler_name,
        state=CrawlState(row.state),
        start_time=row.start_time,
        end_time=row.end_time,
        error_message=row.error_message,
        stats=CrawlStats.from_json(row.stats),
    )


def crawl_row(session: Session, crawl_id: str) -> CrawlRow | None:
    row: CrawlRow | None = session.scalars(select(CrawlRow).where(CrawlRow.crawl_id == crawl_id)).one_or_none()
    return row


def finished_crawls(session: Session, crawler: CrawlerRow, limit: int = 100) -> list[Crawl]:
    """The crawler's ended crawls, newest first."""
    query = (
        select(CrawlRow)
        .where(CrawlRow.crawler_id == crawler.id, CrawlRow.state != CrawlState.RUNNING.value)
        .order_by(CrawlRow.start_time.desc(), CrawlRow.id.desc())
        .limit(limit)
    )
    return [to_crawl(row, crawler.name) for row in session.scalars(query)]


def classifier_query(scope: Scope) -> Any:
    return scoped_query(ClassifierRow, scope)


def find_classifier_row(session: Session, scope: Scope, name: str,
                        for_update: bool = False) -> ClassifierRow | None:
    return find_scoped(session, ClassifierRow, scope, name, for_update)


def classifier_row(session: Session, scope: Scope, name: str, for_update: bool = False) -> ClassifierRow:
    """The classifier called ``name``.

    Raises:
        EntityNotFoundException: there is none.
    """
    row = find_classifier_row(session, scope, name, for_update)
    if row is None:
        raise EntityNotFoundException(f"Classifier with name {name} does not exist")
    return row


def to_classifier(row: ClassifierRow) -> Classifier:
    return Classifier(name=row.name, kind=ClassifierKind(row.kind), spec=dict(row.spec), version=row.version,
                      create_time=row.create_time, update_time=row.update_time)
