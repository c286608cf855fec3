"""DQDL conformance, parser side: every rule type × operator × clause of the reference grammar.

Built from the public DQDL ANTLR grammar (``DataQualityDefinitionLanguage.g4``), its rules
configuration (``rules-config.json``: parameters, return type, where/threshold support) and AWS
Glue's DQDL reference. Each valid form must parse, print back exactly as written in the reference
printer's spacing (``in [1,2]``, ``labels=["k"="v"]``, function arguments joined by ``,``,
``$constants`` and ``of``/``and`` kept), and re-parse to an equal ruleset; each invalid form must be
refused. No Spark: this file is fast.
"""

from __future__ import annotations

import pytest

from glueball.dataquality import CompositeRule, DqdlError, Rule, parse
from glueball.dataquality.rules import RULE_TYPES

#: each rule type of the rules configuration, with parameters it takes (as written)
NUMERIC = {
    "RowCount": "",
    "RowCountMatch": ' "reference"',
    "ColumnCount": "",
    "Completeness": ' "col"',
    "ColumnCorrelation": ' "a" "b"',
    "Uniqueness": ' "col"',
    "Mean": ' "col"',
    "Sum": ' "col"',
    "StandardDeviation": ' "col"',
    "Variance": ' "col"',
    "Entropy": ' "col"',
    "DistinctValuesCount": ' "col"',
    "UniqueValueRatio": ' "col"',
    "ColumnLength": ' "col"',
    "CustomSql": ' "select count(*) from primary"',
    "ReferentialIntegrity": ' "a" "reference.b"',
    "DatasetMatch": ' "reference" "id"',
    "SchemaMatch": ' "reference"',
    "AggregateMatch": ' "sum(a)" "sum(reference.a)"',
    "FileUniqueness": ' "s3://bucket/"',
}
BOOLEAN = {
    "IsComplete": ' "col"',
    "IsUnique": ' "col"',
    "IsPrimaryKey": ' "col"',
    "ColumnExists": ' "col"',
    "ColumnNamesMatchPattern": ' "aws_.*"',
    "DetectAnomalies": ' "RowCount"',
}
NUMBER_CONDITIONS = ["= 1", "!= 1", "> 1", ">= 0.5", "< 10", "<= -1", "between 0.1 and 0.9",
                     "not between 0.1 and 0.9", "in [1,2,3]", "not in [1,2]", "> -100.123456", "= 0.90"]
DYNAMIC = ["> avg(last(10))", "between (0.9 * avg(last(10))) and 1.1 * avg(last(10))", "<= index(last(10),2)",
           "> min(last(3)) - 1", ">= std(last(5)) * 2 + median(last(7))", "> average(last(10))",
           "= avg(std(last(10)))"]
#: rule types whose metric history is numeric: dynamic conditions apply (the grammar allows them on any number)
DYNAMIC_TYPES = sorted(name for name in NUMERIC if RULE_TYPES[name].dynamic)
WHERE = sorted(name for name, spec in RULE_TYPES.items() if spec.where and spec.in_rules)
NO_WHERE = sorted(name for name in {**NUMERIC, **BOOLEAN} if not RULE_TYPES[name].where)
THRESHOLD = {
    "ColumnValues": '"col" > 1',
    "ColumnDataType": '"col" = "Integer"',
    "CustomSql": '"select id from primary"',
    "FileFreshness": '"s3://b/" > (now() - 1 days)',
    "FileSize": '"s3://b/" > 2 MB',
}
#: a condition each type's return type allows, for the clause tests
SAMPLE = {
    **{name: f"{name}{params} > 0" for name, params in NUMERIC.items()},
    **{name: f"{name}{params}" for name, params in BOOLEAN.items()},
    "ColumnValues": 'ColumnValues "col" in ["a","b"]',
    "ColumnDataType": 'ColumnDataType "col" = "Integer"',
    "DataFreshness": 'DataFreshness "col" <= 24 hours',
}


def rules_of(text: str) -> list[Rule | CompositeRule]:
    return list(parse(f"Rules = [ {text} ]").rules)


def prints_as_written(text: str) -> Rule | CompositeRule:
    """``text`` parses to one rule that prints back exactly, and whose printed form re-parses equal."""
    ruleset = parse(f"Rules = [ {text} ]")
    (rule,) = ruleset.rules
    assert rule.to_dqdl() == text
    assert parse(ruleset.to_dqdl()) == ruleset
    return rule


def refused(text: str) -> DqdlError:
    with pytest.raises(DqdlError) as caught:
        parse(text)
    return caught.value


def test_every_configured_rule_type_is_covered() -> None:
    covered = set(NUMERIC) | set(BOOLEAN) | {"ColumnValues", "ColumnDataType", "DataFreshness", "FileFreshness",
                                             "FileSize", "FileMatch", "IsComplete", "AllStatistics"}
    assert covered == set(RULE_TYPES)


# ---------------------------------------------------------------- rule type × operator


@pytest.mark.parametrize("condition", NUMBER_CONDITIONS)
@pytest.mark.parametrize("name", sorted(set(NUMERIC) - {"FileUniqueness"}))
def test_numeric_rule_types_take_every_number_operator(name: str, condition: str) -> None:
    rule = prints_as_written(f"{name}{NUMERIC[name]} {condition}")
    assert isinstance(rule, Rule) and rule.rule_type == name


@pytest.mark.parametrize("condition", DYNAMIC)
@pytest.mark.parametrize("name", DYNAMIC_TYPES)
def test_dynamic_conditions_on_every_rule_type_with_history(name: str, condition: str) -> None:
    prints_as_written(f"{name}{NUMERIC[name]} {condition}")


@pytest.mark.parametrize(
    "condition",
    ['= "a"', '!= "a"', 'in ["a","b"]', 'not in ["a","b"]', 'matches "[a-z]*"', 'not matches "[0-9]+"', "= NULL",
     "!= NULL", "= EMPTY", "!= WHITESPACES_ONLY", 'in ["a",NULL,EMPTY,WHITESPACES_ONLY]', "in [1,2,3,4,NULL]",
     "between 1 and 2000", "not between -1 and 1", '> "2022-06-01"', 'between "2022-06-01" and "2022-06-30"',
     "> (now() - 3 days)", "<= (now() + 4 hours)", ">= now()", "between (now() - 3 hours) and now()",
     '> "9:30 AM"', '< "21:30"', 'between "9:00 AM" and "21:50"', "in [now(),(now() - 3 hours)]", "> 0.4",
     '= "2022-01-01"', 'in ["2022-01-01",NULL]'],
)
def test_column_values_takes_strings_numbers_dates_and_times(condition: str) -> None:
    prints_as_written(f'ColumnValues "col" {condition}')


@pytest.mark.parametrize(
    "condition",
    ['= "Integer"', '!= "String"', 'in ["Date","String"]', '= "DECIMAL(10,2)"', '= "decimal(5, 0)"', '= "Long"',
     '= "BOOLEAN"', '= "timestamp"', '= "Double"', '= "Float"', '= "Short"', '= "Byte"', '= "Decimal"'],
)
def test_column_data_type_takes_the_documented_type_names(condition: str) -> None:
    prints_as_written(f'ColumnDataType "col" {condition}')


@pytest.mark.parametrize("condition", ["<= 3 days", "> 90 minutes", "between 2 days and 4 days", "= 24 hours",
                                       "!= 1 days", "in [1 days,2 days]", "not in [3 hours]", ">= 1 hours"])
def test_data_freshness_takes_every_duration_operator(condition: str) -> None:
    prints_as_written(f'DataFreshness "col" {condition}')


@pytest.mark.parametrize(
    "text",
    ['FileFreshness "s3://b/" > (now() - 3 days)', 'FileFreshness "s3://b/" between "9:30 AM" and "22:30"',
     "FileFreshness > (now() - 1 hours)", 'FileSize "s3://b/" > 2 MB', 'FileSize "s3://b/" between 1 KB and 5 GB',
     "FileSize < 1 TB", 'FileSize "s3://b/" >= 1024', 'FileMatch "s3://a/" "s3://b/"',
     'FileMatch "s3://a/" in ["8b1a9953c4611296a827abf8c47804d7"]', 'FileUniqueness "s3://b/" > 0.5',
     "FileUniqueness > 0.9"],
)
def test_file_rules(text: str) -> None:
    prints_as_written(text)


@pytest.mark.parametrize("name", sorted(BOOLEAN))
def test_boolean_rule_types_take_no_condition(name: str) -> None:
    prints_as_written(f"{name}{BOOLEAN[name]}")
    error = refused(f"Rules = [ {name}{BOOLEAN[name]} > 1 ]")
    assert "takes no condition" in str(error)


@pytest.mark.parametrize("name", sorted(set(NUMERIC) - {"CustomSql"}))
def test_numeric_rule_types_need_a_condition(name: str) -> None:
    assert "needs a condition" in str(refused(f"Rules = [ {name}{NUMERIC[name]} ]"))


# ---------------------------------------------------------------- parameters and connectors


@pytest.mark.parametrize(
    "text",
    ["Completeness of col_1 between 0.5 and 0.8", "Completeness of col_1 not between 0.5 and 0.8",
     "ColumnCorrelation of col_1 col_2 between 0.4 and 0.8",
     'ColumnCorrelation of col_1 and "col abc" between 0.4 and 0.8', 'IsPrimaryKey colA "col B"',
     "Uniqueness of col_A > 0.5", 'IsUnique of "a"', 'IsPrimaryKey of "a" and "b"', "IsComplete OF col.nested",
     'Uniqueness "a" and "b" > 0.5', 'Mean "col_A-B.CD" between 10 and 20', "Sum col_1 > 100.0"],
)
def test_connectors_and_unquoted_parameters_are_kept(text: str) -> None:
    prints_as_written(text)


def test_connectors_are_not_parameters() -> None:
    (rule,) = rules_of('ColumnCorrelation of "a" and "b" > 0.5')
    assert isinstance(rule, Rule) and rule.parameters == ("a", "b")
    assert rule == Rule("ColumnCorrelation", ("a", "b"), rule.condition)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('IsComplete "a" "b"', "IsComplete takes 1 parameter (a column name), got 2"),
        ("IsUnique", "IsUnique takes one or more column names, got 0"),
        ('RowCount "a" > 1', "RowCount takes no parameters, got 1"),
        ('ColumnCorrelation "a" > 0.5', "ColumnCorrelation takes 2 parameters (a column name, a column name), got 1"),
        ("Completeness days > 0.5", "'days' is a DQDL keyword; write the column name in double quotes"),
        ('Complete "a"', "unknown rule type 'Complete'"),
        ('isComplete "a"', "unknown rule type 'isComplete'; did you mean IsComplete?"),
        ('AllStatistics "a"', "AllStatistics can only be used in Analyzers"),
    ],
)
def test_rejected_parameters_and_rule_types(text: str, message: str) -> None:
    assert message in str(refused(f"Rules = [ {text} ]"))


# ---------------------------------------------------------------- where, threshold, tags, labels


@pytest.mark.parametrize("name", WHERE)
def test_where_on_every_rule_type_that_takes_it(name: str) -> None:
    rule = prints_as_written(f'{SAMPLE[name]} where "col-A > 100"')
    assert isinstance(rule, Rule) and rule.where == "col-A > 100"


@pytest.mark.parametrize("name", NO_WHERE)
def test_where_refused_where_the_rule_type_does_not_take_it(name: str) -> None:
    assert "does not support a where clause" in str(refused(f'Rules = [ {SAMPLE[name]} where "x > 1" ]'))


@pytest.mark.parametrize("name", sorted(THRESHOLD))
@pytest.mark.parametrize("threshold", ["> 0.9", "between 0.4 and 0.8", "not between 0.4 and 0.8", "<= 0.4"])
def test_threshold_on_every_rule_type_that_takes_it(name: str, threshold: str) -> None:
    rule = prints_as_written(f"{name} {THRESHOLD[name]} with threshold {threshold}")
    assert isinstance(rule, Rule) and rule.threshold is not None


@pytest.mark.parametrize("name", sorted(set(SAMPLE) - set(THRESHOLD) - set(BOOLEAN)))
def test_threshold_refused_where_the_rule_type_does_not_take_it(name: str) -> None:
    assert "does not support 'with threshold'" in str(refused(f"Rules = [ {SAMPLE[name]} with threshold > 0.5 ]"))


@pytest.mark.parametrize(
    "text",
    ['ColumnValues "col" = "a" with ignoreCase = "true"', 'ColumnDataType "col" = "Date" with format = "dd-MM-yyyy"',
     'ColumnValues "col" > "9:30 AM" with timeZone = "America/New_York"',
     'FileSize "s3://b/" > 1 MB with recentFiles = 3 with uriRegex = "\\.csv$"',
     'ColumnValues "col" in ["a"] with threshold > 0.5 with ignoreCase = "true"',
     'FileMatch "s3://a/" "s3://b/" with hashAlgorithm = "SHA-256" with matchFileName = "true"'],
)
def test_tags(text: str) -> None:
    prints_as_written(text)


def test_negation_may_be_written_apart_as_in_the_reference_lexer() -> None:
    (rule,) = rules_of('ColumnValues "c" ! = "a"')
    assert rule == rules_of('ColumnValues "c" != "a"')[0]
    assert rule.to_dqdl() == 'ColumnValues "c" != "a"'


def test_the_threshold_tag_name_is_case_insensitive_as_in_the_reference() -> None:
    (rule,) = rules_of('ColumnValues "c" > 1 with Threshold > 0.5')
    assert isinstance(rule, Rule) and rule.threshold is not None and rule.tags == {}
    assert rule.to_dqdl() == 'ColumnValues "c" > 1 with threshold > 0.5'


def test_labels_may_come_before_or_after_tags_and_print_last() -> None:
    before = rules_of('ColumnValues "c" > 1 labels=["team"="core"] with threshold > 0.5')[0]
    after = rules_of('ColumnValues "c" > 1 with threshold > 0.5 labels=["team"="core"]')[0]
    assert before == after
    assert before.to_dqdl() == 'ColumnValues "c" > 1 with threshold > 0.5 labels=["team"="core"]'


@pytest.mark.parametrize("name", sorted(SAMPLE))
def test_labels_on_every_rule_type(name: str) -> None:
    rule = prints_as_written(f'{SAMPLE[name]} labels=["team"="core", "tier"="gold"]')
    assert rule.labels == {"team": "core", "tier": "gold"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('ColumnValues "c" > 1 with threshold > 0.1 with threshold > 0.2', "only one 'with threshold'"),
        ('IsComplete "c" where "a > 1" where "b > 1"', "only one where clause"),
        ('IsComplete "c" labels=["a"="1"] labels=["b"="2"]', "labels are given twice"),
        ('IsComplete "c" where ""', "empty where clause"),
        ('ColumnValues "c" > 1 with ignoreCase = "maybe"', "tag ignoreCase"),
        ('ColumnDataType "c" = "Integer" with format = ""', "tag format"),
    ],
)
def test_rejected_clauses(text: str, message: str) -> None:
    assert message in str(refused(f"Rules = [ {text} ]"))


# ---------------------------------------------------------------- composite rules


@pytest.mark.parametrize(
    ("text", "printed"),
    [
        ('(IsComplete "a") and (IsUnique "a")', '(IsComplete "a") AND (IsUnique "a")'),
        ('(IsComplete "a") or (IsUnique "a") or (RowCount > 1)',
         '(IsComplete "a") OR (IsUnique "a") OR (RowCount > 1)'),
        ('(IsComplete "a") AND (IsUnique "a")', '(IsComplete "a") AND (IsUnique "a")'),
        ('IsComplete "a" or IsUnique "a"', '(IsComplete "a") OR (IsUnique "a")'),
        ('RowCount > 1 and IsComplete "a"', '(RowCount > 1) AND (IsComplete "a")'),
        ('(RowCount > 1) and ((IsComplete "a") or (IsUnique "a"))',
         '(RowCount > 1) AND ((IsComplete "a") OR (IsUnique "a"))'),
        ('(IsComplete "a") and (IsUnique "a") or (RowCount > 1)',
         '((IsComplete "a") AND (IsUnique "a")) OR (RowCount > 1)'),
        ('(IsComplete "a") and ((IsUnique "a") and (RowCount > 1))',
         '(IsComplete "a") AND (IsUnique "a") AND (RowCount > 1)'),
        # the reference prints AND/OR in capitals, and leaves a composite's labels out of its text
        # (a rule's own labels stay in)
        ('((IsComplete "a") and (IsUnique "a")) labels=["k"="v"]', '(IsComplete "a") AND (IsUnique "a")'),
        ('(IsComplete "a") labels=["k"="v"] or (RowCount > 1)',
         '(IsComplete "a" labels=["k"="v"]) OR (RowCount > 1)'),
        ('(((IsComplete "a") and (IsUnique "a")) labels=["k"="v"]) or (RowCount > 1)',
         '((IsComplete "a") AND (IsUnique "a")) OR (RowCount > 1)'),
        ('(((IsComplete "a") and (IsUnique "a")) labels=["k"="v"]) and (RowCount > 1)',
         '(IsComplete "a") AND (IsUnique "a") AND (RowCount > 1)'),
        ('((IsComplete "a" labels=["j"="w"]) or (IsUnique "a")) labels=["k"="v"]',
         '(IsComplete "a" labels=["j"="w"]) OR (IsUnique "a")'),
    ],
)
def test_composites(text: str, printed: str | None) -> None:
    ruleset = parse(f"Rules = [ {text} ]")
    (rule,) = ruleset.rules
    assert rule.to_dqdl() == (printed or text)
    assert parse(ruleset.to_dqdl()) == ruleset


def test_labels_on_a_composite_are_its_own_and_override_defaults() -> None:
    ruleset = parse('DefaultLabels=["team"="core", "tier"="gold"]\n'
                    'Rules = [ ((IsComplete "a") and (IsUnique "a")) labels=["team"="crm"] ]')
    (composite,) = ruleset.rules
    assert isinstance(composite, CompositeRule)
    assert ruleset.labels_for(composite) == {"team": "crm", "tier": "gold"}
    assert ruleset.labels_for(composite.rules[0]) == {"team": "core", "tier": "gold"}


@pytest.mark.parametrize(
    "text",
    ['(IsComplete "a") and', '(IsComplete "a") (IsUnique "a")', '(IsComplete "a"', 'IsComplete "a")',
     '(IsComplete "a") labels=["k"="v"] labels=["j"="w"]', '((IsComplete "a" labels=["k"="v"])) labels=["j"="w"]'],
)
def test_rejected_composites(text: str) -> None:
    refused(f"Rules = [ {text} ]")


# ---------------------------------------------------------------- constants


def test_constants_are_kept_in_printing() -> None:
    ruleset = parse('col = "a"\nallowed = ["x", NULL]\nsql = "select count(*) from primary"\n'
                    "Rules = [ IsPrimaryKey $col \"b\", ColumnValues \"c\" in $allowed, CustomSql $sql > 1,"
                    ' ColumnValues "c" not in $allowed, ColumnValues "c" in [$sql,"y"] ]')
    assert [r.to_dqdl() for r in ruleset.rules] == [
        'IsPrimaryKey $col "b"', 'ColumnValues "c" in $allowed', "CustomSql $sql > 1",
        'ColumnValues "c" not in $allowed', 'ColumnValues "c" in [$sql,"y"]']
    assert parse(ruleset.to_dqdl()) == ruleset
    assert ruleset.rules[0].parameters == ("a", "b")  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("n = 10\nRules = [ RowCount > 0 ]", "holds a number"),
        ('n = ["a", 1]\nRules = [ RowCount > 0 ]', "holds a number"),
        ('_n = "a"\nRules = [ RowCount > 0 ]', "must not start with '.' or '_'"),
        ('.n = "a"\nRules = [ RowCount > 0 ]', "must not start with '.' or '_'"),
        ('12 = "a"\nRules = [ RowCount > 0 ]', "found '12'"),
        ('n = "a"\nn = "b"\nRules = [ RowCount > 0 ]', "already defined"),
        ('n = "$m"\nRules = [ RowCount > 0 ]', "cannot be nested"),
        ('Rules = [ IsComplete $missing ]', "unknown constant $missing"),
        # a parameter takes a string constant; the reference: "Invalid variable type ... expected STRING"
        ('cols = ["a", "b"]\nRules = [ IsPrimaryKey $cols ]', "constant $cols is a list; a parameter takes"),
        ('q = ["x"]\nRules = [ CustomSql $q ]', "constant $q is a list"),
        ('Rules = [ RowCount > 0 ]\nn = "a"', "found 'n'"),
    ],
)
def test_rejected_constants(text: str, message: str) -> None:
    assert message in str(refused(text))


# ---------------------------------------------------------------- analyzers and documents


@pytest.mark.parametrize("name", sorted(name for name, spec in RULE_TYPES.items() if spec.in_analyzers))
def test_analyzers_take_every_non_boolean_rule_type(name: str) -> None:
    params = {**NUMERIC, "ColumnValues": ' "col"', "ColumnDataType": ' "col"', "DataFreshness": ' "col"',
              "AllStatistics": ' "col"', "FileFreshness": ' "s3://b/"', "FileSize": "", "FileMatch": ' "s3://b/"'}[name]
    ruleset = parse(f"Analyzers = [ {name}{params} ]")
    assert ruleset.analyzers[0].to_dqdl() == f"{name}{params}"
    assert parse(ruleset.to_dqdl()) == ruleset


@pytest.mark.parametrize("text", ["AllStatistics of AllColumns", "Completeness of col", "ColumnCorrelation of a and b"])
def test_analyzers_with_connectors(text: str) -> None:
    assert parse(f"Analyzers = [ {text} ]").analyzers[0].to_dqdl() == text


@pytest.mark.parametrize("text", ["DetectAnomalies of RowCount", 'DetectAnomalies of Completeness of "col"',
                                  'DetectAnomalies "ColumnCorrelation" "a" and "b"'])
def test_detect_anomalies_with_connectors(text: str) -> None:
    prints_as_written(text)


@pytest.mark.parametrize("text", ['IsComplete "col"', 'IsUnique "col"', 'IsPrimaryKey "col"', 'ColumnExists "col"',
                                  'ColumnNamesMatchPattern "a.*"', 'DetectAnomalies "RowCount"',
                                  'FileMatch "s3://a/" "s3://b/"'])
def test_boolean_rule_types_are_not_analyzers(text: str) -> None:
    assert "not supported as an analyzer" in str(refused(f"Analyzers = [ {text} ]"))


@pytest.mark.parametrize(
    "text",
    ["", "Rules = []", "Rules = [ RowCount > 0, ]", "Rules = [ RowCount > 0 ] Rules = [ RowCount > 1 ]",
     "Analyzers = [ RowCount ]\nRules = [ RowCount > 0 ]", 'DefaultLabels=["a"="b"]\nMetadata = {"Version": "1.0"}'
     "\nRules = [ RowCount > 0 ]", "rules = [ RowCount > 0 ]", "Rules = [ RowCount > 0 ",
     'Rules = [ RowCount BETWEEN 1 and 2 ]', 'Rules = [ RowCount > 1e3 ]', "Rules = [ RowCount > .5 ]"],
)
def test_rejected_documents(text: str) -> None:
    refused(text)


def test_a_full_document_in_the_reference_order() -> None:
    ruleset = parse('Metadata = {"Version": "1.0"}\n'
                    'DataSources = {"Primary": "orders", "AdditionalDataSources": ["reference"]}\n'
                    'threshold = "0.9"\n'
                    'DefaultLabels=["team"="core"]\n'
                    'Rules = [ RowCountMatch "reference" >= 0.9, (IsComplete "id") and IsUnique "id" ]\n'
                    'Analyzers = [ AllStatistics "id" ]')
    assert parse(ruleset.to_dqdl()) == ruleset
    assert ruleset.default_labels == {"team": "core"}


# ---------------------------------------------------------------- forms the reference grammar refuses


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('Rules = [ IsComplete "a" labels={"k": "v"} ]', 'labels are a list of "key"="value" pairs'),
        ('DefaultLabels={"k": "v"}\nRules = [ IsComplete "a" ]', 'labels are a list of "key"="value" pairs'),
        ('Rules = [ ((IsComplete "a") and (IsUnique "a")) labels={"k": "v"} ]', "not a {...} dictionary"),
        ('DataSources = {"AdditionalDataSources": {"ref": "db.t"}}\nRules = [ RowCount > 0 ]',
         "DataSources does not take nested dictionaries"),
        ('Metadata = {"Version": {"a": "1"}}\nRules = [ RowCount > 0 ]', "Metadata does not take nested dictionaries"),
        ('Analyzers = [ Completeness "a" where "a > 1" ]', "an analyzer takes no where clause"),
        ('w = "a > 1"\nRules = [ IsComplete "a" where $w ]', "not a constant ($w)"),
        ('p = "[a-z]+"\nRules = [ ColumnValues "a" matches $p ]', "not a constant ($p)"),
        ('p = "[a-z]+"\nRules = [ ColumnValues "a" not matches $p ]', "not a constant ($p)"),
        ('Rules = [ ColumnValues "a" > now() - 1 days ]', "date arithmetic is written in parentheses: (now() - 1 days)"
         ),
        ('Rules = [ ColumnValues "a" between now() - 2 days and now() ]', "written in parentheses"),
        ('Rules = [ ColumnValues "a" in [now() + 3 hours] ]', "written in parentheses: (now() + 3 hours)"),
        ('Rules = [ ColumnValues "a" > ((now() - 1 days)) ]', "date arithmetic takes one pair of parentheses"),
        ('Rules = [ ColumnLength "a" < 10 with threshold > 0.5 ]', "ColumnLength does not support 'with threshold'"),
        ('Rules = [ IsComplete "a" labels=[] ]', 'labels need at least one "key"="value" pair'),
        ('Rules = [ ColumnValues "a" in [1,"2"] ]',
         """a list after 'in' holds one kind of value, not numbers and strings together: in [1,"2"]"""),
        ('Rules = [ ColumnValues "a" not in ["2022-01-01","x"] ]', "not dates and strings together"),
        ('Rules = [ DataFreshness "a" in [1 days,2] ]', "not durations and numbers together"),
        ('DefaultLabels=[]\nRules = [ IsComplete "a" ]', 'labels need at least one "key"="value" pair'),
    ],
)
def test_forms_the_reference_refuses(text: str, message: str) -> None:
    assert message in str(refused(text))


@pytest.mark.parametrize(
    ("text", "parameters"),
    [
        ("IsComplete 1abc", ("1abc",)),
        ("Completeness of 1abc > 0.5", ("1abc",)),
        ("ColumnCorrelation 1a and 2b > 0.5", ("1a", "2b")),
        ("IsComplete 1.2.3", ("1.2.3",)),
        ("IsComplete _x", ("_x",)),
    ],
)
def test_parameters_may_start_with_a_digit_as_the_reference_identifier_does(
        text: str, parameters: tuple[str, ...]) -> None:
    rule = prints_as_written(text)
    assert isinstance(rule, Rule) and rule.parameters == parameters


def test_constant_names_may_start_with_a_digit_as_the_reference_identifier_does() -> None:
    ruleset = parse('1col = "a"\nRules = [ IsComplete $1col ]')
    assert ruleset.rules[0].parameters == ("a",)  # type: ignore[union-attr]
    assert parse(ruleset.to_dqdl()) == ruleset


def test_numbers_stay_numbers_where_the_reference_lexer_reads_them_first() -> None:
    (rule,) = rules_of("RowCount between 1 and 2.5")
    assert rule.to_dqdl() == "RowCount between 1 and 2.5"
    assert "found ']'" in str(refused("Rules = [ RowCount > 1e3 ]"))


# ---------------------------------------------------------------- printing as the reference prints


@pytest.mark.parametrize(
    "text",
    ['FileSize "s3://b/" > 1 MB with recentFiles = 03', "ColumnValues \"c\" > 1 with weight = 0.10",
     'ColumnValues "c" > 1 with weight = -2.0', 'ColumnValues "c" > 1 with weight = 1.0e', 'ColumnValues "c" = "a" '
     'with note = "say \\"hi\\""', 'ColumnValues "c" = "a" with ignoreCase = "true" with weight = 007'],
)
def test_tag_values_print_as_written(text: str) -> None:
    if "1.0e" in text:  # not a number: refused as the reference lexer refuses it
        refused(f"Rules = [ {text} ]")
        return
    prints_as_written(text)


def test_a_float_tag_keeps_its_value_and_its_digits() -> None:
    (rule,) = rules_of('ColumnValues "c" > 1 with weight = 1.50')
    assert isinstance(rule, Rule) and rule.tags == {"weight": 1.5}
    assert rule == Rule("ColumnValues", ("c",), rule.condition, tags=rule.tags)
    assert Rule("ColumnValues", ("c",), rule.condition, tags=rule.tags).to_dqdl() == (
        'ColumnValues "c" > 1 with weight = 1.5')  # built, not parsed: the canonical digits


def test_the_document_prints_as_the_reference_prints_it() -> None:
    ruleset = parse('Metadata = { "Version": "1.0" } DataSources = { "Primary": "orders-table", '
                    '"AdditionalDataSources": [ "ref-table", "other" ] } Rules = [ IsPrimaryKey "colA" ] '
                    'Analyzers = [ Completeness "colA", RowCount ]')
    assert ruleset.to_dqdl() == (
        'Metadata = {\n    "Version": "1.0"\n}\n\n'
        'DataSources = {\n    "Primary": "orders-table",\n    "AdditionalDataSources": [ "ref-table", "other" ]\n}\n\n'
        'Rules = [\n    IsPrimaryKey "colA"\n]\n\n'
        'Analyzers = [\n    Completeness "colA",\n    RowCount\n]')
    assert parse(ruleset.to_dqdl()) == ruleset


def test_analyzers_alone_print_without_a_rules_section() -> None:
    ruleset = parse('Analyzers = [ RowCount, Completeness of "col-A" ]')
    assert ruleset.to_dqdl() == 'Analyzers = [\n    RowCount,\n    Completeness of "col-A"\n]'


def test_constants_default_labels_and_composite_labels_are_kept_in_the_document() -> None:
    # the reference's document text drops these three (its ruleset keeps no constants, and it formats
    # DefaultLabels but never prints them); glueball prints them so that the document re-parses equal
    ruleset = parse('cols = ["a", "b"]\nsql = "select 1"\nnothing = NULL\nDefaultLabels=["team"="core"]\n'
                    'Rules = [ ((IsComplete "a") and (CustomSql $sql > 0)) labels=["k"="v"], '
                    'ColumnValues "c" in $cols ]')
    assert ruleset.to_dqdl() == (
        'cols = ["a", "b"]\nsql = "select 1"\nnothing = NULL\n\n'
        'DefaultLabels=["team"="core"]\n\n'
        'Rules = [\n    ((IsComplete "a") AND (CustomSql $sql > 0)) labels=["k"="v"],\n'
        '    ColumnValues "c" in $cols\n]')
    assert ruleset.rules[0].to_dqdl() == '(IsComplete "a") AND (CustomSql $sql > 0)'
    again = parse(ruleset.to_dqdl())
    assert again == ruleset and again.rules[0].labels == {"k": "v"}


@pytest.mark.parametrize(
    "text",
    ['AggregateMatch "SUM(col-A)" "SUM(reference.colA)" >= 0.95', 'AggregateMatch "Avg(a)" "sum(b)" > 0.1',
     '(RowCount > 0) OR ((IsComplete "colA") AND (IsUnique "colA"))',
     '(ColumnValues "col-A" in [NULL,EMPTY,WHITESPACES_ONLY]) AND (ColumnValues "col-B" != WHITESPACES_ONLY)'],
)
def test_reference_rules_print_back_as_the_reference_prints_them(text: str) -> None:
    prints_as_written(text)
