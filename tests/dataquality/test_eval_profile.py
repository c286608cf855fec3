"""Profiling (one aggregation, plus one for small value sets) and rule recommendations that hold on the data."""

from __future__ import annotations

from typing import Any

import pytest

from glueball.dataquality import parse
from glueball.dataquality.evaluator import evaluate
from glueball.dataquality.profile import profile, recommend

pytestmark = pytest.mark.spark


def test_profile_of_people(people: Any) -> None:
    found = profile(people)
    assert found["RowCount"] == 6
    assert found["Passes"] == 2
    columns = found["Columns"]
    assert columns["id"] == {"Type": "bigint", "Completeness": 1.0, "DistinctCount": 6, "DistinctRatio": 1.0,
                             "Unique": True, "Minimum": 1.0, "Maximum": 6.0, "Mean": 3.5,
                             "StandardDeviation": pytest.approx(1.707825127659933), "Values": [1, 2, 3, 4, 5, 6]}
    city = columns["city"]
    assert city["Completeness"] == pytest.approx(5 / 6)
    assert (city["DistinctCount"], city["DistinctRatio"], city["Unique"]) == (3, 0.6, False)
    assert city["Values"] == ["oslo", "paris", "rome"]
    assert (city["MinimumLength"], city["MaximumLength"]) == (4, 5)
    assert columns["joined"].get("ReadsAs") is None  # one value is not a date
    assert columns["age"]["Mean"] == pytest.approx(36.6)


def test_profile_of_many_distinct_values_is_one_pass(spark: Any) -> None:
    frame = spark.range(0, 100).selectExpr("id", "cast(id * 2 as string) as doubled", "cast(id % 2 = 0 as string) b")
    found = profile(frame, max_values=5)
    assert found["Passes"] == 2  # b has two values
    assert found["Columns"]["doubled"]["ReadsAs"] == "integer"
    assert "Values" not in found["Columns"]["doubled"]
    assert found["Columns"]["b"]["Values"] == ["false", "true"]
    assert found["Columns"]["b"]["ReadsAs"] == "boolean"
    assert profile(frame.select("id"), max_values=5)["Passes"] == 1


def test_recommendations_parse_and_hold_on_the_data(people: Any, spark: Any) -> None:
    rules = recommend(profile(people))
    assert rules[0] == "RowCount between 3 and 9"
    assert 'IsUnique "id"' in rules and 'IsComplete "id"' in rules
    assert 'Completeness "age" >= 0.83' in rules
    assert 'ColumnValues "city" in ["oslo", "paris", "rome", NULL]' in rules
    assert 'ColumnValues "age" between 24 and 53 with threshold >= 0.83' in rules
    assert 'ColumnLength "name" <= 5' in rules
    assert 'ColumnLength "email" between 8 and 13 where "`email` is not null"' in rules  # no threshold
    assert any(r.startswith('StandardDeviation "age" between ') for r in rules)
    text = "Rules = [\n    " + ",\n    ".join(rules) + "\n]\n"
    parse(text)
    evaluation = evaluate(people, text)
    assert all(r.outcome == "Passed" for r in evaluation.rules), [r for r in evaluation.rules if not r.passed]
    typed = spark.createDataFrame([("1", "2024-01-01"), ("20", "2024-02-01"), ("300", None)], "n string, d string")
    typed_rules = recommend(profile(typed))
    assert 'ColumnDataType "n" = "INTEGER"' in typed_rules and 'ColumnDataType "d" = "DATE"' in typed_rules
    assert all(r.passed for r in evaluate(typed, "Rules = [" + ", ".join(typed_rules) + "]").rules)
    assert recommend(profile(spark.createDataFrame([], "x int"))) == []
