"""Typed models of the Data Quality service: rulesets, results and runs.

A run (ruleset evaluation or rule recommendation) has Glue's ``TaskStatusType``
lifecycle::

    STARTING -> RUNNING -> SUCCEEDED | FAILED | TIMEOUT
    STARTING | RUNNING -> STOPPING -> STOPPED
    STARTING -> FAILED | TIMEOUT (the driver could not start, or the deadline passed first)

:data:`RUN_TRANSITIONS` is the whole table; the store refuses anything else
(compare-and-swap on the current status). A result keeps the published
``DataQualityResult`` members (minus ``ResultId``) in ``spec`` so every member
round-trips.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

Spec = dict[str, Any]

# Glue's defaults of StartDataQuality*Run
DEFAULT_WORKERS = 5
DEFAULT_TIMEOUT_MINUTES = 2880


class RunState(StrEnum):
    STARTING = "STARTING"
    RUNNING = "RUNNING"
    STOPPING = "STOPPING"
    STOPPED = "STOPPED"
    SUCCEEDED = "SUCCEEDED"
    FAILED = "FAILED"
    TIMEOUT = "TIMEOUT"


_ENDED = frozenset({RunState.STOPPED, RunState.SUCCEEDED, RunState.FAILED, RunState.TIMEOUT})

RUN_TRANSITIONS: dict[RunState, frozenset[RunState]] = {
    RunState.STARTING: frozenset({RunState.RUNNING, RunState.STOPPING, RunState.FAILED, RunState.TIMEOUT}),
    RunState.RUNNING: frozenset({RunState.STOPPING, RunState.SUCCEEDED, RunState.FAILED, RunState.TIMEOUT}),
    RunState.STOPPING: frozenset({RunState.STOPPED, RunState.FAILED}),
    **{state: frozenset() for state in _ENDED},
}

ACTIVE_STATES = frozenset({RunState.STARTING, RunState.RUNNING, RunState.STOPPING})


def can_transition(current: RunState, target: RunState) -> bool:
    """Whether the run state machine allows ``current -> target``."""
    return target in RUN_TRANSITIONS[current]


def is_ended(state: RunState) -> bool:
    return state in _ENDED


class RunKind(StrEnum):
    EVALUATION = "evaluation"
    RECOMMENDATION = "recommendation"

    @property
    def noun(self) -> str:
        return "ruleset evaluation run" if self is RunKind.EVALUATION else "rule recommendation run"


@dataclass(frozen=True)
class TargetTable:
    """A ruleset's DataQualityTargetTable, or the catalog table a run reads (DataSource.GlueTable)."""

    database_name: str
    table_name: str
    catalog_id: str | None = None

    @classmethod
    def from_wire(cls, wire: Spec) -> TargetTable:
        return cls(wire["DatabaseName"], wire["TableName"], wire.get("CatalogId"))

    def to_wire(self) -> Spec:
        wire: Spec = {"TableName": self.table_name, "DatabaseName": self.database_name}
        if self.catalog_id:
            wire["CatalogId"] = self.catalog_id
        return wire


@dataclass
class StoredRuleset:
    """A data quality ruleset as CreateDataQualityRuleset stored it (the DQDL text as sent)."""

    name: str
    ruleset: str
    rule_count: int
    description: str | None = None
    target_table: TargetTable | None = None
    recommendation_run_id: str | None = None
    client_token: str | None = None
    created_on: float = 0.0
    last_modified_on: float = 0.0


@dataclass(frozen=True)
class RulesetFilter:
    """ListDataQualityRulesets' Filter and Tags."""

    name: str | None = None
    description: str | None = None
    created_before: float | None = None
    created_after: float | None = None
    last_modified_before: float | None = None
    last_modified_after: float | None = None
    target_table: TargetTable | None = None
    tags: dict[str, str] | None = None


@dataclass
class DataQualityResult:
    """A published result: ``spec`` holds the DataQualityResult members except ResultId."""

    result_id: str
    spec: Spec


@dataclass(frozen=True)
class ResultFilter:
    """ListDataQualityResults' Filter."""

    table: TargetTable | None = None
    job_name: str | None = None
    job_run_id: str | None = None
    started_after: float | None = None
    started_before: float | None = None
    # Glue's evaluation configurations do not exist here: a filter on them matches nothing
    evaluation_config: bool = False


@dataclass(frozen=True)
class RunFilter:
    """ListDataQualityRulesetEvaluationRuns' / ListDataQualityRuleRecommendationRuns' Filter."""

    table: TargetTable | None = None
    started_after: float | None = None
    started_before: float | None = None
    ruleset_name: str | None = None


@dataclass
class DataQualityRun:
    """One ruleset evaluation run or rule recommendation run.

    Attributes:
        spec: the Start request's members with Glue's defaults filled (DataSource, Role,
            NumberOfWorkers, Timeout, AdditionalRunOptions, RulesetNames, AdditionalDataSources,
            CreatedRulesetName, RecommendationMode, ...).
        result_ids: the results an evaluation run published (ResultIds).
        log_dir: ``$GLUEBALL_HOME/logs/data-quality/<run id>`` with output.log and error.log.
    """

    run_id: str
    kind: RunKind
    state: RunState
    spec: Spec
    started_on: float
    last_modified_on: float
    completed_on: float | None = None
    error_string: str | None = None
    execution_time: int = 0
    recommended_ruleset: str | None = None
    result_ids: list[str] = field(default_factory=list)
    log_dir: str | None = None
    driver_pid: int | None = None

    @property
    def timeout_minutes(self) -> int:
        return int(self.spec.get("Timeout") or DEFAULT_TIMEOUT_MINUTES)


def source_table(data_source: Spec) -> Spec:
    """The GlueTable (or DataQualityGlueTable) structure of a DataSource."""
    table = data_source.get("GlueTable") or data_source.get("DataQualityGlueTable")
    if not isinstance(table, dict):
        raise KeyError("DataSource has no GlueTable")
    return table
