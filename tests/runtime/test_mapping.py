"""Field transforms: ApplyMapping, RenameField, DropFields, SelectFields, SplitFields, SplitRows,
UnnestFrame, Relationalize, DropNullFields, FillMissingValues — on nested data."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

from glueball.runtime.dynamicframe import CHOICE_METADATA, DynamicFrame
from glueball.runtime.errors import GlueRuntimeError
from glueball.runtime.ops.paths import Segment, format_path, parse_path, resolve_path
from glueball.runtime.transforms.mapping import (
    ApplyMapping,
    DropFields,
    DropNullFields,
    FillMissingValues,
    Relationalize,
    RenameField,
    SelectFields,
    SplitFields,
    SplitRows,
    UnnestFrame,
)

PEOPLE = [
    {"Id": "1", "Name": "Ann", "age": 34, "joined": "2024-05-01T10:00:00Z", "day": "2024-05-01",
     "address": {"city": "Paris", "zip": "75001"},
     "items": [{"sku": "a", "price": "1.5"}, {"sku": "b", "price": "oops"}], "tags": ["x", "y"]},
    {"Id": "2", "Name": "Bob", "age": 15, "joined": "2023-12-31 23:59:59", "day": "bad",
     "address": {"city": "Lyon", "zip": None},
     "items": [], "tags": None},
    {"Id": "x", "Name": "Cid", "age": None, "joined": "not a date", "day": None,
     "address": None, "items": None, "tags": ["z"]},
]


def frame_of(glue_context: Any, rows: list[dict[str, Any]], name: str = "x") -> DynamicFrame:
    spark = glue_context.spark_session
    df = spark.read.json(spark.sparkContext.parallelize([json.dumps(r) for r in rows], 1))
    return DynamicFrame.fromDF(df, glue_context, name)


@pytest.fixture(scope="module")
def people(glue_context: Any) -> DynamicFrame:
    return frame_of(glue_context, PEOPLE, "people")


def rows_by(frame: DynamicFrame, key: str) -> dict[Any, dict[str, Any]]:
    return {r[key]: r.asDict(recursive=True) for r in frame.toDF().collect()}


def plan_of(frame: DynamicFrame) -> str:
    return frame.toDF()._jdf.queryExecution().executedPlan().toString()  # type: ignore[no-any-return]


# -- paths -----------------------------------------------------------------------------------------

def test_parse_paths_with_arrays_and_backquotes() -> None:
    assert parse_path("a.b") == (Segment("a"), Segment("b"))
    assert parse_path("items[].price") == (Segment("items", True), Segment("price"))
    assert parse_path("`this.old.name`") == (Segment("this.old.name"),)
    assert parse_path("`a.b`.c") == (Segment("a.b"), Segment("c"))
    assert format_path(parse_path("`a.b`.items[].c")) == "`a.b`.items[].c"
    for bad in ("", "a.", "a..b", "`open"):
        with pytest.raises(GlueRuntimeError):
            parse_path(bad)


def test_resolve_walks_arrays_implicitly_and_ignores_case(people: DynamicFrame) -> None:
    schema = people.toDF().schema
    explicit = resolve_path(schema, "ITEMS[].Price")
    implicit = resolve_path(schema, "items.price")
    assert explicit is not None and implicit is not None
    assert explicit.steps == implicit.steps == ("items", "[]", "price")
    assert resolve_path(schema, "ITEMS.price", case_sensitive=True) is None
    assert resolve_path(schema, "address.nope") is None


# -- ApplyMapping -----------------------------------------------------------------------------------

def test_apply_mapping_four_tuples_cast_and_drop_unmapped(people: DynamicFrame) -> None:
    out = ApplyMapping.apply(frame=people, mappings=[
        ("id", "string", "id", "long"),
        ("name", "string", "name", "string"),
        ("joined", "string", "joined", "timestamp"),
        ("day", "string", "day", "date"),
        ("age", "long", "age", "string"),
        ("address.zip", "string", "zip", "int"),
    ])
    df = out.toDF()
    assert df.columns == ["id", "name", "joined", "day", "age", "zip"]
    types = dict(df.dtypes)
    assert types == {"id": "bigint", "name": "string", "joined": "timestamp", "day": "date", "age": "string",
                     "zip": "int"}
    rows = {r["name"]: r for r in df.collect()}
    assert rows["Ann"]["id"] == 1 and rows["Cid"]["id"] is None  # "x" does not parse: null, not an error
    assert rows["Ann"]["joined"] == dt.datetime(2024, 5, 1, 10, 0, 0)
    assert rows["Bob"]["joined"] == dt.datetime(2023, 12, 31, 23, 59, 59)
    assert rows["Cid"]["joined"] is None
    assert rows["Ann"]["day"] == dt.date(2024, 5, 1) and rows["Bob"]["day"] is None
    assert rows["Ann"]["age"] == "34" and rows["Cid"]["age"] is None
    assert rows["Ann"]["zip"] == 75001 and rows["Bob"]["zip"] is None and rows["Cid"]["zip"] is None
    assert out.errorsCount() == 0


def test_apply_mapping_two_and_three_tuples(people: DynamicFrame) -> None:
    out = people.apply_mapping([("Name", "who"), ("age", "years", "double")])
    assert out.toDF().dtypes == [("who", "string"), ("years", "double")]
    assert rows_by(out, "who")["Ann"]["years"] == 34.0
    with pytest.raises(GlueRuntimeError):
        people.apply_mapping([("a", "b", "c", "d", "e")])  # type: ignore[list-item]


def test_apply_mapping_case_sensitivity(people: DynamicFrame) -> None:
    insensitive = people.apply_mapping([("NAME", "string", "n", "string")])
    assert sorted(r["n"] for r in insensitive.toDF().collect()) == ["Ann", "Bob", "Cid"]
    sensitive = people.apply_mapping([("NAME", "string", "n", "string")], case_sensitive=True)
    assert [r["n"] for r in sensitive.toDF().collect()] == [None, None, None]


def test_apply_mapping_missing_source_gives_typed_null(people: DynamicFrame) -> None:
    out = people.apply_mapping([("name", "string", "name", "string"), ("nope", "string", "extra", "int")])
    assert dict(out.toDF().dtypes)["extra"] == "int"
    assert {r["extra"] for r in out.toDF().collect()} == {None}


def test_apply_mapping_nested_sources_and_targets(people: DynamicFrame) -> None:
    out = people.apply_mapping([
        ("name", "string", "customer.name", "string"),
        ("address.city", "string", "customer.address.town", "string"),
        ("items[].price", "string", "lines[].price", "double"),
        ("items.sku", "string", "lines[].code", "string"),
        ("tags", "array", "labels", "array"),
    ])
    schema = out.toDF().schema
    assert schema.simpleString() == ("struct<customer:struct<name:string,address:struct<town:string>>,"
                                     "lines:array<struct<price:double,code:string>>,labels:array<string>>")
    rows = {r["customer"]["name"]: r for r in out.toDF().collect()}
    assert rows["Ann"]["customer"]["address"]["town"] == "Paris"
    assert [(line["price"], line["code"]) for line in rows["Ann"]["lines"]] == [(1.5, "a"), (None, "b")]
    assert rows["Bob"]["lines"] == [] and rows["Cid"]["lines"] is None
    assert rows["Ann"]["labels"] == ["x", "y"]


def test_apply_mapping_backquoted_dotted_name(glue_context: Any) -> None:
    df = glue_context.spark_session.createDataFrame([("v1", 2)], "`this.old.name` string, n int")
    frame = DynamicFrame.fromDF(df, glue_context, "dots")
    out = frame.apply_mapping([("`this.old.name`", "string", "thisNewName", "string"), ("n", "int", "n", "int")])
    assert out.toDF().collect()[0].asDict() == {"thisNewName": "v1", "n": 2}


def test_apply_mapping_casts_choice_columns(glue_context: Any) -> None:
    from pyspark.sql.types import LongType, StringType, StructField, StructType

    choice = StructType([StructField("long", LongType()), StructField("string", StringType())])
    schema = StructType([StructField("k", StringType()),
                         StructField("price", choice, metadata={CHOICE_METADATA: True})])
    df = glue_context.spark_session.createDataFrame([("a", (5, None)), ("b", (None, "7.5")), ("c", (None, "?"))],
                                                    schema)
    frame = DynamicFrame.fromDF(df, glue_context, "choice")
    out = frame.apply_mapping([("k", "string", "k", "string"), ("price", "choice", "price", "double")])
    assert dict(out.toDF().dtypes)["price"] == "double"
    assert {k: v["price"] for k, v in rows_by(out, "k").items()} == {"a": 5.0, "b": 7.5, "c": None}
    kept = frame.apply_mapping([("price", "p")])  # no target type: the choice stays a choice
    assert kept.toDF().schema["p"].dataType == choice


def test_apply_mapping_is_one_projection_without_python(people: DynamicFrame) -> None:
    out = people.apply_mapping([("items[].price", "string", "items[].price", "double"),
                                ("items.sku", "string", "skus", "string"),
                                ("joined", "string", "when", "timestamp")])
    plan = plan_of(out)
    assert "BatchEvalPython" not in plan and "ArrowEvalPython" not in plan
    assert plan.count("Project [") == 1
    # an output named like an input (items) must not leak into the next expression
    row = [r for r in out.toDF().collect() if r["skus"] and "a" in r["skus"]][0]
    assert row["skus"] == ["a", "b"] and [i["price"] for i in row["items"]] == [1.5, None]


# -- RenameField, DropFields, SelectFields, SplitFields ---------------------------------------------

def test_rename_field_top_level_and_nested(people: DynamicFrame) -> None:
    renamed = RenameField.apply(people, "address.zip", "address.postcode")
    address_type = renamed.toDF().schema["address"].dataType
    assert address_type.fieldNames() == ["city", "postcode"]
    assert rows_by(renamed, "Name")["Ann"]["address"] == {"city": "Paris", "postcode": "75001"}
    assert rows_by(renamed, "Name")["Cid"]["address"] is None  # a null struct stays null
    top = people.rename_field("Name", "full_name")
    assert "full_name" in top.toDF().columns and "Name" not in top.toDF().columns
    moved = people.rename_field("address.city", "city")
    assert moved.toDF().schema["address"].dataType.fieldNames() == ["zip"]
    assert rows_by(moved, "Name")["Bob"]["city"] == "Lyon"
    in_array = people.rename_field("items[].price", "items[].cost")
    assert rows_by(in_array, "Name")["Ann"]["items"][0] == {"sku": "a", "cost": "1.5"}


def test_drop_and_select_nested_fields(people: DynamicFrame) -> None:
    dropped = DropFields.apply(people, ["address.zip", "items[].price", "tags", "not_there"])
    schema = dropped.toDF().schema
    assert "tags" not in schema.fieldNames()
    assert schema["address"].dataType.fieldNames() == ["city"]
    assert schema["items"].dataType.elementType.fieldNames() == ["sku"]
    assert rows_by(dropped, "Name")["Ann"]["items"] == [{"sku": "a"}, {"sku": "b"}]
    whole_struct = people.drop_fields(["address.city", "address.zip"])
    assert "address" not in whole_struct.toDF().columns

    selected = SelectFields.apply(people, ["Name", "address.city", "items.price"])
    assert selected.toDF().schema.simpleString() == (
        "struct<Name:string,address:struct<city:string>,items:array<struct<price:string>>>")
    assert rows_by(selected, "Name")["Bob"]["address"] == {"city": "Lyon"}


def test_split_fields_collection(people: DynamicFrame) -> None:
    collection = SplitFields.apply(people, ["Name", "address.city"], "left", "right")
    assert sorted(collection.keys()) == ["left", "right"]
    left, right = collection["left"].toDF(), collection["right"].toDF()
    assert left.columns == ["Name", "address"]
    assert left.schema["address"].dataType.fieldNames() == ["city"]
    assert "Name" not in right.columns and right.schema["address"].dataType.fieldNames() == ["zip"]
    assert left.count() == right.count() == 3
    default_names = SplitFields.apply(people, ["Name"])
    assert sorted(default_names.keys()) == ["people1", "people2"]


def test_split_rows_collection(people: DynamicFrame) -> None:
    collection = SplitRows.apply(people, {"age": {">": 10, "<": 20}}, "teens", "others")
    assert [r["Name"] for r in collection["teens"].toDF().collect()] == ["Bob"]
    assert sorted(r["Name"] for r in collection["others"].toDF().collect()) == ["Ann", "Cid"]  # null age: others
    nested = people.split_rows({"address.city": {"=": "Paris"}, "age": {">=": 34}}, "a", "b")
    assert [r["Name"] for r in nested["a"].toDF().collect()] == ["Ann"]
    assert nested["b"].count() == 2
    with pytest.raises(GlueRuntimeError):
        people.split_rows({"age": {"~": 1}}, "a", "b")


# -- Unnest and Relationalize -------------------------------------------------------------------------

def test_unnest_flattens_structs_keeps_arrays(glue_context: Any) -> None:
    frame = frame_of(glue_context, [{"id": 1, "a": {"b": {"c": 1, "d": "x"}, "e": 2.5}, "arr": [1, 2]}])
    out = UnnestFrame.apply(frame)
    assert out.toDF().columns == ["a.b.c", "a.b.d", "a.e", "arr", "id"]
    assert out.toDF().collect()[0].asDict() == {"a.b.c": 1, "a.b.d": "x", "a.e": 2.5, "arr": [1, 2], "id": 1}


LEGISLATORS = [
    {"id": "p1", "name": {"given": "Mike", "family": "Ross"},
     "contact_details": [{"type": "fax", "value": "202-1"}, {"type": "phone", "value": "202-2"}],
     "links": ["http://a", "http://b", "http://c"],
     "roles": [{"title": "rep", "terms": [{"start": "2001"}, {"start": "2003"}]}]},
    {"id": "p2", "name": {"given": "Shelley", "family": "Capito"},
     "contact_details": [{"type": "twitter", "value": "SenCapito"}],
     "links": [], "roles": []},
    {"id": "p3", "name": {"given": "Nobody", "family": None}, "contact_details": None, "links": None,
     "roles": None},
]


def test_relationalize_doc_like_example(glue_context: Any, tmp_path: Path) -> None:
    frame = frame_of(glue_context, LEGISLATORS, "persons")
    dfc = frame.relationalize("hist_root", str(tmp_path / "temp-dir"))
    assert sorted(dfc.keys()) == ["hist_root", "hist_root_contact_details", "hist_root_links", "hist_root_roles",
                                  "hist_root_roles.val.terms"]
    root = dfc.select("hist_root").toDF()
    assert dict(root.dtypes) == {"contact_details": "bigint", "id": "string", "links": "bigint",
                                 "name.family": "string", "name.given": "string", "roles": "bigint"}
    contacts = dfc.select("hist_root_contact_details").toDF()
    assert contacts.columns == ["id", "index", "contact_details.val.type", "contact_details.val.value"]
    assert dict(contacts.dtypes)["id"] == "bigint" and dict(contacts.dtypes)["index"] == "int"
    links = dfc["hist_root_links"].toDF()
    assert links.columns == ["id", "index", "links.val"]

    # join the children back to the root by the generated keys
    joined = (root.join(contacts, root["contact_details"] == contacts["id"])
              .select(root["id"].alias("person"), "index", "`contact_details.val.type`").collect())
    by_person: dict[str, list[tuple[int, str]]] = {}
    for r in joined:
        by_person.setdefault(r["person"], []).append((r["index"], r["contact_details.val.type"]))
    assert {k: sorted(v) for k, v in by_person.items()} == {"p1": [(0, "fax"), (1, "phone")], "p2": [(0, "twitter")]}
    link_rows = root.join(links, root["links"] == links["id"]).select(root["id"], "`links.val`").collect()
    assert sorted((r[0], r[1]) for r in link_rows) == [("p1", "http://a"), ("p1", "http://b"), ("p1", "http://c")]
    nulls = {r["id"]: (r["contact_details"], r["links"]) for r in root.collect()}
    assert nulls["p3"] == (None, None) and nulls["p2"][1] is not None  # an empty array still gets a key

    # nested arrays: roles -> roles.val.terms
    roles = dfc["hist_root_roles"].toDF()
    terms = dfc["hist_root_roles.val.terms"].toDF()
    assert roles.columns == ["id", "index", "roles.val.terms", "roles.val.title"]
    assert terms.columns == ["id", "index", "roles.val.terms.val.start"]
    starts = (root.join(roles, root["roles"] == roles["id"])
              .join(terms, roles["`roles.val.terms`"] == terms["id"])
              .select(root["id"], terms["`roles.val.terms.val.start`"]).collect())
    assert sorted((r[0], r[1]) for r in starts) == [("p1", "2001"), ("p1", "2003")]
    assert any((tmp_path / "temp-dir").iterdir())  # the staged levels live under staging_path


def test_relationalize_transform_class_and_staging_validation(glue_context: Any, glue_home: Path) -> None:
    frame = frame_of(glue_context, [{"a": {"b": 1}}])
    flat = Relationalize.apply(frame=frame, staging_path="s3://bucket/tmp/", name="root")
    assert list(flat.keys()) == ["root"] and flat["root"].toDF().columns == ["a.b"]
    with_arrays = frame_of(glue_context, [{"k": 1, "xs": [1, 2]}])
    out = Relationalize.apply(frame=with_arrays, staging_path="s3://bucket/tmp/", name="root")
    assert sorted(out.keys()) == ["root", "root_xs"]
    assert (glue_home / "s3" / "bucket" / "tmp").is_dir()
    with pytest.raises(GlueRuntimeError):
        with_arrays.relationalize("root", "")


# -- DropNullFields and FillMissingValues ---------------------------------------------------------------

def test_drop_null_fields(glue_context: Any) -> None:
    from pyspark.sql import functions as F
    from pyspark.sql.types import NullType

    rows = [{"k": "1", "empty": None, "blank": "", "s": {"x": 1, "never": None},
             "arr": [{"v": 1, "gone": None}]},
            {"k": "2", "empty": None, "blank": "", "s": {"x": None, "never": None}, "arr": None}]
    spark = glue_context.spark_session
    schema = ("k string, empty string, blank string, s struct<x:int,never:string>, "
              "arr array<struct<v:int,gone:string>>")
    df = spark.read.schema(schema).json(spark.sparkContext.parallelize([json.dumps(r) for r in rows], 1))
    df = df.withColumn("void", F.lit(None).cast(NullType()))
    out = DropNullFields.apply(DynamicFrame.fromDF(df, glue_context, "nulls"))
    assert out.toDF().schema.simpleString() == (
        "struct<k:string,blank:string,s:struct<x:int>,arr:array<struct<v:int,gone:string>>>")
    assert rows_by(out, "k")["1"]["s"] == {"x": 1}


def test_fill_missing_values(glue_context: Any) -> None:
    spark = glue_context.spark_session
    df = spark.createDataFrame([("a", 10, "red"), ("b", None, ""), ("c", 20, "red"), ("d", 40, None),
                                ("e", None, "blue")], "k string, n int, color string")
    frame = DynamicFrame.fromDF(df, glue_context, "fill")
    numbers = FillMissingValues.apply(frame, missing_values_column="n")
    rows = rows_by(numbers, "k")
    assert dict(numbers.toDF().dtypes)["n_filled"] == "int"
    assert rows["b"]["n_filled"] == rows["e"]["n_filled"] == round((10 + 20 + 40) / 3)
    assert rows["a"]["n_filled"] == 10 and rows["b"]["n"] is None
    colors = FillMissingValues.apply(frame, "color", output_column="color_guess")
    guessed = rows_by(colors, "k")
    assert guessed["b"]["color_guess"] == guessed["d"]["color_guess"] == "red"
    assert guessed["e"]["color_guess"] == "blue"
    plan = plan_of(colors)
    assert "BatchEvalPython" not in plan and "ArrowEvalPython" not in plan
    with pytest.raises(GlueRuntimeError):
        FillMissingValues.apply(frame, "nope")


def test_describe_and_names() -> None:
    for cls in (ApplyMapping, RenameField, DropFields, SelectFields, SplitFields, SplitRows, UnnestFrame,
                Relationalize, DropNullFields, FillMissingValues):
        described = cls.describe()["transform"]
        assert described["name"] == cls.__name__
        assert described["args"][0]["name"] == "frame"
        assert described["description"]
