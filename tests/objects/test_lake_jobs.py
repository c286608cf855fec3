"""Jobs and the lake through S3 clients only: scripts uploaded with ``aws s3 cp``, a Python shell job
writing with ``boto3.client("s3").put_object``, a Spark job reading it, outputs read back with the AWS
CLI and pyarrow's S3 file system (the seed's synthetic-data flow)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import botocore.config
import pyarrow.fs
import pyarrow.parquet as pq
import pytest

from tests.helpers import ServerProcess, wait_for

AWS = str(Path(sys.executable).with_name("aws"))
CONFIG = botocore.config.Config(retries={"max_attempts": 1})
CREDENTIALS = {"AWS_ACCESS_KEY_ID": "AKIDLAKE", "AWS_SECRET_ACCESS_KEY": "x", "AWS_DEFAULT_REGION": "us-east-1"}

SYNTHETIC = """\
import json
import sys

import boto3
from awsglue.utils import getResolvedOptions

args = getResolvedOptions(sys.argv, ["bucket", "rows"])
events = [{"id": i, "kind": "click" if i % 3 else "view", "amount": i * 1.5} for i in range(int(args["rows"]))]
body = "\\n".join(json.dumps(e) for e in events)
boto3.client("s3").put_object(Bucket=args["bucket"], Key="raw/events.json", Body=body.encode())
print("wrote", len(events), "events")
"""

CURATE = """\
import sys

from awsglue.context import GlueContext
from awsglue.job import Job
from awsglue.utils import getResolvedOptions
from pyspark.context import SparkContext

args = getResolvedOptions(sys.argv, ["JOB_NAME", "bucket"])
glueContext = GlueContext(SparkContext.getOrCreate())
job = Job(glueContext)
job.init(args["JOB_NAME"], args)
events = glueContext.create_dynamic_frame.from_options(
    connection_type="s3", connection_options={"paths": [f"s3://{args['bucket']}/raw/"]}, format="json")
clicks = events.filter(lambda row: row["kind"] == "click")
glueContext.write_dynamic_frame.from_options(
    frame=clicks, connection_type="s3", connection_options={"path": f"s3://{args['bucket']}/curated/clicks/"},
    format="parquet")
job.commit()
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    running = ServerProcess(tmp_path_factory.mktemp("lake-home"), local_scripts=False).start()
    yield running
    running.stop()


def cli(server: ServerProcess, *args: str) -> str:
    return subprocess.run([AWS, "--endpoint-url", server.endpoint, *args], capture_output=True, text=True,
                          env={**os.environ, **CREDENTIALS}, check=True).stdout


def run_job(glue: Any, name: str, arguments: dict[str, str]) -> dict[str, Any]:
    run_id = glue.start_job_run(JobName=name, Arguments=arguments)["JobRunId"]
    return wait_for(lambda: (r := glue.get_job_run(JobName=name, RunId=run_id)["JobRun"])["JobRunState"] in (
        "SUCCEEDED", "FAILED", "ERROR", "TIMEOUT") and r, timeout=240, what=f"{name} to end")


def test_scripts_uploaded_with_the_cli_write_and_read_the_lake(server: ServerProcess, tmp_path: Path) -> None:
    cli(server, "s3", "mb", "s3://scripts")
    cli(server, "s3", "mb", "s3://lake")
    for name, text in (("synthetic.py", SYNTHETIC), ("curate.py", CURATE)):
        (tmp_path / name).write_text(text)
        cli(server, "s3", "cp", str(tmp_path / name), f"s3://scripts/jobs/{name}")
    glue = server.client(access_key=CREDENTIALS["AWS_ACCESS_KEY_ID"])
    glue.create_job(Name="synthetic", Role="GlueRole", Command={
        "Name": "pythonshell", "ScriptLocation": "s3://scripts/jobs/synthetic.py", "PythonVersion": "3.9"})
    glue.create_job(Name="curate", Role="GlueRole", GlueVersion="4.0", Command={
        "Name": "glueetl", "ScriptLocation": "s3://scripts/jobs/curate.py"})

    made = run_job(glue, "synthetic", {"--bucket": "lake", "--rows": "30"})
    assert made["JobRunState"] == "SUCCEEDED", made.get("ErrorMessage")
    s3 = boto3.client("s3", endpoint_url=server.endpoint, region_name="us-east-1", config=CONFIG,
                      aws_access_key_id="AKIDLAKE", aws_secret_access_key="x")
    raw = s3.get_object(Bucket="lake", Key="raw/events.json")["Body"].read().decode().splitlines()
    assert len(raw) == 30 and json.loads(raw[1]) == {"id": 1, "kind": "click", "amount": 1.5}

    curated = run_job(glue, "curate", {"--bucket": "lake"})
    assert curated["JobRunState"] == "SUCCEEDED", curated.get("ErrorMessage")
    listing = cli(server, "s3", "ls", "--recursive", "s3://lake/curated/clicks/")
    parquet = [line.split()[-1] for line in listing.splitlines() if line.endswith(".parquet")]
    assert parquet, listing

    lake = pyarrow.fs.S3FileSystem(access_key="AKIDLAKE", secret_key="x", region="us-east-1", scheme="http",
                                   endpoint_override=server.endpoint.removeprefix("http://"))
    table = pq.read_table("lake/curated/clicks/", filesystem=lake)
    assert sorted(table.column("id").to_pylist()) == [i for i in range(30) if i % 3]
    assert set(table.column("kind").to_pylist()) == {"click"}


def test_glueball_run_answers_a_scripts_own_boto3_in_process(tmp_path: Path) -> None:
    """Embedded, with no server: the script's plain ``boto3.client("s3")`` writes the local object store."""
    script = tmp_path / "writer.py"
    script.write_text(textwrap.dedent("""\
        import boto3
        s3 = boto3.client("s3")
        s3.create_bucket(Bucket="embedded")
        s3.put_object(Bucket="embedded", Key="out/hello.txt", Body=b"from a script")
        print(s3.list_objects_v2(Bucket="embedded")["KeyCount"])
        print(boto3.client("glue").get_databases()["DatabaseList"])
    """))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "GLUEBALL_"))}
    env["GLUEBALL_HOME"] = str(tmp_path / "home")
    done = subprocess.run([sys.executable, "-m", "glueball", "run", str(script)], capture_output=True, text=True,
                          env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1", "[]"]
    assert (tmp_path / "home" / "s3" / "embedded" / "out" / "hello.txt").read_bytes() == b"from a script"
