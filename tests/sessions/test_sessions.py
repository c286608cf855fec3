"""Interactive sessions on a real ``glueball server``, through boto3 and the AWS CLI only: statements on a
real Spark driver, errors as Glue gives them, cancellation, idle timeout, tags, a killed driver, a
restarted server."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from glueball.runtime.client import boto3_session
from tests.helpers import ServerProcess

AWS = str(Path(sys.executable).with_name("aws"))
ROLE = "arn:aws:iam::123456789012:role/GlueInteractiveRole"
ENDED = ("AVAILABLE", "ERROR", "CANCELLED")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    os.environ["GLUEBALL_JOB_TIMEOUT_UNIT_SECONDS"] = "1"  # a session's minutes are seconds here
    try:
        running = ServerProcess(tmp_path_factory.mktemp("sessions-home")).start()
    finally:
        os.environ.pop("GLUEBALL_JOB_TIMEOUT_UNIT_SECONDS")
    yield running
    running.stop()


def wait_state(glue: Any, session_id: str, states: tuple[str, ...], timeout: float = 90) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        session = glue.get_session(Id=session_id)["Session"]
        if session["Status"] in states:
            return dict(session)
        time.sleep(0.1)
    raise AssertionError(f"session {session_id} never reached {states}: {session}")


def run(glue: Any, session_id: str, code: str, timeout: float = 60) -> dict[str, Any]:
    number = glue.run_statement(SessionId=session_id, Code=code)["Id"]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        statement = glue.get_statement(SessionId=session_id, Id=number)["Statement"]
        if statement["State"] in ENDED:
            return dict(statement)
        time.sleep(0.02)
    raise AssertionError(f"statement {number} did not end: {statement}")


def create(glue: Any, session_id: str, **extra: Any) -> dict[str, Any]:
    return glue.create_session(Id=session_id, Role=ROLE, Command={"Name": "glueetl", "PythonVersion": "3"},
                               **extra)["Session"]


def test_statements_run_on_a_spark_driver(server: ServerProcess) -> None:
    glue = server.client()
    created = create(glue, "analysis", Tags={"team": "analytics", "billing": "bi"}, IdleTimeout=600,
                     DefaultArguments={"--conf": "spark.sql.shuffle.partitions=3"})
    assert created["Status"] == "PROVISIONING" and created["WorkerType"] == "G.1X"
    ready = wait_state(glue, "analysis", ("READY", "FAILED"))
    assert ready["Status"] == "READY", ready

    counted = run(glue, "analysis", "spark.range(10).count()")
    assert counted["State"] == "AVAILABLE" and counted["Output"]["Data"]["TextPlain"] == "10"
    assert counted["Output"]["Status"] == "ok" and counted["StartedOn"] <= counted["CompletedOn"]
    printed = run(glue, "analysis", "x = 21\nprint('hello')\nx * 2")
    assert printed["Output"]["Data"]["TextPlain"] == "hello\n42"
    assert run(glue, "analysis", "x + 1")["Output"]["Data"]["TextPlain"] == "22", "statements share a namespace"
    for code in ("1 + 1", "'quick'", "len('held')"):  # a read of a statement under way is held until it ends
        number = glue.run_statement(SessionId="analysis", Code=code)["Id"]
        first = glue.get_statement(SessionId="analysis", Id=number)["Statement"]
        assert first["State"] == "AVAILABLE", f"the first read of {code!r} answered before it ended: {first}"
    shown = run(glue, "analysis", "type(glueContext).__name__, spark.conf.get('spark.sql.shuffle.partitions')")
    assert shown["Output"]["Data"]["TextPlain"] == "('GlueContext', '3')"

    failed = run(glue, "analysis", "def f():\n    return 1 / 0\nf()")
    output = failed["Output"]
    assert failed["State"] == "AVAILABLE" and output["Status"] == "error"
    assert (output["ErrorName"], output["ErrorValue"]) == ("ZeroDivisionError", "division by zero")
    assert any("line 2, in f" in line for line in output["Traceback"])
    glue.create_database(DatabaseInput={"Name": "session_visible"})          # Spark SQL's catalog is the catalog
    listed = run(glue, "analysis", "'session_visible' in [r.namespace for r in spark.sql('SHOW DATABASES').collect()]")
    assert listed["Output"]["Data"]["TextPlain"] == "True", listed["Output"]
    missing = run(glue, "analysis", "spark.sql('SELECT * FROM no_such_table')")["Output"]
    assert missing["ErrorName"] == "AnalysisException" and "no_such_table" in missing["ErrorValue"]

    number = glue.run_statement(SessionId="analysis", Code="import time\ntime.sleep(60)")["Id"]
    while glue.get_statement(SessionId="analysis", Id=number)["Statement"]["State"] != "RUNNING":
        time.sleep(0.05)
    asked = time.monotonic()
    glue.cancel_statement(SessionId="analysis", Id=number)
    while glue.get_statement(SessionId="analysis", Id=number)["Statement"]["State"] not in ENDED:
        time.sleep(0.05)
    assert time.monotonic() - asked < 2.0
    assert glue.get_statement(SessionId="analysis", Id=number)["Statement"]["State"] == "CANCELLED"
    assert run(glue, "analysis", "'still alive'")["Output"]["Data"]["TextPlain"] == "'still alive'"
    listed = glue.list_statements(SessionId="analysis")["Statements"]
    assert [s["Id"] for s in listed] == list(range(len(listed))) and len(listed) == 12

    found = glue.list_sessions(Tags={"team": "analytics"})
    assert found["Ids"] == ["analysis"] and found["Sessions"][0]["Status"] == "READY"
    assert glue.list_sessions(Tags={"team": "nobody"})["Ids"] == []
    env = {**os.environ, "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "x",
           "AWS_DEFAULT_REGION": "us-east-1"}
    cli = json.loads(subprocess.run([AWS, "--endpoint-url", server.endpoint, "glue", "list-sessions", "--tags",
                                     "team=analytics"], capture_output=True, text=True, env=env, check=True).stdout)
    assert cli["Ids"] == ["analysis"]
    arn = "arn:aws:glue:us-east-1:123456789012:session/analysis"
    tags = json.loads(subprocess.run([AWS, "--endpoint-url", server.endpoint, "glue", "get-tags", "--resource-arn",
                                      arn], capture_output=True, text=True, env=env, check=True).stdout)["Tags"]
    assert tags == {"team": "analytics", "billing": "bi"}

    def glueball(*args: str) -> str:
        return subprocess.run([sys.executable, "-m", "glueball", "sessions", *args, "--endpoint", server.endpoint],
                              capture_output=True, text=True, env=env, check=True).stdout

    assert glueball("list", "--tag", "team=analytics").split("\t")[:2] == ["analysis", "READY"]
    waiting = _long_polls(server, "analysis", 12)  # more drivers' long polls than the API has threads
    assert glue.get_databases()["DatabaseList"] and glue.get_session(Id="analysis")["Session"]["Status"] == "READY"
    assert not any(done for done, _ in waiting), "the API answered only once a long poll had ended"
    shown = glueball("show", "analysis")
    assert "ZeroDivisionError: division by zero" in shown and "[0] AVAILABLE: spark.range(10).count()" in shown
    assert glueball("stop", "analysis").strip() == "stopping analysis"
    stopped = wait_state(glue, "analysis", ("STOPPED", "FAILED"))
    assert stopped["Status"] == "STOPPED" and stopped["DPUSeconds"] > 0 and "CompletedOn" in stopped
    for done, thread in waiting:
        thread.join(60)
        assert done == [{"SessionEnded": True}], done
    with pytest.raises(ClientError) as refused:
        glue.run_statement(SessionId="analysis", Code="1")
    assert refused.value.response["Error"]["Code"] == "IllegalSessionStateException"
    with pytest.raises(ClientError) as again:
        glue.stop_session(Id="analysis")
    assert again.value.response["Error"]["Code"] == "IllegalSessionStateException"
    glue.delete_session(Id="analysis")
    with pytest.raises(ClientError) as gone:
        glue.get_session(Id="analysis")
    assert gone.value.response["Error"]["Code"] == "EntityNotFoundException"


def _long_polls(server: ServerProcess, session_id: str, count: int) -> list[tuple[list[Any], threading.Thread]]:
    """``count`` long polls for the session's next statement, as its driver makes (glueball's own TakeStatement,
    30 s each), started and still waiting; each with the list its answer is put in."""
    internal = boto3_session().client("glueball", endpoint_url=server.endpoint, region_name="us-east-1",
                                      aws_access_key_id="driver", aws_secret_access_key="driver",
                                      config=Config(read_timeout=90, max_pool_connections=count))
    started = threading.Barrier(count + 1)
    waiting: list[tuple[list[Any], threading.Thread]] = []
    for _ in range(count):
        answer: list[Any] = []

        def poll(into: list[Any] = answer) -> None:
            started.wait()
            found = internal.take_statement(SessionId=session_id, WaitSeconds=30)
            into.append({k: v for k, v in found.items() if k != "ResponseMetadata"})

        thread = threading.Thread(target=poll, daemon=True)
        thread.start()
        waiting.append((answer, thread))
    started.wait()
    time.sleep(0.5)  # the requests reach the server (what is asserted is only the order of the answers)
    return waiting


def test_bad_session_requests_are_refused(server: ServerProcess) -> None:
    glue = server.client()

    def code_of(**request: Any) -> str:
        with pytest.raises(ClientError) as caught:
            glue.create_session(**{"Id": "bad", "Role": ROLE, "Command": {"Name": "glueetl"}, **request})
        return str(caught.value.response["Error"]["Code"])

    assert code_of(Command={"Name": "pythonshell"}) == "InvalidInputException"
    assert code_of(SecurityConfiguration="encrypted") == "InvalidInputException"
    assert code_of(MaxCapacity=2.0, WorkerType="G.1X", NumberOfWorkers=2) == "InvalidInputException"
    assert code_of(WorkerType="G.1X") == "InvalidInputException"
    with pytest.raises(ClientError) as missing:
        glue.run_statement(SessionId="never", Code="1")
    assert missing.value.response["Error"]["Code"] == "EntityNotFoundException"
    with pytest.raises(ClientError) as invalid:
        glue.list_sessions(NextToken="not-a-token")
    assert invalid.value.response["Error"]["Code"] == "InvalidInputException"


def test_idle_sessions_time_out_and_killed_drivers_fail(server: ServerProcess) -> None:
    glue = server.client()
    create(glue, "idle", IdleTimeout=3)
    create(glue, "doomed")
    for name in ("idle", "doomed"):
        assert wait_state(glue, name, ("READY", "FAILED"))["Status"] == "READY"
    with pytest.raises(ClientError) as duplicate:
        create(glue, "idle")
    assert duplicate.value.response["Error"]["Code"] == "AlreadyExistsException"
    timed_out = wait_state(glue, "idle", ("TIMEOUT", "FAILED", "STOPPED"), timeout=30)
    assert timed_out["Status"] == "TIMEOUT" and "IdleTimeout" in timed_out["ErrorMessage"]

    with sqlite3.connect(server.home / "glueball.db") as db:  # the driver the server recorded for the session
        pid = db.execute("SELECT driver_pid FROM glue_session WHERE session_id = 'doomed'").fetchone()[0]
    os.killpg(pid, signal.SIGKILL)
    failed = wait_state(glue, "doomed", ("FAILED", "STOPPED"), timeout=30)
    assert failed["Status"] == "FAILED" and failed["ErrorMessage"]


def test_a_restarted_server_adopts_a_live_session_and_settles_one_killed_meanwhile(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path).start()
    try:
        glue = server.client()
        create(glue, "survivor")
        assert wait_state(glue, "survivor", ("READY", "FAILED"))["Status"] == "READY"
        assert run(glue, "survivor", "kept = 'across restarts'\nkept")["State"] == "AVAILABLE"
        server.kill()
        server.start()
        glue = server.client()
        assert glue.get_session(Id="survivor")["Session"]["Status"] == "READY"
        assert run(glue, "survivor", "kept")["Output"]["Data"]["TextPlain"] == "'across restarts'"
        # killed while no server watches: the next server says how it ended
        with sqlite3.connect(server.home / "glueball.db") as db:
            keeper = db.execute("SELECT driver_pid FROM glue_session WHERE session_id = 'survivor'").fetchone()[0]
        session_driver = int(Path(f"/proc/{keeper}/task/{keeper}/children").read_text().split()[0])
        server.kill()
        os.kill(session_driver, signal.SIGKILL)
        record = server.home / "logs" / "sessions" / "survivor" / "outcome.json"
        deadline = time.monotonic() + 30
        while not record.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        server.start()
        failed = wait_state(server.client(), "survivor", ("FAILED", "STOPPED"))
        assert (failed["Status"], failed["ErrorMessage"]) == (
            "FAILED", f"Session driver (pid {session_driver}) was killed (signal 9)")
    finally:
        server.stop()


def test_a_driver_whose_server_is_gone_ends_itself(tmp_path: Path) -> None:
    os.environ["GLUEBALL_SESSION_ORPHAN_SECONDS"] = "3"  # inherited by the server, then by its drivers
    try:
        server = ServerProcess(tmp_path).start()
    finally:
        os.environ.pop("GLUEBALL_SESSION_ORPHAN_SECONDS")
    glue = server.client()
    create(glue, "orphan")
    assert wait_state(glue, "orphan", ("READY", "FAILED"))["Status"] == "READY"
    with sqlite3.connect(server.home / "glueball.db") as db:
        pid = db.execute("SELECT driver_pid FROM glue_session WHERE session_id = 'orphan'").fetchone()[0]
    assert server.proc is not None
    os.kill(server.proc.pid, signal.SIGKILL)
    server.proc.wait()
    server.proc = None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and Path(f"/proc/{pid}").exists() and \
            "zombie" not in Path(f"/proc/{pid}/status").read_text().lower():
        time.sleep(0.5)
    assert not Path(f"/proc/{pid}").exists() or "zombie" in Path(f"/proc/{pid}/status").read_text().lower()
    assert "no server answered for 3 s: the session's server stopped, ending" in (
        server.home / "logs" / "sessions" / "orphan" / "error.log").read_text()
