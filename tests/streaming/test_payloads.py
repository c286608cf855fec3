"""Avro and Grok payloads, gzip/zlib payloads and undecodable records, end to end on Tansu through forEachBatch."""

from __future__ import annotations

import gzip
import io
import json
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest

from glueball.runtime.dynamicframe import DynamicFrame
from glueball.runtime.errors import GlueRuntimeError
from glueball.runtime.streaming.decode import DecodeSpec
from tests.streaming.helpers import BackgroundRun, Broker, kafka_options

ORDER_SCHEMA = {"type": "record", "name": "Order", "fields": [
    {"name": "id", "type": "long"}, {"name": "sku", "type": "string"},
    {"name": "qty", "type": ["null", "int"], "default": None}]}

LINE = "%{IP:client} %{WORD:method} %{URIPATH:path} %{STATUS:status:int} %{NUMBER:took:double}"
CUSTOM = "STATUS [1-5][0-9][0-9]"


def _avro(record: dict[str, Any]) -> bytes:
    import fastavro

    out = io.BytesIO()
    fastavro.schemaless_writer(out, fastavro.parse_schema(ORDER_SCHEMA), record)
    return out.getvalue()


def _collect(glue_context: Any, frame: Any, tmp_path: Path, expected: int) -> tuple[list[Any], list[Any]]:
    """Records and error records of every batch until ``expected`` of them (both kinds) arrived."""
    records: list[Any] = []
    errors: list[Any] = []

    def keep(batch: Any, batch_id: int) -> None:
        dyf = DynamicFrame.fromDF(batch, glue_context, "batch")
        records.extend(batch.collect())
        errors.extend(dyf.errorsAsDynamicFrame().toDF().collect())

    with BackgroundRun(glue_context, frame, keep, {"windowSize": "1 second",
                                                   "checkpointLocation": str(tmp_path / "cp")}) as run:
        run.wait_until(lambda: len(records) + len(errors) >= expected)
    return records, errors


@pytest.mark.spark
def test_avro_payloads_plain_confluent_framed_gzipped_and_broken(glue_context: Any, broker: Broker,
                                                                 tmp_path: Path) -> None:
    topic = broker.create_topic()
    framed = b"\x00" + struct.pack(">I", 7) + _avro({"id": 2, "sku": "B-2", "qty": None})
    broker.produce(topic, [(0, None, _avro({"id": 1, "sku": "A-1", "qty": 3})), (0, None, framed),
                           (0, None, gzip.compress(_avro({"id": 3, "sku": "C-3", "qty": 5}))),
                           (0, None, b"\x02garbage-that-is-not-avro"), (0, None, b"\x1f\x8bnot-gzip")])
    frame = glue_context.create_data_frame.from_options(
        connection_type="kafka",
        connection_options=kafka_options(broker, topicName=topic, classification="avro",
                                         avroSchema=json.dumps(ORDER_SCHEMA)))
    records, errors = _collect(glue_context, frame, tmp_path, 5)
    assert sorted((r["id"], r["sku"], r["qty"]) for r in records) == [(1, "A-1", 3), (2, "B-2", None), (3, "C-3", 5)]
    messages = sorted(e["error_message"] for e in errors)
    assert len(messages) == 2
    assert messages[0].startswith("Malformed Avro record") and messages[1].startswith("The payload starts like gzip")
    assert {e["error_source"] for e in errors} == {f"{topic}:0:3", f"{topic}:0:4"}


@pytest.mark.spark
def test_grok_payloads_with_custom_patterns_and_zlib(glue_context: Any, broker: Broker, tmp_path: Path) -> None:
    topic = broker.create_topic()
    broker.produce(topic, [(0, None, b"10.0.0.1 GET /orders 200 0.25"),
                           (0, None, zlib.compress(b"10.0.0.2 POST /orders/7 503 1.5")),
                           (0, None, b"this is not an access log line"),
                           (0, None, b"xylophone GET / 200 1")])  # starts with "x", not zlib: taken as text
    frame = glue_context.create_data_frame.from_options(
        connection_type="kafka",
        connection_options=kafka_options(broker, topicName=topic, classification="grok", grokPattern=LINE,
                                         grokCustomPatterns=CUSTOM, addRecordTimestamp="true"))
    records, errors = _collect(glue_context, frame, tmp_path, 4)
    got = sorted((r["client"], r["method"], r["path"], r["status"], r["took"]) for r in records)
    assert got == [("10.0.0.1", "GET", "/orders", 200, 0.25), ("10.0.0.2", "POST", "/orders/7", 503, 1.5)]
    assert all(r["__src_timestamp"] is not None for r in records)
    assert sorted(e["error_input"] for e in errors) == ["this is not an access log line", "xylophone GET / 200 1"]
    assert {e["error_message"] for e in errors} == {"The record does not match the grok pattern"}


@pytest.mark.spark
def test_gzipped_json_with_a_schema(glue_context: Any, broker: Broker, tmp_path: Path) -> None:
    topic = broker.create_topic()
    broker.produce(topic, [(0, None, gzip.compress(b'{"id": 1, "name": "a"}')),
                           (0, None, zlib.compress(b'{"id": 2, "name": "b"}', 9)),
                           (0, None, b'{"id": 3, "name": "c"}'), (0, None, gzip.compress(b"{broken"))])
    frame = glue_context.create_data_frame.from_options(
        connection_type="kafka",
        connection_options=kafka_options(broker, topicName=topic, classification="json",
                                         schema="id long, name string"))
    records, errors = _collect(glue_context, frame, tmp_path, 4)
    assert sorted((r["id"], r["name"]) for r in records) == [(1, "a"), (2, "b"), (3, "c")]
    assert [e["error_message"] for e in errors] == ["Malformed JSON: the record could not be parsed"]
    assert errors[0]["error_input"] == "{broken"


def test_payload_options_are_checked() -> None:
    registry_framed = DecodeSpec.from_options({"classification": "avro"})
    assert registry_framed is not None and registry_framed.registry, "no avroSchema: the records name their schema"
    with pytest.raises(GlueRuntimeError, match="avroSchema is not an Avro schema"):
        DecodeSpec.from_options({"classification": "avro", "avroSchema": '{"type": "record"}'})
    with pytest.raises(GlueRuntimeError, match="needs the option grokPattern"):
        DecodeSpec.from_options({"classification": "grok"})
    with pytest.raises(GlueRuntimeError, match="grokPattern"):
        DecodeSpec.from_options({"classification": "grok", "grokPattern": "%{NO_SUCH_PATTERN:x}"})
    spec = DecodeSpec.from_options({"classification": "Avro", "avro.schema.literal": json.dumps(ORDER_SCHEMA),
                                    "includeHeaders": "true"})
    assert spec is not None and spec.include_headers and json.loads(spec.avro_schema or "") == ORDER_SCHEMA
