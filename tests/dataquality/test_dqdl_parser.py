"""DQDL syntax: sections, composites, clauses, operators, operands, constants, errors, round trips.

Examples are AWS's, from the DQDL reference, unless they test an edge.
"""

from __future__ import annotations

import datetime as dt

import pytest

from glueball.dataquality import (
    Aggregate,
    Analyzer,
    Between,
    BinaryOp,
    Comparison,
    CompositeRule,
    DateArithmetic,
    DateLiteral,
    DqdlError,
    Duration,
    FrozenMap,
    FunctionCall,
    IndexOf,
    InList,
    Keyword,
    LastK,
    Matches,
    Negative,
    Now,
    NumberLiteral,
    Rule,
    Ruleset,
    Size,
    StringLiteral,
    TimeLiteral,
    parse,
)
from glueball.dataquality.ast import format_number, quote


def only_rule(text: str) -> Rule:
    ruleset = parse(f"Rules = [ {text} ]")
    assert len(ruleset.rules) == 1
    rule = ruleset.rules[0]
    assert isinstance(rule, Rule)
    return rule


def condition(text: str) -> object:
    return only_rule(text).condition


def syntax_error(text: str) -> DqdlError:
    with pytest.raises(DqdlError) as caught:
        parse(text)
    return caught.value


def round_trips(ruleset: Ruleset) -> None:
    text = ruleset.to_dqdl()
    assert parse(text) == ruleset, text
    assert parse(text).to_dqdl() == text


# ---------------------------------------------------------------- document structure


def test_minimal_ruleset_from_the_aws_reference() -> None:
    ruleset = parse('Rules = [ IsComplete "order-id", IsUnique "order-id" ]')
    assert ruleset.rules == (Rule("IsComplete", ("order-id",)), Rule("IsUnique", ("order-id",)))
    assert ruleset.analyzers == ()
    assert ruleset.metadata == {} and ruleset.data_sources == {} and ruleset.constants == {}


def test_metadata_and_data_sources_with_aliases_as_a_list() -> None:
    ruleset = parse(
        'Metadata = { "Version": "1.0" }\n'
        'DataSources = { "Primary": "orders", "AdditionalDataSources": [ "reference", "history" ] }\n'
        'Rules = [ RowCountMatch "reference" >= 0.9 ]'
    )
    assert ruleset.metadata == {"Version": "1.0"}
    assert ruleset.primary_source == "orders"
    assert ruleset.additional_sources == {"reference": "reference", "history": "history"}
    assert ruleset.data_sources == {"Primary": "orders", "AdditionalDataSources": ruleset.additional_sources}
    round_trips(ruleset)


def test_additional_data_sources_are_a_list_never_a_nested_dictionary() -> None:
    # the reference grammar's dictionaries hold strings and lists of strings, nothing nested
    assert str(syntax_error(
        'DataSources = { "AdditionalDataSources": { "reference": "db.customers" } }\n'
        'Rules = [ SchemaMatch "reference" = 1.0 ]'
    )) == ('line 1, column 42: DataSources does not take nested dictionaries: "AdditionalDataSources" is a string '
           'or a list of strings, as in "AdditionalDataSources": ["reference"]')
    assert "Metadata does not take nested dictionaries" in str(syntax_error(
        'Metadata = { "Version": { "a": "b" } }\nRules = [ RowCount > 0 ]'))
    assert '"AdditionalDataSources" must be a list of aliases' in str(syntax_error(
        'DataSources = { "AdditionalDataSources": "reference" }\nRules = [ RowCount > 0 ]'))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('Metadata = { "Owner": "x" }\nRules = [ RowCount > 0 ]',
         'line 1, column 1: Metadata supports only the key "Version", not "Owner"'),
        ("Metadata = { }\nRules = [ RowCount > 0 ]",
         'line 1, column 12: empty dictionary: give at least one "key": value pair'),
        ('DataSources = { "Secondary": "x" }\nRules = [ RowCount > 0 ]',
         'line 1, column 1: DataSources supports "Primary" and "AdditionalDataSources", not "Secondary"'),
        ('DataSources = { "Primary": ["a"] }\nRules = [ RowCount > 0 ]',
         'line 1, column 1: DataSources "Primary" must be a string naming the primary source'),
        ('Metadata = { "Version": "1", "Version": "2" }\nRules = [ RowCount > 0 ]',
         'line 1, column 30: key "Version" is given twice'),
        ("Rules = [ RowCount > 0 ]\nRules = [ RowCount > 1 ]",
         "line 2, column 1: the Rules section is given twice"),
        ("Rules = [ ]", "no rules or analyzers: give Rules = [ ... ] with at least one rule"),
        ("", "no rules or analyzers: give Rules = [ ... ] with at least one rule"),
    ],
)
def test_rejected_sections(text: str, message: str) -> None:
    assert str(syntax_error(text)) == message


def test_analyzers_without_rules() -> None:
    ruleset = parse('Analyzers = [ RowCount, Completeness "col", AllStatistics "col" ]')
    assert ruleset.rules == ()
    assert ruleset.analyzers == (
        Analyzer("RowCount"),
        Analyzer("Completeness", ("col",)),
        Analyzer("AllStatistics", ("col",)),
    )
    assert "Rules" not in ruleset.to_dqdl()
    round_trips(ruleset)


def test_sections_print_in_the_reference_order() -> None:
    ruleset = parse('Metadata = {"Version": "1.0"}\nRules = [ RowCount > 0 ]\nAnalyzers = [ ColumnCount ]')
    assert ruleset.to_dqdl() == (
        'Metadata = {\n    "Version": "1.0"\n}\n\nRules = [\n    RowCount > 0\n]\n\nAnalyzers = [\n    ColumnCount\n]'
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('Rules = [ RowCount > 0 ]\nMetadata = {"Version": "1.0"}',
         "line 2, column 1: the Metadata section is out of order; sections go in the order Metadata, DataSources, "
         "constants, DefaultLabels, Rules, Analyzers"),
        ("Analyzers = [ RowCount ]\nRules = [ RowCount > 0 ]",
         "line 2, column 1: the Rules section is out of order; sections go in the order Metadata, DataSources, "
         "constants, DefaultLabels, Rules, Analyzers"),
        ('Rules = [ RowCount > 0 ]\nx = "a"', "line 2, column 1: expected Analyzers = ... or the end of the ruleset, "
         "found 'x'"),
    ],
)
def test_sections_out_of_the_reference_order_are_refused(text: str, message: str) -> None:
    assert str(syntax_error(text)) == message


def test_comments_run_to_the_end_of_the_line_but_not_inside_strings() -> None:
    ruleset = parse(
        "# the orders ruleset\n"
        "Rules = [\n"
        "    RowCount > 0,  # at least one row\n"
        '    ColumnValues "code" matches "#[0-9]+"  # hash in a regex\n'
        "]  # done"
    )
    assert ruleset.rules[1] == Rule("ColumnValues", ("code",), Matches("#[0-9]+"))


# ---------------------------------------------------------------- composite rules


def test_and_or_and_nesting_from_the_aws_reference() -> None:
    ruleset = parse(
        'Rules = [ (IsComplete "id") and (IsUnique "id"),'
        ' (Mean "Star_Rating" > 3) and (Mean "Order_Total" > 500) and (IsComplete "Order_Id"),'
        ' (Mean "Star_Rating" > 3) and ((Mean "Order_Total" > 500) or (IsComplete "Order_Id")),'
        ' (RowCount > 0) or ((IsComplete "colA") and (IsUnique "colA")) ]'
    )
    first, chain, mixed, nested = ruleset.rules
    assert first == CompositeRule("and", (Rule("IsComplete", ("id",)), Rule("IsUnique", ("id",))))
    assert isinstance(chain, CompositeRule) and len(chain.rules) == 3
    assert isinstance(mixed, CompositeRule) and mixed.operator == "and"
    assert isinstance(mixed.rules[1], CompositeRule) and mixed.rules[1].operator == "or"
    assert isinstance(nested, CompositeRule) and nested.operator == "or"
    assert [leaf.rule_type for leaf in nested.leaves()] == ["RowCount", "IsComplete", "IsUnique"]
    assert list(ruleset.leaves())[:2] == [Rule("IsComplete", ("id",)), Rule("IsUnique", ("id",))]
    round_trips(ruleset)


def test_uppercase_and_or_and_redundant_parentheses() -> None:
    ruleset = parse('Rules = [ ((ColumnValues "Age" != 21)) AND (ColumnValues "Age" != NULL), ((RowCount > 1)) ]')
    composite, single = ruleset.rules
    assert isinstance(composite, CompositeRule) and composite.operator == "and"
    assert single == Rule("RowCount", (), Comparison(">", NumberLiteral(1)))
    assert composite.to_dqdl() == '(ColumnValues "Age" != 21) AND (ColumnValues "Age" != NULL)'  # as the reference


def test_and_binds_tighter_than_or_as_in_the_reference_grammar() -> None:
    mixed = parse('Rules = [ (IsComplete "a") and (IsUnique "b") or (RowCount > 1) ]').rules[0]
    assert mixed == CompositeRule("or", (
        CompositeRule("and", (Rule("IsComplete", ("a",)), Rule("IsUnique", ("b",)))),
        Rule("RowCount", (), Comparison(">", NumberLiteral(1)))))
    assert mixed.to_dqdl() == '((IsComplete "a") AND (IsUnique "b")) OR (RowCount > 1)'
    other = parse('Rules = [ (RowCount > 1) or (IsComplete "a") and (IsUnique "b") ]').rules[0]
    assert isinstance(other, CompositeRule) and other.operator == "or"
    assert isinstance(other.rules[1], CompositeRule) and other.rules[1].operator == "and"


def test_sides_need_no_parentheses_where_parameters_cannot_run_on() -> None:
    ruleset = parse('Rules = [ RowCount > 0 and IsComplete "a", IsComplete "a" or IsUnique "b",'
                    ' (IsComplete "a") and IsUnique "b", IsComplete "a" and (IsUnique "b") ]')
    assert [r.to_dqdl() for r in ruleset.rules] == [
        '(RowCount > 0) AND (IsComplete "a")', '(IsComplete "a") OR (IsUnique "b")',
        '(IsComplete "a") AND (IsUnique "b")', '(IsComplete "a") AND (IsUnique "b")']
    # as in the reference grammar, `and` before a name joins parameters: one rule with three parameters
    error = syntax_error('Rules = [ IsComplete "a" and IsUnique "b" ]')
    assert str(error) == "line 1, column 30: expected ',' before the next rule after IsComplete \"a\", found 'IsUnique'"


def test_unclosed_parenthesis() -> None:
    assert str(syntax_error("Rules = [ (RowCount > 1 ]")) == (
        "line 1, column 25: expected ')' or 'or' after (RowCount > 1, found ']'"
    )


# ---------------------------------------------------------------- clauses


def test_where_clause_keeps_the_spark_sql_text() -> None:
    rule = only_rule('IsComplete "Customer_ID"  where "Customer_ID < 16 and Customer_ID != 12"')
    assert rule.where == "Customer_ID < 16 and Customer_ID != 12"
    assert only_rule('IsComplete "passenger_count" where "payment_type<>0"').where == "payment_type<>0"


def test_where_clause_must_not_be_empty() -> None:
    assert str(syntax_error('Rules = [ IsComplete "a" where "  " ]')) == (
        'line 1, column 26: empty where clause: give a Spark SQL condition such as where "age > 18"'
    )


def test_threshold_tags_and_labels_in_canonical_order() -> None:
    rule = only_rule(
        'FileUniqueness "s3://bucket/" > 0.5 with recentFiles = 5 with uriRegex = "\\.csv$"'
        ' with filterOrder = ["uriRegex","recentFiles"] labels=["team" = "ingest"]'
    )
    assert rule.tags == {"recentFiles": 5, "uriRegex": "\\.csv$", "filterOrder": ("uriRegex", "recentFiles")}
    assert rule.labels == {"team": "ingest"}
    assert rule.to_dqdl() == (
        'FileUniqueness "s3://bucket/" > 0.5 with recentFiles = 5 with uriRegex = "\\.csv$"'
        ' with filterOrder = ["uriRegex","recentFiles"] labels=["team"="ingest"]'
    )
    threshold = only_rule('ColumnDataType "colA" = "INTEGER" with threshold > 0.9')
    assert threshold.threshold == Comparison(">", NumberLiteral(0.9))
    assert threshold.tags == {}


def test_tag_and_threshold_errors() -> None:
    assert str(syntax_error('Rules = [ FileSize "s3://b/" > 1 B with recentFiles = 1 with recentFiles = 2 ]')) == (
        "line 1, column 62: tag 'recentFiles' is given twice"
    )
    assert str(syntax_error('Rules = [ ColumnValues "a" > 1 with threshold > 0.1 with threshold < 0.9 ]')) == (
        "line 1, column 53: only one 'with threshold' is allowed per rule"
    )
    assert str(syntax_error("Rules = [ RowCount > 1 with ]")) == (
        "line 1, column 29: expected threshold or a tag name after RowCount > 1 with, found ']'"
    )


def test_default_labels_and_rule_labels() -> None:
    ruleset = parse(
        'DefaultLabels = ["team" = "core", "tier" = "gold"]\n'
        'Rules = [ IsComplete "id", Completeness "email" > 0.9 labels = ["team" = "crm", "pii" = "yes"],'
        ' (RowCount > 0) and (ColumnCount > 1) ]'
    )
    plain, labelled, composite = ruleset.rules
    assert ruleset.default_labels == {"team": "core", "tier": "gold"}
    assert ruleset.labels_for(plain) == {"team": "core", "tier": "gold"}
    assert ruleset.labels_for(labelled) == {"team": "crm", "tier": "gold", "pii": "yes"}
    assert ruleset.labels_for(composite) == ruleset.default_labels
    round_trips(ruleset)


def test_labels_are_a_list_never_a_dictionary() -> None:
    # the reference grammar takes labels=["k"="v"] only, for rules and for DefaultLabels alike
    assert str(syntax_error('Rules = [ IsComplete "id" labels = {"team": "crm"} ]')) == (
        'line 1, column 36: labels are a list of "key"="value" pairs, e.g. labels=["team"="core"], '
        'not a {...} dictionary')
    assert "not a {...} dictionary" in str(syntax_error('DefaultLabels = {"team": "crm"}\nRules = [ RowCount > 0 ]'))
    assert "not a {...} dictionary" in str(syntax_error('Rules = [ (RowCount > 0) labels = {"team": "crm"} ]'))
    assert str(syntax_error('Rules = [ IsComplete "id" labels = ["a" = "1", "a" = "2"] ]')) == (
        'line 1, column 48: label "a" is given twice'
    )


# ---------------------------------------------------------------- operators


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('Uniqueness "email" = 1.0', Comparison("=", NumberLiteral(1.0))),
        ('Uniqueness "Customer_ID" != 1.0', Comparison("!=", NumberLiteral(1.0))),
        ('Entropy "Star_Rating" > 1', Comparison(">", NumberLiteral(1))),
        ('Completeness "x" >= 0.95', Comparison(">=", NumberLiteral(0.95))),
        ('StandardDeviation "Star_Rating" < 1.5', Comparison("<", NumberLiteral(1.5))),
        ('DistinctValuesCount "x" <= 6', Comparison("<=", NumberLiteral(6))),
        ('ColumnValues "Customer_ID" between 1 and 2000', Between(NumberLiteral(1), NumberLiteral(2000))),
        ('ColumnValues "x" not between 1 and 5', Between(NumberLiteral(1), NumberLiteral(5), negated=True)),
        ('ColumnValues "x" not between -1 and 5', Between(NumberLiteral(-1), NumberLiteral(5), negated=True)),
        ('ColumnValues "gender" in ["F", "M"]', InList((StringLiteral("F"), StringLiteral("M")))),
        ('ColumnValues "Age" not in [21, 22, 23]',
         InList((NumberLiteral(21), NumberLiteral(22), NumberLiteral(23)), negated=True)),
        ('ColumnValues "Age" not in [21, NULL]', InList((NumberLiteral(21), Keyword("NULL")), negated=True)),
        ('ColumnValues "First_Name" matches "[a-zA-Z]*"', Matches("[a-zA-Z]*")),
        ('ColumnValues "First_Name" not matches "[0-9]+"', Matches("[0-9]+", negated=True)),
    ],
)
def test_every_operator(text: str, expected: object) -> None:
    rule = only_rule(text)
    assert rule.condition == expected
    assert parse(f"Rules = [ {rule.to_dqdl()} ]").rules[0] == rule


@pytest.mark.parametrize("text", ["RowCount BETWEEN 10 and 100", 'ColumnValues "x" NOT IN [1]',
                                  'ColumnValues "x" IN [1]', 'ColumnValues "x" NOT matches "a"'])
def test_condition_keywords_are_lowercase_as_in_the_reference_lexer(text: str) -> None:
    syntax_error(f"Rules = [ {text} ]")


# ---------------------------------------------------------------- operands


@pytest.mark.parametrize(
    ("text", "operand"),
    [
        ('ColumnValues "x" = 10', NumberLiteral(10)),
        ('ColumnValues "x" = -3', NumberLiteral(-3)),
        ('ColumnValues "x" = 0.25', NumberLiteral(0.25)),
        ('ColumnValues "x" = "text"', StringLiteral("text")),
        ('ColumnValues "x" = "say \\"hi\\""', StringLiteral('say "hi"')),
        ('ColumnValues "x" = NULL', Keyword("NULL")),
        ('ColumnValues "x" = empty', Keyword("EMPTY")),
        ('ColumnValues "x" != WHITESPACES_ONLY', Keyword("WHITESPACES_ONLY")),
        ('ColumnValues "x" > "2023-01-31"', DateLiteral(dt.date(2023, 1, 31))),
        ('ColumnValues "x" > now()', Now()),
        ('ColumnValues "Load_Date" > (now() - 3 days)', DateArithmetic("-", Duration(3, "days"))),
        ('ColumnValues "x" < (now() + 4 hours)', DateArithmetic("+", Duration(4, "hours"))),
        ('FileFreshness "s3://bucket/" >= (now() -1 days)', DateArithmetic("-", Duration(1, "days"))),
        ('FileFreshness "s3://b/" > (now() - 10 minutes)', DateArithmetic("-", Duration(10, "minutes"))),
        ('FileFreshness "s3://b/" > "9:30 AM"', TimeLiteral(dt.time(9, 30), "9:30 AM")),
        ('FileFreshness "s3://b/" < "9:30 PM"', TimeLiteral(dt.time(21, 30), "9:30 PM")),
        ('FileFreshness "s3://b/" < "21:05"', TimeLiteral(dt.time(21, 5), "21:05")),
        ('DataFreshness "Order_Date" <= 24 hours', Duration(24, "hours")),
        ('FileSize "s3://b/file.dat" > 2 MB', Size(2, "MB")),
        ('FileSize "s3://b/" > 5 B', Size(5, "B")),
        ('FileSize "s3://b/" < 1 TB', Size(1, "TB")),
        ('FileSize "s3://b/" < 100 KB', Size(100, "KB")),
        ('FileSize "s3://b/" < 3 GB', Size(3, "GB")),
    ],
)
def test_every_operand_kind(text: str, operand: object) -> None:
    rule = only_rule(text)
    assert isinstance(rule.condition, Comparison)
    assert rule.condition.operand == operand
    assert parse(f"Rules = [ {rule.to_dqdl()} ]").rules[0] == rule


def test_units_convert() -> None:
    assert Duration(2, "days").seconds == 172800 and Duration(45, "minutes").seconds == 2700
    assert Size(2, "MB").bytes == 2 * 1024 * 1024 and Size(1, "TB").bytes == 1024**4


def test_allowed_values_with_keywords_from_the_aws_reference() -> None:
    rule = only_rule('ColumnValues "Country" in [ "US", "CA", "UK", NULL, EMPTY, WHITESPACES_ONLY ]')
    assert rule.condition == InList(
        (StringLiteral("US"), StringLiteral("CA"), StringLiteral("UK"),
         Keyword("NULL"), Keyword("EMPTY"), Keyword("WHITESPACES_ONLY"))
    )
    assert rule.to_dqdl() == 'ColumnValues "Country" in ["US","CA","UK",NULL,EMPTY,WHITESPACES_ONLY]'


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('ColumnValues "x" > "2023-02-30"', 'line 1, column 30: "2023-02-30" is not a valid date (yyyy-mm-dd)'),
        ('FileFreshness "s3://b/" > "13:30 PM"',
         'line 1, column 37: "13:30 PM" is not a valid time (h:mm AM or HH:mm)'),
        ('FileFreshness "s3://b/" > "24:00"', 'line 1, column 37: "24:00" is not a valid time (h:mm AM or HH:mm)'),
        ('DataFreshness "x" < 1.5 hours', "line 1, column 31: a duration takes a whole number, not 1.5"),
        ('FileSize "s3://b/" < 0.5 MB', "line 1, column 32: a size takes a whole number, not 0.5"),
        ('ColumnValues "x" in []', "line 1, column 28: empty list after 'in': give at least one value"),
    ],
)
def test_rejected_literals(text: str, message: str) -> None:
    assert str(syntax_error(f"Rules = [ {text} ]")) == message


# ---------------------------------------------------------------- dynamic rules


@pytest.mark.parametrize(
    ("text", "operand"),
    [
        ("RowCount > avg(last(10)) *0.8",
         BinaryOp("*", Aggregate("avg", LastK(10)), NumberLiteral(0.8))),
        ('Completeness "colA" <= avg(last(10))', Aggregate("avg", LastK(10))),
        ('Entropy "colA" < max(last(10))', Aggregate("max", LastK(10))),
        ('Mean "colA" > min(last(3))', Aggregate("min", LastK(3))),
        ('Sum "colA" > sum(last(2))', Aggregate("sum", LastK(2))),
        ('Mean "colA" > median(last(7))', Aggregate("median", LastK(7))),
        ('StandardDeviation "colA" < std(last(5))', Aggregate("std", LastK(5))),
        ('UniqueValueRatio "colA" <= index(last(10),2) + std(last(5))',
         BinaryOp("+", IndexOf(LastK(10), 2), Aggregate("std", LastK(5)))),
        ("RowCount > -avg(last(3))", Negative(Aggregate("avg", LastK(3)))),
        ("RowCount > (avg(last(3)) + 1) * 2",
         BinaryOp("*", BinaryOp("+", Aggregate("avg", LastK(3)), NumberLiteral(1)), NumberLiteral(2))),
        ("RowCount > avg(last(3)) + 1 * 2",
         BinaryOp("+", Aggregate("avg", LastK(3)), BinaryOp("*", NumberLiteral(1), NumberLiteral(2)))),
        ("RowCount > 10 - (5 - 2)",
         BinaryOp("-", NumberLiteral(10), BinaryOp("-", NumberLiteral(5), NumberLiteral(2)))),
        ("RowCount > 10 - 5 - 2",
         BinaryOp("-", BinaryOp("-", NumberLiteral(10), NumberLiteral(5)), NumberLiteral(2))),
        ("RowCount > 10 / -2", BinaryOp("/", NumberLiteral(10), NumberLiteral(-2))),
    ],
)
def test_dynamic_expressions(text: str, operand: object) -> None:
    rule = only_rule(text)
    assert isinstance(rule.condition, Comparison)
    assert rule.condition.operand == operand
    assert parse(f"Rules = [ {rule.to_dqdl()} ]").rules[0] == rule


def test_dynamic_bounds_with_and_without_spaces() -> None:
    rule = only_rule("ColumnCount between min(last(10))-1 and max(last(10))+1")
    assert rule.condition == Between(
        BinaryOp("-", Aggregate("min", LastK(10)), NumberLiteral(1)),
        BinaryOp("+", Aggregate("max", LastK(10)), NumberLiteral(1)),
    )
    assert rule.to_dqdl() == "ColumnCount between min(last(10)) - 1 and max(last(10)) + 1"


def test_arithmetic_prints_its_parentheses_as_written_and_built_nodes_only_those_needed() -> None:
    assert only_rule("RowCount > (1 + 2) + (3 * 4)").to_dqdl() == "RowCount > (1 + 2) + (3 * 4)"
    assert only_rule("RowCount > 8 / (4 / 2)").to_dqdl() == "RowCount > 8 / (4 / 2)"
    assert only_rule("RowCount > -(1 + avg(last(2)))").to_dqdl() == "RowCount > -(1 + avg(last(2)))"
    built = Rule("RowCount", (), Comparison(">", only_rule("RowCount > (1 + 2) + (3 * 4)").condition.operand))
    assert built.to_dqdl() == "RowCount > 1 + 2 + 3 * 4"


@pytest.mark.parametrize(
    ("text", "call"),
    [
        ("RowCount > foo(last(3))", FunctionCall("foo", (LastK(3),))),
        ("RowCount > avg(10)", FunctionCall("avg", (NumberLiteral(10),))),
        ("RowCount > max(avg(last(10)))", FunctionCall("max", (Aggregate("avg", LastK(10)),))),
        ("RowCount > avg(last(0))", FunctionCall("avg", (FunctionCall("last", (NumberLiteral(0),)),))),
        ("RowCount > index(last(3))", FunctionCall("index", (LastK(3),))),
        ("RowCount > now(1)", FunctionCall("now", (NumberLiteral(1),))),
        ("RowCount > percentile(1,2,3)", FunctionCall("percentile", (NumberLiteral(1), NumberLiteral(2),
                                                                     NumberLiteral(3)))),
    ],
)
def test_any_function_name_parses_and_fails_only_when_evaluated(text: str, call: object) -> None:
    rule = only_rule(text)
    assert isinstance(rule.condition, Comparison) and rule.condition.operand == call
    assert rule.to_dqdl() == text.replace(", ", ",")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("RowCount > last(3)",
         "line 1, column 20: last(3) is a list of past values; summarize it with avg, min, max, sum, median or std, "
         "or pick one with index(last(3), 0)"),
    ],
)
def test_rejected_dynamic_expressions(text: str, message: str) -> None:
    assert str(syntax_error(f"Rules = [ {text} ]")) == message


# ---------------------------------------------------------------- constants


def test_constants_are_resolved_everywhere_and_kept_for_printing() -> None:
    ruleset = parse(
        'sql_query = "select count(*) from primary"\n'
        'allowed = ["US", "CA"]\n'
        'keys = "colA"\n'
        'pattern = "[A-Z]+"\n'
        'filter = "age > 18"\n'
        'limit = "100"\n'
        'nothing = NULL\n'
        'Rules = [ CustomSql $sql_query > 0, ColumnValues "country" in $allowed, IsPrimaryKey $keys "colB",'
        ' ColumnValues "code" matches "[A-Z]+", IsComplete "name" where "age > 18", ColumnValues "c" = $nothing,'
        ' ColumnValues "c" in [$limit, "x"], FileSize "s3://b/" > 1 MB with uriRegex = $pattern ]'
    )
    sql, allowed, keys, pattern, where, keyword, mixed, tag = ruleset.rules
    assert sql == Rule("CustomSql", ("select count(*) from primary",), Comparison(">", NumberLiteral(0)))
    assert allowed == Rule("ColumnValues", ("country",), InList((StringLiteral("US"), StringLiteral("CA"))))
    assert keys == Rule("IsPrimaryKey", ("colA", "colB"))
    assert pattern == Rule("ColumnValues", ("code",), Matches("[A-Z]+"))
    assert where == Rule("IsComplete", ("name",), where="age > 18")
    assert keyword == Rule("ColumnValues", ("c",), Comparison("=", Keyword("NULL")))
    assert mixed == Rule("ColumnValues", ("c",), InList((StringLiteral("100"), StringLiteral("x"))))
    assert [r.to_dqdl() for r in ruleset.rules[:3]] == [
        "CustomSql $sql_query > 0", 'ColumnValues "country" in $allowed', 'IsPrimaryKey $keys "colB"']
    assert isinstance(tag, Rule) and tag.tags == {"uriRegex": "[A-Z]+"}
    assert ruleset.constants == {
        "sql_query": "select count(*) from primary", "allowed": ("US", "CA"), "keys": "colA",
        "pattern": "[A-Z]+", "filter": "age > 18", "limit": "100", "nothing": Keyword("NULL"),
    }
    round_trips(ruleset)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Rules = [ CustomSql $q > 1 ]", "line 1, column 21: unknown constant $q (constants: none are defined)"),
        ('a = "x"\nRules = [ RowCount > $b ]', "line 2, column 22: unknown constant $b (constants: $a)"),
        ('a = "x"\na = "y"\nRules = [ RowCount > 0 ]', "line 2, column 1: constant 'a' is already defined"),
        ('_a = "x"\nRules = [ RowCount > 0 ]', "line 1, column 1: constant name '_a' must not start with '.' or '_'"),
        ('a = "x"\nb = "$a"\nRules = [ RowCount > 0 ]',
         "line 2, column 1: constant 'b' refers to another constant; constants cannot be nested"),
        ('a = ["x"]\nRules = [ ColumnValues "c" = $a ]',
         "line 2, column 30: constant $a is a list; use it after 'in', e.g. in $a"),
        ('a = "x > 1"\nRules = [ IsComplete "c" where $a ]',
         "line 2, column 32: a where clause is a quoted Spark SQL condition, not a constant ($a): write it out, "
         'e.g. where "age > 18"'),
        ('a = "[a-z]+"\nRules = [ ColumnValues "c" matches $a ]',
         "line 2, column 36: 'matches' takes a regular expression in double quotes, not a constant ($a)"),
        ("a = 1\nRules = [ RowCount > 0 ]", "line 1, column 1: constant 'a' holds a number; constants hold "
         "strings, NULL, EMPTY, WHITESPACES_ONLY or lists of them"),
    ],
)
def test_rejected_constants(text: str, message: str) -> None:
    assert str(syntax_error(text)) == message


# ---------------------------------------------------------------- syntax errors


@pytest.mark.parametrize(
    ("text", "message", "expected"),
    [
        ("Rules = [\n  RowCount > 0,\n  ColumnValues \"age\" > \n]",
         "line 4, column 1: expected a value such as 10, \"text\", NULL or avg(last(3)) or '(' after "
         "ColumnValues \"age\" >, found ']'",
         ('a value such as 10, "text", NULL or avg(last(3))', "'('")),
        ("Rules = [ RowCount between 1 5 ]",
         "line 1, column 30: expected 'and', an operator such as + or * or a unit such as hours or MB after "
         "RowCount between 1, found '5'",
         ("'and'", "an operator such as + or *", "a unit such as hours or MB")),
        ("Rules = [ RowCount > 10 % ]",
         "line 1, column 25: expected ',', ']', where \"<Spark SQL condition>\" or with threshold ... or with "
         "<tag> = ... after RowCount > 10, found '%'",
         ("','", "']'", 'where "<Spark SQL condition>"', "with threshold ... or with <tag> = ...",
          'labels = ["key" = "value"]', "'and'", "'or'", "an operator such as + or *", "a unit such as hours or MB")),
        ("Rules = [ RowCount > 10",
         "line 1, column 24: expected ',', ']', where \"<Spark SQL condition>\" or with threshold ... or with "
         "<tag> = ... after RowCount > 10, found the end of the ruleset", None),
        ("Rules = [ , ]",
         "line 1, column 11: expected a rule type such as RowCount, ']' or '(', found ','",
         ("a rule type such as RowCount", "']'", "'('")),
        ("Rulez = [ RowCount > 1 ]", "line 1, column 1: unknown section 'Rulez'; did you mean Rules?", None),
        ('Rules = [ ColumnValues "x" = "unterminated ]',
         "line 1, column 30: expected a value such as 10, \"text\", NULL or avg(last(3)) or '(' after "
         "ColumnValues \"x\" =, found '\"'", None),
        ('Rules = [ ColumnValues days > 1 ]',
         "line 1, column 24: 'days' is a DQDL keyword; write the column name in double quotes: \"days\"", None),
        ('Rules = [ RowCount > 1 ]\nRules', "line 2, column 1: expected Analyzers = ... or the end of the ruleset, "
         "found 'Rules'", ("Analyzers = ...", "the end of the ruleset")),
    ],
)
def test_syntax_errors_say_where_and_what_was_expected(
    text: str, message: str, expected: tuple[str, ...] | None
) -> None:
    error = syntax_error(text)
    assert str(error) == message
    if expected is not None:
        assert error.expected == expected


def test_several_semantic_errors_are_reported_together() -> None:
    error = syntax_error('Rules = [ Foo "x" > 1,\n  IsComplete "a" > 5 ]')
    assert str(error) == (
        "line 1, column 11: unknown rule type 'Foo'\n"
        "line 2, column 18: IsComplete is a boolean rule and takes no condition, found '> 5'"
    )
    assert [(e.line, e.column) for e in error.errors] == [(1, 11), (2, 18)]
    assert (error.line, error.column) == (1, 11)
    assert isinstance(error, ValueError)


# ---------------------------------------------------------------- nodes and printing


@pytest.mark.parametrize("text", ["plain", 'quote " inside', "back\\slash", "ends with \\", '\\"', "\\\\", "\\.csv$"])
def test_strings_round_trip_through_quote(text: str) -> None:
    rule = Rule("CustomSql", (text,))
    assert parse(f"Rules = [ {rule.to_dqdl()} ]").rules[0] == rule
    assert quote("\\.csv$") == '"\\.csv$"'


def test_numbers_print_without_exponents() -> None:
    assert format_number(0.00001) == "0.00001"
    assert format_number(1e20) == "100000000000000000000.0"
    assert format_number(-3) == "-3" and format_number(2.0) == "2.0"
    for value in (0.00001, 1e20, 0.1, 123456.789):
        assert only_rule(f"RowCount > {format_number(value)}").condition == Comparison(">", NumberLiteral(value))
    with pytest.raises(TypeError):
        format_number(True)


def test_nodes_are_frozen_and_hashable_and_positions_do_not_count() -> None:
    first = only_rule('IsComplete "a" labels = ["k" = "v"]')
    second = parse('Rules = [\n\n   IsComplete "a" labels = ["k" = "v"] ]').rules[0]
    assert first == second and hash(first) == hash(second)
    assert first.position == (1, 11) and second.position == (3, 4)
    with pytest.raises(AttributeError):
        first.rule_type = "IsUnique"  # type: ignore[misc]
    assert len({first, second}) == 1
    assert FrozenMap({"a": 1}) == {"a": 1} and hash(FrozenMap({"a": 1})) == hash(FrozenMap([("a", 1)]))
    assert repr(FrozenMap({"a": 1})) == "FrozenMap({'a': 1})"
