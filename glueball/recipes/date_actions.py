"""Date and time functions: each writes a new column from a date column (dates, timestamps or ISO
text) or a text ``value``.

Formats are DataBrew's (``yyyy-mm-dd HH:MM:SS``: lower-case ``mm`` is the month, upper-case ``MM``
the minutes). DATE_ADD and CONVERT_TIMEZONE write text in ``dateTimeFormat`` (DataBrew's default
``yyyy-mm-dd HH:MM:SS``); DATE_DIFF writes a whole number of ``units`` from the first date to the
second; the parts (YEAR ... MONTH_NAME) write numbers, MONTH_NAME the English month name.
WEEK_DAY is 1 for Sunday through 7 for Saturday; WEEK_NUMBER is the ISO week of the year.
"""

from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F

from glueball.recipes.recipe_args import Args, new_column
from glueball.recipes.text_actions import moment, spark_date_format

DEFAULT_FORMAT = "yyyy-mm-dd HH:MM:SS"
# DataBrew's units as Spark's timestamp_add / timestamp_diff name them
_UNITS = {"MONTHS": "MONTH", "YEARS": "YEAR", "MILLISECONDS": "MILLISECOND", "QUARTERS": "QUARTER",
          "HOURS": "HOUR", "MICROSECONDS": "MICROSECOND", "WEEKS": "WEEK", "SECONDS": "SECOND", "DAYS": "DAY",
          "MINUTES": "MINUTE"}


def _moment(a: Args, column: str = "sourceColumn", value: str = "value") -> Column:
    return moment(a, column) if a.has(column) else moment(a, value=a.text(value))


def _formatted(a: Args, found: Column) -> Column:
    return F.date_format(found, spark_date_format(a.text("dateTimeFormat", DEFAULT_FORMAT)))


@new_column("DATE_ADD")
def date_add(a: Args) -> Column:
    unit = _UNITS[a.text("units")]
    return _formatted(a, F.timestamp_add(unit, F.lit(a.integer("dateAddValue")), _moment(a)))


@new_column("DATE_DIFF")
def date_diff(a: Args) -> Column:
    first = _moment(a, "sourceColumn1", "value1")
    second = _moment(a, "sourceColumn2", "value2")
    return F.timestamp_diff(_UNITS[a.text("units")], first, second)


@new_column("DATE_FORMAT")
def date_format(a: Args) -> Column:
    return _formatted(a, _moment(a))


@new_column("CONVERT_TIMEZONE")
def convert_timezone(a: Args) -> Column:
    source = _moment(a)
    converted = F.from_utc_timestamp(F.to_utc_timestamp(source, a.text("fromTimeZone", "UTC")),
                                     a.text("toTimeZone", "UTC"))
    return _formatted(a, converted)


_PARTS = {"YEAR": F.year, "MONTH": F.month, "DAY": F.dayofmonth, "HOUR": F.hour, "MINUTE": F.minute,
          "SECOND": F.second, "QUARTER": F.quarter, "WEEK_DAY": F.dayofweek, "WEEK_NUMBER": F.weekofyear,
          "MONTH_NAME": lambda c: F.date_format(c, "MMMM")}


@new_column(*_PARTS)
def date_part(a: Args) -> Column:
    return _PARTS[a.step.spec.operation](_moment(a))
