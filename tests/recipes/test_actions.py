"""Every recipe action on small frames, in one Spark session: what each step makes of the rows.

Each test runs several steps of one category; rows come back in the frame's order (the engine keeps
the input order), so results are compared as lists.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from glueball.recipes.recipe_engine import apply_recipe
from glueball.recipes.steps import SPECS


def step(operation: str, conditions: list[dict[str, str]] | None = None, **params: str) -> dict[str, Any]:
    made: dict[str, Any] = {"Action": {"Operation": operation, "Parameters": params}}
    if conditions:
        made["ConditionExpressions"] = conditions
    return made


def rows(df: Any) -> list[tuple[Any, ...]]:
    return [tuple(row) for row in df.collect()]


def column(df: Any, name: str) -> list[Any]:
    return [row[name] for row in df.collect()]


@pytest.fixture(scope="module")
def people(spark: Any) -> Any:
    return spark.createDataFrame(
        [(1, "ann lee", "NY", 30.0), (2, None, "LA", None), (3, "BOB  ray", "", 50.0), (4, "cy", "NY", 10.0)],
        "id INT, name STRING, city STRING, score DOUBLE")


def test_there_are_at_least_forty_actions() -> None:
    assert len(SPECS) >= 40


def test_column_actions(people: Any) -> None:
    assert apply_recipe(people, [step("DELETE", sourceColumns='["city","score"]')]).columns == ["id", "name"]
    assert apply_recipe(people, [step("RENAME", sourceColumn="name", targetColumn="full")]).columns == [
        "id", "full", "city", "score"]
    duplicated = apply_recipe(people, [step("DUPLICATE", sourceColumn="city", targetColumn="town")])
    assert duplicated.columns == ["id", "name", "city", "town", "score"]
    assert column(duplicated, "town") == ["NY", "LA", "", "NY"]
    assert apply_recipe(people, [step("MOVE_TO_START", sourceColumn="score")]).columns == [
        "score", "id", "name", "city"]
    assert apply_recipe(people, [step("MOVE_TO_END", sourceColumn="id")]).columns == ["name", "city", "score", "id"]
    assert apply_recipe(people, [step("MOVE_TO_INDEX", sourceColumn="id", targetIndex="2")]).columns == [
        "name", "city", "id", "score"]
    assert apply_recipe(people, [step("MOVE_AFTER", sourceColumn="id", targetColumn="city")]).columns == [
        "name", "city", "id", "score"]
    assert apply_recipe(people, [step("MOVE_BEFORE", sourceColumn="score", targetColumn="name")]).columns == [
        "id", "score", "name", "city"]
    ordered = apply_recipe(people, [step("SORT", expressions=(
        '[{"sourceColumn":"city","ordering":"DESCENDING"},'
        '{"sourceColumn":"score","ordering":"ASCENDING","nullsOrdering":"NULLS_BOTTOM"}]'))])
    assert column(ordered, "id") == [4, 1, 2, 3]


def test_change_data_type(spark: Any) -> None:
    df = spark.createDataFrame([("12", "yes", "2024-02-29", "1.5"), ("x", "No", "nope", "abc")],
                               "n STRING, b STRING, d STRING, f STRING")
    out = apply_recipe(df, [step("CHANGE_DATA_TYPE", sourceColumn="n", columnDataType="int"),
                            step("CHANGE_DATA_TYPE", sourceColumn="b", columnDataType="boolean"),
                            step("CHANGE_DATA_TYPE", sourceColumn="d", columnDataType="date"),
                            step("CHANGE_DATA_TYPE", sourceColumn="f", columnDataType="double")])
    assert dict(out.dtypes) == {"n": "int", "b": "boolean", "d": "date", "f": "double"}
    assert rows(out) == [(12, True, dt.date(2024, 2, 29), 1.5), (None, False, None, None)]
    back = apply_recipe(out, [step("CHANGE_DATA_TYPE", sourceColumn="n", columnDataType="string")])
    assert column(back, "n") == ["12", None]


def test_format_actions(spark: Any) -> None:
    df = spark.createDataFrame([("hello wORLD",), ("ABC def",)], "t STRING")

    def one(operation: str, **params: str) -> list[Any]:
        return column(apply_recipe(df, [step(operation, sourceColumn="t", **params)]), "t")

    assert one("UPPER_CASE") == ["HELLO WORLD", "ABC DEF"]
    assert one("LOWER_CASE") == ["hello world", "abc def"]
    assert one("CAPITAL_CASE") == ["Hello World", "Abc Def"]
    assert one("SENTENCE_CASE") == ["Hello world", "Abc def"]
    assert one("ADD_DOUBLE_QUOTES") == ['"hello wORLD"', '"ABC def"']
    assert one("ADD_SINGLE_QUOTES") == ["'hello wORLD'", "'ABC def'"]
    assert one("ADD_PREFIX", pattern="> ") == ["> hello wORLD", "> ABC def"]
    assert one("ADD_SUFFIX", pattern="$1") == ["hello wORLD$1", "ABC def$1"]


def test_format_date(spark: Any) -> None:
    df = spark.createDataFrame([("2024-03-05",), ("2023-12-31 08:09:10",), ("bad",)], "d STRING")
    out = apply_recipe(df, [step("FORMAT_DATE", sourceColumn="d", targetDateFormat="mm/dd/yyyy")])
    assert column(out, "d") == ["03/05/2024", "12/31/2023", None]
    out = apply_recipe(df, [step("FORMAT_DATE", sourceColumn="d", targetDateFormat="dd month yyyy HH:MM:SS")])
    assert column(out, "d") == ["05 March 2024 00:00:00", "31 December 2023 08:09:10", None]


def test_clean_actions(spark: Any) -> None:
    df = spark.createDataFrame([(' "Dr. Ann"  O\'Neil!! ',), ("#A1-b2 (c3)?",)], "t STRING")

    def removed(**flags: str) -> list[Any]:
        return column(apply_recipe(df, [step("REMOVE_COMBINED", sourceColumn="t", **flags)]), "t")

    assert removed(removeAllQuotes="true") == [" Dr. Ann  ONeil!! ", "#A1-b2 (c3)?"]
    assert removed(removeSpecialCharacters="true") == [" Dr Ann  ONeil ", "A1b2 c3"]
    assert removed(removeAllPunctuation="true") == [' "Dr Ann"  O\'Neil ', "#A1-b2 (c3)"]
    assert removed(removeLetters="true", removeNumbers="true") == [' ". "  \'!! ', "#- ()?"]
    assert removed(removeAllWhitespace="true") == ['"Dr.Ann"O\'Neil!!', "#A1-b2(c3)?"]
    assert removed(collapseConsecutiveWhitespace="true", removeLeadingAndTrailingWhitespace="true") == [
        '"Dr. Ann" O\'Neil!!', "#A1-b2 (c3)?"]
    assert removed(removeLeadingAndTrailingPunctuation="true", removeLeadingAndTrailingWhitespace="true") == [
        '"Dr. Ann"  O\'Neil!!', "#A1-b2 (c3)"]
    assert removed(removeCustomCharacters="true", customCharacters="#()") == [
        ' "Dr. Ann"  O\'Neil!! ', "A1-b2 c3?"]
    assert removed(removeCustomValue="true", customValue="Dr. ") == [' "Ann"  O\'Neil!! ', "#A1-b2 (c3)?"]
    assert removed(removeAllQuotes="false") == [' "Dr. Ann"  O\'Neil!! ', "#A1-b2 (c3)?"]
    quoted = spark.createDataFrame([("'abc'",), ('"x"y"',)], "t STRING")
    out = apply_recipe(quoted, [step("REMOVE_COMBINED", sourceColumn="t", removeLeadingAndTrailingQuotes="true")])
    assert column(out, "t") == ["abc", 'x"y']


def test_replace_and_extract(spark: Any) -> None:
    df = spark.createDataFrame([("call 555-1234 [home]",), ("no number",)], "t STRING")

    def one(operation: str, **params: str) -> list[Any]:
        return column(apply_recipe(df, [step(operation, sourceColumn="t", **params)]), "t")

    assert one("REPLACE_TEXT", pattern="[0-9]", value="#") == ["call ###-#### [home]", "no number"]
    assert one("REPLACE_TEXT", pattern="o", value="$0") == ["call 555-1234 [h$0me]", "n$0 number"]
    assert one("REPLACE_BETWEEN_POSITIONS", startPosition="0", endPosition="4", value="dial") == [
        "dial 555-1234 [home]", "dialumber"]
    assert one("REPLACE_BETWEEN_DELIMITERS", startPattern="[", endPattern="]", value="work") == [
        "call 555-1234 [work]", "no number"]

    def new(operation: str, **params: str) -> list[Any]:
        out = apply_recipe(df, [step(operation, sourceColumn="t", targetColumn="x", **params)])
        assert out.columns == ["t", "x"]
        return column(out, "x")

    assert new("EXTRACT_BETWEEN_POSITIONS", startPosition="5", endPosition="8") == ["555", "mbe"]
    assert new("EXTRACT_BETWEEN_DELIMITERS", startPattern="[", endPattern="]") == ["home", None]
    assert new("EXTRACT_PATTERN", pattern="[0-9]{3}-[0-9]{4}") == ["555-1234", None]


def test_missing_values(people: Any) -> None:
    assert column(apply_recipe(people, [step("REMOVE_MISSING", sourceColumn="name")]), "id") == [1, 3, 4]
    assert column(apply_recipe(people, [step("REMOVE_MISSING", sourceColumn="city")]), "id") == [1, 2, 4]

    def filled(operation: str, name: str = "score", **params: str) -> list[Any]:
        return column(apply_recipe(people, [step(operation, sourceColumn=name, **params)]), name)

    assert filled("FILL_WITH_AVERAGE") == [30.0, 30.0, 50.0, 10.0]
    assert filled("FILL_WITH_SUM") == [30.0, 90.0, 50.0, 10.0]
    assert filled("FILL_WITH_MEDIAN") == [30.0, 30.0, 50.0, 10.0]
    assert filled("FILL_WITH_MOST_FREQUENT", "city") == ["NY", "LA", "NY", "NY"]
    assert filled("FILL_WITH_EMPTY", "name") == ["ann lee", "", "BOB  ray", "cy"]
    assert filled("FILL_WITH_NULL", "city") == ["NY", "LA", None, "NY"]
    assert filled("FILL_WITH_CUSTOM", "name", columnDataType="string", value="n/a") == [
        "ann lee", "n/a", "BOB  ray", "cy"]
    assert filled("FILL_WITH_CUSTOM", columnDataType="number", value="7") == [30.0, 7.0, 50.0, 10.0]
    assert filled("FILL_WITH_LAST_VALID", "city", columnDataType="string") == ["NY", "LA", "LA", "NY"]
    assert filled("FILL_WITH_LAST_VALID", "name") == ["ann lee", "ann lee", "BOB  ray", "cy"]
    flagged = apply_recipe(people, [step("FLAG_COLUMN_FROM_NULL", sourceColumn="score", targetColumn="no_score",
                                         flagType="Yes or No")])
    assert flagged.columns == ["id", "name", "city", "score", "no_score"]
    assert column(flagged, "no_score") == ["No", "Yes", "No", "No"]
    flagged = apply_recipe(people, [step("FLAG_COLUMN_FROM_PATTERN", sourceColumn="name", targetColumn="two",
                                         pattern="^[a-z]+ [a-z]+$")])
    assert column(flagged, "two") == [True, False, False, False]
    flagged = apply_recipe(people, [step("FLAG_COLUMN_FROM_NULL", sourceColumn="name", targetColumn="f",
                                         flagType="1 or 0")])
    assert column(flagged, "f") == [0, 1, 0, 0]


def test_invalid_and_duplicate_values(spark: Any) -> None:
    df = spark.createDataFrame([("1", "a"), ("x", "b"), ("1", "a"), (None, "b"), ("2.5", "c")], "n STRING, k STRING")
    assert rows(apply_recipe(df, [step("REMOVE_INVALID", sourceColumn="n", columnDataType="int")])) == [
        ("1", "a"), ("1", "a"), (None, "b")]
    assert rows(apply_recipe(df, [step("REMOVE_INVALID", sourceColumn="n", columnDataType="number")])) == [
        ("1", "a"), ("1", "a"), (None, "b"), ("2.5", "c")]
    assert rows(apply_recipe(df, [step("DELETE_DUPLICATE_ROWS")])) == [
        ("1", "a"), ("x", "b"), (None, "b"), ("2.5", "c")]
    assert rows(apply_recipe(df, [step("REMOVE_DUPLICATES", sourceColumn="k")])) == [
        ("1", "a"), ("x", "b"), ("2.5", "c")]


def test_structure_actions(spark: Any) -> None:
    df = spark.createDataFrame([(1, "a,b;c", "x"), (2, "d", "y")], "id INT, t STRING, u STRING")
    merged = apply_recipe(df, [step("MERGE", sourceColumns='["u","id"]', delimiter="-", targetColumn="m")])
    assert column(merged, "m") == ["x-1", "y-2"]
    split = apply_recipe(df, [step("SPLIT_COLUMN_SINGLE_DELIMITER", sourceColumn="t", pattern=",", limit="1")])
    assert split.columns == ["id", "t_1", "t_2", "u"]
    assert rows(split) == [(1, "a", "b;c", "x"), (2, "d", None, "y")]
    kept = apply_recipe(df, [step("SPLIT_COLUMN_SINGLE_DELIMITER", sourceColumn="t", pattern=",", limit="1",
                                  includeInSplit="true")])
    assert column(kept, "t_1") == ["a,", "d"]
    multiple = apply_recipe(df, [step("SPLIT_COLUMN_MULTIPLE_DELIMITER", sourceColumn="t", limit="2", patternOptions=(
        '[{"pattern":",","includeInSplit":false},{"pattern":";","includeInSplit":false}]'))])
    assert rows(multiple) == [(1, "a", "b", "c", "x"), (2, "d", None, None, "y")]
    start = apply_recipe(df, [step("SPLIT_COLUMN_FROM_START", sourceColumn="t", position="2")])
    assert rows(start) == [(1, "a,", "b;c", "x"), (2, "d", "", "y")]
    end = apply_recipe(df, [step("SPLIT_COLUMN_FROM_END", sourceColumn="t", position="2")])
    assert rows(end) == [(1, "a,b", ";c", "x"), (2, "", "d", "y")]


def test_nest_and_unnest(spark: Any) -> None:
    df = spark.createDataFrame([(1, "a", 2), (3, "b", 4)], "id INT, s STRING, n INT")
    array = apply_recipe(df, [step("NEST_TO_ARRAY", sourceColumns='["id","n"]', targetColumn="arr",
                                   removeSourceColumns="true")])
    assert array.columns == ["s", "arr"]
    assert rows(array) == [("a", [1, 2]), ("b", [3, 4])]
    mapped = apply_recipe(df, [step("NEST_TO_MAP", sourceColumns='["s","n"]', targetColumn="m")])
    assert column(mapped, "m") == [{"s": "a", "n": "2"}, {"s": "b", "n": "4"}]
    struct = apply_recipe(df, [step("NEST_TO_STRUCT", sourceColumns='["s","n"]', targetColumn="st",
                                    removeSourceColumns="true")])
    unnested = apply_recipe(struct, [step("UNNEST_STRUCT", sourceColumn="st", removeSourceColumn="true",
                                          targetColumn="p")])
    assert unnested.columns == ["id", "p_s", "p_n"]
    assert rows(unnested) == [(1, "a", 2), (3, "b", 4)]
    exploded = apply_recipe(array, [step("UNNEST_ARRAY", sourceColumn="arr", targetColumn="v")])
    assert rows(exploded) == [("a", [1, 2], 1), ("a", [1, 2], 2), ("b", [3, 4], 3), ("b", [3, 4], 4)]
    in_place = apply_recipe(array, [step("UNNEST_ARRAY", sourceColumn="arr", targetColumn="arr")])
    assert rows(in_place) == [("a", 1), ("a", 2), ("b", 3), ("b", 4)]


def test_date_functions(spark: Any) -> None:
    df = spark.createDataFrame([("2024-01-31 10:20:30", "2024-03-01")], "t STRING, d STRING")

    def new(operation: str, **params: str) -> Any:
        return column(apply_recipe(df, [step(operation, targetColumn="x", **params)]), "x")[0]

    assert new("DATE_ADD", sourceColumn="t", units="MONTHS", dateAddValue="1") == "2024-02-29 10:20:30"
    assert new("DATE_ADD", value="2020-01-01", units="DAYS", dateAddValue="-1", dateTimeFormat="mm/dd/yyyy") == (
        "12/31/2019")
    assert new("DATE_DIFF", sourceColumn1="t", sourceColumn2="d", units="DAYS") == 29
    assert new("DATE_DIFF", value1="2020-01-01", value2="2020-10-06", units="DAYS") == 279
    assert new("DATE_DIFF", sourceColumn1="t", value2="2024-01-31 12:20:30", units="HOURS") == 2
    assert new("DATE_FORMAT", sourceColumn="t", dateTimeFormat="yyyy/mm/dd HH") == "2024/01/31 10"
    assert new("CONVERT_TIMEZONE", sourceColumn="t", fromTimeZone="UTC", toTimeZone="Asia/Tokyo") == (
        "2024-01-31 19:20:30")
    parts = {"YEAR": 2024, "MONTH": 1, "DAY": 31, "HOUR": 10, "MINUTE": 20, "SECOND": 30, "QUARTER": 1,
             "WEEK_DAY": 4, "WEEK_NUMBER": 5, "MONTH_NAME": "January"}
    assert {part: new(part, sourceColumn="t") for part in parts} == parts
    assert new("YEAR", value="1999-05-06") == 1999


def test_conditions_limit_each_kind_of_step(people: Any) -> None:
    in_ny = [{"Condition": "IS", "TargetColumn": "city", "Value": '["NY"]'}]
    upper = apply_recipe(people, [step("UPPER_CASE", in_ny, sourceColumn="name")])
    assert column(upper, "name") == ["ANN LEE", None, "BOB  ray", "CY"]
    removed = apply_recipe(people, [step("REMOVE_MISSING", [{"Condition": "GREATER_THAN", "TargetColumn": "id",
                                                             "Value": "2"}], sourceColumn="city")])
    assert column(removed, "id") == [1, 2, 4]
    flagged = apply_recipe(people, [step("DUPLICATE", [{"Condition": "LESS_THAN_EQUAL", "TargetColumn": "score",
                                                        "Value": "30"}], sourceColumn="score", targetColumn="low")])
    assert column(flagged, "low") == [30.0, None, None, 10.0]

    def ids(*conditions: dict[str, str]) -> list[Any]:
        out = apply_recipe(people, [step("DUPLICATE", list(conditions), sourceColumn="id", targetColumn="hit")])
        return [row["id"] for row in out.collect() if row["hit"] is not None]

    assert ids({"Condition": "IS_NOT", "TargetColumn": "city", "Value": "NY"}) == [2, 3]
    assert ids({"Condition": "IS_MISSING", "TargetColumn": "name"}) == [2]
    assert ids({"Condition": "IS_NOT_MISSING", "TargetColumn": "city"}) == [1, 2, 4]
    assert ids({"Condition": "CONTAINS", "TargetColumn": "name", "Value": "y"}) == [3, 4]
    assert ids({"Condition": "DOES_NOT_CONTAIN", "TargetColumn": "name", "Value": "y"}) == [1]
    assert ids({"Condition": "STARTS_WITH", "TargetColumn": "name", "Value": "BOB"}) == [3]
    assert ids({"Condition": "DOES_NOT_START_WITH", "TargetColumn": "name", "Value": "BOB"}) == [1, 4]
    assert ids({"Condition": "ENDS_WITH", "TargetColumn": "name", "Value": "lee"}) == [1]
    assert ids({"Condition": "DOES_NOT_END_WITH", "TargetColumn": "name", "Value": "lee"}) == [3, 4]
    assert ids({"Condition": "MATCHES", "TargetColumn": "name", "Value": "[a-z]+"}) == [4]
    assert ids({"Condition": "DOES_NOT_MATCH", "TargetColumn": "name", "Value": "[a-z]+"}) == [1, 3]
    assert ids({"Condition": "LESS_THAN", "TargetColumn": "score", "Value": "30"}) == [4]
    assert ids({"Condition": "GREATER_THAN_EQUAL", "TargetColumn": "score", "Value": "30"}) == [1, 3]
    assert ids({"Condition": "IS_BETWEEN", "TargetColumn": "score",
                "Value": '{"greaterThanEqual": "20", "lessThanEqual": "50"}'}) == [1, 3]
    assert ids({"Condition": "IS_NOT_BETWEEN", "TargetColumn": "score",
                "Value": '{"greaterThanEqual": "20", "lessThanEqual": "50"}'}) == [4]
    assert ids({"Condition": "IS", "TargetColumn": "city", "Value": "NY"},
               {"Condition": "GREATER_THAN", "TargetColumn": "id", "Value": "1"}) == [4]
