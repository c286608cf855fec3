"""Map's typed results: the schema inferred from a sample, fields left unchanged kept with their own types,
the function run once per record, and records unlike the sample refused by name."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest

from glueball.runtime.dynamicframe import CHOICE_METADATA, DynamicFrame
from glueball.runtime.errors import GlueRuntimeError
from glueball.runtime.ops.field_reads import fields_changed, fields_read
from glueball.runtime.ops.record_map import SAMPLE_CONF
from glueball.runtime.transforms.record_transforms import Map

SCHEMA = ("id long, age int, info struct<zip: string, n: int>, props map<string, int>, seen timestamp, "
          "score decimal(10,2)")


@pytest.fixture(scope="module")
def frame(glue_context: Any) -> DynamicFrame:
    rows = [(i, 20 + i, (f"z{i}", i), {"k": i}, dt.datetime(2024, 1, i, 8), Decimal(f"{i}.25")) for i in range(1, 9)]
    df = glue_context.spark_session.createDataFrame(rows, SCHEMA).coalesce(1)
    return DynamicFrame.fromDF(df, glue_context, "people")


@pytest.fixture()
def sample_of(glue_context: Any) -> Iterator[Any]:
    """Set the sample size for one test; the conf is unset afterwards."""
    conf = glue_context.spark_session.conf

    def set_size(size: Any) -> None:
        conf.set(SAMPLE_CONF, str(size))

    yield set_size
    conf.unset(SAMPLE_CONF)


def rows(frame: DynamicFrame) -> dict[Any, Any]:
    return {r["id"]: r.asDict(recursive=True) for r in frame.toDF().collect()}


def test_a_record_returned_with_one_field_changed_keeps_every_other_field_as_it_was(frame: DynamicFrame) -> None:
    def in_cents(record: Any) -> Any:
        record["score"] = int(record["score"] * 100)
        return record

    assert fields_read(in_cents, returned=True) == {"score"}  # only "score" goes to Python and back
    mapped = Map.apply(frame=frame, f=in_cents)
    types = {f.name: f.dataType.simpleString() for f in mapped.toDF().schema.fields}
    # an int set where the input had a decimal keeps the decimal type (as when JSON carried it)
    assert types == {"id": "bigint", "age": "int", "info": "struct<zip:string,n:int>", "props": "map<string,int>",
                     "seen": "timestamp", "score": "decimal(10,2)"}
    row = rows(mapped)[3]
    assert row == {"id": 3, "age": 23, "info": {"zip": "z3", "n": 3}, "props": {"k": 3},
                   "seen": dt.datetime(2024, 1, 3, 8), "score": Decimal("325.00")}


def test_a_field_set_in_some_records_and_kept_in_others(frame: DynamicFrame) -> None:
    def f(record: Any) -> Any:
        if record["id"] % 2:
            record["age"] = record["age"] * 1000  # a Python int: long; the kept ints are widened to it
            record["info"] = "none"  # a string where other records keep the struct: a choice
            del record["props"]
        return record

    mapped = Map.apply(frame=frame, f=f)
    schema = mapped.toDF().schema
    assert schema["age"].dataType.simpleString() == "bigint"
    assert schema["info"].metadata.get(CHOICE_METADATA) is True
    assert schema["info"].dataType.fieldNames() == ["string", "struct"]
    found = rows(mapped)
    assert (found[1]["age"], found[2]["age"]) == (21000, 22)
    assert found[1]["info"] == {"string": "none", "struct": None}
    assert found[2]["info"] == {"string": None, "struct": {"zip": "z2", "n": 2}}
    assert (found[1]["props"], found[2]["props"]) == (None, {"k": 2})


def test_new_records_with_nested_values_and_json_less_types(frame: DynamicFrame) -> None:
    def f(record: Any) -> Any:
        return {"id": record["id"], "when": record["seen"], "day": record["seen"].date(), "raw": b"\x00\x01",
                "items": [{"n": record["id"]}, {"n": None, "label": "x"}] if record["id"] > 1 else [],
                "tag": None}

    mapped = Map.apply(frame=frame, f=f)
    types = {f.name: f.dataType.simpleString() for f in mapped.toDF().schema.fields}
    assert types == {"id": "bigint", "day": "date", "items": "array<struct<label:string,n:bigint>>",
                     "raw": "binary", "tag": "string", "when": "timestamp"}  # new fields by name, as JSON had them
    row = rows(mapped)[2]
    assert row["when"] == dt.datetime(2024, 1, 2, 8) and row["day"] == dt.date(2024, 1, 2)
    assert row["items"] == [{"label": None, "n": 2}, {"label": "x", "n": None}] and row["raw"] == b"\x00\x01"


def test_the_function_runs_once_per_record_and_once_per_sampled_record(glue_context: Any,
                                                                         frame: DynamicFrame) -> None:
    calls = glue_context.spark_session.sparkContext.accumulator(0)

    def counted(record: Any) -> Any:
        calls.add(1)
        record["age"] = record["age"] + 1
        return record

    mapped = Map.apply(frame=frame, f=counted)
    sampled = calls.value  # the sample ran in the driver: every record of this small frame
    assert sampled == 8
    assert len(mapped.toDF().collect()) == 8
    assert calls.value == sampled + 8


def test_a_function_whose_fields_the_sample_cannot_bound_gets_every_record_s_fields(frame: DynamicFrame,
                                                                                      sample_of: Any) -> None:
    sample_of(2)  # the sample is ids 1 and 2 (the frame is one partition, in order)

    def later_field(record: Any) -> Any:  # another mapping: what it may hold is not in the bytecode
        return {"id": record["id"], **({"late": 1} if record["id"] > 5 else {})}

    assert fields_changed(later_field) is None
    assert {i: r.get("late") for i, r in rows(Map.apply(frame=frame, f=later_field)).items()} == \
        {1: None, 2: None, 3: None, 4: None, 5: None, 6: 1, 7: 1, 8: 1}

    def later_set(record: Any) -> Any:
        if record["id"] > 5:
            record["age"] = 0  # a branch no sampled record took
        return record

    assert fields_changed(later_set) == {"age"}
    assert {i: r["age"] for i, r in rows(Map.apply(frame=frame, f=later_set)).items()} == \
        {1: 21, 2: 22, 3: 23, 4: 24, 5: 25, 6: 0, 7: 0, 8: 0}

    def later_new(record: Any) -> Any:
        if record["id"] == 8:
            record["flag"] = "last"
        return record

    assert {i: r.get("flag") for i, r in rows(Map.apply(frame=frame, f=later_new)).items()}[8] == "last"


def test_a_value_unlike_the_sampled_ones_fails_the_job_naming_the_field(frame: DynamicFrame, sample_of: Any) -> None:
    sample_of(2)

    def later_kind(record: Any) -> Any:
        record["v"] = "text" if record["id"] > 5 else record["id"]
        return record

    assert fields_changed(later_kind) == {"v"}  # bounded: the sample's schema is used
    with pytest.raises(Exception, match="field 'v': a str.*mapSampleRecords") as raised:
        Map.apply(frame=frame, f=later_kind).toDF().collect()
    assert "first 2 input records" in str(raised.value)

    def as_text(value: Any) -> str:
        return str(value)

    def later_kept(record: Any) -> Any:
        if record["id"] <= 5:
            record["age"] = as_text(record["age"])  # a call the bytecode reader does not follow: the sample decides
        return record  # ids 6-8 keep their int age, which the sample saw only as a string

    with pytest.raises(Exception, match="field 'age': left as the input had it"):
        Map.apply(frame=frame, f=later_kept).toDF().collect()

    sample_of(0)  # every record: the exact way, no refusal
    assert {i: r["v"] for i, r in rows(Map.apply(frame=frame, f=later_kind)).items()}[6] is not None


def test_values_that_fit_the_sampled_types_pass(frame: DynamicFrame, sample_of: Any) -> None:
    sample_of(2)

    def f(record: Any) -> Any:  # the sample sees floats and no null; later records bring an int and a None
        record["ratio"] = record["id"] / 2 if record["id"] < 5 else (7 if record["id"] == 5 else None)
        return record

    assert fields_changed(f) == {"ratio"}  # bounded: the sample's schema, a double
    found = rows(Map.apply(frame=frame, f=f))
    assert (found[1]["ratio"], found[5]["ratio"], found[6]["ratio"]) == (0.5, 7.0, None)


def test_a_sample_of_zero_infers_the_schema_from_every_record(frame: DynamicFrame, sample_of: Any) -> None:
    sample_of(0)

    def later_field(record: Any) -> Any:
        return {"id": record["id"], **({"late": 1} if record["id"] > 5 else {})}

    mapped = Map.apply(frame=frame, f=later_field)
    assert sorted(r["late"] or 0 for r in mapped.toDF().collect()) == [0] * 5 + [1] * 3


@pytest.mark.parametrize("size", ["many", "-1"])
def test_a_sample_size_that_is_no_count_is_refused(frame: DynamicFrame, sample_of: Any, size: str) -> None:
    sample_of(size)
    with pytest.raises(GlueRuntimeError, match=SAMPLE_CONF):
        Map.apply(frame=frame, f=lambda r: r)


def test_error_records_of_a_typed_map(frame: DynamicFrame) -> None:
    def f(record: Any) -> Any:
        if record["id"] == 4:
            raise KeyError("four")
        if record["id"] == 5:
            return ["not", "a", "record"]
        record["age"] = None
        return record

    mapped = Map.apply(frame=frame, f=f, transformation_ctx="typed", stageThreshold=2)
    assert sorted(rows(mapped)) == [1, 2, 3, 6, 7, 8] and rows(mapped)[1]["age"] is None
    assert mapped.toDF().schema["age"].dataType.simpleString() == "int"  # only nulls set: the input's type
    errors = sorted((e.error_message, e.error_stage, e.error_source) for e in
                    mapped.errorsAsDynamicFrame().toDF().collect())
    assert errors == [("'four'", "Map", "typed"),
                      ("User-specified function returned list instead of DynamicRecord", "Map", "typed")]


def test_a_record_whose_only_sent_field_is_deleted_keeps_its_other_fields(frame: DynamicFrame) -> None:
    """The function is sent only the fields it reads: deleting all of those leaves a record with the others, not
    an empty record (which would be an error record)."""
    def drop_score(record: Any) -> Any:
        del record["score"]
        return record

    assert fields_read(drop_score, returned=True) == {"score"}  # only "score" goes to Python
    mapped = Map.apply(frame=frame, f=drop_score)
    assert mapped.errorsAsDynamicFrame().count() == 0
    found = rows(mapped)
    assert len(found) == 8 and found[4]["age"] == 24 and found[4].get("score") is None


def test_many_records_set_left_deleted_and_failed_through_the_udf(glue_context: Any) -> None:
    """More records than are looked at together (chunks of 256), each outcome in every chunk."""
    df = glue_context.spark_session.range(1000).selectExpr("id", "cast(id % 7 as int) as age",
                                                           "concat('n', id) as name")
    frame = DynamicFrame.fromDF(df.coalesce(1), glue_context, "many")

    def f(record: Any) -> Any:
        if record["id"] % 97 == 5:
            raise ValueError("bad")
        record["age"] = record["age"] * 10
        if record["id"] % 3 == 0:
            record["name"] = "three"
        if record["id"] % 5 == 0:
            del record["name"]
        return record

    assert fields_read(f, returned=True) == {"id", "age", "name"}
    mapped = Map.apply(frame=frame, f=f)
    found = {r["id"]: (r["age"], r["name"]) for r in mapped.toDF().collect()}
    expected = {i: (i % 7 * 10, None if i % 5 == 0 else "three" if i % 3 == 0 else f"n{i}")
                for i in range(1000) if i % 97 != 5}
    assert found == expected
    assert mapped.errorsAsDynamicFrame().count() == 1000 - len(expected)


def test_the_sample_is_the_first_records_across_partitions_read_by_one_task(glue_context: Any,
                                                                            sample_of: Any) -> None:
    """The sample takes the input's partitions in order, in one task, until it has its records: a partition with
    fewer (here none) is read past, and the records of the next ones decide the schema."""
    spark = glue_context.spark_session
    df = spark.range(0, 12, 1, 4).where("id >= 3").selectExpr("id", "cast(id as int) as age")  # ids 0-2: no rows
    frame = DynamicFrame.fromDF(df, glue_context, "parts")
    sample_of(4)  # ids 3-6: partitions 1 and 2

    def later_kind(record: Any) -> Any:
        record["v"] = "text" if record["id"] == 7 else record["id"]
        return record

    tracker = spark.sparkContext.statusTracker()
    spark.sparkContext.setJobGroup("map-sample", "the sample's job")
    try:
        mapped = Map.apply(frame=frame, f=later_kind)
    finally:
        spark.sparkContext.setJobGroup("", "")
    stages = [stage for job in tracker.getJobIdsForGroup("map-sample")
              for stage in tracker.getJobInfo(job).stageIds]  # type: ignore[union-attr]
    assert [tracker.getStageInfo(stage).numTasks for stage in stages] == [1]  # type: ignore[union-attr]
    assert mapped.toDF().schema["v"].dataType.simpleString() == "bigint"  # from ids 3-6
    with pytest.raises(Exception, match="field 'v': a str.*first 4 input records"):
        mapped.toDF().collect()  # id 7, the first record after the sample

    def early_kind(record: Any) -> Any:
        record["v"] = "text" if record["id"] == 6 else record["id"]  # id 6 is sampled: a choice
        return record

    found = rows(Map.apply(frame=frame, f=early_kind))
    assert (found[5]["v"], found[6]["v"], sorted(found)) == ({"long": 5, "string": None},
                                                           {"long": None, "string": "text"}, list(range(3, 12)))


def test_a_map_over_no_records_has_no_records_and_no_fields(glue_context: Any) -> None:
    """An input of no partitions, or of partitions with no records: the sample is empty, so is the output (its
    schema inferred from no record). A function whose kinds its bytecode shows has its fields without a sample."""
    spark = glue_context.spark_session

    def plus(value: Any) -> Any:
        return value + 1

    def older(record: Any) -> Any:
        record["age"] = plus(record["age"])  # a call the bytecode reader does not follow: the sample decides
        return record

    def read(record: Any) -> Any:
        record["age"] = record["age"] + 1
        return record

    for df in (spark.createDataFrame(spark.sparkContext.emptyRDD(), "id long, age int"),
               spark.range(0, 9, 1, 3).selectExpr("id", "1 as age").where("id > 100")):
        mapped = Map.apply(frame=DynamicFrame.fromDF(df, glue_context, "none"), f=older).toDF()
        assert (mapped.count(), mapped.columns) == (0, [])
        mapped = Map.apply(frame=DynamicFrame.fromDF(df, glue_context, "none"), f=read).toDF()
        assert (mapped.count(), mapped.columns) == (0, ["id", "age"])


def test_an_int_kept_beside_strings_set_keeps_its_value_as_the_choice_s_long(frame: DynamicFrame,
                                                                              sample_of: Any) -> None:
    """A field some records set to strings and others leave as their int: a choice of long and string, whose long
    holds the kept ints (the input's int widened; it used to be null)."""
    def as_text(value: Any) -> str:
        return str(value)

    def sampled(record: Any) -> Any:
        if record["id"] <= 5:
            record["age"] = as_text(record["age"])
        return record

    def read(record: Any) -> Any:
        if record["id"] <= 5:
            record["age"] = str(record["age"])
        return record

    sample_of(100)  # every record sampled: the sample sees both kinds
    for f in (sampled, read):
        mapped = Map.apply(frame=frame, f=f)
        age = mapped.toDF().schema["age"]
        assert age.metadata.get(CHOICE_METADATA) is True and age.dataType.simpleString() == \
            "struct<long:bigint,string:string>", f.__name__
        found = {i: r["age"] for i, r in rows(mapped).items()}
        assert found[3] == {"long": None, "string": "23"} and found[7] == {"long": 27, "string": None}, found


def test_a_function_whose_bytecode_shows_its_kinds_needs_no_sample(glue_context: Any, frame: DynamicFrame,
                                                                   sample_of: Any) -> None:
    """The kinds a function sets are read from its bytecode (record_kinds): no sample job runs, even a branch no
    sampled record would take is typed, and the values are those of the function."""
    sample_of(2)
    context = glue_context.spark_session.sparkContext

    def rare(record: Any) -> Any:
        record["age"] = None if record["age"] is None else round(record["age"] * 1.5)
        if record["id"] == 8:
            record["flag"] = record["id"] > 7
        return record

    context.setJobGroup("map-read", "Map.apply of a readable function")
    try:
        mapped = Map.apply(frame=frame, f=rare)
        assert context.statusTracker().getJobIdsForGroup("map-read") == []  # no sample job
    finally:
        context.setLocalProperty("spark.jobGroup.id", None)
    types = {f.name: f.dataType.simpleString() for f in mapped.toDF().schema.fields}
    assert types["age"] == "bigint" and types["flag"] == "boolean"
    found = rows(mapped)
    assert [found[i]["age"] for i in (1, 2, 8)] == [32, 33, 42] and found[8]["flag"] is True
    assert found[7]["flag"] is None

    def two_kinds(record: Any) -> Any:  # an int or a float: the sample tells which the records hold
        record["age"] = record["age"] if record["id"] < 100 else 0.5
        return record

    context.setJobGroup("map-sampled", "Map.apply of a function of two kinds")
    try:
        mapped = Map.apply(frame=frame, f=two_kinds)
        assert context.statusTracker().getJobIdsForGroup("map-sampled") != []  # the sample's job
    finally:
        context.setLocalProperty("spark.jobGroup.id", None)
    assert mapped.toDF().schema["age"].dataType.simpleString() == "bigint"
