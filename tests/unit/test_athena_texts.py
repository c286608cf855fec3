"""Values the Athena engine prints itself (glueball.athena.texts): doubles as Java 19+ (Trino) prints them, integers,
booleans and strings from Arrow columns, NULL kept."""

from __future__ import annotations

import random
import struct

import pyarrow as pa
import pytest
from pyspark.sql import types as t

from glueball.athena.texts import column_text, double_text, printed_here

JAVA = [  # Double.toString in Java 19 and later (JDK-4511638), as Trino prints a double
    (0.1, "0.1"), (1.0, "1.0"), (100.0, "100.0"), (1234567.125, "1234567.125"), (9999999.0, "9999999.0"),
    (1e7, "1.0E7"), (12345678.9, "1.23456789E7"), (0.001, "0.001"), (9.99e-4, "9.99E-4"), (1e-4, "1.0E-4"),
    (0.1 + 0.2, "0.30000000000000004"), (2e23, "2.0E23"), (1e23, "1.0E23"), (1e21, "1.0E21"),
    (2.82879384806159e17, "2.82879384806159E17"), (1.7976931348623157e308, "1.7976931348623157E308"),
    (2.2250738585072014e-308, "2.2250738585072014E-308"),
    (5e-324, "4.9E-324"), (1e-323, "9.9E-324"), (1.5e-323, "1.5E-323"),  # subnormals: of one digit and two, the nearer
    (-1.5, "-1.5"), (-2e-5, "-2.0E-5"), (0.0, "0.0"), (-0.0, "-0.0"),
    (float("nan"), "NaN"), (float("inf"), "Infinity"), (float("-inf"), "-Infinity")]


@pytest.mark.parametrize(("value", "text"), JAVA)
def test_a_double_prints_as_java_prints_it(value: float, text: str) -> None:
    assert double_text(value) == text


def test_printed_doubles_read_back_as_themselves_with_the_fewest_digits() -> None:
    chooser = random.Random(11)
    for _ in range(20000):
        value = struct.unpack("<d", struct.pack("<Q", chooser.getrandbits(64)))[0]
        if value != value or value in (float("inf"), float("-inf")):
            continue
        text = double_text(value)
        assert float(text) == value, text
        digits = text.lstrip("-").split("E")[0].replace(".", "").strip("0")
        if abs(value) >= 2.2250738585072014e-308:  # (a subnormal may take a nearer two-digit decimal)
            assert len(digits) <= len(repr(abs(value)).split("e")[0].replace(".", "").strip("0")), text


def test_a_column_of_doubles_prints_as_each_value_does_nulls_kept() -> None:
    values = [value for value, _ in JAVA] + [None]
    chunked = pa.chunked_array([pa.array(values[:5], pa.float64()), pa.array(values[5:], pa.float64())])
    assert column_text(chunked, t.DoubleType()).to_pylist() == [text for _, text in JAVA] + [None]


def test_integers_booleans_and_strings_print_from_their_columns() -> None:
    assert column_text(pa.array([1, -2, None], pa.int8()), t.ByteType()).to_pylist() == ["1", "-2", None]
    assert column_text(pa.array([2**62, None], pa.int64()), t.LongType()).to_pylist() == [str(2**62), None]
    assert column_text(pa.array([True, False, None]), t.BooleanType()).to_pylist() == ["true", "false", None]
    assert column_text(pa.array(["a", None, ""]), t.StringType()).to_pylist() == ["a", None, ""]


def test_spark_prints_the_other_types() -> None:
    assert all(printed_here(kind) for kind in (t.StringType(), t.ByteType(), t.ShortType(), t.IntegerType(),
                                                t.LongType(), t.BooleanType(), t.DoubleType()))
    assert not any(printed_here(kind) for kind in (t.FloatType(), t.DecimalType(10, 2), t.DateType(),
                                                    t.TimestampType(), t.BinaryType(), t.ArrayType(t.DoubleType()),
                                                    t.MapType(t.StringType(), t.LongType()), t.StructType([])))
