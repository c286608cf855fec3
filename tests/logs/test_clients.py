"""Real clients, unchanged, against a server: the AWS CLI v1 (``.venv``; CloudWatch over JSON) and v2
(Debian's ``awscli``; ``aws logs tail --follow``, CloudWatch over the query protocol), and Apache Airflow's
Amazon provider (``GlueJobHook.job_completion(verbose=True)``, ``GlueJobSensor(verbose=True)``) printing a
run's log lines."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import ServerProcess, unique, wait_for
from tests.logs.helpers import client, streams
from tests.logs.test_run_logs import PAUSING, start_job, wait_ended

CLI_V1 = shutil.which("aws", path=str(Path(sys.executable).parent)) or "aws"
CLI_V2 = "/usr/bin/aws"  # Debian's awscli (make awscli2): the one with `aws logs tail`
SHORT = '''
import sys, time
for i in range(5):
    print(f"out {i}", flush=True)
    print(f"err {i}", file=sys.stderr, flush=True)
    time.sleep(0.3)
'''


@pytest.fixture(scope="module")
def clients_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    server = ServerProcess(tmp_path_factory.mktemp("clients")).start()
    yield server
    server.stop()


def cli(executable: str, server: ServerProcess, *args: str) -> Any:
    env = dict(os.environ, AWS_ACCESS_KEY_ID="AKIDCLI", AWS_SECRET_ACCESS_KEY="secret", AWS_DEFAULT_REGION="us-east-1",
               AWS_CONFIG_FILE=os.devnull, AWS_SHARED_CREDENTIALS_FILE=os.devnull, AWS_PAGER="")
    done = subprocess.run([executable, *args, "--endpoint-url", server.endpoint, "--output", "json"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout) if done.stdout.strip() else {}


def test_aws_logs_tail_follow_follows_a_running_job(clients_server: ServerProcess, tmp_path: Path) -> None:
    go = tmp_path / "go"
    name, run_id = start_job(clients_server, PAUSING, **{"--go": str(go)})
    logs = client(clients_server, "logs")
    wait_for(lambda: streams(logs, "/aws-glue/jobs/output", run_id), 60, "the run's stream", 0.2)
    env = dict(os.environ, AWS_ACCESS_KEY_ID="AKIDCLI", AWS_SECRET_ACCESS_KEY="secret", AWS_DEFAULT_REGION="us-east-1",
               AWS_CONFIG_FILE=os.devnull, AWS_SHARED_CREDENTIALS_FILE=os.devnull, AWS_PAGER="")
    tail = subprocess.Popen([CLI_V2, "logs", "tail", "/aws-glue/jobs/output", "--log-stream-names", run_id,
                             "--follow", "--since", "1h", "--format", "short", "--endpoint-url",
                             clients_server.endpoint], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)
    seen: list[str] = []

    def read() -> None:
        assert tail.stdout is not None
        for line in tail.stdout:
            seen.append(line.rstrip("\n").split(" ", 1)[-1])

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        wait_for(lambda: "out 99" in seen, 60, "tail to print the first 100 lines", 0.2)
        assert "out 100" not in seen
        go.write_text("go")  # the job goes on only now: what follows is printed by following
        wait_for(lambda: "the end, no newline" in seen, 60, "tail to follow to the end", 0.2)
    finally:
        tail.terminate()
        tail.wait(timeout=10)
        reader.join(timeout=10)
    assert seen == [f"out {i}" for i in range(300)] + ["the end, no newline"]
    wait_ended(clients_server, name, run_id)


def test_aws_cli_filter_and_get_log_events(clients_server: ServerProcess) -> None:
    name, run_id = start_job(clients_server, SHORT)
    wait_ended(clients_server, name, run_id)
    for executable in (CLI_V1, CLI_V2):
        found = cli(executable, clients_server, "logs", "filter-log-events", "--log-group-name",
                    "/aws-glue/jobs/error", "--log-stream-names", run_id, "--filter-pattern", '?"err 1" ?"err 3"')
        assert [e["message"] for e in found["events"]] == ["err 1", "err 3"]
        got = cli(executable, clients_server, "logs", "get-log-events", "--log-group-name", "/aws-glue/jobs/output",
                  "--log-stream-name", run_id, "--start-from-head")
        assert [e["message"] for e in got["events"]] == [f"out {i}" for i in range(5)]
        assert got["nextForwardToken"].startswith("f/")


def test_aws_cloudwatch_get_metric_statistics_over_json_and_query(clients_server: ServerProcess) -> None:
    namespace = unique("App")
    stamp = dt.datetime.now(dt.UTC).replace(second=0, microsecond=0)
    client(clients_server, "cloudwatch").put_metric_data(Namespace=namespace, MetricData=[
        {"MetricName": "Rows", "Dimensions": [{"Name": "Job", "Value": "nightly"}], "Value": value,
         "Timestamp": stamp, "Unit": "Count"} for value in (3, 5)])
    for executable in (CLI_V1, CLI_V2):  # botocore 1.44 sends JSON 1.0, awscli 2.9 the query protocol
        answer = cli(executable, clients_server, "cloudwatch", "get-metric-statistics", "--namespace", namespace,
                     "--metric-name", "Rows", "--dimensions", "Name=Job,Value=nightly", "--statistics", "Sum",
                     "Maximum", "SampleCount", "--period", "60",
                     "--start-time", (stamp - dt.timedelta(minutes=5)).isoformat(),
                     "--end-time", (stamp + dt.timedelta(minutes=5)).isoformat())
        assert answer["Label"] == "Rows"
        assert [(p["Sum"], p["Maximum"], p["SampleCount"], p["Unit"]) for p in answer["Datapoints"]] == [
            (8.0, 5.0, 2.0, "Count")]
        listed = cli(executable, clients_server, "cloudwatch", "list-metrics", "--namespace", namespace)
        assert listed["Metrics"] == [{"Namespace": namespace, "MetricName": "Rows",
                                      "Dimensions": [{"Name": "Job", "Value": "nightly"}]}]
    env = dict(os.environ, AWS_ACCESS_KEY_ID="AKIDCLI", AWS_SECRET_ACCESS_KEY="secret", AWS_DEFAULT_REGION="us-east-1",
               AWS_CONFIG_FILE=os.devnull, AWS_SHARED_CREDENTIALS_FILE=os.devnull, AWS_PAGER="")
    refused = subprocess.run([CLI_V2, "cloudwatch", "put-metric-data", "--namespace", "AWS/Glue", "--metric-name",
                              "x", "--value", "1", "--endpoint-url", clients_server.endpoint],
                             capture_output=True, text=True, env=env, timeout=60)
    assert refused.returncode != 0 and "(InvalidParameterValue)" in refused.stderr


AIRFLOW = '''
import json, os, sys, time
endpoint, name, run_id = sys.argv[1:4]
os.environ["AIRFLOW_CONN_AWS_DEFAULT"] = json.dumps({"conn_type": "aws", "login": "AKIDAIRFLOW", "password": "s",
    "extra": {"endpoint_url": endpoint, "region_name": "us-east-1"}})
import logging
logging.basicConfig(level=logging.INFO, stream=sys.stdout)
from airflow.providers.amazon.aws.hooks.glue import GlueJobHook
from airflow.providers.amazon.aws.sensors.glue import GlueJobSensor
hook = GlueJobHook(job_name=name, job_poll_interval=1, aws_conn_id="aws_default", region_name="us-east-1")
print("HOOK", json.dumps(hook.job_completion(name, run_id, verbose=True)), flush=True)
sensor = GlueJobSensor(task_id="wait", job_name=name, run_id=run_id, verbose=True, aws_conn_id="aws_default",
                       region_name="us-east-1")
print("SENSOR", sensor.poke({}), flush=True)
'''


def test_airflow_glue_job_hook_and_sensor_print_the_runs_logs(clients_server: ServerProcess, tmp_path: Path) -> None:
    name, run_id = start_job(clients_server, SHORT)
    script = tmp_path / "airflow_glue.py"
    script.write_text(AIRFLOW)
    env = dict(os.environ, AIRFLOW_HOME=str(tmp_path / "airflow"), AWS_CONFIG_FILE=os.devnull,
               AWS_SHARED_CREDENTIALS_FILE=os.devnull)
    started = time.monotonic()
    done = subprocess.run([sys.executable, str(script), clients_server.endpoint, name, run_id], capture_output=True,
                          text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    out = done.stdout
    assert f'HOOK {{"JobRunState": "SUCCEEDED", "JobRunId": "{run_id}"}}' in out
    assert "SENSOR True" in out
    assert "Glue Job Run /aws-glue/jobs/output Logs:" in out and "Glue Job Run /aws-glue/jobs/error Logs:" in out
    for i in range(5):
        assert f"\tout {i}\n" in out and f"\terr {i}\n" in out
    assert "Unknown operation" not in out + done.stderr
    assert time.monotonic() - started < 240
