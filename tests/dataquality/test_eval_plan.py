"""The planner: one pass (the aggregation and every frequency at once), own passes only for SQL and other data."""

from __future__ import annotations

from typing import Any

import pytest

from glueball.dataquality.evaluator import evaluate

pytestmark = pytest.mark.spark

#: 25 scan-shareable rules: 19 folded into the aggregation, 6 frequency rules over 4 column sets (one with where)
RULES_25 = [
    "RowCount = 6", 'RowCount = 3 where "age > 30"', 'IsComplete "id"', 'Completeness "age" > 0.8',
    'Completeness "city" > 0.5 where "id > 1"', 'Mean "age" between 30 and 40', 'Sum "score" > 10',
    'StandardDeviation "age" < 20', 'ColumnCorrelation "age" "score" > 0', 'ColumnValues "age" between 20 and 60 '
    'with threshold > 0.8', 'ColumnValues "city" in ["paris", "rome", "oslo", NULL]',
    'ColumnValues "email" matches "[a-z]+@[a-z]+\\\\.com" with threshold > 0.5', 'ColumnValues "name" != EMPTY '
    'with threshold > 0.5', 'ColumnLength "city" <= 5 where "city is not null"', 'ColumnDataType "joined" = "DATE" '
    'with threshold > 0.8', 'DataFreshness "joined" <= 10000 days where "id in (1, 2, 3, 6)"',
    'Mean "score" > 1 where "city = \'paris\'"', 'ColumnValues "id" > 0', 'IsComplete "name"',
    'IsUnique "id"', 'Uniqueness "city" < 0.5', 'DistinctValuesCount "city" = 3', 'Entropy "city" > 0.5',
    'IsPrimaryKey "id" "name"', 'UniqueValueRatio "city" > 0.1 where "id > 1"',
]


def test_25_rules_run_in_one_pass(people: Any) -> None:
    assert len(RULES_25) == 25
    evaluation = evaluate(people, "Rules = [" + ",\n".join(RULES_25) + "]")
    assert [r.rule for r in evaluation.rules if not r.passed] == []
    assert evaluation.passes == 1  # the aggregation and the frequencies of the 4 column sets, in one action
    assert evaluation.spark_jobs == 1
    naive = [evaluate(people, f"Rules = [{rule}]") for rule in RULES_25]
    assert [n.rules[0].outcome for n in naive] == [r.outcome for r in evaluation.rules]
    assert [n.rules[0].evaluated_metrics for n in naive] == [r.evaluated_metrics for r in evaluation.rules]
    assert sum(n.passes for n in naive) == 25  # each rule alone in its pass
    assert sum(n.spark_jobs for n in naive) > 3 * evaluation.spark_jobs


def test_own_passes_only_for_sql_and_other_data(people: Any, spark: Any) -> None:
    cities = spark.createDataFrame([("paris",)], "name string")
    evaluation = evaluate(people, """Rules = [
        RowCount > 0, IsUnique "id",
        CustomSql "select count(*) from primary" = 6,
        ReferentialIntegrity "city" "cities.name" > 0.1,
        RowCountMatch "cities" = 6.0,
        AggregateMatch "sum(age)" "sum(age)" = 1.0
    ]""", additional={"cities": cities})
    assert all(r.passed for r in evaluation.rules), [r for r in evaluation.rules if not r.passed]
    assert evaluation.passes == 1 + 3  # the shared pass, and one pass each for SQL, RI, the reference count


def test_schema_rules_read_no_data(people: Any) -> None:
    evaluation = evaluate(people, 'Rules = [ColumnCount = 7, ColumnExists "id", ColumnNamesMatchPattern "[a-z]+"]')
    assert evaluation.passes == 0 and evaluation.spark_jobs == 0
    assert evaluation.score == 1.0


def test_a_failing_pass_fails_only_its_rules(people: Any) -> None:
    evaluation = evaluate(people, 'Rules = [RowCount = 6, CustomSql "select raise_error(\'boom\')" = 1]')
    assert [r.outcome for r in evaluation.rules] == ["Passed", "Error"]
    assert "boom" in (evaluation.rules[1].failure_reason or "")


def test_the_callers_job_group_is_restored(people: Any, spark: Any) -> None:
    context = spark.sparkContext
    context.setJobGroup("mine", "my jobs")
    try:
        evaluate(people, "Rules = [RowCount > 0]")
        assert context.getLocalProperty("spark.jobGroup.id") == "mine"
    finally:
        context.setLocalProperty("spark.jobGroup.id", None)  # type: ignore[arg-type]
