"""Glue scripts run by `glueball run` use s3:// in plain Spark beside Glue's own readers and writers.

Real driver processes: the scripts make their own SparkContext, which takes its settings from
``PYSPARK_SUBMIT_ARGS``; one of them runs on a machine without javac.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq

from glueball.jobs.eventlog import run_metrics
from glueball.supervise.process import error_message

ORDERS = [(i, ("emea", "amer", "apac")[i % 3], float(i * 7 % 100)) for i in range(1, 61)]

MIXED = '''
import json, sys
from pyspark.context import SparkContext
from pyspark.sql import functions as F
from awsglue.context import GlueContext
from awsglue.dynamicframe import DynamicFrame
from awsglue.job import Job
from awsglue.utils import getResolvedOptions

args = getResolvedOptions(sys.argv, ["JOB_NAME"])
sc = SparkContext()
glueContext = GlueContext(sc)
spark = glueContext.spark_session
job = Job(glueContext)
job.init(args["JOB_NAME"], args)

orders = (spark.read.option("header", "true").schema("id long, region string, amount double")
          .csv("s3://lake/raw/orders/"))
orders.groupBy("region").agg(F.sum("amount").alias("total")).write.mode("overwrite").parquet("s3a://lake/curated/totals/")
big = DynamicFrame.fromDF(orders.filter("amount >= 50"), glueContext, "big")
glueContext.write_dynamic_frame.from_options(
    frame=big, connection_type="s3", format="json",
    connection_options={"path": "s3://lake/curated/big/", "partitionKeys": ["region"]})
totals = glueContext.create_dynamic_frame.from_options(
    connection_type="s3", connection_options={"paths": ["s3://lake/curated/totals/"]}, format="parquet")
written = spark.read.json("s3n://lake/curated/big/")
print(json.dumps({"totals": totals.count(), "big": written.count(),
                  "files": sorted({r.f for r in written.select(F.input_file_name().alias("f")).collect()}),
                  "event_log_dir": sc.getConf().get("spark.eventLog.dir")}))
job.commit()
'''

NO_JDK = '''
from pyspark.sql import SparkSession

spark = SparkSession.builder.getOrCreate()
print("started", spark.range(3).count(), flush=True)
spark.read.csv("s3://lake/raw/orders/").count()
'''


def glueball_run(home: Path, script: Path, *args: str, env: dict[str, str] | None = None
                 ) -> subprocess.CompletedProcess[str]:
    """``glueball run SCRIPT ARGS`` over ``home`` in a driver process of its own (local[2])."""
    environment = dict(os.environ, GLUEBALL_HOME=str(home), **(env or {}))
    environment.pop("GLUEBALL_ENDPOINT", None)
    environment.pop("GLUEBALL_S3_ENDPOINT", None)
    return subprocess.run([sys.executable, "-m", "glueball", "run", str(script), *args,
                           "--spark-master", "local[2]", "--conf", "spark.sql.shuffle.partitions=4"],
                          capture_output=True, text=True, env=environment, timeout=600)


def seed_orders(home: Path) -> None:
    """ORDERS as a CSV file at s3://lake/raw/orders/orders.csv of ``home``."""
    folder = home / "s3" / "lake" / "raw" / "orders"
    folder.mkdir(parents=True)
    (folder / "orders.csv").write_text("id,region,amount\n" + "".join(f"{i},{r},{a}\n" for i, r, a in ORDERS))


def test_a_glue_script_mixes_plain_spark_and_glue_writers_on_s3_paths(tmp_path: Path) -> None:
    home = tmp_path / "home"
    seed_orders(home)
    script = tmp_path / "mixed.py"
    script.write_text(MIXED)
    result = glueball_run(home, script, "--JOB_NAME", "mixed", "--conf", "spark.eventLog.enabled=true",
                          "--conf", "spark.eventLog.dir=s3://logs/spark-events",
                          "--conf", "spark.eventLog.compress=false")
    assert result.returncode == 0, result.stderr[-4000:]
    summary = json.loads(result.stdout.strip().splitlines()[-1])

    totals = pq.read_table(home / "s3" / "lake" / "curated" / "totals").to_pylist()
    expected: dict[str, float] = {}
    for _, region, amount in ORDERS:
        expected[region] = expected.get(region, 0.0) + amount
    assert {row["region"]: row["total"] for row in totals} == expected
    assert summary["totals"] == 3

    big = home / "s3" / "lake" / "curated" / "big"
    assert sorted(p.name for p in big.iterdir() if p.is_dir()) == ["region=amer", "region=apac", "region=emea"]
    outputs = list(big.rglob("run-*-part-r-*"))  # the Glue writer's file names (glueball.runtime.io.outnames)
    written = [json.loads(line) for f in outputs for line in f.read_text().splitlines()]
    assert sorted(r["id"] for r in written) == sorted(i for i, _, a in ORDERS if a >= 50)
    assert summary["big"] == len(written)
    assert summary["files"] and all(f.startswith("s3n://lake/curated/big/region=") for f in summary["files"])

    events = home / "s3" / "logs" / "spark-events"
    assert summary["event_log_dir"] == "s3://logs/spark-events"
    assert [p.name for p in events.iterdir() if p.name.startswith("eventlog_v2_")]
    metrics = run_metrics(events)
    assert metrics.records_read >= len(ORDERS) and metrics.tasks > 0
    # what went through the file system has no checksum side files (Glue's writer hands Spark local paths)
    assert not [p for p in [*(home / "s3" / "lake" / "curated" / "totals").rglob("*"), *events.rglob("*")]
                if p.name.endswith(".crc")]


def _path_without_javac(folder: Path) -> str:
    """A PATH with every program of this one except javac (symbolic links in ``folder``)."""
    folder.mkdir()
    for directory in os.environ["PATH"].split(os.pathsep):
        if not os.path.isdir(directory):
            continue
        for entry in os.scandir(directory):
            link = folder / entry.name
            if entry.name != "javac" and not link.exists() and entry.is_file() and os.access(entry.path, os.X_OK):
                link.symlink_to(entry.path)
    return str(folder)


def test_without_a_jdk_spark_starts_and_only_s3_fails_naming_the_jdk(tmp_path: Path) -> None:
    home = tmp_path / "home"
    seed_orders(home)
    script = tmp_path / "no_jdk.py"
    script.write_text(NO_JDK)
    env = {"PATH": _path_without_javac(tmp_path / "bin"), "GLUEBALL_HADOOP_CACHE": str(tmp_path / "cache")}
    saved = os.environ.pop("JAVA_HOME", None)
    try:
        result = glueball_run(home, script, env=env)
    finally:
        if saved is not None:
            os.environ["JAVA_HOME"] = saved
    assert result.returncode == 1
    assert "started 3" in result.stdout  # Spark itself started
    missing = "javac not found: install a JDK (openjdk-17-jdk-headless) to use s3:// paths in Spark"
    assert f"s3://, s3a:// and s3n:// paths in plain Spark (spark.read, df.write, SQL LOCATION) are unavailable: " \
           f"{missing}" in result.stderr
    assert 'No FileSystem for scheme "s3"' in result.stderr  # Hadoop's own error, then the reason
    log = tmp_path / "error.log"
    log.write_text(result.stderr)
    assert error_message(log) == ("glueball.runtime.hadoop.HadoopJarError: s3:// paths in Spark need glueball's "
                                  f"Hadoop FileSystem, which is not available: {missing}")
    assert not list((tmp_path / "cache").glob("*.jar"))
