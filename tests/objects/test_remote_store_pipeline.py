"""A remote object store end to end (``GLUEBALL_OBJECT_STORE`` / ``--object-store``, a real ``moto_server``): the
demo pipeline (crawl -> transform with bookmarks -> crawl -> aggregate, two scheduled workflow runs) runs unchanged,
its crawlers listing and sampling the store, its job scripts downloaded from it, its drivers reading and writing it
through S3A — and nothing appears under the installation's own ``s3/`` folder. Embedded (``python -m glueball.demo``,
drivers reaching the store itself) and through ``glueball server --object-store`` (boto3 clients, drivers reaching
the store through the server's S3 API)."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest

from glueball import jvm
from glueball.demo import data, pipeline
from glueball.objects.access import RemoteObjects
from tests.helpers import ServerProcess
from tests.streaming.kinesis_helpers import MotoServer

pytestmark = [pytest.mark.spark, pytest.mark.driver]

KEY, SECRET = "remote-key", "remote-secret"


@pytest.fixture(scope="module")
def moto_process(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MotoServer]:
    jvm.jars("s3a")  # hadoop-aws for the drivers' S3A (as `make jars` fetches it)
    server = MotoServer.start(tmp_path_factory.mktemp("moto"))
    yield server
    server.stop()


@pytest.fixture()
def moto(moto_process: MotoServer) -> MotoServer:
    """The module's moto_server, emptied: each test's pipeline starts from no buckets (the same buckets and days
    written by an earlier test would be read again)."""
    import urllib.request

    urllib.request.urlopen(urllib.request.Request(f"{moto_process.endpoint}/moto-api/reset", method="POST"),
                           timeout=30).read()
    return moto_process


def store_url(moto: MotoServer) -> str:
    return f"s3://{KEY}:{SECRET}@{moto.endpoint.removeprefix('http://')}?scheme=http"


def direct(moto: MotoServer) -> object:
    return boto3.client("s3", endpoint_url=moto.endpoint, region_name="us-east-1", aws_access_key_id=KEY,
                        aws_secret_access_key=SECRET)


def files_under(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file()] if folder.exists() else []


def test_the_demo_pipeline_runs_unchanged_on_a_remote_store(moto: MotoServer, tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {**os.environ, "GLUEBALL_HOME": str(home), "GLUEBALL_OBJECT_STORE": store_url(moto), "DEMO_SERVE": "0",
           "GLUEBALL_WARM_DRIVERS": "0"}
    for name in ("GLUEBALL_ENDPOINT", "GLUEBALL_S3_ENDPOINT", "GLUEBALL_S3_FILESYSTEM"):
        env.pop(name, None)
    done = subprocess.run([sys.executable, "-m", "glueball.demo"], env=env, capture_output=True, text=True,
                          timeout=1500)
    assert done.returncode == 0, (done.stdout[-4000:], done.stderr[-4000:])
    assert "did not complete cleanly" not in done.stdout, done.stdout[-4000:]
    # the second transform read only the new day: each day's "read N new orders" is that day's count
    reads = [line for line in done.stdout.splitlines() if "transform: read" in line]
    assert len(reads) == 2 and all("read 2000 new orders" in line for line in reads), done.stdout[-4000:]
    assert files_under(home / "s3") == []  # nothing of the lake on the installation's disk
    s3 = direct(moto)
    keys = [o["Key"] for page in s3.get_paginator("list_objects_v2").paginate(Bucket="demo-lake")  # type: ignore
            for o in page.get("Contents", [])]
    assert "scripts/transform.py" in keys and "raw/customers/customers.csv" in keys
    curated = [k for k in keys if k.startswith("curated/orders/") and k.endswith(".parquet")]
    assert {k.split("/")[2] for k in curated} == {"day=2026-11-19", "day=2026-11-20"}, keys
    assert any(k.startswith("curated/daily_revenue/") for k in keys), keys


def test_the_demo_pipeline_through_a_server_with_a_remote_store(moto: MotoServer, tmp_path: Path) -> None:
    """``glueball server --object-store``: the demo's pipeline defined and fed through the server's Glue and S3
    APIs (boto3), fired by its scheduler; its drivers reach the store through S3A against the server's S3 API."""
    home = tmp_path / "server"
    home.mkdir()
    clock = tmp_path / "clock"
    clock.write_text(str(dt.datetime.combine(pipeline.DAYS[0], dt.time(22, 0), dt.UTC).timestamp()))
    server = ServerProcess(home, extra_args=("--object-store", store_url(moto), "--clock-file", str(clock)),
                           local_scripts=False).start()
    try:
        glue = server.client()
        objects = RemoteObjects(boto3.client("s3", endpoint_url=server.endpoint, region_name="us-east-1",
                                             aws_access_key_id="AKIDEXAMPLE", aws_secret_access_key="secret"))
        data.write_customers(objects)
        pipeline.define(glue, objects)
        seen: set[str] = set()
        for day in pipeline.DAYS:
            data.write_orders_day(objects, day, pipeline.ORDERS_PER_DAY)
            clock.write_text(str(dt.datetime.combine(day + dt.timedelta(days=1), dt.time(3, 0, 5), dt.UTC)
                                 .timestamp()))
            run_id = pipeline._await_run(glue, seen)
            seen.add(run_id)
            run = pipeline._follow(glue, run_id)
            failures = [(n["Name"], d.get("ErrorMessage")) for n in run["Graph"]["Nodes"]
                        for d in ((n.get("JobDetails") or {}).get("JobRuns") or (n.get("CrawlerDetails") or {}).get(
                            "Crawls") or []) if d.get("JobRunState", d.get("State")) not in ("SUCCEEDED", "RUNNING")]
            assert run["Status"] == "COMPLETED" and not run["Statistics"].get("FailedActions"), failures
            node = next(n for n in run["Graph"]["Nodes"] if n["Name"] == pipeline.TRANSFORM)
            transform = node["JobDetails"]["JobRuns"][0]
            output = (home / "logs" / "jobs" / pipeline.TRANSFORM / transform["Id"] / "output.log").read_text()
            counts = pipeline._COUNTS.search(output)
            assert counts is not None and counts.group(1) == str(pipeline.ORDERS_PER_DAY), output[-2000:]
        assert files_under(home / "s3") == []  # nothing of the lake on the server's disk
        s3 = direct(moto)
        keys = [o["Key"] for page in s3.get_paginator("list_objects_v2").paginate(Bucket="demo-lake")  # type: ignore
                for o in page.get("Contents", [])]
        curated = [k for k in keys if k.startswith("curated/orders/") and k.endswith(".parquet")]
        assert {k.split("/")[2] for k in curated} == {"day=2026-11-19", "day=2026-11-20"}, keys
        assert any(k.startswith("curated/daily_revenue/") for k in keys), keys
    finally:
        server.stop()
