"""Job runs with real driver processes, through boto3 against a server (SQLite and PostgreSQL).

The servers here are started with ``GLUEBALL_JOB_TIMEOUT_UNIT_SECONDS=1`` (a testing knob:
``Timeout`` counts seconds), so a run can be watched timing out. Most runs are Python shell
jobs, which start in a fraction of a second; one Spark run per store goes through
``glueball run``. Scripts live in the server's object store (``s3://scripts/...``).
"""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import urllib3
from botocore.exceptions import ClientError

from tests.helpers import (
    ServerProcess,
    create_postgres_database,
    drop_postgres_database,
    error_of,
    unique,
    wait_for,
)

ENDED = ("STOPPED", "SUCCEEDED", "FAILED", "TIMEOUT", "ERROR")

REPORT = '''
import json, os, sys
out = sys.argv[sys.argv.index("--out") + 1]
json.dump({"argv": sys.argv[1:], "pid": os.getpid(),
           "env": {k: v for k, v in os.environ.items() if k.startswith(("GLUEBALL_", "AWS_"))}}, open(out, "w"))
'''

FAIL = '''
def load():
    raise ValueError("the input bucket is empty")
load()
'''

# writes its pid, then waits (up to 120 s) for a file to appear
WAIT = '''
import os, sys, time
args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
open(args["--pidfile"] + ".tmp", "w").write(str(os.getpid()))
os.replace(args["--pidfile"] + ".tmp", args["--pidfile"])
deadline = time.time() + 120
while time.time() < deadline and not os.path.exists(args.get("--release", "/nonexistent")):
    time.sleep(0.05)
print("released")
'''

BOTO3 = '''
import os, sys, boto3
args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
glue = boto3.client("glue")
glue.create_database(DatabaseInput={"Name": args["--database"], "Description": os.environ["GLUEBALL_ENDPOINT"]})
print("created", args["--database"])
'''

SPARK = '''
import sys
from pyspark.context import SparkContext
from awsglue.context import GlueContext
from awsglue.job import Job
from awsglue.utils import getResolvedOptions

args = getResolvedOptions(sys.argv, ["JOB_NAME", "input", "output"])
glue_context = GlueContext(SparkContext.getOrCreate())
job = Job(glue_context)
job.init(args["JOB_NAME"], args)
frame = glue_context.spark_session.read.json(args["input"])
frame.filter("amount > 1").write.mode("overwrite").json(args["output"])
print("rows", frame.count())
job.commit()
'''


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def runs_server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server whose job Timeouts count seconds (GLUEBALL_JOB_TIMEOUT_UNIT_SECONDS=1)."""
    home: Path = tmp_path_factory.mktemp(f"jobs-{request.param}")
    store_url = create_postgres_database() if request.param == "postgres" else ""
    saved = os.environ.get("GLUEBALL_JOB_TIMEOUT_UNIT_SECONDS")
    os.environ["GLUEBALL_JOB_TIMEOUT_UNIT_SECONDS"] = "1"
    try:
        proc = ServerProcess(home, store_url).start()
    finally:
        if saved is None:
            os.environ.pop("GLUEBALL_JOB_TIMEOUT_UNIT_SECONDS")
        else:
            os.environ["GLUEBALL_JOB_TIMEOUT_UNIT_SECONDS"] = saved
    yield proc
    proc.stop()
    if store_url:
        drop_postgres_database(store_url)


@pytest.fixture()
def glue(runs_server: ServerProcess) -> Any:
    return runs_server.client()


def put_script(server: ServerProcess, text: str) -> str:
    """Store a script in the server's object store; its s3:// location."""
    key = f"{unique('script')}.py"
    path = server.home / "s3" / "scripts" / key
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return f"s3://scripts/{key}"


def create_job(glue: Any, server: ServerProcess, script: str, kind: str = "pythonshell", **extra: Any) -> str:
    name = unique("job")
    glue.create_job(Name=name, Role="GlueRole", Command={"Name": kind, "ScriptLocation": put_script(server, script)},
                    **extra)
    return name


def wait_run(glue: Any, name: str, run_id: str, states: tuple[str, ...] = ENDED, timeout: float = 60.0) -> Any:
    def reached() -> Any:
        run = glue.get_job_run(JobName=name, RunId=run_id)["JobRun"]
        return run if run["JobRunState"] in states else None

    return wait_for(reached, timeout, f"run {run_id} in {states}")


def pid_of(path: Path) -> int:
    return int(wait_for(lambda: path.exists() and path.read_text(), what=f"pid file {path}"))


def test_a_run_succeeds_with_merged_arguments_and_its_logs(glue: Any, runs_server: ServerProcess,
                                                            tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    name = create_job(glue, runs_server, REPORT + "print('report written')\n",
                      DefaultArguments={"--out": str(out), "--color": "blue", "--size": "1"},
                      NonOverridableArguments={"--locked": "yes"})
    run_id = glue.start_job_run(JobName=name, Arguments={"--size": "2", "--locked": "no"})["JobRunId"]
    assert run_id.startswith("jr_")
    run = wait_run(glue, name, run_id)
    assert run["JobRunState"] == "SUCCEEDED", run
    report = json.loads(out.read_text())
    argv = report["argv"]
    assert argv[:3] == ["--JOB_NAME", name, "--JOB_ID"]
    assert argv[4:8] == ["--JOB_RUN_ID", run_id, "--job-bookmark-option", "job-bookmark-disable"]
    assert argv[3].startswith("j_")
    pairs = dict(zip(argv[8::2], argv[9::2], strict=True))
    assert pairs == {"--out": str(out), "--color": "blue", "--size": "2", "--locked": "yes"}
    env = report["env"]
    assert env["GLUEBALL_ENDPOINT"] == runs_server.endpoint
    assert env["GLUEBALL_JOB_NAME"] == name and env["GLUEBALL_JOB_RUN_ID"] == run_id
    assert env["GLUEBALL_JOB_ATTEMPT"] == "0" and "GLUEBALL_PREVIOUS_RUN_ID" not in env
    assert env["GLUEBALL_HOME"] == str(runs_server.home)
    assert env["AWS_ACCESS_KEY_ID"] == "AKIDEXAMPLE" and env["AWS_REGION"] == "us-east-1"
    assert run["Arguments"] == {"--size": "2", "--locked": "no"}
    assert run["Attempt"] == 0 and "PreviousRunId" not in run and "ErrorMessage" not in run
    assert run["LogGroupName"] == "/aws-glue/jobs"
    assert run["CompletedOn"] >= run["StartedOn"]
    assert run["MaxCapacity"] == 0.0625 and run["Timeout"] == 2880 and run["GlueVersion"] == "3.0"
    assert run["ExecutionTime"] >= 1 and run["DPUSeconds"] > 0
    logs = runs_server.home / "logs" / "jobs" / name / run_id
    assert (logs / "output.log").read_text() == "report written\n"
    assert (logs / "error.log").read_text() == ""
    metrics = json.loads((logs / "metrics.json").read_text())
    assert metrics["JobRunState"] == "SUCCEEDED" and metrics["ExitCode"] == 0


def test_a_failing_script_fails_the_run_with_its_exception(glue: Any, runs_server: ServerProcess) -> None:
    name = create_job(glue, runs_server, FAIL)
    run_id = glue.start_job_run(JobName=name)["JobRunId"]
    run = wait_run(glue, name, run_id)
    assert run["JobRunState"] == "FAILED"
    assert run["ErrorMessage"] == "ValueError: the input bucket is empty"
    assert "Traceback" in (runs_server.home / "logs" / "jobs" / name / run_id / "error.log").read_text()


def test_a_missing_script_fails_the_run(glue: Any, runs_server: ServerProcess) -> None:
    name = unique("job")
    glue.create_job(Name=name, Role="r", Command={"Name": "pythonshell", "ScriptLocation": "s3://scripts/none.py"})
    run = wait_run(glue, name, glue.start_job_run(JobName=name)["JobRunId"])
    assert run["JobRunState"] == "FAILED"
    assert run["ErrorMessage"].startswith("Script s3://scripts/none.py does not exist")


def test_kill_9_of_the_driver_fails_the_run(glue: Any, runs_server: ServerProcess, tmp_path: Path) -> None:
    name = create_job(glue, runs_server, WAIT, DefaultArguments={"--pidfile": str(tmp_path / "pid")})
    run_id = glue.start_job_run(JobName=name)["JobRunId"]
    pid = pid_of(tmp_path / "pid")
    assert wait_run(glue, name, run_id, ("RUNNING",))["JobRunState"] == "RUNNING"
    os.kill(pid, signal.SIGKILL)
    run = wait_run(glue, name, run_id)
    assert run["JobRunState"] == "FAILED"
    assert run["ErrorMessage"] == f"Job run driver (pid {pid}) was killed (signal 9)"


def test_a_run_over_its_timeout_ends_timeout(glue: Any, runs_server: ServerProcess, tmp_path: Path) -> None:
    name = create_job(glue, runs_server, WAIT, DefaultArguments={"--pidfile": str(tmp_path / "pid")}, Timeout=30)
    run_id = glue.start_job_run(JobName=name, Timeout=2)["JobRunId"]
    pid = pid_of(tmp_path / "pid")
    run = wait_run(glue, name, run_id, timeout=30)
    assert run["JobRunState"] == "TIMEOUT"
    assert run["Timeout"] == 2
    assert run["ErrorMessage"] == f"Job run {run_id} exceeded its Timeout of 2 minute(s) and was stopped"
    assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split(")")[1][:3]


def test_concurrency_limit_and_batch_stop(glue: Any, runs_server: ServerProcess, tmp_path: Path) -> None:
    name = create_job(glue, runs_server, WAIT, DefaultArguments={"--pidfile": str(tmp_path / "pid")},
                      ExecutionProperty={"MaxConcurrentRuns": 1})
    first = glue.start_job_run(JobName=name)["JobRunId"]
    with pytest.raises(ClientError) as excinfo:
        glue.start_job_run(JobName=name)
    assert error_of(excinfo) == ("ConcurrentRunsExceededException", f"Concurrent runs exceeded for {name}")
    pid = pid_of(tmp_path / "pid")
    wait_run(glue, name, first, ("RUNNING",))
    answer = glue.batch_stop_job_run(JobName=name, JobRunIds=[first, "jr_missing"])
    assert answer["SuccessfulSubmissions"] == [{"JobName": name, "JobRunId": first}]
    assert answer["Errors"] == [{"JobName": name, "JobRunId": "jr_missing", "ErrorDetail": {
        "ErrorCode": "EntityNotFoundException", "ErrorMessage": f"Job run jr_missing of job {name} not found"}}]
    run = wait_run(glue, name, first)
    assert run["JobRunState"] == "STOPPED" and "ErrorMessage" not in run
    assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split(")")[1][:3]
    again = glue.batch_stop_job_run(JobName=name, JobRunIds=[first])
    assert again["SuccessfulSubmissions"] == []
    assert again["Errors"][0]["ErrorDetail"] == {
        "ErrorCode": "InvalidInputException",
        "ErrorMessage": f"Job run {first} cannot be stopped in its current state STOPPED"}
    (tmp_path / "pid").unlink()
    second = glue.start_job_run(JobName=name, Arguments={"--release": str(tmp_path / "go")})["JobRunId"]
    pid_of(tmp_path / "pid")
    (tmp_path / "go").write_text("")
    assert wait_run(glue, name, second)["JobRunState"] == "SUCCEEDED"
    runs = glue.get_job_runs(JobName=name)["JobRuns"]
    assert [r["Id"] for r in runs] == [second, first]


def test_max_retries_start_new_attempts_with_previous_run_id(glue: Any, runs_server: ServerProcess) -> None:
    name = create_job(glue, runs_server, FAIL, MaxRetries=2)
    first = glue.start_job_run(JobName=name, Arguments={"--tag": "x"})["JobRunId"]

    def three_ended() -> Any:
        found = glue.get_job_runs(JobName=name)["JobRuns"]
        return found if len(found) == 3 and all(r["JobRunState"] in ENDED for r in found) else None

    runs = wait_for(three_ended, 60, "three attempts")
    newest_first = [(r["Id"], r["Attempt"], r.get("PreviousRunId"), r["JobRunState"]) for r in runs]
    assert newest_first == [
        (f"{first}_attempt_2", 2, f"{first}_attempt_1", "FAILED"),
        (f"{first}_attempt_1", 1, first, "FAILED"),
        (first, 0, None, "FAILED"),
    ]
    assert all(r["Arguments"] == {"--tag": "x"} for r in runs)
    assert all(r["ErrorMessage"] == "ValueError: the input bucket is empty" for r in runs)


def test_a_python_shell_job_uses_boto3_against_the_server(glue: Any, runs_server: ServerProcess) -> None:
    database = unique("made_by_job")
    name = create_job(glue, runs_server, BOTO3, DefaultArguments={"--database": database})
    run = wait_run(glue, name, glue.start_job_run(JobName=name)["JobRunId"])
    assert run["JobRunState"] == "SUCCEEDED", run.get("ErrorMessage")
    assert glue.get_database(Name=database)["Database"]["Description"] == runs_server.endpoint


@pytest.mark.spark
def test_a_spark_job_runs_through_glueball_run_with_metrics(glue: Any, runs_server: ServerProcess) -> None:
    data = runs_server.home / "s3" / "data" / unique("orders")
    data.mkdir(parents=True)
    (data / "part-0.json").write_text("".join(json.dumps({"id": i, "amount": i}) + "\n" for i in range(10)))
    output = f"{data}-out"
    name = create_job(glue, runs_server, SPARK, kind="glueetl", WorkerType="G.1X", NumberOfWorkers=2,
                      DefaultArguments={"--input": str(data), "--output": output})
    run_id = glue.start_job_run(JobName=name)["JobRunId"]
    run = wait_run(glue, name, run_id, timeout=240)
    assert run["JobRunState"] == "SUCCEEDED", run.get("ErrorMessage")
    assert run["WorkerType"] == "G.1X" and run["NumberOfWorkers"] == 2 and run["MaxCapacity"] == 2.0
    assert "rows 10" in (runs_server.home / "logs" / "jobs" / name / run_id / "output.log").read_text()
    written = sum(len(p.read_text().splitlines()) for p in Path(output).glob("part-*"))
    assert written == 8
    response = urllib3.PoolManager().request(
        "POST", runs_server.endpoint + "/", body=json.dumps({"JobName": name, "RunId": run_id}).encode(),
        headers={"X-Amz-Target": "Glueball.GetJobRunMetrics", "Content-Type": "application/x-amz-json-1.1"})
    assert response.status == 200
    metrics = json.loads(response.data)
    assert metrics["JobRunState"] == "SUCCEEDED"
    assert metrics["Metrics"]["records_written"] == 8
    assert metrics["Metrics"]["records_read"] >= 10
    assert metrics["DPUSeconds"] == run["DPUSeconds"] > 0
    assert metrics["OutputLog"].endswith(f"{run_id}/output.log")
    assert any((runs_server.home / "logs" / "jobs" / name / run_id / "events").iterdir())


def test_restart_reconciles_dead_drivers_and_watches_live_ones(tmp_path: Path) -> None:
    (tmp_path / "home").mkdir()
    server = ServerProcess(tmp_path / "home").start()
    try:
        glue = server.client()
        live = create_job(glue, server, WAIT, DefaultArguments={"--pidfile": str(tmp_path / "live.pid"),
                                                                "--release": str(tmp_path / "go")})
        dead = create_job(glue, server, WAIT, DefaultArguments={"--pidfile": str(tmp_path / "dead.pid")})
        live_run = glue.start_job_run(JobName=live)["JobRunId"]
        dead_run = glue.start_job_run(JobName=dead)["JobRunId"]
        live_pid, dead_pid = pid_of(tmp_path / "live.pid"), pid_of(tmp_path / "dead.pid")
        wait_run(glue, live, live_run, ("RUNNING",))
        wait_run(glue, dead, dead_run, ("RUNNING",))
        assert server.proc is not None
        server.proc.send_signal(signal.SIGKILL)
        server.proc.wait()
        os.kill(dead_pid, signal.SIGKILL)
        wait_for(lambda: not Path(f"/proc/{dead_pid}").exists(), 10, "the dead driver to go")
        server.proc = None
        server.start()
        glue = server.client()
        dead_state = glue.get_job_run(JobName=dead, RunId=dead_run)["JobRun"]
        assert dead_state["JobRunState"] == "FAILED"
        assert dead_state["ErrorMessage"] == f"Job run driver (pid {dead_pid}) was killed (signal 9)"
        assert glue.get_job_run(JobName=live, RunId=live_run)["JobRun"]["JobRunState"] == "RUNNING"
        assert Path(f"/proc/{live_pid}").exists()
        (tmp_path / "go").write_text("")
        assert wait_run(glue, live, live_run)["JobRunState"] == "SUCCEEDED"
    finally:
        server.stop()
