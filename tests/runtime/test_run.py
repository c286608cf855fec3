"""`glueball run` runs a Glue script unchanged in its own process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from glueball.runtime.scriptrunner import parse_run_args, spark_submit_args

SCRIPT = '''
import json, sys
from pyspark.context import SparkContext
from awsglue.context import GlueContext
from awsglue.dynamicframe import DynamicFrame
from awsglue.job import Job
from awsglue.utils import getResolvedOptions
import helper_module

args = getResolvedOptions(sys.argv, ["JOB_NAME", "out"])
sc = SparkContext()
glueContext = GlueContext(sc)
spark = glueContext.spark_session
job = Job(glueContext)
job.init(args["JOB_NAME"], args)
frame = DynamicFrame.fromDF(spark.createDataFrame([(1, "a"), (2, "b")], "id long, v string"), glueContext, "f")
summary = {
    "argv": sys.argv[1:],
    "count": frame.count(),
    "ansi": spark.conf.get("spark.sql.ansi.enabled"),
    "shuffle": spark.conf.get("spark.sql.shuffle.partitions"),
    "master": sc.master,
    "helper": helper_module.VALUE,
    "cast": spark.sql("SELECT CAST('abc' AS INT) AS x").collect()[0].x,
}
job.commit()
open(args["out"], "w").write(json.dumps(summary))
'''


def test_glueball_run_runs_a_glue_script_unchanged(tmp_path: Path) -> None:
    script = tmp_path / "job.py"
    script.write_text(SCRIPT)
    helper = tmp_path / "libs" / "helper_module.py"
    helper.parent.mkdir()
    helper.write_text("VALUE = 42\n")
    out = tmp_path / "summary.json"
    env = dict(os.environ, GLUEBALL_HOME=str(tmp_path / "home"), GLUEBALL_SQL_CATALOG="off")
    result = subprocess.run(
        [sys.executable, "-m", "glueball", "run", str(script), "--JOB_NAME", "nightly", "--out", str(out),
         "--conf", "spark.sql.shuffle.partitions=3", "--extra-py-files", str(helper), "--spark-master", "local[1]"],
        capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    summary = json.loads(out.read_text())
    assert summary["argv"] == ["--JOB_NAME", "nightly", "--out", str(out)]
    assert summary["count"] == 2
    assert summary["ansi"] == "false"
    assert summary["shuffle"] == "3"
    assert summary["master"] == "local[1]"
    assert summary["helper"] == 42
    assert summary["cast"] is None


def test_a_failing_script_exits_non_zero_with_its_traceback(tmp_path: Path) -> None:
    script = tmp_path / "bad.py"
    script.write_text("raise ValueError('the input bucket is empty')\n")
    result = subprocess.run([sys.executable, "-m", "glueball", "run", str(script)], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 1
    assert "ValueError: the input bucket is empty" in result.stderr


def test_runner_option_parsing() -> None:
    script = Path(__file__)
    plan = parse_run_args(str(script), ["--a", "1", "--conf", "x.y=1 --conf z=2", "--conf=w=3", "--b=2"])
    assert plan.script_args == ["--a", "1", "--b=2"]
    assert plan.conf == {"x.y": "1", "z": "2", "w": "3"}
    assert "--conf x.y=1" in spark_submit_args(plan)
    with pytest.raises(ValueError, match="key=value"):
        parse_run_args(str(script), ["--conf", "novalue"])
    with pytest.raises(ValueError, match="needs a value"):
        parse_run_args(str(script), ["--spark-master"])
    with pytest.raises(ValueError, match="does not exist"):
        parse_run_args("/no/such/script.py", [])


CATALOG_SCRIPT = '''
import sys
from pyspark.context import SparkContext
from awsglue.context import GlueContext
from awsglue.utils import getResolvedOptions

args = getResolvedOptions(sys.argv, ["out"])
glueContext = GlueContext(SparkContext.getOrCreate())
frame = glueContext.create_dynamic_frame.from_catalog(database="remote_db", table_name="people",
                                                     push_down_predicate="country = 'no'")
glueContext.write_dynamic_frame.from_options(frame, "s3", {"path": args["out"]}, format="json")
'''


def test_glueball_run_uses_a_server_catalog_through_glueball_endpoint(tmp_path: Path) -> None:
    from tests.helpers import ServerProcess

    home = tmp_path / "home"
    home.mkdir()
    server = ServerProcess(home).start()
    try:
        glue = server.client()
        glue.create_database(DatabaseInput={"Name": "remote_db"})
        glue.create_table(DatabaseName="remote_db", TableInput={
            "Name": "people", "PartitionKeys": [{"Name": "country", "Type": "string"}],
            "Parameters": {"classification": "json"},
            "StorageDescriptor": {"Location": "s3://lake/people/", "Columns": [{"Name": "name", "Type": "string"}]}})
        for country, names in (("no", ["Ada", "Ole"]), ("se", ["Sven"])):
            folder = home / "s3" / "lake" / "people" / f"country={country}"
            folder.mkdir(parents=True)
            (folder / "part.json").write_text("".join(f'{{"name": "{n}"}}\n' for n in names))
            glue.create_partition(DatabaseName="remote_db", TableName="people", PartitionInput={
                "Values": [country], "StorageDescriptor": {"Location": f"s3://lake/people/country={country}/"}})
        script = tmp_path / "remote.py"
        script.write_text(CATALOG_SCRIPT)
        env = dict(os.environ, GLUEBALL_HOME=str(home), GLUEBALL_ENDPOINT=server.endpoint)
        result = subprocess.run([sys.executable, "-m", "glueball", "run", str(script), "--out", "s3://lake/out/",
                                 "--spark-master", "local[1]"], capture_output=True, text=True, env=env, timeout=300)
        assert result.returncode == 0, result.stderr[-3000:]
        written = sorted((home / "s3" / "lake" / "out").glob("run-*-part-r-*"))  # Glue's file names
        names = sorted(json.loads(line)["name"] for f in written for line in f.read_text().splitlines() if line)
        assert names == ["Ada", "Ole"]
    finally:
        server.stop()
