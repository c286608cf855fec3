"""What a workflow costs over starting the same jobs by hand, and how late the scheduler fires.

    .venv/bin/python bench/workflows.py [--steps 5] [--rounds 3] [--interval 1.0]

Against a real ``glueball server`` (temporary GLUEBALL_HOME, SQLite), through boto3 only:

1. A chain of ``--steps`` Python shell jobs (each a trivial script) as a workflow: an ON_DEMAND
   start trigger and CONDITIONAL triggers "previous SUCCEEDED -> next". StartWorkflowRun ->
   COMPLETED, against the baseline of a client running the same jobs one after another itself
   (StartJobRun, poll GetJobRun every 20 ms until SUCCEEDED, next). p50 of ``--rounds``, alternating.
   The difference per step is what the scheduler's hand-off costs.
2. Fire lateness: a SCHEDULED trigger with a job action under the server's clock file; the clock is
   moved past a due time and the time until the job run shows up (GetJobRuns polled every 20 ms)
   is measured, ``--rounds`` times. Bounded by the scheduler's interval (``--interval``).

Nothing is asserted against a time; figures and ratios are printed.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.helpers import ServerProcess  # noqa: E402

SCRIPT = "import sys\nprint('step', sys.argv[1:3])\n"
POLL = 0.02


def _wait(check: Any, timeout: float = 120.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(POLL)
    raise RuntimeError("timed out")


def _define(glue: Any, home: Path, steps: int) -> list[str]:
    script = home / "s3" / "scripts" / "step.py"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(SCRIPT)
    jobs = [f"step-{i}" for i in range(steps)]
    for job in jobs:
        glue.create_job(Name=job, Role="bench", Command={"Name": "pythonshell", "ScriptLocation":
                                                         "s3://scripts/step.py"})
    glue.create_workflow(Name="chain")
    glue.create_trigger(Name="chain-start", WorkflowName="chain", Type="ON_DEMAND", Actions=[{"JobName": jobs[0]}])
    for before, after in zip(jobs, jobs[1:], strict=False):
        glue.create_trigger(Name=f"after-{before}", WorkflowName="chain", Type="CONDITIONAL", StartOnCreation=True,
                            Predicate={"Conditions": [{"LogicalOperator": "EQUALS", "JobName": before,
                                                       "State": "SUCCEEDED"}]},
                            Actions=[{"JobName": after}])
    return jobs


def _by_hand(glue: Any, jobs: list[str]) -> float:
    start = time.perf_counter()
    for job in jobs:
        run_id = glue.start_job_run(JobName=job)["JobRunId"]
        state = _wait(lambda j=job, r=run_id: (s := glue.get_job_run(JobName=j, RunId=r)["JobRun"]["JobRunState"])
                      in ("SUCCEEDED", "FAILED") and s)
        assert state == "SUCCEEDED", state
    return time.perf_counter() - start


def _as_workflow(glue: Any, steps: int) -> float:
    start = time.perf_counter()
    run_id = glue.start_workflow_run(Name="chain")["RunId"]
    run = _wait(lambda: (r := glue.get_workflow_run(Name="chain", RunId=run_id)["Run"])["Status"] == "COMPLETED"
                and r)
    elapsed = time.perf_counter() - start
    assert run["Statistics"]["SucceededActions"] == steps, run["Statistics"]
    return elapsed


def _lateness(glue: Any, clock: Path, rounds: int) -> list[float]:
    glue.create_job(Name="scheduled", Role="bench", Command={"Name": "pythonshell",
                                                             "ScriptLocation": "s3://scripts/step.py"})
    base = dt.datetime(2030, 1, 1, 2, 0, tzinfo=dt.UTC)
    clock.write_text(str(base.timestamp()))
    glue.create_trigger(Name="nightly", Type="SCHEDULED", Schedule="cron(0 3 * * ? *)",
                        Actions=[{"JobName": "scheduled"}], StartOnCreation=True)
    late = []
    for day in range(rounds):
        due = base + dt.timedelta(days=day, hours=1)
        before = len(glue.get_job_runs(JobName="scheduled")["JobRuns"])
        clock.write_text(str((due + dt.timedelta(seconds=1)).timestamp()))
        moved = time.perf_counter()
        _wait(lambda b=before: len(glue.get_job_runs(JobName="scheduled")["JobRuns"]) > b)
        late.append(time.perf_counter() - moved)
    return late


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--interval", type=float, default=1.0)
    options = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="bench-workflows-"))
    clock = home / "clock"
    os.environ["GLUEBALL_SCHEDULER_INTERVAL"] = str(options.interval)
    server = ServerProcess(home, extra_args=("--clock-file", str(clock))).start()
    try:
        glue = server.client()
        jobs = _define(glue, home, options.steps)
        hand, flow = [], []
        for _ in range(options.rounds):
            hand.append(_by_hand(glue, jobs))
            flow.append(_as_workflow(glue, options.steps))
        p_hand, p_flow = statistics.median(hand), statistics.median(flow)
        print(f"chain of {options.steps} python shell jobs, p50 of {options.rounds}:")
        print(f"  by hand (StartJobRun + poll, one after another): {p_hand:.2f} s")
        print(f"  as a workflow (CONDITIONAL triggers):             {p_flow:.2f} s  "
              f"ratio {p_flow / p_hand:.2f}x, {(p_flow - p_hand) / options.steps * 1000:+.0f} ms per step")
        late = _lateness(glue, clock, options.rounds)
        print(f"scheduled fire lateness (clock moved past the due time -> job run exists), scheduler interval "
              f"{options.interval:.1f} s: p50 {statistics.median(late) * 1000:.0f} ms, max {max(late) * 1000:.0f} ms")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
