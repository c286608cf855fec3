"""Run metrics read from the event log of a real Spark application."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from glueball.jobs.eventlog import EventLogError, application_logs, run_metrics
from glueball.runtime.capacity import event_log_settings

pytestmark = pytest.mark.spark

ROWS = 2500

JOB = '''
import json, sys
from pyspark import TaskContext
from pyspark.sql import SparkSession, functions as F

settings, source, target = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
builder = SparkSession.builder.master("local[2,2]").appName("eventlog-test").config("spark.ui.enabled", "false")
for key, value in settings.items():
    builder = builder.config(key, value)
spark = builder.getOrCreate()
# an explicit schema: no extra job reading the header
orders = spark.read.schema("id long, amount double").option("header", "true").csv(source)
orders.write.parquet(target)

@F.udf("long")
def flaky(value):
    context = TaskContext.get()
    if context.partitionId() == 0 and context.attemptNumber() == 0:
        raise RuntimeError("first attempt fails")
    return value % 10

# local rows (no input metrics): a shuffle, and a task that fails once
numbers = spark.createDataFrame([(i,) for i in range(1000)], "id long")
counts = numbers.groupBy(flaky("id").alias("k")).count().collect()
assert len(counts) == 10, counts
spark.stop()
'''


@pytest.fixture(scope="module")
def event_logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The event log directory of one application: CSV (ROWS rows) -> Parquet, and a shuffle with a retried task."""
    work = tmp_path_factory.mktemp("eventlog")
    source = work / "orders.csv"
    source.write_text("id,amount\n" + "".join(f"{i},{i * 1.5}\n" for i in range(ROWS)))
    logs = work / "events"
    script = work / "job.py"
    script.write_text(JOB)
    result = subprocess.run(
        [sys.executable, str(script), json.dumps(event_log_settings(logs)), str(source), str(work / "out")],
        capture_output=True, text=True, timeout=300, env=dict(os.environ, PYSPARK_PYTHON=sys.executable))
    assert result.returncode == 0, result.stderr[-3000:]
    return logs


def test_records_and_bytes_read_and_written(event_logs: Path) -> None:
    metrics = run_metrics(event_logs)
    assert metrics.records_read == ROWS
    assert metrics.records_written == ROWS
    source = event_logs.parent / "orders.csv"
    assert metrics.bytes_read == source.stat().st_size
    written = sum(f.stat().st_size for f in (event_logs.parent / "out").glob("*.parquet"))
    assert metrics.bytes_written == written


def test_tasks_shuffle_times_and_dpu_seconds(event_logs: Path) -> None:
    metrics = run_metrics(event_logs)
    assert metrics.failed_tasks == 1
    assert metrics.tasks > 4
    assert metrics.shuffle_bytes_written > 0
    assert metrics.shuffle_bytes_read == metrics.shuffle_bytes_written
    assert 0 < metrics.executor_cpu_seconds
    assert 0 < metrics.executor_run_seconds <= metrics.elapsed_seconds * 2
    # local mode: the driver is the one executor; it lives about as long as the application
    assert 0 < metrics.executor_seconds <= metrics.elapsed_seconds
    assert metrics.dpu_seconds == pytest.approx(metrics.executor_seconds * 2 / 4)
    assert run_metrics(event_logs, dpu_per_executor=1).dpu_seconds == pytest.approx(metrics.executor_seconds)
    assert metrics.complete
    assert len(metrics.applications) == 1 and metrics.applications[0].startswith("local-")


def test_a_log_in_progress_is_read_up_to_its_last_event(event_logs: Path, tmp_path: Path) -> None:
    [log] = application_logs(event_logs)
    copy = tmp_path / log.name
    shutil.copytree(log, copy)
    [events] = list(copy.glob("events_*"))
    lines = [line for line in events.read_text().splitlines() if "SparkListenerApplicationEnd" not in line]
    events.write_text("\n".join(lines) + '\n{"Event": "SparkListenerTaskEnd", "Task')  # cut mid-line
    for status in copy.glob("appstatus_*"):
        status.rename(status.with_name(status.name + ".inprogress"))
    metrics = run_metrics(copy)
    assert not metrics.complete
    assert metrics.records_written == ROWS
    assert 0 < metrics.elapsed_seconds <= run_metrics(event_logs).elapsed_seconds


@pytest.mark.skipif(shutil.which("zstd") is None, reason="needs the zstd command")
def test_a_compressed_single_file_log(event_logs: Path, tmp_path: Path) -> None:
    [log] = application_logs(event_logs)
    [events] = list(log.glob("events_*"))
    target = tmp_path / "local-1.zstd"
    subprocess.run(["zstd", "-q", str(events), "-o", str(target)], check=True)
    assert run_metrics(tmp_path).as_dict() == {**run_metrics(event_logs).as_dict(), "complete": True}


def test_spark_history_server_reads_the_logs(event_logs: Path, tmp_path: Path) -> None:
    """The logs glueball writes are what Spark's own history server serves (REST API)."""
    from tests.helpers import free_port
    from tests.jobs.cluster import spark_home

    port = free_port()
    options = (f"-Dspark.history.fs.logDirectory={event_logs.resolve().as_uri()} -Dspark.history.ui.port={port} "
               "-Dspark.history.fs.update.interval=1s")
    env = dict(os.environ, SPARK_HOME=str(spark_home()), SPARK_HISTORY_OPTS=options, SPARK_LOCAL_IP="127.0.0.1")
    with (tmp_path / "history.log").open("wb") as log:
        server = subprocess.Popen(
            [str(spark_home() / "bin" / "spark-class"), "org.apache.spark.deploy.history.HistoryServer"],
            stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    try:
        [app_id] = run_metrics(event_logs).applications
        deadline = time.monotonic() + 90
        apps: list[dict[str, object]] = []
        while time.monotonic() < deadline and not apps:
            assert server.poll() is None, (tmp_path / "history.log").read_text()[-2000:]
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/applications", timeout=5) as reply:
                    apps = json.loads(reply.read())
            except (urllib.error.URLError, ConnectionError, TimeoutError):  # not answering yet, or slowly
                pass
            except ValueError:  # still starting: the UI answers with an HTML page before the REST API is mounted
                apps = []
            if not apps:
                time.sleep(0.5)
        assert [app["id"] for app in apps] == [app_id]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/applications/{app_id}/jobs", timeout=60) as reply:
            jobs = json.loads(reply.read())
        assert {job["status"] for job in jobs} == {"SUCCEEDED"} and len(jobs) >= 2
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


def test_missing_logs_are_reported(tmp_path: Path) -> None:
    with pytest.raises(EventLogError, match="No Spark event log"):
        run_metrics(tmp_path / "nowhere")
    with pytest.raises(EventLogError, match="No Spark event log in"):
        run_metrics(tmp_path)
