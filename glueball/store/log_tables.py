"""CloudWatch Logs' and CloudWatch metrics' tables (glueball.logs).

Log groups and streams are named per account and region; events are rows ordered by
``(timestamp, id)`` within a stream (GetLogEvents) and within a group (FilterLogEvents, interleaved).
A run's log file is a *source*: the byte position up to which its lines are events, moved by
compare-and-swap in the transaction that inserts them, so every line becomes one event exactly once,
whichever server process reads it and however often the server restarts.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import BigInteger, Boolean, Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from glueball.store.schema import Base, Json

# SQLite gives rowid primary keys only to INTEGER columns; PostgreSQL's events need 64 bits
EventId = BigInteger().with_variant(Integer(), "sqlite")


class LogGroupRow(Base):
    """A log group (CloudWatch Logs' ``LogGroup``); times are epoch milliseconds, as the API counts them."""

    __tablename__ = "logs_group"
    __table_args__ = (UniqueConstraint("account_id", "region", "name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[str] = mapped_column(String(12))
    region: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(512))
    created: Mapped[int] = mapped_column(BigInteger)
    retention_days: Mapped[int | None] = mapped_column(Integer, nullable=True)
    kms_key_id: Mapped[str | None] = mapped_column(String(256), nullable=True)
    log_group_class: Mapped[str] = mapped_column(String(32))
    deletion_protection: Mapped[bool] = mapped_column(Boolean, default=False)
    tags: Mapped[dict[str, Any]] = mapped_column(Json)
    stored_bytes: Mapped[int] = mapped_column(BigInteger, default=0)


class LogStreamRow(Base):
    """A log stream of a group."""

    __tablename__ = "logs_stream"
    __table_args__ = (UniqueConstraint("group_id", "name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    group_id: Mapped[int] = mapped_column(ForeignKey("logs_group.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(512))
    created: Mapped[int] = mapped_column(BigInteger)
    first_event: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    last_event: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    last_ingestion: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    uploads: Mapped[int] = mapped_column(BigInteger, default=0)


class LogEventRow(Base):
    """One log event; ``id`` orders events of equal timestamp in the order they were accepted."""

    __tablename__ = "logs_event"
    __table_args__ = (
        Index("ix_logs_event_stream_time", "stream_id", "timestamp", "id"),
        Index("ix_logs_event_group_time", "group_id", "timestamp", "id"),
    )

    id: Mapped[int] = mapped_column(EventId, primary_key=True, autoincrement=True)
    group_id: Mapped[int] = mapped_column(ForeignKey("logs_group.id", ondelete="CASCADE"))
    stream_id: Mapped[int] = mapped_column(ForeignKey("logs_stream.id", ondelete="CASCADE"))
    timestamp: Mapped[int] = mapped_column(BigInteger)
    ingestion: Mapped[int] = mapped_column(BigInteger)
    message: Mapped[str] = mapped_column(Text)


class LogSourceRow(Base):
    """A file whose lines become the events of one stream (a run's output or error log, a crawl's log), or
    whose records become metric data (a run's event log, its streaming batch metrics)."""

    __tablename__ = "logs_source"
    __table_args__ = (UniqueConstraint("path", "kind", "group_name"), Index("ix_logs_source_open", "sealed"))

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[str] = mapped_column(String(12))
    region: Mapped[str] = mapped_column(String(64))
    # "lines" (log events), "batches" (streaming batch metrics), "events" (a Spark event log's metrics)
    kind: Mapped[str] = mapped_column(String(16))
    group_name: Mapped[str] = mapped_column(String(512))
    stream_name: Mapped[str] = mapped_column(String(512))
    path: Mapped[str] = mapped_column(Text)
    # what the metrics of this source are about (JobName), for metric sources
    subject: Mapped[str] = mapped_column(String(255), default="")
    position: Mapped[int] = mapped_column(BigInteger, default=0)
    sealed: Mapped[bool] = mapped_column(Boolean, default=False)


class MetricDatumRow(Base):
    """One CloudWatch data point (a value or a statistic set) of a metric: namespace, name and dimensions."""

    __tablename__ = "metric_datum"
    __table_args__ = (
        Index("ix_metric_datum_metric", "account_id", "region", "namespace", "metric_name", "timestamp"),
    )

    id: Mapped[int] = mapped_column(EventId, primary_key=True, autoincrement=True)
    account_id: Mapped[str] = mapped_column(String(12))
    region: Mapped[str] = mapped_column(String(64))
    namespace: Mapped[str] = mapped_column(String(255))
    metric_name: Mapped[str] = mapped_column(String(255))
    # the dimensions as canonical JSON: [[name, value], ...] sorted by name
    dimensions: Mapped[str] = mapped_column(Text)
    timestamp: Mapped[float] = mapped_column(Float)
    unit: Mapped[str] = mapped_column(String(32))
    sample_count: Mapped[float] = mapped_column(Float)
    sum: Mapped[float] = mapped_column(Float)
    minimum: Mapped[float] = mapped_column(Float)
    maximum: Mapped[float] = mapped_column(Float)
    storage_resolution: Mapped[int] = mapped_column(Integer, default=60)
