"""Log events: PutLogEvents, GetLogEvents, FilterLogEvents, and the lines runs write.

Events are kept in ``(timestamp, id)`` order per stream and per group. Reads are keyset pages over that
order, never a whole log in memory: GetLogEvents reads one page, FilterLogEvents scans in chunks and stops
after :data:`SCAN_BUDGET` events with a ``nextToken`` where it stopped, as CloudWatch Logs stops a search
that has read enough. Events older than a group's retention are never returned (and are deleted).

GetLogEvents' tokens are CloudWatch's shape, ``f/<56 digits>/s`` forward and ``b/<56 digits>/s`` backward:
at the end of a stream the forward token comes back unchanged, which is how clients know to stop (and how
``aws logs get-log-events`` pagination ends). PutLogEvents' sequence tokens are accepted and ignored, as
CloudWatch Logs has done since 2023 (it never answers InvalidSequenceTokenException or
DataAlreadyAcceptedException any more), and ``nextSequenceToken`` is still returned.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Select, and_, or_, select, tuple_
from sqlalchemy.orm import Session

from glueball.logs.errors import InvalidParameterException
from glueball.logs.filter_pattern import compile_pattern
from glueball.logs.groups import Clock, now_ms
from glueball.logs.models import (
    BATCH_BYTES,
    BATCH_SPAN_MS,
    DAY_MS,
    EVENT_BYTES,
    EVENT_OVERHEAD,
    TOO_NEW_MS,
    TOO_OLD_MS,
    LogEvent,
    Rejected,
)
from glueball.logs.store import decode_token, encode_token, group_row, stream_row
from glueball.store.engine import Store
from glueball.store.log_tables import LogEventRow, LogGroupRow, LogStreamRow
from glueball.store.scoped import Scope

DEFAULT_LIMIT = 10_000
RESPONSE_BYTES = 1_048_576
SCAN_BUDGET = 100_000
CHUNK = 1_000
STREAMED = 100
_TOKEN = re.compile(r"([fb])/(\d{20})(\d{20})\d{16}/s$")
Position = tuple[int, int]


@dataclass
class Page:
    events: list[LogEvent]
    forward: str
    backward: str


def _token(direction: str, position: Position) -> str:
    return f"{direction}/{position[0]:020d}{position[1]:020d}{0:016d}/s"


def _read_token(token: str) -> tuple[str, Position]:
    match = _TOKEN.match(token)
    if match is None:
        raise InvalidParameterException(f"The specified nextToken is invalid: {token[:64]!r}")
    return match.group(1), (int(match.group(2)), int(match.group(3)))


def _size(message: str) -> int:
    return len(message.encode("utf-8")) + EVENT_OVERHEAD


def _cutoff(group: LogGroupRow, now: int) -> int | None:
    return now - group.retention_days * DAY_MS if group.retention_days is not None else None


def insert_events(session: Session, group: LogGroupRow, stream: LogStreamRow,
                  events: list[tuple[int, str]], ingestion: int) -> None:
    """Add ``events`` (timestamp, message) to ``stream`` and keep the stream's and group's figures."""
    if not events:
        return
    session.execute(LogEventRow.__table__.insert(), [  # type: ignore[attr-defined]
        {"group_id": group.id, "stream_id": stream.id, "timestamp": stamp, "ingestion": ingestion,
         "message": message} for stamp, message in events])
    stamps = [stamp for stamp, _ in events]
    stream.first_event = min(stamps) if stream.first_event is None else min(stream.first_event, *stamps)
    stream.last_event = max(stamps) if stream.last_event is None else max(stream.last_event, *stamps)
    stream.last_ingestion = ingestion
    group.stored_bytes += sum(len(message) for _, message in events)


class LogEvents:
    """The events of one account and region's log groups."""

    def __init__(self, store: Store, scope: Scope, clock: Clock = time.time) -> None:
        self.store = store
        self.scope = scope
        self.clock = clock

    def put(self, group: str, stream: str, events: list[tuple[int, str]]) -> tuple[str, Rejected]:
        """PutLogEvents: the accepted events are stored; the next sequence token and what was rejected.

        Raises:
            InvalidParameterException: events out of order, a batch spanning over 24 hours, too large.
            ResourceNotFoundException: no such group or stream.
        """
        _check_batch(events)
        now = now_ms(self.clock)
        with self.store.write() as session:
            group_found = group_row(session, self.scope, group, lock=True)
            found = stream_row(session, group_found, stream, lock=True)
            cutoff = _cutoff(group_found, now)
            too_old_end = expired_end = too_new_start = None
            accepted = []
            for index, (stamp, message) in enumerate(events):
                if stamp > now + TOO_NEW_MS:
                    too_new_start = index if too_new_start is None else too_new_start
                elif cutoff is not None and stamp < cutoff:
                    expired_end = index
                elif stamp < now - TOO_OLD_MS:
                    too_old_end = index
                else:
                    accepted.append((stamp, message))
            insert_events(session, group_found, found, accepted, now)
            found.uploads += 1
            token = f"{found.uploads:056d}"
        return token, Rejected(too_new_start, too_old_end, expired_end)

    def get(self, group: str, stream: str, start: int | None = None, end: int | None = None,
            token: str | None = None, limit: int | None = None, from_head: bool = False) -> Page:
        """GetLogEvents: one page of a stream, oldest first, with the forward and backward tokens.

        Without a token the page is the stream's first events (``startFromHead``) or its last ones.

        Raises:
            InvalidParameterException: a token that is not one of GetLogEvents'.
            ResourceNotFoundException: no such group or stream.
        """
        direction, position = _read_token(token) if token is not None else ("f" if from_head else "b", None)
        size = limit or DEFAULT_LIMIT
        with self.store.read() as session:
            group_found = group_row(session, self.scope, group)
            found = stream_row(session, group_found, stream)
            query = select(LogEventRow).where(LogEventRow.stream_id == found.id)
            query = _in_time(query, start, end, _cutoff(group_found, now_ms(self.clock)), end_inclusive=False)
            key = tuple_(LogEventRow.timestamp, LogEventRow.id)
            if direction == "f":
                if position is not None:
                    query = query.where(key > tuple_(*position))
                query = query.order_by(LogEventRow.timestamp, LogEventRow.id)
            else:
                if position is not None:
                    query = query.where(key < tuple_(*position))
                query = query.order_by(LogEventRow.timestamp.desc(), LogEventRow.id.desc())
            rows = _bounded(session.scalars(query.limit(size).execution_options(yield_per=STREAMED)))
        if direction == "b":
            rows.reverse()
        events = [LogEvent(stream, row.timestamp, row.message, row.ingestion, row.id) for row in rows]
        if events:
            first, last = (events[0].timestamp, events[0].row_id), (events[-1].timestamp, events[-1].row_id)
            return Page(events, _token("f", last), _token("b", first))
        here = position or (0, 0)
        before = (here[0], max(0, here[1] - 1))
        forward = token if direction == "f" and token is not None else _token("f", before if direction == "b"
                                                                                 else here)
        return Page([], forward, _token("b", here))

    def filter(self, group: str, streams: list[str] | None = None, prefix: str | None = None,
               start: int | None = None, end: int | None = None, pattern: str | None = None,
               token: str | None = None, limit: int | None = None) -> tuple[list[LogEvent], str | None]:
        """FilterLogEvents: a group's matching events in time order (interleaved across streams).

        Raises:
            InvalidParameterException: stream names with a prefix, ``startTime`` after ``endTime``, a bad
                filter pattern or token.
            ResourceNotFoundException: no such group.
        """
        if streams is not None and prefix is not None:
            raise InvalidParameterException("logStreamNames and logStreamNamePrefix are mutually exclusive")
        if start is not None and end is not None and start > end:
            raise InvalidParameterException(f"startTime {start} is after endTime {end}")
        matches = compile_pattern(pattern)
        after = decode_token(token, "FilterLogEvents")
        if after is not None and not (isinstance(after, list) and len(after) == 2
                                      and all(type(value) is int for value in after)):
            raise InvalidParameterException("The specified nextToken is invalid.")
        size = limit or DEFAULT_LIMIT
        with self.store.read() as session:
            group_found = group_row(session, self.scope, group)
            cutoff = _cutoff(group_found, now_ms(self.clock))
            names = _stream_names(session, group_found, streams, prefix)
            if not names:
                return [], None
            found: list[LogEvent] = []
            scanned, answered = 0, 0
            position: Position | None = (after[0], after[1]) if after is not None else None
            for row, stream_name in _scan(session, group_found, set(names) if streams or prefix else None,
                                          start, end, cutoff, position):
                scanned += 1
                position = (row.timestamp, row.id)
                if stream_name in names and matches(row.message):
                    found.append(LogEvent(stream_name, row.timestamp, row.message, row.ingestion, row.id))
                    answered += _size(row.message)
                    if len(found) >= size or answered >= RESPONSE_BYTES:
                        return found, encode_token("FilterLogEvents", list(position))
                if scanned >= SCAN_BUDGET:
                    return found, encode_token("FilterLogEvents", list(position))
        return found, None


def _check_batch(events: list[tuple[int, str]]) -> None:
    total = 0
    for index, (stamp, message) in enumerate(events):
        if index and stamp < events[index - 1][0]:
            raise InvalidParameterException("Log events in a single PutLogEvents request must be in "
                                            "chronological order.")
        size = _size(message)
        if size - EVENT_OVERHEAD > EVENT_BYTES:
            raise InvalidParameterException(f"Log event {index} is {size - EVENT_OVERHEAD} bytes; an event is at "
                                            f"most {EVENT_BYTES} bytes")
        total += size
    if total > BATCH_BYTES:
        raise InvalidParameterException(f"Upload too large: {total} bytes exceeds limit of {BATCH_BYTES}")
    if events and events[-1][0] - events[0][0] > BATCH_SPAN_MS:
        raise InvalidParameterException("The batch of log events in a single PutLogEvents request cannot span "
                                        "more than 24 hours.")


def _bounded(rows: Any) -> list[LogEventRow]:
    """Rows until the response would pass 1 MB (the first always)."""
    out: list[LogEventRow] = []
    total = 0
    for row in rows:
        total += _size(row.message)
        if out and total > RESPONSE_BYTES:
            break
        out.append(row)
    return out


def _in_time(query: Select[Any], start: int | None, end: int | None, cutoff: int | None,
             end_inclusive: bool) -> Select[Any]:
    low = max(value for value in (start, cutoff) if value is not None) if start is not None or \
        cutoff is not None else None
    if low is not None:
        query = query.where(LogEventRow.timestamp >= low)
    if end is not None:
        query = query.where(LogEventRow.timestamp <= end if end_inclusive else LogEventRow.timestamp < end)
    return query


def _stream_names(session: Session, group: LogGroupRow, streams: list[str] | None,
                  prefix: str | None) -> dict[str, int]:
    query = select(LogStreamRow.name, LogStreamRow.id).where(LogStreamRow.group_id == group.id)
    if streams is not None:
        query = query.where(LogStreamRow.name.in_(streams))
    elif prefix is not None:
        query = query.where(LogStreamRow.name.startswith(prefix, autoescape=True))
    return {str(name): int(stream_id) for name, stream_id in session.execute(query)}


def _scan(session: Session, group: LogGroupRow, streams: set[str] | None, start: int | None, end: int | None,
          cutoff: int | None, after: Position | None) -> Iterator[tuple[LogEventRow, str]]:
    """The group's events after ``after`` in time order, read ``CHUNK`` at a time (keyset pages)."""
    while True:
        query: Any = select(LogEventRow, LogStreamRow.name).join(
            LogStreamRow, LogStreamRow.id == LogEventRow.stream_id).where(LogEventRow.group_id == group.id)
        if streams is not None:
            query = query.where(LogStreamRow.name.in_(streams))
        query = _in_time(query, start, end, cutoff, end_inclusive=True)
        if after is not None:
            query = query.where(or_(LogEventRow.timestamp > after[0],
                                    and_(LogEventRow.timestamp == after[0], LogEventRow.id > after[1])))
        count, last = 0, None
        # streamed a few rows at a time (a server-side cursor on PostgreSQL): messages may be large
        for row, name in session.execute(query.order_by(LogEventRow.timestamp, LogEventRow.id).limit(CHUNK)
                                         .execution_options(yield_per=STREAMED)):
            count, last = count + 1, row
            yield row, str(name)
        if count < CHUNK or last is None:
            return
        after = (last.timestamp, last.id)
