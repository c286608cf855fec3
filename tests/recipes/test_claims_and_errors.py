"""The claims-cleanup recipe (examples/recipes/claims_cleanup.json, seven steps) on the claims CSV, row by row;
and the steps the engine refuses, each named by step number and parameter."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from glueball.recipes.recipe_engine import apply_recipe
from glueball.recipes.steps import RecipeStepError, check_steps

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CLAIMS_RECIPE = json.loads((EXAMPLES / "recipes" / "claims_cleanup.json").read_text())
EXPECTED_CLAIMS = [
    ("C-1001", "P001", "Ann Lee", 1250.0, "2026-01-04", "APPROVED"),
    ("C-1002", "P002", "Bo Chen", 310.5, "2026-01-05", "APPROVED"),
    ("C-1003", "P003", "Dee Park", 2000.0, "2026-01-06", "PENDING"),
    ("C-1004", "P002", "Eve Ng", None, "2026-01-07", "PENDING"),
    ("C-1005", "P001", "Fay Orr", 75.25, "2026-01-08", "DENIED"),
    ("C-1006", "P003", "Hal Ito", 40.0, "2026-01-09", "DENIED"),
]


def test_the_claims_cleanup_recipe_gives_the_expected_rows(spark: Any) -> None:
    assert len(CLAIMS_RECIPE) == 7
    claims = spark.read.option("header", True).csv(str(EXAMPLES / "data" / "claims" / "claims.csv"))
    cleaned = apply_recipe(claims, CLAIMS_RECIPE)
    assert cleaned.columns == ["claim_id", "provider_id", "patient_name", "amount", "service_date", "status"]
    assert dict(cleaned.dtypes)["amount"] == "double"
    assert [tuple(row) for row in cleaned.collect()] == EXPECTED_CLAIMS
    providers = spark.read.option("header", True).csv(str(EXAMPLES / "data" / "claims" / "providers.csv"))
    joined = cleaned.join(providers, "provider_id").groupBy("provider_name").count()
    assert sorted(map(tuple, joined.collect())) == [
        ("Harbor Imaging", 2), ("Lakeview Cardiology", 2), ("Northside Clinic", 2)]


def step(operation: str, **params: Any) -> dict[str, Any]:
    return {"Action": {"Operation": operation, "Parameters": params}}


REFUSED = [
    ([step("UPPER_CASE", sourceColumn="a"), step("SHOUT", sourceColumn="a")],
     "Recipe step 2 (SHOUT): unknown operation 'SHOUT'"),
    ([step("upper_case", sourceColumn="a")], "operations are upper case with underscores"),
    ([step("UPPER_CASE")], "Recipe step 1 (UPPER_CASE): parameter 'sourceColumn' is required"),
    ([step("UPPER_CASE", sourceColumn="a", targetColumn="b")],
     "Recipe step 1 (UPPER_CASE): unknown parameter 'targetColumn'; UPPER_CASE takes sourceColumn"),
    ([step("UPPER_CASE", sourceColumn=["a"])], "parameter 'sourceColumn' must be a string, not list"),
    ([step("UPPER_CASE", sourceColumn="")], "parameter 'sourceColumn' is empty: leave it out instead"),
    ([step("SPLIT_COLUMN_SINGLE_DELIMITER", sourceColumn="a", pattern=",", limit="x")],
     "parameter 'limit' must be an integer, not 'x'"),
    ([step("SPLIT_COLUMN_SINGLE_DELIMITER", sourceColumn="a", pattern=",", limit="21")],
     "parameter 'limit' must be from 1 to 20, not 21"),
    ([step("REMOVE_COMBINED", sourceColumn="a", removeAllQuotes="yes")],
     "parameter 'removeAllQuotes' must be \"true\" or \"false\", not 'yes'"),
    ([step("CHANGE_DATA_TYPE", sourceColumn="a", columnDataType="text")],
     "parameter 'columnDataType' must be one of byte, short, int"),
    ([step("DELETE", sourceColumns="a")], "parameter 'sourceColumns' is not valid JSON"),
    ([step("DELETE", sourceColumns='{"a": 1}')], "parameter 'sourceColumns' must be a JSON list of column names"),
    ([step("DATE_ADD", units="DAYS", dateAddValue="1", targetColumn="x")],
     "give exactly one of the parameters 'sourceColumn' or 'value'"),
    ([{"Action": {"Operation": "RENAME", "Parameters": {"sourceColumn": "a", "targetColumn": "b"}},
       "ConditionExpressions": [{"Condition": "IS", "TargetColumn": "a", "Value": "1"}]}],
     "RENAME changes the frame's shape and takes no ConditionExpressions"),
    ([{"Action": {"Operation": "UPPER_CASE", "Parameters": {"sourceColumn": "a"}},
       "ConditionExpressions": [{"Condition": "LOOKS_LIKE", "TargetColumn": "a", "Value": "1"}]}],
     "ConditionExpressions[1].Condition 'LOOKS_LIKE' is not one of IS"),
    ([{"Action": {"Operation": "UPPER_CASE", "Parameters": {"sourceColumn": "a"}},
       "ConditionExpressions": [{"Condition": "GREATER_THAN", "TargetColumn": "a"}]}],
     "ConditionExpressions[1]: condition GREATER_THAN needs a Value"),
    ([{"Action": {"Operation": "UPPER_CASE", "Parameters": {"sourceColumn": "a"}},
       "ConditionExpressions": [{"Condition": "IS_BETWEEN", "TargetColumn": "a", "Value": "3"}]}],
     "IS_BETWEEN takes a Value like"),
    ([{"Action": {"Operation": "UPPER_CASE", "Parameters": {"sourceColumn": "a"}}, "Extra": 1}],
     "Recipe step 1: unknown member(s) Extra"),
    ([{"Parameters": {}}], "Recipe step 1: unknown member(s) Parameters"),
    ([{}], "Recipe step 1: Action.Operation is required"),
    ([step("UPPER_CASE", sourceColumn="a")] * 101, "a recipe has at most 100 steps, this one has 101"),
]


@pytest.mark.parametrize(("steps", "message"), REFUSED, ids=[m[:40] for _, m in REFUSED])
def test_bad_steps_are_refused_before_any_data(steps: list[Any], message: str) -> None:
    with pytest.raises(RecipeStepError) as refused:
        check_steps(steps)
    assert message in str(refused.value)


def test_steps_refused_against_the_data(spark: Any) -> None:
    df = spark.createDataFrame([(1, "a", [1])], "id INT, name STRING, arr ARRAY<INT>")
    cases = [
        ([step("UPPER_CASE", sourceColumn="name"), step("LOWER_CASE", sourceColumn="nmae")],
         "Recipe step 2 (LOWER_CASE): parameter 'sourceColumn' names no column of the data: 'nmae' "
         "(columns: id, name, arr)"),
        ([step("DUPLICATE", sourceColumn="id", targetColumn="name")],
         "Recipe step 1 (DUPLICATE): parameter 'targetColumn': the data already has a column 'name'"),
        ([step("FILL_WITH_AVERAGE", sourceColumn="name")],
         "FILL_WITH_AVERAGE needs a numeric column; 'name' is string"),
        ([step("UNNEST_STRUCT", sourceColumn="arr")], "UNNEST_STRUCT needs a struct column; 'arr' is array<int>"),
        ([step("UNNEST_ARRAY", sourceColumn="id", targetColumn="x")], "UNNEST_ARRAY needs an array column"),
        ([step("REPLACE_TEXT", sourceColumn="name", pattern="(")],
         "parameter 'pattern' is not a valid regular expression"),
        ([step("MOVE_TO_INDEX", sourceColumn="id", targetIndex="3")], "parameter 'targetIndex' 3 is past the last"),
        ([step("REPLACE_BETWEEN_POSITIONS", sourceColumn="name", startPosition="3", endPosition="1")],
         "parameter 'endPosition' (1) is before 'startPosition' (3)"),
        ([step("SORT", expressions='[{"sourceColumn": "nope"}]')], "parameter 'expressions' item 1 names no column"),
        ([step("SORT", expressions='[{"sourceColumn": "id", "ordering": "UP"}]')], "ordering is one of ASCENDING"),
        ([step("REMOVE_COMBINED", sourceColumn="name", removeCustomValue="true")],
         "parameter 'customValue' is required when removeCustomValue is true"),
        ([step("SPLIT_COLUMN_MULTIPLE_DELIMITER", sourceColumn="name", limit="1", patternOptions='[{"p": 1}]')],
         "parameter 'patternOptions' must be a JSON list"),
        ([step("FILL_WITH_CUSTOM", sourceColumn="id", columnDataType="number", value="lots")],
         "parameter 'value' must be a number for a number fill, not 'lots'"),
        ([{"Action": {"Operation": "UPPER_CASE", "Parameters": {"sourceColumn": "name"}},
           "ConditionExpressions": [{"Condition": "IS", "TargetColumn": "nope", "Value": "1"}]}],
         "ConditionExpressions[1].TargetColumn 'nope' is not a column of the data"),
    ]
    for steps, message in cases:
        with pytest.raises(RecipeStepError) as refused:
            apply_recipe(df, steps)
        assert message in str(refused.value), (message, str(refused.value))
    assert df.columns == ["id", "name", "arr"]
