"""Typing CSV text columns the way Glue's CSV reader types values, eagerly or by a direct cast.

Glue types a CSV value per record: an integer is ``long``, a number with a fraction or
exponent ``double``, anything else ``string``; a column holding numbers and text becomes a
choice (``choice<long,string>``). As a Spark column that needs to know which kinds of values
the whole column holds (a column with one fraction types its integers as doubles too), so
typing a column for its own sake costs one aggregation pass over the data.

A transformation that gives a column an explicit type (ApplyMapping with a target type) does
not always need that pass: for most target types the converted value does not depend on the
column's kinds, and ``glueball.runtime.ops.pending_mapping.direct_cast`` computes it straight from
the text. Number-looking values are recognised without regular expressions: a character test, then
a ``try_cast``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from glueball.runtime.gluetypes import CHOICE_METADATA

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

LONG_RE = r"^\s*[+-]?[0-9]+\s*$"
DOUBLE_RE = r"^\s*[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?\s*$"
_WHITE_SPACE = " \t\n\x0b\f\r"
_LONG_CHARACTERS = "0123456789+-" + _WHITE_SPACE
_NUMBER_CHARACTERS = _LONG_CHARACTERS + ".eE"


@dataclass(frozen=True)
class ColumnKinds:
    """Which kinds of values a CSV column holds (all False: only nulls)."""

    has_long: bool
    has_double: bool
    has_string: bool


def column_ref(name: str) -> Column:
    from pyspark.sql import functions as F

    return F.col(f"`{name.replace('`', '``')}`")


def as_type(name: str, spark_type: str) -> Column:
    """``try_cast(trim(name) as spark_type)``."""
    from pyspark.sql import functions as F

    return F.trim(column_ref(name)).try_cast(spark_type)


def _only(name: str, characters: str) -> Column:
    """The value holds no character but ``characters`` (a translate, cheaper than a regex)."""
    from pyspark.sql import functions as F

    return F.translate(column_ref(name), characters, "") == F.lit("")


def is_number(name: str) -> Column:
    """The value reads as a number (long or double), as ``DOUBLE_RE`` says.

    Made of digits, signs, ``.``, ``e`` and white space, and cast by Spark: Java's double
    parser then takes exactly the regex's forms (its other forms, ``NaN``, ``1d``, ``0x1p3``,
    need other letters). The character test comes first, so text never reaches the parser.
    """
    from pyspark.sql import functions as F

    return F.coalesce(_only(name, _NUMBER_CHARACTERS) & as_type(name, "double").isNotNull(), F.lit(False))


def is_long(name: str) -> Column:
    """The value reads as a long, as ``LONG_RE`` says: an integer within the long range."""
    from pyspark.sql import functions as F

    return F.coalesce(_only(name, _LONG_CHARACTERS) & as_type(name, "bigint").isNotNull(), F.lit(False))


def column_kinds(df: DataFrame, names: list[str]) -> dict[str, ColumnKinds]:
    """The kinds of values of each column of ``names``, in one aggregation over ``df``."""
    from pyspark.sql import functions as F

    if not names:
        return {}
    probes = []
    for i, name in enumerate(names):
        long_value, number = is_long(name), is_number(name)
        probes.extend([
            F.max(long_value).alias(f"l{i}"),
            F.max(number & ~long_value).alias(f"d{i}"),
            F.max(column_ref(name).isNotNull() & ~number).alias(f"s{i}"),
        ])
    row = df.agg(*probes).first()
    assert row is not None
    return {name: ColumnKinds(bool(row[f"l{i}"]), bool(row[f"d{i}"]), bool(row[f"s{i}"]))
            for i, name in enumerate(names)}


def typed_column(name: str, kinds: ColumnKinds) -> Column:
    """Column ``name`` typed for its kinds: as it is, long, double, or a choice of a number and string."""
    from pyspark.sql import functions as F

    number_type = "double" if kinds.has_double else "bigint" if kinds.has_long else None
    if number_type is None:
        return column_ref(name).alias(name)
    if not kinds.has_string:
        return as_type(name, number_type).alias(name)
    member = "double" if kinds.has_double else "long"
    number = is_number(name) if kinds.has_double else is_long(name)
    return F.struct(F.when(number, as_type(name, number_type)).alias(member),
                    F.when(~number, column_ref(name)).alias("string")).alias(name, metadata={CHOICE_METADATA: True})


def type_csv_columns(df: DataFrame, keep: tuple[str, ...] = ()) -> DataFrame:
    """Type string columns per value as Glue's CSV reader does: long, double, or a choice with string.

    One aggregation pass finds which kinds of values each column holds (like Spark's
    ``inferSchema``); the columns are then cast lazily, in their order. Columns named in ``keep`` pass
    through as they are.
    """
    names = [c for c in df.columns if c not in keep]
    if not names:
        return df
    kinds = column_kinds(df, names)
    return df.select(*[typed_column(name, kinds[name]) if name in kinds else column_ref(name) for name in df.columns])
