"""A Glue job on a real Spark standalone cluster whose two workers share no disk with the server: each worker runs
in a mount namespace of its own where ``/tmp`` (the server's home is under it) and glueball's jar cache are empty
tmpfs. Under ``--auth iam`` the job (``--spark-master`` and ``--s3-filesystem s3a`` as job arguments) reads a catalog
table, writes partitioned Parquet with a catalog update and commits its bookmark, every byte through the server's
S3 API as the run's role; a second run reads only the new input. The application's own REST API shows tasks on
executors of both workers, and a task finds the server's home missing where it runs. A streaming job on the same
workers keeps its checkpoint (offsets, commits and the executors' state store) in the object store: stopped and
started again, it resumes with its de-duplication state."""

from __future__ import annotations

import configparser
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from glueball import jvm
from tests.helpers import ServerProcess, unique, wait_for
from tests.iam.test_identity_server import TRUST_GLUE, client
from tests.jobs import cluster
from tests.streaming.helpers import Broker
from tools import services

pytestmark = [pytest.mark.spark, pytest.mark.driver]

BUCKET = "nodisk-lake"
ENDED = ("SUCCEEDED", "FAILED", "ERROR", "TIMEOUT", "STOPPED")

SCRIPT = '''
import json, os, sys, urllib.request
from awsglue.context import GlueContext
from awsglue.job import Job
from awsglue.utils import getResolvedOptions
from pyspark.context import SparkContext

args = getResolvedOptions(sys.argv, ["JOB_NAME", "server_home"])
sc = SparkContext.getOrCreate()
glue_context = GlueContext(sc)
job = Job(glue_context)
job.init(args["JOB_NAME"], args)
orders = glue_context.create_dynamic_frame.from_catalog(database="nodisk_raw", table_name="orders",
                                                        transformation_ctx="orders")
df = orders.toDF()
home = args["server_home"]

def where(rows):
    yield {"cwd": os.getcwd(), "home_listed": os.listdir(home) if os.path.isdir(home) else None,
           "db": os.path.exists(os.path.join(home, "glueball.db")), "rows": sum(1 for _ in rows)}

# a barrier stage of two tasks runs them at once, on the two one-core executors: one on each worker
seen = df.repartition(2).rdd.barrier().mapPartitions(where).collect()
sink = glue_context.getSink(connection_type="s3", path="s3://nodisk-lake/curated/orders/", enableUpdateCatalog=True,
                            updateBehavior="UPDATE_IN_DATABASE", partitionKeys=["region"],
                            transformation_ctx="curated")
sink.setFormat("glueparquet")
sink.setCatalogInfo(catalogDatabase="nodisk_curated", catalogTableName="orders")
sink.writeFrame(orders)
url = f"{sc.uiWebUrl}/api/v1/applications/{sc.applicationId}/executors"
executors = json.loads(urllib.request.urlopen(url, timeout=30).read())
print("READ", df.count())
print("SEEN", json.dumps(seen))
print("EXECUTORS", json.dumps([{"id": e["id"], "tasks": e["totalTasks"], "logs": e.get("executorLogs", {})}
                               for e in executors if e["id"] != "driver"]))
job.commit()
'''


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, cluster.SparkCluster,
                                                                       tuple[str, str]]]:
    jvm.jars("s3a")
    home = tmp_path_factory.mktemp("nodisk-home")
    cache = Path.home() / ".cache" / "glueball"
    spark = cluster.start_cluster(tmp_path_factory.mktemp("nodisk-cluster"), cores=1, memory="2g", workers=2,
                                  isolated=True, hidden=(cache,) if cache.is_dir() else ())
    server = ServerProcess(home, extra_args=("--auth", "iam"), local_scripts=False)
    try:
        server.start()
        profile = configparser.ConfigParser()
        profile.read(home / "credentials")
        yield server, spark, (profile["glueball"]["aws_access_key_id"], profile["glueball"]["aws_secret_access_key"])
    finally:
        server.stop()
        spark.stop()


def _lake(server: ServerProcess, root: tuple[str, str], role: str) -> tuple[Any, Any]:
    """The test bucket and a role that may use it and the catalog (made once for the module's tests)."""
    glue, iam, s3 = (client(server, service, *root) for service in ("glue", "iam", "s3"))
    if BUCKET not in [b["Name"] for b in s3.list_buckets()["Buckets"]]:
        s3.create_bucket(Bucket=BUCKET)
    iam.create_role(RoleName=role, AssumeRolePolicyDocument=json.dumps(TRUST_GLUE))
    iam.put_role_policy(RoleName=role, PolicyName="lake", PolicyDocument=json.dumps({
        "Version": "2012-10-17", "Statement": [
            {"Effect": "Allow", "Action": "glue:*", "Resource": "*"},
            {"Effect": "Allow", "Action": "s3:*",
             "Resource": [f"arn:aws:s3:::{BUCKET}", f"arn:aws:s3:::{BUCKET}/*"]}]}))
    return glue, s3


def _run(glue: Any, job: str) -> dict[str, Any]:
    run_id = glue.start_job_run(JobName=job)["JobRunId"]
    return dict(wait_for(lambda: (r := glue.get_job_run(JobName=job, RunId=run_id)["JobRun"])["JobRunState"] in ENDED
                         and r, timeout=600, what=f"run {run_id} to end", interval=1))


def _csv(first: int, count: int) -> bytes:
    return ("id,region,amount\n" + "".join(f"{i},{'eu' if i % 2 else 'us'},{i * 3}\n"
                                           for i in range(first, first + count))).encode()


def _printed(output: str, tag: str) -> Any:
    found = re.findall(rf"^{tag} (.*)$", output, re.MULTILINE)
    assert found, output[-3000:]
    return json.loads(found[-1])


def test_a_bookmarked_job_on_workers_that_share_no_disk(
        setup: tuple[ServerProcess, cluster.SparkCluster, tuple[str, str]]) -> None:
    server, spark, root = setup
    glue, s3 = _lake(server, root, "NoDiskRole")
    s3.put_object(Bucket=BUCKET, Key="scripts/nodisk.py", Body=SCRIPT.encode())
    s3.put_object(Bucket=BUCKET, Key="raw/orders/part-1.csv", Body=_csv(0, 400))
    glue.create_database(DatabaseInput={"Name": "nodisk_raw"})
    glue.create_database(DatabaseInput={"Name": "nodisk_curated"})
    glue.create_table(DatabaseName="nodisk_raw", TableInput={
        "Name": "orders", "Parameters": {"classification": "csv", "skip.header.line.count": "1"},
        "StorageDescriptor": {
            "Columns": [{"Name": "id", "Type": "bigint"}, {"Name": "region", "Type": "string"},
                        {"Name": "amount", "Type": "bigint"}],
            "Location": f"s3://{BUCKET}/raw/orders/",
            "InputFormat": "org.apache.hadoop.mapred.TextInputFormat",
            "OutputFormat": "org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat",
            "SerdeInfo": {"SerializationLibrary": "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe",
                          "Parameters": {"field.delim": ","}}}})
    job = unique("nodisk")
    conf = " --conf ".join(["spark.executor.cores=1", "spark.cores.max=2", "spark.executor.memory=768m",
                            "spark.driver.memory=1g", "spark.sql.shuffle.partitions=4",
                            "spark.ui.enabled=true", "spark.ui.port=0",
                            # both workers are 127.0.0.1: Spark would read the other's shuffle files from "its" disk
                            "spark.shuffle.readHostLocalDisk=false"])
    glue.create_job(Name=job, Role="NoDiskRole", GlueVersion="5.0", WorkerType="G.1X", NumberOfWorkers=2,
                    Command={"Name": "glueetl", "ScriptLocation": f"s3://{BUCKET}/scripts/nodisk.py"},
                    DefaultArguments={"--spark-master": spark.master_url, "--s3-filesystem": "s3a",
                                      "--job-bookmark-option": "job-bookmark-enable", "--conf": conf,
                                      "--server_home": str(server.home)})
    first = _run(glue, job)
    output = (server.home / "logs" / "jobs" / job / first["Id"] / "output.log").read_text()
    assert first["JobRunState"] == "SUCCEEDED", (first.get("ErrorMessage"), output[-3000:])
    assert _printed(output, "READ") == 400
    seen = _printed(output, "SEEN")
    # where the tasks ran, the server's home is an empty folder of the worker's own tmpfs
    assert all(part["home_listed"] in (None, []) and not part["db"] for part in seen), seen
    assert {Path(part["cwd"]).parts[2] for part in seen} == {"worker-0", "worker-1"}, seen
    executors = _printed(output, "EXECUTORS")
    worker_ports = {re.search(r":(\d+)/", e["logs"]["stdout"]).group(1)  # type: ignore[union-attr]
                    for e in executors if e["tasks"] > 0}
    assert len(worker_ports) == 2, executors  # tasks ran on executors of both workers
    assert spark.state()["aliveworkers"] == 2
    listed = [o["Key"] for o in s3.list_objects_v2(Bucket=BUCKET, Prefix="curated/orders/")["Contents"]]
    assert {k.split("/")[2] for k in listed if k.endswith(".parquet")} == {"region=eu", "region=us"}, listed
    partitions = glue.get_partitions(DatabaseName="nodisk_curated", TableName="orders")["Partitions"]
    assert sorted(p["Values"][0] for p in partitions) == ["eu", "us"]
    assert not list((server.home / "s3" / BUCKET / "curated").rglob("_temporary"))

    s3.put_object(Bucket=BUCKET, Key="raw/orders/part-2.csv", Body=_csv(400, 150))
    second = _run(glue, job)
    output = (server.home / "logs" / "jobs" / job / second["Id"] / "output.log").read_text()
    assert second["JobRunState"] == "SUCCEEDED", (second.get("ErrorMessage"), output[-3000:])
    assert _printed(output, "READ") == 150  # the bookmark: only the new object
    bookmark = glue.get_job_bookmark(JobName=job)["JobBookmarkEntry"]
    assert bookmark["Run"] == 2


STREAM_SCRIPT = '''
import sys
from awsglue.context import GlueContext
from awsglue.utils import getResolvedOptions
from pyspark.context import SparkContext
from pyspark.sql import functions as F

args = getResolvedOptions(sys.argv, ["JOB_NAME", "bootstrap", "topic"])
glue_context = GlueContext(SparkContext.getOrCreate())
orders = glue_context.create_data_frame.from_options(
    connection_type="kafka",
    connection_options={"bootstrap.servers": args["bootstrap"], "topicName": args["topic"],
                        "startingOffsets": "earliest"})
# a stateful step: the orders seen so far live in the state store, which the executors keep under the checkpoint
parsed = orders.select(F.from_json(F.col("value").cast("string"), "id long, sku string").alias("o")).select("o.*")
unique_orders = parsed.dropDuplicates(["id"])

def process(batch, batch_id):
    batch.write.mode("overwrite").parquet(f"s3://nodisk-lake/stream-out/batch_id={batch_id}")
    ids = sorted(r.id for r in batch.select("id").collect())
    print("BATCH", batch_id, ",".join(map(str, ids)), flush=True)

glue_context.forEachBatch(frame=unique_orders, batch_function=process, options={
    "windowSize": "2 seconds", "checkpointLocation": "s3://nodisk-lake/checkpoints/" + args["JOB_NAME"] + "/"})
'''


def _output(server: ServerProcess, job: str, run_id: str) -> str:
    """What the run printed so far ("" before its driver opens its log)."""
    log = server.home / "logs" / "jobs" / job / run_id / "output.log"
    return log.read_text() if log.exists() else ""


def _batches(server: ServerProcess, job: str, run_id: str) -> list[int]:
    """The ids each batch of the run printed, in order."""
    text = _output(server, job, run_id)
    return [int(i) for line in re.findall(r"^BATCH \d+ (.*)$", text, re.MULTILINE) for i in line.split(",") if i]


def test_a_streaming_job_keeps_its_checkpoint_and_state_in_the_object_store(
        setup: tuple[ServerProcess, cluster.SparkCluster, tuple[str, str]]) -> None:
    server, spark, root = setup
    glue, s3 = _lake(server, root, "NoDiskStreamRole")
    broker = Broker(services.kafka())
    topic = broker.create_topic(partitions=2)
    job = unique("nodisk-stream")
    s3.put_object(Bucket=BUCKET, Key=f"scripts/{job}.py", Body=STREAM_SCRIPT.encode())
    conf = " --conf ".join(["spark.executor.cores=1", "spark.cores.max=2", "spark.executor.memory=768m",
                            "spark.driver.memory=1g", "spark.sql.shuffle.partitions=2",
                            "spark.shuffle.readHostLocalDisk=false"])
    glue.create_job(Name=job, Role="NoDiskStreamRole", GlueVersion="5.0", WorkerType="G.1X", NumberOfWorkers=2,
                    Command={"Name": "gluestreaming", "ScriptLocation": f"s3://{BUCKET}/scripts/{job}.py"},
                    DefaultArguments={"--spark-master": spark.master_url, "--s3-filesystem": "s3a", "--conf": conf,
                                      "--bootstrap": broker.bootstrap, "--topic": topic})
    # 150 distinct orders, 50 of them sent twice
    broker.produce_json(topic, [{"id": i, "sku": f"s{i % 7}"} for i in [*range(150), *range(50)]], partitions=2)

    def until_ids(run_id: str, count: int) -> list[int]:
        def streamed() -> list[int] | None:
            state = glue.get_job_run(JobName=job, RunId=run_id)["JobRun"]
            assert state["JobRunState"] in ("STARTING", "RUNNING"), state
            ids = _batches(server, job, run_id)
            return ids if len(ids) >= count else None

        return list(wait_for(streamed, timeout=300, what=f"{count} ids from {run_id}", interval=1))

    def stop(run_id: str) -> None:
        glue.batch_stop_job_run(JobName=job, JobRunIds=[run_id])
        wait_for(lambda: glue.get_job_run(JobName=job, RunId=run_id)["JobRun"]["JobRunState"] == "STOPPED",
                 timeout=120, what=f"{run_id} STOPPED", interval=1)

    def checkpoint_keys() -> list[str]:
        return [o["Key"] for page in s3.get_paginator("list_objects_v2").paginate(
            Bucket=BUCKET, Prefix=f"checkpoints/{job}/") for o in page.get("Contents", [])]

    def committed(run_id: str) -> None:
        """Waits for the commit of the last batch the run printed: the batch function runs before Spark records the
        batch done, and a run stopped in between replays that batch when started again (at-least-once)."""
        last = max(int(b) for b in re.findall(r"^BATCH (\d+) ", _output(server, job, run_id), re.MULTILINE))
        wait_for(lambda: f"checkpoints/{job}/commits/{last}" in checkpoint_keys(), timeout=60,
                 what=f"the commit of batch {last}", interval=0.5)

    first = glue.start_job_run(JobName=job)["JobRunId"]
    assert sorted(until_ids(first, 150)) == list(range(150))
    committed(first)
    stop(first)
    keys = checkpoint_keys()
    parts = {key.split("/")[2] for key in keys}
    assert {"offsets", "commits", "state"} <= parts, keys
    # the state store's files, written by the executor tasks that ran the de-duplication
    assert any(re.search(r"/state/0/[01]/\d+\.delta$", key) for key in keys), keys

    # orders 100..149 sent again and 150..199 new: the second run's state comes back from the checkpoint
    broker.produce_json(topic, [{"id": i, "sku": f"s{i % 7}"} for i in range(100, 200)], partitions=2)
    second = glue.start_job_run(JobName=job)["JobRunId"]
    assert sorted(until_ids(second, 50)) == list(range(150, 200))
    time.sleep(6)  # a few more triggers: nothing else comes
    assert sorted(_batches(server, job, second)) == list(range(150, 200))
    stop(second)
    written = [o["Key"] for page in s3.get_paginator("list_objects_v2").paginate(
        Bucket=BUCKET, Prefix="stream-out/") for o in page.get("Contents", [])]
    assert any(key.endswith(".parquet") for key in written), written
