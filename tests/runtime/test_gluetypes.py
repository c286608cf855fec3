"""Glue types (awsglue.gluetypes) and their mapping to Spark types: no JVM needed."""

from __future__ import annotations

import json

import pytest
from pyspark.sql import types as st

from glueball.runtime import gluetypes as gt
from glueball.runtime.errors import GlueRuntimeError
from glueball.runtime.gluetypes import CHOICE_METADATA


def _choice_field(name: str, members: dict[str, st.DataType]) -> st.StructField:
    return st.StructField(name, st.StructType([st.StructField(k, v) for k, v in members.items()]), True,
                          {CHOICE_METADATA: True})


def test_type_names_follow_glue() -> None:
    assert gt.IntegerType().typeName() == "int"
    assert gt.LongType.typeName() == "long"
    assert gt.StringType().typeName() == "string"
    assert gt.ChoiceType().typeName() == "choice"
    assert gt.StructType().typeName() == "struct"
    assert gt.DecimalType(5, 1) == gt.DecimalType(5, 1)
    assert gt.DecimalType(5, 1) != gt.DecimalType(5, 2)
    assert gt.LongType() != gt.IntegerType()


def test_choice_keys_members_by_type_name() -> None:
    choice = gt.ChoiceType([gt.LongType(), gt.StringType()])
    assert set(choice.choices) == {"long", "string"}
    with pytest.raises(ValueError):
        choice.add(gt.LongType())


def test_from_spark_schema_makes_choice_types() -> None:
    schema = st.StructType([
        st.StructField("id", st.LongType()),
        _choice_field("price", {"long": st.LongType(), "string": st.StringType()}),
        st.StructField("a", st.StructType([_choice_field("b", {"double": st.DoubleType(), "long": st.LongType()})])),
        st.StructField("plain", st.StructType([st.StructField("long", st.LongType())])),
    ])
    glue = gt.from_spark_schema(schema)
    assert isinstance(glue.getField("id").dataType, gt.LongType)
    price = glue.getField("price").dataType
    assert isinstance(price, gt.ChoiceType) and set(price.choices) == {"long", "string"}
    inner = glue.getField("a").dataType
    assert isinstance(inner, gt.StructType)
    assert isinstance(inner.getField("b").dataType, gt.ChoiceType)
    assert isinstance(glue.getField("plain").dataType, gt.StructType)


def test_spark_round_trip_keeps_choices_and_element_choices() -> None:
    glue = gt.StructType([
        gt.Field("id", gt.LongType()),
        gt.Field("price", gt.ChoiceType([gt.LongType(), gt.StringType()])),
        gt.Field("tags", gt.ArrayType(gt.ChoiceType([gt.LongType(), gt.StringType()]))),
        gt.Field("m", gt.MapType(gt.DecimalType(10, 2))),
        gt.Field("items", gt.ArrayType(gt.StructType([gt.Field("p", gt.ChoiceType([gt.DoubleType(),
                                                                                   gt.LongType()]))]))),
    ])
    spark_schema = gt.to_spark_schema(glue)
    assert spark_schema["price"].metadata == {CHOICE_METADATA: True}
    assert spark_schema["tags"].metadata.get(gt.ELEMENT_CHOICE_METADATA) is True
    assert gt.from_spark_schema(spark_schema) == glue


def test_json_value_round_trip() -> None:
    glue = gt.StructType([
        gt.Field("a", gt.ArrayType(gt.StructType([gt.Field("b", gt.DecimalType(12, 3))]))),
        gt.Field("c", gt.ChoiceType([gt.IntegerType(), gt.StringType()])),
        gt.Field("d", gt.MapType(gt.BooleanType())),
    ])
    text = json.dumps(glue.jsonValue())
    assert gt.from_json(text) == glue
    assert json.loads(text)["fields"][0]["container"]["dataType"] == "array"


def test_pretty_prints_like_print_schema() -> None:
    glue = gt.StructType([
        gt.Field("id", gt.LongType()),
        gt.Field("price", gt.ChoiceType([gt.StringType(), gt.LongType()])),
        gt.Field("items", gt.ArrayType(gt.StructType([gt.Field("p", gt.DoubleType())]))),
    ])
    assert glue.pretty().splitlines() == [
        "root",
        "|-- id: long",
        "|-- price: choice",
        "|    |-- long",
        "|    |-- string",
        "|-- items: array",
        "|    |-- element: struct",
        "|    |    |-- p: double",
    ]


@pytest.mark.parametrize(("name", "expected"), [
    ("string", st.StringType()), ("int", st.IntegerType()), ("integer", st.IntegerType()),
    ("long", st.LongType()), ("bigint", st.LongType()), ("short", st.ShortType()), ("smallint", st.ShortType()),
    ("byte", st.ByteType()), ("tinyint", st.ByteType()), ("float", st.FloatType()), ("double", st.DoubleType()),
    ("boolean", st.BooleanType()), ("date", st.DateType()), ("timestamp", st.TimestampType()),
    ("binary", st.BinaryType()), ("decimal", st.DecimalType(10, 0)), ("decimal(12,4)", st.DecimalType(12, 4)),
    ("DOUBLE", st.DoubleType()),
])
def test_glue_type_names(name: str, expected: st.DataType) -> None:
    assert gt.spark_type_from_glue_name(name) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("array<struct<a:int,b:string>>",
     st.ArrayType(st.StructType([st.StructField("a", st.IntegerType()), st.StructField("b", st.StringType())]))),
    ("decimal(10,2)", st.DecimalType(10, 2)),
    ("varchar(20)", st.StringType()),
    ("char(3)", st.StringType()),
    ("map<string,array<bigint>>", st.MapType(st.StringType(), st.ArrayType(st.LongType()))),
    ("struct<`a b`:int, c: double>",
     st.StructType([st.StructField("a b", st.IntegerType()), st.StructField("c", st.DoubleType())])),
])
def test_catalog_type_strings(text: str, expected: st.DataType) -> None:
    assert gt.catalog_type_to_spark(text) == expected


@pytest.mark.parametrize("bad", ["strin", "array<int", "struct<a:int", "decimal(x)", "map<string>"])
def test_bad_type_strings_are_rejected(bad: str) -> None:
    with pytest.raises(GlueRuntimeError):
        gt.catalog_type_to_spark(bad)


def test_merge_data_types_makes_choices() -> None:
    merged = gt.mergeDataTypes(
        gt.StructType([gt.Field("a", gt.LongType()), gt.Field("b", gt.NullType())]),
        gt.StructType([gt.Field("a", gt.StringType()), gt.Field("b", gt.DoubleType()), gt.Field("c", gt.LongType())]))
    assert isinstance(merged, gt.StructType)
    a = merged.getField("a").dataType
    assert isinstance(a, gt.ChoiceType) and set(a.choices) == {"long", "string"}
    assert merged.getField("b").dataType == gt.DoubleType()
    assert merged.hasField("c")
