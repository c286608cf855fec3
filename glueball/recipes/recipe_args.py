"""What an action implementation is given, and the registry of implementations by operation.

An implementation is registered for one operation with one of four decorators, by what it
returns (and so how the step's conditions limit it, :class:`glueball.recipes.steps.Conditions`):

- :func:`values`: the new values of ``sourceColumn`` (a Spark column);
- :func:`new_column`: the values of the new ``targetColumn``;
- :func:`rows`: which rows to keep;
- :func:`frame`: the whole new frame.

:class:`Args` reads the step's parameters against the frame, so a column that is not there, a
target that already is, or a value that does not fit is refused naming the step and parameter.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from glueball.recipes.steps import Conditions, Step, integer, json_value

# the input order of the rows, kept through the steps for those that need one (FILL_WITH_LAST_VALID,
# DELETE_DUPLICATE_ROWS): Spark frames have no order of their own
ROW = "__glueball_recipe_row"


def quoted(name: str) -> Column:
    """The column called ``name`` (dots and spaces in the name taken literally)."""
    return F.col("`" + name.replace("`", "``") + "`")


@dataclass(frozen=True)
class Args:
    """A step's parameters read against the frame it runs on."""

    step: Step
    df: DataFrame

    @property
    def names(self) -> list[str]:
        """The frame's columns (without glueball's row order)."""
        return [name for name in self.df.columns if name != ROW]

    def has(self, name: str) -> bool:
        return name in self.step.params

    def text(self, name: str, default: str = "") -> str:
        return self.step.params.get(name, default)

    def flag(self, name: str, default: bool = False) -> bool:
        value = self.step.params.get(name)
        return default if value is None else value.lower() == "true"

    def integer(self, name: str) -> int:
        return integer(self.step, name, self.step.params[name])

    def json(self, name: str) -> Any:
        return json_value(self.step, name, self.step.params[name])

    def column(self, name: str = "sourceColumn") -> str:
        """The existing column parameter ``name`` names."""
        return self._existing(name, self.step.params[name])

    def col(self, name: str = "sourceColumn") -> Column:
        return quoted(self.column(name))

    def columns(self, name: str = "sourceColumns") -> list[str]:
        """The existing columns of a JSON list parameter."""
        return [self._existing(name, column) for column in self.json(name)]

    def target(self, name: str = "targetColumn") -> str:
        """A new column's name: one the frame does not have yet."""
        value = self.step.params[name]
        if value in self.names or value == ROW:
            raise self.step.fail(f"parameter {name!r}: the data already has a column {value!r}")
        return value

    def fail(self, message: str) -> Exception:
        return self.step.fail(message)

    def _existing(self, parameter: str, column: str) -> str:
        if column not in self.names:
            raise self.step.fail(f"parameter {parameter!r} names no column of the data: {column!r} "
                                 f"(columns: {', '.join(self.names)})")
        return column


ColumnFn = Callable[[Args], Column]
FrameFn = Callable[[Args], DataFrame]


@dataclass(frozen=True)
class Implementation:
    kind: Conditions
    function: Callable[[Args], Any]


IMPLEMENTATIONS: dict[str, Implementation] = {}


def _register(kind: Conditions, operations: tuple[str, ...]) -> Callable[[Callable[[Args], Any]], Any]:
    def register(function: Callable[[Args], Any]) -> Callable[[Args], Any]:
        for operation in operations:
            if operation in IMPLEMENTATIONS:
                raise ValueError(f"{operation} is implemented twice")
            IMPLEMENTATIONS[operation] = Implementation(kind, function)
        return function

    return register


def values(*operations: str) -> Callable[[ColumnFn], ColumnFn]:
    """Register the new values of ``sourceColumn`` for ``operations``."""
    return _register(Conditions.VALUES, operations)


def new_column(*operations: str) -> Callable[[ColumnFn], ColumnFn]:
    """Register the values of the new ``targetColumn`` for ``operations``."""
    return _register(Conditions.NEW, operations)


def rows(*operations: str) -> Callable[[ColumnFn], ColumnFn]:
    """Register which rows ``operations`` keep."""
    return _register(Conditions.ROWS, operations)


def frame(*operations: str) -> Callable[[FrameFn], FrameFn]:
    """Register the new frame of ``operations``."""
    return _register(Conditions.NONE, operations)
