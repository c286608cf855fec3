"""Values as Athena prints them in a query's result: every value text, NULL kept.

Strings, integers, booleans and doubles are printed by the engine from the Arrow rows Spark returns
(:func:`printed_here`, :func:`column_text`): integers and booleans by Arrow's casts (``42``, ``true``); doubles as
Trino prints them — Java's ``Double.toString`` since Java 19, the fewest digits that read back as the value, plain
from 10^-3 to 10^7 (``0.001``, ``1234567.0``), else ``1.0E7`` / ``4.9E-324`` — whatever JVM runs Spark (on Java 17
Spark's own cast prints some doubles of 10^16 and more with a digit too many, ``2.0E23`` as
``1.9999999999999998E23``). Printing them here spares the result a projection, a second analysis of the whole
statement in Spark (6-8 ms of a query's planning).

Every other type is printed by Spark, in one projection of the statement (:func:`as_text`): timestamps
``2026-01-01 10:00:00.000``, varbinary as hex bytes apart (``31 32 33``), maps and rows ``{k=v, ...}``, arrays
``[a, b]``, and decimals, dates and reals by Spark's cast.
"""

from __future__ import annotations

import math
import sys
from decimal import ROUND_HALF_EVEN, Context, Decimal
from typing import Any

_SMALLEST_NORMAL = sys.float_info.min
_TWO_DIGITS = Context(prec=2, rounding=ROUND_HALF_EVEN)


# the precision of an Iceberg table's timestamp (no zone: Spark's timestamp_ntz, which nothing else the engine reads
# or computes is), as Athena reads it (Trino's Iceberg connector: timestamp(6)); a Hive table's are timestamp(3)
ICEBERG_PRECISION = 6


def printed_here(data_type: Any) -> bool:
    """Whether the engine prints values of ``data_type`` (a Spark type) itself, from the Arrow rows."""
    from pyspark.sql import types as t

    return isinstance(data_type, t.StringType | t.ByteType | t.ShortType | t.IntegerType | t.LongType |
                      t.BooleanType | t.DoubleType)


def column_text(column: Any, data_type: Any) -> Any:
    """A column of Arrow values of ``data_type`` (one :func:`printed_here` takes) as an Arrow column of text."""
    import pyarrow as pa
    import pyarrow.compute as pc
    from pyspark.sql import types as t

    if isinstance(data_type, t.StringType):
        return column
    if not isinstance(data_type, t.DoubleType):
        return pc.cast(column, pa.string())  # integers as digits, booleans as true / false
    # Arrow prints the fewest digits too, plain where Java does (the ".0" aside); Python prints the rest
    texts = pc.cast(column, pa.string())
    size = pc.abs(column)
    plain = pc.and_(pc.greater_equal(size, 1e-3), pc.less(size, 1e7))
    whole = pc.invert(pc.match_substring(texts, "."))
    texts = pc.if_else(pc.and_(plain, whole), pc.binary_join_element_wise(texts, ".0", ""), texts)
    others = pc.and_(pc.is_valid(column), pc.invert(pc.fill_null(plain, True)))
    if not pc.any(others).as_py():
        return texts
    values, printed = column.to_pylist(), texts.to_pylist()
    flags = others.to_pylist()
    return pa.array([double_text(value) if flag else text
                     for value, text, flag in zip(values, printed, flags, strict=True)], pa.string())


def double_text(value: float) -> str:
    """``value`` as Java (19 and later) prints a double: ``NaN``, ``Infinity``, ``-0.0``; the fewest digits that read
    back as it (of one digit and two, the nearer), plain when 10^-3 <= |value| < 10^7, else ``d.dddE<exponent>``."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    sign = "-" if value < 0 else ""
    size = abs(value)
    digits, exponent = _shortest(size)
    if 1e-3 <= size < 1e7:
        if exponent >= 0:
            whole, fraction = digits[:exponent + 1].ljust(exponent + 1, "0"), digits[exponent + 1:]
        else:
            whole, fraction = "0", "0" * (-exponent - 1) + digits
        return f"{sign}{whole}.{fraction or '0'}"
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{exponent}"


def _shortest(size: float) -> tuple[str, int]:
    """The significant digits of a positive double and its decimal exponent (``size`` = d.ddd x 10^exponent): the
    fewest that read back as it (Python's ``repr`` finds them); where that is one digit, a nearer decimal of two
    digits that reads back as it too wins, as Java's rule has it (only subnormal values have one)."""
    mantissa, _, power = repr(size).partition("e")
    whole, _, fraction = mantissa.partition(".")
    shift = int(power) if power else 0
    if whole.strip("0"):
        exponent = len(whole.lstrip("0")) - 1 + shift
    else:
        exponent = -(len(fraction) - len(fraction.lstrip("0"))) - 1 + shift
    digits = (whole + fraction).strip("0")
    if len(digits) == 1 and size < _SMALLEST_NORMAL:
        exact = Decimal(size)
        two = _TWO_DIGITS.plus(exact)
        if float(two) == size and abs(two - exact) < abs(Decimal(f"{digits}E{exponent}") - exact):
            _, found, power_of_two = two.as_tuple()
            assert isinstance(power_of_two, int)
            return "".join(map(str, found)).rstrip("0"), len(found) - 1 + power_of_two
    return digits, exponent


def as_text(expression: str, data_type: Any, depth: int = 0) -> str:
    """Spark SQL that prints ``expression`` (of ``data_type``) as Athena prints its value: text, NULL kept; the
    result's projection is one ``selectExpr`` (a call into the JVM per column piece would cost more than the
    projection's analysis). ``depth`` names the lambda variables of nested maps and arrays apart."""
    from pyspark.sql import types as t

    if isinstance(data_type, t.TimestampNTZType):  # an Iceberg table's timestamp: Trino's timestamp(6)
        return timestamp_text(expression, ICEBERG_PRECISION)
    if isinstance(data_type, t.TimestampType):
        return timestamp_text(expression)
    if isinstance(data_type, t.TimeType):  # Spark's text of a time drops the fraction's trailing zeros
        digits = int(data_type.precision)
        text = f"CAST({expression} AS STRING)"
        fraction = f", '.', rpad(substr({text}, 10), {digits}, '0')" if digits else ""
        return f"concat(substr({text}, 1, 8){fraction})"
    if isinstance(data_type, t.BinaryType):
        return f"regexp_replace(lower(hex({expression})), '(..)(?!$)', '$1 ')"  # 31 32 33, as Athena prints it
    if isinstance(data_type, t.MapType):
        entry = f"entry_{depth}"
        key = as_text(f"{entry}.key", data_type.keyType, depth + 1)
        value = as_text(f"{entry}.value", data_type.valueType, depth + 1)
        return (f"concat('{{', array_join(transform(map_entries({expression}), {entry} -> concat({key}, '=', "
                f"coalesce({value}, 'null'))), ', '), '}}')")
    if isinstance(data_type, t.StructType):
        parts = "".join(f", concat({_literal(f.name + '=')}, coalesce("
                        f"{as_text(f'{expression}.{quoted(f.name)}', f.dataType, depth + 1)}, 'null'))"
                        for f in data_type.fields)
        return f"CASE WHEN {expression} IS NULL THEN NULL ELSE concat('{{', concat_ws(', '{parts}), '}}') END"
    if isinstance(data_type, t.ArrayType):
        item = f"item_{depth}"
        printed = as_text(item, data_type.elementType, depth + 1)
        return f"concat('[', array_join(transform({expression}, {item} -> coalesce({printed}, 'null')), ', '), ']')"
    return f"CAST({expression} AS STRING)"


def timestamp_text(expression: str, precision: int = 3) -> str:
    """Spark SQL that prints a timestamp as Trino prints a ``timestamp(precision)``: ``2026-01-01 10:00:00.000``, a
    digit of the second's fraction for each of its precision (Spark's timestamps hold 6; more are zeros)."""
    fraction = "S" * min(precision, 6)
    text = f"date_format({expression}, 'yyyy-MM-dd HH:mm:ss.{fraction}')" if fraction else \
        f"date_format({expression}, 'yyyy-MM-dd HH:mm:ss')"
    return f"concat({text}, '{'0' * (precision - 6)}')" if precision > 6 else text


def quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _literal(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
