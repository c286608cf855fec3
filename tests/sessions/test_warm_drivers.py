"""Warm drivers: Spark drivers a server starts ahead (``--warm-drivers``), taken by sessions and job runs of
their shape, each used once, attached to warm JVMs that serve one driver after another; runs on them log,
measure, stop and end as runs on cold drivers do, and share nothing but the JVM."""

from __future__ import annotations

import configparser
import json
import os
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from glueball.runtime.client import boto3_session
from tests.helpers import ServerProcess
from tests.sessions.test_sessions import create, wait_state
from tests.sessions.test_sessions import run as statement

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


def wait_one_jvm(home: Path, timeout: float = 60) -> None:
    """Wait until the pool keeps one warm JVM: spares left by earlier tests (a session's, a stopped run's) are
    retired once the pool needs no more, and the next driver may otherwise attach to one of them."""
    deadline = time.monotonic() + timeout
    alive: set[int] = set()
    while time.monotonic() < deadline:
        alive = set()
        for gateway in (home / "warm").glob("jvm-*/gateway"):
            try:
                pid = int(json.loads(gateway.read_text())["jvm_pid"])
                os.kill(pid, 0)
            except (OSError, ValueError, KeyError):
                continue
            alive.add(pid)
        if len(alive) == 1:
            return
        time.sleep(0.2)
    raise AssertionError(f"the pool kept warm JVMs {sorted(alive)}, not one")


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
    # the warm driver started Spark's catalog client against a catalog of nothing: the server's catalog was not
    # touched before a run took the driver
    assert glue.get_databases()["DatabaseList"] == []
    glue.create_database(DatabaseInput={"Name": "made_before_the_session"})
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
    number = glue.run_statement(SessionId="warm-session", Code=(
        "spark.catalog.currentDatabase(), sorted(r.namespace for r in spark.sql('SHOW DATABASES').collect())"))["Id"]
    while (statement := glue.get_statement(SessionId="warm-session", Id=number)["Statement"])["State"] != "AVAILABLE":
        time.sleep(0.02)
    assert statement["Output"]["Data"]["TextPlain"] == "('default', ['default', 'made_before_the_session'])", \
        statement["Output"]  # the session's Spark SQL reads the server's catalog, where its start made default
    assert sorted(d["Name"] for d in glue.get_databases()["DatabaseList"]) == ["default", "made_before_the_session"]
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


def printed(home: Path, name: str, run_id: str, *, started: bool = True,
            keys: tuple[str, ...] = ("jvm", "views", "partitions", "marker", "hanging")) -> dict[str, str]:
    """What the run printed (lines ``KEY value`` of ``keys``); ``started=False``: nothing yet when its log is not
    there yet (a RUNNING run's driver may not have opened it)."""
    log = home / "logs" / "jobs" / name / run_id / "output.log"
    if not started and not log.exists():
        return {}
    lines = log.read_text().splitlines()
    return {k: v for k, _, v in (line.partition(" ") for line in lines) if k in keys}


def test_runs_one_after_another_share_a_warm_jvm_and_nothing_else(server: ServerProcess, tmp_path: Path) -> None:
    glue = server.client()
    script = tmp_path / "isolation.py"
    script.write_text(ISOLATION)
    glue.create_job(Name="jvm-reuse", Role=ROLE, GlueVersion="4.0", Command={"Name": "glueetl",
                                                                             "ScriptLocation": str(script)})
    seen: list[dict[str, str]] = []
    pids: set[int] = set()
    wait_one_jvm(server.home)
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
    while "hanging" not in printed(server.home, "jvm-reuse", run_id, started=False) and time.monotonic() < deadline:
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
    for process in (pid, host, jvm):  # the driver's keeper, its warm JVM's Python side and the JVM
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and running(process):
            time.sleep(0.2)
        assert not running(process)


def running(pid: int) -> bool:
    try:
        return "zombie" not in Path(f"/proc/{pid}/status").read_text().lower()
    except OSError:
        return False


WAITING = """\
import pathlib
import sys
import time
from awsglue.context import GlueContext
from awsglue.utils import getResolvedOptions
from pyspark.context import SparkContext

args = getResolvedOptions(sys.argv, ["JOB_NAME", "release"])
spark = GlueContext(SparkContext.getOrCreate()).spark_session
print("started", flush=True)
while not pathlib.Path(args["release"]).exists():
    time.sleep(0.1)
spark.range(50).selectExpr("id", "id * 3 AS thrice").write.mode("overwrite").parquet("s3://lake/warm/plain/")
spark.sql("CREATE TABLE made USING parquet LOCATION 's3://lake/warm/ctas/' AS SELECT 7 AS seven")
print("wrote", flush=True)
"""


def test_warm_drivers_serve_their_servers_home_and_outlive_a_server_crash(tmp_path: Path) -> None:
    """``glueball server --home DIR`` with no GLUEBALL_HOME exported, as the README shows: a session and a job run
    on warm drivers write to DIR's lake (as the S3 API lists it), and both live on across kill -9 of the server."""
    home, user = tmp_path / "installation", tmp_path / "user"
    home.mkdir()
    user.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "GLUEBALL_HOME"}
    env.update(HOME=str(user), XDG_CACHE_HOME=os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache"))
    server = ServerProcess(home, warm_drivers=1)
    server.start(env)
    try:
        glue = server.client()
        s3 = boto3_session().client("s3", endpoint_url=server.endpoint, region_name="us-east-1",
                                    aws_access_key_id="AKIDEXAMPLE", aws_secret_access_key="x")
        s3.create_bucket(Bucket="lake")
        first = wait_warm(home)
        create(glue, "lasting")
        assert wait_state(glue, "lasting", ("READY", "FAILED"))["Status"] == "READY"
        assert driver_pid(home, "glue_session", "session_id", "lasting") == first, "a warm session"
        assert statement(glue, "lasting", "kept = 41")["State"] == "AVAILABLE"

        script = tmp_path / "waiting.py"
        script.write_text(WAITING)
        glue.create_job(Name="lasting-job", Role=ROLE, GlueVersion="4.0",
                        Command={"Name": "glueetl", "ScriptLocation": str(script)},
                        DefaultArguments={"--release": str(tmp_path / "release")})
        second = wait_warm(home, exclude={first})  # a JVM of its own: the session holds the first
        run_id = glue.start_job_run(JobName="lasting-job")["JobRunId"]
        wait_run(glue, "lasting-job", run_id, ("RUNNING",))
        assert driver_pid(home, "glue_job_run", "run_id", run_id) == second, "a warm job run"
        output = home / "logs" / "jobs" / "lasting-job" / run_id / "output.log"
        deadline = time.monotonic() + 60
        # the run is RUNNING once its driver takes it, a moment before the driver opens the run's log
        while not (output.exists() and "started" in output.read_text()) and time.monotonic() < deadline:
            time.sleep(0.1)

        server.kill()
        server.extra_args = (*server.extra_args[:-1], "0")  # the restarted server keeps no warm driver of its own
        server.start(env)
        glue = server.client()
        assert glue.get_session(Id="lasting")["Session"]["Status"] == "READY"
        answer = statement(glue, "lasting", "kept + 1")
        assert answer["State"] == "AVAILABLE" and answer["Output"]["Data"]["TextPlain"] == "42", answer
        assert glue.get_job_run(JobName="lasting-job", RunId=run_id)["JobRun"]["JobRunState"] == "RUNNING"
        (tmp_path / "release").write_text("")
        run = wait_run(glue, "lasting-job", run_id, ("SUCCEEDED", "FAILED", "ERROR", "TIMEOUT", "STOPPED"))
        assert run["JobRunState"] == "SUCCEEDED", run.get("ErrorMessage")
        keys = {o["Key"] for o in s3.list_objects_v2(Bucket="lake", Prefix="warm/")["Contents"]}
        assert any(k.startswith("warm/plain/part-") and k.endswith(".parquet") for k in keys), keys
        assert any(k.startswith("warm/ctas/part-") for k in keys), keys
        assert not (user / ".glueball").exists(), "nothing went to another installation's lake"
        glue.stop_session(Id="lasting")
        assert wait_state(glue, "lasting", ("STOPPED", "FAILED"))["Status"] == "STOPPED"
    finally:
        server.stop()


HOMES = """\
import os
from pyspark.sql import SparkSession
from pyspark.sql.functions import udf

spark = SparkSession.builder.getOrCreate()
spark.range(5).write.parquet("s3://lake/plain/")
seen = udf(lambda _: os.environ.get("GLUEBALL_HOME", ""))
print("worker home", spark.range(1).select(seen("id")).collect()[0][0])
"""


def test_a_warm_driver_serves_the_home_of_its_run_not_the_one_it_was_started_in(tmp_path: Path) -> None:
    """Started in one installation, assigned a run of another: the run's plain s3:// writes and its Python workers
    are the run's installation's."""
    import subprocess
    import sys

    started_in, serves = tmp_path / "started-in", tmp_path / "serves"
    (tmp_path / "run").mkdir()
    script = tmp_path / "run" / "homes.py"
    script.write_text(HOMES)
    env = dict(os.environ, GLUEBALL_HOME=str(started_in), GLUEBALL_WARM_READY=str(tmp_path / "ready"))
    driver = subprocess.Popen([sys.executable, "-m", "glueball.runtime.warm_driver", "--spark-master", "local[1]"],
                              stdin=subprocess.PIPE, env=env, cwd=tmp_path, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 180
        while not (tmp_path / "ready").exists() and driver.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert (tmp_path / "ready").exists(), "the warm driver became ready"
        run_env = dict(os.environ, GLUEBALL_HOME=str(serves))
        assignment = {"argv": ["-m", "glueball", "run", str(script)], "env": run_env, "cwd": str(tmp_path / "run"),
                      "stdout": str(tmp_path / "run" / "output.log"), "stderr": str(tmp_path / "run" / "error.log")}
        assert driver.stdin is not None
        driver.stdin.write((json.dumps(assignment) + "\n").encode())
        driver.stdin.close()
        assert driver.wait(180) == 0, (tmp_path / "run" / "error.log").read_text()[-3000:]
    finally:
        driver.kill()
    assert list((serves / "s3" / "lake" / "plain").glob("part-*.parquet")), "written to the run's object store"
    assert not (started_in / "s3").exists()
    assert f"worker home {serves}" in (tmp_path / "run" / "output.log").read_text()


IDENTITY = """\
import os
from pyspark.sql import SparkSession
from glueball.runtime.streaming.kafka import add_feature
from glueball.runtime.streaming.kafka_connection import MSK_IAM_LOGIN_MODULE

spark = SparkSession.builder.getOrCreate()
add_feature(spark, "msk-iam", MSK_IAM_LOGIN_MODULE)  # as a job reading an MSK IAM connection loads it
jvm = spark.sparkContext._jvm
# the MSK IAM login's own credentials chain: environment variables first, then system properties, profiles...
provider = jvm.software.amazon.msk.auth.iam.internals.MSKCredentialProvider(jvm.java.util.HashMap())
print("msk", provider.resolveCredentials().accessKeyId())
print("run", os.environ["AWS_ACCESS_KEY_ID"])
print("jvm", jvm.java.lang.ProcessHandle.current().pid())
"""


def test_a_warm_jvm_signs_as_the_run_that_took_it_not_as_its_server(tmp_path: Path) -> None:
    """A server started with AWS credentials exported: a warm JVM cannot change its environment, so it must not
    start with them - the MSK IAM login reads the environment first and would sign every run's Kafka requests as
    the server. Two runs on one warm JVM each sign as their own role session."""
    from tests.iam.test_identity_server import TRUST_GLUE
    from tests.iam.test_identity_server import client as iam_client

    server = ServerProcess(tmp_path, warm_drivers=1, extra_args=("--auth", "iam"))
    server.start({**os.environ, "AWS_ACCESS_KEY_ID": "AKIASERVERSOWNKEY000", "AWS_SECRET_ACCESS_KEY": "server"})
    try:
        profile = configparser.ConfigParser()
        profile.read(tmp_path / "credentials")
        root = (profile["glueball"]["aws_access_key_id"], profile["glueball"]["aws_secret_access_key"])
        glue, iam = iam_client(server, "glue", *root), iam_client(server, "iam", *root)
        iam.create_role(RoleName="KafkaReader", AssumeRolePolicyDocument=json.dumps(TRUST_GLUE))
        iam.put_role_policy(RoleName="KafkaReader", PolicyName="glue", PolicyDocument=json.dumps({
            "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "glue:*", "Resource": "*"}]}))
        script = tmp_path / "identity.py"
        script.write_text(IDENTITY)
        glue.create_job(Name="msk-reader", Role="KafkaReader", GlueVersion="4.0",
                        Command={"Name": "glueetl", "ScriptLocation": str(script)})
        seen: list[dict[str, str]] = []
        pids: set[int] = set()
        for _ in range(2):
            warm = wait_warm(tmp_path, exclude=pids)
            pids.add(warm)
            run_id = glue.start_job_run(JobName="msk-reader")["JobRunId"]
            run = wait_run(glue, "msk-reader", run_id, ("SUCCEEDED", "FAILED", "ERROR", "TIMEOUT"))
            assert run["JobRunState"] == "SUCCEEDED", run.get("ErrorMessage")
            assert driver_pid(tmp_path, "glue_job_run", "run_id", run_id) == warm, "a warm run"
            seen.append(printed(tmp_path, "msk-reader", run_id, keys=("msk", "run", "jvm")))
        for lines in seen:
            assert lines["run"].startswith("ASIA"), lines  # the role's session, for this run
            assert lines["msk"] == lines["run"], lines
        assert seen[0]["run"] != seen[1]["run"], "each run its own session"
        assert seen[0]["jvm"] == seen[1]["jvm"], "one warm JVM served both"
    finally:
        server.stop()
