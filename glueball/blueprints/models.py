"""Typed models of Glue blueprints and blueprint runs."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

Spec = dict[str, Any]


class BlueprintStatus(StrEnum):
    CREATING = "CREATING"
    ACTIVE = "ACTIVE"
    UPDATING = "UPDATING"
    FAILED = "FAILED"


class BlueprintRunState(StrEnum):
    RUNNING = "RUNNING"
    SUCCEEDED = "SUCCEEDED"
    FAILED = "FAILED"
    ROLLING_BACK = "ROLLING_BACK"


# the transitions of a blueprint run: the layout runs and its entities are created; on failure what was created
# is deleted again (ROLLING_BACK) before the run ends FAILED
RUN_TRANSITIONS: dict[BlueprintRunState, tuple[BlueprintRunState, ...]] = {
    BlueprintRunState.RUNNING: (BlueprintRunState.SUCCEEDED, BlueprintRunState.ROLLING_BACK,
                                BlueprintRunState.FAILED),
    BlueprintRunState.ROLLING_BACK: (BlueprintRunState.FAILED,),
    BlueprintRunState.SUCCEEDED: (),
    BlueprintRunState.FAILED: (),
}
UNENDED = (BlueprintRunState.RUNNING, BlueprintRunState.ROLLING_BACK)


@dataclass
class Definition:
    """What one archive of a blueprint defines (a blueprint's current and last active definitions)."""

    description: str | None
    location: str
    service_location: str | None = None
    parameter_spec: str | None = None
    layout_generator: str | None = None
    modified: float = 0.0

    def to_spec(self) -> Spec:
        return {"Description": self.description, "BlueprintLocation": self.location,
                "BlueprintServiceLocation": self.service_location, "ParameterSpec": self.parameter_spec,
                "LayoutGenerator": self.layout_generator, "LastModifiedOn": self.modified}

    @classmethod
    def from_spec(cls, spec: Spec) -> Definition:
        return cls(spec.get("Description"), spec["BlueprintLocation"], spec.get("BlueprintServiceLocation"),
                   spec.get("ParameterSpec"), spec.get("LayoutGenerator"), spec.get("LastModifiedOn", 0.0))


@dataclass
class Blueprint:
    """A blueprint: its definition, status (ErrorMessage when FAILED) and the last definition that was ACTIVE."""

    name: str
    definition: Definition
    status: BlueprintStatus = BlueprintStatus.ACTIVE
    error_message: str | None = None
    last_active: Definition | None = None
    created: float = 0.0

    def to_spec(self) -> Spec:
        return {"Definition": self.definition.to_spec(), "Status": self.status.value,
                "ErrorMessage": self.error_message,
                "LastActive": self.last_active.to_spec() if self.last_active else None}

    @classmethod
    def from_spec(cls, name: str, spec: Spec, created: float) -> Blueprint:
        last = spec.get("LastActive")
        return cls(name, Definition.from_spec(spec["Definition"]), BlueprintStatus(spec["Status"]),
                   spec.get("ErrorMessage"), Definition.from_spec(last) if last else None, created)


@dataclass
class BlueprintRun:
    """One run of a blueprint.

    Attributes:
        parameters: StartBlueprintRun's Parameters as given (JSON text).
        created: the entities the run created so far, in order (``{"Kind": "Job", "Name": ...}``): what a
            rollback deletes.
    """

    blueprint_name: str
    run_id: str
    state: BlueprintRunState
    role_arn: str
    parameters: str | None
    started: float
    workflow_name: str | None = None
    completed: float | None = None
    error_message: str | None = None
    rollback_error_message: str | None = None
    created: list[dict[str, str]] = field(default_factory=list)
