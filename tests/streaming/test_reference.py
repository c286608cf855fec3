"""ReferenceData: a broadcast lookup table refreshed only when the catalog table or a change flag says so."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from glueball.runtime.errors import GlueRuntimeError
from glueball.runtime.streaming.reference import ReferenceData
from tests.streaming.helpers import BackgroundRun, Broker, kafka_options

pytestmark = pytest.mark.spark


def _write_priorities(glue_home: Path, db: str, priorities: dict[str, str]) -> None:
    folder = glue_home / "s3" / "ref" / db / "priority"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "part.json").write_text("".join(json.dumps({"customer": c, "priority": p}) + "\n"
                                              for c, p in priorities.items()))


def test_orders_enriched_with_a_catalog_table_that_changes_mid_stream(glue_context: Any, glue_home: Path,
                                                                      broker: Broker, tmp_path: Path) -> None:
    client = glue_context.glue_client
    db = f"ref_{uuid.uuid4().hex[:8]}"
    client.create_database(DatabaseInput={"Name": db})
    _write_priorities(glue_home, db, {"c0": "low", "c1": "high"})
    table_input = {"Name": "priority", "Parameters": {"classification": "json"},
                   "StorageDescriptor": {"Location": f"s3://ref/{db}/priority/",
                                         "Columns": [{"Name": "customer", "Type": "string"},
                                                     {"Name": "priority", "Type": "string"}]}}
    client.create_table(DatabaseName=db, TableInput=table_input)
    priorities = ReferenceData.from_catalog(glue_context, db, "priority")

    topic = broker.create_topic()
    orders = glue_context.create_data_frame.from_options(
        connection_type="kafka", connection_options=kafka_options(broker, topicName=topic, classification="json",
                                                                  schema="id long, customer string"))
    seen: dict[int, tuple[int, str | None]] = {}

    def process(batch: Any, batch_id: int) -> None:
        for row in priorities.enrich(batch, batch_id, on="customer").collect():
            seen[row["id"]] = (batch_id, row["priority"])

    def send(ids: range) -> None:
        broker.produce_json(topic, [{"id": i, "customer": f"c{i % 2}"} for i in ids])

    with BackgroundRun(glue_context, orders, process, {"windowSize": "1 second",
                                                       "checkpointLocation": str(tmp_path / "cp")}) as run:
        send(range(10))
        run.wait_until(lambda: len(seen) == 10)
        # the reference changes: new data, and the table updated in the catalog
        _write_priorities(glue_home, db, {"c0": "urgent", "c1": "high"})
        client.update_table(DatabaseName=db, TableInput={**table_input, "Description": "c0 is urgent now"})
        send(range(10, 20))
        run.wait_until(lambda: len(seen) == 20)
        send(range(20, 30))
        run.wait_until(lambda: len(seen) == 30)
        batches = list(run.runner.batches_run)

    assert {seen[i][1] for i in range(0, 10, 2)} == {"low"}  # batches before the change: the old priority
    assert {seen[i][1] for i in range(10, 30, 2)} == {"urgent"}  # every later batch: the new one
    assert {seen[i][1] for i in range(1, 30, 2)} == {"high"}
    assert len(batches) >= 3
    assert priorities.checks == len(batches)  # one GetTable per batch
    assert priorities.loads == 2  # the table's data was read twice: at the start and after the change


def test_a_change_flag_reloads_once_and_is_consumed(glue_context: Any, glue_home: Path) -> None:
    spark = glue_context.spark_session
    values = {"c0": "low"}
    reads: list[int] = []

    def load() -> Any:
        reads.append(1)
        return spark.createDataFrame(list(values.items()), "customer string, priority string")

    prefix = f"s3://ref/flags-{uuid.uuid4().hex[:6]}/"
    flags = glue_home / "s3" / prefix[len("s3://"):]
    reference = ReferenceData.on_change_flag(glue_context, load, prefix)
    assert [tuple(r) for r in reference.for_batch(0).collect()] == [("c0", "low")]
    reference.for_batch(0)
    reference.for_batch(1)
    assert (len(reads), reference.checks) == (1, 2)  # checked once per batch id, read once

    values["c0"] = "urgent"
    flags.mkdir(parents=True)
    (flags / "changed-1").write_text("")
    assert [tuple(r) for r in reference.for_batch(2).collect()] == [("c0", "urgent")]
    assert len(reads) == 2 and not (flags / "changed-1").exists()  # consumed
    reference.for_batch(3)
    assert len(reads) == 2

    renaming = ReferenceData.on_change_flag(glue_context, load, prefix, consume="rename")
    renaming.for_batch(0)
    (flags / "changed-2").write_text("")
    renaming.for_batch(1)
    assert not (flags / "changed-2").exists()
    assert [p.name.split(".")[0] for p in (flags / "_consumed").iterdir()] == ["changed-2"]
    with pytest.raises(GlueRuntimeError, match="consume must be"):
        ReferenceData.on_change_flag(glue_context, load, prefix, consume="keep")
