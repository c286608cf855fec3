"""``--s3-filesystem s3a``: a Glue job's plain ``df.write.parquet("s3://...")`` goes through Hadoop's S3AFileSystem
(hadoop-aws from glueball's pinned JVM list) to the server's own S3 API, path-style, as the run's role under
``--auth iam`` — the role's policy decides each object, as it would for executors that share no disk with the
server. A bad value fails the run naming it; without hadoop-aws the first s3:// use says how to fetch it."""

from __future__ import annotations

import configparser
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from glueball import jvm
from glueball.objects.reach import process_s3_api
from tests.helpers import ServerProcess, unique, wait_for
from tests.iam.test_identity_server import TRUST_GLUE, client

BUCKET = "s3a-lake"
ENDED = ("SUCCEEDED", "FAILED", "ERROR", "TIMEOUT", "STOPPED")

SCRIPT = """
import sys
from awsglue.context import GlueContext
from awsglue.utils import getResolvedOptions
from pyspark.context import SparkContext

args = getResolvedOptions(sys.argv, ["JOB_NAME", "bucket"])
spark = GlueContext(SparkContext.getOrCreate()).spark_session
conf = spark.sparkContext._jsc.hadoopConfiguration()
print("filesystem", conf.get("fs.s3.impl"))
orders = spark.range(300).selectExpr("id", "cast(id % 3 as string) as region")
orders.write.mode("overwrite").partitionBy("region").parquet(f"s3://{args['bucket']}/ok/orders/")
print("read back", spark.read.parquet(f"s3a://{args['bucket']}/ok/orders/").count())
try:
    orders.write.mode("overwrite").parquet(f"s3://{args['bucket']}/forbidden/orders/")
    print("forbidden written")
except Exception as exc:
    print("forbidden refused", "AccessDenied" in str(exc))
"""


@pytest.fixture(scope="module")
def s3a_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, tuple[str, str]]]:
    jvm.jars("s3a")  # resolved once before the runs (as `make jars` does)
    home = tmp_path_factory.mktemp("s3a-home")
    server = ServerProcess(home, extra_args=("--auth", "iam")).start()
    profile = configparser.ConfigParser()
    profile.read(home / "credentials")
    yield server, (profile["glueball"]["aws_access_key_id"], profile["glueball"]["aws_secret_access_key"])
    server.stop()


def _run(glue: Any, job: str, **arguments: str) -> Any:
    run_id = glue.start_job_run(JobName=job, Arguments=arguments)["JobRunId"]
    return wait_for(lambda: (r := glue.get_job_run(JobName=job, RunId=run_id)["JobRun"])["JobRunState"] in ENDED
                    and r, timeout=300, what=f"run {run_id} to end", interval=0.5)


def test_s3a_writes_through_the_s3_api_as_the_run_s_role(s3a_server: tuple[ServerProcess, tuple[str, str]]) -> None:
    server, root = s3a_server
    glue, iam, s3 = (client(server, service, *root) for service in ("glue", "iam", "s3"))
    s3.create_bucket(Bucket=BUCKET)
    s3.put_object(Bucket=BUCKET, Key="scripts/s3a_job.py", Body=SCRIPT.encode())
    iam.create_role(RoleName="S3aJobRole", AssumeRolePolicyDocument=json.dumps(TRUST_GLUE))
    iam.put_role_policy(RoleName="S3aJobRole", PolicyName="ok-only", PolicyDocument=json.dumps({
        "Version": "2012-10-17", "Statement": [
            {"Effect": "Allow", "Action": "glue:*", "Resource": "*"},
            {"Effect": "Allow", "Action": "s3:ListBucket", "Resource": f"arn:aws:s3:::{BUCKET}"},
            {"Effect": "Allow", "Action": ["s3:GetObject", "s3:PutObject", "s3:DeleteObject"],
             "Resource": [f"arn:aws:s3:::{BUCKET}/ok/*", f"arn:aws:s3:::{BUCKET}/scripts/*"]}]}))
    job = unique("s3a")
    glue.create_job(Name=job, Role="S3aJobRole", GlueVersion="4.0", WorkerType="G.1X", NumberOfWorkers=2,
                    Command={"Name": "glueetl", "ScriptLocation": f"s3://{BUCKET}/scripts/s3a_job.py"},
                    DefaultArguments={"--s3-filesystem": "s3a", "--bucket": BUCKET})
    run = _run(glue, job)
    output = (server.home / "logs" / "jobs" / job / run["Id"] / "output.log").read_text()
    assert run["JobRunState"] == "SUCCEEDED", (run.get("ErrorMessage"), output[-3000:])
    assert "filesystem org.apache.hadoop.fs.s3a.S3AFileSystem" in output
    assert "read back 300" in output
    assert "forbidden refused True" in output  # the role's policy, evaluated by the S3 API, refused it
    listed = [o["Key"] for o in s3.list_objects_v2(Bucket=BUCKET, Prefix="ok/orders/")["Contents"]]
    assert {k.split("/")[2] for k in listed if k.endswith(".parquet")} == {"region=0", "region=1", "region=2"}
    assert "Contents" not in s3.list_objects_v2(Bucket=BUCKET, Prefix="forbidden/")
    assert not [k for k in listed if "_temporary" in k]  # the committer's renames went through the API too
    # a value glueball does not know fails the run, naming it
    failed = _run(glue, job, **{"--s3-filesystem": "hdfs"})
    assert failed["JobRunState"] == "FAILED" and "--s3-filesystem: 'hdfs'" in failed["ErrorMessage"]


def test_without_hadoop_aws_the_first_s3_path_says_how_to_fetch_it(
        s3a_server: tuple[ServerProcess, tuple[str, str]], tmp_path: Path) -> None:
    server, root = s3a_server
    script = tmp_path / "write.py"
    script.write_text("from glueball.runtime.spark import spark_session\n"
                      f"spark_session().range(3).write.parquet('s3://{BUCKET}/nowhere/')\n")
    env = {**os.environ, "GLUEBALL_ENDPOINT": server.endpoint, "GLUEBALL_S3_FILESYSTEM": "s3a",
           "GLUEBALL_JARS_CACHE": str(tmp_path / "empty-cache"), "GLUEBALL_MVN": "/nonexistent/mvn",
           "AWS_ACCESS_KEY_ID": root[0], "AWS_SECRET_ACCESS_KEY": root[1]}
    done = subprocess.run([sys.executable, "-m", "glueball", "run", str(script)], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode != 0
    assert "glueball jars fetch s3a" in done.stderr, done.stderr[-3000:]


def test_s3a_needs_an_s3_api(monkeypatch: pytest.MonkeyPatch) -> None:
    from glueball.runtime import hadoop

    monkeypatch.setenv("GLUEBALL_S3_FILESYSTEM", "s3a")
    monkeypatch.delenv("GLUEBALL_ENDPOINT", raising=False)
    monkeypatch.delenv("GLUEBALL_S3_ENDPOINT", raising=False)
    with pytest.raises(hadoop.HadoopJarError, match="run it under a glueball server"):
        hadoop.filesystem_settings([], Path("/nowhere"))
    monkeypatch.setenv("GLUEBALL_S3_FILESYSTEM", "ftp")
    with pytest.raises(hadoop.HadoopJarError, match="GLUEBALL_S3_FILESYSTEM='ftp'"):
        hadoop.s3_filesystem()


def test_s3a_settings_carry_the_run_s_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    from glueball.runtime import hadoop

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "ASIAEXAMPLE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret")
    monkeypatch.setenv("AWS_SESSION_TOKEN", "token")
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    monkeypatch.setenv("GLUEBALL_ENDPOINT", "http://127.0.0.1:9400")
    monkeypatch.setenv("GLUEBALL_S3_FILESYSTEM", "s3a")
    monkeypatch.delenv("GLUEBALL_S3_ENDPOINT", raising=False)
    api = process_s3_api()
    assert api is not None
    settings = hadoop.s3a_settings(api)
    assert settings["spark.hadoop.fs.s3.impl"] == settings["spark.hadoop.fs.s3n.impl"] == hadoop.S3A_FILESYSTEM
    assert (settings["spark.hadoop.fs.s3a.session.token"], settings["spark.hadoop.fs.s3a.endpoint.region"],
            settings["spark.hadoop.fs.s3a.connection.ssl.enabled"]) == ("token", "eu-west-1", "false")
    assert settings["spark.hadoop.fs.s3a.aws.credentials.provider"].endswith("TemporaryAWSCredentialsProvider")
    monkeypatch.delenv("AWS_SESSION_TOKEN")
    monkeypatch.setenv("GLUEBALL_S3_ENDPOINT", "https://s3.example")
    api = process_s3_api()
    assert api is not None and api.endpoint == "https://s3.example"
    assert hadoop.s3a_settings(api)["spark.hadoop.fs.s3a.aws.credentials.provider"].endswith(
        "SimpleAWSCredentialsProvider")
