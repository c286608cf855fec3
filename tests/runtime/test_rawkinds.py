"""The JVM scanner of raw kinds (glueball.runtime.io.rawkinds): the same kinds as the Spark SQL definitions, the
JSON lines' keys, kinds and flags, and the readers' fallbacks when a session has no scanner."""

from __future__ import annotations

import random
import uuid
from pathlib import Path
from typing import Any

import pytest

from glueball.objects.locations import local_path
from glueball.runtime.io import rawkinds
from tests.runtime.test_lazy_typing import TRICKY

# characters every number form is made of, and some that are not
ALPHABET = "0123456789+-.eE \t\n\x0b\f\r\x01\x1cxd_"


def _values(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 7))) for _ in range(count)]


def test_csv_kinds_of_each_value_equal_the_spark_sql_definition(spark: Any) -> None:
    from glueball.runtime.io.csvtypes import value_kind

    values = [v for v in TRICKY if v is not None] + ["-9223372036854775808", "-9223372036854775809", "٣", "1E-5 ",
                                                      ".e5", "+-1", "1.5.5", "\x1c5", "5\x1f", "１"] + _values(3000, 7)
    df = spark.createDataFrame([(i, v) for i, v in enumerate(values)], "i int, v string")
    by_sql = [r["k"] for r in df.orderBy("i").select(value_kind("v").alias("k")).collect()]
    scanner = rawkinds.scanner(df)
    assert scanner is not None, rawkinds.unavailable_reason()
    by_scanner = [int(scanner.csvKind(v)) for v in values]
    differ = [(v, s, j) for v, s, j in zip(values, by_sql, by_scanner, strict=True) if s != j]
    assert not differ
    assert {rawkinds.CSV_LONG, rawkinds.CSV_DOUBLE, rawkinds.CSV_STRING} <= set(by_scanner)  # every kind was met


def test_csv_column_kinds_are_ored_per_column_and_nulls_have_none(spark: Any) -> None:
    from glueball.runtime.io.csvtypes import column_kinds, sql_column_kinds

    rows = [("1", "2.5", "x", None, "7"), ("2", "3", " 4 ", None, "8"), (None, "1e3", "5", None, "9.0")]
    df = spark.createDataFrame(rows, "a string, b string, c string, d string, e string").repartition(3)
    assert rawkinds.csv_kinds(df) == [1, 3, 5, 0, 3]
    assert rawkinds.csv_kinds(df) == list(sql_column_kinds(df, df.columns).values())
    kinds = column_kinds(df, ["c", "a"])
    assert (kinds["c"].has_long, kinds["c"].has_double, kinds["c"].has_string) == (True, False, True)
    assert (kinds["a"].has_long, kinds["a"].has_double, kinds["a"].has_string) == (True, False, False)


def _lines(spark: Any, lines: list[str]) -> Any:
    return spark.createDataFrame([(line,) for line in lines], "value string").repartition(2)


def test_json_kinds_of_top_level_keys_in_one_scan(spark: Any) -> None:
    lines = ['{"id": 1, "price": 2.5, "name": "a", "ok": true, "tags": ["x"], "meta": {"k": [1, {"z": 2}]}}',
             '{"id": 9223372036854775807, "price": 3, "name": null, "ok": false, "meta": null}',
             '', '   ',
             '{"id": 9223372036854775808, "wide": 12345678901234567890.5, "nz": -0.0, "pz": 0.0, "ne": -0e0}',
             '{"Id": "7", "nested": {"id": "not top level"}}']
    found = rawkinds.json_kinds(_lines(spark, lines))
    assert found is not None and found.flags == 0
    assert found.keys == {
        "id": rawkinds.LONG | rawkinds.WIDE, "price": rawkinds.DOUBLE | rawkinds.LONG,
        "name": rawkinds.STRING | rawkinds.NULL, "ok": rawkinds.BOOLEAN, "tags": rawkinds.ARRAY,
        "meta": rawkinds.OBJECT | rawkinds.NULL, "wide": rawkinds.WIDE, "nz": rawkinds.WIDE, "pz": rawkinds.DOUBLE,
        "ne": rawkinds.DOUBLE, "Id": rawkinds.STRING, "nested": rawkinds.OBJECT}


@pytest.mark.parametrize(("line", "flag"), [
    ('[{"a": 1}]', rawkinds.ARRAY_LINE), ('  [1, 2]', rawkinds.ARRAY_LINE), ('"text"', rawkinds.SCALAR_LINE),
    ("42", rawkinds.SCALAR_LINE), ('{"a": 1,', rawkinds.MALFORMED_LINE), ("{'a': 1}", rawkinds.MALFORMED_LINE),
    ('{"a": NaN}', rawkinds.MALFORMED_LINE), ('{"a": 01}', rawkinds.MALFORMED_LINE),
    ('{"a": 1, "a": 2}', rawkinds.DUPLICATE_KEY),
    # past the first 32 keys of a record the names go to a hash set
    ("{" + ", ".join(f'"k{i}": {i}' for i in range(40)) + ', "k35": 0}', rawkinds.DUPLICATE_KEY),
])
def test_json_line_flags(spark: Any, line: str, flag: int) -> None:
    found = rawkinds.json_kinds(_lines(spark, ['{"a": 1}', line]))
    assert found is not None and found.flags == flag
    assert found.has(flag) and not found.has(~flag & 15)


def test_json_keys_of_many_distinct_names_have_no_duplicate_flag(spark: Any) -> None:
    line = "{" + ", ".join(f'"k{i}": "{i}"' for i in range(100)) + "}"
    found = rawkinds.json_kinds(_lines(spark, [line]))
    assert found is not None and found.flags == 0 and len(found.keys) == 100
    assert set(found.keys.values()) == {rawkinds.STRING}


# -- without the scanner ------------------------------------------------------------------------------------------


@pytest.fixture
def no_scanner(monkeypatch: pytest.MonkeyPatch) -> None:
    """A session whose JVM has no scanner (as one made without glueball's jars)."""
    monkeypatch.setattr(rawkinds, "scanner", lambda _df: None)


@pytest.fixture
def prefix(glue_home: Path) -> str:
    return f"s3://raw-kinds/{uuid.uuid4().hex[:10]}"


def test_without_the_scanner_csv_kinds_come_from_spark_sql(spark: Any, no_scanner: None) -> None:
    from glueball.runtime.io.csvtypes import column_kinds

    df = spark.createDataFrame([("1", "2.5", "x"), ("2", "3", "4")], "a string, b string, c string")
    assert rawkinds.csv_kinds(df) is None
    kinds = column_kinds(df, ["a", "b", "c"])
    assert [(k.has_long, k.has_double, k.has_string) for k in kinds.values()] == [
        (True, False, False), (True, True, False), (True, False, True)]


def test_without_the_scanner_a_json_mapping_reads_the_parsed_records(glue_context: Any, prefix: str,
                                                                     no_scanner: None) -> None:
    path = local_path(f"{prefix}/data.json")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"id": 1, "v": "2.5"}\n{"id": "2", "v": 3}\nnot json\n')
    frame = glue_context.create_dynamic_frame.from_options("s3", {"paths": [prefix]}, format="json")
    assert frame.pending_typing is not None and frame.pending_typing.fields is not None
    assert frame.pending_typing.fields.kinds() is None
    mapped = frame.apply_mapping([("id", "string", "id", "long"), ("v", "string", "v", "double")])
    assert sorted((r["id"], r["v"]) for r in mapped.toDF().collect()) == [(1, 2.5), (2, 3.0)]
    assert mapped.errorsCount() == 1
