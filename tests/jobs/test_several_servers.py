"""Three ``glueball server`` processes on one PostgreSQL store and one remote object store (a real moto_server),
behind a round-robin load balancer every client call goes through: each of 50 scheduled fires happens exactly once
with one server killed midway; a server killed (-9) while it watches a run leaves the run to another server, which
adopts its driver (same host) and records how it really ended; a server on another host (its own UTS namespace,
another host name) that dies leaves its run FAILED, saying so, after the heartbeat timeout; ``/ready`` says each
server is ready."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from tests.helpers import ServerProcess, create_postgres_database, drop_postgres_database, unique, wait_for
from tests.jobs.balancer import RoundRobin
from tests.jobs.test_crashes import STEP, runner_of
from tests.streaming.kinesis_helpers import MotoServer

pytestmark = pytest.mark.postgres

ENDED = ("STOPPED", "SUCCEEDED", "FAILED", "TIMEOUT", "ERROR")
HEARTBEAT_TIMEOUT = 8  # seconds, for the server "on another host"
FIRES = 50
START = 1_800_000_000  # the rehearsal clock's first moment (epoch seconds, a multiple of 300)


class Cluster:
    """The servers, their balancer, the store and the object store of one installation."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.moto = MotoServer.start(tmp)
        self.store = create_postgres_database()
        self.clock = tmp / "clock"
        self.clock.write_text(str(START))
        self.servers = [ServerProcess(self.home(i), self.store) for i in range(3)]
        self.balancer = RoundRobin([s.port for s in self.servers]).start()
        self.object_store = f"s3://k:s@{self.moto.endpoint.removeprefix('http://')}?scheme=http"
        for server in self.servers:
            self.configure(server)
        for server in self.servers:
            server.start(self.env())

    def home(self, index: int) -> Path:
        home = self.tmp / f"server-{index}"
        home.mkdir(exist_ok=True)
        return home

    def configure(self, server: ServerProcess) -> None:
        server.extra_args = (*server.extra_args, "--object-store", self.object_store, "--endpoint",
                             self.balancer.endpoint, "--clock-file", str(self.clock))

    def env(self, **extra: str) -> dict[str, str]:
        return {**os.environ, "GLUEBALL_TAKEOVER_SECONDS": "1", "GLUEBALL_HEARTBEAT_TIMEOUT_SECONDS":
                str(HEARTBEAT_TIMEOUT), **extra}

    def client(self, service: str = "glue") -> Any:
        return boto3.client(service, endpoint_url=self.balancer.endpoint, region_name="us-east-1",
                            aws_access_key_id="AKIDEXAMPLE", aws_secret_access_key="secret")

    def script(self, name: str, text: str) -> str:
        s3 = self.client("s3")
        try:
            s3.create_bucket(Bucket="scripts")
        except s3.exceptions.BucketAlreadyOwnedByYou:
            pass
        s3.put_object(Bucket="scripts", Key=name, Body=text.encode())
        return f"s3://scripts/{name}"

    def live(self) -> list[ServerProcess]:
        return [s for s in self.servers if s.proc is not None and s.proc.poll() is None]

    def close(self) -> None:
        for server in self.servers:
            server.stop()
        self.balancer.stop()
        self.moto.stop()
        drop_postgres_database(self.store)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    made = Cluster(tmp_path_factory.mktemp("several"))
    yield made
    made.close()


def runs_of(glue: Any, job: str) -> list[dict[str, Any]]:
    return [run for page in glue.get_paginator("get_job_runs").paginate(JobName=job) for run in page["JobRuns"]]


def test_every_server_is_ready_and_serves_the_same_catalog(cluster: Cluster) -> None:
    for server in cluster.servers:
        with urllib.request.urlopen(server.endpoint + "/ready", timeout=30) as answer:
            body = json.loads(answer.read())
        assert answer.status == 200 and body["status"] == "ready", body
        assert body["checks"]["store"]["backend"] == "postgresql" and body["checks"]["objects"]["kind"] == "remote"
    name = unique("shared")
    cluster.client().create_database(DatabaseInput={"Name": name})
    for server in cluster.servers:
        assert server.client().get_database(Name=name)["Database"]["Name"] == name


def test_each_scheduled_fire_happens_once_across_three_servers_with_one_killed(cluster: Cluster) -> None:
    glue = cluster.client()
    job = unique("tick")
    glue.create_job(Name=job, Role="GlueRole", ExecutionProperty={"MaxConcurrentRuns": FIRES + 10},
                    Command={"Name": "pythonshell", "ScriptLocation": cluster.script(f"{job}.py", "print('tick')\n")})
    glue.create_trigger(Name=unique("every5"), Type="SCHEDULED", Schedule="cron(0/5 * * * ? *)",
                        Actions=[{"JobName": job}], StartOnCreation=True)
    victim = cluster.servers[1]
    for fire in range(1, FIRES + 1):
        if fire == FIRES // 2:
            victim.kill()
        cluster.clock.write_text(str(START + fire * 300 + 1))
        wait_for(lambda n=fire: len(runs_of(glue, job)) >= n, 60, f"fire {fire}")  # type: ignore[misc]
    time.sleep(3)  # several scheduler ticks of every live server after the last fire
    runs = runs_of(glue, job)
    assert len(runs) == FIRES, [r["Id"] for r in runs]
    assert {r.get("TriggerName") for r in runs} != {None}
    def all_ended() -> list[dict[str, Any]] | None:
        found = runs_of(glue, job)
        return found if all(r["JobRunState"] in ENDED for r in found) else None

    ended = wait_for(all_ended, 180, "every fired run ended")
    # every fire made one run, and each ran: one the killed server had taken but not launched (or launched without
    # noting it yet) is decided by the server that takes it over - watched, or launched anew (glueball.supervise.fence)
    others = [(r["Id"], r["JobRunState"], r.get("ErrorMessage")) for r in ended if r["JobRunState"] != "SUCCEEDED"]
    assert not others, others
    victim.start(cluster.env())


def test_a_run_outlives_the_server_that_watched_it(cluster: Cluster, tmp_path: Path) -> None:
    glue = cluster.client()
    job = unique("adopted")
    glue.create_job(Name=job, Role="GlueRole", ExecutionProperty={"MaxConcurrentRuns": 5},
                    Command={"Name": "pythonshell", "ScriptLocation": cluster.script(f"{job}.py", STEP)})
    works = {name: tmp_path / name for name in ("finishes", "killed")}
    ids = {}
    for name, work in works.items():
        work.mkdir()
        ids[name] = glue.start_job_run(JobName=job, Arguments={"--work": str(work)})["JobRunId"]
    for name, run_id in ids.items():
        wait_for(lambda r=run_id: glue.get_job_run(JobName=job, RunId=r)["JobRun"]["JobRunState"] == "RUNNING",
                 60, f"{name} running")
    pids = {name: int(wait_for(lambda w=work: (w / "pid").exists() and (w / "pid").read_text(), 60, "pid"))
            for name, work in works.items()}
    watchers = {name: runner_of(cluster.servers[0], run_id) for name, run_id in ids.items()}
    owners = {int(str(w).split(":")[1]) for w in watchers.values()}
    for server in cluster.live():
        assert server.proc is not None
        if server.proc.pid in owners:
            server.kill()
    assert cluster.live(), "a server is left"
    for name, run_id in ids.items():  # another server takes each over within a few seconds, not at a restart
        wait_for(lambda r=run_id, n=name: runner_of(cluster.servers[0], r) not in (None, watchers[n]),  # type: ignore
                 30, f"{name} taken over")
    assert glue.get_job_run(JobName=job, RunId=ids["finishes"])["JobRun"]["JobRunState"] == "RUNNING"
    os.kill(pids["killed"], signal.SIGKILL)
    (works["finishes"] / "go").write_text("")
    finished = wait_for(lambda: (r := glue.get_job_run(JobName=job, RunId=ids["finishes"])["JobRun"])[
        "JobRunState"] in ENDED and r, 60, "the adopted run ended")
    assert finished["JobRunState"] == "SUCCEEDED" and (works["finishes"] / "output").read_text() == "done"
    assert (works["finishes"] / "pid").read_text() == str(pids["finishes"])  # its one driver: never started again
    killed = wait_for(lambda: (r := glue.get_job_run(JobName=job, RunId=ids["killed"])["JobRun"])[
        "JobRunState"] in ENDED and r, 60, "the killed run ended")
    assert (killed["JobRunState"], killed["ErrorMessage"]) == (
        "FAILED", f"Job run driver (pid {pids['killed']}) was killed (signal 9)")
    for server in cluster.servers:
        if server.proc is None:
            server.start(cluster.env())


class ElsewhereServer(ServerProcess):
    """A server in a UTS namespace of its own, named ``elsewhere`` (and resolving that name): to the others, a
    server on another machine."""

    def launch(self, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        cmd = [sys.executable, "-m", "glueball", "server", "--port", str(self.port), "--home", str(self.home),
               "--store", self.store_url, *self.extra_args]
        log = open(self.home / "server.log", "ab")  # noqa: SIM115 - lives as long as the process
        hosts = self.home / "hosts"  # its name resolves there, as a machine's own name does (Spark's JVM asks)
        hosts.write_text(Path("/etc/hosts").read_text() + "\n127.0.0.1 elsewhere\n")
        self.proc = subprocess.Popen([shutil.which("unshare") or "unshare", "--uts", "--mount", "--propagation",
                                      "private", "sh", "-c",
                                      f"hostname elsewhere && mount --bind '{hosts}' /etc/hosts && exec \"$@\"",
                                      "sh", *cmd], stdout=log, stderr=subprocess.STDOUT, env=env)
        return self.proc


def test_a_run_on_a_dead_server_of_another_host_fails_saying_so(cluster: Cluster, tmp_path: Path) -> None:
    home = tmp_path / "elsewhere"
    home.mkdir()
    other = ElsewhereServer(home, cluster.store)
    cluster.configure(other)
    other.start(cluster.env())
    try:
        glue = other.client()
        job = unique("foreign")
        glue.create_job(Name=job, Role="GlueRole",
                        Command={"Name": "pythonshell", "ScriptLocation": cluster.script(f"{job}.py", STEP)})
        work = tmp_path / "work"
        work.mkdir()
        run_id = glue.start_job_run(JobName=job, Arguments={"--work": str(work)})["JobRunId"]
        script = int(wait_for(lambda: (work / "pid").exists() and (work / "pid").read_text(), 60, "its pid"))
        # the run's driver process, whose child runs the script
        driver = int(re.findall(r"^PPid:\s+(\d+)", Path(f"/proc/{script}/status").read_text(), re.MULTILINE)[0])
        assert str(runner_of(other, run_id)).startswith("elsewhere:")
        other.kill()
        failed = wait_for(lambda: (r := cluster.client().get_job_run(JobName=job, RunId=run_id)["JobRun"])[
            "JobRunState"] in ENDED and r, HEARTBEAT_TIMEOUT + 60, "the run failed by another server")
        assert failed["JobRunState"] == "FAILED"
        assert failed["ErrorMessage"].startswith(
            f"the server watching this run on host elsewhere stopped (no heartbeat for {HEARTBEAT_TIMEOUT} s)"), failed
        assert f"driver (pid {driver}) runs on that host" in failed["ErrorMessage"]
    finally:
        other.stop()
        (work / "go").write_text("")  # the driver, orphaned on "its" host, ends


def test_a_statement_to_the_session_of_a_dead_server_fails_saying_why(cluster: Cluster, tmp_path: Path) -> None:
    home = tmp_path / "elsewhere"
    home.mkdir()
    other = ElsewhereServer(home, cluster.store)
    cluster.configure(other)
    other.start(cluster.env())
    glue = cluster.client()
    session_id = unique("orphaned")
    try:
        other.client().create_session(Id=session_id, Role="arn:aws:iam::123456789012:role/GlueRole",
                                      Command={"Name": "glueetl", "PythonVersion": "3"})
        ready = wait_for(lambda: (s := glue.get_session(Id=session_id)["Session"])["Status"] in (
            "READY", "FAILED") and s, 240, "the session ready")
        assert ready["Status"] == "READY", ready
        number = glue.run_statement(SessionId=session_id, Code="6 * 7")["Id"]  # through the balancer: any server
        answered = wait_for(lambda: (st := glue.get_statement(SessionId=session_id, Id=number)["Statement"])[
            "State"] in ("AVAILABLE", "ERROR", "CANCELLED") and st, 120, "the statement")
        assert answered["Output"]["Data"]["TextPlain"] == "42", answered
        other.kill()
        failed = wait_for(lambda: (s := glue.get_session(Id=session_id)["Session"])["Status"] not in (
            "READY", "PROVISIONING") and s, HEARTBEAT_TIMEOUT + 60, "the session settled by another server")
        assert failed["Status"] == "FAILED", failed
        with pytest.raises(ClientError) as refused:
            glue.run_statement(SessionId=session_id, Code="1 + 1")
        error = refused.value.response["Error"]
        assert error["Code"] == "IllegalSessionStateException", error
        assert error["Message"].startswith(
            f"Session {session_id} is FAILED (the server watching this run on host elsewhere stopped (no heartbeat "
            f"for {HEARTBEAT_TIMEOUT} s)"), error
    finally:
        other.stop()
