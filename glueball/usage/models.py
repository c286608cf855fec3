"""How Glue bills a run, as its price list documents: DPUs x seconds, per second, with a minimum.

- Spark jobs (``glueetl``, ``gluestreaming``) and data quality runs: the run's DPUs (workers x the
  worker type's DPUs: G.025X 0.25, G.1X 1, G.2X 2, G.4X 4, G.8X 8, Z.2X 2; Standard: MaxCapacity),
  billed per second with a 1-minute minimum; the Flex execution class at its lower rate.
- Python shell jobs: MaxCapacity (0.0625 or 1 DPU), per second, 1-minute minimum.
- Crawls: per second with a 10-minute minimum per crawl. AWS does not publish how many DPUs a crawl
  uses; a glueball crawl runs on one thread of the server, counted as 1 DPU.
- Interactive sessions: their DPUs, per second, 1-minute minimum.
- Athena queries: by the bytes they scan, at 5 USD per TB, each query at least 10 MB; DDL statements and failed
  queries cost nothing, a cancelled query what it scanned. Their resource is the workgroup (its tags group them).

Prices are the list price per DPU-hour (US East): 0.44 USD, Flex 0.29 USD.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

PRICE_PER_DPU_HOUR = 0.44
FLEX_PRICE_PER_DPU_HOUR = 0.29
WORKER_DPUS = {"G.025X": 0.25, "G.1X": 1.0, "G.2X": 2.0, "G.4X": 4.0, "G.8X": 8.0, "Z.2X": 2.0, "Standard": 1.0}
MINIMUM_SECONDS = {"JOB_RUN": 60.0, "DATA_QUALITY_RUN": 60.0, "SESSION": 60.0, "CRAWL": 600.0}
CRAWL_DPUS = 1.0
ATHENA_PRICE_PER_TB = 5.0
ATHENA_MINIMUM_BYTES = 10 * 1024 * 1024


class UsageKind(StrEnum):
    JOB_RUN = "JOB_RUN"
    CRAWL = "CRAWL"
    DATA_QUALITY_RUN = "DATA_QUALITY_RUN"
    SESSION = "SESSION"
    ATHENA_QUERY = "ATHENA_QUERY"


def run_dpus(spec: dict[str, object]) -> float:
    """The DPUs a run is billed for, from its worker type and count or its capacity."""
    worker = spec.get("WorkerType")
    workers = spec.get("NumberOfWorkers")
    if isinstance(worker, str) and isinstance(workers, int | float) and worker != "Standard":
        return WORKER_DPUS.get(worker, 1.0) * float(workers)
    capacity = spec.get("MaxCapacity") or spec.get("AllocatedCapacity")
    if isinstance(capacity, int | float) and capacity > 0:
        return float(capacity)
    command = spec.get("Command")
    if isinstance(command, dict) and command.get("Name") == "pythonshell":
        return 0.0625
    return 10.0  # Glue's default capacity of a Spark job


def billed_seconds(kind: UsageKind, seconds: float) -> float:
    """Seconds billed: per second, never less than the kind's minimum."""
    return max(MINIMUM_SECONDS[kind.value], max(0.0, seconds))


@dataclass(frozen=True)
class UsageRecord:
    """One run's billed use."""

    kind: UsageKind
    resource: str  # the job, crawler or ruleset/run name
    resource_arn: str
    run_id: str
    started_on: float
    seconds: float  # how long it ran (to now, if it runs still)
    dpus: float
    flex: bool = False
    user: str = "unknown"
    tags: dict[str, str] = field(default_factory=dict)
    scanned_bytes: int | None = None  # an Athena query's billed scan (None: not billed, as DDL or a failure)

    @property
    def dpu_seconds(self) -> float:
        if self.kind is UsageKind.ATHENA_QUERY:
            return 0.0
        return self.dpus * billed_seconds(self.kind, self.seconds)

    @property
    def cost(self) -> float:
        if self.kind is UsageKind.ATHENA_QUERY:
            if self.scanned_bytes is None:
                return 0.0
            return max(self.scanned_bytes, ATHENA_MINIMUM_BYTES) / 1e12 * ATHENA_PRICE_PER_TB
        price = FLEX_PRICE_PER_DPU_HOUR if self.flex else PRICE_PER_DPU_HOUR
        return self.dpu_seconds / 3600.0 * price


@dataclass
class UsageGroup:
    keys: dict[str, str]
    runs: int = 0
    dpu_seconds: float = 0.0
    cost: float = 0.0
