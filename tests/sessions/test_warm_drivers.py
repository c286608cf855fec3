"""Warm drivers: Spark drivers a server starts ahead (``--warm-drivers``), taken by sessions and job runs of
their shape, each used once, attached to warm JVMs that serve one driver after another; runs on them log,
measure, stop and end as runs on cold drivers do, and share nothing but the JVM."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from glueball.runtime.client import boto3_session
from tests.helpers import ServerProcess

ROLE = "arn:aws:iam::123456789012:role/GlueRole"
SCRIPT = """\
import sys
from awsglue.context import GlueContext
from awsglue.utils import getResolvedOptions
from pyspark.context import SparkContext

args = getResolvedOptions(sys.argv, ["JOB_NAME", "output"])
glueContext = GlueContext(SparkContext.getOrCreate())
frame = glueContext.spark_session.range(100).selectExpr("id", "id * 2 AS twice")
frame.write.mode("overwrite").parquet(args["output"])
print("wrote", frame.count(), "rows")
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    running = ServerProcess(tmp_path_factory.mktemp("warm-home"), warm_drivers=1).start()
    yield running
    running.stop()


def ready_warm_pids(home: Path) -> set[int]:
    return {int(ready.read_text()) for ready in (home / "warm").glob("*/ready") if ready.read_text().strip()}


def wait_warm(home: Path, exclude: set[int] = frozenset(), timeout: float = 120) -> int:  # type: ignore[assignment]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        fresh = ready_warm_pids(home) - exclude
        if fresh:
            return fresh.pop()
        time.sleep(0.2)
    raise AssertionError("no warm driver became ready")


def driver_pid(home: Path, table: str, key: str, value: str) -> int:
    with sqlite3.connect(home / "glueball.db") as db:
        return int(db.execute(f"SELECT driver_pid FROM {table} WHERE {key} = ?", (value,)).fetchone()[0])


def wait_run(glue: Any, name: str, run_id: str, states: tuple[str, ...], timeout: float = 120) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run = glue.get_job_run(JobName=name, RunId=run_id)["JobRun"]
        if run["JobRunState"] in states:
            return dict(run)
        time.sleep(0.1)
    raise AssertionError(f"{name} run {run_id} never reached {states}: {run}")


def test_a_session_takes_a_warm_driver_and_the_pool_refills(server: ServerProcess) -> None:
    warm = wait_warm(server.home)
    glue = server.client()
    glue.create_session(Id="warm-session", Role=ROLE, Command={"Name": "glueetl", "PythonVersion": "3"})
    deadline = time.monotonic() + 60
    while glue.get_session(Id="warm-session")["Session"]["Status"] == "PROVISIONING" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert glue.get_session(Id="warm-session")["Session"]["Status"] == "READY"
    assert driver_pid(server.home, "glue_session", "session_id", "warm-session") == warm, "it took the warm driver"
    number = glue.run_statement(SessionId="warm-session", Code="spark.range(10).count()")["Id"]
    while (statement := glue.get_statement(SessionId="warm-session", Id=number)["Statement"])["State"] != "AVAILABLE":
        time.sleep(0.02)
    assert statement["Output"]["Data"]["TextPlain"] == "10"
    refill = wait_warm(server.home, exclude={warm})
    assert refill != warm
    glue.stop_session(Id="warm-session")


def test_job_runs_take_warm_drivers_and_behave_as_cold_ones(server: ServerProcess, tmp_path: Path) -> None:
    glue = server.client()
    script = tmp_path / "job.py"
    script.write_text(SCRIPT)
    glue.create_job(Name="warm-job", Role=ROLE, GlueVersion="4.0",
                    Command={"Name": "glueetl", "ScriptLocation": str(script)},
                    DefaultArguments={"--output": str(tmp_path / "out")})
    seen: set[int] = set()
    for _ in range(2):  # each run takes a fresh warm driver: one run per driver
        warm = wait_warm(server.home, exclude=seen)
        seen.add(warm)
        run_id = glue.start_job_run(JobName="warm-job")["JobRunId"]
        run = wait_run(glue, "warm-job", run_id, ("SUCCEEDED", "FAILED", "ERROR", "TIMEOUT"))
        assert run["JobRunState"] == "SUCCEEDED", run.get("ErrorMessage")
        assert driver_pid(server.home, "glue_job_run", "run_id", run_id) == warm
        log = server.home / "logs" / "jobs" / "warm-job" / run_id / "output.log"
        assert "wrote 100 rows" in log.read_text()
        assert run["ExecutionTime"] >= 0 and run["DPUSeconds"] > 0
    parts = list((tmp_path / "out").glob("part-*.parquet"))
    assert parts, "the script's output is where it said"
    internal = boto3_session().client("glueball", endpoint_url=server.endpoint, region_name="us-east-1",
                                      aws_access_key_id="AKIDEXAMPLE", aws_secret_access_key="x")
    metrics = internal.get_job_run_metrics(JobName="warm-job", RunId=run_id)["Metrics"]
    assert metrics["records_written"] == 100, "metrics come from the warm driver's Spark event log"

    script.write_text("import time\ntime.sleep(120)\n")
    warm = wait_warm(server.home, exclude=seen)
    run_id = glue.start_job_run(JobName="warm-job")["JobRunId"]
    wait_run(glue, "warm-job", run_id, ("RUNNING",))
    assert driver_pid(server.home, "glue_job_run", "run_id", run_id) == warm
    glue.batch_stop_job_run(JobName="warm-job", JobRunIds=[run_id])
    stopped = wait_run(glue, "warm-job", run_id, ("STOPPED", "FAILED", "SUCCEEDED"), timeout=60)
    assert stopped["JobRunState"] == "STOPPED"


ISOLATION = """\
import builtins
import sys
from awsglue.context import GlueContext
from pyspark.context import SparkContext

glueContext = GlueContext(SparkContext.getOrCreate())
spark = glueContext.spark_session
print("jvm", spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid())
print("views", sorted(t.name for t in spark.catalog.listTables()))
print("partitions", spark.conf.get("spark.sql.shuffle.partitions"))
print("marker", hasattr(builtins, "left_by_a_run"))
spark.range(3).createOrReplaceTempView("left_behind")
spark.range(10).cache().count()
spark.conf.set("spark.sql.shuffle.partitions", "3")
builtins.left_by_a_run = True
if "--hang" in sys.argv:
    print("hanging", flush=True)
    spark.range(1, 10**6, numPartitions=2).rdd.map(lambda x: __import__("time").sleep(1) or x).count()
"""


def printed(home: Path, name: str, run_id: str) -> dict[str, str]:
    lines = (home / "logs" / "jobs" / name / run_id / "output.log").read_text().splitlines()
    return {k: v for k, _, v in (line.partition(" ") for line in lines) if k in ("jvm", "views", "partitions",
                                                                                  "marker", "hanging")}


def test_runs_one_after_another_share_a_warm_jvm_and_nothing_else(server: ServerProcess, tmp_path: Path) -> None:
    glue = server.client()
    script = tmp_path / "isolation.py"
    script.write_text(ISOLATION)
    glue.create_job(Name="jvm-reuse", Role=ROLE, GlueVersion="4.0", Command={"Name": "glueetl",
                                                                             "ScriptLocation": str(script)})
    seen: list[dict[str, str]] = []
    pids: set[int] = set()
    for _ in range(2):
        warm = wait_warm(server.home, exclude=pids)
        pids.add(warm)
        run_id = glue.start_job_run(JobName="jvm-reuse")["JobRunId"]
        run = wait_run(glue, "jvm-reuse", run_id, ("SUCCEEDED", "FAILED", "ERROR", "TIMEOUT"))
        assert run["JobRunState"] == "SUCCEEDED", run.get("ErrorMessage")
        assert driver_pid(server.home, "glue_job_run", "run_id", run_id) == warm, "a new driver process each run"
        seen.append(printed(server.home, "jvm-reuse", run_id))
    first, second = seen
    assert first["jvm"] == second["jvm"], "the second run's driver attached to the first one's JVM"
    assert second["views"] == "[]", "no temporary view of the first run"
    assert second["partitions"] == first["partitions"] != "3", "no setting of the first run"
    assert second["marker"] == "False", "no Python state of the first run"

    # a run stopped mid-job leaves its SparkContext and a running Spark job in the JVM: it is reset for the next
    warm = wait_warm(server.home, exclude=pids)
    pids.add(warm)
    run_id = glue.start_job_run(JobName="jvm-reuse", Arguments={"--hang": "yes"})["JobRunId"]
    wait_run(glue, "jvm-reuse", run_id, ("RUNNING",))
    deadline = time.monotonic() + 60
    while "hanging" not in printed(server.home, "jvm-reuse", run_id) and time.monotonic() < deadline:
        time.sleep(0.2)
    glue.batch_stop_job_run(JobName="jvm-reuse", JobRunIds=[run_id])
    assert wait_run(glue, "jvm-reuse", run_id, ("STOPPED", "FAILED", "SUCCEEDED"), timeout=60)["JobRunState"] == \
        "STOPPED"
    warm = wait_warm(server.home, exclude=pids)
    run_id = glue.start_job_run(JobName="jvm-reuse")["JobRunId"]
    run = wait_run(glue, "jvm-reuse", run_id, ("SUCCEEDED", "FAILED", "ERROR", "TIMEOUT"))
    assert run["JobRunState"] == "SUCCEEDED", run.get("ErrorMessage")
    assert driver_pid(server.home, "glue_job_run", "run_id", run_id) == warm
    after = printed(server.home, "jvm-reuse", run_id)
    assert after["jvm"] == first["jvm"] and after["views"] == "[]", "the same JVM, reset"


def test_idle_warm_drivers_end_with_their_server(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path, warm_drivers=1).start()
    pid = wait_warm(tmp_path)
    host = int(next((tmp_path / "warm").glob("*/jvm")).read_text())
    jvm = int(json.loads(next((tmp_path / "warm").glob("jvm-*/gateway")).read_text())["jvm_pid"])
    assert server.proc is not None
    server.proc.kill()  # no shutdown: the driver must notice by itself
    server.proc.wait()
    server.proc = None
    for process in (pid, host, jvm):  # the driver, its warm JVM's keeper and the JVM
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and running(process):
            time.sleep(0.2)
        assert not running(process)


def running(pid: int) -> bool:
    try:
        return "zombie" not in Path(f"/proc/{pid}/status").read_text().lower()
    except OSError:
        return False
