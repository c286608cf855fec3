"""CloudWatch Logs' resources as glueball keeps them, and the log groups and streams of Glue's runs.

Times are epoch milliseconds, as CloudWatch Logs counts them on the wire.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# PutRetentionPolicy's values (CloudWatch Logs refuses any other number of days)
RETENTION_DAYS = (1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922,
                  3288, 3653)
DAY_MS = 86_400_000
# PutLogEvents' limits: a batch of at most 1,048,576 bytes counting 26 bytes per event, an event of at most
# 1 MiB, a batch spanning at most 24 hours, events at most 2 hours ahead or 14 days behind
BATCH_BYTES = 1_048_576
EVENT_OVERHEAD = 26
EVENT_BYTES = 1_048_576
BATCH_SPAN_MS = DAY_MS
TOO_NEW_MS = 2 * 3_600_000
TOO_OLD_MS = 14 * DAY_MS
MAX_TAGS = 50


# the log groups Glue writes its runs' logs to (a job's --custom-logGroup-prefix replaces /aws-glue/jobs)
JOB_GROUP_PREFIX = "/aws-glue/jobs"
CONTINUOUS_GROUP = "/aws-glue/jobs/logs-v2"
CRAWLER_GROUP = "/aws-glue/crawlers"
SESSION_GROUP_PREFIX = "/aws-glue/sessions"
DATA_QUALITY_GROUP_PREFIX = "/aws-glue/data-quality"


def job_arguments(spec: dict[str, Any], arguments: dict[str, Any] | None) -> dict[str, str]:
    """A run's arguments as its driver got them: the job's defaults, the run's, the non-overridable ones."""
    return {**(spec.get("DefaultArguments") or {}), **(arguments or {}), **(spec.get("NonOverridableArguments") or {})}


def job_log_groups(arguments: dict[str, str]) -> tuple[str, str, str | None]:
    """The output and error log groups of a job run with ``arguments``, and its continuous-logging group."""
    prefix = (arguments.get("--custom-logGroup-prefix") or JOB_GROUP_PREFIX).rstrip("/")
    continuous = None
    if str(arguments.get("--enable-continuous-cloudwatch-log", "")).lower() == "true":
        continuous = arguments.get("--continuous-log-logGroup") or CONTINUOUS_GROUP
    return f"{prefix}/output", f"{prefix}/error", continuous



@dataclass(frozen=True)
class LogFile:
    """One file whose lines are the events of one stream."""

    group: str
    stream: str
    path: Path


@dataclass(frozen=True)
class RunLogs:
    """What one run (job run, crawl, session, data quality run) wrote, and where it goes in CloudWatch.

    Attributes:
        account_id, region: where the run lives (its logs and metrics live there too).
        files: its log files, each with its group and stream.
        ended: the run is over: what its files hold now is all they will hold.
        job_name: for job runs, the job (the ``JobName`` dimension of its metrics).
        run_id: the run's id (the ``JobRunId`` dimension).
        event_logs: its Spark event log folders (job runs).
        batch_metrics: its streaming per-batch metrics file (streaming job runs).
        host: the host whose disk its files are on (its driver's), when known: only that host reads them.
    """

    account_id: str
    region: str
    files: tuple[LogFile, ...]
    ended: bool
    job_name: str = ""
    run_id: str = ""
    event_logs: tuple[Path, ...] = ()
    batch_metrics: Path | None = None
    host: str | None = None


@dataclass
class LogGroup:
    name: str
    created: int
    retention_days: int | None
    kms_key_id: str | None
    log_group_class: str
    deletion_protection: bool
    stored_bytes: int
    tags: dict[str, str] = field(default_factory=dict)


@dataclass
class LogStream:
    name: str
    created: int
    first_event: int | None
    last_event: int | None
    last_ingestion: int | None
    uploads: int


@dataclass(frozen=True)
class LogEvent:
    """An event as read back: its stream, time, message, ingestion time and its place in the store."""

    stream: str
    timestamp: int
    message: str
    ingestion: int
    row_id: int

    def event_id(self) -> str:
        """A stable, unique id (FilterLogEvents' ``eventId``; ``aws logs tail`` de-duplicates by it)."""
        return f"{self.timestamp:020d}{self.row_id:020d}"


@dataclass(frozen=True)
class Rejected:
    """PutLogEvents' ``rejectedLogEventsInfo``: indexes of the events it did not accept."""

    too_new_start: int | None = None
    too_old_end: int | None = None
    expired_end: int | None = None

    def wire(self) -> dict[str, Any] | None:
        members = {"tooNewLogEventStartIndex": self.too_new_start, "tooOldLogEventEndIndex": self.too_old_end,
                   "expiredLogEventEndIndex": self.expired_end}
        present = {key: value for key, value in members.items() if value is not None}
        return present or None
