"""Row-level outcomes (DataQualityRulesPass/Fail/Skip, DataQualityEvaluationResult) and composite rules."""

from __future__ import annotations

from typing import Any

import pytest

from glueball.dataquality.evaluator import evaluate

pytestmark = pytest.mark.spark

R1 = 'IsComplete "age"'
R2 = 'ColumnValues "city" in ["paris","rome"]'
R3 = "RowCount > 3"
R4 = 'IsUnique "city"'
R5 = 'ColumnValues "id" > 2 where "age is not null"'
R6 = 'ReferentialIntegrity "city" "cities.name" >= 0.5'
R7 = 'CustomSql "select id from primary where score > 2"'


def by_id(frame: Any) -> dict[int, Any]:
    return {row["id"]: row for row in frame.collect()}


def test_row_level_outcomes_per_rule(people: Any, spark: Any) -> None:
    cities = spark.createDataFrame([("paris",), ("rome",)], "name string")
    rules = [R1, R2, R3, R4, R5, R6, R7]
    evaluation = evaluate(people, "Rules = [" + ", ".join(rules) + "]", additional={"cities": cities},
                          row_level=True)
    rows = by_id(evaluation.row_level)
    assert evaluation.row_level.columns[:7] == people.columns
    assert evaluation.row_level.columns[7:] == ["DataQualityRulesPass", "DataQualityRulesFail",
                                                "DataQualityRulesSkip", "DataQualityEvaluationResult"]
    expected = {  # id: (passed, failed, skipped); RowCount has no per-row outcome
        1: ({R1, R2, R6}, {R4, R5, R7}, {R3}),
        2: ({R1, R2, R6, R7}, {R4, R5}, {R3}),
        3: ({R2, R6}, {R1, R4, R7}, {R3, R5}),  # age NULL: R5's where clause skips the row
        4: ({R1, R4, R5, R7}, {R2, R6}, {R3}),  # oslo is the only unique city, and not a reference city
        5: ({R1, R2, R5, R6, R7}, {R4}, {R3}),
        6: ({R1, R5, R7}, {R2, R4, R6}, {R3}),  # NULL city fails value, uniqueness and reference rules
    }
    for key, (passed, failed, skipped) in expected.items():
        row = rows[key]
        assert set(row["DataQualityRulesPass"]) == passed, key
        assert set(row["DataQualityRulesFail"]) == failed, key
        assert set(row["DataQualityRulesSkip"]) == skipped, key
        assert row["DataQualityEvaluationResult"] == "Failed"
    assert len(rows) == 6


def test_rows_passing_every_rule_are_passed(people: Any) -> None:
    evaluation = evaluate(people, 'Rules = [IsComplete "name", ColumnValues "age" > 26, Mean "age" > 1]',
                          row_level=True)
    rows = by_id(evaluation.row_level)
    assert {k for k, r in rows.items() if r["DataQualityEvaluationResult"] == "Passed"} == {1, 4, 5, 6}
    assert rows[2]["DataQualityRulesFail"] == ['ColumnValues "age" > 26']
    assert rows[1]["DataQualityRulesSkip"] == ['Mean "age" > 1']
    assert rows[3]["DataQualityRulesFail"] == ['ColumnValues "age" > 26']  # NULL fails a comparison


def test_rules_without_a_per_row_outcome_are_skipped_per_row(people: Any) -> None:
    # a column the data lacks fails the rule (as deequ's precondition), with no verdict on any row
    evaluation = evaluate(people, 'Rules = [ColumnValues "nope" > 1, IsComplete "id"]', row_level=True)
    assert [r.outcome for r in evaluation.rules] == ["Failed", "Passed"]
    row = by_id(evaluation.row_level)[1]
    assert row["DataQualityRulesSkip"] == ['ColumnValues "nope" > 1']
    assert row["DataQualityEvaluationResult"] == "Passed"


COMPOSITE = '(ColumnValues "age" >= 30 where "age is not null") or (ColumnValues "age" < 30 where "age is not null")'


def test_composite_column_and_row_methods(people: Any) -> None:
    text = f"""Rules = [
        {COMPOSITE},
        (IsComplete "id") and (ColumnValues "age" > 20),
        (IsComplete "id") and (RowCount = 6),
        (IsComplete "age") or (IsUnique "id"),
        ((IsComplete "id") and (IsUnique "id")) or (RowCount = 0)
    ]"""
    column = evaluate(people, text)
    row = evaluate(people, text, composite_method="ROW", row_level=True)
    # COLUMN: 4 of 5 ages are >= 30, 1 of 5 is < 30: neither rule holds on the whole data
    assert column.rules[0].outcome == "Failed"
    assert 'ColumnValues "age" >= 30 where "age is not null": Value: 0.8 does not meet' in (
        column.rules[0].failure_reason or "")
    # ROW: every row with an age satisfies one side
    assert row.rules[0].outcome == "Passed"
    assert column.rules[1].outcome == row.rules[1].outcome == "Failed"  # the NULL age fails > 20
    assert row.rules[1].failure_reason == "Value: 0.8333333333333334 does not meet the constraint requirement!"
    assert column.rules[2].outcome == row.rules[2].outcome == "Passed"  # RowCount: ROW falls back to COLUMN
    assert column.rules[3].outcome == row.rules[3].outcome == "Passed"
    assert column.rules[4].outcome == row.rules[4].outcome == "Passed"
    assert column.rules[1].evaluated_metrics == {"Column.id.Completeness": 1.0,
                                                 "Column.age.ColumnValues.Compliance": 5 / 6}
    rows = by_id(row.row_level)
    printed = COMPOSITE.replace(") or (", ") OR (")  # rules are named by their text as the reference prints it
    assert printed in rows[1]["DataQualityRulesPass"]
    assert printed in rows[3]["DataQualityRulesSkip"]  # NULL age: both sides skip the row
    assert '(IsComplete "id") AND (ColumnValues "age" > 20)' in rows[3]["DataQualityRulesFail"]
    assert '(IsComplete "id") AND (RowCount = 6)' in rows[1]["DataQualityRulesSkip"]


def test_row_method_with_window_and_join_rules_runs_its_own_pass(people: Any, spark: Any) -> None:
    cities = spark.createDataFrame([("paris",), ("rome",), ("oslo",)], "name string")
    text = 'Rules = [(IsUnique "city") or (ReferentialIntegrity "city" "cities.name" = 1.0)]'
    column = evaluate(people, text, additional={"cities": cities})
    row = evaluate(people, text, additional={"cities": cities}, composite_method="ROW")
    assert column.rules[0].outcome == "Failed"
    # per row: every city but NULL is a reference city; NULL is not unique either
    assert row.rules[0].outcome == "Failed"
    assert row.rules[0].failure_reason == "Value: 0.8333333333333334 does not meet the constraint requirement!"
    assert row.passes == column.passes + 1
    with pytest.raises(ValueError, match="COLUMN or ROW"):
        evaluate(people, text, composite_method="DIAGONAL")


def test_a_row_composite_with_an_erring_child_errs_and_skips_every_row(people: Any) -> None:
    erring = 'ColumnValues "age" > 20 with weight = "x"'  # a tag ColumnValues does not honour: Error
    text = f'Rules = [ (IsComplete "id") or ({erring}), ((IsComplete "id") and ({erring})) or (RowCount > 0) ]'
    column = evaluate(people, text)
    row = evaluate(people, text, composite_method="ROW", row_level=True)
    assert [r.outcome for r in column.rules] == ["Passed", "Passed"]  # COLUMN: the other side decides
    assert [r.outcome for r in row.rules] == ["Error", "Error"]  # ROW: no per-row verdict without it
    assert row.rules[0].failure_reason == (
        f"{erring}: ColumnValues does not support the tag(s) weight (tags it supports: ignoreCase, timeZone)")
    assert row.rules[1].failure_reason is not None and erring in row.rules[1].failure_reason
    first = by_id(row.row_level)[1]
    assert first["DataQualityRulesSkip"] == [r.rule for r in row.rules]
    assert first["DataQualityRulesPass"] == first["DataQualityRulesFail"] == []
