"""Partitions, GetPartitions' filter language and partition indexes, black-box through boto3."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.helpers import ServerProcess, error_of, table_input, unique

YEAR_MONTH = [("year", "string"), ("month", "int")]


def make_table(glue: Any, keys: list[tuple[str, str]] | None = None, **extra: Any) -> tuple[str, str]:
    database, table = unique("pdb"), unique("ptbl")
    glue.create_database(DatabaseInput={"Name": database})
    glue.create_table(DatabaseName=database, TableInput=table_input(table, partition_keys=keys or YEAR_MONTH),
                      **extra)
    return database, table


def part(values: list[str], **extra: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "Values": values,
        "StorageDescriptor": {
            "Columns": [{"Name": "id", "Type": "bigint"}],
            "Location": "s3://bucket/t/" + "/".join(values) + "/",
        },
    }
    spec.update(extra)
    return spec


def load(glue: Any, database: str, table: str, values: list[list[str]]) -> None:
    for start in range(0, len(values), 100):
        answer = glue.batch_create_partition(DatabaseName=database, TableName=table,
                                             PartitionInputList=[part(v) for v in values[start:start + 100]])
        assert answer.get("Errors", []) == []


def all_values(glue: Any, database: str, table: str, expression: str | None = None, **kwargs: Any) -> list[list[str]]:
    params: dict[str, Any] = {"DatabaseName": database, "TableName": table, **kwargs}
    if expression is not None:
        params["Expression"] = expression
    pages = glue.get_paginator("get_partitions").paginate(**params)
    return [p["Values"] for page in pages for p in page["Partitions"]]


def client_error(call: Callable[[], Any]) -> tuple[str, str]:
    with pytest.raises(ClientError) as excinfo:
        call()
    return error_of(excinfo)


# ---------------------------------------------------------------- single partitions

def test_create_get_partition_round_trips_every_member(glue: Any) -> None:
    database, table = make_table(glue)
    accessed = dt.datetime(2025, 1, 2, 3, 4, 5, tzinfo=dt.UTC)
    glue.create_partition(DatabaseName=database.upper(), TableName=table, PartitionInput=part(
        ["2024", "7"], Parameters={"rows": "42"}, LastAccessTime=accessed, LastAnalyzedTime=accessed))
    got = glue.get_partition(DatabaseName=database, TableName=table.upper(), PartitionValues=["2024", "7"])
    partition = got["Partition"]
    assert partition["Values"] == ["2024", "7"]
    assert partition["DatabaseName"] == database
    assert partition["TableName"] == table
    assert partition["CatalogId"] == "123456789012"
    assert partition["Parameters"] == {"rows": "42"}
    assert partition["StorageDescriptor"] == {"Columns": [{"Name": "id", "Type": "bigint"}],
                                              "Location": "s3://bucket/t/2024/7/"}
    assert partition["LastAccessTime"] == accessed
    assert partition["LastAnalyzedTime"] == accessed
    assert partition["CreationTime"].year >= 2026


def test_create_partition_errors(glue: Any) -> None:
    database, table = make_table(glue)
    glue.create_partition(DatabaseName=database, TableName=table, PartitionInput=part(["2024", "7"]))
    assert client_error(lambda: glue.create_partition(
        DatabaseName=database, TableName=table, PartitionInput=part(["2024", "7"]))) == \
        ("AlreadyExistsException", "Partition already exists.")
    assert client_error(lambda: glue.create_partition(
        DatabaseName=database, TableName=table, PartitionInput=part(["2024"]))) == \
        ("InvalidInputException", "The number of partition keys do not match the number of partition values")
    assert client_error(lambda: glue.create_partition(
        DatabaseName=database, TableName="nope", PartitionInput=part(["2024", "7"]))) == \
        ("EntityNotFoundException", "Table nope not found.")
    assert client_error(lambda: glue.create_partition(
        DatabaseName="no_db_here", TableName=table, PartitionInput=part(["2024", "7"]))) == \
        ("EntityNotFoundException", "Database no_db_here not found.")


def test_missing_partition_is_entity_not_found(glue: Any) -> None:
    database, table = make_table(glue)
    for call in (lambda: glue.get_partition(DatabaseName=database, TableName=table, PartitionValues=["1", "2"]),
                 lambda: glue.delete_partition(DatabaseName=database, TableName=table, PartitionValues=["1", "2"]),
                 lambda: glue.update_partition(DatabaseName=database, TableName=table,
                                               PartitionValueList=["1", "2"], PartitionInput=part(["1", "2"]))):
        assert client_error(call) == ("EntityNotFoundException", "Cannot find partition.")
    code, message = client_error(
        lambda: glue.get_partition(DatabaseName=database, TableName=table, PartitionValues=["1", "2", "3"]))
    assert (code, message) == ("InvalidInputException",
                               "The number of partition keys do not match the number of partition values")


def test_a_table_without_partition_keys_takes_no_partition_in_aws_words(glue: Any) -> None:
    database, _ = make_table(glue)
    glue.create_table(DatabaseName=database, TableInput={"Name": "flat", "StorageDescriptor": {
        "Columns": [{"Name": "id", "Type": "int"}], "Location": "s3://lake/flat/"}})
    assert client_error(lambda: glue.create_partition(DatabaseName=database, TableName="flat",
                                                      PartitionInput=part(["2024"]))) == (
        "InvalidInputException", "The number of partition keys do not match the number of partition values")
    assert glue.get_partitions(DatabaseName=database, TableName="flat")["Partitions"] == []


def test_update_partition_replaces_definition_and_keeps_creation_time(glue: Any) -> None:
    database, table = make_table(glue)
    glue.create_partition(DatabaseName=database, TableName=table,
                          PartitionInput=part(["2024", "1"], Parameters={"old": "1"}))
    before = glue.get_partition(DatabaseName=database, TableName=table, PartitionValues=["2024", "1"])
    glue.update_partition(DatabaseName=database, TableName=table, PartitionValueList=["2024", "1"],
                          PartitionInput={"Values": ["2024", "1"], "Parameters": {"new": "2"},
                                          "StorageDescriptor": {"Location": "s3://elsewhere/"}})
    after = glue.get_partition(DatabaseName=database, TableName=table, PartitionValues=["2024", "1"])["Partition"]
    assert after["Parameters"] == {"new": "2"}
    assert after["StorageDescriptor"] == {"Location": "s3://elsewhere/"}
    assert after["CreationTime"] == before["Partition"]["CreationTime"]


@pytest.mark.parametrize("indexed", [False, True])
def test_update_partition_moves_values(glue: Any, indexed: bool) -> None:
    database, table = make_table(glue)
    if indexed:
        glue.create_partition_index(DatabaseName=database, TableName=table,
                                    PartitionIndex={"IndexName": "ym", "Keys": ["year", "month"]})
    load(glue, database, table, [["2024", "1"], ["2024", "3"]])
    glue.update_partition(DatabaseName=database, TableName=table, PartitionValueList=["2024", "1"],
                          PartitionInput=part(["2025", "2"]))
    assert client_error(lambda: glue.get_partition(
        DatabaseName=database, TableName=table, PartitionValues=["2024", "1"]))[0] == "EntityNotFoundException"
    moved = glue.get_partition(DatabaseName=database, TableName=table, PartitionValues=["2025", "2"])["Partition"]
    assert moved["StorageDescriptor"]["Location"] == "s3://bucket/t/2025/2/"
    # the typed values moved too: filters (and the index) see the new values only
    assert all_values(glue, database, table, "month = 2") == [["2025", "2"]]
    assert all_values(glue, database, table, "month = 1") == []
    assert all_values(glue, database, table, "year = '2025' AND month BETWEEN 1 AND 2") == [["2025", "2"]]
    assert client_error(lambda: glue.update_partition(
        DatabaseName=database, TableName=table, PartitionValueList=["2025", "2"],
        PartitionInput=part(["2024", "3"]))) == ("AlreadyExistsException", "Partition already exists.")
    code, message = client_error(lambda: glue.update_partition(
        DatabaseName=database, TableName=table, PartitionValueList=["2025", "2"], PartitionInput=part(["2025"])))
    assert code == "InvalidInputException" and "do not match the number of partition values" in message


def test_delete_partition(glue: Any) -> None:
    database, table = make_table(glue)
    load(glue, database, table, [["2024", "1"], ["2024", "2"]])
    glue.delete_partition(DatabaseName=database, TableName=table, PartitionValues=["2024", "1"])
    assert all_values(glue, database, table) == [["2024", "2"]]
    assert all_values(glue, database, table, "month < 3") == [["2024", "2"]]


# ---------------------------------------------------------------- batches

def test_batch_create_reports_errors_per_item(glue: Any) -> None:
    database, table = make_table(glue)
    glue.create_partition(DatabaseName=database, TableName=table, PartitionInput=part(["2024", "1"]))
    answer = glue.batch_create_partition(DatabaseName=database, TableName=table, PartitionInputList=[
        part(["2024", "2"]), part(["2024", "1"]), part(["2024"]), part(["2024", "3"]), part(["2024", "2"]),
    ])
    assert answer["Errors"] == [
        {"PartitionValues": ["2024", "1"],
         "ErrorDetail": {"ErrorCode": "AlreadyExistsException", "ErrorMessage": "Partition already exists."}},
        {"PartitionValues": ["2024"],
         "ErrorDetail": {"ErrorCode": "InvalidInputException",
                         "ErrorMessage": "The number of partition keys do not match the number of partition "
                                         "values"}},
        {"PartitionValues": ["2024", "2"],
         "ErrorDetail": {"ErrorCode": "AlreadyExistsException", "ErrorMessage": "Partition already exists."}},
    ]
    assert all_values(glue, database, table) == [["2024", "1"], ["2024", "2"], ["2024", "3"]]
    assert client_error(lambda: glue.batch_create_partition(
        DatabaseName=database, TableName="nope", PartitionInputList=[part(["1", "2"])]))[0] == \
        "EntityNotFoundException"


def test_batch_create_takes_at_most_100(glue: Any, server: ServerProcess) -> None:
    database, table = make_table(glue)
    answer = glue.batch_create_partition(DatabaseName=database, TableName=table,
                                         PartitionInputList=[part(["2024", str(i)]) for i in range(100)])
    assert "Errors" not in answer
    assert len(all_values(glue, database, table)) == 100
    raw = server.client(parameter_validation=False)
    code, message = client_error(lambda: raw.batch_create_partition(
        DatabaseName=database, TableName=table, PartitionInputList=[part(["2025", str(i)]) for i in range(101)]))
    assert code == "ValidationException"
    assert "partitionInputList" in message and "less than or equal to 100" in message


def test_batch_get_partition_leaves_out_missing(glue: Any) -> None:
    database, table = make_table(glue)
    load(glue, database, table, [["2024", "1"], ["2024", "2"], ["2024", "3"]])
    answer = glue.batch_get_partition(DatabaseName=database, TableName=table, PartitionsToGet=[
        {"Values": ["2024", "3"]}, {"Values": ["1999", "1"]}, {"Values": ["2024", "1"]},
    ])
    assert sorted(p["Values"] for p in answer["Partitions"]) == [["2024", "1"], ["2024", "3"]]
    assert answer["UnprocessedKeys"] == []
    assert all(p["TableName"] == table and p["DatabaseName"] == database for p in answer["Partitions"])
    assert answer["Partitions"][0]["StorageDescriptor"]["Columns"] == [{"Name": "id", "Type": "bigint"}]


def test_batch_update_partition_reports_errors_per_entry(glue: Any) -> None:
    database, table = make_table(glue)
    load(glue, database, table, [["2024", "1"], ["2024", "2"]])
    answer = glue.batch_update_partition(DatabaseName=database, TableName=table, Entries=[
        {"PartitionValueList": ["2024", "1"], "PartitionInput": part(["2024", "1"], Parameters={"v": "new"})},
        {"PartitionValueList": ["1999", "9"], "PartitionInput": part(["1999", "9"])},
        {"PartitionValueList": ["2024", "2"], "PartitionInput": part(["2024", "1"])},
        {"PartitionValueList": ["2024", "2"], "PartitionInput": part(["2024", "12"])},
    ])
    assert answer["Errors"] == [
        {"PartitionValueList": ["1999", "9"],
         "ErrorDetail": {"ErrorCode": "EntityNotFoundException", "ErrorMessage": "Cannot find partition."}},
        {"PartitionValueList": ["2024", "2"],
         "ErrorDetail": {"ErrorCode": "AlreadyExistsException", "ErrorMessage": "Partition already exists."}},
    ]
    assert glue.get_partition(DatabaseName=database, TableName=table,
                              PartitionValues=["2024", "1"])["Partition"]["Parameters"] == {"v": "new"}
    assert all_values(glue, database, table) == [["2024", "1"], ["2024", "12"]]
    assert all_values(glue, database, table, "month > 10") == [["2024", "12"]]


def test_batch_delete_partition_reports_missing(glue: Any) -> None:
    database, table = make_table(glue)
    load(glue, database, table, [["2024", "1"], ["2024", "2"], ["2024", "3"]])
    answer = glue.batch_delete_partition(DatabaseName=database, TableName=table, PartitionsToDelete=[
        {"Values": ["2024", "1"]}, {"Values": ["1999", "1"]}, {"Values": ["2024", "3"]},
    ])
    assert answer["Errors"] == [
        {"PartitionValues": ["1999", "1"],
         "ErrorDetail": {"ErrorCode": "EntityNotFoundException", "ErrorMessage": "Cannot find partition."}},
    ]
    assert all_values(glue, database, table) == [["2024", "2"]]
    assert "Errors" not in glue.batch_delete_partition(DatabaseName=database, TableName=table,
                                                       PartitionsToDelete=[{"Values": ["2024", "2"]}])
    assert all_values(glue, database, table) == []


# ---------------------------------------------------------------- GetPartitions

def test_get_partitions_pages_in_creation_order(glue: Any) -> None:
    database, table = make_table(glue)
    values = [["2024", str(m)] for m in (5, 1, 12, 3)] + [["2023", str(m)] for m in range(1, 13)] + \
             [["2022", str(m)] for m in range(1, 10)]
    load(glue, database, table, values)
    first = glue.get_partitions(DatabaseName=database, TableName=table, MaxResults=7)
    assert [p["Values"] for p in first["Partitions"]] == values[:7]
    second = glue.get_partitions(DatabaseName=database, TableName=table, MaxResults=7,
                                 NextToken=first["NextToken"])
    assert [p["Values"] for p in second["Partitions"]] == values[7:14]
    pages = list(glue.get_paginator("get_partitions").paginate(
        DatabaseName=database, TableName=table, PaginationConfig={"PageSize": 7}))
    assert [len(page["Partitions"]) for page in pages] == [7, 7, 7, 4]
    assert "NextToken" not in pages[-1]
    assert [p["Values"] for page in pages for p in page["Partitions"]] == values
    # a filtered listing pages over the matches only
    filtered = list(glue.get_paginator("get_partitions").paginate(
        DatabaseName=database, TableName=table, Expression="month >= 5", PaginationConfig={"PageSize": 4}))
    expected = [v for v in values if int(v[1]) >= 5]
    assert [p["Values"] for page in filtered for p in page["Partitions"]] == expected
    assert [len(page["Partitions"]) for page in filtered] == [4, 4, 4, 3]
    assert client_error(lambda: glue.get_partitions(DatabaseName=database, TableName=table,
                                                    NextToken="not a token"))[0] == "InvalidInputException"


def test_get_partitions_segments_split_the_table(glue: Any, server: ServerProcess) -> None:
    database, table = make_table(glue)
    values = [[str(y), str(m)] for y in (2023, 2024) for m in range(1, 13)]
    load(glue, database, table, values)
    segments = [all_values(glue, database, table, Segment={"SegmentNumber": n, "TotalSegments": 3})
                for n in range(3)]
    assert all(segments)
    assert sorted(v for s in segments for v in s) == sorted(values)  # disjoint and complete
    assert sum(len(s) for s in segments) == len(values)
    in_2024 = [all_values(glue, database, table, "year = '2024'", Segment={"SegmentNumber": n, "TotalSegments": 3})
               for n in range(3)]
    assert sorted(v for s in in_2024 for v in s) == sorted(v for v in values if v[0] == "2024")
    assert all_values(glue, database, table, Segment={"SegmentNumber": 0, "TotalSegments": 1}) == values
    code, message = client_error(lambda: glue.get_partitions(
        DatabaseName=database, TableName=table, Segment={"SegmentNumber": 3, "TotalSegments": 3}))
    assert code == "InvalidInputException"
    assert "SegmentNumber 3 must be less than TotalSegments 3" in message
    raw = server.client(parameter_validation=False)
    code, _ = client_error(lambda: raw.get_partitions(
        DatabaseName=database, TableName=table, Segment={"SegmentNumber": 0, "TotalSegments": 11}))
    assert code == "ValidationException"


def test_get_partitions_exclude_column_schema(glue: Any) -> None:
    database, table = make_table(glue)
    load(glue, database, table, [["2024", "1"]])
    [with_columns] = glue.get_partitions(DatabaseName=database, TableName=table)["Partitions"]
    assert with_columns["StorageDescriptor"]["Columns"] == [{"Name": "id", "Type": "bigint"}]
    [without] = glue.get_partitions(DatabaseName=database, TableName=table,
                                    ExcludeColumnSchema=True)["Partitions"]
    assert without["StorageDescriptor"] == {"Location": "s3://bucket/t/2024/1/"}
    assert without["Values"] == ["2024", "1"]


def test_get_partitions_rejects_transactions_and_time_travel(glue: Any) -> None:
    database, table = make_table(glue)
    assert client_error(lambda: glue.get_partitions(DatabaseName=database, TableName=table,
                                                    TransactionId="tx1")) == \
        ("InvalidInputException", "TransactionId is not supported by glueball")
    assert client_error(lambda: glue.get_partitions(
        DatabaseName=database, TableName=table, QueryAsOfTime=dt.datetime(2025, 1, 1, tzinfo=dt.UTC))) == \
        ("InvalidInputException", "QueryAsOfTime is not supported by glueball")
    assert client_error(lambda: glue.get_partitions(DatabaseName=database, TableName="nope"))[0] == \
        "EntityNotFoundException"


def test_typed_comparisons_follow_the_key_types(glue: Any) -> None:
    database, table = make_table(glue)
    load(glue, database, table, [["2024", str(m)] for m in range(1, 13)] + [["10", "1"], ["9", "1"]])
    assert all_values(glue, database, table, "month > 9") == [["2024", "10"], ["2024", "11"], ["2024", "12"]]
    assert all_values(glue, database, table, "year > '2'") == \
        [["2024", str(m)] for m in range(1, 13)] + [["9", "1"]]  # '10' < '2' < '9' as text
    assert all_values(glue, database, table, "month = '07'") == [["2024", "7"]]


def test_invalid_expressions_are_invalid_input(glue: Any) -> None:
    database, table = make_table(glue, [("year", "string"), ("month", "int"), ("payload", "struct<a:int>")])
    cases = {
        "month >": "Invalid partition filter expression 'month >': unexpected end of expression",
        "colour = 'red'": "Unknown partition key 'colour' in expression at position 0; the partition keys of the "
                          "table are: year, month, payload",
        "month = 'seven'": "Cannot compare partition key month of type int with 'seven' at position 8: the value "
                           "is not a valid int",
        "payload = 'x'": "Partition key payload has type struct<a:int>, which partition filter expressions do "
                         "not support",
    }
    for expression, message in cases.items():
        assert client_error(lambda e=expression: glue.get_partitions(  # type: ignore[misc]
            DatabaseName=database, TableName=table, Expression=e)) == ("InvalidInputException", message)


DATED = [("year", "string"), ("month", "int"), ("day", "int"), ("dt", "date"), ("region", "string")]
QUERIES: list[tuple[str, Callable[[str, int, int, str, str], bool]]] = [
    ("year = '2024'", lambda y, m, d, t, r: y == "2024"),
    ("year <> '2024'", lambda y, m, d, t, r: y != "2024"),
    ("year != '2024'", lambda y, m, d, t, r: y != "2024"),
    ("month > 9", lambda y, m, d, t, r: m > 9),
    ("month >= 10 AND day < 3", lambda y, m, d, t, r: m >= 10 and d < 3),
    ("month <= 2", lambda y, m, d, t, r: m <= 2),
    ("year = '2023' AND month BETWEEN 6 AND 7", lambda y, m, d, t, r: y == "2023" and 6 <= m <= 7),
    ("month NOT BETWEEN 2 AND 11", lambda y, m, d, t, r: not 2 <= m <= 11),
    ("dt >= '2024-12-01'", lambda y, m, d, t, r: t >= "2024-12-01"),
    ("dt < '2023-01-03' AND region = 'eu'", lambda y, m, d, t, r: t < "2023-01-03" and r == "eu"),
    ("day IN (1, 4) AND year = '2024'", lambda y, m, d, t, r: d in (1, 4) and y == "2024"),
    ("region NOT IN ('eu', 'us')", lambda y, m, d, t, r: r not in ("eu", "us")),
    ("region LIKE 'a%' AND month = 3", lambda y, m, d, t, r: r.startswith("a") and m == 3),
    ("region NOT LIKE '_u' AND day = 2", lambda y, m, d, t, r: r != "eu" and d == 2),
    ("year = '2024' OR month = 1", lambda y, m, d, t, r: y == "2024" or m == 1),
    ("NOT (year = '2024' OR day > 1)", lambda y, m, d, t, r: not (y == "2024" or d > 1)),
    ("(month = 1 OR month = 12) AND day = 4 AND year >= '2024'",
     lambda y, m, d, t, r: m in (1, 12) and d == 4 and y >= "2024"),
    ("region IS NOT NULL AND month < 2 AND day > 3", lambda y, m, d, t, r: m < 2 and d > 3),
    ("month > 12", lambda y, m, d, t, r: False),
]


def test_every_operator_gives_the_same_answer_with_and_without_indexes(glue: Any) -> None:
    database, table = make_table(glue, DATED)
    rows = [(str(y), m, d, f"{y}-{m:02d}-{d:02d}", region)
            for y in (2023, 2024) for m in range(1, 13) for d in range(1, 5) for region in ("eu", "us", "ap")]
    load(glue, database, table, [[y, str(m), str(d), t, r] for y, m, d, t, r in rows])

    def answers() -> dict[str, list[list[str]]]:
        return {q: all_values(glue, database, table, q, PaginationConfig={"PageSize": 50}) for q, _ in QUERIES}

    unindexed = answers()
    for query, reference in QUERIES:
        expected = [[y, str(m), str(d), t, r] for y, m, d, t, r in rows if reference(y, m, d, t, r)]
        assert unindexed[query] == expected, query
    glue.create_partition_index(DatabaseName=database, TableName=table,
                                PartitionIndex={"IndexName": "by_date", "Keys": ["year", "month", "day"]})
    glue.create_partition_index(DatabaseName=database, TableName=table,
                                PartitionIndex={"IndexName": "by_dt", "Keys": ["dt", "region"]})
    assert answers() == unindexed


# ---------------------------------------------------------------- partition indexes

def test_partition_index_lifecycle(glue: Any) -> None:
    database, table = make_table(glue, [("year", "string"), ("month", "int"), ("dt", "date"),
                                        ("code", "varchar(4)"), ("price", "double")])
    assert glue.get_partition_indexes(DatabaseName=database, TableName=table)["PartitionIndexDescriptorList"] == []
    glue.create_partition_index(DatabaseName=database, TableName=table,
                                PartitionIndex={"IndexName": "ym", "Keys": ["year", "month"]})
    glue.create_partition_index(DatabaseName=database, TableName=table,
                                PartitionIndex={"IndexName": "by_dt", "Keys": ["dt", "code"]})
    listed = glue.get_partition_indexes(DatabaseName=database, TableName=table)
    assert listed["PartitionIndexDescriptorList"] == [
        {"IndexName": "ym", "Keys": [{"Name": "year", "Type": "string"}, {"Name": "month", "Type": "int"}],
         "IndexStatus": "ACTIVE"},
        {"IndexName": "by_dt", "Keys": [{"Name": "dt", "Type": "date"}, {"Name": "code", "Type": "varchar(4)"}],
         "IndexStatus": "ACTIVE"},
    ]
    assert "NextToken" not in listed
    assert client_error(lambda: glue.create_partition_index(
        DatabaseName=database, TableName=table, PartitionIndex={"IndexName": "ym", "Keys": ["month"]})) == \
        ("AlreadyExistsException", f"Partition index ym already exists on table {database}.{table}.")
    code, message = client_error(lambda: glue.create_partition_index(
        DatabaseName=database, TableName=table, PartitionIndex={"IndexName": "bad", "Keys": ["year", "colour"]}))
    assert code == "InvalidInputException"
    assert f"colour is not a partition key of table {database}.{table}" in message
    code, message = client_error(lambda: glue.create_partition_index(
        DatabaseName=database, TableName=table, PartitionIndex={"IndexName": "bad", "Keys": ["price"]}))
    assert code == "InvalidInputException"
    assert "key price has type double; partition indexes support string" in message
    code, message = client_error(lambda: glue.create_partition_index(
        DatabaseName=database, TableName=table, PartitionIndex={"IndexName": "bad", "Keys": ["year", "year"]}))
    assert (code, message) == ("InvalidInputException", "Partition index bad: key year is listed twice")
    glue.create_partition_index(DatabaseName=database, TableName=table,
                                PartitionIndex={"IndexName": "third", "Keys": ["month"]})
    code, message = client_error(lambda: glue.create_partition_index(
        DatabaseName=database, TableName=table, PartitionIndex={"IndexName": "fourth", "Keys": ["code"]}))
    assert code == "ResourceNumberLimitExceededException"
    assert "already has 3 partition indexes" in message
    glue.delete_partition_index(DatabaseName=database, TableName=table, IndexName="ym")
    names = [i["IndexName"] for i in glue.get_partition_indexes(
        DatabaseName=database, TableName=table)["PartitionIndexDescriptorList"]]
    assert names == ["by_dt", "third"]
    assert client_error(lambda: glue.delete_partition_index(
        DatabaseName=database, TableName=table, IndexName="ym")) == \
        ("EntityNotFoundException", f"Partition index ym not found on table {database}.{table}.")
    assert client_error(lambda: glue.get_partition_indexes(DatabaseName=database, TableName="nope"))[0] == \
        "EntityNotFoundException"
    glue.create_partition_index(DatabaseName=database, TableName=table,
                                PartitionIndex={"IndexName": "ym", "Keys": ["year", "month"]})


def test_create_table_with_partition_indexes(glue: Any) -> None:
    database, table = make_table(glue, PartitionIndexes=[{"IndexName": "ym", "Keys": ["year", "month"]}])
    [index] = glue.get_partition_indexes(DatabaseName=database, TableName=table)["PartitionIndexDescriptorList"]
    assert (index["IndexName"], [k["Name"] for k in index["Keys"]]) == ("ym", ["year", "month"])
    load(glue, database, table, [["2024", "1"], ["2024", "11"]])
    assert all_values(glue, database, table, "year = '2024' AND month > 9") == [["2024", "11"]]
    other = unique("ptbl")
    code, _ = client_error(lambda: glue.create_table(
        DatabaseName=database, TableInput=table_input(other, partition_keys=YEAR_MONTH),
        PartitionIndexes=[{"IndexName": "bad", "Keys": ["colour"]}]))
    assert code == "InvalidInputException"
    assert client_error(lambda: glue.get_table(DatabaseName=database, Name=other))[0] == "EntityNotFoundException"


def test_changing_a_partition_key_type_retypes_indexed_values(glue: Any) -> None:
    db = unique("retype")
    glue.create_database(DatabaseInput={"Name": db})
    glue.create_table(DatabaseName=db, TableInput=table_input("t", [("month", "string")]))
    glue.batch_create_partition(DatabaseName=db, TableName="t",
                                PartitionInputList=[{"Values": [m]} for m in ("7", "10", "12")])
    glue.create_partition_index(DatabaseName=db, TableName="t",
                                PartitionIndex={"IndexName": "by_month", "Keys": ["month"]})
    as_text = glue.get_partitions(DatabaseName=db, TableName="t", Expression="month > '2'")["Partitions"]
    assert sorted(p["Values"][0] for p in as_text) == ["7"]
    glue.update_table(DatabaseName=db, TableInput=table_input("t", [("month", "int")]))
    as_int = glue.get_partitions(DatabaseName=db, TableName="t", Expression="month > 9")["Partitions"]
    assert sorted(p["Values"][0] for p in as_int) == ["10", "12"]
