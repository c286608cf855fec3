"""DQDL conformance, evaluation side: the semantics AWS documents (and glueball's documented choices
where AWS is silent, see docs/dataquality.md), on small frames with the shared Spark session."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from glueball.dataquality.evaluator import evaluate
from glueball.dataquality.outcomes import RuleOutcome

pytestmark = pytest.mark.spark

NOW = dt.datetime(2024, 7, 1, 12, 0, tzinfo=dt.UTC)


def run(frame: Any, *rules: str, **options: Any) -> list[RuleOutcome]:
    evaluation = evaluate(frame, "Rules = [\n" + ",\n".join(rules) + "\n]", now=NOW, **options)
    assert len(evaluation.rules) == len(rules)
    return evaluation.rules


@pytest.fixture(scope="module")
def values(spark: Any) -> Any:
    return spark.createDataFrame([(1, "a"), (2, "b"), (None, None)], "n int, s string")


@pytest.mark.parametrize(
    ("condition", "compliance"),
    [
        ('"n" != 1', 2 / 3),  # AWS: a negated rule passes NULL rows
        ('"n" != NULL', 2 / 3),
        ('"n" not in [1]', 2 / 3),
        ('"n" not in [1,NULL]', 1 / 3),
        ('"n" not between 0 and 1.5', 1 / 3),  # AWS: every other rule fails NULL rows
        ('"n" = NULL', 1 / 3),
        ('"n" in [1,NULL]', 2 / 3),
        ('"n" > 0', 2 / 3),
        ('"n" between 0 and 3', 2 / 3),
        ('"s" != "a"', 2 / 3),
        ('"s" not in ["a"]', 2 / 3),
        ('"s" not matches "a"', 1 / 3),
        ('"s" matches "[ab]"', 2 / 3),
        ('"s" in ["a",NULL]', 2 / 3),
        ('"s" = EMPTY', 0.0),
    ],
)
def test_null_under_every_operator(values: Any, condition: str, compliance: float) -> None:
    (outcome,) = run(values, f"ColumnValues {condition} with threshold >= 0")
    column = condition.split('"')[1]
    assert outcome.outcome == "Passed"
    assert outcome.evaluated_metrics[f"Column.{column}.ColumnValues.Compliance"] == pytest.approx(compliance)


def test_empty_data_and_where_clauses_that_keep_no_rows(spark: Any, values: Any) -> None:
    empty = spark.createDataFrame([], "n int, s string")
    results = run(empty, "RowCount = 0", 'Completeness "n" > 0.5', 'ColumnValues "n" > 0', 'IsUnique "n"',
                  'Mean "n" > 0', 'IsComplete "n"', "ColumnCount = 2")
    assert [r.outcome for r in results] == ["Passed", "Failed", "Failed", "Failed", "Failed", "Failed", "Passed"]
    assert all("no rows" in (r.failure_reason or "").lower() for r in results[1:6])
    where = run(values, 'Completeness "n" > 0.5 where "n > 10"', 'RowCount = 0 where "n > 10"',
                'ColumnValues "s" = "a" where "n > 10"')
    assert [r.outcome for r in where] == ["Failed", "Passed", "Failed"]


def test_missing_columns_fail_and_unusable_sql_errs(values: Any) -> None:
    results = run(values, 'IsComplete "zz"', 'Mean "s" > 1', 'IsComplete "n" where "zz > 1"',
                  'CustomSql "select nope from primary" > 0', 'ReferentialIntegrity "n" "nowhere.n" > 0.5',
                  "RowCount = 3")
    # a reference dataset that is not there fails the rule, as the reference evaluator decides
    assert [r.outcome for r in results] == ["Failed", "Failed", "Failed", "Error", "Failed", "Passed"]
    assert results[0].failure_reason == "Input data does not include column zz!"


def test_metric_names_as_aws_publishes_them(spark: Any, values: Any) -> None:
    results = run(values, 'ColumnExists "n"', 'ColumnExists "zz"', 'CustomSql "select n from primary where n > 1"',
                  'ColumnLength "s" in [1]', 'Variance "n" = 0.25', 'CustomSql "select 3" = 3')
    assert [r.outcome for r in results] == ["Passed", "Failed", "Failed", "Failed", "Passed", "Passed"]
    assert results[0].evaluated_metrics == {"Dataset.n.ColumnExists": 1.0}
    assert results[1].evaluated_metrics == {"Dataset.zz.ColumnExists": 0.0}
    assert results[2].evaluated_metrics == {"Dataset.*.CustomSQL.Compliance": pytest.approx(1 / 3)}
    assert results[3].evaluated_metrics["Column.s.LengthCompliance"] == pytest.approx(2 / 3)
    assert results[4].evaluated_metrics == {"Column.n.Variance": 0.25}  # population variance of 1, 2
    assert results[5].evaluated_metrics == {"Dataset.*.CustomSQL": 3.0}


def test_column_data_type_names_and_decimals(spark: Any) -> None:
    frame = spark.createDataFrame([("12.34", 5), ("1234.5", 6), ("x", None)], "t string, i int")
    results = run(frame, 'ColumnDataType "t" = "DECIMAL(5,2)" with threshold >= 0',
                  'ColumnDataType "t" = "decimal(6, 1)" with threshold >= 0', 'ColumnDataType "t" = "String"',
                  'ColumnDataType "i" = "Short"', 'ColumnDataType "i" in ["Decimal","Byte"]',
                  'ColumnDataType "i" = "DECIMAL(1,0)"')
    assert [r.outcome for r in results] == ["Passed", "Passed", "Passed", "Failed", "Passed", "Passed"]
    assert results[0].evaluated_metrics["Column.t.ColumnDataType.Compliance"] == pytest.approx(1 / 3)
    assert results[1].evaluated_metrics["Column.t.ColumnDataType.Compliance"] == pytest.approx(2 / 3)


def test_time_of_day_comparisons(spark: Any) -> None:
    frame = spark.createDataFrame([(dt.datetime(2024, 7, 1, 10, 0, tzinfo=dt.UTC),),
                                   (dt.datetime(2024, 7, 1, 8, 0, tzinfo=dt.UTC),),
                                   (dt.datetime(2024, 6, 30, 11, 0, tzinfo=dt.UTC),)], "t timestamp")
    results = run(frame, 'ColumnValues "t" > "9:30 AM" with threshold >= 0',
                  'ColumnValues "t" between "7:00 AM" and "21:30" with threshold >= 0')
    assert results[0].evaluated_metrics["Column.t.ColumnValues.Compliance"] == pytest.approx(1 / 3)
    assert results[1].evaluated_metrics["Column.t.ColumnValues.Compliance"] == pytest.approx(2 / 3)


def test_unknown_dynamic_functions_fail_their_rule_only(values: Any) -> None:
    results = run(values, "RowCount > average(last(3))", "RowCount = 3", "RowCount > avg(last(0))")
    assert [r.outcome for r in results] == ["Error", "Passed", "Error"]
    assert "unknown function average()" in (results[0].failure_reason or "")


def test_aggregate_match_with_zero_denominators(spark: Any) -> None:
    frame = spark.createDataFrame([(0, 0, 1), (0, 0, 2)], "a int, b int, c int")
    results = run(frame, 'AggregateMatch "sum(a)" "sum(b)" = 1.0', 'AggregateMatch "sum(c)" "sum(b)" > 0.5',
                  'AggregateMatch "sum(b)" "sum(c)" = 0.0')
    assert [r.outcome for r in results] == ["Passed", "Failed", "Passed"]
    assert "the ratio has no value" in (results[1].failure_reason or "")


def test_composites_without_brackets_and_with_labels(values: Any) -> None:
    text = ('DefaultLabels=["team"="core"]\nRules = [ RowCount > 0 and IsComplete "n", '
            '((IsComplete "s") or (RowCount = 3)) labels=["team"="crm"], (IsComplete "n") labels=["x"="y"] ]')
    evaluation = evaluate(values, text, now=NOW)
    first, second, third = evaluation.rules
    assert (first.rule, first.outcome) == ('(RowCount > 0) AND (IsComplete "n")', "Failed")
    assert (second.outcome, second.labels) == ("Passed", {"team": "crm"})
    assert second.rule == '(IsComplete "s") OR (RowCount = 3)'  # the composite's labels are not in its text
    assert third.rule == 'IsComplete "n" labels=["x"="y"]' and third.labels == {"team": "core", "x": "y"}


def test_every_rule_type_as_an_analyzer(spark: Any, values: Any) -> None:
    reference = spark.createDataFrame([(1,), (2,)], "n int")
    text = ('Analyzers = [ Variance "n", RowCountMatch "ref", SchemaMatch "ref", AggregateMatch "sum(n)" '
            '"sum(ref.n)", ColumnDataType "n", DataFreshness "s", ReferentialIntegrity "n" "ref.n", '
            'ColumnCorrelation of n and n ]')
    evaluation = evaluate(values, text, now=NOW, additional={"ref": reference})
    assert evaluation.analyzers["Column.n.Variance"] == 0.25
    assert evaluation.analyzers["Dataset.ref.RowCountMatch"] == 1.5
    assert evaluation.analyzers["Column.n.AggregateMatch"] == 1.0
    assert evaluation.analyzers["Column.ref.ReferentialIntegrity"] == pytest.approx(2 / 3)
    assert evaluation.analyzer_results['ColumnDataType "n"'] == {}  # needs a condition: no metric, and says so
    assert evaluation.analyzer_messages['ColumnDataType "n"'] == (
        "ColumnDataType has no metric without a condition: as an analyzer it reports none")


def test_many_rules_still_take_one_pass_and_an_erring_one_stays_alone(spark: Any) -> None:
    frame = spark.createDataFrame([(i, f"n{i}", i % 3, (i, "x")) for i in range(1, 41)],
                                  "id long, name string, k int, info struct<a: long, b: string>")
    rules = ["RowCount = 40", 'IsComplete "id"', 'IsUnique "id"', 'Completeness "name" > 0.9', 'Mean "id" > 1',
             'Sum "k" > 1', 'StandardDeviation "id" > 1', 'Variance "k" > 0', 'ColumnValues "k" in [0,1,2]',
             'ColumnValues "info.a" > 0', 'IsUnique "info.a"', 'ColumnLength "name" <= 2', 'Uniqueness "k" < 0.5',
             'DistinctValuesCount "k" = 3', 'Entropy "k" > 1', 'ColumnDataType "info.a" = "Long"',
             'ColumnValues "name" matches "n[0-9]+"', 'ColumnCorrelation of id and info.a > 0.99']
    evaluation = evaluate(frame, "Rules = [" + ", ".join(rules) + "]", now=NOW)
    assert [r.outcome for r in evaluation.rules] == ["Passed"] * 11 + ["Failed"] + ["Passed"] * 6
    assert evaluation.passes == 1


def test_all_statistics_of_all_columns_and_nested_keys_in_other_datasets(spark: Any, values: Any) -> None:
    evaluation = evaluate(values, "Analyzers = [ AllStatistics of AllColumns ]", now=NOW)
    assert evaluation.analyzers["Dataset.*.RowCount"] == 3
    assert evaluation.analyzers["Column.n.Completeness"] == pytest.approx(2 / 3)
    assert evaluation.analyzers["Column.s.Uniqueness"] == pytest.approx(2 / 3)
    assert evaluation.analyzers["Column.n.Mean"] == 1.5
    nested = spark.createDataFrame([(1, (1,)), (2, (5,))], "id long, info struct<k: long>")
    reference = spark.createDataFrame([(1,), (2,)], "k long")
    results = run(nested, 'ReferentialIntegrity "info.k" "ref.k" = 0.5',
                  'DatasetMatch "ref" "info.k->k" "id->k" = 0.5', additional={"ref": reference})
    assert [r.outcome for r in results] == ["Passed", "Passed"]
