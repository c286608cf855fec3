"""The partition filter language: parsing, typing, evaluation and index conditions (no server)."""

from __future__ import annotations

import pytest

from glueball.catalog.expression import IndexCondition, KeyKind, compile_filter, key_kind, parse_int
from glueball.errors import InvalidInputException

KEYS: list[tuple[str, str | None]] = [
    ("year", "string"), ("month", "int"), ("day", "bigint"), ("dt", "date"),
    ("price", "decimal(10,2)"), ("ts", "timestamp"), ("region", "varchar(8)"),
]
#             year    month  day  dt            price    ts                     region
ROW_A = ["2024", "10", "5", "2024-10-05", "9.50", "2024-10-05 12:00:00", "eu-west"]
ROW_B = ["2023", "9", "25", "2023-09-25", "10.00", "2023-09-25 08:30:00", "us-east"]
ROW_C = ["2024", "abc", "7", "not-a-date", "x", "garbage", "ap_south"]
ROWS = {"a": ROW_A, "b": ROW_B, "c": ROW_C}


def matching(expression: str) -> set[str]:
    predicate = compile_filter(expression, KEYS)
    assert predicate is not None
    return {name for name, values in ROWS.items() if predicate.matches(values)}


def error_message(expression: str, keys: list[tuple[str, str | None]] = KEYS) -> str:
    with pytest.raises(InvalidInputException) as excinfo:
        compile_filter(expression, keys)
    return excinfo.value.message


def test_blank_expression_is_no_filter() -> None:
    assert compile_filter("", KEYS) is None
    assert compile_filter("  \n", KEYS) is None


@pytest.mark.parametrize(("expression", "expected"), [
    ("month > 9", {"a"}),                 # numerically: 10 > 9, and 'abc' is NULL
    ("month >= 9", {"a", "b"}),
    ("month < 10", {"b"}),
    ("month <= 10", {"a", "b"}),
    ("month = 9", {"b"}),
    ("month = '09'", {"b"}),              # a string literal cast to the key's type
    ("month <> 9", {"a"}),
    ("month != 10", {"b"}),
    ("day > 6", {"b", "c"}),
    ("year > '2023'", {"a", "c"}),
    ("region < 'f'", {"a", "c"}),         # as text
    ("dt > '2024-01-01'", {"a"}),
    ("dt BETWEEN '2023-09-25' AND '2023-09-30'", {"b"}),
    ("price >= 10", {"b"}),               # 10.00 >= 10 as decimals, 9.50 is less
    ("price = 9.5", {"a"}),
    ("ts > '2024-10-05 11:59:59'", {"a"}),
    ("ts <= '2023-09-25 08:30'", {"b"}),
    ("9 < month", {"a"}),                 # literal on the left
    # timestamps compare to the nanosecond: a bound a nanosecond away still brackets its partition
    ("ts > '2024-10-05 11:59:59.999999999' AND ts < '2024-10-05 12:00:00.000000001'", {"a"}),
    ("ts > '2024-10-05 12:00:00.000000001'", set()),
    ("ts = '2024-10-05 12:00:00.000000000'", {"a"}),
    ("ts IN ('2024-10-05 12:00:00.000')", {"a"}),
])
def test_comparisons_use_the_key_type(expression: str, expected: set[str]) -> None:
    assert matching(expression) == expected


def test_string_key_compares_as_text_and_int_key_numerically() -> None:
    text_keys: list[tuple[str, str | None]] = [("month", "string")]
    int_keys: list[tuple[str, str | None]] = [("month", "int")]
    text_filter = compile_filter("month > 9", text_keys)
    int_filter = compile_filter("month > 9", int_keys)
    assert text_filter is not None and int_filter is not None
    assert not text_filter.matches(["10"])     # '10' < '9' as text
    assert int_filter.matches(["10"])
    assert text_filter.matches(["90"])


@pytest.mark.parametrize(("expression", "expected"), [
    ("year = '2024' AND month > 9", {"a"}),
    ("year = '2023' OR month > 9", {"a", "b"}),
    ("NOT year = '2024'", {"b"}),
    ("NOT (year = '2024' AND day = 5)", {"b", "c"}),
    ("(year = '2023' OR day = 7) AND region LIKE '%south'", {"c"}),
    ("month BETWEEN 9 AND 10", {"a", "b"}),
    ("month NOT BETWEEN 9 AND 9", {"a"}),
    ("day IN (5, 7)", {"a", "c"}),
    ("day NOT IN (5, 7)", {"b"}),
    ("region IN ('us-east', 'eu-west')", {"a", "b"}),
    ("region LIKE 'e%'", {"a"}),
    ("region LIKE '__-east'", {"b"}),
    ("region NOT LIKE '%-%'", {"c"}),
    ("region LIKE 'eu.west'", set()),      # '.' is literal, not a regex wildcard
    ("month LIKE '1%'", {"a"}),            # LIKE reads the value's text
    ("month IS NULL", {"c"}),
    ("month IS NOT NULL", {"a", "b"}),
    ("NOT month > 9", {"b"}),              # NOT UNKNOWN is UNKNOWN: 'abc' never matches
    ("month > 9 OR year = '2024'", {"a", "c"}),
    ("year = '2024' OR year = '2023' AND month = 10", {"a", "c"}),  # AND binds tighter than OR
])
def test_logic_and_operators(expression: str, expected: set[str]) -> None:
    assert matching(expression) == expected


def test_keywords_and_names_are_case_insensitive_and_names_may_be_quoted() -> None:
    assert matching("YEAR = '2024' aNd Month bEtWeEn 10 AND 12") == {"a"}
    assert matching("`Region` like 'us%' Or `year` = \"2024\"") == {"a", "b", "c"}
    keys: list[tuple[str, str | None]] = [("android", "string"), ("order_in", "string"), ("my key", "int")]
    predicate = compile_filter("android = 'x' and order_in = 'y' and `my key` = 1", keys)
    assert predicate is not None and predicate.matches(["x", "y", "1"])
    assert not predicate.matches(["x", "y", "2"])


def test_quotes_are_escaped_by_doubling() -> None:
    predicate = compile_filter("year = 'it''s' OR year = \"say \"\"hi\"\"\"", [("year", "string")])
    assert predicate is not None
    assert predicate.matches(["it's"]) and predicate.matches(['say "hi"'])
    assert not predicate.matches(["it''s"])


def test_wrong_number_of_values_never_matches() -> None:
    predicate = compile_filter("year = '2024'", KEYS)
    assert predicate is not None and not predicate.matches(["2024"])


@pytest.mark.parametrize(("expression", "fragment"), [
    ("month >", "unexpected end of expression"),
    ("month >> 3", "unexpected '>' at position 7"),
    ("month = 3 AND", "unexpected end of expression"),
    ("(month = 3", "unexpected end of expression"),
    ("month = 3)", "unexpected ')' at position 9"),
    ("month = 3 ; drop", "unexpected character ';' at position 10"),
    ("month", "unexpected end of expression"),
    ("month = 'open", "unexpected character"),
])
def test_syntax_errors_name_the_position(expression: str, fragment: str) -> None:
    message = error_message(expression)
    assert message.startswith(f"Invalid partition filter expression {expression!r}: ")
    assert fragment in message


def test_unknown_key_is_named_with_the_table_keys() -> None:
    message = error_message("year = '2024' AND colour = 'red'")
    assert message == ("Unknown partition key 'colour' in expression at position 18; the partition keys of "
                       "the table are: year, month, day, dt, price, ts, region")


@pytest.mark.parametrize(("expression", "fragment"), [
    ("month = 'abc'", "Cannot compare partition key month of type int with 'abc' at position 8"),
    ("month > 9.5", "Cannot compare partition key month of type int with 9.5"),
    ("month IN (1, 'x')", "with 'x'"),
    ("dt > '2024-13-01'", "Cannot compare partition key dt of type date with '2024-13-01'"),
    ("dt = 20240101", "of type date with 20240101"),
    ("price < 'cheap'", "of type decimal(10,2) with 'cheap'"),
    ("ts > 'yesterday'", "of type timestamp"),
    ("day = 99999999999999999999", "of type bigint"),
])
def test_literals_not_castable_to_the_key_type_are_rejected(expression: str, fragment: str) -> None:
    assert fragment in error_message(expression)


def test_unsupported_key_types_and_shapes_are_rejected() -> None:
    keys: list[tuple[str, str | None]] = [("payload", "struct<a:int>"), ("flag", "boolean"), ("year", "string")]
    assert error_message("payload = 'x'", keys) == (
        "Partition key payload has type struct<a:int>, which partition filter expressions do not support"
    )
    assert "flag has type boolean" in error_message("year = '1' or flag = 'true'", keys)
    assert compile_filter("year = '1'", keys) is not None  # unused keys of other types are fine
    assert "compares two partition keys" in error_message("year = region")
    assert "compares two literals" in error_message("1 = 1")
    assert "LIKE needs a string pattern" in error_message("region LIKE 5")
    assert "expected a literal at position 20" in error_message("month BETWEEN 1 AND day")
    assert "expected a partition key at position 0" in error_message("'x' IN ('x')")


def test_index_conditions_are_top_level_conjuncts_on_indexed_keys() -> None:
    predicate = compile_filter(
        "year = '2024' AND month BETWEEN 3 AND 5 AND dt >= '2024-03-01' AND region LIKE 'eu%' "
        "AND day IN (1, 2) AND (price > 1 OR month = 4) AND NOT day = 3 AND month <> 4",
        KEYS,
    )
    assert predicate is not None
    assert predicate.index_conditions({0, 1, 2, 3, 6}) == [
        IndexCondition(0, KeyKind.STRING, "=", "2024"),
        IndexCondition(1, KeyKind.INT, ">=", 3),
        IndexCondition(1, KeyKind.INT, "<=", 5),
        IndexCondition(3, KeyKind.DATE, ">=", "2024-03-01"),
    ]
    assert predicate.index_conditions({1}) == [
        IndexCondition(1, KeyKind.INT, ">=", 3), IndexCondition(1, KeyKind.INT, "<=", 5),
    ]
    assert predicate.index_conditions(set()) == []


def test_index_conditions_ignore_or_not_and_unindexable_types() -> None:
    positions = set(range(len(KEYS)))
    for expression in ("year = '2024' OR month = 3", "NOT year = '2024'", "month NOT BETWEEN 1 AND 2",
                       "price > 3 AND ts > '2024-01-01'", "region LIKE 'x' AND day IN (1)"):
        predicate = compile_filter(expression, KEYS)
        assert predicate is not None
        assert predicate.index_conditions(positions) == [], expression
    single = compile_filter("month < 4", KEYS)
    assert single is not None
    assert single.index_conditions(positions) == [IndexCondition(1, KeyKind.INT, "<", 4)]
    flipped = compile_filter("4 <= day", KEYS)
    assert flipped is not None
    assert flipped.index_conditions(positions) == [IndexCondition(2, KeyKind.INT, ">=", 4)]


@pytest.mark.parametrize(("type_name", "kind"), [
    ("int", KeyKind.INT), ("INTEGER", KeyKind.INT), ("bigint", KeyKind.INT), ("long", KeyKind.INT),
    ("smallint", KeyKind.INT), ("tinyint", KeyKind.INT), ("string", KeyKind.STRING),
    ("char(3)", KeyKind.STRING), ("varchar(10)", KeyKind.STRING), ("date", KeyKind.DATE),
    ("timestamp", KeyKind.TIMESTAMP), ("decimal(10,2)", KeyKind.DECIMAL), ("double", KeyKind.DECIMAL),
    (None, KeyKind.STRING), ("struct<a:int>", None), ("array<string>", None), ("boolean", None),
    ("binary", None), ("map<string,int>", None),
])
def test_key_kinds(type_name: str | None, kind: str | None) -> None:
    assert key_kind(type_name) == kind


def test_parse_int_is_strict_ascii_and_bigint_bounded() -> None:
    assert parse_int("07") == 7
    assert parse_int("-12") == -12
    assert parse_int(str(2**63 - 1)) == 2**63 - 1
    for text in (" 7", "7.0", "1e3", "", "١٢", str(2**63), "abc"):
        assert parse_int(text) is None, text
