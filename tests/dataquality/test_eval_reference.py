"""Where AWS's documentation is silent, the reference evaluator decides: deequ's DQDL executor
(``com.amazon.deequ.dqdl``, the engine AWS open-sourced) and the reference DQDL parser.

Each case is one of the places glueball used to decide otherwise, now following the reference (the facts
read from its executors and specs; docs/dataquality.md keeps the table of choices):

- a reference dataset that is not among the additional sources, or a reference column it lacks, fails
  the rule (``<alias> not found in additional sources``), rather than erring;
- ``ColumnDataType`` with a type name the reference does not know parses, and fails when evaluated
  (``Unrecognized data type: ...``);
- ``ColumnDataType`` and ``DataFreshness`` over no rows (an empty frame, or a where clause keeping none)
  pass ("No rows matched the filter"); the rules deequ computes fail there (deequ's empty state);
- CustomSql without a condition fails when it selects none of the data's columns, or a column the data
  lacks (AWS: "CustomSQL rule will fail if you return records that are not available in the dataset");
- the reference parser has no end-of-input rule: a stray ``]`` after the last section is accepted;
- DatasetMatch without compared columns compares every non-key column of the primary frame, and fails when the
  reference lacks one (``The following columns were not found in the second dataset``); the reference's own extra
  columns are not compared;
- a date compared with a timestamp column compares the day each value falls on (the reference reads the column
  with ``to_date``), so ``= "2024-06-01"`` holds all that day and ``not between`` keeps its bounds' days. A NULL
  fails ``not between`` on dates as AWS documents for every ColumnValues rule but ``!=`` and ``not in`` (the
  reference's ColumnValuesRule lets it pass there; AWS's documentation decides).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from glueball.dataquality import parse
from glueball.dataquality.evaluator import evaluate
from glueball.dataquality.outcomes import RuleOutcome

pytestmark = pytest.mark.spark

NOW = dt.datetime(2024, 7, 1, 12, 0, tzinfo=dt.UTC)


def run(frame: Any, *rules: str, **options: Any) -> list[RuleOutcome]:
    return evaluate(frame, "Rules = [\n" + ",\n".join(rules) + "\n]", now=NOW, **options).rules


@pytest.fixture(scope="module")
def people(spark: Any) -> Any:
    return spark.createDataFrame([(1, "a", "2024-06-30"), (2, "b", "2024-06-01")], "id int, name string, day string")


def test_a_missing_reference_dataset_fails_the_rule(people: Any) -> None:
    results = run(people, 'RowCountMatch "ref" = 1.0', 'ReferentialIntegrity "id" "ref.id" = 1.0',
                  'DatasetMatch "ref" "id" = 1.0', 'SchemaMatch "ref" = 1.0', "RowCount = 2")
    assert [r.outcome for r in results] == ["Failed"] * 4 + ["Passed"]
    assert all("ref not found in additional sources" in (r.failure_reason or "") for r in results[:4])


def test_a_reference_column_that_is_not_there_fails_the_rule(spark: Any, people: Any) -> None:
    reference = spark.createDataFrame([(1,)], "key int")
    (outcome,) = run(people, 'ReferentialIntegrity "id" "ref.id" = 1.0', additional={"ref": reference})
    assert outcome.outcome == "Failed"
    assert "does not include column id" in (outcome.failure_reason or "")


def test_an_unknown_data_type_parses_and_fails_when_evaluated(people: Any) -> None:
    assert parse('Rules = [ ColumnDataType "name" = "UNKNOWN_TYPE" ]').rules
    first, second = run(people, 'ColumnDataType "name" = "UNKNOWN_TYPE"', 'ColumnDataType "id" = "Integer"')
    assert (first.outcome, first.failure_reason) == ("Failed", "Unrecognized data type: UNKNOWN_TYPE")
    assert second.outcome == "Passed"


def test_type_and_freshness_rules_pass_over_no_rows_and_the_others_fail(spark: Any, people: Any) -> None:
    empty = spark.createDataFrame([], "id int, name string, day string")
    rules = ('ColumnDataType "day" = "Date"', 'DataFreshness "day" <= 30 days', 'IsComplete "name"',
             'ColumnValues "id" > 0')
    assert [r.outcome for r in run(empty, *rules)] == ["Passed", "Passed", "Failed", "Failed"]
    where = [f'{rule} where "id > 10"' for rule in rules]
    assert [r.outcome for r in run(people, *where)] == ["Passed", "Passed", "Failed", "Failed"]


def test_a_stray_closing_bracket_after_the_last_section_is_accepted() -> None:
    assert len(parse('Rules = [ RowCount > 0, IsComplete "a" ] ]').rules) == 2
    assert len(parse('Rules = [ RowCount > 0 ]\nAnalyzers = [ RowCount ] ] ]').analyzers) == 1


def test_row_level_custom_sql_must_select_only_the_datas_columns(people: Any) -> None:
    matched, extra, none = run(people, 'CustomSql "select id from primary where id = 1" with threshold >= 0.5',
                               'CustomSql "select id, 1 as extra from primary where id = 1"',
                               'CustomSql "select 1 as extra"')
    assert matched.outcome == "Passed"
    assert matched.evaluated_metrics["Dataset.*.CustomSQL.Compliance"] == 0.5
    assert extra.outcome == "Failed"
    assert "should only belong to the primary table. Columns not found: extra" in (extra.failure_reason or "")
    assert none.outcome == "Failed"
    assert "must contain at least one column that matches" in (none.failure_reason or "")


def test_dataset_match_compares_every_non_key_column_of_the_primary_frame(spark: Any, people: Any) -> None:
    wider = spark.createDataFrame([(1, "a", "2024-06-30", "x"), (2, "B", "2024-06-01", "y")],
                                  "id int, name string, day string, extra string")
    narrower = spark.createDataFrame([(1, "a"), (2, "b")], "id int, name string")
    matched, lacking, named = run(people, 'DatasetMatch "wide" "id" = 0.5', 'DatasetMatch "narrow" "id" = 1.0',
                                  'DatasetMatch "narrow" "id" "name" = 1.0',
                                  additional={"wide": wider, "narrow": narrower})
    assert matched.outcome == "Passed"  # name differs on id 2; the reference's extra column is not compared
    assert (lacking.outcome, lacking.failure_reason) == (
        "Failed", "The following columns were not found in the second dataset (narrow): day")
    assert named.outcome == "Passed"  # compared columns given: only those


@pytest.fixture(scope="module")
def stamps(spark: Any) -> Any:
    at = [dt.datetime(2024, 6, 1, 0, 0), dt.datetime(2024, 6, 1, 18, 30), dt.datetime(2024, 6, 15, 9, 0),
          dt.datetime(2024, 6, 30, 23, 59), dt.datetime(2024, 7, 1, 0, 0), None]
    return spark.createDataFrame([(i, t and t.replace(tzinfo=dt.UTC)) for i, t in enumerate(at)], "id int, t timestamp")


@pytest.mark.parametrize(
    ("condition", "passing"),
    [  # rows 0-1 fall on 1 June, 2 on 15 June, 3 on 30 June, 4 on 1 July; row 5 is NULL
        ('= "2024-06-01"', {0, 1}),
        ('!= "2024-06-01"', {2, 3, 4, 5}),
        ('> "2024-06-01"', {2, 3, 4}),
        ('>= "2024-06-15"', {2, 3, 4}),
        ('< "2024-06-15"', {0, 1}),
        ('<= "2024-06-30"', {0, 1, 2, 3}),
        ('between "2024-06-01" and "2024-07-01"', {2, 3}),
        ('not between "2024-06-01" and "2024-07-01"', {0, 1, 4}),
        ('not between "2024-06-01" and "2024-06-30"', {0, 1, 3, 4}),
        ('in ["2024-06-01", "2024-07-01"]', {0, 1, 4}),
        ('not in ["2024-06-01", "2024-07-01"]', {2, 3, 5}),
        ('in ["2024-06-30", NULL]', {3, 5}),
    ],
)
def test_dates_compare_with_the_day_a_timestamp_falls_on(stamps: Any, condition: str, passing: set[int]) -> None:
    rule = f'ColumnValues "t" {condition}'
    evaluation = evaluate(stamps, f"Rules = [{rule} with threshold >= 0]", now=NOW, row_level=True)
    (outcome,) = evaluation.rules
    rows = {row["id"]: row for row in evaluation.row_level.collect()}
    assert {i for i, row in rows.items() if row["DataQualityRulesFail"] == []} == passing
    assert outcome.evaluated_metrics["Column.t.ColumnValues.Compliance"] == pytest.approx(len(passing) / 6)


def test_dates_on_a_timestamp_column_take_the_rules_time_zone(stamps: Any) -> None:
    # in Oslo (UTC+2 in summer) 2024-06-30 23:59 UTC already falls on 1 July, as 2024-07-01 00:00 UTC does
    (outcome,) = run(stamps, 'ColumnValues "t" = "2024-07-01" with threshold >= 0 with timeZone = "Europe/Oslo"')
    assert outcome.evaluated_metrics["Column.t.ColumnValues.Compliance"] == pytest.approx(2 / 6)
