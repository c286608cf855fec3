"""Filter and Map sent only the fields their function reads decide exactly as when sent whole records.

A function's reads are found in its bytecode (``glueball.runtime.ops.field_reads``); when they are, the
function gets a dict of those fields, else the lazy record of the whole row. The same function wrapped so
that its reads cannot be known (the record passed on to it) takes the whole-record way: both must keep
the same rows, make the same error records (``error_input`` the whole record either way) and, for Map,
the same result — over every kind of field (nested structs, arrays, maps, timestamps, dates, decimals,
binary, choices, nulls).
"""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal
from typing import Any

import pytest

from glueball.runtime.dynamicframe import DynamicFrame
from glueball.runtime.ops.field_reads import fields_read
from glueball.runtime.transforms.record_transforms import Filter, Map

SCHEMA = ("id long, name string, info struct<age: int, zip: string>, tags array<string>, props map<string, int>, "
          "seen timestamp, day date, score decimal(10,2), raw binary, ratio double, ok boolean")


@pytest.fixture(scope="module")
def frame(glue_context: Any) -> DynamicFrame:
    rows = [(i, f"p{i}" if i % 5 else None, (20 + i, f"z{i % 3}") if i % 4 else None, [f"t{i}"] * (i % 3),
             {"k": i} if i % 2 else None, dt.datetime(2024, 1, 1 + i, 12, 30) if i % 6 else None,
             dt.date(2024, 2, i), Decimal(f"{i}.25"), bytes([i, 255]), i / 3, i % 2 == 0) for i in range(1, 13)]
    plain = DynamicFrame.fromDF(glue_context.spark_session.createDataFrame(rows, SCHEMA).coalesce(1), glue_context,
                                "people")
    # a choice: "code" is a long in some records and a string in others
    other = DynamicFrame.fromDF(glue_context.spark_session.createDataFrame(
        [(100 + i, f"c{i}") for i in range(3)], "id long, code string"), glue_context, "more")
    first = DynamicFrame.fromDF(glue_context.spark_session.createDataFrame(
        [(i, i * 10) for i in range(1, 13)], "id long, code long"), glue_context, "codes")
    codes = first.union(other)
    return plain.join(["id"], ["id"], codes).union(other)


def opaque(function: Any) -> Any:
    """``function`` behind a call that passes the record on: its reads cannot be known, the whole record goes."""
    def whole(record: Any) -> Any:
        return function(record)

    assert fields_read(whole) is None
    return whole


def outcome(result: DynamicFrame) -> tuple[list[Any], list[tuple[str, Any]]]:
    rows = sorted(json.dumps(r.asDict(recursive=True), default=str, sort_keys=True)
                  for r in result.toDF().collect())
    errors = sorted((e.error_message, json.loads(e.error_input)["id"], e.error_input)
                    for e in result.errorsAsDynamicFrame().toDF().collect())
    return rows, errors


def _raises_on_some(r: Any) -> bool:
    if r["id"] % 7 == 0:
        raise RuntimeError(f"no {r['id']}")
    return bool(r["ratio"] > 1)


PREDICATES = [
    lambda r: r["info"] is not None and r["info"]["age"] > 24,
    lambda r: r["seen"] is not None and r["seen"] > dt.datetime(2024, 1, 5),
    lambda r: r["day"].day % 2 == 0,
    lambda r: r["score"] > Decimal("4"),
    lambda r: r["raw"][0] % 3 == 0,
    lambda r: len(r["tags"]) == 1,
    lambda r: r["props"] is not None and r["props"]["k"] > 3,
    lambda r: r["code"] == 30 or r["code"] == "c1",  # a choice: the record holds the member value present
    lambda r: r["name"].startswith("p1"),  # AttributeError on None: an error record
    lambda r: r["nope"] == 1,  # KeyError: dropped
    lambda r: "info" in r and r.get("ok", False),
    lambda r: r["ratio"] > 1 if r["id"] % 2 else r["name"] == "p4",  # a field read on some rows only
    _raises_on_some,
]


@pytest.mark.parametrize("predicate", PREDICATES, ids=[str(i) for i in range(len(PREDICATES))])
def test_filter_decides_alike_sent_its_fields_or_the_whole_record(frame: DynamicFrame, predicate: Any) -> None:
    assert fields_read(predicate) is not None  # the fields only
    narrowed = Filter.apply(frame=frame, f=predicate, transformation_ctx="f")
    whole = Filter.apply(frame=frame, f=opaque(predicate), transformation_ctx="f")
    assert narrowed.toDF().schema == frame.toDF().schema
    assert outcome(narrowed) == outcome(whole)


def test_error_records_carry_the_whole_record(frame: DynamicFrame) -> None:
    kept = Filter.apply(frame=frame, f=_raises_on_some, transformation_ctx="seven")
    (error,) = kept.errorsAsDynamicFrame().toDF().collect()
    assert (error.error_message, error.error_stage, error.error_source) == ("no 7", "Filter", "seven")
    record = json.loads(error.error_input)
    assert record["id"] == 7 and record["info"] == {"age": 27, "zip": "z1"} and record["score"] == 7.25
    assert record["seen"] == "2024-01-08T12:30:00" and record["tags"] == ["t7"]


MAPPINGS = [
    lambda r: {"id": r["id"], "when": r["seen"], "score": r["score"], "raw": r["raw"], "day": r["day"]},
    lambda r: {"id": r["id"], "age": r["info"]["age"] + 1},  # TypeError on a null struct: an error record
    lambda r: {"id": r["id"], "code": r["code"], "k": r.get("props")},
    lambda r: None if r["id"] == 3 else {"id": r["id"]},
]


@pytest.mark.parametrize("function", MAPPINGS, ids=[str(i) for i in range(len(MAPPINGS))])
def test_map_gives_alike_sent_its_fields_or_the_whole_record(frame: DynamicFrame, function: Any) -> None:
    assert fields_read(function) is not None
    narrowed = Map.apply(frame=frame, f=function, transformation_ctx="m")
    whole = Map.apply(frame=frame, f=opaque(function), transformation_ctx="m")
    assert narrowed.toDF().schema == whole.toDF().schema
    assert outcome(narrowed) == outcome(whole)


def test_a_function_reading_no_field(frame: DynamicFrame) -> None:
    assert Filter.apply(frame=frame, f=lambda r: True).count() == frame.count()
    assert Map.apply(frame=frame, f=lambda r: {"one": 1}).toDF().collect()[0]["one"] == 1
