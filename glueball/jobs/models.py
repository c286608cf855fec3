"""Typed models of jobs and job runs.

A job run's lifecycle (Glue's "job run statuses")::

    STARTING -> RUNNING -> SUCCEEDED | FAILED | TIMEOUT | ERROR
    STARTING | RUNNING -> STOPPING -> STOPPED
    WAITING -> STARTING (job run queuing; glueball refuses queuing, so no run waits today)

:data:`RUN_TRANSITIONS` is the whole table; the store refuses anything else
(compare-and-swap on the current state). A job definition keeps the validated
wire members in ``spec`` (Glue's defaults filled in) so every member a client
sent round-trips.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

Spec = dict[str, Any]

LOG_GROUP = "/aws-glue/jobs"
SPARK_COMMANDS = ("glueetl", "gluestreaming")
PYTHON_SHELL = "pythonshell"
RAY = "glueray"


class JobRunState(StrEnum):
    STARTING = "STARTING"
    RUNNING = "RUNNING"
    STOPPING = "STOPPING"
    STOPPED = "STOPPED"
    SUCCEEDED = "SUCCEEDED"
    FAILED = "FAILED"
    TIMEOUT = "TIMEOUT"
    ERROR = "ERROR"
    WAITING = "WAITING"


_ENDED = frozenset({JobRunState.STOPPED, JobRunState.SUCCEEDED, JobRunState.FAILED, JobRunState.TIMEOUT,
                    JobRunState.ERROR})

RUN_TRANSITIONS: dict[JobRunState, frozenset[JobRunState]] = {
    JobRunState.WAITING: frozenset({JobRunState.STARTING, JobRunState.STOPPED, JobRunState.FAILED,
                                    JobRunState.ERROR}),
    JobRunState.STARTING: frozenset({JobRunState.RUNNING, JobRunState.STOPPING, JobRunState.FAILED,
                                     JobRunState.ERROR, JobRunState.TIMEOUT}),
    JobRunState.RUNNING: frozenset({JobRunState.STOPPING, JobRunState.SUCCEEDED, JobRunState.FAILED,
                                    JobRunState.TIMEOUT, JobRunState.ERROR}),
    JobRunState.STOPPING: frozenset({JobRunState.STOPPED, JobRunState.FAILED}),
    **{state: frozenset() for state in _ENDED},
}

ACTIVE_STATES = frozenset({JobRunState.WAITING, JobRunState.STARTING, JobRunState.RUNNING, JobRunState.STOPPING})
# the states after which MaxRetries starts another attempt (a stopped run is not retried)
RETRIED_STATES = frozenset({JobRunState.FAILED, JobRunState.TIMEOUT})


def can_transition(current: JobRunState, target: JobRunState) -> bool:
    """Whether the job run state machine allows ``current -> target``."""
    return target in RUN_TRANSITIONS[current]


def is_ended(state: JobRunState) -> bool:
    return state in _ENDED


# DPUs of one worker of each WorkerType (Glue's documented sizes)
WORKER_DPU: dict[str, float] = {
    "Standard": 1.0, "G.025X": 0.25, "G.1X": 1.0, "G.2X": 2.0, "G.4X": 4.0, "G.8X": 8.0, "G.12X": 12.0,
    "G.16X": 16.0, "R.1X": 1.0, "R.2X": 2.0, "R.4X": 4.0, "R.8X": 8.0, "Z.2X": 2.0,
}


@dataclass
class Job:
    """A job definition: ``spec`` holds CreateJob's members minus Name and Tags, defaults filled."""

    name: str
    job_id: str
    spec: Spec
    create_time: float = 0.0
    update_time: float = 0.0

    @property
    def command_name(self) -> str:
        return str(self.spec["Command"]["Name"])

    @property
    def max_concurrent_runs(self) -> int:
        return int((self.spec.get("ExecutionProperty") or {}).get("MaxConcurrentRuns", 1))


@dataclass(frozen=True)
class Driver:
    """Where a run's driver process is: the run, its host, pid and start time (clock ticks after boot)."""

    run_id: str
    host: str | None
    pid: int | None
    start: int | None

    @classmethod
    def of(cls, row: Any) -> Driver:
        return cls(row.run_id, row.driver_host, row.driver_pid, row.driver_start)


@dataclass
class RunMetrics:
    """What a run read and wrote (glueball's extension; Glue's JobRun has no such members)."""

    records_read: int | None = None
    bytes_read: int | None = None
    records_written: int | None = None
    bytes_written: int | None = None
    executor_seconds: float | None = None

    def to_json(self) -> Spec:
        return {k: v for k, v in self.__dict__.items() if v is not None}

    @classmethod
    def from_json(cls, data: Spec | None) -> RunMetrics:
        known = cls.__dataclass_fields__
        return cls(**{k: v for k, v in (data or {}).items() if k in known})


@dataclass
class JobRun:
    """One run of a job.

    Attributes:
        arguments: the run's Arguments as StartJobRun gave them (JobRun.Arguments).
        spec: what the run runs with (Command, merged arguments, capacity, Timeout, MaxRetries, ...).
        log_dir: ``$GLUEBALL_HOME/logs/jobs/<job>/<run id>`` with output.log, error.log, events/.
    """

    run_id: str
    job_name: str
    attempt: int
    state: JobRunState
    started_on: float
    last_modified_on: float
    arguments: dict[str, str]
    spec: Spec
    previous_run_id: str | None = None
    trigger_name: str | None = None
    completed_on: float | None = None
    error_message: str | None = None
    execution_time: int = 0
    dpu_seconds: float | None = None
    metrics: RunMetrics = field(default_factory=RunMetrics)
    streaming: dict[str, Any] | None = None  # a streaming run's batch summary, as its watcher last kept it
    log_dir: str | None = None
    driver_pid: int | None = None
    workflow_run_id: str | None = None
    fire_id: int | None = None

    @property
    def timeout_minutes(self) -> int:
        return int(self.spec["Timeout"])

    @property
    def max_retries(self) -> int:
        return int(self.spec.get("MaxRetries") or 0)
