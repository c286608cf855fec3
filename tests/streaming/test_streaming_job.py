"""A gluestreaming job run through a server on the suite's Kafka broker: per-batch metrics, BatchStopJobRun, kill -9
of the driver, and restarts from the checkpoint."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import ServerProcess, unique, wait_for
from tests.streaming.helpers import Broker

pytestmark = pytest.mark.spark

SCRIPT = '''
import os
import sys
from pyspark.context import SparkContext
from awsglue.context import GlueContext
from awsglue.utils import getResolvedOptions

args = getResolvedOptions(sys.argv, ["JOB_NAME", "bootstrap", "topic", "checkpoint", "output", "pidfile"])
with open(args["pidfile"] + "." + args["JOB_RUN_ID"], "w") as pid:
    pid.write(str(os.getpid()))
glue_context = GlueContext(SparkContext.getOrCreate())
orders = glue_context.create_data_frame.from_options(
    connection_type="kafka",
    connection_options={"bootstrap.servers": args["bootstrap"], "topicName": args["topic"],
                        "startingOffsets": "earliest", "classification": "json", "schema": "id long, sku string",
                        "emitConsumerLagMetrics": "true"})

def process(batch, batch_id):
    batch.write.mode("overwrite").parquet(f"{args['output']}/batch_id={batch_id}")

glue_context.forEachBatch(frame=orders, batch_function=process,
                          options={"windowSize": "1 second", "checkpointLocation": args["checkpoint"]})
'''


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(tmp_path_factory.mktemp("streaming-jobs")).start()
    yield proc
    proc.stop()


def _metrics(server: ServerProcess, name: str, run_id: str) -> dict[str, Any]:
    import urllib3

    response = urllib3.PoolManager().request(
        "POST", server.endpoint + "/", body=json.dumps({"JobName": name, "RunId": run_id}).encode(),
        headers={"X-Amz-Target": "Glueball.GetJobRunMetrics", "Content-Type": "application/x-amz-json-1.1"})
    assert response.status == 200, response.data
    return dict(json.loads(response.data))


def _state(glue: Any, name: str, run_id: str) -> str:
    return str(glue.get_job_run(JobName=name, RunId=run_id)["JobRun"]["JobRunState"])


def _stream_until(server: ServerProcess, glue: Any, name: str, run_id: str, rows: int) -> dict[str, Any]:
    def streamed() -> dict[str, Any] | None:
        state = _state(glue, name, run_id)
        assert state in ("STARTING", "RUNNING"), (state, glue.get_job_run(JobName=name, RunId=run_id)["JobRun"])
        found = _metrics(server, name, run_id).get("StreamingMetrics")
        return found if found and found["InputRows"] >= rows else None

    return dict(wait_for(streamed, 180, f"{rows} rows streamed by {run_id}", interval=0.5))


def _stop(glue: Any, name: str, run_id: str) -> None:
    answer = glue.batch_stop_job_run(JobName=name, JobRunIds=[run_id])
    assert answer["SuccessfulSubmissions"] == [{"JobName": name, "JobRunId": run_id}]
    wait_for(lambda: _state(glue, name, run_id) == "STOPPED", 60, f"{run_id} STOPPED", interval=0.5)


def test_streaming_job_reports_batches_stops_and_resumes(server: ServerProcess, broker: Broker,
                                                          tmp_path: Path) -> None:
    glue = server.client()
    topic = broker.create_topic(partitions=2)
    script = server.home / "s3" / "scripts" / f"{unique('stream')}.py"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(SCRIPT)
    output = tmp_path / "out"
    name = unique("streaming")
    glue.create_job(Name=name, Role="GlueRole", Command={"Name": "gluestreaming",
                                                         "ScriptLocation": f"s3://scripts/{script.name}"},
                    DefaultArguments={"--bootstrap": broker.bootstrap, "--topic": topic,
                                      "--checkpoint": str(tmp_path / "checkpoint"), "--output": str(output),
                                      "--pidfile": str(tmp_path / "pid")},
                    NumberOfWorkers=2, WorkerType="G.1X")
    produced_ms = [int(time.time() * 1000)]
    broker.produce_json(topic, [{"id": i, "sku": f"s{i % 5}"} for i in range(300)], partitions=2)
    produced_ms.append(int(time.time() * 1000))

    first = glue.start_job_run(JobName=name)["JobRunId"]
    streaming = _stream_until(server, glue, name, first, 300)
    assert streaming["InputRows"] == 300
    last = streaming["LastBatch"]
    assert set(last) == {"batchId", "timestamp", "numInputRows", "inputRowsPerSecond", "processedRowsPerSecond",
                         "batchDurationMs", "consumerLag", "maxConsumerLagInMs"}
    assert last["consumerLag"] == 0 and last["batchDurationMs"] > 0 and last["processedRowsPerSecond"] > 0
    # emitConsumerLagMetrics: the age of each batch's oldest record when the batch ran — at least from the end
    # of producing to the run's start, at most from the start of producing to now
    started_ms = int(glue.get_job_run(JobName=name, RunId=first)["JobRun"]["StartedOn"].timestamp() * 1000)
    now_ms = int(time.time() * 1000)
    assert all(started_ms - produced_ms[1] <= b["maxConsumerLagInMs"] <= now_ms - produced_ms[0]
               for b in streaming["RecentBatches"])
    listed = subprocess.run([sys.executable, "-m", "glueball", "jobs", "runs", name, "--endpoint", server.endpoint],
                            capture_output=True, text=True, timeout=60, check=True).stdout
    assert f"streaming: {streaming['Batches']} batches, 300 rows" in listed and "consumer lag 0" in listed
    _stop(glue, name, first)

    broker.produce_json(topic, [{"id": i, "sku": f"s{i % 5}"} for i in range(300, 420)], partitions=2)
    second = glue.start_job_run(JobName=name)["JobRunId"]
    resumed = _stream_until(server, glue, name, second, 120)
    time.sleep(3)  # a few more (empty) triggers: nothing is read again
    assert _metrics(server, name, second)["StreamingMetrics"]["InputRows"] == 120 == resumed["InputRows"]
    # kill -9 of the driver mid-stream: the run fails; the next one resumes from the checkpoint (a batch planned but
    # not committed runs again with the same id and offsets, and its output replaces what it wrote before)
    broker.produce_json(topic, [{"id": i, "sku": f"s{i % 5}"} for i in range(420, 480)], partitions=2)
    _stream_until(server, glue, name, second, 180)
    pid = int(wait_for(lambda: (tmp_path / f"pid.{second}").read_text(), 30, "the driver's pid"))
    os.kill(pid, signal.SIGKILL)
    wait_for(lambda: _state(glue, name, second) == "FAILED", 60, f"{second} FAILED", interval=0.5)
    assert "killed (signal 9)" in glue.get_job_run(JobName=name, RunId=second)["JobRun"]["ErrorMessage"]
    broker.produce_json(topic, [{"id": i, "sku": f"s{i % 5}"} for i in range(480, 500)], partitions=2)
    third = glue.start_job_run(JobName=name)["JobRunId"]
    after_kill = _stream_until(server, glue, name, third, 20)
    assert after_kill["InputRows"] <= 80, "resumed from the checkpoint, not from the start"
    _stop(glue, name, third)

    import pyarrow.parquet as pq

    ids = sorted(i for part in output.glob("batch_id=*") for i in pq.read_table(part).column("id").to_pylist())
    assert ids == list(range(500))
