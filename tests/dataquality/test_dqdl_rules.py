"""Every DQDL rule type: AWS's documented forms, the forms Glue rejects (with the error text),
the registry the evaluator plans from, schema checks, and a round trip of a ruleset using them all."""

from __future__ import annotations

import pytest

from glueball.dataquality import (
    RULE_TYPES,
    CompositeRule,
    DqdlError,
    Rule,
    check,
    is_row_level,
    metric_names,
    parse,
    rule_type,
)
from glueball.dataquality.rules import ConditionUse, ValueKind

ISSUE_RULE_TYPES = (
    "RowCount", "RowCountMatch", "ColumnCount", "ColumnExists", "ColumnNamesMatchPattern", "ColumnDataType",
    "ColumnValues", "ColumnLength", "Completeness", "IsComplete", "Uniqueness", "IsUnique", "IsPrimaryKey",
    "UniqueValueRatio", "DistinctValuesCount", "Entropy", "Mean", "Sum", "StandardDeviation", "ColumnCorrelation",
    "CustomSql", "DataFreshness", "ReferentialIntegrity", "DatasetMatch", "SchemaMatch", "AggregateMatch",
    "DetectAnomalies", "FileFreshness", "FileSize", "FileMatch", "FileUniqueness",
)

#: valid forms, per rule type, from AWS's DQDL reference pages
VALID = {
    "RowCount": ["RowCount between 10 and 100", 'RowCount between 1 and 50 where "Customer_ID < 10"',
                 "RowCount > avg(last(10)) *0.8"],
    "RowCountMatch": ['RowCountMatch "reference" >= 0.9'],
    "ColumnCount": ["ColumnCount between 10 and 20", "ColumnCount >= avg(last(10))",
                    "ColumnCount between min(last(10))-1 and max(last(10))+1"],
    "ColumnExists": ['ColumnExists "Middle_Name"'],
    "ColumnNamesMatchPattern": ['ColumnNamesMatchPattern "aws_.*"'],
    "ColumnDataType": ['ColumnDataType "colA" = "INTEGER"', 'ColumnDataType "colA" = "INTEGER" with threshold > 0.9',
                       'ColumnDataType "colA" in ["Date", "Timestamp"] where "x > 1"'],
    "ColumnValues": ['ColumnValues "Country" in [ "US", "CA", "UK", NULL, EMPTY, WHITESPACES_ONLY ]',
                     'ColumnValues "gender" in ["F", "M"] where "weightinkgs < 10"',
                     'ColumnValues "First_Name" matches "[a-zA-Z]*"', 'ColumnValues "Load_Date" > (now() - 3 days)',
                     'ColumnValues "Customer_ID" between 1 and 2000', 'ColumnValues "Age" != 21',
                     'ColumnValues "Age" not in [21, 22, 23, NULL]', 'ColumnValues "d" between "2023-01-01" and now()',
                     'ColumnValues "Age" > 21 with threshold > 0.9'],
    "ColumnLength": ['ColumnLength "Postal_Code" = 5', 'ColumnLength "weightinkgs" = 2 where "weightinkgs > 10"',
                     'ColumnLength "Postal_Code" not between 4 and 6'],
    "Completeness": ['Completeness "First_Name" > 0.95', 'Completeness "First_Name" > 0.95 where "weightinkgs > 10"',
                     'Completeness "colA" between min(last(5)) - 1 and max(last(5)) + 1',
                     'Completeness "colA" <= avg(last(10))'],
    "IsComplete": ['IsComplete "email"', 'IsComplete "Email" where "Customer_ID between 1 and 50"'],
    "Uniqueness": ['Uniqueness "email" = 1.0', 'Uniqueness "Customer_ID" != 1.0 where "Customer_ID < 10"',
                   'Uniqueness "vendorid" "tpep_pickup_datetime" = 1', 'Uniqueness "colA" >= avg(last(10))'],
    "IsUnique": ['IsUnique "email"', 'IsUnique "Customer_ID" where "Customer_ID < 10"',
                 'IsUnique "vendorid" "tpep_pickup_datetime"'],
    "IsPrimaryKey": ['IsPrimaryKey "Customer_ID"', 'IsPrimaryKey "Customer_ID" where "Customer_ID < 10"',
                     'IsPrimaryKey "colA" "colB" "colC"', 'IsPrimaryKey colA "colB" "colC"'],
    "UniqueValueRatio": ['UniqueValueRatio "test_score" between 0 and 0.5',
                         'UniqueValueRatio "Customer_ID" between 0 and 0.9 where "Customer_ID < 10"',
                         'UniqueValueRatio "colA" <= index(last(10),2) + std(last(5))'],
    "DistinctValuesCount": ['DistinctValuesCount "State" > 3', 'DistinctValuesCount "Customer_ID" < 6  where "x < 10"',
                            'DistinctValuesCount "colA" between avg(last(10))-1 and avg(last(10))+1'],
    "Entropy": ['Entropy "Star_Rating" > 1', 'Entropy "First_Name" > 1  where "Customer_ID < 10"',
                'Entropy "colA" < max(last(10))'],
    "Mean": ['Mean "Star_Rating" > 3', 'Mean "Order_Total" > 500 where "region = \'EU\'"',
             'Mean "colA" between min(last(10)) and max(last(10))'],
    "Sum": ['Sum "transaction_total" > 500000', 'Sum "Salary" < 5000 where "Customer_ID < 10"',
            'Sum "colA" > avg(last(10))'],
    "StandardDeviation": ['StandardDeviation "Star_Rating" < 1.5',
                          'StandardDeviation "Salary" < 3500 where "Customer_ID < 10"',
                          'StandardDeviation "colA" between min(last(10)) - 1 and max(last(10)) + 1'],
    "ColumnCorrelation": ['ColumnCorrelation "height" "weight" > 0.8',
                          'ColumnCorrelation "weightinkgs" "Salary" > 0.8 where "weightinkgs > 40"',
                          'ColumnCorrelation "colA" "colB" < avg(last(5)) + std(last(5))'],
    "CustomSql": ['CustomSql "select count(*) from primary" between 10 and 20',
                  'CustomSql "select Name from primary where Age > 18"',
                  'CustomSql "select Name from primary where Age > 18" with threshold > 3',
                  'CustomSql "select count(*) from database.table inner join database.table2 on id1 = id2" > 1'],
    "DataFreshness": ['DataFreshness "Order_Date" <= 24 hours', 'DataFreshness "Order_Date" between 2 days and 5 days',
                      'DataFreshness "file_ts" < 24 hours where "region = \'EU\'"'],
    "ReferentialIntegrity": ['ReferentialIntegrity "zipcode" "reference.zipcode" >= 0.9',
                             'ReferentialIntegrity "city,state" "reference.{ref_city,ref_state}" = 1.0',
                             'ReferentialIntegrity "city,state" "reference.{ref_city,ref_state}" > avg(last(10))'],
    "DatasetMatch": ['DatasetMatch "reference" "ID" >= 0.9',
                     'DatasetMatch "reference" "ID_1->ID_ref1,ID_2->ID_ref2" >= 0.9',
                     'DatasetMatch "reference" "ID_1->ID_ref1,ID_2->ID_ref2" "Amount1->Amount2" >= 0.9'],
    "SchemaMatch": ['SchemaMatch "reference" = 1.0'],
    "AggregateMatch": ['AggregateMatch "sum(amount)" "sum(total_amount)" = 1.0',
                       'AggregateMatch "avg(ratings)" "avg(reference.ratings)" >= 0.9',
                       'AggregateMatch "avg(ratings)" "avg(database_name.tablename.ratings)" >= 0.9'],
    "DetectAnomalies": ['DetectAnomalies "RowCount"', 'DetectAnomalies "ColumnLength" "id"',
                        'DetectAnomalies "ColumnCorrelation" "a" "b"', 'DetectAnomalies "CustomSQL" "select 1"'],
    "FileFreshness": [
        'FileFreshness "s3://amzn-s3-demo-bucket/artifacts/file/tickets/tickets.parquet" > (now() - 24 hours)',
        'FileFreshness "s3://bucket/" >= (now() -1 days)',
        'FileFreshness "s3://amzn-s3-demo-bucket/artifacts/file/tickets/" < (now() - 10 days) with threshold > 0.1',
        'FileFreshness "s3://amzn-s3-demo-bucket/artifacts/file/tickets/" > "2020-01-01"',
        'FileFreshness "s3://amzn-s3-demo-bucket/artifacts/file/tickets/" between "2023-01-01" and "2024-01-01"',
        'FileFreshness "s3://amzn-s3-demo-bucket/artifacts/file/tickets/" between now() and (now() - 45 minutes)',
        'FileFreshness "s3://amzn-s3-demo-bucket/artifacts/file/tickets/" between "9:30 AM" and "9:30 PM"',
        'FileFreshness "s3://b/" between "9:30 AM" and "22:30" with timeZone = "America/New_York"',
        "FileFreshness > now()",
    ],
    "FileSize": ['FileSize "s3://amzn-s3-demo-bucket/file.dat" > 2 MB', 'FileSize "s3://bucket/" > 5 B',
                 'FileSize "s3://bucket/" < 2 GB',
                 'FileSize "s3://amzn-s3-demo-bucket/" between 2 GB and 1 TB with threshold > 0.7',
                 "FileSize < 10 MB with threshold > 0.7",
                 'FileSize "s3://amzn-s3-demo-bucket/" > 5 B with recentFiles = 1',
                 'FileSize "s3://bucket/" > 5 B with uriRegex = "\\.dat$"', 'FileSize "s3://b/" >= 1024'],
    "FileMatch": [
        'FileMatch "s3://amzn-s3-demo-bucket/file.json" in ["3ee0d8617ac041793154713e5ef8f319"] '
        'with hashAlgorithm = "MD5"',
        'FileMatch "s3://amzn-s3-demo-bucket/file.json" in ["3ee0d8617ac041793154713e5ef8f319"] '
        'with hashAlgorithm = "SHA-1"',
        'FileMatch "s3://amzn-s3-demo-bucket/file.json" in ["3ee0d8617ac041793154713e5ef8f319"]',
        'FileMatch "s3://original_bucket/" "s3://archive_bucket/"',
        'FileMatch in ["3ee0d8617ac041793154713e5ef8f319"]',
    ],
    "FileUniqueness": ['FileUniqueness "s3://bucket/" > 0.5', 'FileUniqueness "s3://bucket/folder/" = 1',
                       "FileUniqueness > 0.5",
                       'FileUniqueness "s3://amzn-s3-demo-bucket/" > 0.5 with matchFileName = "true"',
                       'FileUniqueness "s3://bucket/" > 0.5 with recentFiles = 5 with uriRegex = "\\.csv$" '
                       'with filterOrder = ["uriRegex","recentFiles"]'],
}

#: rejected forms, per rule type, with Glue's reason as we word it
REJECTED = {
    "RowCount": [
        ("RowCount", "line 1, column 11: RowCount needs a condition such as '> 10' or 'between 0.9 and 1.0'"),
        ('RowCount "id" > 100', "line 1, column 11: RowCount takes no parameters, got 1"),
        ('RowCount > "x"', 'line 1, column 20: RowCount compares a number, not the string "x"'),
        ("RowCount > 1 with threshold > 0.5", "line 1, column 24: RowCount does not support 'with threshold'"),
    ],
    "RowCountMatch": [
        ("RowCountMatch > 0.9",
         "line 1, column 11: RowCountMatch takes 1 parameter (a reference data source alias), got 0"),
        ('RowCountMatch "ref" matches "x"', "line 1, column 31: 'matches' compares text; RowCountMatch takes a "
         "condition such as '> 10' or 'between 0.9 and 1.0'"),
    ],
    "ColumnCount": [
        ('ColumnCount "x" > 1', "line 1, column 11: ColumnCount takes no parameters, got 1"),
        ('ColumnCount > 1 where "x > 1"', "line 1, column 27: ColumnCount does not support a where clause"),
    ],
    "ColumnExists": [
        ("ColumnExists", "line 1, column 11: ColumnExists takes 1 parameter (a column name), got 0"),
        ('ColumnExists "a" = 1',
         "line 1, column 28: ColumnExists is a boolean rule and takes no condition, found '= 1'"),
        ("ColumnExists 5", "line 1, column 24: ColumnExists: expected a column name in double quotes, found 5"),
    ],
    "ColumnNamesMatchPattern": [
        ('ColumnNamesMatchPattern "aws_(.*"', 'line 1, column 35: ColumnNamesMatchPattern: bad regular expression '
         '"aws_(.*": missing ), unterminated subpattern at position 4'),
        # AWS's page shows a where clause here, but its rule type table (and Glue's parser) refuse it
        ('ColumnNamesMatchPattern "aws_.*" where "weightinkgs > 10"',
         "line 1, column 44: ColumnNamesMatchPattern does not support a where clause"),
        ('ColumnNamesMatchPattern "a" > 1',
         "line 1, column 39: ColumnNamesMatchPattern is a boolean rule and takes no condition, found '> 1'"),
    ],
    "ColumnDataType": [
        ('ColumnDataType "colA" > "INTEGER"', 'line 1, column 33: ColumnDataType takes a type name such as = '
         '"INTEGER" (one of Boolean, Date, Timestamp, Integer, Double, Float, Long, Short, Byte, Decimal, String)'),
        ('ColumnDataType "colA"', "line 1, column 11: ColumnDataType needs a condition such as '= \"INTEGER\"'"),
    ],
    "ColumnValues": [
        ('ColumnValues "a"', "line 1, column 11: ColumnValues needs a condition such as '> 10', 'in [\"a\", \"b\"]' "
         "or 'matches \"[a-z]+\"'"),
        ('ColumnValues "a" > "abc"',
         'line 1, column 28: ColumnValues: the string "abc" can only be used with =, !=, in or not in'),
        ('ColumnValues "a" > NULL', "line 1, column 28: ColumnValues: NULL can only be used with =, !=, in or not in"),
        ('ColumnValues "a" > 5 hours',
         "line 1, column 28: ColumnValues compares column values, not the duration 5 hours"),
        ('ColumnValues "a" > avg(last(2))', "line 1, column 28: ColumnValues does not support dynamic rules (last(k))"),
        ('ColumnValues "a" between 1 and "2023-01-01"',
         "line 1, column 28: ColumnValues: 'between' needs two numbers or two dates"),
        ('ColumnValues "a" matches "("',
         'line 1, column 28: bad regular expression "(": missing ), unterminated subpattern at position 0'),
        ('ColumnValues "a" = 1 with threshold > avg(last(1))', "line 1, column 32: 'with threshold' compares the "
         "fraction of passing rows with numbers, e.g. with threshold > 0.9, not '> avg(last(1))'"),
        ('ColumnValues "age" foo', "line 1, column 30: expected a comparison such as '> 10' after ColumnValues "
         '"age", found \'foo\''),
    ],
    "ColumnLength": [
        ('ColumnLength "a" = "5"', 'line 1, column 28: ColumnLength compares a number, not the string "5"'),
        ('ColumnLength "a" > avg(last(3))', "line 1, column 28: ColumnLength does not support dynamic rules (last(k))"),
        ('ColumnLength "a" "b" = 5', "line 1, column 11: ColumnLength takes 1 parameter (a column name), got 2"),
    ],
    "Completeness": [
        ('Completeness "a"',
         "line 1, column 11: Completeness needs a condition such as '> 10' or 'between 0.9 and 1.0'"),
        ("Completeness > 0.9", "line 1, column 11: Completeness takes 1 parameter (a column name), got 0"),
        ('Completeness "a" > 0.9 with threshold > 0.1',
         "line 1, column 34: Completeness does not support 'with threshold'"),
    ],
    "IsComplete": [
        ('IsComplete "a" = 1', "line 1, column 26: IsComplete is a boolean rule and takes no condition, found '= 1'"),
        ('IsComplete "a" "b"', "line 1, column 11: IsComplete takes 1 parameter (a column name), got 2"),
        ('IsComplete "a" IsUnique "b"',
         "line 1, column 26: expected ',' before the next rule after IsComplete \"a\", found 'IsUnique'"),
    ],
    "Uniqueness": [
        ("Uniqueness > 1", "line 1, column 11: Uniqueness takes one or more column names, got 0"),
        ('Uniqueness "a"', "line 1, column 11: Uniqueness needs a condition such as '> 10' or 'between 0.9 and 1.0'"),
    ],
    "IsUnique": [
        ('IsUnique "a" > 1', "line 1, column 24: IsUnique is a boolean rule and takes no condition, found '> 1'"),
        ("IsUnique", "line 1, column 11: IsUnique takes one or more column names, got 0"),
    ],
    "IsPrimaryKey": [
        ("IsPrimaryKey", "line 1, column 11: IsPrimaryKey takes one or more column names, got 0"),
        ('IsPrimaryKey "a" = 1',
         "line 1, column 28: IsPrimaryKey is a boolean rule and takes no condition, found '= 1'"),
        ('IsPrimaryKey "a" with threshold > 0.5', "line 1, column 28: IsPrimaryKey does not support 'with threshold'"),
    ],
    "UniqueValueRatio": [
        ('UniqueValueRatio "a" matches "x"', "line 1, column 32: 'matches' compares text; UniqueValueRatio takes a "
         "condition such as '> 10' or 'between 0.9 and 1.0'"),
    ],
    "DistinctValuesCount": [
        ('DistinctValuesCount "a" > "3"',
         'line 1, column 35: DistinctValuesCount compares a number, not the string "3"'),
    ],
    "Entropy": [
        ('Entropy "a"', "line 1, column 11: Entropy needs a condition such as '> 10' or 'between 0.9 and 1.0'"),
    ],
    "Mean": [
        ('Mean "a" > "x"', 'line 1, column 20: Mean compares a number, not the string "x"'),
        ('Mean "a" > NULL', "line 1, column 20: Mean compares a number, not NULL"),
    ],
    "Sum": [
        ('Sum "a" > 2 MB', "line 1, column 19: Sum compares a number, not the size 2 MB"),
        ('Sum "a" > 3 days', "line 1, column 19: Sum: durations only follow now(), as in (now() - 3 days)"),
    ],
    "StandardDeviation": [
        ('StandardDeviation "a" "b" < 1',
         "line 1, column 11: StandardDeviation takes 1 parameter (a column name), got 2"),
    ],
    "ColumnCorrelation": [
        ('ColumnCorrelation "a" > 0.8',
         "line 1, column 11: ColumnCorrelation takes 2 parameters (a column name, a column name), got 1"),
        ('ColumnCorrelation "a" "b"',
         "line 1, column 11: ColumnCorrelation needs a condition such as '> 10' or 'between 0.9 and 1.0'"),
    ],
    "CustomSql": [
        ('CustomSql "select 1" > 1 with threshold > 0.5', "line 1, column 36: CustomSql takes a condition (one value) "
         "or 'with threshold' (row-level results), not both"),
        ('CustomSql "" > 1', "line 1, column 21: CustomSql: expected a SQL statement, found an empty string"),
        ("CustomSql 5 > 1", "line 1, column 21: CustomSql: expected a SQL statement in double quotes, found 5"),
        ('CustomSql "select 1" where "x > 1"', "line 1, column 32: CustomSql does not support a where clause"),
    ],
    "DataFreshness": [
        ('DataFreshness "d" > 5', "line 1, column 29: DataFreshness takes a condition such as '<= 24 hours', not 5"),
        ('DataFreshness "d" <= "2023-01-01"', "line 1, column 29: DataFreshness takes a condition such as "
         "'<= 24 hours', not the date \"2023-01-01\""),
        ('DataFreshness "d" <= 24 hours with threshold > 0.4',
         "line 1, column 41: DataFreshness does not support 'with threshold'"),
    ],
    "ReferentialIntegrity": [
        ('ReferentialIntegrity "a" "b" > 0.9', 'line 1, column 36: ReferentialIntegrity: expected reference columns '
         'such as "reference.zipcode" or "reference.{city,state}", found "b"'),
        ('ReferentialIntegrity "a," "ref.b" > 0.9', 'line 1, column 32: ReferentialIntegrity: expected '
         'comma-separated column names such as "city,state", found "a,"'),
    ],
    "DatasetMatch": [
        ('DatasetMatch "reference" "ID->" >= 0.9', 'line 1, column 36: DatasetMatch: expected column mappings such '
         'as "ID" or "ID_1->ID_ref1,ID_2->ID_ref2", found "ID->"'),
        ('DatasetMatch "reference" >= 0.9', "line 1, column 11: DatasetMatch takes 2 or 3 parameters, got 1"),
    ],
    "SchemaMatch": [
        ("SchemaMatch = 1.0",
         "line 1, column 11: SchemaMatch takes 1 parameter (a reference data source alias), got 0"),
    ],
    "AggregateMatch": [
        ('AggregateMatch "sum(amount)" "max(total)" = 1.0', 'line 1, column 40: AggregateMatch: expected an '
         'aggregation such as "sum(amount)" or "avg(reference.rating)", found "max(total)"'),
    ],
    "DetectAnomalies": [
        ('DetectAnomalies "Foo"', "line 1, column 27: DetectAnomalies: cannot watch 'Foo'; anomaly detection covers "
         "RowCount, Completeness, Uniqueness, Mean, Sum, StandardDeviation, Entropy, DistinctValuesCount, "
         "UniqueValueRatio, ColumnLength, ColumnValues, ColumnCorrelation, CustomSQL, ColumnCount"),
        ('DetectAnomalies "RowCount" > 1',
         "line 1, column 38: DetectAnomalies is a boolean rule and takes no condition, found '> 1'"),
        ('DetectAnomalies "ColumnLength"', 'line 1, column 11: DetectAnomalies "ColumnLength" needs the parameters '
         "of ColumnLength: 1 parameter (a column name), got 0"),
        ("DetectAnomalies", 'line 1, column 11: DetectAnomalies takes the name of a rule such as "RowCount", then '
         "that rule's parameters, got 0"),
    ],
    "FileFreshness": [
        ('FileFreshness "s3://a/" > 5',
         "line 1, column 35: FileFreshness takes a condition such as '> (now() - 1 days)', not 5"),
        ('FileFreshness "a" "b" > now()', "line 1, column 11: FileFreshness takes 0 or 1 parameters, got 2"),
        ('FileFreshness "s3://a/" > "9:30 AM" with timeZone = "Mars/Base"',
         "line 1, column 11: FileFreshness: tag timeZone: unknown time zone 'Mars/Base'"),
    ],
    "FileSize": [
        ('FileSize "s3://a/" > "big"', 'line 1, column 30: FileSize takes a condition such as \'> 2 MB\', not the '
         'string "big"'),
        ('FileSize "s3://a/" > -1', "line 1, column 30: FileSize: a size cannot be negative"),
        ('FileSize "s3://a/" > 1 MB where "x > 1"', "line 1, column 37: FileSize does not support a where clause"),
        ('FileSize "s3://a/" > 1 MB with recentFiles = 0',
         "line 1, column 11: FileSize: tag recentFiles: expected a whole number of files >= 1, found 0"),
        ('FileSize "s3://a/" > 1 MB with uriRegex = "("', "line 1, column 11: FileSize: tag uriRegex: bad regular "
         'expression "(": missing ), unterminated subpattern at position 0'),
        ('FileSize "s3://a/" > 1 MB with filterOrder = ["x"]', "line 1, column 11: FileSize: tag filterOrder: "
         'expected a list of recentFiles, uriRegex, e.g. ["uriRegex", "recentFiles"]'),
    ],
    "FileMatch": [
        ('FileMatch "s3://a/" "s3://b/" in ["x"]',
         "line 1, column 41: FileMatch compares two paths and takes no condition, found 'in [\"x\"]'"),
        ('FileMatch "s3://a/"', "line 1, column 11: FileMatch needs a condition such as 'in [\"<checksum>\"]'"),
        ('FileMatch "s3://a/" in [1]', "line 1, column 31: FileMatch takes a condition such as 'in [\"<checksum>\"]', "
         "not 1"),
        ('FileMatch "s3://a/" in ["x"] with hashAlgorithm = "MD4"',
         "line 1, column 11: FileMatch: tag hashAlgorithm: expected one of MD5, SHA-1, SHA-256, found 'MD4'"),
    ],
    "FileUniqueness": [
        ('FileUniqueness "s3://a/" > "x"', 'line 1, column 36: FileUniqueness compares a number, not the string "x"'),
        ('FileUniqueness "s3://a/" > 0.5 with threshold > 0.1',
         "line 1, column 42: FileUniqueness does not support 'with threshold'"),
        ('FileUniqueness "s3://a/" > 0.5 with matchFileName = "yes"',
         "line 1, column 11: FileUniqueness: tag matchFileName: expected \"true\" or \"false\", found 'yes'"),
    ],
}


def test_every_rule_type_of_the_issue_is_registered_and_covered_here() -> None:
    assert set(ISSUE_RULE_TYPES) <= set(RULE_TYPES)
    assert set(VALID) == set(ISSUE_RULE_TYPES) == set(REJECTED)
    assert set(RULE_TYPES) - set(ISSUE_RULE_TYPES) == {"AllStatistics", "Variance"}


@pytest.mark.parametrize(("name", "text"), [(name, text) for name, texts in VALID.items() for text in texts])
def test_valid_forms(name: str, text: str) -> None:
    ruleset = parse(f"Rules = [ {text} ]")
    rule = ruleset.rules[0]
    assert isinstance(rule, Rule) and rule.rule_type == name
    assert parse(ruleset.to_dqdl()) == ruleset


@pytest.mark.parametrize(
    ("name", "text", "message"), [(name, text, message) for name, cases in REJECTED.items() for text, message in cases]
)
def test_rejected_forms(name: str, text: str, message: str) -> None:
    with pytest.raises(DqdlError) as caught:
        parse(f"Rules = [ {text} ]")
    assert str(caught.value) == message


def test_unknown_and_misspelled_rule_types() -> None:
    with pytest.raises(DqdlError) as caught:
        parse('Rules = [ Foo "x" > 1, iscomplete "a", IsComplet "b" ]')
    assert str(caught.value) == (
        "line 1, column 11: unknown rule type 'Foo'\n"
        "line 1, column 24: unknown rule type 'iscomplete'; did you mean IsComplete? (rule types are case-sensitive)\n"
        "line 1, column 40: unknown rule type 'IsComplet'; did you mean IsComplete? (rule types are case-sensitive)"
    )


def test_composite_children_are_checked_too() -> None:
    with pytest.raises(DqdlError) as caught:
        parse('Rules = [ (RowCount > 1) or ((IsComplete "a") and (Mean "b" > "x")) ]')
    assert str(caught.value) == 'line 1, column 61: Mean compares a number, not the string "x"'


# ---------------------------------------------------------------- the registry


@pytest.mark.parametrize(
    ("text", "metrics"),
    [
        ("RowCount > 1", ("Dataset.*.RowCount",)),
        ('RowCountMatch "reference" >= 0.9', ("Dataset.reference.RowCountMatch",)),
        ("ColumnCount > 1", ("Dataset.*.ColumnCount",)),
        ('ColumnExists "a"', ("Dataset.a.ColumnExists",)),
        ('ColumnNamesMatchPattern "aws_.*"', ("Dataset.*.ColumnNamesPatternMatchRatio",)),
        ('ColumnDataType "a" = "Integer"', ("Column.a.ColumnDataType.Compliance",)),
        ('ColumnValues "a" > 1', ("Column.a.ColumnValues.Compliance",)),
        ('ColumnLength "a" = 5', ("Column.a.MinimumLength", "Column.a.MaximumLength")),
        ('ColumnLength "a" in [5,6]',
         ("Column.a.MinimumLength", "Column.a.MaximumLength", "Column.a.LengthCompliance")),
        ('Completeness "a" > 0.9', ("Column.a.Completeness",)),
        ('IsComplete "a"', ("Column.a.Completeness",)),
        ('Uniqueness "a" > 0.9', ("Column.a.Uniqueness",)),
        ('Uniqueness "a" "b" > 0.9', ("Multicolumn.a,b.Uniqueness",)),
        ('IsUnique "a"', ("Column.a.Uniqueness",)),
        ('IsPrimaryKey "a"', ("Column.a.Completeness", "Column.a.Uniqueness")),
        ('IsPrimaryKey "a" "b"', ("Column.a.Completeness", "Column.b.Completeness", "Multicolumn.a,b.Uniqueness")),
        ('UniqueValueRatio "a" > 0.1', ("Column.a.UniqueValueRatio",)),
        ('DistinctValuesCount "a" > 1', ("Column.a.DistinctValuesCount",)),
        ('Entropy "a" > 1', ("Column.a.Entropy",)),
        ('Mean "a" > 1', ("Column.a.Mean",)),
        ('Sum "a" > 1', ("Column.a.Sum",)),
        ('StandardDeviation "a" > 1', ("Column.a.StandardDeviation",)),
        ('ColumnCorrelation "a" "b" > 0.5', ("Multicolumn.a,b.ColumnCorrelation",)),
        ('CustomSql "select 1" > 0', ("Dataset.*.CustomSQL",)),
        ('DataFreshness "d" < 1 days', ("Column.d.DataFreshness.Compliance",)),
        ('ReferentialIntegrity "a" "ref.{b}" > 0.9', ("Column.ref.ReferentialIntegrity",)),
        ('DatasetMatch "ref" "id" > 0.9', ("Dataset.ref.DatasetMatch",)),
        ('SchemaMatch "ref" = 1.0', ("Dataset.ref.SchemaMatch",)),
        ('AggregateMatch "sum(amount)" "sum(ref.amount)" = 1.0', ("Column.amount.AggregateMatch",)),
        ('AggregateMatch "sum(amount)" "sum(total)" = 1.0', ("Column.amount,total.AggregateMatch",)),
        ('DetectAnomalies "RowCount"', ("Dataset.*.RowCount",)),
        ('DetectAnomalies "Completeness" "a"', ("Column.a.Completeness",)),
        ('DetectAnomalies "CustomSQL" "select 1"', ("Dataset.*.CustomSQL",)),
        ("FileFreshness > now()", ("Dataset.*.FileFreshness.Compliance", "Dataset.*.FileCount")),
        ("FileSize > 1 B", ("Dataset.*.FileSize.Compliance", "Dataset.*.FileCount", "Dataset.*.MaximumFileSize",
                            "Dataset.*.MinimumFileSize")),
        ('FileMatch "s3://a/" "s3://b/"', ("Dataset.*.FileCount",)),
        ("FileUniqueness > 0.5", ("Dataset.*.FileUniquenessRatio", "Dataset.*.FileCount")),
    ],
)
def test_metric_names_as_glue_reports_them(text: str, metrics: tuple[str, ...]) -> None:
    rule = parse(f"Rules = [ {text} ]").rules[0]
    assert isinstance(rule, Rule)
    assert metric_names(rule) == metrics


def test_analyzer_metric_names() -> None:
    ruleset = parse('Analyzers = [ RowCount, Completeness "a", AllStatistics "b" ]')
    assert [metric_names(a) for a in ruleset.analyzers] == [
        ("Dataset.*.RowCount",),
        ("Column.a.Completeness",),
        ("Dataset.*.RowCount", "Column.b.Completeness", "Column.b.Uniqueness"),
    ]


def test_where_and_threshold_support_follow_the_aws_rule_type_table() -> None:
    with_where = {name for name, spec in RULE_TYPES.items() if spec.where}
    assert with_where == {
        "RowCount", "ColumnDataType", "ColumnValues", "ColumnLength", "Completeness", "IsComplete", "Uniqueness",
        "IsUnique", "IsPrimaryKey", "UniqueValueRatio", "DistinctValuesCount", "Entropy", "Mean", "Sum",
        "StandardDeviation", "Variance", "ColumnCorrelation", "DataFreshness",
    }
    with_threshold = {name for name, spec in RULE_TYPES.items() if spec.threshold}
    assert with_threshold == {
        "ColumnDataType", "ColumnValues", "CustomSql", "FileFreshness", "FileSize"
    }


def test_boolean_rules_take_no_condition() -> None:
    boolean = {
        name for name, spec in RULE_TYPES.items()
        if all(sig.condition is ConditionUse.FORBIDDEN for sig in spec.signatures)
    }
    assert boolean == {"ColumnExists", "ColumnNamesMatchPattern", "IsComplete", "IsUnique", "IsPrimaryKey",
                       "DetectAnomalies"}
    file_match = rule_type("FileMatch")
    assert [s.condition for s in file_match.signatures] == [
        ConditionUse.REQUIRED, ConditionUse.REQUIRED, ConditionUse.FORBIDDEN
    ]
    assert rule_type("CustomSql").signatures[0].condition is ConditionUse.OPTIONAL
    assert rule_type("DataFreshness").value_kind is ValueKind.DURATION
    with pytest.raises(KeyError):
        rule_type("Nope")


def test_row_level_rules() -> None:
    row_level = {name for name, spec in RULE_TYPES.items() if spec.row_level}
    assert row_level == {
        "ColumnDataType", "ColumnValues", "ColumnLength", "Completeness", "IsComplete", "Uniqueness", "IsUnique",
        "IsPrimaryKey", "CustomSql", "DataFreshness", "ReferentialIntegrity",
    }
    overall, rows = parse('Rules = [ CustomSql "select count(*) from primary" > 0, '
                          'CustomSql "select id from primary where age > 18" ]').rules
    assert isinstance(overall, Rule) and isinstance(rows, Rule)
    assert not is_row_level(overall) and is_row_level(rows)
    assert is_row_level(Rule("IsComplete", ("a",))) and not is_row_level(Rule("Mean", ("a",)))


def test_dynamic_support() -> None:
    dynamic = {name for name, spec in RULE_TYPES.items() if spec.dynamic}
    assert {"RowCount", "ColumnCount", "Completeness", "Uniqueness", "Mean", "CustomSql"} <= dynamic
    assert {"RowCountMatch", "AggregateMatch", "Variance"} <= dynamic  # numeric metrics, as in the reference
    assert not dynamic & {"ColumnValues", "ColumnLength", "FileSize"}


# ---------------------------------------------------------------- data sources, labels, analyzers


def test_aliases_must_be_declared_when_data_sources_are() -> None:
    text = 'DataSources = {"Primary": "orders", "AdditionalDataSources": ["reference"]}\nRules = [ {rule} ]'
    parse(text.replace("{rule}", 'DatasetMatch "reference" "id" > 0.9'))
    parse(text.replace("{rule}", 'AggregateMatch "sum(orders.a)" "sum(reference.a)" = 1.0'))
    with pytest.raises(DqdlError) as caught:
        parse(text.replace("{rule}", 'ReferentialIntegrity "a" "refs.{b}" > 0.9'))
    assert str(caught.value) == (
        "line 2, column 36: ReferentialIntegrity: unknown data source alias 'refs'; DataSources declares reference"
    )
    # without a DataSources section, aliases come from the job (additional_data_sources) and are not checked
    parse('Rules = [ SchemaMatch "anything" = 1.0 ]')


def test_label_constraints() -> None:
    many = ", ".join(f'"k{i}" = "v"' for i in range(9))
    parse(f'DefaultLabels = ["team" = "a"]\nRules = [ IsComplete "a" labels = [{many}] ]')
    with pytest.raises(DqdlError) as caught:
        parse(f'DefaultLabels = ["team" = "a", "x" = "y"]\nRules = [ IsComplete "a" labels = [{many}] ]')
    assert str(caught.value) == (
        "line 2, column 11: the labels of IsComplete has 11 labels; at most 10 are allowed per rule"
    )
    with pytest.raises(DqdlError) as caught:
        parse(f'DefaultLabels = ["{"k" * 129}" = "v", "e" = ""]\nRules = [ RowCount > 0 ]')
    assert str(caught.value).splitlines()[:2] == [
        f'DefaultLabels: a label key must have 1 to 128 characters, found "{"k" * 129}"',
        'DefaultLabels: the value of label "e" must have 1 to 256 characters',
    ]


def test_analyzer_checks() -> None:
    with pytest.raises(DqdlError) as caught:
        parse('Analyzers = [ IsComplete "a", Mean "a" "b", Nope ]')
    assert str(caught.value) == (
        "line 1, column 15: IsComplete is not supported as an analyzer\n"
        "line 1, column 31: Mean takes 1 parameter (a column name), got 2\n"
        "line 1, column 45: unknown rule type 'Nope'"
    )


# ---------------------------------------------------------------- schema checks

SCHEMA = [("id", "bigint"), ("Email", "string"), ("amount", "decimal(10,2)"), ("created", "timestamp"),
          ("address", "struct<city:string,zip:string>")]


def test_columns_are_checked_against_the_schema_case_insensitively() -> None:
    ruleset = parse(
        'Rules = [ IsComplete "email", Mean "amount" > 1, IsPrimaryKey "ID", ColumnValues "address.city" = "Oslo",'
        ' DataFreshness "created" < 1 days, CustomSql "select id from primary", RowCount > 0,'
        ' DetectAnomalies "Completeness" "id", AggregateMatch "sum(amount)" "sum(ref.amount)" = 1.0,'
        ' ReferentialIntegrity "id" "ref.{id}" > 0.9, DatasetMatch "ref" "id->ref_id" "amount" > 0.9 ]'
    )
    check(ruleset, SCHEMA)
    check(ruleset)


def test_unknown_columns_and_non_numeric_columns_are_reported_before_any_data_is_read() -> None:
    ruleset = parse(
        'Rules = [ IsComplete "mail",\n Mean "Email" > 1,\n (RowCount > 0) and (IsUnique "nope"),\n'
        ' DetectAnomalies "ColumnLength" "gone",\n ReferentialIntegrity "id,zip" "ref.{a,b}" > 0.9,\n'
        ' DatasetMatch "ref" "key->id" > 0.9,\n AggregateMatch "avg(price)" "avg(ref.price)" = 1,\n'
        ' ColumnCorrelation "id" "created" > 0.5 ]\nAnalyzers = [ Entropy "missing" ]'
    )
    with pytest.raises(DqdlError) as caught:
        check(ruleset, SCHEMA)
    columns = "(columns: id, Email, amount, created, address)"
    assert str(caught.value).splitlines() == [
        f'line 1, column 11: IsComplete: column "mail" is not in the data {columns}',
        'line 2, column 2: Mean needs a numeric column; "Email" is string',
        f'line 3, column 22: IsUnique: column "nope" is not in the data {columns}',
        f'line 4, column 2: ColumnLength: column "gone" is not in the data {columns}',
        f'line 5, column 2: ReferentialIntegrity: column "zip" is not in the data {columns}',
        f'line 6, column 2: DatasetMatch: column "key" is not in the data {columns}',
        f'line 7, column 2: AggregateMatch: column "price" is not in the data {columns}',
        'line 8, column 2: ColumnCorrelation needs a numeric column; "created" is timestamp',
        f'line 9, column 15: Entropy: column "missing" is not in the data {columns}',
    ]
    assert len(caught.value.errors) == 9


# ---------------------------------------------------------------- the whole language at once


def test_a_ruleset_with_every_rule_type_round_trips() -> None:
    rules = ",\n    ".join(texts[-1] for texts in VALID.values())
    text = (
        "# every rule type, every section\n"
        'Metadata = {"Version": "1.0"}\n'
        'DataSources = {"Primary": "orders", "AdditionalDataSources": ["reference"]}\n'
        'sql = "select count(*) from primary"\n'
        'states = ["CA", "NY"]\n'
        'DefaultLabels = ["team" = "data", "tier" = "gold"]\n'
        f"Rules = [\n    {rules},\n"
        '    (IsComplete "id") and ((ColumnValues "state" in $states) or (CustomSql $sql > 0)),\n'
        '    ColumnValues "age" not between 0 and 150 where "country = \'NO\'" with threshold >= 0.99 '
        'labels = ["owner" = "crm"]\n]\n'
        'Analyzers = [ RowCount, Completeness "id", AllStatistics "amount" ]\n'
    )
    ruleset = parse(text)
    assert {leaf.rule_type for leaf in ruleset.leaves()} >= set(ISSUE_RULE_TYPES)
    canonical = ruleset.to_dqdl()
    again = parse(canonical)
    assert again == ruleset
    assert again.to_dqdl() == canonical
    composite = ruleset.rules[-2]
    assert isinstance(composite, CompositeRule)
    assert hash(ruleset.rules) == hash(again.rules)
