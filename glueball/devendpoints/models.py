"""Typed models of Glue development endpoints.

A dev endpoint is kept as what CreateDevEndpoint asked for plus what Glue adds (status, times);
glueball runs no endpoint process for it (docs/dev-endpoints.md), so it has no addresses.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Spec = dict[str, Any]

# the DPUs a dev endpoint gets when neither NumberOfNodes nor a worker type is given (Glue's default)
DEFAULT_NODES = 5
MAX_PUBLIC_KEYS = 5
READY = "READY"


@dataclass
class DevEndpoint:
    """A development endpoint.

    Attributes:
        settings: CreateDevEndpoint's members other than the name, the keys, the arguments and the tags
            (RoleArn, SubnetId, SecurityGroupIds, WorkerType, NumberOfWorkers, NumberOfNodes, GlueVersion,
            ExtraPythonLibsS3Path, ExtraJarsS3Path, SecurityConfiguration).
    """

    name: str
    role_arn: str
    settings: Spec = field(default_factory=dict)
    public_key: str | None = None
    public_keys: list[str] = field(default_factory=list)
    arguments: dict[str, str] = field(default_factory=dict)
    status: str = READY
    created: float = 0.0
    modified: float = 0.0
    last_update_status: str | None = None

    def to_spec(self) -> Spec:
        spec: Spec = {**self.settings, "RoleArn": self.role_arn, "Status": self.status,
                      "PublicKeys": list(self.public_keys), "Arguments": dict(self.arguments)}
        if self.public_key is not None:
            spec["PublicKey"] = self.public_key
        if self.last_update_status is not None:
            spec["LastUpdateStatus"] = self.last_update_status
        return spec

    @classmethod
    def from_spec(cls, name: str, spec: Spec, created: float, modified: float) -> DevEndpoint:
        known = {"RoleArn", "Status", "PublicKeys", "PublicKey", "Arguments", "LastUpdateStatus"}
        return cls(name=name, role_arn=spec["RoleArn"], settings={k: v for k, v in spec.items() if k not in known},
                   public_key=spec.get("PublicKey"), public_keys=list(spec.get("PublicKeys") or []),
                   arguments=dict(spec.get("Arguments") or {}), status=spec.get("Status", READY), created=created,
                   modified=modified, last_update_status=spec.get("LastUpdateStatus"))


@dataclass
class DevEndpointChange:
    """UpdateDevEndpoint's members."""

    public_key: str | None = None
    add_public_keys: list[str] = field(default_factory=list)
    delete_public_keys: list[str] = field(default_factory=list)
    python_libs: str | None = None
    jars: str | None = None
    delete_arguments: list[str] = field(default_factory=list)
    add_arguments: dict[str, str] = field(default_factory=dict)
