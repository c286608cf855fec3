"""Typed models of Glue connections, shared by the API handlers and the ETL runtime."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

Spec = dict[str, Any]


class ConnectionType(StrEnum):
    """The connection types glueball supports (a subset of the model's enum)."""

    JDBC = "JDBC"
    KAFKA = "KAFKA"
    NETWORK = "NETWORK"


class ConnectionStatus(StrEnum):
    READY = "READY"
    IN_PROGRESS = "IN_PROGRESS"
    FAILED = "FAILED"


# Connection v1 (ConnectionProperties-based) is the schema of every supported type.
CONNECTION_SCHEMA_VERSION = 1


def is_secret_property(key: str) -> bool:
    """Whether HidePassword leaves this connection property out (PASSWORD, ENCRYPTED_PASSWORD, Kafka passwords)."""
    return key.endswith("PASSWORD")


@dataclass
class PhysicalConnectionRequirements:
    subnet_id: str | None = None
    security_group_ids: list[str] = field(default_factory=list)
    availability_zone: str | None = None

    @classmethod
    def from_wire(cls, wire: Spec) -> PhysicalConnectionRequirements:
        return cls(
            subnet_id=wire.get("SubnetId"),
            security_group_ids=list(wire.get("SecurityGroupIdList") or []),
            availability_zone=wire.get("AvailabilityZone"),
        )

    def to_wire(self) -> Spec:
        wire: Spec = {}
        if self.subnet_id is not None:
            wire["SubnetId"] = self.subnet_id
        if self.security_group_ids:
            wire["SecurityGroupIdList"] = list(self.security_group_ids)
        if self.availability_zone is not None:
            wire["AvailabilityZone"] = self.availability_zone
        return wire


@dataclass
class Connection:
    """A Glue connection.

    Attributes:
        name: the connection's name (case-sensitive, as Glue keeps it).
        connection_type: JDBC, KAFKA or NETWORK.
        properties: ``ConnectionProperties`` (JDBC_CONNECTION_URL, USERNAME, PASSWORD, ...).
        physical: ``PhysicalConnectionRequirements`` (VPC subnet, security groups, zone).
        extra: the remaining ConnectionInput members, kept verbatim (SparkProperties, ...).
    """

    name: str
    connection_type: ConnectionType
    properties: dict[str, str] = field(default_factory=dict)
    description: str | None = None
    match_criteria: list[str] = field(default_factory=list)
    physical: PhysicalConnectionRequirements | None = None
    extra: Spec = field(default_factory=dict)
    create_time: float | None = None
    update_time: float | None = None
    last_updated_by: str | None = None
    status: ConnectionStatus = ConnectionStatus.READY

    @property
    def jdbc_url(self) -> str | None:
        return self.properties.get("JDBC_CONNECTION_URL")

    @property
    def username(self) -> str | None:
        return self.properties.get("USERNAME")

    @property
    def password(self) -> str | None:
        return self.properties.get("PASSWORD")

    @property
    def bootstrap_servers(self) -> list[str]:
        servers = self.properties.get("KAFKA_BOOTSTRAP_SERVERS", "")
        return [s.strip() for s in servers.split(",") if s.strip()]

    def without_secrets(self) -> Connection:
        """A copy with every password property removed (what HidePassword returns)."""
        kept = {k: v for k, v in self.properties.items() if not is_secret_property(k)}
        return Connection(
            name=self.name, connection_type=self.connection_type, properties=kept,
            description=self.description, match_criteria=list(self.match_criteria), physical=self.physical,
            extra=dict(self.extra), create_time=self.create_time, update_time=self.update_time,
            last_updated_by=self.last_updated_by, status=self.status,
        )

    def to_spec(self) -> Spec:
        """The stored form: the ConnectionInput members minus the name."""
        spec: Spec = dict(self.extra)
        spec["ConnectionType"] = self.connection_type.value
        spec["ConnectionProperties"] = dict(self.properties)
        if self.description is not None:
            spec["Description"] = self.description
        if self.match_criteria:
            spec["MatchCriteria"] = list(self.match_criteria)
        if self.physical is not None:
            spec["PhysicalConnectionRequirements"] = self.physical.to_wire()
        if self.last_updated_by is not None:
            spec["LastUpdatedBy"] = self.last_updated_by
        return spec

    @classmethod
    def from_spec(cls, name: str, spec: Spec, create_time: float | None = None,
                  update_time: float | None = None) -> Connection:
        known = {"ConnectionType", "ConnectionProperties", "Description", "MatchCriteria",
                 "PhysicalConnectionRequirements", "LastUpdatedBy"}
        physical = spec.get("PhysicalConnectionRequirements")
        return cls(
            name=name,
            connection_type=ConnectionType(spec["ConnectionType"]),
            properties=dict(spec.get("ConnectionProperties") or {}),
            description=spec.get("Description"),
            match_criteria=list(spec.get("MatchCriteria") or []),
            physical=PhysicalConnectionRequirements.from_wire(physical) if physical is not None else None,
            extra={k: v for k, v in spec.items() if k not in known},
            create_time=create_time,
            update_time=update_time,
            last_updated_by=spec.get("LastUpdatedBy"),
        )
