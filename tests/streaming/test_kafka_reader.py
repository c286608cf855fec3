"""The Kafka source's two task readers — the C reader (``_kafkacols``) and confluent-kafka's messages —
read the same records into the same Arrow columns."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from glueball.runtime.streaming import kafka
from tests.streaming.helpers import Broker

pytestmark = pytest.mark.spark


def _schema(spark: Any, headers: bool = False) -> Any:
    from pyspark.sql.pandas.types import to_arrow_schema
    from pyspark.sql.types import _parse_datatype_string

    return to_arrow_schema(_parse_datatype_string(kafka.source_schema(headers)), timezone="UTC")


def _table(batches: list[Any]) -> Any:
    import pyarrow as pa

    return pa.Table.from_batches(batches).to_pydict()


def _records() -> list[tuple[int, bytes | None, bytes | None]]:
    out: list[tuple[int, bytes | None, bytes | None]] = []
    for i in range(60):
        key = None if i % 4 == 0 else f"k{i}".encode()
        value = None if i % 9 == 0 else b"" if i % 7 == 0 else (f"value-{i}-" + "x" * (i % 13)).encode()
        out.append((0, key, value))
    return out


def test_the_c_reader_is_built_where_librdkafka_headers_are() -> None:
    if not Path("/usr/include/librdkafka/rdkafka.h").exists():
        pytest.skip("librdkafka-dev is not installed on this machine: glueball runs without the C reader")
    assert kafka._columns_module() is not None, "make installs librdkafka-dev and builds _kafkacols"


def test_both_readers_give_the_same_columns(spark: Any, broker: Broker) -> None:
    columns = kafka._columns_module()
    if columns is None:
        pytest.skip("the C reader is not built here (no librdkafka headers)")
    topic = broker.create_topic()
    broker.produce(topic, _records(), timestamp_ms=1_700_000_000_123)
    schema = _schema(spark)
    part = kafka.KafkaRange(topic, 0, 5, 47, {"bootstrap.servers": broker.bootstrap})
    from_c = _table(list(kafka._read_columns(columns, part, schema)))
    from_messages = _table(list(kafka._read_messages(part, schema)))
    assert from_c == from_messages
    assert from_c["offset"] == list(range(5, 47)), "exactly the range [start, end)"
    expected = _records()[5:47]
    assert from_c["key"] == [k for _, k, _ in expected] and from_c["value"] == [v for _, _, v in expected]
    assert {t.timestamp() for t in from_c["timestamp"]} == {1_700_000_000.123} and set(from_c["timestampType"]) == {0}


def test_headers_are_read_through_messages(spark: Any, broker: Broker, monkeypatch: pytest.MonkeyPatch) -> None:
    topic = broker.create_topic()
    broker.produce(topic, [(0, b"k", b"v")], headers=[("h", b"1")])
    used: list[str] = []
    monkeypatch.setattr(kafka, "_read_columns", lambda *a: used.append("columns") or iter(()))
    part = kafka.KafkaRange(topic, 0, 0, 1, {"bootstrap.servers": broker.bootstrap}, include_headers=True)
    rows = _table(list(kafka.read_range(part, _schema(spark, headers=True))))
    assert used == [] and rows["headers"] == [[{"key": "h", "value": b"1"}]]
