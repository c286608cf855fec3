"""The five defects of issue 19, each reproduced (these tests fail on the code before the fix).

1. ``of`` read as a column name; 2. DataFreshness ``in``/``not in`` losing every result; 3. nested
struct fields failing whole passes; 4. tags accepted and ignored; 5. an erring rule's rows Passed.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from glueball.dataquality.evaluator import evaluate
from glueball.dataquality.outcomes import RuleOutcome
from glueball.dataquality.parser import parse

NOW = dt.datetime(2024, 7, 1, 12, 0, tzinfo=dt.UTC)


def run(frame: Any, *rules: str, **options: Any) -> list[RuleOutcome]:
    evaluation = evaluate(frame, "Rules = [\n" + ",\n".join(rules) + "\n]", now=NOW, **options)
    assert len(evaluation.rules) == len(rules)
    return evaluation.rules


def outcomes(results: list[RuleOutcome]) -> list[str]:
    return [r.outcome for r in results]


# ---------------------------------------------------------------- 1. the `of` connector


@pytest.mark.parametrize(
    ("text", "rule_type", "parameters"),
    [
        ("Uniqueness of col_A > 0.5", "Uniqueness", ("col_A",)),
        ('IsUnique of "a"', "IsUnique", ("a",)),
        ('IsPrimaryKey of "a"', "IsPrimaryKey", ("a",)),
        ('IsPrimaryKey of "a" and "b"', "IsPrimaryKey", ("a", "b")),
        ('ColumnCorrelation of "a" and "b" > 0.5', "ColumnCorrelation", ("a", "b")),
    ],
)
def test_of_is_a_connector_not_a_column(text: str, rule_type: str, parameters: tuple[str, ...]) -> None:
    rule = parse(f"Rules = [ {text} ]").rules[0]
    assert rule.rule_type == rule_type  # type: ignore[union-attr]
    assert rule.parameters == parameters  # type: ignore[union-attr]
    assert rule.to_dqdl() == text


@pytest.mark.spark
def test_of_connector_rules_measure_the_named_column(spark: Any) -> None:
    frame = spark.createDataFrame([(1, "x"), (2, "x"), (3, "y")], "a long, b string")
    results = run(frame, 'IsUnique of "a"', "Uniqueness of b > 0.5", 'IsPrimaryKey of "a"')
    assert outcomes(results) == ["Passed", "Failed", "Passed"]
    assert results[1].evaluated_metrics["Column.b.Uniqueness"] == pytest.approx(1 / 3)


# ---------------------------------------------------------------- 2. DataFreshness in / not in


@pytest.mark.spark
def test_data_freshness_in_and_not_in_evaluate_and_keep_the_other_results(spark: Any) -> None:
    # ages at NOW: 3 days 2 hours, 1 day, 3 days exactly
    frame = spark.createDataFrame([("2024-06-28 10:00:00",), ("2024-06-30 12:00:00",), ("2024-06-28 12:00:00",)],
                                  "d string")
    results = run(frame, "RowCount = 3", 'DataFreshness "d" in [3 days, 1 days]', 'DataFreshness "d" in [3 days]',
                  'DataFreshness "d" not in [2 days]', 'DataFreshness "d" = 1 days')
    assert outcomes(results) == ["Passed", "Passed", "Failed", "Passed", "Failed"]
    assert results[2].evaluated_metrics["Column.d.DataFreshness.Compliance"] == pytest.approx(2 / 3)


# ---------------------------------------------------------------- 3. nested fields


@pytest.mark.spark
def test_nested_fields_work_in_every_row_level_rule_type_and_never_spoil_the_pass(spark: Any) -> None:
    frame = spark.createDataFrame([(1, (1, "a")), (2, (2, "b")), (3, (2, None))],
                                  "id long, info struct<_1: int, _2: string>")
    results = run(frame, "RowCount = 3", 'ColumnValues "info._1" > 0', 'ColumnValues "info._2" in ["a", "b"]',
                  'ColumnDataType "info._1" = "Integer"', 'IsUnique "info._1"', 'Uniqueness "info._1" > 0.3',
                  'Completeness "info._2" > 0.5', 'ColumnLength "info._2" = 1', 'IsPrimaryKey "id"',
                  'Mean "info._1" between 1.6 and 1.7')
    assert outcomes(results) == ["Passed", "Passed", "Failed", "Passed", "Failed", "Passed", "Passed", "Failed",
                                 "Passed", "Passed"]
    assert results[4].evaluated_metrics["Column.info._1.Uniqueness"] == pytest.approx(1 / 3)
    assert results[2].evaluated_metrics["Column.info._2.ColumnValues.Compliance"] == pytest.approx(2 / 3)


@pytest.mark.spark
def test_a_missing_nested_field_fails_alone(spark: Any) -> None:
    frame = spark.createDataFrame([(1, (1, "a"))], "id long, info struct<_1: int, _2: string>")
    results = run(frame, "RowCount = 1", 'ColumnValues "info._9" > 0', 'IsUnique "info._9"', 'IsComplete "id"')
    assert outcomes(results) == ["Passed", "Failed", "Failed", "Passed"]
    assert "info._9" in (results[1].failure_reason or "")


@pytest.mark.spark
def test_a_rule_failing_while_the_shared_pass_runs_errs_alone(spark: Any) -> None:
    frame = spark.createDataFrame([(i,) for i in range(1, 7)], "id long")
    results = run(frame, "RowCount = 6", 'IsComplete "id" where "assert_true(id < 3) is null"',
                  'ColumnValues "id" > 0', 'Uniqueness "id" > 0.5 where "assert_true(id < 2) is null"',
                  'IsUnique "id"')
    assert outcomes(results) == ["Passed", "Error", "Passed", "Error", "Passed"]
    assert results[0].evaluated_metrics["Dataset.*.RowCount"] == 6


# ---------------------------------------------------------------- 4. tags are honoured (or refused)


@pytest.mark.spark
def test_ignore_case_is_honoured(spark: Any) -> None:
    frame = spark.createDataFrame([("Alice",), ("ALICE",), ("bob",)], "name string")
    results = run(frame, 'ColumnValues "name" in ["alice", "BOB"] with ignoreCase = "true"',
                  'ColumnValues "name" in ["alice", "BOB"]',
                  'ColumnValues "name" = "alice" with ignoreCase = "true" with threshold > 0.6',
                  'ColumnValues "name" matches "[a-z]+" with ignoreCase = "true"',
                  'ColumnValues "name" != "ALICE" with ignoreCase = "false" with threshold > 0.6')
    assert outcomes(results) == ["Passed", "Failed", "Passed", "Passed", "Passed"]


@pytest.mark.spark
def test_column_data_type_format_is_honoured(spark: Any) -> None:
    frame = spark.createDataFrame([("31-01-2024",), ("01-02-2024",), (None,)], "d string")
    results = run(frame, 'ColumnDataType "d" = "Date" with format = "dd-MM-yyyy"', 'ColumnDataType "d" = "Date"',
                  'ColumnDataType "d" = "Timestamp" with format = "yyyy-MM-dd"')
    assert outcomes(results) == ["Passed", "Failed", "Failed"]


@pytest.mark.spark
def test_a_tag_the_rule_type_does_not_honour_fails_that_rule_only(spark: Any) -> None:
    frame = spark.createDataFrame([(1,)], "a long")
    results = run(frame, 'IsComplete "a" with ignoreCase = "true"', "RowCount = 1", 'Mean "a" > 0 with format = "x"')
    assert outcomes(results) == ["Error", "Passed", "Error"]
    assert results[0].failure_reason == (
        "IsComplete does not support the tag(s) ignoreCase (tags it supports: none)")


# ---------------------------------------------------------------- 5. row-level outcomes of an erring rule


@pytest.mark.spark
def test_an_erring_rule_is_never_passed_in_row_level_output(spark: Any) -> None:
    frame = spark.createDataFrame([(1, "a"), (2, None)], "id long, name string")
    evaluation = evaluate(frame, 'Rules = [ Completeness "name" > avg(last(3)), IsComplete "id" ]', now=NOW,
                          row_level=True)
    erring, fine = evaluation.rules
    assert erring.outcome == "Error" and fine.outcome == "Passed"
    assert evaluation.row_level is not None
    rows = {row["id"]: row for row in evaluation.row_level.collect()}
    for row in rows.values():
        assert erring.rule not in row["DataQualityRulesPass"]
        assert erring.rule not in row["DataQualityRulesFail"]
        assert erring.rule in row["DataQualityRulesSkip"]
        assert fine.rule in row["DataQualityRulesPass"]


@pytest.mark.spark
def test_an_aggregate_spark_refuses_errs_alone_without_extra_passes(spark: Any) -> None:
    frame = spark.createDataFrame([(1, {"k": 1}), (2, {"k": 2})], "id long, m map<string,int>")
    evaluation = evaluate(frame, 'Rules = [ RowCount = 2, ColumnValues "m" > 1, IsComplete "id", IsUnique "id" ]',
                          now=NOW)
    assert outcomes(evaluation.rules) == ["Passed", "Error", "Passed", "Passed"]
    assert "cannot be computed" in (evaluation.rules[1].failure_reason or "")
    assert evaluation.passes == 1  # the shared pass, as without the refused rule
