"""Format, clean and extract actions: the text of one column changed, or copied out to a new column.

Positions are 0-based and the end is excluded (``startPosition`` 2, ``endPosition`` 5 of
``"abcdefg"`` is ``"cde"``). ``REPLACE_TEXT``'s pattern is a regular expression (Java's, as Spark
runs it); its value is inserted literally. A step on a column that is not text works on its text.
"""

from __future__ import annotations

import re

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql.types import DateType, StringType, TimestampType

from glueball.recipes.recipe_args import Args, new_column, values


def _text(a: Args, name: str = "sourceColumn") -> Column:
    return a.col(name).cast(StringType())


def literal(text: str) -> str:
    """``text`` as a Java regular expression matching it literally."""
    return "\\Q" + text.replace("\\E", "\\E\\\\E\\Q") + "\\E"


def replacement(text: str) -> str:
    """``text`` as a Java replacement string inserting it literally (``$`` and ``\\`` escaped)."""
    return text.replace("\\", "\\\\").replace("$", "\\$")


def regex(a: Args, name: str) -> str:
    """Parameter ``name`` as a regular expression, refused when it does not compile."""
    pattern = a.text(name)
    try:
        re.compile(pattern)
    except re.error as exc:
        raise a.fail(f"parameter {name!r} is not a valid regular expression ({exc}): {pattern!r}") from None
    return pattern


@values("UPPER_CASE")
def upper_case(a: Args) -> Column:
    return F.upper(_text(a))


@values("LOWER_CASE")
def lower_case(a: Args) -> Column:
    return F.lower(_text(a))


@values("CAPITAL_CASE")
def capital_case(a: Args) -> Column:
    return F.initcap(_text(a))


@values("SENTENCE_CASE")
def sentence_case(a: Args) -> Column:
    text = _text(a)
    return F.concat(F.upper(F.substring(text, 1, 1)), F.lower(text.substr(F.lit(2), F.length(text))))


@values("ADD_DOUBLE_QUOTES")
def add_double_quotes(a: Args) -> Column:
    return F.concat(F.lit('"'), _text(a), F.lit('"'))


@values("ADD_SINGLE_QUOTES")
def add_single_quotes(a: Args) -> Column:
    return F.concat(F.lit("'"), _text(a), F.lit("'"))


@values("ADD_PREFIX")
def add_prefix(a: Args) -> Column:
    return F.concat(F.lit(a.text("pattern")), _text(a))


@values("ADD_SUFFIX")
def add_suffix(a: Args) -> Column:
    return F.concat(_text(a), F.lit(a.text("pattern")))


_DATE_TOKENS = re.compile(r"month|mon|yyyy|yy|mm|dd|HH|MM|SS|[A-Za-z]+|.", re.DOTALL)
# DataBrew's format letters: lower-case mm is the month, upper-case MM the minutes, SS the seconds
_SPARK_TOKENS = {"month": "MMMM", "mon": "MMM", "yyyy": "yyyy", "yy": "yy", "mm": "MM", "dd": "dd", "HH": "HH",
                 "MM": "mm", "SS": "ss"}


def spark_date_format(databrew: str) -> str:
    """A DataBrew date format (``mm/dd/yyyy``, ``yyyy-mm-dd HH:MM:SS``, ``dd month yyyy``) as Spark's."""
    out = []
    for token in _DATE_TOKENS.findall(databrew):
        if token in _SPARK_TOKENS:
            out.append(_SPARK_TOKENS[token])
        elif token.isalpha():
            out.append("'" + token + "'")
        elif token == "'":
            out.append("''")
        else:
            out.append(token)
    return "".join(out)


def moment(a: Args, column: str | None = None, value: str | None = None) -> Column:
    """A date or time from a column (of dates, timestamps or ISO text) or a text value, as a timestamp."""
    if column is not None:
        name = a.column(column)
        found = a.col(column)
        kind = a.df.schema[name].dataType
        if isinstance(kind, TimestampType | DateType):
            return found.cast(TimestampType())
        return found.cast(StringType()).try_cast(TimestampType())
    return F.lit(value).try_cast(TimestampType())


@values("FORMAT_DATE")
def format_date(a: Args) -> Column:
    return F.date_format(moment(a, "sourceColumn"), spark_date_format(a.text("targetDateFormat")))


_SPECIAL = "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~]"
_PUNCTUATION = "[.!,?]"
_QUOTES = "['\"]"
# REMOVE_COMBINED's flags in the order they apply, each with what it removes (and what it puts instead)
_REMOVALS = (
    ("removeAllQuotes", _QUOTES, ""),
    ("removeLeadingAndTrailingQuotes", f"^{_QUOTES}+|{_QUOTES}+$", ""),
    ("removeSpecialCharacters", _SPECIAL, ""),
    ("removeAllPunctuation", _PUNCTUATION, ""),
    ("removeLeadingAndTrailingPunctuation", f"^{_PUNCTUATION}+|{_PUNCTUATION}+$", ""),
    ("removeLetters", "[A-Za-z]", ""),
    ("removeNumbers", "[0-9]", ""),
    ("removeAllWhitespace", "\\s", ""),
    ("collapseConsecutiveWhitespace", "\\s{2,}", " "),
    ("removeLeadingAndTrailingWhitespace", "^\\s+|\\s+$", ""),
)


@values("REMOVE_COMBINED")
def remove_combined(a: Args) -> Column:
    text = _text(a)
    if a.flag("removeCustomValue"):
        if not a.text("customValue"):
            raise a.fail("parameter 'customValue' is required when removeCustomValue is true")
        text = F.regexp_replace(text, literal(a.text("customValue")), "")
    if a.flag("removeCustomCharacters"):
        if not a.text("customCharacters"):
            raise a.fail("parameter 'customCharacters' is required when removeCustomCharacters is true")
        text = F.regexp_replace(text, "|".join(literal(c) for c in a.text("customCharacters")), "")
    for flag, pattern, instead in _REMOVALS:
        if a.flag(flag):
            text = F.regexp_replace(text, pattern, instead)
    return text


@values("REPLACE_TEXT")
def replace_text(a: Args) -> Column:
    return F.regexp_replace(_text(a), regex(a, "pattern"), replacement(a.text("value")))


def _positions(a: Args) -> tuple[int, int]:
    start, end = a.integer("startPosition"), a.integer("endPosition")
    if end < start:
        raise a.fail(f"parameter 'endPosition' ({end}) is before 'startPosition' ({start})")
    return start, end


def _between(a: Args) -> str:
    return f"{literal(a.text('startPattern'))}(.*?){literal(a.text('endPattern'))}"


@values("REPLACE_BETWEEN_POSITIONS")
def replace_between_positions(a: Args) -> Column:
    start, end = _positions(a)
    text = _text(a)
    return F.concat(F.substring(text, 1, start), F.lit(a.text("value")), text.substr(F.lit(end + 1), F.length(text)))


@values("REPLACE_BETWEEN_DELIMITERS")
def replace_between_delimiters(a: Args) -> Column:
    start, end = literal(a.text("startPattern")), literal(a.text("endPattern"))
    return F.regexp_replace(_text(a), f"({start}).*?({end})", f"$1{replacement(a.text('value'))}$2")


@new_column("EXTRACT_BETWEEN_POSITIONS")
def extract_between_positions(a: Args) -> Column:
    start, end = _positions(a)
    return _text(a).substr(F.lit(start + 1), F.lit(end - start))


@new_column("EXTRACT_BETWEEN_DELIMITERS")
def extract_between_delimiters(a: Args) -> Column:
    text, pattern = _text(a), _between(a)
    return F.when(text.rlike(pattern), F.regexp_extract(text, pattern, 1))


@new_column("EXTRACT_PATTERN")
def extract_pattern(a: Args) -> Column:
    text, pattern = _text(a), regex(a, "pattern")
    return F.when(text.rlike(pattern), F.regexp_extract(text, f"({pattern})", 1))
