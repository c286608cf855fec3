"""Every rule type evaluated on small frames against hand-computed expectations (nulls, where, thresholds).

The frame is conftest's PEOPLE: ages 30, 25, NULL, 41, 35, 52; cities paris, paris, rome, oslo, rome, NULL;
names alice, bob, carol, dave, "" and "   "; emails with one NULL and one malformed; joined dates with
one unparseable and one NULL.
"""

from __future__ import annotations

import datetime as dt
import math
import statistics
from typing import Any

import pytest

from glueball.dataquality.evaluator import evaluate
from glueball.dataquality.outcomes import RuleOutcome

pytestmark = pytest.mark.spark

AGES = [30, 25, 41, 35, 52]
NOW = dt.datetime(2024, 7, 1, tzinfo=dt.UTC)


def run(frame: Any, *rules: str, **options: Any) -> list[RuleOutcome]:
    evaluation = evaluate(frame, "Rules = [\n" + ",\n".join(rules) + "\n]", now=NOW, **options)
    assert len(evaluation.rules) == len(rules)
    return evaluation.rules


def check(outcome: RuleOutcome, expected: str, metrics: dict[str, float] | None = None) -> None:
    assert outcome.outcome == expected, (outcome.rule, outcome.failure_reason, outcome.evaluated_metrics)
    for name, value in (metrics or {}).items():
        assert outcome.evaluated_metrics[name] == pytest.approx(value), (outcome.rule, name)


def test_row_and_column_counts_and_schema_rules(people: Any) -> None:
    rules = run(people, 'RowCount = 6', 'RowCount between 6 and 10', 'RowCount = 3 where "age > 30"',
                'ColumnCount = 7', 'ColumnCount > 7', 'ColumnExists "email"', 'ColumnExists "phone"',
                'ColumnNamesMatchPattern "[a-z]+"', 'ColumnNamesMatchPattern "[a-z]{3,5}"')
    check(rules[0], "Passed", {"Dataset.*.RowCount": 6})
    check(rules[1], "Failed")  # between excludes its bounds
    assert rules[1].failure_reason == "Value: 6.0 does not meet the constraint requirement!"
    check(rules[2], "Passed", {"Dataset.*.RowCount": 3})
    check(rules[3], "Passed", {"Dataset.*.ColumnCount": 7})
    check(rules[4], "Failed")
    check(rules[5], "Passed")
    check(rules[6], "Failed")
    assert rules[6].failure_reason == "Column phone does not exist"
    check(rules[7], "Passed", {"Dataset.*.ColumnNamesPatternMatchRatio": 1.0})
    check(rules[8], "Failed", {"Dataset.*.ColumnNamesPatternMatchRatio": 5 / 7})
    assert rules[8].failure_reason == "Columns not matching the pattern: id, joined"


def test_completeness_with_nulls_and_where(people: Any) -> None:
    rules = run(people, 'IsComplete "id"', 'IsComplete "age"', 'Completeness "age" > 0.8',
                'Completeness "age" >= 0.9', 'Completeness "age" = 1.0 where "city = \'paris\'"',
                'IsComplete "email" where "id <= 3"', 'Completeness "age" > 0.5 where "city = \'nowhere\'"')
    check(rules[0], "Passed", {"Column.id.Completeness": 1.0})
    check(rules[1], "Failed", {"Column.age.Completeness": 5 / 6})
    assert rules[1].failure_reason == "Value: 0.8333333333333334 does not meet the constraint requirement!"
    check(rules[2], "Passed")
    check(rules[3], "Failed")
    check(rules[4], "Passed", {"Column.age.Completeness": 1.0})
    check(rules[5], "Passed", {"Column.email.Completeness": 1.0})
    check(rules[6], "Failed")  # no rows pass the where clause: no ratio, the rule fails (as deequ's)
    assert "no rows" in (rules[6].failure_reason or "")


def test_uniqueness_family(people: Any) -> None:
    rules = run(people, 'IsUnique "id"', 'IsUnique "city"', 'Uniqueness "city" < 0.2',
                'Uniqueness "city" "age" = 1.0', 'DistinctValuesCount "city" = 3', 'UniqueValueRatio "city" > 0.3',
                'Entropy "city" between 1.0 and 1.1', 'IsPrimaryKey "id"', 'IsPrimaryKey "city"',
                'IsPrimaryKey "city" "age"', 'Uniqueness "city" = 1.0 where "id > 2"',
                'DistinctValuesCount "city" = 2 where "age < 40"')
    check(rules[0], "Passed", {"Column.id.Uniqueness": 1.0})
    # paris x2, rome x2, oslo x1, NULL: one value seen once out of 6 rows
    check(rules[1], "Failed", {"Column.city.Uniqueness": 1 / 6})
    check(rules[2], "Passed")
    check(rules[3], "Passed", {"Multicolumn.city,age.Uniqueness": 1.0})
    check(rules[4], "Passed", {"Column.city.DistinctValuesCount": 3})
    check(rules[5], "Passed", {"Column.city.UniqueValueRatio": 1 / 3})
    entropy = -(2 * (2 / 6) * math.log(2 / 6) + (1 / 6) * math.log(1 / 6))
    check(rules[6], "Passed", {"Column.city.Entropy": entropy})
    check(rules[7], "Passed", {"Column.id.Completeness": 1.0, "Column.id.Uniqueness": 1.0})
    check(rules[8], "Failed", {"Column.city.Completeness": 5 / 6})
    check(rules[9], "Failed", {"Column.city.Completeness": 5 / 6, "Column.age.Completeness": 5 / 6,
                               "Multicolumn.city,age.Uniqueness": 1.0})
    # rows 3..6: rome, oslo, rome, NULL -> oslo alone is unique, of 4 rows
    check(rules[10], "Failed", {"Column.city.Uniqueness": 0.25})
    # ages below 40: 30 paris, 25 paris, 35 rome -> paris, rome
    check(rules[11], "Passed", {"Column.city.DistinctValuesCount": 2})


def test_numeric_statistics(people: Any) -> None:
    rules = run(people, 'Mean "age" = 36.6', 'Sum "age" = 183', 'StandardDeviation "age" between 9.3 and 9.4',
                'Mean "age" = 35 where "city = \'rome\'"', 'Sum "score" > 100',
                'ColumnCorrelation "age" "score" > 0.5', 'Mean "name" > 1', 'Mean "age" > 1 where "nope > 1"',
                'Sum "age" > 1 where "age > 100"')
    check(rules[0], "Passed", {"Column.age.Mean": 36.6})
    check(rules[1], "Passed", {"Column.age.Sum": 183})
    check(rules[2], "Passed", {"Column.age.StandardDeviation": statistics.pstdev(AGES)})
    check(rules[3], "Passed", {"Column.age.Mean": 35})
    check(rules[4], "Failed", {"Column.score.Sum": 19.0})
    pairs = [(30, 1.5), (25, 2.5), (41, 4.0), (35, 5.0), (52, 6.0)]
    correlation = statistics.correlation([a for a, _ in pairs], [s for _, s in pairs])
    check(rules[5], "Passed", {"Multicolumn.age,score.ColumnCorrelation": correlation})
    check(rules[6], "Failed")  # a failed precondition fails the rule, as in deequ
    assert "not numeric" in (rules[6].failure_reason or "")
    check(rules[7], "Failed")
    assert "where clause" in (rules[7].failure_reason or "")
    check(rules[8], "Failed")  # no values: the sum is undefined


def test_column_values_conditions(people: Any) -> None:
    rules = run(
        people,
        'ColumnValues "age" between 20 and 60',  # 5 of 6: NULL fails
        'ColumnValues "age" between 20 and 60 with threshold > 0.8',
        'ColumnValues "city" in ["paris","rome","oslo"]',
        'ColumnValues "city" in ["paris","rome","oslo",NULL]',
        'ColumnValues "city" not in ["oslo"] with threshold = 0.8333333333333334',
        'ColumnValues "name" != EMPTY with threshold > 0.8',
        'ColumnValues "name" not in [EMPTY, WHITESPACES_ONLY] with threshold >= 0.66',
        'ColumnValues "name" = WHITESPACES_ONLY with threshold < 0.2',
        'ColumnValues "email" matches "[a-z]+@[a-z]+\\\\.com" with threshold between 0.6 and 0.7',
        'ColumnValues "email" not matches "[a-z]+@[a-z]+\\\\.com" with threshold < 0.17',
        'ColumnValues "id" > 3 where "age is not null" with threshold = 0.6',
        'ColumnValues "joined" > "2024-02-01" with threshold = 0.5',
        'ColumnValues "joined" <= (now() - 30 days) with threshold = 0.5',
        'ColumnValues "age" != NULL with threshold > 0.8',
        'ColumnValues "age" = NULL with threshold < 0.2',
        'ColumnValues "score" in [1.5, 2.5]',
        'ColumnValues "id" not between 2 and 5 with threshold > 0.6',
        'ColumnValues "nope" > 1',
    )
    check(rules[0], "Failed", {"Column.age.ColumnValues.Compliance": 5 / 6})
    assert rules[0].failure_reason == "Value: 0.8333333333333334 does not meet the constraint requirement!"
    check(rules[1], "Passed")
    check(rules[2], "Failed", {"Column.city.ColumnValues.Compliance": 5 / 6})
    check(rules[3], "Passed", {"Column.city.ColumnValues.Compliance": 1.0})
    check(rules[4], "Passed")  # paris, paris, rome, rome and NULL pass (AWS: `not in` passes NULL); oslo fails
    check(rules[5], "Passed", {"Column.name.ColumnValues.Compliance": 5 / 6})
    check(rules[6], "Passed", {"Column.name.ColumnValues.Compliance": 4 / 6})
    check(rules[7], "Passed", {"Column.name.ColumnValues.Compliance": 1 / 6})
    check(rules[8], "Passed", {"Column.email.ColumnValues.Compliance": 4 / 6})
    check(rules[9], "Passed", {"Column.email.ColumnValues.Compliance": 1 / 6})  # NULL fails negations too
    check(rules[10], "Passed", {"Column.id.ColumnValues.Compliance": 0.6})  # ids 4, 5, 6 of the 5 with an age
    check(rules[11], "Passed", {"Column.joined.ColumnValues.Compliance": 0.5})
    check(rules[12], "Passed", {"Column.joined.ColumnValues.Compliance": 0.5})
    check(rules[13], "Passed", {"Column.age.ColumnValues.Compliance": 5 / 6})
    check(rules[14], "Passed", {"Column.age.ColumnValues.Compliance": 1 / 6})
    check(rules[15], "Failed", {"Column.score.ColumnValues.Compliance": 2 / 6})
    check(rules[16], "Passed", {"Column.id.ColumnValues.Compliance": 4 / 6})  # 1, 2, 5, 6 lie outside (2, 5)
    check(rules[17], "Failed")
    assert rules[17].failure_reason == "Input data does not include column nope!"


def test_length_type_and_freshness(people: Any) -> None:
    rules = run(
        people,
        'ColumnLength "name" between 2 and 6',
        'ColumnLength "name" not between 2 and 6',
        'ColumnLength "city" in [4,5]',
        'ColumnLength "name" < 6',
        'ColumnDataType "joined" = "DATE"',
        'ColumnDataType "joined" = "DATE" with threshold > 0.8',
        'ColumnDataType "age" = "INTEGER"',
        'ColumnDataType "id" = "INTEGER"',
        'ColumnDataType "id" in ["INTEGER","LONG"]',
        'ColumnDataType "name" != "DOUBLE" with threshold > 0.9',
        'DataFreshness "joined" <= 30 days',
        'DataFreshness "joined" <= 200 days',
        'DataFreshness "joined" <= 200 days where "joined is not null and id != 4"',
        'DataFreshness "joined" between 10 days and 20 days where "id = 6"',
    )
    # lengths 5, 3, 5, 4, 0, 3: the empty name is not longer than 2
    check(rules[0], "Failed", {"Column.name.MinimumLength": 0, "Column.name.MaximumLength": 5})
    # LengthCompliance for in / not in / not between, as the reference evaluator reports it
    check(rules[1], "Failed", {"Column.name.LengthCompliance": 1 / 6})  # only the empty name
    check(rules[2], "Failed", {"Column.city.LengthCompliance": 5 / 6})  # NULL is length 0
    check(rules[3], "Passed")
    check(rules[4], "Failed", {"Column.joined.ColumnDataType.Compliance": 5 / 6})  # NULL conforms
    check(rules[5], "Passed")
    check(rules[6], "Passed", {"Column.age.ColumnDataType.Compliance": 1.0})
    check(rules[7], "Failed", {"Column.id.ColumnDataType.Compliance": 0.0})  # a long column is not INTEGER
    check(rules[8], "Passed")
    check(rules[9], "Passed", {"Column.name.ColumnDataType.Compliance": 1.0})
    check(rules[10], "Failed", {"Column.joined.DataFreshness.Compliance": 1 / 6})
    check(rules[11], "Failed", {"Column.joined.DataFreshness.Compliance": 4 / 6})
    check(rules[12], "Passed", {"Column.joined.DataFreshness.Compliance": 1.0})
    check(rules[13], "Passed")  # 2024-06-15 is 16 days before NOW


def test_custom_sql(people: Any) -> None:
    rules = run(
        people,
        'CustomSql "select count(*) from primary where age > 30" between 2 and 4',
        'CustomSql "select avg(age) from primary" > 40',
        'CustomSql "select id from primary where age > 30" with threshold >= 0.5',
        'CustomSql "select id from primary where age > 30"',
        'CustomSql "select nope from primary" > 1',
        'CustomSql "select id, age from primary" > 1',
        'CustomSql "select id from primary" = 1',
    )
    check(rules[0], "Passed", {"Dataset.*.CustomSQL": 3})
    check(rules[1], "Failed", {"Dataset.*.CustomSQL": 36.6})
    check(rules[2], "Passed", {"Dataset.*.CustomSQL.Compliance": 0.5})
    check(rules[3], "Failed")  # without a threshold every row must be returned
    check(rules[4], "Error")
    assert "CustomSql statement is not valid" in (rules[4].failure_reason or "")
    check(rules[5], "Error")
    assert "one column" in (rules[5].failure_reason or "")
    check(rules[6], "Error")
    assert "one row" in (rules[6].failure_reason or "")


def test_rules_over_other_data_sources(people: Any, spark: Any) -> None:
    cities = spark.createDataFrame([("paris",), ("rome",)], "name string")
    pairs = spark.createDataFrame([(1, "paris"), (2, "rome")], "pid long, pcity string")
    changed = [list(p) for p in [(1, "alice", 30, "alice@x.com", "paris", 1.5, "2024-01-10"),
                                 (2, "bob", 26, "bob@x.com", "paris", 2.5, "2024-02-11"),
                                 (3, "carol", None, "not-an-email", "rome", None, "2024-03-12"),
                                 (4, "dave", 41, None, "oslo", 4.0, "bad-date"),
                                 (5, "", 35, "eve@x.com", "rome", 5.0, None)]]
    copy = spark.createDataFrame(changed, people.schema)
    rules = run(
        people,
        'ReferentialIntegrity "city" "cities.name" = 1.0',
        'ReferentialIntegrity "city" "cities.name" >= 0.6',
        'ReferentialIntegrity "id,city" "pairs.{pid,pcity}" > 0.1',
        'RowCountMatch "cities" = 3.0',
        'DatasetMatch "copy" "id" >= 0.6',
        'DatasetMatch "copy" "id" "name" > 0.8',
        'SchemaMatch "copy" = 1.0',
        'SchemaMatch "cities" < 0.2',
        'AggregateMatch "sum(age)" "sum(copy.age)" > 1.3',
        'AggregateMatch "avg(score)" "avg(score)" = 1.0',
        'ReferentialIntegrity "city" "nowhere.name" = 1.0',
        'CustomSql "select count(*) from primary p join cities c on p.city = c.name" = 4',
        additional={"cities": cities, "pairs": pairs, "copy": copy},
    )
    check(rules[0], "Failed", {"Column.cities.ReferentialIntegrity": 4 / 6})
    check(rules[1], "Passed")
    check(rules[2], "Passed", {"Column.pairs.ReferentialIntegrity": 1 / 6})  # only (1, paris)
    check(rules[3], "Passed", {"Dataset.cities.RowCountMatch": 3.0})
    # rows 1, 3, 4, 5 are equal in every column (NULLs equal NULLs); 2 changed, 6 missing
    check(rules[4], "Passed", {"Dataset.copy.DatasetMatch": 4 / 6})
    check(rules[5], "Passed", {"Dataset.copy.DatasetMatch": 5 / 6})
    check(rules[6], "Passed", {"Dataset.copy.SchemaMatch": 1.0})
    check(rules[7], "Passed", {"Dataset.cities.SchemaMatch": 1 / 7})  # only name string is shared
    check(rules[8], "Passed", {"Column.age.AggregateMatch": 183 / 132})
    check(rules[9], "Passed", {"Column.score.AggregateMatch": 1.0})
    check(rules[10], "Failed")  # as the reference evaluator fails a rule whose reference dataset is not there
    assert "nowhere not found in additional sources" in (rules[10].failure_reason or "")
    check(rules[11], "Passed", {"Dataset.*.CustomSQL": 4})


def test_score_labels_and_analyzers(people: Any) -> None:
    text = """
    DefaultLabels = ["team" = "data"]
    Rules = [
        RowCount > 0 labels = ["severity" = "high"],
        IsComplete "age",
        Mean "age" > 30
    ]
    Analyzers = [RowCount, Completeness "city", ColumnValues "age", ColumnLength "name", AllStatistics "score",
                 DistinctValuesCount "city", CustomSql "select max(age) from primary"]
    """
    evaluation = evaluate(people, text, now=NOW)
    assert [r.outcome for r in evaluation.rules] == ["Passed", "Failed", "Passed"]
    assert evaluation.score == pytest.approx(2 / 3)
    assert evaluation.rules[0].labels == {"team": "data", "severity": "high"}
    assert evaluation.rules[1].labels == {"team": "data"}
    analyzers = evaluation.analyzers
    assert analyzers["Dataset.*.RowCount"] == 6
    assert analyzers["Column.city.Completeness"] == pytest.approx(5 / 6)
    assert (analyzers["Column.age.Minimum"], analyzers["Column.age.Maximum"]) == (25, 52)
    assert (analyzers["Column.name.MinimumLength"], analyzers["Column.name.MaximumLength"]) == (0, 5)
    assert analyzers["Column.score.Mean"] == pytest.approx(19 / 5)
    assert analyzers["Column.score.Uniqueness"] == pytest.approx(5 / 6)
    assert analyzers["Column.city.DistinctValuesCount"] == 3
    assert analyzers["Dataset.*.CustomSQL"] == 52
    assert set(evaluation.analyzer_results) == {
        "RowCount", 'Completeness "city"', 'ColumnValues "age"', 'ColumnLength "name"', 'AllStatistics "score"',
        'DistinctValuesCount "city"', 'CustomSql "select max(age) from primary"'}
    assert evaluation.metrics["Column.age.Completeness"] == pytest.approx(5 / 6)
    assert evaluation.metrics["Column.age.Mean"] == pytest.approx(36.6)
