"""Kafka options, offset planning arithmetic and catalog connections, without a Spark session."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from glueball.runtime.errors import GlueRuntimeError
from glueball.runtime.streaming.decode import DecodeSpec
from glueball.runtime.streaming.kafka import KafkaStreamReader, allot, split_ranges, to_spark_offset
from glueball.runtime.streaming.kafka_options import KafkaOptions, connection_config, parse_timestamp_ms

BASE = {"bootstrap.servers": "127.0.0.1:9092"}


@pytest.mark.parametrize(("options", "message"), [
    ({"topicName": "t"}, "bootstrap.servers or connectionName"),
    ({**BASE}, "exactly one of topicName, assign and subscribePattern; got none"),
    ({**BASE, "topicName": "t", "subscribePattern": "t.*"}, "got topicname, subscribepattern"),
    ({**BASE, "assign": "{bad"}, "assign is not valid JSON"),
    ({**BASE, "assign": '{"t": []}'}, "needs a list of partitions"),
    ({**BASE, "subscribePattern": "("}, "not a regular expression"),
    ({**BASE, "topicName": "t", "startingOffsets": '{"u": {"0": 1}}'}, "topics not subscribed: u"),
    ({**BASE, "assign": '{"t": [0, 1]}', "startingOffsets": '{"t": {"0": 1}}'}, "exactly the assigned partitions"),
    ({**BASE, "topicName": "t", "startingOffsets": '{"t": {"0": -3}}'}, "is not an offset"),
    ({**BASE, "topicName": "t", "startingOffsets": "earliest", "startingTimestamp": "2024-01-01T00:00:00Z"},
     "exclude each other"),
    ({**BASE, "topicName": "t", "startingTimestamp": "yesterday"}, "startingTimestamp must be"),
    ({**BASE, "topicName": "t", "endingOffsets": "earliest"}, "cannot be earliest"),
    ({**BASE, "topicName": "t", "maxOffsetsPerTrigger": "0"}, "at least 1"),
    ({**BASE, "topicName": "t", "minPartitions": "many"}, "must be an integer"),
    ({**BASE, "topicName": "t", "failOnDataLoss": "maybe"}, "expected true or false"),
])
def test_bad_options_are_rejected_by_name(options: dict[str, Any], message: str) -> None:
    with pytest.raises(GlueRuntimeError, match=message):
        KafkaOptions.parse(options)


def test_options_are_case_insensitive_and_client_settings_pass_through() -> None:
    parsed = KafkaOptions.parse({"Bootstrap.Servers": "b:1", "TOPICNAME": "a, b", "maxoffsetspertrigger": "10",
                                 "security.protocol": "sasl_ssl", "sasl.mechanism": "PLAIN",
                                 "kafka.client.id": "me", "ssl.ca.location": "/ca.pem"})
    assert parsed.subscription.topics == ("a", "b") and parsed.max_offsets_per_trigger == 10
    assert parsed.client_config == {"bootstrap.servers": "b:1", "security.protocol": "SASL_SSL",
                                    "sasl.mechanism": "PLAIN", "client.id": "me", "ssl.ca.location": "/ca.pem"}
    assert parsed.starting == "latest" and parsed.ending == "latest" and parsed.fail_on_data_loss


def test_starting_timestamp_accepts_iso_and_epoch_millis() -> None:
    assert parse_timestamp_ms("2023-04-04T08:00:00+08:00") == int(dt.datetime(2023, 4, 4, tzinfo=dt.UTC).timestamp()
                                                                   * 1000)
    assert parse_timestamp_ms("2023-04-04T00:00:00Z") == 1680566400000
    assert parse_timestamp_ms("1680566400000") == 1680566400000


def test_allot_splits_the_limit_in_proportion() -> None:
    assert allot({("t", 0): 50, ("t", 1): 30, ("t", 2): 20}, 25) == {("t", 0): 13, ("t", 1): 7, ("t", 2): 5}
    assert allot({("t", 0): 5, ("t", 1): 0}, 100) == {("t", 0): 5, ("t", 1): 0}
    shares = allot({("a", 0): 1, ("b", 0): 1, ("c", 0): 1}, 2)
    assert sum(shares.values()) == 2 and all(v <= 1 for v in shares.values())
    many = allot({("t", p): 1000 + p for p in range(7)}, 999)
    assert sum(many.values()) == 999


def test_split_ranges_cuts_contiguous_pieces() -> None:
    assert split_ranges([(("t", 0), 0, 100)], None) == [(("t", 0), 0, 100)]
    pieces = split_ranges([(("t", 0), 0, 90), (("t", 1), 10, 40)], 4)
    assert pieces == [(("t", 0), 0, 30), (("t", 0), 30, 60), (("t", 0), 60, 90), (("t", 1), 10, 40)]
    assert split_ranges([(("t", 0), 0, 2)], 8) == [(("t", 0), 0, 1), (("t", 0), 1, 2)]


def test_spark_offsets_are_ordered() -> None:
    assert list(to_spark_offset({("b", 1): 5, ("a", 10): 1, ("a", 2): 3}).items()) == [
        ("a", {"2": 3, "10": 1}), ("b", {"1": 5})]


class FakeBroker:
    """The driver's broker view, answering from tables (for what Tansu cannot: timestamp lookups)."""

    def __init__(self, earliest: dict[Any, int], latest: dict[Any, int], at: dict[Any, int]) -> None:
        self.answers = {"earliest": earliest, "latest": latest}
        self.at = at
        self.asked: list[Any] = []

    def partitions(self) -> list[Any]:
        return sorted(self.answers["latest"])

    def offsets(self, tps: list[Any], spec: Any) -> dict[Any, int]:
        self.asked.append(spec)
        table = self.answers.get(spec, self.at) if isinstance(spec, str) else self.at
        return {tp: table[tp] for tp in tps}

    def data_loss(self, message: str) -> None:
        raise GlueRuntimeError(message)


def _reader(options: dict[str, Any], broker: FakeBroker) -> KafkaStreamReader:
    reader = KafkaStreamReader(KafkaOptions.parse({**BASE, "topicName": "t", **options}), None)  # type: ignore[arg-type]
    reader._broker = broker  # type: ignore[assignment]
    return reader


def test_starting_timestamp_asks_the_broker_and_falls_back_to_latest() -> None:
    broker = FakeBroker({("t", 0): 0, ("t", 1): 0}, {("t", 0): 9, ("t", 1): 4}, {("t", 0): 6, ("t", 1): -1})
    start = _reader({"startingTimestamp": "2023-04-04T00:00:00Z"}, broker).initialOffset()
    assert broker.asked[0] == 1680566400000
    assert start == {"t": {"0": 6, "1": 4}}  # partition 1 has nothing at or after it: its latest


def test_latest_offset_respects_ending_offsets_new_partitions_and_data_loss() -> None:
    broker = FakeBroker({("t", 0): 0, ("t", 1): 2}, {("t", 0): 50, ("t", 1): 8}, {})
    reader = _reader({"endingOffsets": '{"t": {"0": 20, "1": -1}}'}, broker)
    from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadMaxRows

    assert reader.latestOffset({"t": {"0": 5}}, ReadAllAvailable()) == {"t": {"0": 20, "1": 8}}
    assert reader.latestOffset({"t": {"0": 5}}, ReadMaxRows(6)) == {"t": {"0": 9, "1": 4}}
    broker.answers["latest"] = {("t", 0): 3, ("t", 1): 8}
    with pytest.raises(GlueRuntimeError, match="behind 5"):
        reader.latestOffset({"t": {"0": 5, "1": 2}}, ReadAllAvailable())


def test_decode_options_are_checked() -> None:
    assert DecodeSpec.from_options({"topicName": "t"}) is None
    with pytest.raises(GlueRuntimeError, match="needs a classification"):
        DecodeSpec.from_options({"inferSchema": "true"})
    with pytest.raises(GlueRuntimeError, match="not supported here"):
        DecodeSpec.from_options({"classification": "parquet"})
    with pytest.raises(GlueRuntimeError, match="one character"):
        DecodeSpec.from_options({"classification": "csv", "delimiter": "||"})


def test_catalog_kafka_connection_becomes_client_settings() -> None:
    class Catalog:
        def get_connection(self, Name: str, HidePassword: bool) -> dict[str, Any]:  # noqa: N803
            assert not HidePassword
            return {"Connection": {"Name": Name, "ConnectionType": "KAFKA", "ConnectionProperties": {
                "KAFKA_BOOTSTRAP_SERVERS": "b1:9096,b2:9096", "KAFKA_SSL_ENABLED": "true",
                "KAFKA_SASL_MECHANISM": "SCRAM-SHA-512", "KAFKA_SASL_SCRAM_USERNAME": "app",
                "KAFKA_SASL_SCRAM_PASSWORD": "secret", "KAFKA_SKIP_CUSTOM_CERT_VALIDATION": "true"}}}

    assert connection_config("msk", Catalog()) == {
        "bootstrap.servers": "b1:9096,b2:9096", "enable.ssl.certificate.verification": "false",
        "sasl.mechanism": "SCRAM-SHA-512", "sasl.username": "app", "sasl.password": "secret",
        "security.protocol": "SASL_SSL"}
