"""Per-row conditions as Spark column expressions (ColumnValues, ColumnLength, ColumnDataType, DataFreshness).

Each function returns a boolean :class:`~pyspark.sql.Column` that is true for a row that passes and
false (never null) for one that fails, so the same expression serves the rule's compliance
(``count_if`` in the planner's single aggregation) and the row-level outcomes.

Semantics, following AWS's DQDL reference where it speaks and SQL where it does not:

- NULL, as AWS documents for ColumnValues: ``!=`` and ``not in`` pass a NULL value unless they name
  ``NULL`` (``!= NULL``, ``not in [..., NULL]`` fail it); every other condition (``not between`` and
  ``not matches`` included) fails it unless it names ``NULL`` (``= NULL``, ``in [..., NULL]``).
- ``with ignoreCase = "true"`` compares text (``=``, ``!=``, ``in``, ``not in``, ``matches``) without
  regard to case.
- ``EMPTY`` is ``""``; ``WHITESPACES_ONLY`` a non-empty value of whitespace only.
- ``matches`` must match the whole value (Java regular expressions, as Glue's).
- ``between`` excludes both bounds.
- Numbers compare numerically; a text column is read as numbers with ``try_cast`` (a value that is
  not a number fails). Strings compare as text. Dates (``"2024-01-31"``) compare with the column read
  as a date (a timestamp column: the day each value falls on, in the rule's zone, as the reference
  evaluator reads it); ``now()`` arithmetic and times of day compare with the column read as a
  timestamp.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import TYPE_CHECKING

from glueball.dataquality._operands import Resolver
from glueball.dataquality.ast import (
    Between,
    BinaryOp,
    Comparison,
    DateArithmetic,
    DateLiteral,
    Duration,
    Expression,
    InList,
    Keyword,
    Matches,
    Negative,
    Now,
    NumberLiteral,
    Operand,
    StringLiteral,
    TimeLiteral,
    format_number,
)
from glueball.dataquality.planner import PreconditionFailed
from glueball.dataquality.rules import DECIMAL_TYPE

if TYPE_CHECKING:
    from pyspark.sql import Column
    from pyspark.sql.types import DataType

__all__ = ["column_length", "column_values", "data_type", "freshness", "type_name"]

_NUMERIC = ("byte", "short", "integer", "long", "float", "double", "decimal")
#: ColumnDataType's type -> the Spark type names a typed column may have, and the cast for text
_DATA_TYPES = {
    "boolean": (("boolean",), "boolean"),
    "date": (("date",), "date"),
    "timestamp": (("timestamp", "timestamp_ntz"), "timestamp"),
    "byte": (("byte",), "tinyint"),
    "short": (("byte", "short"), "smallint"),
    "integer": (("byte", "short", "integer"), "int"),
    "long": (("byte", "short", "integer", "long"), "bigint"),
    "float": (("float",), "float"),
    "double": (("float", "double", "decimal"), "double"),
    "decimal": (("byte", "short", "integer", "long", "decimal"), "decimal(38,18)"),
    "string": (("string",), "string"),
}


def type_name(dtype: DataType) -> str:
    """Spark's type name without parameters: ``integer``, ``decimal``, ``string``..."""
    return dtype.typeName()


def _kind(operand: Operand) -> str:
    if isinstance(operand, Keyword):
        return "keyword"
    if isinstance(operand, StringLiteral):
        return "string"
    if isinstance(operand, DateLiteral):
        return "date"
    if isinstance(operand, Now | DateArithmetic | TimeLiteral):
        return "instant"
    if isinstance(operand, NumberLiteral | BinaryOp | Negative):
        return "number"
    raise TypeError(f"{operand.to_dqdl()} cannot be compared with column values")


class _Values:
    """One column, read as whatever the condition's operands need (text folded to lower case on demand)."""

    def __init__(self, column: Column, dtype: DataType, resolver: Resolver, ignore_case: bool = False) -> None:
        self.column = column
        self.kind = type_name(dtype)
        self.resolver = resolver
        self.ignore_case = ignore_case

    def read(self, kind: str) -> Column:
        if kind == "number":
            return self.column if self.kind in _NUMERIC else self.column.try_cast("double")
        if kind == "date":
            return self.column if self.kind == "date" else self.column.try_cast("date")
        if kind == "instant":
            return self.column if self.kind in ("timestamp", "timestamp_ntz") else self.column.try_cast("timestamp")
        from pyspark.sql import functions as F

        text = self.column if self.kind == "string" else self.column.cast("string")
        return F.lower(text) if self.ignore_case else text

    def literal(self, operand: Operand, kind: str) -> Column:
        from pyspark.sql import functions as F

        if kind == "number":
            return F.lit(self.resolver.number(operand))
        if kind == "date":
            assert isinstance(operand, DateLiteral)
            return F.lit(operand.value)
        if kind == "instant":
            return F.lit(self.resolver.instant(operand))
        return F.lit(_text(operand).lower() if self.ignore_case else _text(operand))

    def _by_day(self, kind: str) -> bool:
        """A date compared with a timestamp column compares the day the value falls on (in the rule's
        zone), as the reference evaluator's ``to_date(column)`` does: the day's first and next day's
        first instant bound it, so the column is compared as it is stored."""
        return kind == "date" and self.kind in ("timestamp", "timestamp_ntz")

    def _day(self, operand: Operand) -> tuple[Column, Column]:
        from pyspark.sql import functions as F

        start = self.resolver.instant(operand)
        return F.lit(start), F.lit(start + dt.timedelta(days=1))

    def compare(self, operator: str, operand: Operand) -> Column:
        kind = _kind(operand)
        if not self._by_day(kind):
            return _compare(operator, self.read(kind), self.literal(operand, kind))
        start, end = self._day(operand)
        value = self.column
        if operator in (">", ">="):
            return value >= (end if operator == ">" else start)
        if operator in ("<", "<="):
            return value < (start if operator == "<" else end)
        on = (value >= start) & (value < end)
        return ~on if operator == "!=" else on

    def inside(self, lower: Operand, upper: Operand) -> Column:
        """``between``: both bounds excluded."""
        kind = _kind(lower)
        if self._by_day(kind):
            return (self.column >= self._day(lower)[1]) & (self.column < self._day(upper)[0])
        value = self.read(kind)
        return (value > self.literal(lower, kind)) & (value < self.literal(upper, kind))

    def any_of(self, operands: Sequence[Operand]) -> Column:
        kinds = {_kind(v) for v in operands}
        kind = kinds.pop() if len(kinds) == 1 else "string"
        if not self._by_day(kind):
            return self.read(kind).isin([self.literal(v, kind) for v in operands])
        found = self.compare("=", operands[0])
        for operand in operands[1:]:
            found = found | self.compare("=", operand)
        return found


def _text(operand: Operand) -> str:
    if isinstance(operand, StringLiteral):
        return operand.value
    if isinstance(operand, NumberLiteral):
        return format_number(operand.value)
    if isinstance(operand, DateLiteral):
        return operand.value.isoformat()
    if isinstance(operand, TimeLiteral):
        return operand.text
    return operand.to_dqdl()


def _keyword(column: Column, keyword: Keyword) -> Column:
    if keyword.name == "NULL":
        return column.isNull()
    text = column.cast("string")
    if keyword.name == "EMPTY":
        return text == ""
    return text.rlike(r"^\s+$")


def _strict(predicate: Column) -> Column:
    """Null (unknown) becomes false: a value that cannot be compared fails."""
    from pyspark.sql import functions as F

    return F.coalesce(predicate, F.lit(False))


def column_values(column: Column, dtype: DataType, condition: Expression, resolver: Resolver,
                  ignore_case: bool = False) -> Column:
    """``ColumnValues "c" <condition>`` for one row."""
    values = _Values(column, dtype, resolver, ignore_case)
    if isinstance(condition, Matches):
        flags = "(?i)" if ignore_case else ""
        matched = values.read("string").rlike(f"{flags}^(?:{condition.pattern})$")
        return _strict(~matched if condition.negated else matched)
    if isinstance(condition, Comparison):
        operand = condition.operand
        if isinstance(operand, Keyword):
            found = _keyword(column, operand)
            return _strict(~found if condition.operator == "!=" else found)
        compared = values.compare(condition.operator, operand)
        if condition.operator == "!=":  # AWS: a negated ColumnValues rule passes NULL rows
            compared = compared | column.isNull()
        return _strict(compared)
    if isinstance(condition, Between):
        inside = values.inside(condition.lower, condition.upper)
        return _strict(~inside if condition.negated else inside)
    return _strict(_in_list(column, values, condition))


def _compare(operator: str, left: Column, right: Column) -> Column:
    if operator == "=":
        return left == right
    if operator == "!=":
        return left != right
    if operator == ">":
        return left > right
    if operator == ">=":
        return left >= right
    if operator == "<":
        return left < right
    return left <= right


def _in_list(column: Column, values: _Values, condition: InList) -> Column:
    keywords = [v for v in condition.values if isinstance(v, Keyword)]
    others = [v for v in condition.values if not isinstance(v, Keyword)]
    parts = [_keyword(column, k) for k in keywords]
    if others:
        parts.append(values.any_of(others))
    found = parts[0]
    for part in parts[1:]:
        found = found | part
    mentions_null = any(k.name == "NULL" for k in keywords)
    if condition.negated:
        # AWS: `not in` passes NULL rows, unless the list names NULL
        return ~found if mentions_null else ~found | column.isNull()
    return found


def column_length(column: Column, condition: Expression, resolver: Resolver) -> Column:
    """``ColumnLength "c" <condition>``: the length of the value as text (NULL fails)."""
    from pyspark.sql import functions as F

    length = F.length(column.cast("string"))
    if isinstance(condition, Comparison):
        return _strict(_compare(condition.operator, length, F.lit(resolver.number(condition.operand))))
    if isinstance(condition, Between):
        inside = (length > F.lit(resolver.number(condition.lower))) & (length < F.lit(resolver.number(condition.upper)))
        return _strict(~inside if condition.negated else inside)
    if isinstance(condition, InList):
        found = length.isin([resolver.number(v) for v in condition.values])
        return _strict(~found if condition.negated else found)
    raise TypeError("ColumnLength compares lengths with numbers")


def data_type(column: Column, dtype: DataType, condition: Expression, form: str | None = None) -> Column:
    """``ColumnDataType "c" = "INTEGER"``: the value is of, or as text can be read as, the type.

    A typed column conforms when its Spark type is the type (``Long`` also takes the smaller
    integers, ``Double`` floats and decimals); a text column value by value, with ``try_cast``
    (``Date`` and ``Timestamp`` in the pattern of ``with format = "dd-MM-yyyy"`` when given).
    ``DECIMAL(p,s)`` takes every value that fits ``p`` digits with ``s`` after the point.
    NULL conforms to every type (there is no value to contradict it).
    """
    from pyspark.sql import functions as F

    names: list[str]
    if isinstance(condition, Comparison):
        names, negated = [_text(condition.operand)], condition.operator == "!="
    elif isinstance(condition, InList):
        names, negated = [_text(v) for v in condition.values], condition.negated
    else:
        raise TypeError("ColumnDataType takes = \"TYPE\" or in [\"TYPE\", ...]")
    kind = type_name(dtype)
    conforms = F.lit(False)
    for name in names:
        decimal = DECIMAL_TYPE.fullmatch(name.strip())
        if decimal is not None:
            target = f"decimal({decimal[1]},{decimal[2]})"
            readable = kind == "string" or kind in _NUMERIC
            conforms = conforms | (column.try_cast(target).isNotNull() if readable else F.lit(False))
            continue
        if name.lower() not in _DATA_TYPES:  # the reference parser takes any text; its evaluator fails it
            raise PreconditionFailed(f"Unrecognized data type: {name}")
        typed, cast = _DATA_TYPES[name.lower()]
        if kind == "string" and cast == "string":
            conforms = conforms | F.lit(True)
        elif kind == "string" and form is not None and cast in ("date", "timestamp"):
            conforms = conforms | F.try_to_timestamp(column, F.lit(form)).isNotNull()
        elif kind == "string":
            conforms = conforms | column.try_cast(cast).isNotNull()
        else:
            conforms = conforms | F.lit(kind in typed)
    return column.isNull() | _strict(~conforms if negated else conforms)


def freshness(column: Column, condition: Expression, resolver: Resolver) -> Column:
    """``DataFreshness "c" <= 24 hours``: the age of the value (now minus it) meets the condition."""
    from pyspark.sql import functions as F

    instant = column.try_cast("timestamp")
    age = F.lit(resolver.now.timestamp()) - F.unix_micros(instant) / F.lit(1_000_000.0)

    def seconds(operand: Operand) -> Column:
        if not isinstance(operand, Duration):
            raise TypeError(f"DataFreshness compares durations, not {operand.to_dqdl()}")
        return F.lit(float(operand.seconds))

    def whole(operand: Operand) -> Column:
        """The age in whole units of ``operand`` (3 days old until 4 days old is "3 days")."""
        if not isinstance(operand, Duration):
            raise TypeError(f"DataFreshness compares durations, not {operand.to_dqdl()}")
        unit = float(Duration(1, operand.unit).seconds)
        return F.floor(age / F.lit(unit)) == F.lit(operand.amount)

    if isinstance(condition, Comparison) and condition.operator in ("=", "!="):
        equal = whole(condition.operand)
        return _strict(~equal if condition.operator == "!=" else equal)
    if isinstance(condition, Comparison):
        return _strict(_compare(condition.operator, age, seconds(condition.operand)))
    if isinstance(condition, Between):
        inside = (age > seconds(condition.lower)) & (age < seconds(condition.upper))
        return _strict(~inside if condition.negated else inside)
    if isinstance(condition, InList):
        found = F.lit(False)
        for value in condition.values:
            found = found | whole(value)
        return _strict(~found if condition.negated else found)
    raise TypeError("DataFreshness takes a comparison, between or in with durations")
