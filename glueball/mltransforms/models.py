"""Typed models of Glue ML transforms (FindMatches)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Spec = dict[str, Any]

NOT_READY = "NOT_READY"
# the members a transform keeps as they were given (CreateMLTransform's, but Name and InputRecordTables)
SETTINGS = ("Description", "Parameters", "Role", "GlueVersion", "MaxCapacity", "WorkerType", "NumberOfWorkers",
            "Timeout", "MaxRetries", "TransformEncryption")


@dataclass
class MLTransform:
    """An ML transform.

    Attributes:
        settings: the members of :data:`SETTINGS` that were given.
        schema: the columns of its first input table (Glue's ``SchemaColumn``: Name, DataType).
    """

    transform_id: str
    name: str
    input_tables: list[Spec]
    settings: Spec = field(default_factory=dict)
    schema: list[Spec] = field(default_factory=list)
    status: str = NOT_READY
    created: float = 0.0
    modified: float = 0.0

    @property
    def transform_type(self) -> str:
        return str(self.settings["Parameters"]["TransformType"])

    def to_spec(self) -> Spec:
        return {**self.settings, "TransformId": self.transform_id, "InputRecordTables": self.input_tables,
                "Schema": self.schema, "Status": self.status}

    @classmethod
    def from_spec(cls, name: str, spec: Spec, created: float, modified: float) -> MLTransform:
        return cls(transform_id=spec["TransformId"], name=name, input_tables=list(spec["InputRecordTables"]),
                   settings={k: spec[k] for k in SETTINGS if k in spec}, schema=list(spec.get("Schema") or []),
                   status=spec.get("Status", NOT_READY), created=created, modified=modified)


@dataclass
class TransformFilter:
    """GetMLTransforms' and ListMLTransforms' Filter: every given criterion must hold."""

    name: str | None = None
    transform_type: str | None = None
    status: str | None = None
    glue_version: str | None = None
    created_before: float | None = None
    created_after: float | None = None
    modified_before: float | None = None
    modified_after: float | None = None
    schema: list[Spec] = field(default_factory=list)

    def accepts(self, transform: MLTransform) -> bool:
        checks = (
            self.name is None or transform.name == self.name,
            self.transform_type is None or transform.transform_type == self.transform_type,
            self.status is None or transform.status == self.status,
            self.glue_version is None or transform.settings.get("GlueVersion") == self.glue_version,
            self.created_before is None or transform.created < self.created_before,
            self.created_after is None or transform.created > self.created_after,
            self.modified_before is None or transform.modified < self.modified_before,
            self.modified_after is None or transform.modified > self.modified_after,
        )
        if not all(checks):
            return False
        columns = {(c["Name"].lower(), (c.get("DataType") or "").lower()) for c in transform.schema}
        return all((c["Name"].lower(), (c.get("DataType") or "").lower()) in columns if c.get("DataType")
                   else c["Name"].lower() in {name for name, _ in columns} for c in self.schema)
