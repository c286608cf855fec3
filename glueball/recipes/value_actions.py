"""Missing, invalid and duplicate values: remove the rows, fill the values, or flag them in a new column.

A missing value is NULL or the empty text. The fills computed from the column (average, median,
sum, most frequent) are computed over the whole column before the step (the rows its conditions
select are only the ones filled). "Last valid" and "earlier row" follow the input order of the
rows, which glueball keeps through the recipe.
"""

from __future__ import annotations

from typing import Any

from pyspark.sql import Column, Window
from pyspark.sql import functions as F
from pyspark.sql.types import BooleanType, DataType, DateType, NumericType, StringType, TimestampType

from glueball.recipes.recipe_args import ROW, Args, new_column, quoted, rows, values
from glueball.recipes.recipe_conditions import missing
from glueball.recipes.text_actions import regex

# what REMOVE_INVALID converts to, by DataBrew's type names
SPARK_TYPES = {"byte": "tinyint", "short": "smallint", "int": "int", "long": "bigint", "float": "float",
               "double": "double", "decimal": "decimal(38,18)", "string": "string", "boolean": "boolean",
               "timestamp": "timestamp", "date": "date", "number": "double"}
_TRUE, _FALSE = ("true", "yes", "1", "t", "y"), ("false", "no", "0", "f", "n")


def converted(column: Column, source: DataType, target: str) -> Column:
    """``column`` (of type ``source``) converted to DataBrew type ``target``: NULL where it does not convert."""
    if target == "boolean" and isinstance(source, StringType):
        text = F.lower(F.trim(column))
        return F.when(text.isin(*_TRUE), F.lit(True)).when(text.isin(*_FALSE), F.lit(False)) \
            .otherwise(F.lit(None).cast(BooleanType()))
    if isinstance(source, StringType) and target not in ("string",):
        column = F.trim(column)
    return column.try_cast(SPARK_TYPES[target])


@rows("REMOVE_MISSING")
def remove_missing(a: Args) -> Column:
    return ~missing(a.col())


@rows("REMOVE_INVALID")
def remove_invalid(a: Args) -> Column:
    source = a.col()
    kind = a.df.schema[a.column()].dataType
    return source.isNull() | converted(source, kind, a.text("columnDataType")).isNotNull()


@rows("REMOVE_DUPLICATES")
def remove_duplicates(a: Args) -> Column:
    return F.row_number().over(Window.partitionBy(a.col()).orderBy(ROW)) == 1


@rows("DELETE_DUPLICATE_ROWS")
def delete_duplicate_rows(a: Args) -> Column:
    return F.row_number().over(Window.partitionBy(*[quoted(n) for n in a.names]).orderBy(ROW)) == 1


def _numeric(a: Args) -> Column:
    kind = a.df.schema[a.column()].dataType
    if not isinstance(kind, NumericType):
        raise a.fail(f"{a.step.spec.operation} needs a numeric column; {a.column()!r} is {kind.simpleString()}")
    return a.col()


def _filled(a: Args, value: Any) -> Column:
    source = a.col()
    return F.when(missing(source), F.lit(value)).otherwise(source)


@values("FILL_WITH_AVERAGE", "FILL_WITH_MEDIAN", "FILL_WITH_SUM")
def fill_with_aggregate(a: Args) -> Column:
    source = _numeric(a)
    function = {"FILL_WITH_AVERAGE": F.avg, "FILL_WITH_MEDIAN": F.median, "FILL_WITH_SUM": F.sum}
    found = a.df.agg(function[a.step.spec.operation](source)).first()
    return _filled(a, found[0] if found is not None else None)


@values("FILL_WITH_MOST_FREQUENT")
def fill_with_most_frequent(a: Args) -> Column:
    source = a.col()
    counted = a.df.where(~missing(source)).groupBy(source.alias("value")).count()
    found = counted.orderBy(F.desc("count"), F.asc("value")).first()
    return _filled(a, found["value"] if found is not None else None)


@values("FILL_WITH_EMPTY")
def fill_with_empty(a: Args) -> Column:
    return F.when(missing(a.col()), F.lit("")).otherwise(a.col().cast(StringType()))


@values("FILL_WITH_NULL")
def fill_with_null(a: Args) -> Column:
    return F.when(~missing(a.col()), a.col())


@values("FILL_WITH_CUSTOM")
def fill_with_custom(a: Args) -> Column:
    kind = a.df.schema[a.column()].dataType
    value = a.text("value")
    declared = a.text("columnDataType")
    if declared == "number" or isinstance(kind, NumericType):
        try:
            float(value)
        except ValueError:
            raise a.fail(f"parameter 'value' must be a number for a {declared} fill, not {value!r}") from None
    typed = F.lit(value) if isinstance(kind, StringType) else F.lit(value).try_cast(kind)
    if isinstance(kind, DateType | TimestampType | BooleanType):
        typed = converted(F.lit(value), StringType(), kind.simpleString())
    return F.when(missing(a.col()), typed).otherwise(a.col())


@values("FILL_WITH_LAST_VALID")
def fill_with_last_valid(a: Args) -> Column:
    source = a.col()
    earlier = Window.orderBy(ROW).rowsBetween(Window.unboundedPreceding, Window.currentRow)
    last = F.last(F.when(~missing(source), source), ignorenulls=True).over(earlier)
    return F.when(missing(source), last).otherwise(source)


_FLAGS: dict[str, tuple[Any, Any]] = {"Yes or No": ("Yes", "No"), "True or False": (True, False),
                                       "1 or 0": (1, 0)}


def _flag(a: Args, found: Column) -> Column:
    yes, no = _FLAGS[a.text("flagType", "True or False")]
    return F.when(found, F.lit(yes)).otherwise(F.lit(no))


@new_column("FLAG_COLUMN_FROM_NULL")
def flag_column_from_null(a: Args) -> Column:
    return _flag(a, missing(a.col()))


@new_column("FLAG_COLUMN_FROM_PATTERN")
def flag_column_from_pattern(a: Args) -> Column:
    return _flag(a, F.coalesce(a.col().cast(StringType()).rlike(regex(a, "pattern")), F.lit(False)))


@new_column("DUPLICATE")
def duplicate(a: Args) -> Column:
    return a.col()


@new_column("MERGE")
def merge(a: Args) -> Column:
    return F.concat_ws(a.text("delimiter"), *[quoted(n).cast(StringType()) for n in a.columns()])
