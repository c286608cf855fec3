"""A step's ``ConditionExpressions`` as one Spark predicate (all of them hold).

Conditions are evaluated on the rows as they are before the step, as DataBrew applies them ("each
condition is applied to the rows in a dataset first, before the recipe action is performed").
``IS`` and ``IS_NOT`` take one value or a JSON list of values; ``IS_BETWEEN`` and
``IS_NOT_BETWEEN`` a JSON object ``{"greaterThanEqual": a, "lessThanEqual": b}`` (bounds included);
the ordering conditions compare numbers when the value is a number, else text. A missing value is
NULL or the empty string.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import NumericType, StringType

from glueball.recipes.steps import Step


def missing(column: Column) -> Column:
    """NULL, or an empty text."""
    return column.isNull() | (column.cast(StringType()) == F.lit(""))


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _compare(df: DataFrame, name: str, value: str) -> tuple[Column, Any]:
    """The column and the value to compare it with: as numbers when the value is one, else as text."""
    column = F.col(f"`{name}`")
    number = _number(value)
    if number is not None:
        numeric = isinstance(df.schema[name].dataType, NumericType)
        return (column if numeric else column.cast(StringType()).try_cast("double")), F.lit(number)
    return column.cast(StringType()), F.lit(value)


def _values(value: str) -> list[str]:
    try:
        loaded = json.loads(value)
    except ValueError:
        return [value]
    if isinstance(loaded, list):
        return [str(item) for item in loaded]
    return [value]


def _one(df: DataFrame, condition: Mapping[str, str]) -> Column:
    name, kind = condition["TargetColumn"], condition["Condition"]
    column = F.col(f"`{name}`")
    text = column.cast(StringType())
    value = str(condition.get("Value") or "")
    if kind == "IS_MISSING":
        return missing(column)
    if kind == "IS_NOT_MISSING":
        return ~missing(column)
    if kind in ("IS", "IS_NOT"):
        found = text.isin(_values(value))
        return found if kind == "IS" else ~found
    if kind in ("CONTAINS", "DOES_NOT_CONTAIN"):
        found = text.contains(value)
        return found if kind == "CONTAINS" else ~found
    if kind in ("STARTS_WITH", "DOES_NOT_START_WITH"):
        found = text.startswith(value)
        return found if kind == "STARTS_WITH" else ~found
    if kind in ("ENDS_WITH", "DOES_NOT_END_WITH"):
        found = text.endswith(value)
        return found if kind == "ENDS_WITH" else ~found
    if kind in ("MATCHES", "DOES_NOT_MATCH"):
        found = text.rlike(f"^(?:{value})$")
        return found if kind == "MATCHES" else ~found
    if kind in ("IS_BETWEEN", "IS_NOT_BETWEEN"):
        bounds = json.loads(value)
        low, low_value = _compare(df, name, str(bounds["greaterThanEqual"]))
        _, high_value = _compare(df, name, str(bounds["lessThanEqual"]))
        found = (low >= low_value) & (low <= high_value)
        return found if kind == "IS_BETWEEN" else ~found
    compared, against = _compare(df, name, value)
    return {"LESS_THAN": compared < against, "LESS_THAN_EQUAL": compared <= against,
            "GREATER_THAN": compared > against, "GREATER_THAN_EQUAL": compared >= against}[kind]


def predicate(df: DataFrame, step: Step, conditions: Sequence[Mapping[str, str]]) -> Column | None:
    """All of ``conditions`` as one predicate over ``df`` (NULL counts as false), or None without any.

    Raises:
        RecipeStepError: a condition names a column ``df`` does not have.
    """
    if not conditions:
        return None
    found: Column | None = None
    for index, condition in enumerate(conditions, start=1):
        if condition["TargetColumn"] not in df.columns:
            raise step.fail(f"ConditionExpressions[{index}].TargetColumn {condition['TargetColumn']!r} is not a "
                            f"column of the data (columns: {', '.join(df.columns)})")
        one = F.coalesce(_one(df, condition), F.lit(False))
        found = one if found is None else found & one
    return found
