"""glueContext.forEachBatch over Kafka: decoding, error records, idempotent Parquet output, restarts, retries."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

from glueball.runtime.dynamicframe import DynamicFrame
from glueball.runtime.errors import GlueRuntimeError
from tests.streaming.helpers import BackgroundRun, Broker, kafka_options, with_resends

pytestmark = pytest.mark.spark


def _event(i: int) -> dict[str, Any]:
    day = dt.date(2026, 3, 1) + dt.timedelta(days=i % 3)
    return {"event_id": f"e{i:05d}", "at": f"{day.isoformat()}T10:{i % 60:02d}:00Z", "user": f"u{i % 7}",
            "amount": round(i * 1.25, 2)}


EVENT_SCHEMA = "event_id string, at string, user string, amount double"


def _json_stream(glue_context: Any, broker: Broker, topic: str, **options: Any) -> Any:
    options = {"inferSchema": "true", **options} if "schema" not in options else options
    return glue_context.create_data_frame.from_options(
        connection_type="kafka",
        connection_options=kafka_options(broker, topicName=topic, classification="json", **options))


def _write_batch(glue_context: Any, out: Path) -> Any:
    """Deduplicate by event_id (within the batch and against earlier batches) and write the batch, keyed by its id."""
    from pyspark.sql import functions as F

    spark = glue_context.spark_session

    def process(batch: Any, batch_id: int) -> None:
        events = (batch.withColumn("date", F.to_date(F.col("at")))
                  .dropDuplicates(["event_id"]).select("event_id", "user", "amount", "date"))
        if out.exists() and any(out.glob("batch_id=*")):
            earlier = spark.read.parquet(str(out)).where(F.col("batch_id") != batch_id).select("event_id")
            events = events.join(earlier, "event_id", "left_anti")
        # the same batch id always lands in the same folder, replaced whole: replays are idempotent
        events.write.mode("overwrite").partitionBy("date").parquet(str(out / f"batch_id={batch_id}"))

    return process


def _written(glue_context: Any, out: Path) -> list[Any]:
    if not out.exists() or not any(out.glob("batch_id=*")):
        return []
    return glue_context.spark_session.read.parquet(str(out)).collect()


def _offsets_done(run: BackgroundRun, total: int) -> bool:
    progress = run.runner.query.lastProgress if run.runner.query is not None else None
    if not progress:
        return False
    sources = json.loads(progress.json)["sources"]  # the progress as Spark reports it: offsets as JSON objects
    if not sources:
        return False
    end = sources[0]["endOffset"]
    return sum(int(o) for partitions in end.values() for o in partitions.values()) == total


def test_json_events_to_parquet_survive_a_stop_and_restart(glue_context: Any, broker: Broker,
                                                            tmp_path: Path) -> None:
    topic = broker.create_topic(partitions=3)
    events = [_event(i) for i in range(450)]
    first, second = with_resends(events[:300]), with_resends(events[300:])
    broker.produce_json(topic, first, partitions=3)
    out, checkpoint = tmp_path / "out", tmp_path / "checkpoint"
    options = {"windowSize": "1 second", "checkpointLocation": str(checkpoint)}

    def stream() -> Any:
        # 330 records in batches of at most 50: a stop after two batches leaves some for the next run
        return _json_stream(glue_context, broker, topic, maxOffsetsPerTrigger=50, schema=EVENT_SCHEMA)

    with BackgroundRun(glue_context, stream(), _write_batch(glue_context, out), options) as run:
        run.wait_until(lambda: len(run.runner.batches_run) >= 2)
    first_batches = run.runner.batches_run
    written_before = len(_written(glue_context, out))
    assert 0 < written_before < 300  # stopped mid-stream

    broker.produce_json(topic, second, partitions=3)
    with BackgroundRun(glue_context, stream(), _write_batch(glue_context, out), options) as run:
        run.wait_until(lambda: _offsets_done(run, len(first) + len(second)), timeout=240)
    # resumed, not started over: at most the last batch of the first run again (stopped before its commit)
    assert run.runner.batches_run and min(run.runner.batches_run) >= max(first_batches) > 0
    rows = _written(glue_context, out)
    ids = [r["event_id"] for r in rows]
    assert len(ids) == len(set(ids)) == 450
    assert {r["date"].isoformat() for r in rows} == {"2026-03-01", "2026-03-02", "2026-03-03"}
    by_id = {r["event_id"]: r for r in rows}
    assert by_id["e00123"]["amount"] == pytest.approx(153.75) and by_id["e00123"]["user"] == "u4"
    assert {p.name for p in (out / "batch_id=0").iterdir() if p.name.startswith("date=")} <= {
        "date=2026-03-01", "date=2026-03-02", "date=2026-03-03"}


def test_schema_detection_and_error_records(glue_context: Any, broker: Broker, tmp_path: Path) -> None:
    topic = broker.create_topic(partitions=1)
    payloads = [b'{"id": 1, "name": "ann", "tags": ["a"], "price": 3}',
                b'{"id": 2, "name": "bob", "address": {"city": "Oslo"}, "price": "n/a"}',
                b'{"id": 3, "name": "cy", "price": 2.5',   # malformed
                b'"hello"',                                 # not an object
                b'{"id": 4, "name": "dee", "price": 7}']
    broker.produce(topic, [(0, None, p) for p in payloads], headers=[("source", b"pos")])
    seen: dict[str, Any] = {}

    def process(batch: Any, batch_id: int) -> None:
        frame = DynamicFrame.fromDF(batch, glue_context, "events")
        seen["schema"] = batch.schema
        seen["rows"] = batch.orderBy("id").collect()
        seen["errors"] = frame.errorsAsDynamicFrame().toDF().orderBy("error_source").collect()
        seen["errors_count"] = frame.errorsCount()
        seen["done"] = True

    stream = _json_stream(glue_context, broker, topic, includeHeaders="true", addRecordTimestamp="true")
    with BackgroundRun(glue_context, stream, process,
                       {"windowSize": "1 second", "checkpointLocation": str(tmp_path / "ckpt")}) as run:
        run.wait_until(lambda: "done" in seen)
    fields = {f.name: f.dataType.simpleString() for f in seen["schema"].fields}
    assert fields["id"] == "bigint" and fields["name"] == "string"
    assert fields["tags"] == "array<string>" and fields["address"] == "struct<city:string>"
    assert fields["price"] == "struct<long:bigint,string:string>"  # a choice: numbers and text
    assert fields["glue_streaming_kafka_headers"] == "array<struct<key:string,value:string>>"
    assert fields["__src_timestamp"] == "timestamp"
    assert [r["id"] for r in seen["rows"]] == [1, 2, 4]
    assert seen["rows"][1]["address"]["city"] == "Oslo" and seen["rows"][1]["price"]["string"] == "n/a"
    assert [(h["key"], h["value"]) for h in seen["rows"][0]["glue_streaming_kafka_headers"]] == [("source", "pos")]
    assert seen["errors_count"] == 2
    assert [(e["error_message"], e["error_input"], e["error_source"], e["error_stage"]) for e in seen["errors"]] == [
        ("Malformed JSON: the record could not be parsed", payloads[2].decode(), f"{topic}:0:2", "read"),
        ("The JSON record is not an object", '"hello"', f"{topic}:0:3", "read")]


def test_explicit_schema_and_csv(glue_context: Any, broker: Broker, tmp_path: Path) -> None:
    json_topic, csv_topic = broker.create_topic(), broker.create_topic()
    broker.produce(json_topic, [(0, None, b'{"id": 1, "name": "ann", "extra": true}'), (0, None, b"{oops")])
    broker.produce(csv_topic, [(0, None, b"1|ann|2.5"), (0, None, b"2|bob"), (0, None, b"3|cy|x")])
    seen: dict[str, Any] = {}

    def keep(name: str) -> Any:
        def process(batch: Any, batch_id: int) -> None:
            seen[name] = (batch.collect(), DynamicFrame.fromDF(batch, glue_context, name).errorsAsDynamicFrame()
                          .toDF().collect(), batch.schema.simpleString())
        return process

    json_stream = glue_context.create_data_frame.from_options("kafka", kafka_options(
        broker, topicName=json_topic, classification="json", schema="id long, name string"))
    csv_stream = glue_context.create_data_frame.from_options("kafka", kafka_options(
        broker, topicName=csv_topic, classification="csv", delimiter="|", inferSchema="true"))
    with BackgroundRun(glue_context, json_stream, keep("json"),
                       {"windowSize": "1 second", "checkpointLocation": str(tmp_path / "a")}) as run:
        run.wait_until(lambda: "json" in seen)
    with BackgroundRun(glue_context, csv_stream, keep("csv"),
                       {"windowSize": "1 second", "checkpointLocation": str(tmp_path / "b")}) as run:
        run.wait_until(lambda: "csv" in seen)
    rows, errors, schema = seen["json"]
    assert schema == "struct<id:bigint,name:string>" and [tuple(r) for r in rows] == [(1, "ann")]
    assert [e["error_input"] for e in errors] == ["{oops"]
    rows, errors, schema = seen["csv"]
    assert schema == "struct<col0:bigint,col1:string,col2:struct<double:double,string:string>>"
    assert [(r["col0"], r["col1"], tuple(r["col2"])) for r in rows] == [(1, "ann", (2.5, None)), (3, "cy", (None, "x"))]
    assert [(e["error_input"], e["error_source"]) for e in errors] == [("2|bob", f"{csv_topic}:0:1")]


def test_failed_batch_restarts_from_the_checkpoint(glue_context: Any, broker: Broker, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from glueball.runtime.streaming import foreach

    monkeypatch.setattr(foreach, "RETRY_BACKOFF_SECONDS", 0.1)
    topic = broker.create_topic()
    broker.produce_json(topic, [_event(i) for i in range(30)])
    calls: list[tuple[int, int]] = []

    def flaky(batch: Any, batch_id: int) -> None:
        calls.append((batch_id, batch.count()))
        if len(calls) == 1:
            raise RuntimeError("the sink is down")

    with BackgroundRun(glue_context, _json_stream(glue_context, broker, topic), flaky,
                       {"windowSize": "1 second", "checkpointLocation": str(tmp_path / "ckpt"),
                        "batchMaxRetries": 2}) as run:
        run.wait_until(lambda: len(calls) >= 2)
    assert calls[:2] == [(0, 30), (0, 30)]  # the same batch, the same records, again
    assert run.runner.restarts == 1

    def broken(batch: Any, batch_id: int) -> None:
        raise RuntimeError("always down")

    with pytest.raises(Exception, match="always down"):
        glue_context.forEachBatch(_json_stream(glue_context, broker, topic), broken,
                                  {"windowSize": "1 second", "checkpointLocation": str(tmp_path / "ckpt2"),
                                   "batchMaxRetries": 0})


def test_empty_batches_are_skipped(glue_context: Any, broker: Broker, tmp_path: Path) -> None:
    from glueball.runtime.streaming.foreach import BatchRunner

    topic = broker.create_topic()
    calls: list[int] = []
    runner = BatchRunner(glue_context, _json_stream(glue_context, broker, topic),
                         lambda batch, batch_id: calls.append(batch_id), {"checkpointLocation": str(tmp_path)})
    spark = glue_context.spark_session
    empty = spark.createDataFrame([], "key binary, value binary, topic string, partition int, offset bigint, "
                                      "timestamp timestamp, timestampType int")
    runner.on_batch(empty, 7)
    one = spark.createDataFrame([(None, json.dumps({"a": 1}).encode(), topic, 0, 0, None, 0)], empty.schema)
    runner.on_batch(one, 8)
    assert calls == [8] and runner.batches_skipped == [7]


def test_for_each_batch_options_are_checked(glue_context: Any, broker: Broker, tmp_path: Path) -> None:
    stream = _json_stream(glue_context, broker, broker.create_topic())
    noop = lambda batch, batch_id: None  # noqa: E731
    with pytest.raises(GlueRuntimeError, match="checkpointLocation"):
        glue_context.forEachBatch(stream, noop, {"windowSize": "1 second"})
    with pytest.raises(GlueRuntimeError, match="between 0 and 100"):
        glue_context.forEachBatch(stream, noop, {"checkpointLocation": str(tmp_path), "batchMaxRetries": 101})
    with pytest.raises(GlueRuntimeError, match="storage level"):
        glue_context.forEachBatch(stream, noop, {"checkpointLocation": str(tmp_path), "storageLevel": "FAST"})
    with pytest.raises(GlueRuntimeError, match="windowSize 'soon'"):
        glue_context.forEachBatch(stream, noop, {"checkpointLocation": str(tmp_path), "windowSize": "soon"})
    batch = glue_context.spark_session.range(1)
    with pytest.raises(GlueRuntimeError, match="streaming DataFrame"):
        glue_context.forEachBatch(batch, noop, {"checkpointLocation": str(tmp_path)})


def test_a_replayed_batch_does_not_cost_a_retry(glue_context: Any, broker: Broker, tmp_path: Path) -> None:
    """Spark 4.1.1's Kafka source fails a restarted query after replaying a batch left uncommitted; forEachBatch
    starts it again without counting a failure, even with batchMaxRetries 0."""
    topic = broker.create_topic()
    broker.produce_json(topic, [_event(i) for i in range(12)])
    options = {"windowSize": "1 second", "checkpointLocation": str(tmp_path / "ckpt"), "batchMaxRetries": 0}

    def down(batch: Any, batch_id: int) -> None:
        raise RuntimeError("the sink is down")

    with pytest.raises(Exception, match="the sink is down"):  # batch 0 planned, not committed
        glue_context.forEachBatch(_json_stream(glue_context, broker, topic), down, options)
    seen: list[tuple[int, int]] = []
    with BackgroundRun(glue_context, _json_stream(glue_context, broker, topic),
                       lambda batch, batch_id: seen.append((batch_id, batch.count())), options) as run:
        run.wait_until(lambda: run.runner.replay_bug_restarts == 1)  # batch 0 replayed, then Spark's failure
        broker.produce_json(topic, [_event(i) for i in range(12, 15)])
        run.wait_until(lambda: len(seen) >= 2)
    assert seen[:2] == [(0, 12), (1, 3)] and run.runner.failures == 0 and run.runner.restarts == 0
