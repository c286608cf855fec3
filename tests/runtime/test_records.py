"""Record transforms: Filter, Map, mapPartitions, Join, Union, mergeDynamicFrame, Spigot, collections."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

from glueball.runtime.dynamicframe import CHOICE_METADATA, DynamicFrame, DynamicFrameCollection
from glueball.runtime.errors import ErrorThresholdExceeded, GlueRuntimeError
from glueball.runtime.transforms.record_transforms import (
    Coalesce,
    ErrorsAsDynamicFrame,
    Filter,
    FlatMap,
    Join,
    Map,
    MapToCollection,
    Repartition,
    SelectFromCollection,
    Spigot,
    Union,
)

PEOPLE_SCHEMA = ("id long, name string, info struct<age: int, zip: string>, tags array<string>, "
                 "seen timestamp, score decimal(10,2)")


def people(glue_context: Any, n: int = 8, name: str = "people") -> DynamicFrame:
    from decimal import Decimal

    rows = [(i, f"p{i}", (20 + 5 * i, f"z{i % 3}"), [f"t{i}"] * (i % 3), dt.datetime(2024, 1, 1 + i, 12, 30),
             Decimal(f"{i}.25")) for i in range(1, n + 1)]
    df = glue_context.spark_session.createDataFrame(rows, PEOPLE_SCHEMA).coalesce(1)  # one task per stage
    return DynamicFrame.fromDF(df, glue_context, name)


def ids(frame: DynamicFrame, column: str = "id") -> list[Any]:
    return sorted(r[column] for r in frame.toDF().select(column).collect())


def test_filter_passes_dynamic_records_and_keeps_schema(glue_context: Any) -> None:
    frame = people(glue_context)

    def old_enough(rec: Any) -> bool:
        assert isinstance(rec["info"], dict) and isinstance(rec["tags"], list)
        assert isinstance(rec["seen"], dt.datetime)
        return bool(rec["info"]["age"] > 35)

    kept = frame.filter(old_enough, transformation_ctx="f1")
    assert ids(kept) == [4, 5, 6, 7, 8]
    assert kept.toDF().schema == frame.toDF().schema
    assert kept.errorsCount() == 0
    same = Filter.apply(frame=frame, f=lambda r: r["name"] in ("p1", "p2"))
    assert ids(same) == [1, 2]


def test_filter_errors_become_error_records(glue_context: Any) -> None:
    frame = people(glue_context)

    def predicate(rec: Any) -> bool:
        if rec["id"] % 3 == 0:
            raise RuntimeError(f"bad record {rec['id']}")
        if rec["id"] == 4:
            return bool(rec["missing"])  # KeyError: Glue drops the record, no error
        return bool(rec["id"] % 2 == 1)

    kept = frame.filter(predicate, transformation_ctx="odd_ids")
    assert ids(kept) == [1, 5, 7]
    assert kept.stageErrorsCount() == 2
    assert kept.errorsCount() == 2
    errors = kept.errorsAsDynamicFrame().toDF().collect()
    assert sorted(e.error_message for e in errors) == ["bad record 3", "bad record 6"]
    assert {e.error_stage for e in errors} == {"Filter"}
    assert {e.error_source for e in errors} == {"odd_ids"}
    inputs = sorted((json.loads(e.error_input) for e in errors), key=lambda r: r["id"])
    assert [r["id"] for r in inputs] == [3, 6]
    assert inputs[0]["info"] == {"age": 35, "zip": "z0"}
    assert ErrorsAsDynamicFrame.apply(kept).count() == 2


def test_thresholds_raise_only_when_exceeded(glue_context: Any) -> None:
    frame = people(glue_context, n=6)

    def fail_even(rec: Any) -> bool:
        if rec["id"] % 2 == 0:
            raise RuntimeError("even")
        return True

    assert frame.filter(fail_even, stageThreshold=3).count() == 3
    with pytest.raises(ErrorThresholdExceeded, match="stageThreshold 2"):
        frame.filter(fail_even, stageThreshold=2)
    with pytest.raises(ErrorThresholdExceeded, match="totalThreshold 1"):
        Filter.apply(frame=frame, f=fail_even, totalThreshold=1)


def test_map_changes_fields_and_keeps_json_less_types(glue_context: Any) -> None:
    from pyspark.sql.types import DecimalType, LongType, StringType, TimestampType

    frame = people(glue_context, n=4)

    def reshape(rec: Any) -> Any:
        rec["age_next"] = rec["info"]["age"] + 1
        rec["id"] = f"id-{rec['id']}"
        del rec["tags"]
        return rec

    mapped = frame.map(reshape, transformation_ctx="reshape")
    df = mapped.toDF()
    assert df.columns[:3] == ["id", "name", "info"]
    assert "tags" not in df.columns and "age_next" in df.columns
    types = {f.name: f.dataType for f in df.schema.fields}
    assert isinstance(types["id"], StringType)
    assert isinstance(types["age_next"], LongType)
    assert isinstance(types["seen"], TimestampType)
    assert isinstance(types["score"], DecimalType)
    rows = {r["id"]: r for r in df.collect()}
    assert rows["id-2"]["age_next"] == 31
    assert rows["id-2"]["seen"] == dt.datetime(2024, 1, 3, 12, 30)
    assert str(rows["id-2"]["score"]) == "2.25"
    assert mapped.errorsCount() == 0
    again = Map.apply(frame=frame, f=lambda r: {"double": r["id"] * 2})
    assert ids(again, "double") == [2, 4, 6, 8]


def test_map_errors_and_none_results(glue_context: Any) -> None:
    frame = people(glue_context, n=6)

    def f(rec: Any) -> Any:
        if rec["id"] == 2:
            return None
        if rec["id"] in (3, 5):
            raise ValueError(f"cannot map {rec['id']}")
        return {"id": rec["id"], "v": rec["id"] if rec["id"] % 2 == 0 else f"s{rec['id']}"}

    mapped = frame.map(f, transformation_ctx="m")
    assert ids(mapped) == [1, 4, 6]
    v = mapped.toDF().schema["v"]  # long in some records, string in others: a choice
    assert v.metadata.get(CHOICE_METADATA) is True and v.dataType.fieldNames() == ["long", "string"]
    assert mapped.stageErrorsCount() == 3
    errors = {json.loads(e.error_input)["id"]: e for e in mapped.errorsAsDynamicFrame().toDF().collect()}
    assert sorted(errors) == [2, 3, 5]
    assert errors[3].error_message == "cannot map 3"
    assert "returned None" in errors[2].error_message
    assert {e.error_stage for e in errors.values()} == {"Map"}


def test_two_error_stages_count_stage_and_total(glue_context: Any) -> None:
    frame = people(glue_context, n=9)

    def filter_fn(rec: Any) -> bool:
        if rec["id"] in (1, 2):
            raise RuntimeError("filter failed")
        return True

    def map_fn(rec: Any) -> Any:
        if rec["id"] in (3, 4, 5):
            raise RuntimeError("map failed")
        return rec

    filtered = frame.filter(filter_fn, transformation_ctx="stage1")
    # both thresholds exactly reached, not exceeded: no error
    mapped = filtered.map(map_fn, transformation_ctx="stage2", stageThreshold=3, totalThreshold=5)
    assert mapped.count() == 4
    assert mapped.stageErrorsCount() == 3
    assert mapped.errorsCount() == 5
    stages = sorted((e.error_source, e.error_stage) for e in mapped.errorsAsDynamicFrame().toDF().collect())
    assert stages == [("stage1", "Filter")] * 2 + [("stage2", "Map")] * 3
    with pytest.raises(ErrorThresholdExceeded, match="totalThreshold 4"):
        filtered.map(map_fn, totalThreshold=4)


def test_map_partitions_sees_each_partition(glue_context: Any) -> None:
    frame = people(glue_context, n=6).repartition(2)

    def summarize(records: Any) -> Any:
        batch = list(records)
        if batch:
            yield {"count": len(batch), "ids": sorted(r["id"] for r in batch)}

    summary = frame.mapPartitions(summarize).toDF().collect()
    assert sum(r["count"] for r in summary) == 6
    assert sorted(i for r in summary for i in r["ids"]) == [1, 2, 3, 4, 5, 6]


def test_join_on_nested_keys_keeps_both_sides(glue_context: Any) -> None:
    spark = glue_context.spark_session
    persons = people(glue_context, n=5)
    zones = DynamicFrame.fromDF(spark.createDataFrame(
        [("z0", "north", "zone0"), ("z1", "south", None)], "zip string, region string, name string"),
        glue_context, "zones")
    joined = persons.join(["info.zip"], ["zip"], zones, transformation_ctx="j")
    df = joined.toDF()
    # a non-key field both frames have is one field (Glue's documented Join output has one `links`, one `image`)
    assert df.columns == [*persons.toDF().columns, "zip", "region"]
    rows = {r["id"]: r for r in df.collect()}
    assert sorted(rows) == [1, 3, 4]  # zips z1, z0, z1; id 2 has z2 and 5 has z2
    assert (rows[3]["region"], rows[3]["name"]) == ("north", "p3")      # frame1's value where it has one
    assert joined.name == "peoplezones"
    same = Join.apply(frame1=persons, frame2=zones, keys1=["info.zip"], keys2=["zip"])
    assert same.count() == 3


def test_join_with_itself_and_carries_errors(glue_context: Any) -> None:
    def fail_one(rec: Any) -> bool:
        if rec["id"] == 1:
            raise RuntimeError("no")
        return True

    frame = people(glue_context, n=4).filter(fail_one)
    other = people(glue_context, n=3, name="other").map(lambda r: None if r["id"] == 3 else r)
    self_joined = frame.join(["id"], ["id"], frame)
    assert ids(self_joined) == [2, 3, 4]
    assert self_joined.toDF().columns.count(".id") == 1                 # a key both frames name: Glue's `.id`
    assert self_joined.toDF().columns.count("name") == 1 and ".name" not in self_joined.toDF().columns
    assert self_joined.errorsCount() == 1
    joined = frame.join("id", "id", other)
    assert ids(joined) == [2]
    assert joined.errorsCount() == 2
    with pytest.raises(GlueRuntimeError, match="nope"):
        frame.join(["nope"], ["id"], other)


def test_join_fills_a_shared_field_from_frame2_and_keeps_differently_typed_ones_apart(glue_context: Any) -> None:
    spark = glue_context.spark_session
    left = DynamicFrame.fromDF(spark.createDataFrame([(1, None, 5), (2, "L2", 6)], "id int, image string, n int"),
                               glue_context, "l")
    right = DynamicFrame.fromDF(spark.createDataFrame([(1, "R1", "x"), (2, "R2", "y")],
                                                      "pid int, image string, n string"), glue_context, "r")
    df = Join.apply(left, right, "id", "pid").toDF()
    assert df.columns == ["id", "image", "n", "pid", ".n"]
    assert sorted((r["id"], r["image"], r["n"], r[".n"]) for r in df.collect()) == [(1, "R1", 5, "x"),
                                                                                     (2, "L2", 6, "y")]


def test_relationalize_names_tables_without_dots_or_trailing_underscores(glue_context: Any, tmp_path: Any) -> None:
    spark = glue_context.spark_session
    frame = DynamicFrame.fromDF(spark.createDataFrame([(1, [1, 2], ["a"])], "id int, `.links` array<int>, "
                                                      "`tags.` array<string>"), glue_context, "f")
    names = sorted(frame.relationalize("hist_root", str(tmp_path)).keys())
    assert names == ["hist_root", "hist_root_links", "hist_root_tags"]


def test_union_type_conflicts_make_choices(glue_context: Any) -> None:
    from glueball.runtime.gluetypes import ChoiceType

    spark = glue_context.spark_session
    first = DynamicFrame.fromDF(spark.createDataFrame(
        [(1, 10, (1,)), (2, 20, (2,))], "id long, price long, info struct<a: long>"), glue_context, "a")
    second = DynamicFrame.fromDF(spark.createDataFrame(
        [(3, "thirty", ("x",), True)], "id long, price string, info struct<b: string>, extra boolean"),
        glue_context, "b")
    unioned = first.union(second, transformation_ctx="u")
    df = unioned.toDF()
    assert df.columns == ["id", "price", "info", "extra"]
    price = df.schema["price"]
    assert price.metadata.get(CHOICE_METADATA) is True
    assert price.dataType.fieldNames() == ["long", "string"]
    assert df.schema["info"].dataType.fieldNames() == ["a", "b"]
    rows = {r["id"]: r for r in df.collect()}
    assert (rows[1]["price"]["long"], rows[1]["price"]["string"]) == (10, None)
    assert (rows[3]["price"]["long"], rows[3]["price"]["string"]) == (None, "thirty")
    assert rows[3]["info"]["b"] == "x" and rows[1]["info"]["a"] == 1 and rows[1]["extra"] is None
    assert isinstance(unioned.schema().getField("price").dataType, ChoiceType)
    seen = sorted(str(v) for v in [r["price"] for r in unioned.map(lambda r: {"price": str(r["price"])})
                                   .toDF().collect()])
    assert seen == ["10", "20", "thirty"]
    texts = unioned.filter(lambda r: isinstance(r["price"], str))
    assert ids(texts) == [3] and texts.toDF().schema == df.schema
    # a third frame adds a member to the existing choice
    third = DynamicFrame.fromDF(spark.createDataFrame([(4, 4.5)], "id long, price double"), glue_context, "c")
    wider = Union.apply(frame1=unioned, frame2=third).toDF()
    assert wider.schema["price"].dataType.fieldNames() == ["double", "long", "string"]
    assert {r["id"]: r["price"]["double"] for r in wider.collect()}[4] == 4.5


def test_merge_replaces_and_adds_by_primary_key(glue_context: Any) -> None:
    spark = glue_context.spark_session
    source = DynamicFrame.fromDF(spark.createDataFrame(
        [(1, "a", 1), (2, "b", 1), (3, "c", 1), (3, "c2", 1)], "id long, name string, version int"),
        glue_context, "source")
    staged = DynamicFrame.fromDF(spark.createDataFrame(
        [(2, "B", "new"), (2, "B2", "new"), (4, "D", "new")], "id long, name string, note string"),
        glue_context, "staged")
    merged = source.mergeDynamicFrame(staged, ["id"], transformation_ctx="merge")
    rows = sorted((r["id"], r["name"], r["version"], r["note"]) for r in merged.toDF().collect())
    assert rows == [(1, "a", 1, None), (2, "B", None, "new"), (2, "B2", None, "new"), (3, "c", 1, None),
                    (3, "c2", 1, None), (4, "D", None, "new")]
    with pytest.raises(GlueRuntimeError):
        source.mergeDynamicFrame(staged, [])


def test_spigot_writes_samples_and_returns_the_frame(glue_context: Any, glue_home: Path) -> None:
    frame = people(glue_context, n=5)
    out = frame.spigot("s3://samples/people", {"topk": 2}, transformation_ctx="sp")
    assert out.count() == 5
    target = glue_home / "s3" / "samples" / "people"
    lines = [line for p in target.glob("part-*") for line in p.read_text().splitlines()]
    assert len(lines) == 2
    record = json.loads(lines[0])
    assert set(record) == {"id", "name", "info", "tags", "seen", "score"}
    empty_dir = glue_home / "s3" / "samples" / "none"
    Spigot.apply(frame=frame, path=str(empty_dir), options='{"prob": 0.0}')
    assert [p.read_text() for p in empty_dir.glob("part-*")] == [""]
    with pytest.raises(GlueRuntimeError, match="prob"):
        frame.spigot("s3://samples/bad", {"prob": 2})


def test_collection_transforms(glue_context: Any) -> None:
    frame = people(glue_context, n=6)
    dfc = DynamicFrameCollection({"low": frame.filter(lambda r: r["id"] <= 3),
                                  "high": frame.filter(lambda r: r["id"] > 3)}, glue_context)
    assert ids(SelectFromCollection.apply(dfc=dfc, key="high")) == [4, 5, 6]
    evens = FlatMap.apply(dfc=dfc, BaseTransform=Filter, frame_name="frame", f=lambda r: r["id"] % 2 == 0)
    assert sorted(evens.keys()) == ["high", "low"]
    assert ids(evens["low"]) == [2] and ids(evens["high"]) == [4, 6]
    renamed = MapToCollection.apply(dfc=dfc, callable=lambda f, ctx: f.map(lambda r: {"n": r["id"] * 10}))
    assert ids(renamed["low"], "n") == [10, 20, 30]
    assert Repartition.apply(frame=frame, num_partitions=3).getNumPartitions() == 3
    assert Coalesce.apply(frame=frame.repartition(3), num_partitions=1).getNumPartitions() == 1
    assert Filter.describe()["transform"]["name"] == "Filter"


def test_a_lazy_record_reads_changes_and_deletes_fields_as_a_dict_does() -> None:
    import pyarrow as pa
    from pyspark.sql.types import LongType, StringType, StructField, StructType

    from glueball.runtime.dynamicrecord import BatchRecords

    schema = StructType([StructField("id", LongType()), StructField("name", StringType())])
    batch = pa.RecordBatch.from_arrays([pa.array([1, 2]), pa.array(["a", None])], names=["id", "name"])
    records = BatchRecords(batch, schema)
    first, second = records.record(0), records.record(1)
    assert (first["id"], first["name"], second["id"], second["name"]) == (1, "a", 2, None)
    assert "id" in first and "other" not in first and len(first) == 2
    assert first.get("other", "dflt") == "dflt"
    with pytest.raises(KeyError):
        first["other"]
    first["other"] = 3
    first["id"] = 10
    del first["name"]
    assert dict(first) == {"id": 10, "other": 3} and "name" not in first and list(first) == ["id", "other"]
    with pytest.raises(KeyError):
        first["name"]
    with pytest.raises(KeyError):
        del first["name"]
    first["name"] = "back"
    del first["other"]
    assert first == {"id": 10, "name": "back"}
    assert second == {"id": 2, "name": None}  # a change to one record leaves the batch's others as they were
    assert records.record(0) == {"id": 1, "name": "a"}
