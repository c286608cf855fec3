"""DataBrew recipe steps as data: each action's operation name, its parameters and what they hold.

A recipe step is DataBrew's ``RecipeStep``::

    {"Action": {"Operation": "REPLACE_TEXT",
                "Parameters": {"sourceColumn": "name", "pattern": "x", "value": "a"}},
     "ConditionExpressions": [{"Condition": "IS_NOT_MISSING", "TargetColumn": "name"}]}

Every parameter value is a string, as DataBrew's model types them (lists of columns are JSON text,
``"[\\"a\\",\\"b\\"]"``; flags are ``"true"``/``"false"``). :func:`check_steps` reads a list of
steps without data: the operation must be one glueball runs, required parameters present, no
parameter the action does not take, numbers, flags, JSON and choices well formed. Whether a named
column exists is known only with the data (:mod:`glueball.recipes.engine`). This module imports no
Spark, so the DataBrew API checks recipes with it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class RecipeStepError(ValueError):
    """A step that cannot run: names the step (1-based), its operation and what was wrong."""

    def __init__(self, number: int, operation: str, message: str) -> None:
        where = f"Recipe step {number}" + (f" ({operation})" if operation else "")
        super().__init__(f"{where}: {message}")
        self.number = number
        self.operation = operation


class Kind(StrEnum):
    """What a parameter holds."""

    COLUMN = "column"  # an existing column
    COLUMNS = "columns"  # a JSON list of existing columns
    NEW_COLUMN = "new column"  # a column name the step creates
    TEXT = "text"
    INT = "integer"
    NUMBER = "number"
    BOOL = "boolean"
    JSON = "JSON"
    CHOICE = "choice"


class Conditions(StrEnum):
    """How a step's ``ConditionExpressions`` limit it.

    VALUES: the step changes the source column only in the rows where they hold; ROWS: the step
    removes (or keeps) only rows where they hold; NEW: the new column has a value only where they
    hold (NULL elsewhere); NONE: the step reshapes the whole frame and takes no conditions.
    """

    VALUES = "values"
    ROWS = "rows"
    NEW = "new"
    NONE = "none"


@dataclass(frozen=True)
class Param:
    name: str
    kind: Kind
    required: bool = True
    choices: tuple[str, ...] = ()
    low: int | None = None
    high: int | None = None


@dataclass(frozen=True)
class Spec:
    """One action: its DataBrew operation name, its parameters, and how conditions apply to it."""

    operation: str
    params: tuple[Param, ...]
    conditions: Conditions
    category: str
    summary: str
    # parameters of which exactly one group must be given (DATE_ADD: sourceColumn or value)
    one_of: tuple[tuple[str, ...], ...] = field(default=())

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)


COLUMN_TYPES = ("byte", "short", "int", "long", "float", "double", "decimal", "string", "boolean",
                "timestamp", "date")
FILL_TYPES = ("date", "number", "boolean", "unsupported", "string", "timestamp")
DATE_UNITS = ("MONTHS", "YEARS", "MILLISECONDS", "QUARTERS", "HOURS", "MICROSECONDS", "WEEKS", "SECONDS", "DAYS",
              "MINUTES")
FLAG_TYPES = ("Yes or No", "True or False", "1 or 0")
REMOVE_FLAGS = ("collapseConsecutiveWhitespace", "removeAllPunctuation", "removeAllQuotes", "removeAllWhitespace",
                "removeCustomCharacters", "removeCustomValue", "removeLeadingAndTrailingPunctuation",
                "removeLeadingAndTrailingQuotes", "removeLeadingAndTrailingWhitespace", "removeLetters",
                "removeNumbers", "removeSpecialCharacters")

SPECS: dict[str, Spec] = {}


def _p(name: str, kind: Kind, required: bool = True, **extra: Any) -> Param:
    return Param(name, kind, required, **extra)


def _spec(operation: str, conditions: Conditions, category: str, summary: str, *params: Param,
          one_of: tuple[tuple[str, ...], ...] = ()) -> None:
    SPECS[operation] = Spec(operation, params, conditions, category, summary, one_of)


SOURCE = _p("sourceColumn", Kind.COLUMN)
TARGET = _p("targetColumn", Kind.NEW_COLUMN)
OPTIONAL_SOURCE = _p("sourceColumn", Kind.COLUMN, False)
V, R, N, X = Conditions.VALUES, Conditions.ROWS, Conditions.NEW, Conditions.NONE

# -- basic column steps
_spec("DELETE", X, "column", "Delete columns.", _p("sourceColumns", Kind.COLUMNS))
_spec("DUPLICATE", N, "column", "Copy a column to a new column.", SOURCE, TARGET)
_spec("RENAME", X, "column", "Rename a column.", SOURCE, TARGET)
_spec("MOVE_AFTER", X, "column", "Move a column after another.", SOURCE, _p("targetColumn", Kind.COLUMN))
_spec("MOVE_BEFORE", X, "column", "Move a column before another.", SOURCE, _p("targetColumn", Kind.COLUMN))
_spec("MOVE_TO_START", X, "column", "Move a column to the first position.", SOURCE)
_spec("MOVE_TO_END", X, "column", "Move a column to the last position.", SOURCE)
_spec("MOVE_TO_INDEX", X, "column", "Move a column to a 0-based position.", SOURCE,
      _p("targetIndex", Kind.INT, low=0))
_spec("SORT", X, "column", "Sort the rows by columns (JSON list of {sourceColumn, ordering, nullsOrdering}).",
      _p("expressions", Kind.JSON))
_spec("CHANGE_DATA_TYPE", X, "column", "Change a column's type; values that do not convert become NULL.", SOURCE,
      _p("columnDataType", Kind.CHOICE, choices=COLUMN_TYPES))
_spec("DELETE_DUPLICATE_ROWS", R, "quality", "Delete rows that repeat an earlier row exactly.")
# -- format and clean
for _name, _summary in (("UPPER_CASE", "Upper-case a text column."), ("LOWER_CASE", "Lower-case a text column."),
                        ("CAPITAL_CASE", "Capitalize each word (the rest lower case)."),
                        ("SENTENCE_CASE", "Capitalize the first letter (the rest lower case)."),
                        ("ADD_DOUBLE_QUOTES", "Enclose values in double quotes."),
                        ("ADD_SINGLE_QUOTES", "Enclose values in single quotes.")):
    _spec(_name, V, "clean", _summary, SOURCE)
_spec("ADD_PREFIX", V, "clean", "Prefix values with a text.", SOURCE, _p("pattern", Kind.TEXT))
_spec("ADD_SUFFIX", V, "clean", "Suffix values with a text.", SOURCE, _p("pattern", Kind.TEXT))
_spec("FORMAT_DATE", V, "clean", "Write dates in another format.", SOURCE, _p("targetDateFormat", Kind.TEXT))
_spec("REMOVE_COMBINED", V, "clean", "Remove characters: quotes, punctuation, special characters, white space ...",
      SOURCE, *(_p(flag, Kind.BOOL, False) for flag in REMOVE_FLAGS), _p("customCharacters", Kind.TEXT, False),
      _p("customValue", Kind.TEXT, False))
_spec("REPLACE_TEXT", V, "clean", "Replace a text or regular expression with a value.", SOURCE,
      _p("pattern", Kind.TEXT), _p("value", Kind.TEXT, False))
_spec("REPLACE_BETWEEN_POSITIONS", V, "clean", "Replace the characters between two positions.", SOURCE,
      _p("startPosition", Kind.INT, low=0), _p("endPosition", Kind.INT, low=0), _p("value", Kind.TEXT, False))
_spec("REPLACE_BETWEEN_DELIMITERS", V, "clean", "Replace the text between two delimiters.", SOURCE,
      _p("startPattern", Kind.TEXT), _p("endPattern", Kind.TEXT), _p("value", Kind.TEXT, False))
_spec("EXTRACT_BETWEEN_POSITIONS", N, "extract", "Copy the characters between two positions to a new column.",
      SOURCE, _p("startPosition", Kind.INT, low=0), _p("endPosition", Kind.INT, low=0), TARGET)
_spec("EXTRACT_BETWEEN_DELIMITERS", N, "extract", "Copy the text between two delimiters to a new column.",
      SOURCE, _p("startPattern", Kind.TEXT), _p("endPattern", Kind.TEXT), TARGET)
_spec("EXTRACT_PATTERN", N, "extract", "Copy the first match of a regular expression to a new column.",
      SOURCE, _p("pattern", Kind.TEXT), TARGET)
# -- missing, invalid and duplicate values
_spec("REMOVE_MISSING", R, "missing", "Remove rows whose column is missing (NULL or empty).", SOURCE)
_spec("REMOVE_INVALID", R, "missing", "Remove rows whose column does not convert to a type.", SOURCE,
      _p("columnDataType", Kind.CHOICE, choices=COLUMN_TYPES + ("number",)))
_spec("REMOVE_DUPLICATES", R, "missing", "Remove rows that repeat an earlier row's value in a column.", SOURCE)
for _name, _summary in (("FILL_WITH_AVERAGE", "the column's average"), ("FILL_WITH_MEDIAN", "the column's median"),
                        ("FILL_WITH_SUM", "the column's sum"),
                        ("FILL_WITH_MOST_FREQUENT", "the column's most frequent value"),
                        ("FILL_WITH_EMPTY", "the empty string"), ("FILL_WITH_NULL", "NULL")):
    _spec(_name, V, "missing", f"Fill missing values with {_summary}.", SOURCE)
_spec("FILL_WITH_CUSTOM", V, "missing", "Fill missing values with a value.", SOURCE,
      _p("columnDataType", Kind.CHOICE, choices=FILL_TYPES), _p("value", Kind.TEXT))
_spec("FILL_WITH_LAST_VALID", V, "missing", "Fill missing values with the last valid value before them.", SOURCE,
      _p("columnDataType", Kind.CHOICE, False, choices=FILL_TYPES))
_spec("FLAG_COLUMN_FROM_NULL", N, "missing", "A new column telling whether the column is missing.", SOURCE,
      TARGET, _p("flagType", Kind.CHOICE, False, choices=FLAG_TYPES))
_spec("FLAG_COLUMN_FROM_PATTERN", N, "missing", "A new column telling whether the column matches a pattern.",
      SOURCE, TARGET, _p("pattern", Kind.TEXT), _p("flagType", Kind.CHOICE, False, choices=FLAG_TYPES))
# -- structure
_spec("MERGE", N, "structure", "Join columns' text with a delimiter into a new column.",
      _p("sourceColumns", Kind.COLUMNS), _p("delimiter", Kind.TEXT, False), TARGET)
_spec("SPLIT_COLUMN_SINGLE_DELIMITER", X, "structure", "Split a column at a delimiter into new columns.", SOURCE,
      _p("pattern", Kind.TEXT), _p("limit", Kind.INT, low=1, high=20), _p("includeInSplit", Kind.BOOL, False))
_spec("SPLIT_COLUMN_MULTIPLE_DELIMITER", X, "structure", "Split a column at several delimiters into new columns.",
      SOURCE, _p("patternOptions", Kind.JSON), _p("limit", Kind.INT, low=1, high=20))
_spec("SPLIT_COLUMN_FROM_START", X, "structure", "Split a column after a number of characters.", SOURCE,
      _p("position", Kind.INT, low=0))
_spec("SPLIT_COLUMN_FROM_END", X, "structure", "Split a column before the last characters.", SOURCE,
      _p("position", Kind.INT, low=0))
for _name, _what in (("NEST_TO_ARRAY", "an array"), ("NEST_TO_MAP", "a map"), ("NEST_TO_STRUCT", "a struct")):
    _spec(_name, X, "structure", f"Nest columns into {_what} column.", _p("sourceColumns", Kind.COLUMNS), TARGET,
          _p("removeSourceColumns", Kind.BOOL, False))
_spec("UNNEST_ARRAY", X, "structure", "A row per element of an array column, in a new column.", SOURCE, TARGET)
_spec("UNNEST_STRUCT", X, "structure", "A column per field of a struct column.", SOURCE,
      _p("removeSourceColumn", Kind.BOOL, False), _p("targetColumn", Kind.TEXT, False))
# -- date and time functions
_spec("DATE_ADD", N, "date", "Add units to a date into a new column.", OPTIONAL_SOURCE, _p("value", Kind.TEXT, False),
      _p("units", Kind.CHOICE, choices=DATE_UNITS), _p("dateAddValue", Kind.INT),
      _p("dateTimeFormat", Kind.TEXT, False), TARGET, one_of=(("sourceColumn", "value"),))
_spec("DATE_DIFF", N, "date", "The difference between two dates in units, in a new column.",
      _p("sourceColumn1", Kind.COLUMN, False), _p("sourceColumn2", Kind.COLUMN, False),
      _p("value1", Kind.TEXT, False), _p("value2", Kind.TEXT, False), _p("units", Kind.CHOICE, choices=DATE_UNITS),
      TARGET, one_of=(("sourceColumn1", "value1"), ("sourceColumn2", "value2")))
_spec("DATE_FORMAT", N, "date", "A date written in a format, in a new column.", OPTIONAL_SOURCE,
      _p("value", Kind.TEXT, False), _p("dateTimeFormat", Kind.TEXT), TARGET, one_of=(("sourceColumn", "value"),))
_spec("CONVERT_TIMEZONE", N, "date", "A time converted between time zones, in a new column.", SOURCE,
      _p("fromTimeZone", Kind.TEXT, False), _p("toTimeZone", Kind.TEXT, False), _p("dateTimeFormat", Kind.TEXT, False),
      TARGET)
DATE_PARTS = ("YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND", "QUARTER", "WEEK_DAY", "WEEK_NUMBER",
              "MONTH_NAME")
for _name in DATE_PARTS:
    _spec(_name, N, "date", f"The {_name.lower().replace('_', ' ')} of a date, in a new column.", OPTIONAL_SOURCE,
          _p("value", Kind.TEXT, False), TARGET, one_of=(("sourceColumn", "value"),))

MAX_STEPS = 100  # DataBrew: "You can include up to 100 data transformations in a single recipe"
_OPERATION = re.compile(r"^[A-Z_]+$")


@dataclass(frozen=True)
class Step:
    """One step read and checked: its number (1-based), spec, parameters and conditions."""

    number: int
    spec: Spec
    params: Mapping[str, str]
    conditions: tuple[Mapping[str, str], ...]

    def fail(self, message: str) -> RecipeStepError:
        return RecipeStepError(self.number, self.spec.operation, message)


def check_steps(steps: Sequence[Any]) -> list[Step]:
    """Read and check ``steps`` (DataBrew ``RecipeStep`` dicts) without data.

    Raises:
        RecipeStepError: the first step that cannot run, naming it and the parameter at fault.
    """
    if not isinstance(steps, list | tuple):
        raise RecipeStepError(0, "", f"steps must be a list of RecipeStep objects, not {type(steps).__name__}")
    if len(steps) > MAX_STEPS:
        raise RecipeStepError(len(steps), "", f"a recipe has at most {MAX_STEPS} steps, this one has {len(steps)}")
    return [_check(number, step) for number, step in enumerate(steps, start=1)]


def _check(number: int, step: Any) -> Step:
    if not isinstance(step, Mapping):
        raise RecipeStepError(number, "", f"a step is an object with Action, not {type(step).__name__}")
    unknown = sorted(set(step) - {"Action", "ConditionExpressions"})
    if unknown:
        raise RecipeStepError(number, "", f"unknown member(s) {', '.join(unknown)}; a step has Action and "
                                          f"ConditionExpressions")
    action = step.get("Action")
    if not isinstance(action, Mapping) or not isinstance(action.get("Operation"), str):
        raise RecipeStepError(number, "", "Action.Operation is required")
    operation = action["Operation"]
    spec = SPECS.get(operation)
    if spec is None:
        hint = "" if _OPERATION.match(operation) else " (operations are upper case with underscores)"
        raise RecipeStepError(number, operation, f"unknown operation {operation!r}{hint}; glueball runs: "
                                                 f"{', '.join(sorted(SPECS))}")
    params = action.get("Parameters") or {}
    if not isinstance(params, Mapping):
        raise RecipeStepError(number, operation, "Action.Parameters must be an object of strings")
    checked = Step(number, spec, dict(params), _conditions(number, spec, step.get("ConditionExpressions")))
    for name, value in params.items():
        param = spec.param(name)
        if param is None:
            takes = ", ".join(p.name for p in spec.params) or "no parameters"
            raise checked.fail(f"unknown parameter {name!r}; {operation} takes {takes}")
        if not isinstance(value, str):
            raise checked.fail(f"parameter {name!r} must be a string, not {type(value).__name__} ({value!r})")
        if not value:  # as DataBrew's model: parameter values are 1 to 32768 characters
            raise checked.fail(f"parameter {name!r} is empty: leave it out instead (for an optional one)")
        _check_value(checked, param, value)
    for param in spec.params:
        if param.required and param.name not in params:
            raise checked.fail(f"parameter {param.name!r} is required")
    for group in spec.one_of:
        given = [name for name in group if name in params]
        if len(given) != 1:
            raise checked.fail(f"give exactly one of the parameters {' or '.join(map(repr, group))}"
                               + (f" (given: {', '.join(given)})" if given else ""))
    return checked


def _check_value(step: Step, param: Param, value: str) -> None:
    name = param.name
    if param.kind is Kind.INT:
        number = integer(step, name, value)
        if param.low is not None and number < param.low or param.high is not None and number > param.high:
            bounds = f"at least {param.low}" if param.high is None else f"from {param.low} to {param.high}"
            raise step.fail(f"parameter {name!r} must be {bounds}, not {number}")
    elif param.kind is Kind.NUMBER:
        try:
            float(value)
        except ValueError:
            raise step.fail(f"parameter {name!r} must be a number, not {value!r}") from None
    elif param.kind is Kind.BOOL and value.lower() not in ("true", "false"):
        raise step.fail(f"parameter {name!r} must be \"true\" or \"false\", not {value!r}")
    elif param.kind is Kind.CHOICE and value not in param.choices:
        raise step.fail(f"parameter {name!r} must be one of {', '.join(param.choices)}; not {value!r}")
    elif param.kind in (Kind.COLUMNS, Kind.JSON):
        loaded = json_value(step, name, value)
        if param.kind is Kind.COLUMNS and (not isinstance(loaded, list) or not loaded
                                           or not all(isinstance(c, str) and c for c in loaded)):
            raise step.fail(f"parameter {name!r} must be a JSON list of column names, not {value!r}")


def integer(step: Step, name: str, value: str) -> int:
    """``value`` of parameter ``name`` as an integer."""
    try:
        return int(value)
    except ValueError:
        raise step.fail(f"parameter {name!r} must be an integer, not {value!r}") from None


def json_value(step: Step, name: str, value: str) -> Any:
    """``value`` of parameter ``name`` read as JSON."""
    try:
        return json.loads(value)
    except json.JSONDecodeError as exc:
        raise step.fail(f"parameter {name!r} is not valid JSON ({exc.msg}): {value!r}") from None


CONDITIONS = ("IS", "IS_NOT", "IS_MISSING", "IS_NOT_MISSING", "CONTAINS", "DOES_NOT_CONTAIN", "STARTS_WITH",
              "DOES_NOT_START_WITH", "ENDS_WITH", "DOES_NOT_END_WITH", "MATCHES", "DOES_NOT_MATCH", "LESS_THAN",
              "LESS_THAN_EQUAL", "GREATER_THAN", "GREATER_THAN_EQUAL", "IS_BETWEEN", "IS_NOT_BETWEEN")
VALUELESS_CONDITIONS = ("IS_MISSING", "IS_NOT_MISSING")


def _conditions(number: int, spec: Spec, given: Any) -> tuple[Mapping[str, str], ...]:
    if given is None or given == []:
        return ()
    fail = lambda message: RecipeStepError(number, spec.operation, message)  # noqa: E731
    if not isinstance(given, list):
        raise fail("ConditionExpressions must be a list")
    if spec.conditions is Conditions.NONE:
        raise fail(f"{spec.operation} changes the frame's shape and takes no ConditionExpressions")
    found = []
    for index, condition in enumerate(given, start=1):
        where = f"ConditionExpressions[{index}]"
        if not isinstance(condition, Mapping):
            raise fail(f"{where} must be an object with Condition, TargetColumn and Value")
        extra = sorted(set(condition) - {"Condition", "TargetColumn", "Value"})
        if extra:
            raise fail(f"{where} has unknown member(s) {', '.join(extra)}")
        name = condition.get("Condition")
        if name not in CONDITIONS:
            raise fail(f"{where}.Condition {name!r} is not one of {', '.join(CONDITIONS)}")
        if not isinstance(condition.get("TargetColumn"), str) or not condition["TargetColumn"]:
            raise fail(f"{where}.TargetColumn is required")
        value = condition.get("Value")
        if name not in VALUELESS_CONDITIONS and not isinstance(value, str):
            raise fail(f"{where}: condition {name} needs a Value")
        if name in ("IS_BETWEEN", "IS_NOT_BETWEEN"):
            try:
                bounds = json.loads(str(value))
            except ValueError:
                bounds = None
            if not isinstance(bounds, dict) or set(bounds) != {"greaterThanEqual", "lessThanEqual"}:
                raise fail(f"{where}: {name} takes a Value like "
                           "'{\"greaterThanEqual\": \"1\", \"lessThanEqual\": \"9\"}', not " + repr(value))
        found.append(dict(condition))
    return tuple(found)
