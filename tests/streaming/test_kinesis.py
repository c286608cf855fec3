"""The glueball-kinesis source against moto_server: forEachBatch to Parquet across a restart, limits, resharding."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.streaming.helpers import BackgroundRun, drain
from tests.streaming.kinesis_helpers import MotoServer, kinesis_options

pytestmark = pytest.mark.spark


def _events(first: int, count: int) -> list[dict[str, Any]]:
    return [{"id": i, "date": f"2024-05-0{1 + i % 3}", "amount": i * 1.5} for i in range(first, first + count)]


def test_json_events_to_parquet_survive_a_restart(glue_context: Any, moto_server: MotoServer,
                                                   tmp_path: Path) -> None:
    stream = moto_server.create_stream(shards=2)
    out, checkpoint = tmp_path / "out", str(tmp_path / "checkpoint")
    seen_batches: list[int] = []
    errors: list[int] = []

    def process(df: Any, batch_id: int) -> None:
        from glueball.runtime.dynamicframe import DynamicFrame

        errors.append(DynamicFrame.fromDF(df, glue_context, "events").errorsCount())
        (df.dropDuplicates(["id"]).write.mode("overwrite").partitionBy("date")
         .parquet(str(out / f"batch_id={batch_id}")))
        seen_batches.append(batch_id)

    def run(expected_total: int) -> None:
        frame = glue_context.create_data_frame.from_options(
            connection_type="kinesis",
            connection_options=kinesis_options(moto_server, stream, classification="json",
                                               schema="id long, date string, amount double"))
        options = {"windowSize": "1 second", "checkpointLocation": checkpoint}
        with BackgroundRun(glue_context, frame, process, options) as background:
            background.wait_until(lambda: bool(seen_batches)
                                   and _ids(glue_context, out, count_only=True) >= expected_total)

    first = _events(0, 40)
    moto_server.put_json(stream, first + first[:5])  # 5 duplicates inside the first stretch
    moto_server.put_raw(stream, [b"{not json"])
    run(40)
    moto_server.put_json(stream, _events(40, 30))
    run(70)
    ids = _ids(glue_context, out)
    assert sorted(ids) == list(range(70)), "every event once: nothing lost, nothing re-read after the restart"
    assert sum(errors) == 1 and len(seen_batches) == len(set(seen_batches))
    dates = {p.name for p in out.glob("batch_id=*/date=*")}
    assert dates == {"date=2024-05-01", "date=2024-05-02", "date=2024-05-03"}


def _ids(glue_context: Any, out: Path, count_only: bool = False) -> Any:
    rows = glue_context.spark_session.read.parquet(str(out)).select("id").collect()
    return len(rows) if count_only else [r["id"] for r in rows]


def test_max_fetch_records_per_shard_caps_batches(spark: Any, glue_context: Any, moto_server: MotoServer,
                                                   tmp_path: Path) -> None:
    stream = moto_server.create_stream(shards=1)
    moto_server.put_raw(stream, [f"r{i}".encode() for i in range(20)], key="a")
    frame = glue_context.create_data_frame.from_options(
        connection_type="kinesis",
        connection_options=kinesis_options(moto_server, stream, maxFetchRecordsPerShard=7, maxRecordPerRead=3))
    assert frame.columns == ["data", "streamName", "partitionKey", "sequenceNumber", "approximateArrivalTimestamp"]
    batches = [rows for _, rows in drain(frame, tmp_path / "cp") if rows]
    assert [len(rows) for rows in batches] == [7, 7, 6]
    records = [r for rows in batches for r in rows]
    assert [bytes(r["data"]).decode() for r in records] == [f"r{i}" for i in range(20)]
    assert {r["streamName"] for r in records} == {stream} and {r["partitionKey"] for r in records} == {"a"}
    assert all(r["approximateArrivalTimestamp"] is not None for r in records)


def test_resharding_reads_parents_before_children_once(glue_context: Any, moto_server: MotoServer,
                                                       tmp_path: Path) -> None:
    stream = moto_server.create_stream(shards=1)
    client = moto_server.client()
    moto_server.put_json(stream, _events(0, 10))
    frame = glue_context.create_data_frame.from_options(
        connection_type="kinesis", connection_options=kinesis_options(moto_server, stream))
    first = [r for _, rows in drain(frame, tmp_path / "cp") for r in rows]  # part of the parent, mid-stream
    moto_server.put_json(stream, _events(10, 5))
    client.split_shard(StreamName=stream, ShardToSplit="shardId-000000000000",
                       NewStartingHashKey=str(2 ** 127))
    moto_server.put_json(stream, _events(15, 25))  # into the two children
    shards = client.list_shards(StreamName=stream)["Shards"]
    assert len(shards) == 3 and all(s.get("ParentShardId") == "shardId-000000000000" for s in shards[1:])
    later = drain(frame, tmp_path / "cp")
    ids_by_batch = [[json.loads(bytes(r["data"]))["id"] for r in rows] for _, rows in later if rows]
    read = [json.loads(bytes(r["data"]))["id"] for r in first] + [i for ids in ids_by_batch for i in ids]
    assert sorted(read) == list(range(40)), "every record once"
    parent_batches = [n for n, ids in enumerate(ids_by_batch) if any(i < 15 for i in ids)]
    child_batches = [n for n, ids in enumerate(ids_by_batch) if any(i >= 15 for i in ids)]
    assert parent_batches and child_batches and max(parent_batches) < min(child_batches)
