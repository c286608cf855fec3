"""Athena's tables: query executions, the engines that run them, workgroups, named queries, prepared
statements and data catalogs.

A query execution's ``state`` changes only by compare-and-swap (``UPDATE ... WHERE state = :expected``), as
job runs' and sessions' do, so any server process may act on one and a restarted server can reconcile what it
finds. An engine is a supervised driver (``runner``/``heartbeat``/``driver_*`` as every kind of run has).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import BigInteger, Boolean, Float, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from glueball.store.schema import Base, Json


class AthenaQueryRow(Base):
    """One query execution (Athena's ``QueryExecution``) and what the engine needs to run it."""

    __tablename__ = "athena_query"
    __table_args__ = (
        UniqueConstraint("query_id"),
        Index("ix_athena_query_listing", "account_id", "region", "workgroup", "submitted"),
        Index("ix_athena_query_state", "state"),
        Index("ix_athena_query_token", "account_id", "region", "client_token"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[str] = mapped_column(String(12))
    region: Mapped[str] = mapped_column(String(64))
    query_id: Mapped[str] = mapped_column(String(36))
    workgroup: Mapped[str] = mapped_column(String(128))
    query: Mapped[str] = mapped_column(Text)
    statement_type: Mapped[str] = mapped_column(String(16))
    substatement_type: Mapped[str] = mapped_column(String(64))
    state: Mapped[str] = mapped_column(String(16))
    state_reason: Mapped[str | None] = mapped_column(Text, nullable=True)
    submitted: Mapped[float] = mapped_column(Float)
    started: Mapped[float | None] = mapped_column(Float, nullable=True)
    completed: Mapped[float | None] = mapped_column(Float, nullable=True)
    database: Mapped[str | None] = mapped_column(String(255), nullable=True)
    catalog: Mapped[str | None] = mapped_column(String(255), nullable=True)
    output_location: Mapped[str | None] = mapped_column(Text, nullable=True)
    execution_parameters: Mapped[list[Any]] = mapped_column(Json)
    client_token: Mapped[str | None] = mapped_column(String(128), nullable=True)
    # what the engine runs: the statements in Spark SQL and how to present their result (glueball.athena.plan)
    plan: Mapped[dict[str, Any]] = mapped_column(Json)
    bytes_cutoff: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    access_key: Mapped[str | None] = mapped_column(String(128), nullable=True)  # whom the engine acts as
    engine_id: Mapped[str | None] = mapped_column(String(64), nullable=True)
    cancel_requested: Mapped[bool] = mapped_column(Boolean, default=False)
    # AthenaError (ErrorCategory, ErrorType, Retryable, ErrorMessage) of a FAILED query
    error: Mapped[dict[str, Any] | None] = mapped_column(Json, nullable=True)
    # the engine's figures (bytes scanned, engine time, rows) and the result's shape (columns, update count)
    statistics: Mapped[dict[str, Any] | None] = mapped_column(Json, nullable=True)
    result: Mapped[dict[str, Any] | None] = mapped_column(Json, nullable=True)


class AthenaEngineRow(Base):
    """One engine: a Spark driver (a warm one when there is one) that runs query executions one after another."""

    __tablename__ = "athena_engine"
    __table_args__ = (UniqueConstraint("engine_id"), Index("ix_athena_engine_state", "state"))

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    engine_id: Mapped[str] = mapped_column(String(64))
    state: Mapped[str] = mapped_column(String(16))
    created: Mapped[float] = mapped_column(Float)
    ended: Mapped[float | None] = mapped_column(Float, nullable=True)
    message: Mapped[str | None] = mapped_column(Text, nullable=True)
    runner: Mapped[str | None] = mapped_column(String(255), nullable=True)
    heartbeat: Mapped[float | None] = mapped_column(Float, nullable=True)
    driver_host: Mapped[str | None] = mapped_column(String(255), nullable=True)
    driver_pid: Mapped[int | None] = mapped_column(Integer, nullable=True)
    driver_start: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    log_dir: Mapped[str | None] = mapped_column(Text, nullable=True)


class AthenaWorkGroupRow(Base):
    """A workgroup: its state, description and ``WorkGroupConfiguration`` (tags are in ``resource_tag``)."""

    __tablename__ = "athena_workgroup"
    __table_args__ = (UniqueConstraint("account_id", "region", "name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[str] = mapped_column(String(12))
    region: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(128))
    state: Mapped[str] = mapped_column(String(16))
    description: Mapped[str | None] = mapped_column(Text, nullable=True)
    configuration: Mapped[dict[str, Any]] = mapped_column(Json)
    created: Mapped[float] = mapped_column(Float)


class AthenaNamedQueryRow(Base):
    """A saved query of a workgroup."""

    __tablename__ = "athena_named_query"
    __table_args__ = (UniqueConstraint("named_query_id"), Index("ix_athena_named_query", "account_id", "region"))

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[str] = mapped_column(String(12))
    region: Mapped[str] = mapped_column(String(64))
    named_query_id: Mapped[str] = mapped_column(String(36))
    name: Mapped[str] = mapped_column(String(128))
    description: Mapped[str | None] = mapped_column(Text, nullable=True)
    database: Mapped[str] = mapped_column(String(255))
    query_string: Mapped[str] = mapped_column(Text)
    workgroup: Mapped[str] = mapped_column(String(128))
    client_token: Mapped[str | None] = mapped_column(String(128), nullable=True)
    created: Mapped[float] = mapped_column(Float)


class AthenaPreparedStatementRow(Base):
    """A prepared statement of a workgroup (``PREPARE`` or CreatePreparedStatement)."""

    __tablename__ = "athena_prepared_statement"
    __table_args__ = (UniqueConstraint("account_id", "region", "workgroup", "name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[str] = mapped_column(String(12))
    region: Mapped[str] = mapped_column(String(64))
    workgroup: Mapped[str] = mapped_column(String(128))
    name: Mapped[str] = mapped_column(String(256))
    query_statement: Mapped[str] = mapped_column(Text)
    description: Mapped[str | None] = mapped_column(Text, nullable=True)
    last_modified: Mapped[float] = mapped_column(Float)


class AthenaDataCatalogRow(Base):
    """A data catalog registered with CreateDataCatalog (``AwsDataCatalog`` is built in and not stored)."""

    __tablename__ = "athena_data_catalog"
    __table_args__ = (UniqueConstraint("account_id", "region", "name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[str] = mapped_column(String(12))
    region: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(256))
    type: Mapped[str] = mapped_column(String(16))
    description: Mapped[str | None] = mapped_column(Text, nullable=True)
    parameters: Mapped[dict[str, Any]] = mapped_column(Json)
