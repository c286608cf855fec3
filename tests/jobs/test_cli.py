"""`glueball jobs ...` and `glueball logs` on the embedded catalog and against a server."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from glueball.app import Glueball, embedded_client
from glueball.config import Settings
from tests.helpers import ServerProcess, unique

SHOUT = '''
import sys
args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
print("hello", args.get("--who"))
if args.get("--fail"):
    raise RuntimeError("asked to fail")
'''

SLEEP = '''
import time
time.sleep(120)
'''


def glueball(*args: str, home: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.pop("GLUEBALL_ENDPOINT", None)
    if home is not None:
        env["GLUEBALL_HOME"] = str(home)
    return subprocess.run([sys.executable, "-m", "glueball", *args], capture_output=True, text=True, env=env,
                          timeout=timeout)


def define(home: Path, script: str, **extra: Any) -> str:
    """A Python shell job in the embedded catalog of ``home``, its script in the object store."""
    name = unique("clijob")
    path = home / "s3" / "scripts" / f"{name}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(script)
    app = Glueball(Settings(home=home))
    try:
        embedded_client(app).create_job(Name=name, Role="r", Command={"Name": "pythonshell",
                                                                 "ScriptLocation": f"s3://scripts/{name}.py"}, **extra)
    finally:
        app.close()
    return name


def test_start_wait_runs_list_and_logs_on_the_embedded_catalog(tmp_path: Path) -> None:
    home = tmp_path / "home"
    name = define(home, SHOUT, DefaultArguments={"--who": "default"})
    done = glueball("jobs", "start", name, "--arg", "who=world", "--wait", home=home)
    assert done.returncode == 0, done.stderr
    run_id = done.stdout.strip()
    assert run_id.startswith("jr_")
    assert f"job run {run_id} (attempt 0): SUCCEEDED" in done.stderr
    failed = glueball("jobs", "start", name, "--arg", "--fail=1", "--wait", home=home)
    assert failed.returncode == 1
    assert "error: RuntimeError: asked to fail" in failed.stderr
    runs = glueball("jobs", "runs", name, home=home)
    assert runs.returncode == 0, runs.stderr
    lines = runs.stdout.splitlines()
    assert lines[0].startswith(f"{failed.stdout.strip()}  attempt 0  FAILED")
    assert any(line.startswith(f"{run_id}  attempt 0  SUCCEEDED") for line in lines)
    assert "execution time" in runs.stdout and "DPU-seconds" in runs.stdout
    listed = glueball("jobs", "list", home=home)
    assert f"{name}\tpythonshell\ts3://scripts/{name}.py\tFAILED {failed.stdout.strip()}" in listed.stdout
    for command in (("logs", run_id), ("jobs", "logs", run_id)):
        shown = glueball(*command, home=home)
        assert shown.returncode == 0, shown.stderr
        log_dir = home / "logs" / "jobs" / name / run_id
        assert f"==> output log of job {name} run {run_id}: {log_dir / 'output.log'} <==" in shown.stdout
        assert "hello world" in shown.stdout
        assert f"==> error log of job {name} run {run_id}: {log_dir / 'error.log'} <==" in shown.stdout
    missing = glueball("logs", "jr_unknown", home=home)
    assert missing.returncode == 1 and "no logs of job run jr_unknown" in missing.stderr


def test_start_without_wait_is_detached_and_stop_stops_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    name = define(home, SLEEP)
    started = glueball("jobs", "start", name, home=home, timeout=60)
    assert started.returncode == 0, started.stderr
    run_id = started.stdout.strip()
    busy = glueball("jobs", "start", name, home=home, timeout=60)
    assert busy.returncode == 1
    assert f"ConcurrentRunsExceededException: Concurrent runs exceeded for {name}" in busy.stderr
    stop = glueball("jobs", "stop", name, run_id, home=home)
    assert stop.returncode == 0, stop.stderr
    assert stop.stdout.strip() == f"{run_id}: stopping"
    app = Glueball(Settings(home=home))
    try:
        glue = embedded_client(app)
        deadline = time.monotonic() + 30
        state = ""
        while time.monotonic() < deadline:
            state = glue.get_job_run(JobName=name, RunId=run_id)["JobRun"]["JobRunState"]
            if state == "STOPPED":
                break
            time.sleep(0.1)
        assert state == "STOPPED"
    finally:
        app.close()
    again = glueball("jobs", "stop", name, run_id, home=home)
    assert again.returncode == 1
    assert "cannot be stopped in its current state STOPPED" in again.stderr


def test_jobs_commands_against_a_server(server: ServerProcess) -> None:
    glue = server.client(access_key="glueball")
    name = unique("srvjob")
    path = server.home / "s3" / "scripts" / f"{name}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(SHOUT)
    glue.create_job(Name=name, Role="r", Command={"Name": "pythonshell", "ScriptLocation": f"s3://scripts/{name}.py"})
    done = glueball("jobs", "start", name, "--arg", "who=server", "--wait", "--endpoint", server.endpoint)
    assert done.returncode == 0, done.stderr
    run_id = done.stdout.strip()
    assert f"logs: {server.home / 'logs' / 'jobs' / name / run_id}" in done.stderr
    runs = glueball("jobs", "runs", name, "--endpoint", server.endpoint)
    assert runs.stdout.startswith(f"{run_id}  attempt 0  SUCCEEDED")
    shown = glueball("logs", run_id, "--home", str(server.home))
    assert "hello server" in shown.stdout
    missing = glueball("jobs", "runs", name + "_x", "--endpoint", server.endpoint)
    assert missing.returncode == 1
    assert "EntityNotFoundException: Job not found." in missing.stderr
