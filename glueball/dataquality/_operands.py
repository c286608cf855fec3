"""Comparing a metric with a rule's condition, in Python, as Glue does once the metric is known.

Operands are numbers, sizes (bytes), durations (seconds), dates and times (epoch seconds), and the
dynamic values of ``last(k)``: ``avg``, ``min``, ``max``, ``sum``, ``median`` and ``std`` (population
standard deviation) of the metric's last ``k`` values in the evaluation context's history, or
``index(last(k), i)`` (0 the most recent), combined with ``+ - * /``. ``between`` excludes both
bounds, as AWS documents. With fewer than ``k`` earlier values the available ones are used; with
none, :class:`NoHistory` is raised and the rule's outcome is ``Error`` (AWS's documentation does not
say what a first run gives; an error makes the missing baseline visible rather than passing or
failing silently).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import statistics
import zoneinfo
from collections.abc import Callable, Iterator

from glueball.dataquality.ast import (
    Aggregate,
    Between,
    BinaryOp,
    Comparison,
    DateArithmetic,
    DateLiteral,
    Duration,
    Expression,
    FunctionCall,
    IndexOf,
    InList,
    LastK,
    Matches,
    Negative,
    Now,
    NumberLiteral,
    Operand,
    Size,
    TimeLiteral,
)

__all__ = ["NoHistory", "Resolver", "UnknownFunction", "dynamic_depth", "operands_of", "satisfies", "substitute"]

#: the metric's last ``k`` values, newest first
Lookup = Callable[[int], list[float]]


class NoHistory(ValueError):
    """A dynamic rule needs metric history that the evaluation context does not have."""


class UnknownFunction(ValueError):
    """A dynamic expression calls a function glueball does not know (the rule's outcome is Error)."""


def operands_of(expression: Expression) -> Iterator[Operand]:
    """Every operand of ``expression``, nested ones included."""
    stack: list[Operand]
    if isinstance(expression, Comparison):
        stack = [expression.operand]
    elif isinstance(expression, Between):
        stack = [expression.lower, expression.upper]
    elif isinstance(expression, InList):
        stack = list(expression.values)
    else:
        stack = []
    while stack:
        operand = stack.pop()
        yield operand
        if isinstance(operand, BinaryOp):
            stack += [operand.left, operand.right]
        elif isinstance(operand, Negative):
            stack.append(operand.operand)


def dynamic_depth(expression: Expression | None) -> int:
    """The most history values ``expression`` reads (0: a static condition)."""
    if expression is None:
        return 0
    depth = 0
    for operand in operands_of(expression):
        if isinstance(operand, Aggregate | IndexOf):
            depth = max(depth, operand.source.k)
    return depth


class Resolver:
    """Turns operands into numbers: values from history, dates as epoch seconds at ``now``."""

    def __init__(self, lookup: Lookup, metric: str, now: dt.datetime, time_zone: str | None = None) -> None:
        self.lookup = lookup
        self.metric = metric
        self.now = now
        self.zone = zoneinfo.ZoneInfo(time_zone) if time_zone else dt.UTC

    def history(self, source: LastK) -> list[float]:
        values = self.lookup(source.k)
        if not values:
            raise NoHistory(f"no earlier values of {self.metric} in this evaluation context: "
                            f"{source.to_dqdl()} needs at least one earlier run")
        return values

    def number(self, operand: Operand) -> float:
        if isinstance(operand, NumberLiteral):
            return float(operand.value)
        if isinstance(operand, Size):
            return float(operand.bytes)
        if isinstance(operand, Duration):
            return float(operand.seconds)
        if isinstance(operand, Now | DateArithmetic | DateLiteral | TimeLiteral):
            return self.instant(operand).timestamp()
        if isinstance(operand, Aggregate):
            return _aggregate(operand.function, self.history(operand.source))
        if isinstance(operand, IndexOf):
            values = self.history(operand.source)
            if operand.index >= len(values):
                raise NoHistory(f"{operand.to_dqdl()}: only {len(values)} earlier value(s) of {self.metric}")
            return values[operand.index]
        if isinstance(operand, Negative):
            return -self.number(operand.operand)
        if isinstance(operand, FunctionCall):
            raise UnknownFunction(f"{operand.to_dqdl()}: unknown function {operand.name}() or arguments it does "
                                  "not take; dynamic rules support avg, min, max, sum, median and std of last(k), "
                                  "and index(last(k), i)")
        if isinstance(operand, BinaryOp):
            left, right = self.number(operand.left), self.number(operand.right)
            if operand.operator == "+":
                return left + right
            if operand.operator == "-":
                return left - right
            if operand.operator == "*":
                return left * right
            if right == 0:
                raise ZeroDivisionError(f"{operand.to_dqdl()} divides by zero")
            return left / right
        raise TypeError(f"{operand.to_dqdl()} is not a number")

    def instant(self, operand: Operand) -> dt.datetime:
        """A date operand as an aware datetime: dates at midnight and times of day today, in the zone."""
        if isinstance(operand, Now):
            return self.now
        if isinstance(operand, DateArithmetic):
            delta = dt.timedelta(seconds=operand.duration.seconds)
            return self.now + delta if operand.operator == "+" else self.now - delta
        if isinstance(operand, DateLiteral):
            return dt.datetime.combine(operand.value, dt.time(), self.zone)
        if isinstance(operand, TimeLiteral):
            today = self.now.astimezone(self.zone).date()
            return dt.datetime.combine(today, operand.value, self.zone)
        raise TypeError(f"{operand.to_dqdl()} is not a date")


def _aggregate(function: str, values: list[float]) -> float:
    if function == "avg":
        return statistics.fmean(values)
    if function == "min":
        return min(values)
    if function == "max":
        return max(values)
    if function == "sum":
        return float(sum(values))
    if function == "median":
        return float(statistics.median(values))
    return statistics.pstdev(values)


def satisfies(expression: Expression, value: float, resolver: Resolver) -> bool:
    """Whether ``value`` meets ``expression`` (between excludes its bounds; = is exact, as in Glue)."""
    if isinstance(expression, Comparison):
        target = resolver.number(expression.operand)
        return {
            "=": value == target,
            "!=": value != target,
            ">": value > target,
            ">=": value >= target,
            "<": value < target,
            "<=": value <= target,
        }[expression.operator]
    if isinstance(expression, Between):
        inside = resolver.number(expression.lower) < value < resolver.number(expression.upper)
        return inside != expression.negated
    if isinstance(expression, InList):
        found = any(value == resolver.number(operand) for operand in expression.values)
        return found != expression.negated
    if isinstance(expression, Matches):
        raise TypeError("'matches' compares text, not a number")
    raise TypeError(f"unknown condition {expression!r}")


def _dynamic(operand: Operand) -> bool:
    if isinstance(operand, Aggregate | IndexOf | FunctionCall):
        return True
    if isinstance(operand, BinaryOp):
        return _dynamic(operand.left) or _dynamic(operand.right)
    if isinstance(operand, Negative):
        return _dynamic(operand.operand)
    return False


def substitute(expression: Expression, resolver: Resolver) -> Expression:
    """``expression`` with its dynamic operands replaced by their values (Glue's ``EvaluatedRule``)."""

    def fixed(operand: Operand) -> Operand:
        if not _dynamic(operand):
            return operand
        value = resolver.number(operand)
        return NumberLiteral(int(value) if value.is_integer() and abs(value) < 2**53 else value)

    if isinstance(expression, Comparison):
        return dataclasses.replace(expression, operand=fixed(expression.operand), text=None)
    if isinstance(expression, Between):
        return dataclasses.replace(expression, lower=fixed(expression.lower), upper=fixed(expression.upper),
                                   text=None)
    if isinstance(expression, InList):
        return dataclasses.replace(expression, values=tuple(fixed(v) for v in expression.values), text=None)
    return expression
