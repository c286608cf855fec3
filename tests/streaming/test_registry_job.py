"""The seed flow as a gluestreaming job run through a server: from_catalog on a table with a SchemaReference
into Parquet, and a version registered while the job runs read from the next micro-batch on."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from glueball.registry.serde import Serializer
from tests.helpers import ServerProcess, unique, wait_for
from tests.streaming.helpers import Broker

pytestmark = pytest.mark.spark

SCRIPT = '''
import sys
from pyspark.context import SparkContext
from awsglue.context import GlueContext
from awsglue.utils import getResolvedOptions

args = getResolvedOptions(sys.argv, ["JOB_NAME", "database", "table", "checkpoint", "output"])
glue_context = GlueContext(SparkContext.getOrCreate())
orders = glue_context.create_data_frame.from_catalog(database=args["database"], table_name=args["table"],
                                                     additional_options={"startingOffsets": "earliest"})

def process(batch, batch_id):
    batch.write.mode("overwrite").parquet(f"{args['output']}/batch_id={batch_id}")

glue_context.forEachBatch(frame=orders, batch_function=process,
                          options={"windowSize": "1 second", "checkpointLocation": args["checkpoint"]})
'''
V1 = json.dumps({"type": "record", "name": "Order", "fields": [{"name": "id", "type": "long"},
                                                              {"name": "item", "type": "string"}]})
V2 = json.dumps({"type": "record", "name": "Order", "fields": [
    {"name": "id", "type": "long"}, {"name": "item", "type": "string"}, {"name": "qty", "type": "int", "default": 1}]})


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(tmp_path_factory.mktemp("registry-jobs")).start()
    yield proc
    proc.stop()


def _rows(output: Path) -> list[dict[str, Any]]:
    import pyarrow.parquet as pq

    return [row for part in sorted(output.glob("batch_id=*")) if any(part.glob("*.parquet"))
            for row in pq.read_table(part).to_pylist()]


def test_a_streaming_job_reads_a_new_version_without_a_restart(server: ServerProcess, broker: Broker,
                                                                 tmp_path: Path) -> None:
    glue = server.client()
    glue.create_registry(RegistryName="shop")
    glue.create_schema(RegistryId={"RegistryName": "shop"}, SchemaName="orders", DataFormat="AVRO",
                       Compatibility="BACKWARD", SchemaDefinition=V1)
    topic = broker.create_topic()
    v1 = Serializer(glue, "orders", V1, registry_name="shop")
    broker.produce(topic, [(0, None, v1.serialize({"id": i, "item": f"tea{i}"})) for i in range(4)])
    glue.create_database(DatabaseInput={"Name": "shop"})
    glue.create_table(DatabaseName="shop", TableInput={
        "Name": "orders", "Parameters": {"classification": "avro", "typeOfData": "kafka", "topicName": topic,
                                         "bootstrap.servers": broker.bootstrap},
        "StorageDescriptor": {"Columns": [], "SchemaReference": {
            "SchemaId": {"RegistryName": "shop", "SchemaName": "orders"}}}})
    script = server.home / "s3" / "scripts" / f"{unique('registry')}.py"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(SCRIPT)
    output = tmp_path / "out"
    name = unique("orders_stream")
    glue.create_job(Name=name, Role="GlueRole", Command={"Name": "gluestreaming",
                                                         "ScriptLocation": f"s3://scripts/{script.name}"},
                    DefaultArguments={"--database": "shop", "--table": "orders", "--output": str(output),
                                      "--checkpoint": str(tmp_path / "checkpoint")},
                    NumberOfWorkers=2, WorkerType="G.1X")
    run_id = glue.start_job_run(JobName=name)["JobRunId"]

    def running_with(rows: int) -> bool:
        state = glue.get_job_run(JobName=name, RunId=run_id)["JobRun"]["JobRunState"]
        assert state in ("STARTING", "RUNNING"), glue.get_job_run(JobName=name, RunId=run_id)["JobRun"]
        return len(_rows(output)) >= rows

    try:
        wait_for(lambda: running_with(4), 240, "the v1 records written", interval=0.5)
        assert glue.register_schema_version(SchemaId={"RegistryName": "shop", "SchemaName": "orders"},
                                            SchemaDefinition=V2)["Status"] == "AVAILABLE"
        v2 = Serializer(glue, "orders", V2, registry_name="shop")
        broker.produce(topic, [(0, None, v2.serialize({"id": 10, "item": "milk", "qty": 3}))])
        wait_for(lambda: running_with(5), 120, "the v2 record written", interval=0.5)
    finally:
        glue.batch_stop_job_run(JobName=name, JobRunIds=[run_id])
    rows = {r["id"]: r for r in _rows(output)}
    assert rows[10] == {"id": 10, "item": "milk", "qty": 3}, "the job's next micro-batch has v2's column"
    assert all(rows[i] == {"id": i, "item": f"tea{i}"} for i in range(4)), "earlier batches as they were written"
    wait_for(lambda: glue.get_job_run(JobName=name, RunId=run_id)["JobRun"]["JobRunState"] == "STOPPED", 60,
             "the run STOPPED")
