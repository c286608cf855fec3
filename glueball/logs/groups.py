"""Log groups and log streams: create, describe (prefixes, ordering, pages), delete, retention, tags.

Behaviour mirrors CloudWatch Logs: group and stream names are unique (``ResourceAlreadyExistsException:
The specified log group already exists``), DescribeLogGroups lists by name, DescribeLogStreams by name or
by last event time (not with a name prefix), a retention policy keeps events for that many days (older
events are deleted at once and refused afterwards), a group with deletion protection cannot be deleted.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from glueball.logs.errors import (
    InvalidParameterException,
    LogsValidationException,
    ResourceAlreadyExistsException,
    TooManyTagsException,
)
from glueball.logs.models import DAY_MS, MAX_TAGS, RETENTION_DAYS, LogGroup, LogStream
from glueball.logs.store import changed, decode_token, encode_token, group_of_identifier, group_row, stream_row
from glueball.store.engine import Store
from glueball.store.log_tables import LogEventRow, LogGroupRow, LogStreamRow
from glueball.store.scoped import Scope

Clock = Callable[[], float]


def now_ms(clock: Clock = time.time) -> int:
    return int(clock() * 1000)


def _group(row: LogGroupRow) -> LogGroup:
    return LogGroup(row.name, row.created, row.retention_days, row.kms_key_id, row.log_group_class,
                    row.deletion_protection, row.stored_bytes, dict(row.tags or {}))


def _stream(row: LogStreamRow) -> LogStream:
    return LogStream(row.name, row.created, row.first_event, row.last_event, row.last_ingestion, row.uploads)


class LogGroups:
    """The log groups and streams of one account and region."""

    def __init__(self, store: Store, scope: Scope, clock: Clock = time.time) -> None:
        self.store = store
        self.scope = scope
        self.clock = clock

    # -- groups

    def create_group(self, name: str, tags: dict[str, str] | None = None, kms_key_id: str | None = None,
                     log_group_class: str | None = None, deletion_protection: bool = False) -> None:
        """CreateLogGroup.

        Raises:
            ResourceAlreadyExistsException: the group exists.
        """
        try:
            with self.store.write() as session:
                session.add(LogGroupRow(account_id=self.scope.account_id, region=self.scope.region, name=name,
                                        created=now_ms(self.clock), kms_key_id=kms_key_id,
                                        log_group_class=log_group_class or "STANDARD",
                                        deletion_protection=deletion_protection, tags=dict(tags or {}),
                                        stored_bytes=0))
        except IntegrityError as exc:
            raise ResourceAlreadyExistsException("The specified log group already exists") from exc

    def ensure_stream(self, session: Session, group: str, stream: str) -> tuple[LogGroupRow, LogStreamRow]:
        """The group and stream a run writes to, created as Glue creates them on first write."""
        found = session.scalars(select(LogGroupRow).where(
            LogGroupRow.account_id == self.scope.account_id, LogGroupRow.region == self.scope.region,
            LogGroupRow.name == group)).one_or_none()
        if found is None:
            found = LogGroupRow(account_id=self.scope.account_id, region=self.scope.region, name=group,
                                created=now_ms(self.clock), log_group_class="STANDARD", deletion_protection=False,
                                tags={}, stored_bytes=0)
            session.add(found)
            session.flush()
        row = session.scalars(select(LogStreamRow).where(LogStreamRow.group_id == found.id,
                                                         LogStreamRow.name == stream)).one_or_none()
        if row is None:
            row = LogStreamRow(group_id=found.id, name=stream, created=now_ms(self.clock), uploads=0)
            session.add(row)
            session.flush()
        return found, row

    def delete_group(self, name: str) -> None:
        """DeleteLogGroup: the group, its streams and events.

        Raises:
            ResourceNotFoundException: no such group. LogsValidationException: it has deletion protection.
        """
        with self.store.write() as session:
            row = group_row(session, self.scope, name, lock=True)
            if row.deletion_protection:
                raise LogsValidationException(f"Log group {name} has deletion protection enabled; disable it "
                                              "with PutLogGroupDeletionProtection first")
            session.execute(delete(LogEventRow).where(LogEventRow.group_id == row.id))
            session.execute(delete(LogStreamRow).where(LogStreamRow.group_id == row.id))
            session.delete(row)

    def group(self, name: str) -> LogGroup:
        with self.store.read() as session:
            return _group(group_row(session, self.scope, name))

    def describe_groups(self, prefix: str | None = None, pattern: str | None = None,
                        identifiers: list[str] | None = None, log_group_class: str | None = None,
                        limit: int | None = None, token: str | None = None) -> tuple[list[LogGroup], str | None]:
        """DescribeLogGroups: by name, from the token's position, at most ``limit`` (50).

        Raises:
            InvalidParameterException: more than one of prefix, pattern and identifiers; a bad token.
        """
        if sum(value is not None for value in (prefix, pattern, identifiers)) > 1:
            raise InvalidParameterException("logGroupNamePrefix, logGroupNamePattern and logGroupIdentifiers "
                                            "are mutually exclusive")
        after = decode_token(token, "DescribeLogGroups")
        query = select(LogGroupRow).where(LogGroupRow.account_id == self.scope.account_id,
                                          LogGroupRow.region == self.scope.region).order_by(LogGroupRow.name)
        if prefix is not None:
            query = query.where(LogGroupRow.name.startswith(prefix, autoescape=True))
        if identifiers is not None:
            query = query.where(LogGroupRow.name.in_([group_of_identifier(self.scope, i) for i in identifiers]))
        if pattern:
            query = query.where(func.lower(LogGroupRow.name).contains(pattern.lower(), autoescape=True))
        if log_group_class is not None:
            query = query.where(LogGroupRow.log_group_class == log_group_class)
        if after is not None:
            query = query.where(LogGroupRow.name > str(after))
        size = limit or 50
        with self.store.read() as session:
            rows = list(session.scalars(query.limit(size + 1)))
        more = len(rows) > size
        rows = rows[:size]
        return [_group(row) for row in rows], encode_token("DescribeLogGroups", rows[-1].name) if more else None

    def put_retention(self, name: str, days: int) -> None:
        """PutRetentionPolicy: events older than ``days`` are deleted now and refused from now on.

        Raises:
            InvalidParameterException: ``days`` is not one of CloudWatch Logs' values.
            ResourceNotFoundException: no such group.
        """
        if days not in RETENTION_DAYS:
            raise InvalidParameterException(
                f"1 validation error detected: Value '{days}' at 'retentionInDays' failed to satisfy constraint: "
                f"Member must satisfy enum value set: [{', '.join(str(d) for d in RETENTION_DAYS)}]")
        with self.store.write() as session:
            row = group_row(session, self.scope, name, lock=True)
            row.retention_days = days
            purge_group(session, row, now_ms(self.clock))

    def delete_retention(self, name: str) -> None:
        with self.store.write() as session:
            group_row(session, self.scope, name, lock=True).retention_days = None

    # -- streams

    def create_stream(self, group: str, name: str) -> None:
        """CreateLogStream.

        Raises:
            ResourceNotFoundException: no such group. ResourceAlreadyExistsException: the stream exists.
        """
        try:
            with self.store.write() as session:
                row = group_row(session, self.scope, group)
                session.add(LogStreamRow(group_id=row.id, name=name, created=now_ms(self.clock), uploads=0))
        except IntegrityError as exc:
            raise ResourceAlreadyExistsException("The specified log stream already exists") from exc

    def delete_stream(self, group: str, name: str) -> None:
        with self.store.write() as session:
            group_found = group_row(session, self.scope, group, lock=True)
            row = stream_row(session, group_found, name)
            removed = session.scalar(select(func.coalesce(func.sum(func.length(LogEventRow.message)), 0)).where(
                LogEventRow.stream_id == row.id)) or 0
            session.execute(delete(LogEventRow).where(LogEventRow.stream_id == row.id))
            group_found.stored_bytes = max(0, group_found.stored_bytes - int(removed))
            session.delete(row)

    def describe_streams(self, group: str, prefix: str | None = None, order_by: str | None = None,
                         descending: bool = False, limit: int | None = None,
                         token: str | None = None) -> tuple[list[LogStream], str | None]:
        """DescribeLogStreams: by name (default) or by last event time, ascending or descending.

        Raises:
            InvalidParameterException: a prefix with ``orderBy=LastEventTime``; a bad token.
            ResourceNotFoundException: no such group.
        """
        by_time = order_by == "LastEventTime"
        if by_time and prefix is not None:
            raise InvalidParameterException("Cannot order by LastEventTime with a logStreamNamePrefix.")
        after = decode_token(token, "DescribeLogStreams")
        size = limit or 50
        with self.store.read() as session:
            found = group_row(session, self.scope, group)
            query = select(LogStreamRow).where(LogStreamRow.group_id == found.id)
            if prefix is not None:
                query = query.where(LogStreamRow.name.startswith(prefix, autoescape=True))
            # streams without events count as time 0, so every stream has a place in the order
            when = func.coalesce(LogStreamRow.last_event, 0)
            keys: list[Any] = [when, LogStreamRow.name] if by_time else [LogStreamRow.name]
            if after is not None:
                query = query.where(_beyond(keys, after, descending))
            query = query.order_by(*(key.desc() if descending else key for key in keys))
            rows = list(session.scalars(query.limit(size + 1)))
        more = len(rows) > size
        rows = rows[:size]
        position: list[Any] = ([rows[-1].last_event or 0, rows[-1].name] if by_time else [rows[-1].name]) \
            if rows else []
        return [_stream(row) for row in rows], encode_token("DescribeLogStreams", position) if more else None

    # -- tags

    def tag(self, group: str, tags: dict[str, str], by_arn: bool = False) -> None:
        """TagLogGroup / TagResource: add or replace tags (at most 50 in all).

        Raises:
            TooManyTagsException (TagResource) / InvalidParameterException (TagLogGroup): over 50 tags.
        """
        with self.store.write() as session:
            row = group_row(session, self.scope, group, lock=True)
            merged = {**(row.tags or {}), **tags}
            if len(merged) > MAX_TAGS:
                error = TooManyTagsException if by_arn else InvalidParameterException
                raise error(f"A log group can have at most {MAX_TAGS} tags; it would have {len(merged)}")
            row.tags = merged

    def untag(self, group: str, keys: list[str]) -> None:
        with self.store.write() as session:
            row = group_row(session, self.scope, group, lock=True)
            row.tags = {key: value for key, value in (row.tags or {}).items() if key not in keys}

    def tags(self, group: str) -> dict[str, str]:
        return self.group(group).tags


def _beyond(keys: list[Any], position: Any, descending: bool) -> Any:
    """Rows after ``position`` (a list of key values) in the listing's order."""
    if not isinstance(position, list) or len(position) != len(keys):
        raise InvalidParameterException("The specified nextToken is invalid.")
    if len(keys) == 1:
        return keys[0] < position[0] if descending else keys[0] > position[0]
    first, second = keys
    if descending:
        return (first < position[0]) | ((first == position[0]) & (second < position[1]))
    return (first > position[0]) | ((first == position[0]) & (second > position[1]))


def purge_group(session: Session, row: LogGroupRow, now: int) -> int:
    """Delete the events of ``row`` its retention no longer keeps; the number deleted."""
    if row.retention_days is None:
        return 0
    cutoff = now - row.retention_days * DAY_MS
    old = LogEventRow.group_id == row.id, LogEventRow.timestamp < cutoff
    removed = session.scalar(select(func.coalesce(func.sum(func.length(LogEventRow.message)), 0)).where(*old)) or 0
    count = changed(session.execute(delete(LogEventRow).where(*old)))
    row.stored_bytes = max(0, row.stored_bytes - int(removed))
    if count:
        session.execute(update(LogStreamRow).where(LogStreamRow.group_id == row.id,
                                                   LogStreamRow.first_event < cutoff).values(first_event=None))
    return count


def purge_expired(store: Store, clock: Clock = time.time) -> int:
    """Apply every group's retention (the background pass); the number of events deleted."""
    deleted = 0
    with store.read() as session:
        ids = list(session.scalars(select(LogGroupRow.id).where(LogGroupRow.retention_days.is_not(None))))
    for group_id in ids:
        with store.write() as session:
            row = session.get(LogGroupRow, group_id)
            if row is not None:
                deleted += purge_group(session, row, now_ms(clock))
    return deleted
