"""Catalog reads and writes: partition pruning through GetPartitions, enableUpdateCatalog, purge_table."""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from glueball.objects.locations import local_path
from glueball.runtime.dynamicframe import DynamicFrame
from glueball.runtime.io import files as file_listing

ROWS = [(1, "a", 2020, "01"), (2, "b", 2020, "02"), (3, "c", 2021, "01"), (4, "d", 2021, "02")]


@pytest.fixture
def db(glue_context: Any) -> str:
    name = f"io_{uuid.uuid4().hex[:8]}"
    glue_context.glue_client.create_database(DatabaseInput={"Name": name})
    return name


def _frame(glue_context: Any) -> DynamicFrame:
    df = glue_context.spark_session.createDataFrame(ROWS, "id long, name string, year int, month string")
    return DynamicFrame.fromDF(df, glue_context, "events")


def _write_partitioned(glue_context: Any, db: str, table: str, fmt: str = "glueparquet") -> str:
    path = f"s3://io-catalog/{db}/{table}/"
    sink = glue_context.getSink(connection_type="s3", path=path, enableUpdateCatalog=True,
                                updateBehavior="UPDATE_IN_DATABASE", partitionKeys=["year", "month"])
    sink.setFormat(fmt)
    sink.setCatalogInfo(catalogDatabase=db, catalogTableName=table)
    sink.writeFrame(_frame(glue_context))
    return path


def _values(glue_context: Any, db: str, table: str) -> list[list[str]]:
    parts = glue_context.glue_client.get_partitions(DatabaseName=db, TableName=table)["Partitions"]
    return sorted(p["Values"] for p in parts)


def test_enable_update_catalog_creates_table_and_partitions(glue_context: Any, db: str) -> None:
    path = _write_partitioned(glue_context, db, "events")
    table = glue_context.glue_client.get_table(DatabaseName=db, Name="events")["Table"]
    assert [(c["Name"], c["Type"]) for c in table["StorageDescriptor"]["Columns"]] == [("id", "bigint"),
                                                                                        ("name", "string")]
    assert [(k["Name"], k["Type"]) for k in table["PartitionKeys"]] == [("year", "int"), ("month", "string")]
    assert table["Parameters"]["classification"] == "parquet"
    assert table["StorageDescriptor"]["Location"] == path
    assert "Parquet" in table["StorageDescriptor"]["SerdeInfo"]["SerializationLibrary"]
    assert _values(glue_context, db, "events") == [["2020", "01"], ["2020", "02"], ["2021", "01"], ["2021", "02"]]
    part = glue_context.glue_client.get_partition(DatabaseName=db, TableName="events",
                                                  PartitionValues=["2021", "02"])["Partition"]
    assert part["StorageDescriptor"]["Location"] == f"{path}year=2021/month=02/"
    # a second write with a new partition and a new column: schema updated, only the new partition added
    more = glue_context.spark_session.createDataFrame([(5, "e", 2022, "01", True)],
                                                      "id long, name string, year int, month string, flag boolean")
    sink = glue_context.getSink(connection_type="s3", path=path, enableUpdateCatalog=True,
                                partitionKeys=["year", "month"])
    sink.setFormat("glueparquet")
    sink.setCatalogInfo(catalogDatabase=db, catalogTableName="events")
    sink.writeFrame(DynamicFrame.fromDF(more, glue_context, "more"))
    table = glue_context.glue_client.get_table(DatabaseName=db, Name="events")["Table"]
    assert [c["Name"] for c in table["StorageDescriptor"]["Columns"]] == ["id", "name", "flag"]
    assert len(_values(glue_context, db, "events")) == 5


def test_update_behavior_log_keeps_the_schema(glue_context: Any, db: str) -> None:
    path = _write_partitioned(glue_context, db, "events")
    more = glue_context.spark_session.createDataFrame([(5, 2023, "03", 1.0)],
                                                      "id long, year int, month string, x double")
    glue_context.write_dynamic_frame.from_options(
        DynamicFrame.fromDF(more, glue_context, "more"), "s3",
        {"path": path, "partitionKeys": ["year", "month"], "enableUpdateCatalog": True, "updateBehavior": "LOG",
         "catalogDatabase": db, "catalogTableName": "events"}, "glueparquet")
    table = glue_context.glue_client.get_table(DatabaseName=db, Name="events")["Table"]
    assert [c["Name"] for c in table["StorageDescriptor"]["Columns"]] == ["id", "name"]
    assert ["2023", "03"] in _values(glue_context, db, "events")


def test_push_down_predicate_prunes_through_the_catalog(glue_context: Any, db: str,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    path = _write_partitioned(glue_context, db, "events")
    # a partition that must never be touched: its file is not Parquet at all
    bad = local_path(f"{path}year=2020/month=01")
    for item in bad.iterdir():
        item.unlink()
    (bad / "part-corrupt.parquet").write_bytes(b"this is not parquet")
    listed: list[str] = []
    original = file_listing.list_files

    def recording(uris: list[str], **kwargs: Any) -> list[file_listing.InputFile]:
        listed.extend(uris)
        return original(uris, **kwargs)

    monkeypatch.setattr(file_listing, "list_files", recording)
    frame = glue_context.create_dynamic_frame.from_catalog(database=db, table_name="events",
                                                           push_down_predicate="year = 2021 and month = '02'")
    rows = [tuple(r) for r in frame.toDF().select("id", "name", "year", "month").collect()]
    assert rows == [(4, "d", 2021, "02")]
    assert frame.toDF().schema["year"].dataType.simpleString() == "int"
    assert listed == [f"{path}year=2021/month=02/"]
    # Spark SQL syntax the catalog grammar does not take is evaluated on partition values, still before listing
    listed.clear()
    frame = glue_context.create_dynamic_frame.from_catalog(
        database=db, table_name="events", push_down_predicate="year == 2021 AND month IN ('01')")
    assert sorted(r["id"] for r in frame.toDF().collect()) == [3]
    assert listed == [f"{path}year=2021/month=01/"]
    listed.clear()
    frame = glue_context.create_dynamic_frame.from_catalog(
        database=db, table_name="events", additional_options={"catalogPartitionPredicate": "year >= 2021"},
        push_down_predicate="month = '01'")
    assert sorted(r["id"] for r in frame.toDF().collect()) == [3]
    assert listed == [f"{path}year=2021/month=01/"]


def test_read_every_partition_and_empty_selection(glue_context: Any, db: str) -> None:
    _write_partitioned(glue_context, db, "events", fmt="json")
    frame = glue_context.create_dynamic_frame.from_catalog(database=db, table_name="events")
    rows = sorted(tuple(r) for r in frame.toDF().select("id", "name", "year", "month").collect())
    assert rows == sorted(ROWS)
    none = glue_context.create_dynamic_frame.from_catalog(database=db, table_name="events",
                                                          push_down_predicate="year = 1999")
    assert none.count() == 0
    assert set(none.toDF().columns) == {"id", "name", "year", "month"}


def test_csv_table_with_header_and_delimiter(glue_context: Any, db: str) -> None:
    location = f"s3://io-catalog/{db}/people/"
    target = local_path(location)
    target.mkdir(parents=True)
    (target / "a.csv").write_text("ignored|header\n1|ann\n2|bob\n")
    glue_context.glue_client.create_table(DatabaseName=db, TableInput={
        "Name": "people", "Parameters": {"classification": "csv", "skip.header.line.count": "1"},
        "StorageDescriptor": {
            "Location": location, "Columns": [{"Name": "id", "Type": "bigint"}, {"Name": "name", "Type": "string"}],
            "SerdeInfo": {"SerializationLibrary": "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe",
                          "Parameters": {"field.delim": "|"}}}})
    frame = glue_context.create_dynamic_frame.from_catalog(database=db, table_name="people")
    assert sorted(tuple(r) for r in frame.toDF().collect()) == [(1, "ann"), (2, "bob")]
    # write_dynamic_frame.from_catalog writes the table's format at its location
    more = glue_context.spark_session.createDataFrame([(3, "cy")], "id long, name string")
    glue_context.write_dynamic_frame.from_catalog(DynamicFrame.fromDF(more, glue_context, "m"), database=db,
                                                  table_name="people")
    written = [p for p in target.iterdir() if p.name.startswith("run-")]
    assert written and written[0].read_text().splitlines()[0] == "id|name"
    again = glue_context.create_dynamic_frame.from_catalog(database=db, table_name="people")
    assert sorted(r["id"] for r in again.toDF().collect()) == [1, 2, 3]


def test_from_catalog_write_with_update_registers_partitions(glue_context: Any, db: str) -> None:
    _write_partitioned(glue_context, db, "events", fmt="avro")
    more = glue_context.spark_session.createDataFrame([(9, "z", 2030, "12")],
                                                      "id long, name string, year int, month string")
    glue_context.write_dynamic_frame.from_catalog(
        DynamicFrame.fromDF(more, glue_context, "m"), database=db, table_name="events",
        additional_options={"enableUpdateCatalog": True, "partitionKeys": ["year", "month"]})
    assert ["2030", "12"] in _values(glue_context, db, "events")
    frame = glue_context.create_dynamic_frame.from_catalog(database=db, table_name="events",
                                                           push_down_predicate="year = 2030")
    assert [tuple(r) for r in frame.toDF().select("id", "year").collect()] == [(9, 2030)]


def test_purge_table_by_partition_predicate(glue_context: Any, db: str) -> None:
    path = _write_partitioned(glue_context, db, "events")
    old = time.time() - 10 * 24 * 3600
    for root, _dirs, names in os.walk(local_path(path)):
        for name in names:
            os.utime(Path(root) / name, (old, old))
    glue_context.purge_table(db, "events", {"partitionPredicate": "year = 2020", "retentionPeriod": 24})
    assert not local_path(f"{path}year=2020").exists()
    assert any(local_path(f"{path}year=2021/month=01").iterdir())
    assert _values(glue_context, db, "events") == [["2021", "01"], ["2021", "02"]]
    # default retention (7 days) keeps fresh files
    fresh = local_path(f"{path}year=2021/month=01") / "fresh.parquet"
    fresh.write_bytes(b"x")
    glue_context.purge_table(db, "events")
    assert fresh.exists()
    assert _values(glue_context, db, "events") == [["2021", "01"]]


def test_partitions_that_disagree_on_a_json_type_make_one_choice(glue_context: Any, glue_home: Path) -> None:
    from tests.helpers import unique

    client = glue_context.glue_client
    db = unique("jsonparts")
    client.create_database(DatabaseInput={"Name": db})
    client.create_table(DatabaseName=db, TableInput={
        "Name": "readings", "PartitionKeys": [{"Name": "day", "Type": "int"}],
        "Parameters": {"classification": "json"},
        "StorageDescriptor": {"Location": f"s3://lake/{db}/readings/",
                              "Columns": [{"Name": "id", "Type": "bigint"}, {"Name": "v", "Type": "string"}]}})
    for day, lines in ((1, ['{"id": 1, "v": 10}', '{"id": 2, "v": 11}']), (2, ['{"id": 3, "v": "n/a"}'])):
        folder = glue_home / "s3" / "lake" / db / "readings" / f"day={day}"
        folder.mkdir(parents=True)
        (folder / "part.json").write_text("\n".join(lines) + "\n")
        client.create_partition(DatabaseName=db, TableName="readings", PartitionInput={
            "Values": [str(day)], "StorageDescriptor": {"Location": f"s3://lake/{db}/readings/day={day}/"}})
    frame = glue_context.create_dynamic_frame.from_catalog(database=db, table_name="readings")
    assert frame.schema().getField("v").dataType.typeName() == "choice"
    rows = {r.id: r for r in frame.toDF().collect()}
    assert (rows[1].v.long, rows[1].day) == (10, 1)
    assert (rows[3].v.string, rows[3].day) == ("n/a", 2)
    resolved = frame.resolveChoice(specs=[("v", "cast:long")]).toDF()
    assert sorted((r.id, r.v) for r in resolved.collect()) == [(1, 10), (2, 11), (3, None)]
