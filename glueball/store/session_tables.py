"""The interactive sessions tables: a session (its request, state and driver) and its statements.

A session's ``state`` and a statement's ``state`` change only by compare-and-swap
(``UPDATE ... WHERE state = :expected``), as job runs' do, so any server process of an
installation may act on them and a restarted server can reconcile what it finds.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import BigInteger, Boolean, Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from glueball.store.schema import Base, Json


class GlueSessionRow(Base):
    """One interactive session (Glue's ``Session``), with the driver that runs its statements."""

    __tablename__ = "glue_session"
    __table_args__ = (
        UniqueConstraint("account_id", "region", "session_id"),
        Index("ix_glue_session_state", "state"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[str] = mapped_column(String(12))
    region: Mapped[str] = mapped_column(String(64))
    session_id: Mapped[str] = mapped_column(String(255))
    state: Mapped[str] = mapped_column(String(16))
    created_on: Mapped[float] = mapped_column(Float)
    completed_on: Mapped[float | None] = mapped_column(Float, nullable=True)
    # the last statement submitted or finished: the idle timeout counts from it
    last_activity: Mapped[float] = mapped_column(Float)
    # CreateSession's request (Role, Command, DefaultArguments, Connections, capacity, GlueVersion ...)
    spec: Mapped[dict[str, Any]] = mapped_column(Json)
    error_message: Mapped[str | None] = mapped_column(Text, nullable=True)
    next_statement: Mapped[int] = mapped_column(Integer, default=0)
    access_key: Mapped[str | None] = mapped_column(String(128), nullable=True)
    # who watches the session (host:pid:boot id) with its heartbeat, and its driver process
    runner: Mapped[str | None] = mapped_column(String(255), nullable=True)
    heartbeat: Mapped[float | None] = mapped_column(Float, nullable=True)
    driver_host: Mapped[str | None] = mapped_column(String(255), nullable=True)
    driver_pid: Mapped[int | None] = mapped_column(Integer, nullable=True)
    driver_start: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    log_dir: Mapped[str | None] = mapped_column(Text, nullable=True)


class StatementRow(Base):
    """One statement of a session, numbered from 0 in the session."""

    __tablename__ = "glue_session_statement"
    __table_args__ = (
        UniqueConstraint("session_row_id", "statement_id"),
        Index("ix_glue_statement_state", "session_row_id", "state"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    session_row_id: Mapped[int] = mapped_column(ForeignKey("glue_session.id", ondelete="CASCADE"))
    statement_id: Mapped[int] = mapped_column(Integer)
    code: Mapped[str] = mapped_column(Text)
    state: Mapped[str] = mapped_column(String(16))
    # Glue's StatementOutput: Data {TextPlain | MimeType/Result}, ExecutionCount, Status, ErrorName, ...
    output: Mapped[dict[str, Any] | None] = mapped_column(Json, nullable=True)
    progress: Mapped[float] = mapped_column(Float, default=0.0)
    submitted_on: Mapped[float] = mapped_column(Float)
    started_on: Mapped[float | None] = mapped_column(Float, nullable=True)
    completed_on: Mapped[float | None] = mapped_column(Float, nullable=True)
    cancel_requested: Mapped[bool] = mapped_column(Boolean, default=False)
