"""Typed models of the schema registry: registries, schemas, versions, metadata, and how requests name them.

Glue names a registry by ``RegistryId`` (``RegistryName`` or ``RegistryArn``), a schema by ``SchemaId``
(``SchemaArn``, or ``RegistryName`` and ``SchemaName``) and a version by ``SchemaVersionId`` (its UUID)
or by its schema and ``SchemaVersionNumber`` (``VersionNumber`` or ``LatestVersion``). The models here
are what the service reads and answers; the handlers turn them into Glue's wire shapes.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from enum import StrEnum

DEFAULT_REGISTRY = "default-registry"
# Glue's quotas (per account and region, per schema, per version)
MAX_REGISTRIES = 100
MAX_SCHEMAS = 10_000
MAX_VERSIONS_PER_SCHEMA = 1_000
MAX_METADATA_PER_VERSION = 10


class DataFormat(StrEnum):
    AVRO = "AVRO"
    JSON = "JSON"
    PROTOBUF = "PROTOBUF"


class Compatibility(StrEnum):
    """How a new version must relate to earlier ones (``_ALL``: to every version since the checkpoint)."""

    NONE = "NONE"
    DISABLED = "DISABLED"
    BACKWARD = "BACKWARD"
    BACKWARD_ALL = "BACKWARD_ALL"
    FORWARD = "FORWARD"
    FORWARD_ALL = "FORWARD_ALL"
    FULL = "FULL"
    FULL_ALL = "FULL_ALL"


class VersionStatus(StrEnum):
    """A schema version's state: AVAILABLE once it passed its compatibility check, FAILURE when it did not,
    PENDING while checked, DELETING while removed."""

    AVAILABLE = "AVAILABLE"
    PENDING = "PENDING"
    FAILURE = "FAILURE"
    DELETING = "DELETING"


class ResourceStatus(StrEnum):
    """A registry's or schema's state."""

    AVAILABLE = "AVAILABLE"
    PENDING = "PENDING"
    DELETING = "DELETING"


def timestamp(epoch: float) -> str:
    """Glue's registry timestamps are strings: ISO 8601 in UTC, to the millisecond."""
    moment = dt.datetime.fromtimestamp(epoch, dt.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(frozen=True)
class RegistryRef:
    """``RegistryId``: by name or by ARN (exactly one)."""

    name: str | None = None
    arn: str | None = None


@dataclass(frozen=True)
class SchemaRef:
    """``SchemaId``: by ARN, or by registry and schema name."""

    arn: str | None = None
    registry: str | None = None
    name: str | None = None


@dataclass(frozen=True)
class VersionRef:
    """A version: by ``SchemaVersionId`` alone, or by its schema and number (``latest`` for the newest)."""

    schema: SchemaRef | None = None
    version_id: str | None = None
    number: int | None = None
    latest: bool = False


@dataclass(frozen=True)
class Registry:
    name: str
    arn: str
    description: str | None
    status: ResourceStatus
    created: float
    updated: float


@dataclass(frozen=True)
class Schema:
    registry_name: str
    registry_arn: str
    name: str
    arn: str
    description: str | None
    data_format: DataFormat
    compatibility: Compatibility
    checkpoint: int
    latest_version: int
    next_version: int
    status: ResourceStatus
    created: float
    updated: float


@dataclass(frozen=True)
class SchemaVersion:
    """One version; ``schema_id`` is its Confluent-style numeric id (the store's row id)."""

    schema: Schema
    version_id: str
    number: int
    definition: str
    status: VersionStatus
    created: float
    schema_id: int
    failure_reason: str | None = None

    @property
    def is_latest(self) -> bool:
        return self.number == self.schema.latest_version


@dataclass(frozen=True)
class MetadataEntry:
    key: str
    value: str
    created: float
