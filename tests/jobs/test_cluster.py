"""A Glue script on a real Spark standalone cluster, through ``glueball run --spark-master spark://...``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from glueball.jobs.eventlog import run_metrics
from glueball.runtime.capacity import event_log_settings, runner_args
from tests.jobs import cluster

pytestmark = pytest.mark.spark

spark_cluster = cluster.spark_cluster

ROWS = 1200

SCRIPT = '''
import json, os, sys
from awsglue.context import GlueContext
from awsglue.job import Job
from awsglue.utils import getResolvedOptions
from pyspark.context import SparkContext

args = getResolvedOptions(sys.argv, ["JOB_NAME", "source", "target", "summary"])
sc = SparkContext()
glue_context = GlueContext(sc)
job = Job(glue_context)
job.init(args["JOB_NAME"], args)
orders = glue_context.create_dynamic_frame.from_options(
    connection_type="s3", connection_options={"paths": [args["source"]]}, format="csv",
    format_options={"withHeader": True}, transformation_ctx="orders")
glue_context.write_dynamic_frame.from_options(
    frame=orders, connection_type="s3", connection_options={"path": args["target"]}, format="parquet")
task_pids = orders.toDF().rdd.mapPartitions(lambda rows: [os.getpid()]).collect()
summary = {"count": orders.count(), "master": sc.master, "app_id": sc.applicationId,
           "driver_pid": os.getpid(), "task_pids": task_pids}
job.commit()
with open(args["summary"], "w") as out:
    json.dump(summary, out)
'''


def test_a_glue_script_runs_on_a_standalone_cluster(spark_cluster: cluster.SparkCluster, tmp_path: Path) -> None:
    script = tmp_path / "orders_transform.py"
    script.write_text(SCRIPT)
    source = tmp_path / "in" / "orders.csv"
    source.parent.mkdir()
    source.write_text("id,amount\n" + "".join(f"{i},{i * 2}\n" for i in range(ROWS)))
    events = tmp_path / "events"
    summary_file = tmp_path / "summary.json"
    env = dict(cluster.cluster_env(tmp_path), GLUEBALL_HOME=str(tmp_path / "home"), GLUEBALL_SQL_CATALOG="off")
    env.pop("GLUEBALL_ENDPOINT", None)
    result = subprocess.run(
        [sys.executable, "-m", "glueball", "run", str(script), "--JOB_NAME", "orders",
         "--source", str(source.parent), "--target", str(tmp_path / "out"), "--summary", str(summary_file),
         "--spark-master", spark_cluster.master_url, *runner_args(event_log_settings(events))],
        capture_output=True, text=True, env=env, timeout=600)
    assert result.returncode == 0, result.stderr[-4000:]

    summary = json.loads(summary_file.read_text())
    assert summary["count"] == ROWS
    assert summary["master"] == spark_cluster.master_url
    # the tasks ran in the worker's executor, not in the driver
    assert summary["task_pids"] and summary["driver_pid"] not in summary["task_pids"]
    assert pq.read_table(tmp_path / "out").num_rows == ROWS

    spark_cluster.wait_for(lambda state: summary["app_id"] in [a["id"] for a in state.get("completedapps", [])],
                           "the application to complete", timeout=60)
    [app] = [a for a in spark_cluster.state()["completedapps"] if a["id"] == summary["app_id"]]
    assert app["state"] == "FINISHED"

    metrics = run_metrics(events)
    assert metrics.applications == [summary["app_id"]]
    assert metrics.records_written == ROWS
    assert metrics.records_read >= ROWS
    assert metrics.executor_seconds > 0
    # the worker's executor has 1 core: a quarter of a DPU
    assert metrics.dpu_seconds == pytest.approx(metrics.executor_seconds / 4)
