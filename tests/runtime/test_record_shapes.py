"""The types of Map's returned values, and the Arrow columns built from them (no Spark session needed)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pyarrow as pa
import pytest
from pyspark.sql import types as T

from glueball.runtime.ops.record_shapes import Misfit, column_builder, merged, settled, value_type, widened


def test_value_types_and_the_inputs_types_they_borrow() -> None:
    assert value_type(None) is None
    assert value_type(True) == (T.BooleanType(), False)
    assert value_type(3) == (T.LongType(), False)
    assert value_type(3, T.IntegerType()) == (T.LongType(), False)  # a Python int is a long, as JSON made it
    assert value_type(3, T.DecimalType(10, 2)) == (T.DecimalType(10, 2), False)
    assert value_type(Decimal("1.5")) == (T.DecimalType(38, 18), False)
    assert value_type(dt.datetime(2024, 1, 1), T.TimestampNTZType()) == (T.TimestampNTZType(), False)
    assert value_type(dt.datetime(2024, 1, 1), T.StringType()) == (T.TimestampType(), False)
    assert value_type(dt.date(2024, 1, 1)) == (T.DateType(), False)
    assert value_type(b"x") == (T.BinaryType(), False)
    assert value_type({"k": 1}, T.MapType(T.StringType(), T.IntegerType())) == (
        T.MapType(T.StringType(), T.LongType(), True), False)
    struct, _ = value_type({"b": "x", "a": 1})  # type: ignore[misc]
    assert struct.simpleString() == "struct<a:bigint,b:string>"
    assert value_type([]) == (T.ArrayType(T.NullType(), True), False)
    assert value_type(object())[0] == T.StringType()  # type: ignore[index]


def test_types_seen_in_different_records_merge_into_choices() -> None:
    data_type, choice = merged([value_type(1), value_type("a"), value_type(None)])  # type: ignore[misc]
    assert choice and data_type.fieldNames() == ["long", "string"]
    data_type, choice = merged([value_type({"a": 1}), value_type({"b": [1.5]})])  # type: ignore[misc]
    assert not choice and data_type.simpleString() == "struct<a:bigint,b:array<double>>"
    data_type, choice = merged([value_type([1]), value_type(["x"])])  # type: ignore[misc]
    assert choice and data_type.simpleString() == "array<struct<long:bigint,string:string>>"
    assert settled(T.StructType([T.StructField("n", T.NullType())])).simpleString() == "struct<n:string>"
    assert widened(T.StructType([T.StructField("n", T.IntegerType())])).simpleString() == "struct<n:bigint>"


def build(data_type: T.DataType, values: list[Any], choice: bool = False) -> list[Any]:
    array = column_builder(data_type, choice, "f")(values)
    assert isinstance(array, pa.Array) and len(array) == len(values)
    return array.to_pylist()


def test_values_that_fit_are_built_with_their_types() -> None:
    assert build(T.LongType(), [1, None, -5]) == [1, None, -5]
    assert build(T.DoubleType(), [1.5, 2, None]) == [1.5, 2.0, None]  # an int fits a double
    assert build(T.StringType(), ["a", None]) == ["a", None]
    assert build(T.DecimalType(10, 2), [Decimal("1.25"), 3, None]) == [Decimal("1.25"), Decimal("3.00"), None]
    assert build(T.DateType(), [dt.date(2024, 1, 2)]) == [dt.date(2024, 1, 2)]
    assert build(T.TimestampNTZType(), [dt.datetime(2024, 1, 2, 3)]) == [dt.datetime(2024, 1, 2, 3)]
    local = dt.datetime(2024, 1, 2, 3, 4)
    (stamp,) = build(T.TimestampType(), [local])
    assert stamp == local.astimezone(dt.UTC)  # records hold local time, Spark's column is UTC
    nested = T.StructType([T.StructField("a", T.LongType()), T.StructField("tags", T.ArrayType(T.StringType()))])
    assert build(nested, [{"a": 1, "tags": ["x"]}, {"tags": None}, None]) == [
        {"a": 1, "tags": ["x"]}, {"a": None, "tags": None}, None]
    assert build(T.MapType(T.StringType(), T.LongType()), [{"k": 1}, None, {}]) == [[("k", 1)], None, []]
    choice = T.StructType([T.StructField("long", T.LongType()), T.StructField("string", T.StringType())])
    assert build(choice, [1, "a", None], choice=True) == [{"long": 1, "string": None},
                                                         {"long": None, "string": "a"}, None]
    assert build(T.ArrayType(choice), [[1, "a"], None], choice=True) == [
        [{"long": 1, "string": None}, {"long": None, "string": "a"}], None]


MISFITS = [
    (T.LongType(), "1", "a str in a long column"),
    (T.LongType(), True, "a bool is not a long"),
    (T.LongType(), 2.0, "a float in a long column"),
    (T.LongType(), 1 << 70, "out of a long's range"),
    (T.IntegerType(), 1 << 40, "out of an int's range"),
    (T.DoubleType(), "1.5", "a str in a double column"),
    (T.BooleanType(), 1, "an int is not a bool"),
    (T.DateType(), dt.datetime(2024, 1, 1), "a datetime is not a date"),
    (T.TimestampType(), dt.date(2024, 1, 1), "a date is not a timestamp"),
    (T.DecimalType(4, 2), Decimal("123.45"), "more digits than the decimal holds"),
    (T.StringType(), 5, "an int in a string column"),
    (T.ArrayType(T.LongType()), "ab", "a str is no array"),
    (T.StructType([T.StructField("a", T.LongType())]), {"a": 1, "b": 2}, "a field the struct lacks"),
    (T.StructType([T.StructField("a", T.LongType())]), {"a": "x"}, "a nested value of another kind"),
    (T.MapType(T.StringType(), T.LongType()), {"k": "v"}, "a map value of another kind"),
]


@pytest.mark.parametrize(("data_type", "value", "why"), MISFITS, ids=[m[2] for m in MISFITS])
def test_values_that_do_not_fit_raise_misfit(data_type: T.DataType, value: Any, why: str) -> None:
    with pytest.raises(Misfit, match="field 'f"):
        column_builder(data_type, False, "f")([None, value])


def test_a_choice_refuses_a_kind_it_has_no_member_for() -> None:
    choice = T.StructType([T.StructField("long", T.LongType()), T.StructField("string", T.StringType())])
    with pytest.raises(Misfit, match="a choice of long, string"):
        column_builder(choice, True, "f")([1, 2.5])
