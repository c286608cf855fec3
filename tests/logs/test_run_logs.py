"""What runs write reaches CloudWatch Logs under Glue's group and stream names: each line once, in order,
across a server restart in the middle of a run, however big the log."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import ServerProcess, create_postgres_database, drop_postgres_database, unique, wait_for
from tests.logs.helpers import client, messages, streams

ENDED = ("SUCCEEDED", "FAILED", "STOPPED", "TIMEOUT", "ERROR")

# 100 lines to each stream, then wait for the go file, then 200 more and a last line with no newline
PAUSING = '''
import os, sys, time
go = sys.argv[sys.argv.index("--go") + 1]
for i in range(100):
    print(f"out {i}", flush=True)
    print(f"err {i}", file=sys.stderr, flush=True)
while not os.path.exists(go):
    time.sleep(0.05)
for i in range(100, 300):
    print(f"out {i}", flush=True)
    print(f"err {i}", file=sys.stderr, flush=True)
sys.stdout.write("the end, no newline")
'''

BIG = '''
import sys
line = "x" * 1000
for i in range(3000):
    sys.stdout.write(f"{i:05d} {line}\\n")
'''


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def logs_server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    home: Path = tmp_path_factory.mktemp(f"runlogs-{request.param}")
    store_url = create_postgres_database() if request.param == "postgres" else ""
    proc = ServerProcess(home, store_url).start()
    yield proc
    proc.stop()
    if store_url:
        drop_postgres_database(store_url)


def start_job(server: ServerProcess, script: str, **arguments: str) -> tuple[str, str]:
    glue = client(server, "glue")
    path = server.home / "scripts" / f"{unique('script')}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(script)
    name = unique("job")
    glue.create_job(Name=name, Role="GlueRole", Command={"Name": "pythonshell", "ScriptLocation": str(path)},
                    DefaultArguments=arguments)
    return name, glue.start_job_run(JobName=name)["JobRunId"]


def wait_ended(server: ServerProcess, name: str, run_id: str, timeout: float = 60) -> dict[str, Any]:
    glue = client(server, "glue")

    def ended() -> Any:
        run = glue.get_job_run(JobName=name, RunId=run_id)["JobRun"]
        return run if run["JobRunState"] in ENDED else None

    return dict(wait_for(ended, timeout, f"run {run_id} to end", interval=0.2))


def test_a_job_runs_lines_are_its_streams_exactly_once_across_a_server_restart(
        logs_server: ServerProcess, tmp_path: Path) -> None:
    go = tmp_path / "go"
    name, run_id = start_job(logs_server, PAUSING, **{"--go": str(go), "--enable-continuous-cloudwatch-log": "true",
                                                       "--custom-logGroup-prefix": "/team/etl"})
    logs = client(logs_server, "logs")
    wait_for(lambda: len(_stream(logs, "/team/etl/output", run_id)) >= 100, 60, "the first 100 lines", 0.2)
    logs_server.stop()
    logs_server.start()
    go.write_text("go")
    run = wait_ended(logs_server, name, run_id)
    assert run["JobRunState"] == "SUCCEEDED" and run["LogGroupName"] == "/team/etl"
    logs = client(logs_server, "logs")
    assert messages(logs, "/team/etl/output", run_id) == [f"out {i}" for i in range(300)] + ["the end, no newline"]
    assert messages(logs, "/team/etl/error", run_id) == [f"err {i}" for i in range(300)]
    assert messages(logs, "/aws-glue/jobs/logs-v2", run_id) == [f"err {i}" for i in range(300)]
    stream = logs.describe_log_streams(logGroupName="/team/etl/output", logStreamNamePrefix=run_id)["logStreams"]
    assert [s["logStreamName"] for s in stream] == [run_id]
    found = logs.filter_log_events(logGroupName="/team/etl/output", logStreamNames=[run_id],
                                   filterPattern='"out 29"')["events"]
    assert [e["message"] for e in found] == ["out 29", *(f"out {i}" for i in range(290, 300))]


def _stream(logs: Any, group: str, stream: str) -> list[str]:
    try:
        return messages(logs, group, stream)
    except logs.exceptions.ResourceNotFoundException:
        return []


def test_a_log_bigger_than_a_read_arrives_whole_and_in_order(logs_server: ServerProcess) -> None:
    name, run_id = start_job(logs_server, BIG)
    assert wait_ended(logs_server, name, run_id)["JobRunState"] == "SUCCEEDED"
    got = messages(client(logs_server, "logs"), "/aws-glue/jobs/output", run_id)
    assert len(got) == 3000 and [line[:5] for line in got] == [f"{i:05d}" for i in range(3000)]
    assert all(len(line) == 1006 for line in got)


def test_a_crawls_log_is_the_crawlers_stream(logs_server: ServerProcess) -> None:
    folder = logs_server.home / "s3" / "crawled" / unique("orders")
    folder.mkdir(parents=True)
    (folder / "part-0.csv").write_text("id,amount\n1,2.5\n2,3.5\n")
    glue = client(logs_server, "glue")
    database, crawler = unique("db"), unique("crawler")
    glue.create_database(DatabaseInput={"Name": database})
    glue.create_crawler(Name=crawler, Role="GlueRole", DatabaseName=database,
                        Targets={"S3Targets": [{"Path": f"s3://crawled/{folder.name}/"}]})
    glue.start_crawler(Name=crawler)
    wait_for(lambda: glue.get_crawler(Name=crawler)["Crawler"]["State"] == "READY"
             and glue.get_crawler(Name=crawler)["Crawler"].get("LastCrawl"), 60, "the crawl to end", 0.2)
    logs = client(logs_server, "logs")
    lines = [e["message"] for e in logs.filter_log_events(logGroupName="/aws-glue/crawlers",
                                                          logStreamNames=[crawler])["events"]]
    assert any("crawl" in line and "started" in line for line in lines), lines
    assert any("completed" in line for line in lines), lines
    assert logs.describe_log_streams(logGroupName="/aws-glue/crawlers", logStreamNamePrefix=crawler)[
        "logStreams"][0]["logStreamName"] == crawler


def test_a_running_jobs_lines_arrive_while_it_runs_stamped_when_written(logs_server: ServerProcess,
                                                                         tmp_path: Path) -> None:
    go = tmp_path / "go"
    started = time.time() * 1000
    name, run_id = start_job(logs_server, PAUSING, **{"--go": str(go)})
    logs = client(logs_server, "logs")
    wait_for(lambda: streams(logs, "/aws-glue/jobs/output", run_id), 30, "the stream of a running job", 0.2)
    stream = logs.describe_log_streams(logGroupName="/aws-glue/jobs/output", logStreamNamePrefix=run_id)[
        "logStreams"][0]
    assert started <= stream["firstEventTimestamp"] <= stream["lastEventTimestamp"] <= time.time() * 1000
    assert client(logs_server, "glue").get_job_run(JobName=name, RunId=run_id)["JobRun"]["JobRunState"] == "RUNNING"
    go.write_text("go")
    wait_ended(logs_server, name, run_id)
    assert len(messages(logs, "/aws-glue/jobs/output", run_id)) == 301


OWN_LOGS = '''
import sys, time, boto3
group = sys.argv[sys.argv.index("--group") + 1]
logs = boto3.client("logs")
logs.create_log_group(logGroupName=group)
logs.create_log_stream(logGroupName=group, logStreamName="app")
now = int(time.time() * 1000)
logs.put_log_events(logGroupName=group, logStreamName="app",
                    logEvents=[{"timestamp": now + i, "message": f"app line {i}"} for i in range(3)])
boto3.client("cloudwatch").put_metric_data(Namespace=group.strip("/"), MetricData=[{"MetricName": "rows", "Value": 42}])
'''


def test_a_scripts_own_boto3_clients_write_its_logs_and_metrics(logs_server: ServerProcess) -> None:
    group = f"/scripts/{unique('own')}"
    name, run_id = start_job(logs_server, OWN_LOGS, **{"--group": group})
    run = wait_ended(logs_server, name, run_id)
    assert run["JobRunState"] == "SUCCEEDED", run.get("ErrorMessage")
    assert messages(client(logs_server, "logs"), group, "app") == ["app line 0", "app line 1", "app line 2"]
    listed = client(logs_server, "cloudwatch").list_metrics(Namespace=group.strip("/"))["Metrics"]
    assert [m["MetricName"] for m in listed] == ["rows"]
