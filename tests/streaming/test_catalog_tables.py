"""Streaming catalog tables (from_catalog), getSampleStreamingDynamicFrame, add_ingestion_time_columns,
and the Kinesis starting positions."""

from __future__ import annotations

import datetime as dt
import json
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from glueball.runtime.errors import GlueRuntimeError
from glueball.runtime.streaming.sources import streaming_table_options
from tests.streaming.helpers import Broker, drain_until_idle
from tests.streaming.kinesis_helpers import MotoServer, kinesis_options

pytestmark = pytest.mark.spark

COLUMNS = [{"Name": "id", "Type": "bigint"}, {"Name": "name", "Type": "string"},
           {"Name": "tags", "Type": "array<string>"}]


def _table(glue_context: Any, parameters: dict[str, str], columns: list[dict[str, str]] = COLUMNS) -> tuple[str, str]:
    client = glue_context.glue_client
    database = f"stream_{uuid.uuid4().hex[:8]}"
    client.create_database(DatabaseInput={"Name": database})
    client.create_table(DatabaseName=database, TableInput={
        "Name": "events", "TableType": "EXTERNAL_TABLE", "Parameters": {"classification": "json", **parameters},
        "StorageDescriptor": {"Columns": columns, "Parameters": {"typeOfData": parameters.get("typeOfData", "")}}})
    return database, "events"


def test_kafka_table_with_a_connection_reads_its_columns(glue_context: Any, broker: Broker, tmp_path: Path) -> None:
    topic = broker.create_topic()
    connection = f"kafka-{topic}"
    glue_context.glue_client.create_connection(ConnectionInput={
        "Name": connection, "ConnectionType": "KAFKA",
        "ConnectionProperties": {"KAFKA_BOOTSTRAP_SERVERS": broker.bootstrap}})
    database, table = _table(glue_context, {"typeOfData": "kafka", "topicName": topic,
                                            "connectionName": connection})
    broker.produce_json(topic, [{"id": 1, "name": "a", "tags": ["x"], "extra": True}, {"id": 2, "name": "b"}])
    frame = glue_context.create_data_frame.from_catalog(database=database, table_name=table,
                                                        additional_options={"startingOffsets": "earliest"})
    assert frame.isStreaming
    sample = glue_context.getSampleStreamingDynamicFrame(frame, {"pollingTimeInMs": "60000",
                                                                 "recordPollingLimit": "2"})
    df = sample.toDF()
    assert df.columns == ["id", "name", "tags"], "the table's columns are the schema (extra fields dropped)"
    assert sorted((r["id"], r["name"], r["tags"]) for r in df.collect()) == [(1, "a", ["x"]), (2, "b", None)]


def test_kinesis_table_infer_schema_and_sample_limit(glue_context: Any, moto_server: MotoServer) -> None:
    stream = moto_server.create_stream(shards=1)
    moto_server.put_json(stream, [{"id": i, "score": i / 2} for i in range(30)])
    database, table = _table(glue_context, {"typeOfData": "kinesis", "streamName": stream,
                                            "endpointUrl": moto_server.endpoint})
    frame = glue_context.create_data_frame_from_catalog(
        database, table, additional_options={"startingPosition": "TRIM_HORIZON", "inferSchema": "true"})
    seen_batches: list[int] = []

    def keep_even(batch: Any, batch_id: int) -> Any:
        seen_batches.append(batch_id)
        return batch.where("id % 2 = 0")

    sample = glue_context.getSampleStreamingDynamicFrame(
        frame, {"windowSize": "1 second", "pollingTimeInMs": "60000", "recordPollingLimit": "5"}, keep_even)
    rows = sample.toDF().collect()
    assert sorted(sample.toDF().columns) == ["id", "score"], "inferSchema: the records' fields, not the table's"
    assert len(rows) == 5 and all(r["id"] % 2 == 0 for r in rows) and seen_batches


def test_streaming_table_options_merge_parameters_columns_and_additional_options() -> None:
    table = {"Name": "t", "Parameters": {"typeOfData": "kinesis", "streamARN": "arn:aws:kinesis:eu-west-1:1:stream/s",
                                         "classification": "csv", "delimiter": ";"},
             "StorageDescriptor": {"Columns": [{"Name": "a", "Type": "int"}, {"Name": "b c", "Type": "string"}]}}
    kind, options = streaming_table_options(table, {"startingPosition": "earliest", "delimiter": "|"})  # type: ignore[misc]
    assert kind == "kinesis"
    assert options == {"streamarn": "arn:aws:kinesis:eu-west-1:1:stream/s", "classification": "csv",
                       "delimiter": "|", "schema": "`a` int, `b c` string", "startingposition": "earliest"}
    assert streaming_table_options({"Name": "plain", "Parameters": {"classification": "parquet"}}, {}) is None
    # a table classified as the stream itself: the payload's format comes from its SerDe
    kafka_table = {"Name": "k", "Parameters": {"classification": "kafka"},
                   "StorageDescriptor": {"Parameters": {"topicName": "orders", "connectionName": "msk"},
                                         "Columns": [{"Name": "id", "Type": "bigint"}],
                                         "SerdeInfo": {"SerializationLibrary": "org.openx.data.jsonserde.JsonSerDe"}}}
    assert streaming_table_options(kafka_table, {}) == ("kafka", {
        "topicname": "orders", "connectionname": "msk", "classification": "json", "schema": "`id` bigint"})
    lazy_simple = {"SerializationLibrary": "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe",
                   "Parameters": {"field.delim": "|"}}
    csv_table = {**kafka_table, "StorageDescriptor": {**kafka_table["StorageDescriptor"], "SerdeInfo": lazy_simple}}
    assert streaming_table_options(csv_table, {"inferSchema": "true"}) == ("kafka", {
        "topicname": "orders", "connectionname": "msk", "classification": "csv", "delimiter": "|",
        "inferschema": "true"})
    raw = {**kafka_table, "StorageDescriptor": {"Parameters": {"topicName": "orders"}}}
    assert streaming_table_options(raw, {}) == ("kafka", {"topicname": "orders"}), "no SerDe: the raw columns"
    with pytest.raises(GlueRuntimeError, match="typeOfData 'mqtt'"):
        streaming_table_options({"Name": "m", "Parameters": {"typeOfData": "mqtt"}}, {})


def test_sample_options_are_checked(glue_context: Any, moto_server: MotoServer) -> None:
    stream = moto_server.create_stream(shards=1)
    frame = glue_context.create_data_frame.from_options("kinesis", kinesis_options(moto_server, stream))
    with pytest.raises(GlueRuntimeError, match="recordPollingLimit must be at least 1"):
        glue_context.getSampleStreamingDynamicFrame(frame, {"recordPollingLimit": "0"})
    with pytest.raises(GlueRuntimeError, match="options not known: pollingtime"):
        glue_context.getSampleStreamingDynamicFrame(frame, {"pollingTime": "10"})
    started = time.monotonic()
    empty = glue_context.getSampleStreamingDynamicFrame(frame, {"pollingTimeInMs": "3000"})
    assert empty.count() == 0 and empty.toDF().columns == frame.columns
    assert time.monotonic() - started < 60


def test_add_ingestion_time_columns(glue_context: Any) -> None:
    frame = glue_context.spark_session.createDataFrame([(1,), (2,)], "id int")
    before = dt.datetime.now(dt.UTC)
    rows = glue_context.add_ingestion_time_columns(frame, "hour").collect()
    after = dt.datetime.now(dt.UTC)
    assert list(rows[0].asDict()) == ["id", "ingest_year", "ingest_month", "ingest_day", "ingest_hour"]
    stamps = {(r["ingest_year"], r["ingest_month"], r["ingest_day"], r["ingest_hour"]) for r in rows}
    assert len(stamps) == 1, "one time per batch"
    assert stamps <= {(t.strftime("%Y"), t.strftime("%m"), t.strftime("%d"), t.strftime("%H")) for t in (before, after)}
    minute = glue_context.add_ingestion_time_columns(frame, "Minute").columns
    assert minute[-2:] == ["ingest_hour", "ingest_minute"]
    with pytest.raises(GlueRuntimeError, match="day, hour or minute, got 'second'"):
        glue_context.add_ingestion_time_columns(frame, "second")


def _ids(batches: list[tuple[int, list[Any]]]) -> list[int]:
    return sorted(json.loads(bytes(r["data"]))["id"] for _, rows in batches for r in rows)


def test_kinesis_latest_reads_only_what_arrives_after_the_start(glue_context: Any, moto_server: MotoServer,
                                                                 tmp_path: Path) -> None:
    stream = moto_server.create_stream(shards=2)
    moto_server.put_json(stream, [{"id": i} for i in range(5)])
    time.sleep(1.1)  # arrival times are kept to the millisecond: "latest" starts after these
    frame = glue_context.create_data_frame.from_options(
        "kinesis", {**kinesis_options(moto_server, stream), "startingPosition": "latest"})
    assert _ids(drain_until_idle(frame, tmp_path / "cp")) == []
    time.sleep(1.1)
    moto_server.put_json(stream, [{"id": i} for i in range(5, 12)])
    assert _ids(drain_until_idle(frame, tmp_path / "cp")) == list(range(5, 12))


def test_kinesis_starting_at_a_timestamp(glue_context: Any, moto_server: MotoServer, tmp_path: Path) -> None:
    stream = moto_server.create_stream(shards=1)
    moto_server.put_json(stream, [{"id": i} for i in range(3)])
    time.sleep(1.1)
    middle = dt.datetime.now(dt.UTC)
    time.sleep(1.1)
    moto_server.put_json(stream, [{"id": i} for i in range(3, 6)])
    frame = glue_context.create_data_frame.from_options(
        "kinesis", {**kinesis_options(moto_server, stream), "startingPosition": middle.isoformat()})
    assert _ids(drain_until_idle(frame, tmp_path / "cp")) == [3, 4, 5]
    frame = glue_context.create_data_frame.from_options(
        "kinesis", {**kinesis_options(moto_server, stream), "startingPosition": "earliest"})
    assert _ids(drain_until_idle(frame, tmp_path / "cp-again")) == list(range(6)), \
        "a new checkpoint reads from the start"
