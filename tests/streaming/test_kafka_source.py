"""The glueball-kafka streaming source on a real (Tansu) broker: columns, offsets, limits, subscriptions."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest

from glueball.runtime.errors import GlueRuntimeError
from tests.streaming.helpers import Broker, drain, kafka_options

pytestmark = pytest.mark.spark


def _stream(glue_context: Any, broker: Broker, **options: Any) -> Any:
    return glue_context.create_data_frame.from_options(connection_type="kafka",
                                                       connection_options=kafka_options(broker, **options))


def _rows(batches: list[tuple[int, list[Any]]]) -> list[Any]:
    return [row for _, rows in batches for row in rows]


def test_columns_as_glue_kafka_source(glue_context: Any, broker: Broker, tmp_path: Path) -> None:
    topic = broker.create_topic(partitions=2)
    broker.produce(topic, [(i % 2, f"k{i}".encode(), f"v{i}".encode()) for i in range(10)] + [(0, None, None)],
                   headers=[("origin", b"test")], timestamp_ms=1_700_000_000_000)
    df = _stream(glue_context, broker, topicName=topic, includeHeaders="true")
    assert df.isStreaming
    assert [(f.name, f.dataType.simpleString()) for f in df.schema.fields] == [
        ("key", "binary"), ("value", "binary"), ("topic", "string"), ("partition", "int"), ("offset", "bigint"),
        ("timestamp", "timestamp"), ("timestampType", "int"), ("headers", "array<struct<key:string,value:binary>>")]
    rows = _rows(drain(df, tmp_path / "ckpt"))
    assert len(rows) == 11
    by_key = {bytes(r["key"]) if r["key"] is not None else None: r for r in rows}
    assert bytes(by_key[b"k3"]["value"]) == b"v3"
    assert (by_key[b"k3"]["topic"], by_key[b"k3"]["partition"], by_key[b"k3"]["offset"]) == (topic, 1, 1)
    assert by_key[None]["value"] is None and by_key[None]["offset"] == 5
    stamp = by_key[b"k0"]["timestamp"].replace(tzinfo=dt.UTC)  # the session time zone is UTC
    assert stamp == dt.datetime.fromtimestamp(1_700_000_000, dt.UTC)
    assert by_key[b"k0"]["timestampType"] == 0  # create time
    assert [(h["key"], bytes(h["value"])) for h in by_key[b"k0"]["headers"]] == [("origin", b"test")]
    # per partition, offsets are contiguous from 0
    for partition in (0, 1):
        assert sorted(r["offset"] for r in rows if r["partition"] == partition) == list(range(6 - partition))


def test_restart_resumes_from_checkpoint_and_a_new_checkpoint_reprocesses(glue_context: Any, broker: Broker,
                                                                           tmp_path: Path) -> None:
    topic = broker.create_topic(partitions=2)
    broker.produce(topic, [(i % 2, None, f"a{i}".encode()) for i in range(20)])
    first = _rows(drain(_stream(glue_context, broker, topicName=topic), tmp_path / "ckpt"))
    broker.produce(topic, [(i % 2, None, f"b{i}".encode()) for i in range(7)])
    second = _rows(drain(_stream(glue_context, broker, topicName=topic), tmp_path / "ckpt"))
    assert sorted(bytes(r["value"]) for r in first) == sorted(f"a{i}".encode() for i in range(20))
    assert sorted(bytes(r["value"]) for r in second) == sorted(f"b{i}".encode() for i in range(7))
    fresh = _rows(drain(_stream(glue_context, broker, topicName=topic), tmp_path / "other-ckpt"))
    assert len(fresh) == 27


def test_max_offsets_per_trigger_caps_batches_split_across_partitions(glue_context: Any, broker: Broker,
                                                                      tmp_path: Path) -> None:
    topic = broker.create_topic(partitions=3)
    sizes = {0: 50, 1: 30, 2: 20}
    broker.produce(topic, [(p, None, f"{p}-{i}".encode()) for p, n in sizes.items() for i in range(n)])
    batches = drain(_stream(glue_context, broker, topicName=topic, maxOffsetsPerTrigger=25), tmp_path / "ckpt")
    assert [len(rows) for _, rows in batches] == [25, 25, 25, 25]
    first = [r["partition"] for r in batches[0][1]]
    assert (first.count(0), first.count(1), first.count(2)) == (13, 7, 5)  # 12.5 : 7.5 : 5, rounded up by size
    assert sorted(bytes(r["value"]) for _, rows in batches for r in rows) == sorted(
        f"{p}-{i}".encode() for p, n in sizes.items() for i in range(n))


def test_subscribe_pattern_reads_every_matching_topic(glue_context: Any, broker: Broker, tmp_path: Path) -> None:
    eu = broker.create_topic(partitions=2, prefix="orders-eu")
    us = broker.create_topic(partitions=1, prefix="orders-us")
    other = broker.create_topic(partitions=1, prefix="audit")
    for topic, n in ((eu, 6), (us, 4), (other, 3)):
        broker.produce(topic, [(i % (2 if topic == eu else 1), None, f"{topic}:{i}".encode()) for i in range(n)])
    pattern = f"orders-(eu|us)-({eu.rsplit('-', 1)[1]}|{us.rsplit('-', 1)[1]})"
    rows = _rows(drain(_stream(glue_context, broker, subscribePattern=pattern), tmp_path / "ckpt"))
    assert sorted({r["topic"] for r in rows}) == sorted([eu, us])
    assert all(bytes(r["value"]).decode().startswith(r["topic"] + ":") for r in rows)
    assert len(rows) == 10


def test_starting_offsets_json_and_assign(glue_context: Any, broker: Broker, tmp_path: Path) -> None:
    topic = broker.create_topic(partitions=2)
    broker.produce(topic, [(p, None, f"{p}-{i}".encode()) for p in (0, 1) for i in range(5)])
    starting = f'{{"{topic}": {{"0": 3, "1": -2}}}}'
    rows = _rows(drain(_stream(glue_context, broker, topicName=topic, startingOffsets=starting), tmp_path / "a"))
    assert sorted(bytes(r["value"]) for r in rows) == sorted([b"0-3", b"0-4"] + [f"1-{i}".encode() for i in range(5)])
    # assign one partition, from latest: only what arrives later
    stream = _stream(glue_context, broker, assign=f'{{"{topic}": [1]}}', startingOffsets="latest")
    assert _rows(drain(stream, tmp_path / "b")) == []
    broker.produce(topic, [(0, None, b"0-late"), (1, None, b"1-late")])
    stream = _stream(glue_context, broker, assign=f'{{"{topic}": [1]}}', startingOffsets="latest")
    assert [bytes(r["value"]) for r in _rows(drain(stream, tmp_path / "b"))] == [b"1-late"]


def test_ending_offsets_and_min_partitions(glue_context: Any, broker: Broker, tmp_path: Path) -> None:
    topic = broker.create_topic(partitions=1)
    broker.produce(topic, [(0, None, str(i).encode()) for i in range(40)])
    seen: list[int] = []

    def collect(batch: Any, batch_id: int) -> None:
        seen.append(batch.rdd.getNumPartitions())
        seen.append(batch.count())

    ending = f'{{"{topic}": {{"0": 30}}}}'
    stream = _stream(glue_context, broker, topicName=topic, minPartitions=4, endingOffsets=ending)
    query = (stream.writeStream.foreachBatch(collect).trigger(availableNow=True)
             .option("checkpointLocation", str(tmp_path / "ckpt")).start())
    query.awaitTermination(120)
    assert seen == [4, 30]


def test_catalog_connection_name(glue_context: Any, broker: Broker, tmp_path: Path) -> None:
    topic = broker.create_topic()
    broker.produce(topic, [(0, None, b"via-catalog")])
    name = f"kafka-{topic}"
    glue_context.glue_client.create_connection(ConnectionInput={
        "Name": name, "ConnectionType": "KAFKA", "ConnectionProperties": {"KAFKA_BOOTSTRAP_SERVERS": broker.bootstrap}})
    stream = glue_context.create_data_frame.from_options(
        "kafka", {"connectionName": name, "topicName": topic, "startingOffsets": "earliest"})
    assert [bytes(r["value"]) for r in _rows(drain(stream, tmp_path / "ckpt"))] == [b"via-catalog"]
    # (plain spark.readStream.format("glueball-kafka").option("connectionName", ...) resolves the connection in
    # Spark's Python planner process, through that process's GLUEBALL_HOME/GLUEBALL_ENDPOINT; in one pytest
    # process the JVM keeps the environment of whichever test started it, so that path is not asserted here)
    with pytest.raises(GlueRuntimeError, match="connectionName 'missing'"):
        glue_context.create_data_frame.from_options("kafka", {"connectionName": "missing", "topicName": topic})
