"""Tables of the resources that are stored documents, and of the task runs of the smaller areas.

Security configurations, dev endpoints, ML transforms, blueprints and the catalog's encryption
settings are kept as their validated wire structure (``spec``) in one table, told apart by
``kind``; what the store must find them by is a column (``name``, and ``resource_id`` for those a
generated id addresses, like an ML transform's ``TransformId``).

Blueprint runs and column statistics task runs are rows of ``glue_task_run``: their ``state``
changes only by compare-and-swap (``UPDATE ... WHERE state = :expected``), so any server process
may act on them and a restarted server can reconcile what it finds (the runner, heartbeat and
driver columns are those of the shared supervision, :mod:`glueball.supervise`).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import BigInteger, Float, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from glueball.store.schema import Base

# the kinds of stored resources
SECURITY_CONFIGURATION = "security-configuration"
DEV_ENDPOINT = "dev-endpoint"
ML_TRANSFORM = "ml-transform"
BLUEPRINT = "blueprint"
CATALOG_ENCRYPTION = "catalog-encryption"

# the kinds of task runs
BLUEPRINT_RUN = "blueprint-run"
COLUMN_STATISTICS_RUN = "column-statistics"


class StoredResourceRow(Base):
    """One stored resource of a kind, named in its account and region."""

    __tablename__ = "glue_stored_resource"
    __table_args__ = (
        UniqueConstraint("account_id", "region", "kind", "name"),
        UniqueConstraint("account_id", "region", "kind", "resource_id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[str] = mapped_column(String(64))
    region: Mapped[str] = mapped_column(String(64))
    kind: Mapped[str] = mapped_column(String(32))
    name: Mapped[str] = mapped_column(String(255))
    # a generated id the resource is addressed by (TransformId), None for the others
    resource_id: Mapped[str | None] = mapped_column(String(255), nullable=True)
    spec: Mapped[dict[str, Any]]
    create_time: Mapped[float] = mapped_column(Float)
    update_time: Mapped[float] = mapped_column(Float)


class TaskRunRow(Base):
    """One run of a blueprint, or one column statistics task run."""

    __tablename__ = "glue_task_run"
    __table_args__ = (
        UniqueConstraint("account_id", "region", "kind", "run_id"),
        Index("ix_glue_task_run_subject", "account_id", "region", "kind", "subject"),
        Index("ix_glue_task_run_state", "kind", "state"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[str] = mapped_column(String(64))
    region: Mapped[str] = mapped_column(String(64))
    kind: Mapped[str] = mapped_column(String(32))
    run_id: Mapped[str] = mapped_column(String(255))
    # what the run is of: the blueprint's name, or "database.table" of a column statistics run
    subject: Mapped[str] = mapped_column(String(512))
    state: Mapped[str] = mapped_column(String(16))
    # the request's members and what the run learned (the workflow it created, the entities to roll back)
    spec: Mapped[dict[str, Any]]
    started_on: Mapped[float] = mapped_column(Float)
    completed_on: Mapped[float | None] = mapped_column(Float, nullable=True)
    last_modified_on: Mapped[float] = mapped_column(Float)
    error_message: Mapped[str | None] = mapped_column(Text, nullable=True)
    rollback_error_message: Mapped[str | None] = mapped_column(Text, nullable=True)
    access_key: Mapped[str | None] = mapped_column(String(128), nullable=True)
    runner: Mapped[str | None] = mapped_column(String(255), nullable=True)
    heartbeat: Mapped[float | None] = mapped_column(Float, nullable=True)
    driver_host: Mapped[str | None] = mapped_column(String(255), nullable=True)
    driver_pid: Mapped[int | None] = mapped_column(Integer, nullable=True)
    driver_start: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    log_dir: Mapped[str | None] = mapped_column(Text, nullable=True)
