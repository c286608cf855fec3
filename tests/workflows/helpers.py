"""Clocks, servers and waits shared by the trigger, workflow and scheduler tests.

Job and crawler builders come from tests/jobs/test_runs.py and tests/api/test_crawlers.py.
"""

from __future__ import annotations

import datetime as dt
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.helpers import ScopedEnviron, ServerProcess, error_of
from tests.jobs.test_runs import ENDED, wait_for

NOOP = "print('ok')\n"
RUN_ENDED = ("COMPLETED", "STOPPED", "ERROR")
PINNED = dt.datetime(2030, 1, 1, 12, 0, tzinfo=dt.UTC)
SCHEDULER_ENV = {"GLUEBALL_SCHEDULER_INTERVAL": "0.2"}


class Clock:
    """The scheduler's time for the servers started with this file."""

    def __init__(self, path: Path, start: dt.datetime = PINNED) -> None:
        self.path = path
        self.set(start)

    def set(self, moment: dt.datetime | float) -> None:
        seconds = moment.timestamp() if isinstance(moment, dt.datetime) else float(moment)
        temporary = self.path.with_name(self.path.name + ".tmp")
        temporary.write_text(f"{seconds:.3f}\n")
        os.replace(temporary, self.path)  # readers never see a half-written file

    def now(self) -> float:
        return float(self.path.read_text())

    def advance(self, seconds: float) -> None:
        self.set(self.now() + seconds)


class ClockedServer(ServerProcess):
    """A server on a clock file whose environment (scheduler interval, ...) is set for every (re)start."""

    def __init__(self, home: Path, store_url: str, clock: Clock, env: dict[str, str] | None = None) -> None:
        super().__init__(home, store_url, ("--clock-file", str(clock.path)))
        self.clock = clock
        self.env = {**SCHEDULER_ENV, **(env or {})}

    def start(self) -> ClockedServer:
        with ScopedEnviron(self.env):
            super().start()
        return self

    def up(self) -> bool:
        return self.proc is not None and self.proc.poll() is None


MakeServer = Callable[..., ClockedServer]


def client_error(call: Callable[[], Any]) -> tuple[str, str]:
    """The (code, message) of the ClientError ``call`` raises."""
    with pytest.raises(ClientError) as excinfo:
        call()
    return error_of(excinfo)


def wait_workflow_run(glue: Any, name: str, run_id: str, statuses: tuple[str, ...] = RUN_ENDED,
                      timeout: float = 60.0) -> Any:
    """Wait for a workflow run to reach one of ``statuses``; the run with its graph."""
    def reached() -> Any:
        run = glue.get_workflow_run(Name=name, RunId=run_id, IncludeGraph=True)["Run"]
        return run if run["Status"] in statuses else None

    return wait_for(reached, timeout, f"workflow run {run_id} in {statuses}")


def nodes_by_name(run: Any) -> dict[str, Any]:
    """A run's graph nodes by job, crawler or trigger name."""
    return {n["Name"]: n for n in run["Graph"]["Nodes"]}


def statistics(**counts: int) -> dict[str, int]:
    """Glue's WorkflowRunStatistics with the given counts and zero elsewhere."""
    zero = dict.fromkeys(("TotalActions", "TimeoutActions", "FailedActions", "StoppedActions", "SucceededActions",
                          "RunningActions", "ErroredActions", "WaitingActions"), 0)
    return {**zero, **counts}


def at(day: int, hour: int, minute: int, second: int = 0) -> dt.datetime:
    """A moment of March 2030 (UTC)."""
    return dt.datetime(2030, 3, day, hour, minute, second, tzinfo=dt.UTC)


def settle() -> None:
    """Let the scheduler tick a few times (interval 0.2 s) before checking that nothing happened."""
    time.sleep(0.7)


def job_runs(glue: Any, job: str) -> list[Any]:
    """The job's runs, newest first."""
    return list(glue.get_job_runs(JobName=job)["JobRuns"])


def wait_runs(glue: Any, job: str, count: int, timeout: float = 60.0) -> list[Any]:
    """Wait for ``count`` job runs of ``job``, all ended (failing at once if more appear); newest first."""
    def ended() -> Any:
        found = job_runs(glue, job)
        assert len(found) <= count, f"{len(found)} runs of {job}, expected {count}"
        return found if len(found) == count and all(r["JobRunState"] in ENDED for r in found) else None

    return list(wait_for(ended, timeout, f"{count} ended runs of {job}"))


def on_job(job: str, state: str = "SUCCEEDED") -> dict[str, str]:
    """A trigger condition on a job run's state (Glue requires its LogicalOperator)."""
    return {"LogicalOperator": "EQUALS", "JobName": job, "State": state}


def on_crawl(crawler: str, state: str = "SUCCEEDED") -> dict[str, str]:
    """A trigger condition on a crawl's state."""
    return {"LogicalOperator": "EQUALS", "CrawlerName": crawler, "CrawlState": state}
