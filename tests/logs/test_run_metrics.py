"""A Spark job run's Glue metrics (namespace Glue; JobName, JobRunId, Type) read through CloudWatch's API, from
its Spark event log; a streaming job's batch metrics and log lines while it runs."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import ServerProcess, unique, wait_for
from tests.logs.helpers import client, refused
from tests.logs.test_run_logs import ENDED

BATCH = '''
import sys
from awsglue.context import GlueContext
from awsglue.utils import getResolvedOptions
from pyspark.context import SparkContext
args = getResolvedOptions(sys.argv, ["JOB_NAME", "input"])
glue = GlueContext(SparkContext.getOrCreate())
frame = glue.spark_session.read.json(args["input"])
print("rows", frame.groupBy("k").count().count())
# a task that outlasts the executors' memory sampling interval (1 s): the heap figures come from those samples
def slowly(rows):
    import time
    time.sleep(2.5)
    return rows
print("sampled", frame.rdd.mapPartitions(slowly).count())
'''

STREAMING = '''
import sys
from awsglue.context import GlueContext
from awsglue.utils import getResolvedOptions
from pyspark.context import SparkContext
args = getResolvedOptions(sys.argv, ["JOB_NAME", "checkpoint"])
glue = GlueContext(SparkContext.getOrCreate())
rates = glue.spark_session.readStream.format("rate").option("rowsPerSecond", 20).load()
glue.forEachBatch(frame=rates, batch_function=lambda batch, batch_id: print("batch", batch_id, batch.count()),
                  options={"windowSize": "2 seconds", "checkpointLocation": args["checkpoint"]})
'''


@pytest.fixture(scope="module")
def metrics_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    server = ServerProcess(tmp_path_factory.mktemp("metrics")).start()
    yield server
    server.stop()


def run_job(server: ServerProcess, script: str, kind: str, **arguments: str) -> tuple[str, str]:
    glue = client(server, "glue")
    path = server.home / "scripts" / f"{unique('spark')}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(script)
    name = unique("sparkjob")
    glue.create_job(Name=name, Role="GlueRole", Command={"Name": kind, "ScriptLocation": str(path)},
                    DefaultArguments=arguments, WorkerType="G.1X", NumberOfWorkers=2)
    return name, glue.start_job_run(JobName=name)["JobRunId"]


def statistic(cloudwatch: Any, metric: str, dimensions: dict[str, str], stat: str = "Sum") -> float:
    now = dt.datetime.now(dt.UTC)
    points = cloudwatch.get_metric_statistics(
        Namespace="Glue", MetricName=metric, Dimensions=[{"Name": k, "Value": v} for k, v in dimensions.items()],
        StartTime=now - dt.timedelta(hours=1), EndTime=now + dt.timedelta(minutes=5), Period=3600,
        Statistics=[stat])["Datapoints"]
    return float(sum(point[stat] for point in points))


def test_a_spark_runs_metrics_are_glues_job_metrics(metrics_server: ServerProcess, tmp_path: Path) -> None:
    data = tmp_path / "input"
    data.mkdir()
    (data / "part-0.json").write_text("".join(f'{{"k": {i % 3}, "v": {i}}}\n' for i in range(300)))
    name, run_id = run_job(metrics_server, BATCH, "glueetl", **{"--input": str(data)})
    glue = client(metrics_server, "glue")
    run = wait_for(lambda: (lambda r: r if r["JobRunState"] in ENDED else None)(
        glue.get_job_run(JobName=name, RunId=run_id)["JobRun"]), 300, "the Spark run to end", 0.5)
    assert run["JobRunState"] == "SUCCEEDED", run.get("ErrorMessage")
    cloudwatch = client(metrics_server, "cloudwatch")
    counted = {"JobName": name, "JobRunId": run_id, "Type": "count"}
    assert statistic(cloudwatch, "glue.driver.aggregate.numCompletedTasks", counted) >= 2
    assert statistic(cloudwatch, "glue.driver.aggregate.numCompletedStages", counted) >= 2
    assert statistic(cloudwatch, "glue.driver.aggregate.recordsRead", counted) >= 300
    assert statistic(cloudwatch, "glue.driver.aggregate.bytesRead", counted) >= data.joinpath("part-0.json").stat(
    ).st_size
    assert statistic(cloudwatch, "glue.driver.aggregate.elapsedTime", counted) > 0
    assert statistic(cloudwatch, "glue.driver.aggregate.numFailedTasks", counted) == 0
    every_run = {**counted, "JobRunId": "ALL"}
    assert statistic(cloudwatch, "glue.driver.aggregate.numCompletedTasks", every_run) == statistic(
        cloudwatch, "glue.driver.aggregate.numCompletedTasks", counted)
    gauge = {"JobName": name, "JobRunId": run_id, "Type": "gauge"}
    assert statistic(cloudwatch, "glue.driver.ExecutorAllocationManager.executors.numberAllExecutors", gauge,
                     "Maximum") >= 1
    assert 0 < statistic(cloudwatch, "glue.ALL.jvm.heap.usage", gauge, "Maximum") < 1
    names = {m["MetricName"] for page in cloudwatch.get_paginator("list_metrics").paginate(
        Namespace="Glue", Dimensions=[{"Name": "JobName", "Value": name}, {"Name": "JobRunId", "Value": run_id}])
        for m in page["Metrics"]}
    assert {"glue.driver.aggregate.bytesRead", "glue.driver.aggregate.numCompletedTasks", "glue.driver.jvm.heap.used",
            "glue.ALL.jvm.heap.used"} <= names
    now = dt.datetime.now(dt.UTC)
    data_answer = cloudwatch.get_metric_data(StartTime=now - dt.timedelta(hours=1), EndTime=now, MetricDataQueries=[
        {"Id": "tasks", "MetricStat": {"Metric": {"Namespace": "Glue",
                                                  "MetricName": "glue.driver.aggregate.numCompletedTasks",
                                                  "Dimensions": [{"Name": k, "Value": v} for k, v in counted.items()]},
                                       "Period": 60, "Stat": "Sum"}}])["MetricDataResults"][0]
    assert data_answer["Id"] == "tasks" and data_answer["StatusCode"] == "Complete"
    assert sum(data_answer["Values"]) == statistic(cloudwatch, "glue.driver.aggregate.numCompletedTasks", counted)
    assert data_answer["Timestamps"] == sorted(data_answer["Timestamps"], reverse=True)


def test_a_streaming_runs_batch_metrics_arrive_while_it_runs(metrics_server: ServerProcess, tmp_path: Path) -> None:
    name, run_id = run_job(metrics_server, STREAMING, "gluestreaming", **{"--checkpoint": str(tmp_path / "cp")})
    cloudwatch = client(metrics_server, "cloudwatch")
    glue = client(metrics_server, "glue")
    dimensions = {"JobName": name, "JobRunId": run_id, "Type": "count"}
    try:
        wait_for(lambda: statistic(cloudwatch, "glue.driver.streaming.numRecords", dimensions) >= 20, 300,
                 "batch metrics of the running streaming job", 1.0)
        assert glue.get_job_run(JobName=name, RunId=run_id)["JobRun"]["JobRunState"] == "RUNNING"
        assert statistic(cloudwatch, "glue.driver.streaming.batchProcessingTimeInMs", dimensions) > 0
        assert statistic(cloudwatch, "glue.driver.streaming.numRecords", {**dimensions, "JobRunId": "ALL"}) >= 20
        logs = client(metrics_server, "logs")
        printed = logs.filter_log_events(logGroupName="/aws-glue/jobs/output", logStreamNames=[run_id],
                                         filterPattern="batch")["events"]
        assert printed and all(e["message"].startswith("batch ") for e in printed)  # its lines, while it runs
    finally:
        glue.batch_stop_job_run(JobName=name, JobRunIds=[run_id])
    wait_for(lambda: glue.get_job_run(JobName=name, RunId=run_id)["JobRun"]["JobRunState"] in ENDED, 120,
             "the streaming run to stop", 0.5)


def test_put_metric_data_and_its_refusals(metrics_server: ServerProcess) -> None:
    cloudwatch = client(metrics_server, "cloudwatch")
    namespace = unique("Script")
    now = dt.datetime.now(dt.UTC)
    cloudwatch.put_metric_data(Namespace=namespace, MetricData=[
        {"MetricName": "Latency", "Value": 10, "Unit": "Milliseconds", "Timestamp": now},
        {"MetricName": "Latency", "StatisticValues": {"SampleCount": 2, "Sum": 50, "Minimum": 20, "Maximum": 30},
         "Unit": "Milliseconds", "Timestamp": now},
        {"MetricName": "Latency", "Values": [1, 100], "Counts": [3, 1], "Unit": "Milliseconds", "Timestamp": now}])
    point = cloudwatch.get_metric_statistics(
        Namespace=namespace, MetricName="Latency", StartTime=now - dt.timedelta(minutes=5),
        EndTime=now + dt.timedelta(minutes=5), Period=600,
        Statistics=["SampleCount", "Sum", "Minimum", "Maximum", "Average"])["Datapoints"]
    assert [(p["SampleCount"], p["Sum"], p["Minimum"], p["Maximum"], p["Average"]) for p in point] == [
        (7.0, 163.0, 1.0, 100.0, 163.0 / 7)]
    window = {"StartTime": now - dt.timedelta(minutes=5), "EndTime": now + dt.timedelta(minutes=5)}
    for call, kwargs, code in (
            (cloudwatch.put_metric_data, {"Namespace": "AWS/Glue", "MetricData": [{"MetricName": "x", "Value": 1}]},
             "InvalidParameterValue"),
            (cloudwatch.put_metric_data, {"Namespace": namespace, "MetricData": [
                {"MetricName": "x", "Value": 1, "StatisticValues": {"SampleCount": 1, "Sum": 1, "Minimum": 1,
                                                                     "Maximum": 1}}]}, "InvalidParameterCombination"),
            (cloudwatch.put_metric_data, {"Namespace": namespace, "MetricData": [
                {"MetricName": "x", "Value": 1, "Timestamp": now - dt.timedelta(days=15)}]}, "InvalidParameterValue"),
            (cloudwatch.put_metric_data, {"Namespace": namespace, "MetricData": [
                {"MetricName": "x", "Value": 1, "StorageResolution": 30}]}, "InvalidParameterValue"),
            (cloudwatch.get_metric_statistics, {"Namespace": namespace, "MetricName": "Latency", "Period": 60,
                                                **window}, "MissingParameter"),
            (cloudwatch.get_metric_statistics, {"Namespace": namespace, "MetricName": "Latency", "Period": 60,
                                                "ExtendedStatistics": ["p99"], **window}, "InvalidParameterValue"),
            (cloudwatch.get_metric_statistics, {"Namespace": namespace, "MetricName": "Latency", "Period": 61,
                                                "Statistics": ["Sum"], **window}, "InvalidParameterValue"),
            (cloudwatch.get_metric_statistics, {"Namespace": namespace, "MetricName": "Latency", "Period": 60,
                                                "Statistics": ["Sum"], "StartTime": now - dt.timedelta(days=2),
                                                "EndTime": now}, "InvalidParameterCombination"),
            (cloudwatch.get_metric_statistics, {"Namespace": namespace, "MetricName": "Latency", "Period": 60,
                                                "Statistics": ["Sum"], "StartTime": now, "EndTime": now},
             "InvalidParameterValue"),
            (cloudwatch.get_metric_data, {"MetricDataQueries": [{"Id": "e", "Expression": "SUM(METRICS())"}],
                                          **window}, "InvalidParameterValue"),
            (cloudwatch.get_metric_data, {"MetricDataQueries": [{"Id": "p", "MetricStat": {
                "Metric": {"Namespace": namespace, "MetricName": "Latency"}, "Period": 60, "Stat": "p90"}}],
                **window}, "InvalidParameterValue"),
            (cloudwatch.list_metrics, {"NextToken": "nope"}, "InvalidNextToken")):
        assert refused(call, **kwargs)[0] == code, (call, kwargs)
    assert cloudwatch.list_metrics(Namespace=namespace, Dimensions=[{"Name": "Absent"}])["Metrics"] == []
