"""The Glue bookmark flow through the AWS CLI: each run reads only new files until the bookmark is reset."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from tests.api.test_awscli import aws, aws_json
from tests.helpers import ServerProcess

SCRIPT = '''
import sys
from awsglue.context import GlueContext
from awsglue.job import Job
from awsglue.utils import getResolvedOptions
from pyspark.context import SparkContext

args = getResolvedOptions(sys.argv, ["JOB_NAME", "run_tag"])
glueContext = GlueContext(SparkContext.getOrCreate())
job = Job(glueContext)
job.init(args["JOB_NAME"], args)
orders = glueContext.create_dynamic_frame.from_options(
    "s3", {"paths": ["s3://landing/orders/"]}, format="json", transformation_ctx="orders")
glueContext.write_dynamic_frame.from_options(
    orders, "s3", {"path": "s3://curated/runs/" + args["run_tag"] + "/"}, format="json")
job.commit()
'''


def write_file(home: Path, name: str, ids: range) -> None:
    folder = home / "s3" / "landing" / "orders"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text("".join(json.dumps({"order_id": i}) + "\n" for i in ids))


def run_and_wait(server: ServerProcess, tag: str) -> dict[str, Any]:
    run_id = aws_json(server, "start-job-run", "--job-name", "orders-transform",
                      "--arguments", json.dumps({"--run_tag": tag}))["JobRunId"]
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        run = aws_json(server, "get-job-run", "--job-name", "orders-transform", "--run-id", run_id)["JobRun"]
        if run["JobRunState"] in ("SUCCEEDED", "FAILED", "TIMEOUT", "STOPPED", "ERROR"):
            return dict(run)
        time.sleep(0.5)
    raise AssertionError(f"run {run_id} did not finish")


def ids_written(home: Path, tag: str) -> list[int]:
    folder = home / "s3" / "curated" / "runs" / tag
    return sorted(json.loads(line)["order_id"] for f in folder.glob("run-*-part-r-*")
                  for line in f.read_text().splitlines() if line)


def test_bookmarked_job_reads_only_new_files_until_reset(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    server = ServerProcess(home).start()
    try:
        scripts = home / "s3" / "my-scripts"
        scripts.mkdir(parents=True)
        (scripts / "orders_transform.py").write_text(SCRIPT)
        write_file(home, "day1.json", range(5))
        aws(server, "create-job", "--name", "orders-transform", "--role", "arn:aws:iam::123456789012:role/glue",
            "--command", json.dumps({"Name": "glueetl", "ScriptLocation": "s3://my-scripts/orders_transform.py"}),
            "--default-arguments", json.dumps({"--job-bookmark-option": "job-bookmark-enable"}),
            "--worker-type", "G.1X", "--number-of-workers", "2")

        first = run_and_wait(server, "first")
        assert first["JobRunState"] == "SUCCEEDED", first.get("ErrorMessage")
        assert ids_written(home, "first") == list(range(5))

        write_file(home, "day2.json", range(5, 8))
        second = run_and_wait(server, "second")
        assert second["JobRunState"] == "SUCCEEDED", second.get("ErrorMessage")
        assert ids_written(home, "second") == [5, 6, 7]
        bookmark = aws_json(server, "get-job-bookmark", "--job-name", "orders-transform")["JobBookmarkEntry"]
        assert bookmark["RunId"] == second["Id"]
        assert "orders" in bookmark["JobBookmark"]

        aws(server, "reset-job-bookmark", "--job-name", "orders-transform")
        third = run_and_wait(server, "third")
        assert third["JobRunState"] == "SUCCEEDED", third.get("ErrorMessage")
        assert ids_written(home, "third") == list(range(8))
    finally:
        server.stop()


KILLABLE_SCRIPT = '''
import os, sys, time
from awsglue.context import GlueContext
from awsglue.job import Job
from awsglue.utils import getResolvedOptions
from pyspark.context import SparkContext

args = getResolvedOptions(sys.argv, ["JOB_NAME", "markers"])
glueContext = GlueContext(SparkContext.getOrCreate())
job = Job(glueContext)
job.init(args["JOB_NAME"], args)
orders = glueContext.create_dynamic_frame.from_options(
    "s3", {"paths": ["s3://landing/orders/"]}, format="json", transformation_ctx="orders")
glueContext.write_dynamic_frame.from_options(
    orders, "s3", {"path": "s3://curated/runs/" + args["JOB_RUN_ID"] + "/"}, format="json")
attempt = os.environ.get("GLUEBALL_JOB_ATTEMPT", "0")
with open(os.path.join(args["markers"], f"attempt{attempt}.pid"), "w") as marker:
    marker.write(str(os.getpid()))
if attempt == "0" and os.path.exists(os.path.join(args["markers"], "block")):
    time.sleep(600)  # killed here, after reading and before job.commit()
job.commit()
'''


def wait_for(path: Path, deadline_s: float = 300) -> None:
    deadline = time.monotonic() + deadline_s
    while not path.exists():
        if time.monotonic() > deadline:
            raise AssertionError(f"{path} did not appear")
        time.sleep(0.3)


def wait_state(server: ServerProcess, run_id: str, states: tuple[str, ...]) -> dict[str, Any]:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        run = aws_json(server, "get-job-run", "--job-name", "killable", "--run-id", run_id)["JobRun"]
        if run["JobRunState"] in states:
            return dict(run)
        time.sleep(0.5)
    raise AssertionError(f"run {run_id} never reached {states}")


def test_a_killed_run_fails_keeps_the_bookmark_and_its_retry_rereads(tmp_path: Path) -> None:
    import os
    import signal

    home, markers = tmp_path / "home", tmp_path / "markers"
    home.mkdir()
    markers.mkdir()
    server = ServerProcess(home).start()
    try:
        scripts = home / "s3" / "my-scripts"
        scripts.mkdir(parents=True)
        (scripts / "killable.py").write_text(KILLABLE_SCRIPT)
        write_file(home, "day1.json", range(3))
        aws(server, "create-job", "--name", "killable", "--role", "arn:aws:iam::123456789012:role/glue",
            "--command", json.dumps({"Name": "glueetl", "ScriptLocation": "s3://my-scripts/killable.py"}),
            "--default-arguments", json.dumps({"--job-bookmark-option": "job-bookmark-enable",
                                               "--markers": str(markers)}),
            "--max-retries", "1", "--worker-type", "G.1X", "--number-of-workers", "2")
        first_id = aws_json(server, "start-job-run", "--job-name", "killable")["JobRunId"]
        assert wait_state(server, first_id, ("SUCCEEDED", "FAILED"))["JobRunState"] == "SUCCEEDED"
        (markers / "attempt0.pid").unlink()

        write_file(home, "day2.json", range(3, 6))
        (markers / "block").write_text("")
        killed_id = aws_json(server, "start-job-run", "--job-name", "killable")["JobRunId"]
        wait_for(markers / "attempt0.pid")
        os.kill(int((markers / "attempt0.pid").read_text()), signal.SIGKILL)
        killed = wait_state(server, killed_id, ("FAILED", "SUCCEEDED", "TIMEOUT", "STOPPED"))
        assert killed["JobRunState"] == "FAILED"
        assert "killed (signal 9)" in killed["ErrorMessage"]
        bookmark = aws_json(server, "get-job-bookmark", "--job-name", "killable")["JobBookmarkEntry"]
        assert bookmark["RunId"] == first_id  # not advanced by the killed run

        wait_for(markers / "attempt1.pid")
        retries = [r for r in aws_json(server, "get-job-runs", "--job-name", "killable")["JobRuns"]
                   if r.get("PreviousRunId") == killed_id]
        assert len(retries) == 1 and retries[0]["Attempt"] == 1
        retry = wait_state(server, retries[0]["Id"], ("SUCCEEDED", "FAILED"))
        assert retry["JobRunState"] == "SUCCEEDED", retry.get("ErrorMessage")
        assert ids_written(home, killed_id) == [3, 4, 5]  # what the killed attempt read before dying
        assert ids_written(home, retry["Id"]) == [3, 4, 5]  # the retry re-reads the same input
        advanced = aws_json(server, "get-job-bookmark", "--job-name", "killable")["JobBookmarkEntry"]
        assert advanced["RunId"] == retry["Id"]
    finally:
        server.stop()
