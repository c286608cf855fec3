"""The in-process client answers exactly like boto3 against a server."""

from __future__ import annotations

import datetime as dt
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError

from glueball.app import Glueball, embedded_client
from glueball.config import Settings
from glueball.crawlers.service import CrawlerService
from glueball.jobs.service import JobRunService
from glueball.store.scoped import Scope
from tests.helpers import table_input, wait_for


@pytest.fixture()
def embedded(tmp_path: Path) -> Iterator[Any]:
    glue = Glueball(Settings(home=tmp_path))
    yield embedded_client(glue)
    glue.close()


def test_embedded_client_returns_boto3_shapes(embedded: Any, tmp_path: Path) -> None:
    embedded.create_database(DatabaseInput={"Name": "emb"})
    embedded.create_table(DatabaseName="emb", TableInput=table_input("t"))
    table = embedded.get_table(DatabaseName="emb", Name="t")["Table"]
    assert isinstance(table["CreateTime"], dt.datetime)
    assert table["VersionId"] == "0"
    assert (tmp_path / "glueball.db").exists()
    assert (tmp_path / "s3").is_dir()


def test_embedded_client_raises_client_error_with_glue_code(embedded: Any) -> None:
    with pytest.raises(ClientError) as excinfo:
        embedded.get_database(Name="missing")
    assert excinfo.value.response["Error"]["Code"] == "EntityNotFoundException"
    assert excinfo.value.response["Error"]["Message"] == "Database missing not found."
    with pytest.raises(AttributeError):
        embedded.fly_to_the_moon()  # type: ignore[attr-defined]


def test_an_embedded_installation_leaves_other_processes_runs_alone(tmp_path: Path) -> None:
    """A driver's embedded installation must not settle the runs of the server that launched it."""
    setup = Glueball(Settings(home=tmp_path))
    client = embedded_client(setup)
    client.create_job(Name="nightly", Role="r", Command={"Name": "pythonshell", "ScriptLocation": "/dev/null"})
    client.create_crawler(Name="raw", Role="r", Targets={"S3Targets": [{"Path": "s3://lake/raw/"}]})
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          check=True).stdout.strip()
    gone = f"{socket.gethostname()}:{dead}:gone"  # a supervising process that no longer exists
    _, run = JobRunService(setup.store, Scope("123456789012", "us-east-1")).begin(
        "nightly", {}, gone, None, setup.settings.logs)
    CrawlerService(setup.store, Scope("123456789012", "us-east-1")).begin_crawl("raw", gone, None)
    setup.close()

    driver_side = Glueball(Settings(home=tmp_path))  # what a driver's embedded client builds
    try:
        seen = embedded_client(driver_side)
        assert seen.get_job_run(JobName="nightly", RunId=run.run_id)["JobRun"]["JobRunState"] == "STARTING"
        assert seen.get_crawler(Name="raw")["Crawler"]["State"] == "RUNNING"
    finally:
        driver_side.close()

    server_side = Glueball(Settings(home=tmp_path))
    try:
        server_side.reconcile()  # what glueball server does at start-up
        seen = embedded_client(server_side)
        # the run's launch never began (nothing in its folder): it provably never ran, so the server runs it
        ended = wait_for(lambda: (found := seen.get_job_run(JobName="nightly", RunId=run.run_id)["JobRun"])[
            "JobRunState"] not in ("STARTING", "RUNNING") and found, 60, "the run taken over and run")
        assert ended["JobRunState"] == "SUCCEEDED", ended
        assert seen.get_crawler(Name="raw")["Crawler"]["State"] == "READY"
    finally:
        server_side.close()
