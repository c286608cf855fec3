"""Streams of schema-registry-framed records: catalog tables with a SchemaReference read from Kafka (Tansu) and
Kinesis (moto_server); a version registered mid-stream shows in the table and the next micro-batch; an
incompatible one is refused; records of unknown versions become error records."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from glueball.registry.serde import SerDeError, Serializer, frame
from glueball.runtime.streaming.decode import batch_errors
from tests.streaming.helpers import BackgroundRun, Broker
from tests.streaming.kinesis_helpers import MotoServer

pytestmark = pytest.mark.spark

V1 = json.dumps({"type": "record", "name": "Order", "namespace": "shop", "fields": [
    {"name": "id", "type": "long"}, {"name": "item", "type": "string"}]})
V2 = json.dumps({"type": "record", "name": "Order", "namespace": "shop", "fields": [
    {"name": "id", "type": "long"}, {"name": "item", "type": "string"},
    {"name": "qty", "type": "int", "default": 1}]})
V3_BREAKING = json.dumps({"type": "record", "name": "Order", "namespace": "shop", "fields": [
    {"name": "id", "type": "long"}, {"name": "item", "type": "string"}, {"name": "qty", "type": "int", "default": 1},
    {"name": "coupon", "type": "string"}]})


class Sink:
    """A batch function writing each micro-batch to Parquet (``batch_id=N``) and keeping its error records."""

    def __init__(self, glue_context: Any, out: Path) -> None:
        self.glue_context, self.out = glue_context, out
        self.errors: list[Any] = []
        self.columns: dict[int, list[str]] = {}

    def __call__(self, batch: Any, batch_id: int) -> None:
        errors = batch_errors(batch)
        if errors is not None:
            self.errors += errors.collect()
        self.columns[batch_id] = batch.columns
        batch.write.mode("overwrite").parquet(str(self.out / f"batch_id={batch_id}"))

    def rows(self) -> list[dict[str, Any]]:
        if not self.out.exists() or not any(self.out.glob("batch_id=*/*.parquet")):
            return []
        spark = self.glue_context.spark_session
        return [r.asDict() for r in spark.read.option("mergeSchema", "true").parquet(str(self.out)).collect()]


def _table(glue: Any, database: str, name: str, parameters: dict[str, str], reference: dict[str, Any]) -> None:
    glue.create_table(DatabaseName=database, TableInput={
        "Name": name, "TableType": "EXTERNAL_TABLE", "Parameters": {"classification": "avro", **parameters},
        "StorageDescriptor": {"Columns": [], "SchemaReference": reference,
                              "Parameters": {"typeOfData": parameters["typeOfData"]}}})


def _columns(glue: Any, database: str, name: str) -> list[tuple[str, str]]:
    table = glue.get_table(DatabaseName=database, Name=name)["Table"]
    return [(c["Name"], c["Type"]) for c in table["StorageDescriptor"]["Columns"]]


def test_the_seed_flow_kafka_and_kinesis_with_a_version_registered_mid_stream(
        glue_context: Any, broker: Broker, moto_server: MotoServer, tmp_path: Path) -> None:
    glue = glue_context.glue_client
    registry = f"shop-{uuid.uuid4().hex[:6]}"
    glue.create_registry(RegistryName=registry)
    created = glue.create_schema(RegistryId={"RegistryName": registry}, SchemaName="orders", DataFormat="AVRO",
                                 Compatibility="BACKWARD", SchemaDefinition=V1)
    v1 = Serializer(glue, "orders", V1, registry_name=registry)
    topic = broker.create_topic()
    stream = moto_server.create_stream(shards=1)
    broker.produce(topic, [(0, None, v1.serialize({"id": i, "item": f"tea{i}"})) for i in range(5)])
    moto_server.put_raw(stream, [v1.serialize({"id": i, "item": f"tea{i}"}) for i in range(5)])

    database = f"shop_{uuid.uuid4().hex[:6]}"
    glue.create_database(DatabaseInput={"Name": database})
    by_names = {"SchemaId": {"RegistryName": registry, "SchemaName": "orders"}}
    _table(glue, database, "kafka_orders", {"typeOfData": "kafka", "topicName": topic,
                                            "bootstrap.servers": broker.bootstrap}, by_names)
    _table(glue, database, "kinesis_orders", {"typeOfData": "kinesis", "streamName": stream,
                                              "endpointUrl": moto_server.endpoint},
           {"SchemaId": {"SchemaArn": created["SchemaArn"]}})
    assert _columns(glue, database, "kafka_orders") == [("id", "bigint"), ("item", "string")]

    frame_ = glue_context.create_data_frame.from_catalog(database=database, table_name="kafka_orders",
                                                         additional_options={"startingOffsets": "earliest"})
    sink = Sink(glue_context, tmp_path / "out")
    options = {"windowSize": "1 second", "checkpointLocation": str(tmp_path / "checkpoint")}
    with BackgroundRun(glue_context, frame_, sink, options) as run:
        run.wait_until(lambda: len(sink.rows()) == 5)
        assert all(columns == ["id", "item"] for columns in sink.columns.values())
        # v2, BACKWARD-compatible (a new field with a default), registered while the stream runs
        v2_answer = glue.register_schema_version(SchemaId=by_names["SchemaId"], SchemaDefinition=V2)
        assert (v2_answer["VersionNumber"], v2_answer["Status"]) == (2, "AVAILABLE")
        assert _columns(glue, database, "kafka_orders") == [("id", "bigint"), ("item", "string"), ("qty", "int")]
        v2 = Serializer(glue, "orders", V2, registry_name=registry)
        broker.produce(topic, [(0, None, v2.serialize({"id": 10 + i, "item": f"milk{i}", "qty": 3})) for i in range(3)]
                       + [(0, None, v1.serialize({"id": 20, "item": "late v1 producer"})),
                          (0, None, frame(str(uuid.uuid4()), b"\x02"))])
        run.wait_until(lambda: len(sink.rows()) == 9 and len(sink.errors) == 1)
    rows = {r["id"]: r for r in sink.rows()}
    assert {i: rows[i]["qty"] for i in (10, 11, 12, 20)} == {10: 3, 11: 3, 12: 3, 20: 1}, \
        "later batches carry the new column (v1 records read with v2 get its default)"
    assert all(rows[i]["qty"] is None and rows[i]["item"] == f"tea{i}" for i in range(5)), "earlier data still reads"
    assert "Unknown schema version id" in sink.errors[0]["error_message"]
    assert any(columns == ["id", "item", "qty"] for columns in sink.columns.values())

    # v3 adds a field without a default: BACKWARD refuses it, and the table stays at v2
    refused = glue.register_schema_version(SchemaId=by_names["SchemaId"], SchemaDefinition=V3_BREAKING)
    assert (refused["VersionNumber"], refused["Status"]) == (3, "FAILURE")
    assert glue.get_schema(SchemaId=by_names["SchemaId"])["LatestSchemaVersion"] == 2
    with pytest.raises(SerDeError, match="coupon") as refusal:  # a producer is told why
        Serializer(glue, "orders", V3_BREAKING, registry_name=registry, auto_register=True).serialize(
            {"id": 1, "item": "x", "qty": 1, "coupon": "c"})
    assert "version 3 is FAILURE" in str(refusal.value)
    assert [name for name, _ in _columns(glue, database, "kinesis_orders")] == ["id", "item", "qty"]

    # the Kinesis table, read from the start: every record with the latest version (v2)
    moto_server.put_raw(stream, [v2.serialize({"id": 30, "item": "coffee", "qty": 2})])
    kinesis = glue_context.create_data_frame.from_catalog(database=database, table_name="kinesis_orders",
                                                          additional_options={"startingPosition": "TRIM_HORIZON"})
    kinesis_sink = Sink(glue_context, tmp_path / "kinesis-out")
    with BackgroundRun(glue_context, kinesis, kinesis_sink, {**options, "checkpointLocation": str(
            tmp_path / "kinesis-checkpoint")}) as run:
        run.wait_until(lambda: len(kinesis_sink.rows()) == 6)
    assert sorted((r["id"], r["item"], r["qty"]) for r in kinesis_sink.rows()) == [
        *[(i, f"tea{i}", 1) for i in range(5)], (30, "coffee", 2)]


def test_framed_json_records_without_a_table(glue_context: Any, broker: Broker, tmp_path: Path) -> None:
    glue = glue_context.glue_client
    registry = f"json-{uuid.uuid4().hex[:6]}"
    glue.create_registry(RegistryName=registry)
    definition = json.dumps({"type": "object", "properties": {"id": {"type": "integer"},
                                                              "tags": {"type": "array", "items": {"type": "string"}}}})
    writer = Serializer(glue, "events", definition, data_format="JSON", registry_name=registry, auto_register=True,
                        compress=True)
    topic = broker.create_topic()
    broker.produce(topic, [(0, None, writer.serialize({"id": 1, "tags": ["a"]})),
                           (0, None, writer.serialize({"id": 2, "tags": []})),
                           (0, None, b'{"id": 3, "tags": ["not framed"]}')])
    frame_ = glue_context.create_data_frame.from_options(connection_type="kafka", connection_options={
        "bootstrap.servers": broker.bootstrap, "topicName": topic, "startingOffsets": "earliest",
        "classification": "json"})
    sink = Sink(glue_context, tmp_path / "out")
    with BackgroundRun(glue_context, frame_, sink, {"windowSize": "1 second",
                                                    "checkpointLocation": str(tmp_path / "cp")}) as run:
        run.wait_until(lambda: len(sink.rows()) == 2 and len(sink.errors) == 1)
    assert sorted((r["id"], r["tags"]) for r in sink.rows()) == [(1, ["a"]), (2, [])]
    assert "not framed by the schema registry" in sink.errors[0]["error_message"]


def test_framed_protobuf_records(glue_context: Any, broker: Broker, tmp_path: Path) -> None:
    glue = glue_context.glue_client
    registry = f"proto-{uuid.uuid4().hex[:6]}"
    glue.create_registry(RegistryName=registry)
    definition = 'syntax = "proto3";\nmessage Reading {\n  int64 id = 1;\n  repeated double values = 2;\n}\n'
    writer = Serializer(glue, "readings", definition, data_format="PROTOBUF", registry_name=registry,
                        auto_register=True)
    topic = broker.create_topic()
    broker.produce(topic, [(0, None, writer.serialize({"id": i, "values": [i / 2]})) for i in range(3)])
    frame_ = glue_context.create_data_frame.from_options(connection_type="kafka", connection_options={
        "bootstrap.servers": broker.bootstrap, "topicName": topic, "startingOffsets": "earliest",
        "classification": "protobuf"})
    sink = Sink(glue_context, tmp_path / "out")
    with BackgroundRun(glue_context, frame_, sink, {"windowSize": "1 second",
                                                    "checkpointLocation": str(tmp_path / "cp")}) as run:
        run.wait_until(lambda: len(sink.rows()) == 3)
    assert sorted((r["id"], r["values"]) for r in sink.rows()) == [(0, [0.0]), (1, [0.5]), (2, [1.0])]
