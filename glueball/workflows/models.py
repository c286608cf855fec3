"""Typed models of triggers, workflows and workflow runs.

A trigger's state (Glue's ``TriggerState``)::

    ON_DEMAND:                       CREATED (StartTrigger fires its actions; the state stays)
    SCHEDULED, CONDITIONAL, EVENT:   CREATED -> ACTIVATED <-> DEACTIVATED   (StartTrigger / StopTrigger)

Glue's transitional states (CREATING, ACTIVATING, DEACTIVATING, UPDATING, DELETING) are never
visible: glueball changes a trigger in one transaction.

A workflow run's status (:data:`RUN_TRANSITIONS`)::

    RUNNING -> COMPLETED          every action ended and no trigger can fire any more
    RUNNING -> STOPPING -> STOPPED  StopWorkflowRun; the running actions are stopped

A run that had failed actions still ends COMPLETED, as in Glue; ``Statistics`` counts them. Glue's
ERROR (an internal failure of the service) is in the table but glueball has no path to it: a
deleted workflow takes its runs with it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

Spec = dict[str, Any]

WORKFLOW_NAME_ARG = "--WORKFLOW_NAME"
WORKFLOW_RUN_ID_ARG = "--WORKFLOW_RUN_ID"
CRAWLER_SCHEDULE_PREFIX = "crawler-schedule:"
DEFAULT_BATCH_WINDOW = 900
EVENT_IDS_PROPERTY = "aws:eventIds"


class TriggerType(StrEnum):
    SCHEDULED = "SCHEDULED"
    CONDITIONAL = "CONDITIONAL"
    ON_DEMAND = "ON_DEMAND"
    EVENT = "EVENT"


class TriggerState(StrEnum):
    CREATING = "CREATING"
    CREATED = "CREATED"
    ACTIVATING = "ACTIVATING"
    ACTIVATED = "ACTIVATED"
    DEACTIVATING = "DEACTIVATING"
    DEACTIVATED = "DEACTIVATED"
    DELETING = "DELETING"
    UPDATING = "UPDATING"


# the types that start a workflow run (a workflow has at most one such trigger)
START_TYPES = frozenset({TriggerType.ON_DEMAND, TriggerType.SCHEDULED, TriggerType.EVENT})


class WorkflowRunStatus(StrEnum):
    RUNNING = "RUNNING"
    COMPLETED = "COMPLETED"
    STOPPING = "STOPPING"
    STOPPED = "STOPPED"
    ERROR = "ERROR"


RUN_TRANSITIONS: dict[WorkflowRunStatus, frozenset[WorkflowRunStatus]] = {
    WorkflowRunStatus.RUNNING: frozenset({WorkflowRunStatus.COMPLETED, WorkflowRunStatus.STOPPING,
                                          WorkflowRunStatus.ERROR}),
    WorkflowRunStatus.STOPPING: frozenset({WorkflowRunStatus.STOPPED, WorkflowRunStatus.ERROR}),
    WorkflowRunStatus.COMPLETED: frozenset(),
    WorkflowRunStatus.STOPPED: frozenset(),
    WorkflowRunStatus.ERROR: frozenset(),
}
ACTIVE_RUN_STATUSES = frozenset({WorkflowRunStatus.RUNNING, WorkflowRunStatus.STOPPING})


def can_transition(current: WorkflowRunStatus, target: WorkflowRunStatus) -> bool:
    """Whether the workflow run state machine allows ``current -> target``."""
    return target in RUN_TRANSITIONS[current]


@dataclass(frozen=True)
class Condition:
    """One condition of a CONDITIONAL trigger's Predicate: a job run state or a crawl state."""

    job_name: str | None
    state: str | None
    crawler_name: str | None
    crawl_state: str | None

    @classmethod
    def of(cls, wire: Spec) -> Condition:
        return cls(wire.get("JobName"), wire.get("State"), wire.get("CrawlerName"), wire.get("CrawlState"))


@dataclass(frozen=True)
class Trigger:
    name: str
    trigger_id: str
    type: TriggerType
    state: TriggerState
    spec: Spec
    workflow_name: str | None = None
    next_fire: float | None = None
    access_key: str | None = None

    @property
    def actions(self) -> list[Spec]:
        return list(self.spec.get("Actions") or [])

    @property
    def logical(self) -> str:
        return str((self.spec.get("Predicate") or {}).get("Logical") or "AND")

    @property
    def conditions(self) -> list[Condition]:
        return [Condition.of(c) for c in (self.spec.get("Predicate") or {}).get("Conditions") or []]

    @property
    def schedule(self) -> str | None:
        return self.spec.get("Schedule")


@dataclass(frozen=True)
class Workflow:
    name: str
    spec: Spec
    create_time: float
    update_time: float

    @property
    def max_concurrent_runs(self) -> int | None:
        value = self.spec.get("MaxConcurrentRuns")
        return int(value) if value is not None else None

    @property
    def default_run_properties(self) -> dict[str, str]:
        return dict(self.spec.get("DefaultRunProperties") or {})


@dataclass
class WorkflowRun:
    workflow_name: str
    run_id: str
    status: WorkflowRunStatus
    started_on: float
    properties: dict[str, str]
    previous_run_id: str | None = None
    completed_on: float | None = None
    error_message: str | None = None
    starting_batch: Spec | None = None
    inherited: Spec = field(default_factory=dict)
    access_key: str | None = None
