"""The schema registry's tables: registries, schemas, schema versions and their metadata.

A schema's ``latest_version`` / ``next_version`` / ``checkpoint`` move only inside a write transaction
that holds the schema row (``SELECT ... FOR UPDATE`` on PostgreSQL, ``BEGIN IMMEDIATE`` on SQLite), so
two writers registering versions of one schema get consecutive numbers. A version's ``id`` (the row id)
is its Confluent schema id; ``version_id`` its Glue ``SchemaVersionId`` (a UUID, the SerDe's frame).
"""

from __future__ import annotations

from sqlalchemy import Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from glueball.store.schema import Base


class RegistryRow(Base):
    """One registry (Glue's ``Registry``) of an account and region."""

    __tablename__ = "registry_registry"
    __table_args__ = (UniqueConstraint("account_id", "region", "name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[str] = mapped_column(String(12))
    region: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(255))
    description: Mapped[str | None] = mapped_column(Text, nullable=True)
    status: Mapped[str] = mapped_column(String(16))
    created: Mapped[float] = mapped_column(Float)
    updated: Mapped[float] = mapped_column(Float)


class SchemaRow(Base):
    """One schema of a registry: its format, compatibility mode, checkpoint and version counters."""

    __tablename__ = "registry_schema"
    __table_args__ = (UniqueConstraint("registry_id", "name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    registry_id: Mapped[int] = mapped_column(ForeignKey("registry_registry.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(255))
    data_format: Mapped[str] = mapped_column(String(16))
    compatibility: Mapped[str] = mapped_column(String(16))
    description: Mapped[str | None] = mapped_column(Text, nullable=True)
    status: Mapped[str] = mapped_column(String(16))
    checkpoint: Mapped[int] = mapped_column(Integer)
    latest_version: Mapped[int] = mapped_column(Integer)
    next_version: Mapped[int] = mapped_column(Integer)
    created: Mapped[float] = mapped_column(Float)
    updated: Mapped[float] = mapped_column(Float)


class SchemaVersionRow(Base):
    """One version of a schema; ``canonical_hash`` finds a definition already registered."""

    __tablename__ = "registry_schema_version"
    __table_args__ = (
        UniqueConstraint("schema_id", "number"),
        UniqueConstraint("version_id"),
        Index("ix_registry_version_canonical", "schema_id", "canonical_hash"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    schema_id: Mapped[int] = mapped_column(ForeignKey("registry_schema.id", ondelete="CASCADE"))
    version_id: Mapped[str] = mapped_column(String(36))
    number: Mapped[int] = mapped_column(Integer)
    definition: Mapped[str] = mapped_column(Text)
    canonical_hash: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(16))
    # why a FAILURE version failed its compatibility check (the checker's reasons, one per line)
    failure_reason: Mapped[str | None] = mapped_column(Text, nullable=True)
    created: Mapped[float] = mapped_column(Float)


class SchemaVersionMetadataRow(Base):
    """One metadata key-value pair of a schema version (a key may carry several values)."""

    __tablename__ = "registry_version_metadata"
    __table_args__ = (UniqueConstraint("version_row_id", "key", "value"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    version_row_id: Mapped[int] = mapped_column(ForeignKey("registry_schema_version.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(String(128))
    value: Mapped[str] = mapped_column(String(256))
    created: Mapped[float] = mapped_column(Float)
