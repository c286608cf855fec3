"""Under ``--auth iam`` a job run's Spark SQL acts as the run's role: its DDL needs the role's Glue permissions."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import ServerProcess, keyed_client
from tests.helpers import iam_server as started_iam_server

ACCOUNT = "123456789012"
TRUST_GLUE = {"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "glue.amazonaws.com"}, "Action": "sts:AssumeRole"}]}
SCRIPT = """
import sys
from awsglue.context import GlueContext
from pyspark.context import SparkContext
spark = GlueContext(SparkContext.getOrCreate()).spark_session
print("databases", sorted(r.namespace for r in spark.sql("SHOW DATABASES").collect()))
spark.sql("CREATE TABLE mine.made USING parquet PARTITIONED BY (p) AS SELECT 1 AS a, 'x' AS p")
try:
    spark.sql("CREATE TABLE theirs.made USING parquet AS SELECT 1 AS a")
except Exception as exc:
    print("refused", str(exc).splitlines()[0])
"""


@pytest.fixture(scope="module")
def iam_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, tuple[str, str]]]:
    with started_iam_server(tmp_path_factory.mktemp("hms-iam-home")) as started:
        yield started


def test_a_job_runs_ddl_is_checked_against_its_role(iam_server: tuple[ServerProcess, tuple[str, str]]) -> None:
    server, keys = iam_server
    glue, iam = keyed_client(server, "glue", keys), keyed_client(server, "iam", keys)
    for name in ("default", "mine", "theirs"):
        glue.create_database(DatabaseInput={"Name": name, "LocationUri": f"s3://lake/{name}"})
    iam.create_role(RoleName="SqlRole", AssumeRolePolicyDocument=json.dumps(TRUST_GLUE))
    databases = [f"arn:aws:glue:*:{ACCOUNT}:database/{name}" for name in ("default", "mine")]
    iam.put_role_policy(RoleName="SqlRole", PolicyName="mine", PolicyDocument=json.dumps({
        "Version": "2012-10-17", "Statement": [
            {"Effect": "Allow", "Action": ["glue:GetDatabase", "glue:GetDatabases"],
             "Resource": [f"arn:aws:glue:*:{ACCOUNT}:catalog", f"arn:aws:glue:*:{ACCOUNT}:database/*"]},
            {"Effect": "Allow", "Action": ["glue:GetTable", "glue:GetTables", "glue:CreateTable", "glue:UpdateTable",
                                           "glue:GetPartitions", "glue:BatchGetPartition",
                                           "glue:BatchCreatePartition", "glue:GetPartition"],
             "Resource": [f"arn:aws:glue:*:{ACCOUNT}:catalog", *databases,
                          f"arn:aws:glue:*:{ACCOUNT}:table/default/*", f"arn:aws:glue:*:{ACCOUNT}:table/mine/*"]},
            {"Effect": "Allow", "Action": ["glue:GetTable"],
             "Resource": [f"arn:aws:glue:*:{ACCOUNT}:database/theirs", f"arn:aws:glue:*:{ACCOUNT}:table/theirs/*"]}]}))
    script = Path(server.home) / "s3" / "scripts" / "sql_as_role.py"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(SCRIPT)
    glue.create_job(Name="sql-as-role", Role="SqlRole", GlueVersion="5.0",
                    Command={"Name": "glueetl", "ScriptLocation": "s3://scripts/sql_as_role.py"})
    run_id = glue.start_job_run(JobName="sql-as-role")["JobRunId"]
    deadline, state = time.monotonic() + 300, "STARTING"
    while time.monotonic() < deadline and state not in ("SUCCEEDED", "FAILED", "ERROR", "TIMEOUT", "STOPPED"):
        time.sleep(1)
        state = glue.get_job_run(JobName="sql-as-role", RunId=run_id)["JobRun"]["JobRunState"]
    output = (Path(server.home) / "logs" / "jobs" / "sql-as-role" / run_id / "output.log").read_text()
    assert state == "SUCCEEDED", output[-3000:]
    assert "databases ['default', 'mine', 'theirs']" in output
    refused = next(line for line in output.splitlines() if line.startswith("refused"))
    assert "AccessDeniedException" in refused and "glue:CreateTable" in refused
    assert glue.get_partitions(DatabaseName="mine", TableName="made")["Partitions"][0]["Values"] == ["x"]
    assert [t["Name"] for t in glue.get_tables(DatabaseName="theirs")["TableList"]] == []
