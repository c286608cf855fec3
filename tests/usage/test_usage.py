"""Usage by tag: billed DPU-seconds of real runs, checked against hand-computed figures."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from botocore.exceptions import ClientError

from glueball.usage.models import UsageKind, UsageRecord, billed_seconds, run_dpus
from tests.helpers import ServerProcess, wait_for


@pytest.mark.parametrize("spec,dpus", [
    ({"WorkerType": "G.1X", "NumberOfWorkers": 10}, 10.0),
    ({"WorkerType": "G.2X", "NumberOfWorkers": 3}, 6.0),
    ({"WorkerType": "G.025X", "NumberOfWorkers": 2}, 0.5),
    ({"WorkerType": "G.8X", "NumberOfWorkers": 2}, 16.0),
    ({"WorkerType": "Standard", "MaxCapacity": 5.0}, 5.0),
    ({"MaxCapacity": 0.0625, "Command": {"Name": "pythonshell"}}, 0.0625),
    ({"Command": {"Name": "pythonshell"}}, 0.0625),
    ({"Command": {"Name": "glueetl"}}, 10.0),
])
def test_dpus_of_a_run(spec: dict[str, Any], dpus: float) -> None:
    assert run_dpus(spec) == dpus


def test_billing_per_second_with_minimums_and_list_prices() -> None:
    assert billed_seconds(UsageKind.JOB_RUN, 12.3) == 60.0 and billed_seconds(UsageKind.JOB_RUN, 61.5) == 61.5
    assert billed_seconds(UsageKind.CRAWL, 75.0) == 600.0 and billed_seconds(UsageKind.CRAWL, 700.0) == 700.0
    run = UsageRecord(UsageKind.JOB_RUN, "j", "arn", "r", 0.0, 1800.0, 10.0)  # 10 DPUs for half an hour
    assert run.dpu_seconds == 18000.0 and run.cost == pytest.approx(2.20)  # 5 DPU-hours x 0.44
    flex = UsageRecord(UsageKind.JOB_RUN, "j", "arn", "r", 0.0, 1800.0, 10.0, flex=True)
    assert flex.cost == pytest.approx(1.45)  # 5 DPU-hours x 0.29


@pytest.fixture(scope="module")
def usage_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    server = ServerProcess(tmp_path_factory.mktemp("usage")).start()
    yield server
    server.stop()


def _internal(server: ServerProcess) -> Any:
    import botocore.config

    from glueball.runtime.client import boto3_session

    return boto3_session().client("glueball", endpoint_url=server.endpoint, region_name="us-east-1",
                                  aws_access_key_id="AKIDEXAMPLE", aws_secret_access_key="secret",
                                  config=botocore.config.Config(retries={"max_attempts": 1}))


def test_usage_by_tag_matches_hand_computed_dpu_seconds(usage_server: ServerProcess) -> None:
    server = usage_server
    glue = server.client()
    script = server.home / "s3" / "scripts" / "noop.py"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text("print('done')\n")
    data = server.home / "s3" / "raw" / "t" / "a.csv"
    data.parent.mkdir(parents=True, exist_ok=True)
    data.write_text("a,b\n1,2\n")
    command = {"Name": "pythonshell", "ScriptLocation": "s3://scripts/noop.py", "PythonVersion": "3.9"}
    glue.create_job(Name="small", Role="r", Command=command, MaxCapacity=0.0625, Tags={"team": "analytics"},
                    ExecutionProperty={"MaxConcurrentRuns": 2})
    glue.create_job(Name="big", Role="r", Command=command, MaxCapacity=1.0, Tags={"team": "finance"})
    glue.create_job(Name="loose", Role="r", Command=command, MaxCapacity=1.0)
    glue.create_database(DatabaseInput={"Name": "raw"})
    glue.create_crawler(Name="raw-crawler", Role="r", DatabaseName="raw", Tags={"team": "analytics"},
                        Targets={"S3Targets": [{"Path": "s3://raw/t/"}]})
    runs = [glue.start_job_run(JobName=name)["JobRunId"] for name in ("small", "big", "small", "loose")]
    glue.start_crawler(Name="raw-crawler")
    ended: dict[str, Any] = {}
    for name in ("small", "big", "loose"):
        for run in glue.get_job_runs(JobName=name)["JobRuns"]:
            ended[run["Id"]] = wait_for(lambda n=name, r=run["Id"]: (lambda x: x if x["JobRunState"] in (
                "SUCCEEDED", "FAILED") else None)(glue.get_job_run(JobName=n, RunId=r)["JobRun"]), 60, "a run")
    assert len(ended) == 4 and all(r["JobRunState"] == "SUCCEEDED" for r in ended.values()), runs
    crawl = wait_for(lambda: glue.list_crawls(CrawlerName="raw-crawler")["Crawls"][0]
                     if glue.list_crawls(CrawlerName="raw-crawler")["Crawls"][0]["State"] != "RUNNING" else None,
                     60, "the crawl")

    def billed(run: dict[str, Any], dpus: float, minimum: float) -> float:
        seconds = (run["CompletedOn"] - run["StartedOn"]).total_seconds()
        return dpus * max(minimum, seconds)

    by_job = {r["JobName"]: [] for r in ended.values()}
    for run in ended.values():
        by_job[run["JobName"]].append(run)
    crawl_seconds = (crawl["EndTime"] - crawl["StartTime"]).total_seconds()
    expected = {
        "analytics": sum(billed(r, 0.0625, 60) for r in by_job["small"]) + 1.0 * max(600, crawl_seconds),
        "finance": billed(by_job["big"][0], 1.0, 60),
        "(untagged)": billed(by_job["loose"][0], 1.0, 60),
    }
    assert expected["analytics"] == pytest.approx(2 * 3.75 + 600, abs=0.01)  # each run well under a minute
    answer = _internal(server).get_usage(GroupBy=["tag:team"])
    got = {g["Keys"]["tag:team"]: g for g in answer["Groups"]}
    assert set(got) == set(expected)
    for team, dpu_seconds in expected.items():
        assert got[team]["DpuSeconds"] == pytest.approx(dpu_seconds, abs=0.01)
        assert got[team]["EstimatedCost"] == pytest.approx(dpu_seconds / 3600 * 0.44, abs=1e-5)
    assert got["analytics"]["Runs"] == 3 and answer["Currency"] == "USD"
    by_kind = {g["Keys"]["kind"]: g["Runs"] for g in _internal(server).get_usage(GroupBy=["kind"])["Groups"]}
    assert by_kind == {"CRAWL": 1, "JOB_RUN": 4}
    only_jobs = _internal(server).get_usage(GroupBy=["resource", "user"], Kinds=["JOB_RUN"])["Groups"]
    assert {(g["Keys"]["resource"], g["Keys"]["user"]) for g in only_jobs} == {
        (name, "access key AKIDEXAMPLE") for name in ("small", "big", "loose")}
    # the CLI: a table or CSV of the same figures
    env = dict(os.environ, GLUEBALL_ENDPOINT=server.endpoint, AWS_ACCESS_KEY_ID="AKIDEXAMPLE",
               AWS_SECRET_ACCESS_KEY="secret")
    out = subprocess.run([sys.executable, "-m", "glueball", "usage", "--group-by", "tag:team", "--since", "1d",
                          "--csv"], capture_output=True, text=True, env=env, check=True).stdout
    rows = {row["tag:team"]: row for row in csv.DictReader(io.StringIO(out))}
    assert float(rows["finance"]["dpu_seconds"]) == pytest.approx(expected["finance"], abs=0.01)
    table = subprocess.run([sys.executable, "-m", "glueball", "usage", "--group-by", "tag:team"],
                           capture_output=True, text=True, env=env, check=True).stdout
    assert table.splitlines()[0].split()[:2] == ["tag:team", "runs"] and "analytics" in table
    future = subprocess.run([sys.executable, "-m", "glueball", "usage", "--since", "2999-01-01"],
                            capture_output=True, text=True, env=env, check=True).stdout
    assert future.strip() == "no runs"


def test_bad_usage_requests_are_refused(usage_server: ServerProcess) -> None:
    with pytest.raises(ClientError) as refused:
        _internal(usage_server).get_usage(GroupBy=["colour"])
    assert refused.value.response["Error"]["Code"] == "InvalidInputException"
    assert "GroupBy 'colour'" in refused.value.response["Error"]["Message"]
    json.dumps(refused.value.response["Error"])
