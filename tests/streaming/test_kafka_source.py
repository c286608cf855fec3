"""Glue's Kafka source (Spark's own Kafka connector) on the suite's Kafka broker: columns, offsets, limits,
subscriptions, timestamps, data loss, catalog connections."""

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
    assert len(batches) >= 4 and all(len(rows) <= 25 for _, rows in batches)
    first = [r["partition"] for r in batches[0][1]]
    # Spark's share of the limit per partition, in proportion to what each has waiting (12.5 : 7.5 : 5, rounded down)
    assert (first.count(0), first.count(1), first.count(2)) == (12, 7, 5)
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
    topic = broker.create_topic(partitions=2)
    broker.produce(topic, [(p, None, f"{p}-{i}".encode()) for p in (0, 1) for i in range(40)])
    seen: list[tuple[int, list[str]]] = []

    def collect(batch: Any, batch_id: int) -> None:
        seen.append((batch.rdd.getNumPartitions(), sorted(bytes(r["value"]).decode() for r in batch.collect())))

    ending = f'{{"{topic}": {{"0": 30, "1": -1}}}}'
    stream = _stream(glue_context, broker, topicName=topic, minPartitions=4, endingOffsets=ending)

    def run() -> None:
        query = (stream.writeStream.foreachBatch(collect).trigger(availableNow=True)
                 .option("checkpointLocation", str(tmp_path / "ckpt")).start())
        query.awaitTermination(120)

    run()
    assert seen[0][0] >= 4, "minPartitions: at least 4 Spark tasks"
    assert seen[0][1] == sorted([f"0-{i}" for i in range(30)] + [f"1-{i}" for i in range(40)])
    # what arrives later: partition 0 never past offset 30, partition 1 (latest) goes on
    broker.produce(topic, [(0, None, b"0-late"), (1, None, b"1-late")])
    run()
    assert [values for _, values in seen[1:] if values] == [["1-late"]]


def test_starting_timestamp(glue_context: Any, broker: Broker, tmp_path: Path) -> None:
    topic = broker.create_topic(partitions=2)
    day = 1_700_000_000_000
    for hour in range(4):
        broker.produce(topic, [(p, None, f"{p}@{hour}".encode()) for p in (0, 1)], timestamp_ms=day + hour * 3_600_000)
    middle = dt.datetime.fromtimestamp((day + 2 * 3_600_000) / 1000, dt.UTC).isoformat()
    rows = _rows(drain(_stream(glue_context, broker, topicName=topic, startingOffsets=None, startingTimestamp=middle),
                       tmp_path / "a"))
    assert sorted(bytes(r["value"]) for r in rows) == [b"0@2", b"0@3", b"1@2", b"1@3"]
    # after every record: each partition starts at its end, and reads what comes next
    stream = _stream(glue_context, broker, topicName=topic, startingOffsets=None,
                     startingTimestamp=str(day + 10 * 3_600_000))
    assert _rows(drain(stream, tmp_path / "b")) == []
    broker.produce(topic, [(1, None, b"1@later")])
    assert [bytes(r["value"]) for r in _rows(drain(stream, tmp_path / "b"))] == [b"1@later"]


def test_fail_on_data_loss(glue_context: Any, broker: Broker, tmp_path: Path) -> None:
    from confluent_kafka import TopicPartition
    from confluent_kafka.admin import AdminClient

    topic = broker.create_topic()
    broker.produce(topic, [(0, None, f"a{i}".encode()) for i in range(5)])
    assert len(_rows(drain(_stream(glue_context, broker, topicName=topic), tmp_path / "strict"))) == 5
    assert len(_rows(drain(_stream(glue_context, broker, topicName=topic), tmp_path / "lenient"))) == 5
    broker.produce(topic, [(0, None, f"b{i}".encode()) for i in range(5)])
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})  # offsets 5-7 vanish before the queries read them
    admin.delete_records([TopicPartition(topic, 0, 8)])[TopicPartition(topic, 0, 8)].result(timeout=30)
    with pytest.raises(Exception, match="(?i)data (may have been|was) lost|data loss"):
        drain(_stream(glue_context, broker, topicName=topic), tmp_path / "strict")
    rows = _rows(drain(_stream(glue_context, broker, topicName=topic, failOnDataLoss="false"), tmp_path / "lenient"))
    assert sorted(bytes(r["value"]) for r in rows) == [b"b3", b"b4"]


def test_catalog_connection_name(glue_context: Any, broker: Broker, tmp_path: Path) -> None:
    topic = broker.create_topic()
    broker.produce(topic, [(0, None, b"via-catalog")])
    name = f"kafka-{topic}"
    glue_context.glue_client.create_connection(ConnectionInput={
        "Name": name, "ConnectionType": "KAFKA", "ConnectionProperties": {"KAFKA_BOOTSTRAP_SERVERS": broker.bootstrap}})
    stream = glue_context.create_data_frame.from_options(
        "kafka", {"connectionName": name, "topicName": topic, "startingOffsets": "earliest"})
    assert [bytes(r["value"]) for r in _rows(drain(stream, tmp_path / "ckpt"))] == [b"via-catalog"]
    with pytest.raises(GlueRuntimeError, match="connectionName 'missing'"):
        glue_context.create_data_frame.from_options("kafka", {"connectionName": "missing", "topicName": topic})


def test_what_spark_refuses_and_missing_jvm_features_fail_clearly(glue_context: Any, broker: Broker,
                                                                 monkeypatch: pytest.MonkeyPatch,
                                                                 tmp_path: Path) -> None:
    from glueball import jvm
    from glueball.runtime.streaming.kafka import add_feature

    spark = glue_context.spark_session
    with pytest.raises(GlueRuntimeError, match="Spark's Kafka source refused the options: .*auto.offset.reset"):
        _stream(glue_context, broker, topicName="t", **{"kafka.auto.offset.reset": "earliest"})
    # a feature whose jars are not in the cache and cannot be fetched (offline, no Maven)
    monkeypatch.setenv("GLUEBALL_JARS_CACHE", str(tmp_path / "no-jars"))
    monkeypatch.setenv("GLUEBALL_MVN", "/bin/false")
    with pytest.raises(jvm.JarsUnavailable, match="glueball jars fetch msk-iam"):
        add_feature(spark, "msk-iam", "software.amazon.msk.auth.iam.NoSuchClass")
    monkeypatch.undo()
    # jars added that do not hold the class asked for
    with pytest.raises(GlueRuntimeError, match="jars of glueball's 'kafka' feature did not reach this Spark session"):
        add_feature(spark, "kafka", "org.apache.kafka.NoSuchClass")
    # a driver whose class loader takes no jars (the JVM's platform loader, not spark-submit's)
    from glueball.runtime.streaming import kafka

    monkeypatch.setattr(kafka, "_loader", lambda session: session._jvm.java.lang.ClassLoader.getPlatformClassLoader())
    with pytest.raises(GlueRuntimeError, match="cannot take the jars .* GLUEBALL_JVM_FEATURES=kafka"):
        add_feature(spark, "kafka", "org.apache.kafka.NoSuchClass")
