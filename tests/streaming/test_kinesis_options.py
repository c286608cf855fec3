"""Kinesis connection options: parsed as Glue names them, refused clearly when glueball cannot honour them."""

from __future__ import annotations

import pytest

from glueball.runtime.errors import GlueRuntimeError
from glueball.runtime.streaming.kinesis import KinesisStreamReader, Shard, sequence
from glueball.runtime.streaming.kinesis_options import KinesisOptions, parse_starting_position


def test_stream_arn_gives_name_and_region() -> None:
    opts = KinesisOptions.parse({"streamARN": "arn:aws:kinesis:eu-west-1:123456789012:stream/clicks"})
    assert (opts.stream_name, opts.region) == ("clicks", "eu-west-1")


def test_region_from_an_aws_endpoint_and_defaults() -> None:
    opts = KinesisOptions.parse({"STREAMNAME": "s", "endpointUrl": "https://kinesis.ap-south-1.amazonaws.com"})
    assert opts.region == "ap-south-1"
    assert (opts.starting_position, opts.max_fetch_records_per_shard, opts.max_record_per_read,
            opts.max_fetch_time_ms, opts.idle_between_reads_ms) == ("LATEST", 100_000, 10_000, 1000, 0)


@pytest.mark.parametrize(("value", "expected"), [
    ("trim_horizon", "TRIM_HORIZON"), ("EARLIEST", "TRIM_HORIZON"), ("latest", "LATEST"),
    ("2023-04-04T08:00:00-04:00", "AT_TIMESTAMP:1680609600000"), ("2023-04-04T12:00:00Z", "AT_TIMESTAMP:1680609600000"),
])
def test_starting_position(value: str, expected: str) -> None:
    assert parse_starting_position(value) == expected


@pytest.mark.parametrize(("options", "message"), [
    ({}, "exactly one of streamARN and streamName"),
    ({"streamName": "a", "streamARN": "arn:aws:kinesis:us-east-1:1:stream/a"}, "exactly one"),
    ({"streamARN": "nope"}, "not a stream ARN"),
    ({"streamName": "a", "awsSTSRoleARN": "arn:aws:iam::1:role/r"}, "does not assume IAM roles"),
    ({"streamName": "a", "startingPosition": "yesterday"}, "startingPosition"),
    ({"streamName": "a", "maxRecordPerRead": "20000"}, "maxRecordPerRead must be between 1 and 10000"),
    ({"streamName": "a", "maxFetchRecordsPerShard": "x"}, "maxFetchRecordsPerShard must be an integer"),
    ({"streamName": "a", "describeShardInterval": "soon"}, "describeShardInterval"),
    ({"streamName": "a", "addIdleTimeBetweenReads": "maybe"}, "true or false"),
    ({"streamName": "a", "includeHeaders": "true"}, "no headers"),
])
def test_bad_options_are_refused(options: dict[str, str], message: str) -> None:
    with pytest.raises(GlueRuntimeError, match=message):
        KinesisOptions.parse(options)


def test_idle_time_only_when_asked() -> None:
    on = KinesisOptions.parse({"streamName": "a", "addIdleTimeBetweenReads": "true", "idleTimeBetweenReadsInMs": 50,
                               "describeShardInterval": "500ms"})
    assert (on.idle_between_reads_ms, on.describe_shard_interval_ms) == (50, 500)


def test_children_wait_for_their_parents() -> None:
    parent = Shard("shardId-0", (), 10)
    child = Shard("shardId-1", ("shardId-0",), None)
    listed = {"shardId-0", "shardId-1"}
    assert not KinesisStreamReader._parents_done(child, {"shardId-0": "AFTER:10"}, listed)
    assert KinesisStreamReader._parents_done(child, {"shardId-0": "SHARD_END:10"}, listed)
    assert KinesisStreamReader._parents_done(child, {}, {"shardId-1"})  # the parent expired from the stream
    assert KinesisStreamReader._parents_done(parent, {}, listed)
    assert [sequence(p) for p in ("AFTER:7", "SHARD_END:9", "SHARD_END:", "TRIM_HORIZON")] == [7, 9, None, None]
