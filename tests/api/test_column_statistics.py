from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.helpers import error_of, table_input, unique

ANALYZED = dt.datetime(2026, 3, 1, 12, 30, tzinfo=dt.UTC)


def long_stats(column: str, minimum: int = 1, maximum: int = 99, nulls: int = 0) -> dict[str, Any]:
    return {"ColumnName": column, "ColumnType": "bigint", "AnalyzedTime": ANALYZED,
            "StatisticsData": {"Type": "LONG", "LongColumnStatisticsData": {
                "MinimumValue": minimum, "MaximumValue": maximum, "NumberOfNulls": nulls,
                "NumberOfDistinctValues": 42}}}


def double_stats(column: str) -> dict[str, Any]:
    return {"ColumnName": column, "ColumnType": "double", "AnalyzedTime": ANALYZED,
            "StatisticsData": {"Type": "DOUBLE", "DoubleColumnStatisticsData": {
                "MinimumValue": -1.5, "MaximumValue": 2.25, "NumberOfNulls": 3, "NumberOfDistinctValues": 7}}}


@pytest.fixture()
def table(glue: Any) -> tuple[str, str]:
    database, name = unique("statsdb"), unique("sales")
    glue.create_database(DatabaseInput={"Name": database})
    glue.create_table(DatabaseName=database, TableInput=table_input(name, partition_keys=[("day", "string")]))
    return database, name


def test_table_statistics_round_trip(glue: Any, table: tuple[str, str]) -> None:
    database, name = table
    response = glue.update_column_statistics_for_table(
        DatabaseName=database, TableName=name, ColumnStatisticsList=[long_stats("id"), double_stats("AMOUNT")])
    assert response["Errors"] == []
    got = glue.get_column_statistics_for_table(DatabaseName=database, TableName=name,
                                               ColumnNames=["amount", "id"])
    assert got["Errors"] == []
    by_name = {s["ColumnName"]: s for s in got["ColumnStatisticsList"]}
    assert list(by_name) == ["amount", "id"]
    assert by_name["id"]["StatisticsData"] == long_stats("id")["StatisticsData"]
    assert by_name["id"]["AnalyzedTime"] == ANALYZED
    assert by_name["id"]["ColumnType"] == "bigint"
    assert by_name["amount"]["StatisticsData"]["DoubleColumnStatisticsData"]["MaximumValue"] == 2.25
    # a second update replaces the first
    glue.update_column_statistics_for_table(DatabaseName=database, TableName=name,
                                            ColumnStatisticsList=[long_stats("id", maximum=1000)])
    got = glue.get_column_statistics_for_table(DatabaseName=database, TableName=name, ColumnNames=["id"])
    assert got["ColumnStatisticsList"][0]["StatisticsData"]["LongColumnStatisticsData"]["MaximumValue"] == 1000


def test_every_statistics_type_round_trips(glue: Any, table: tuple[str, str]) -> None:
    database, name = table
    day = dt.datetime(2026, 1, 2, tzinfo=dt.UTC)
    data = {
        "BOOLEAN": {"NumberOfTrues": 1, "NumberOfFalses": 2, "NumberOfNulls": 0},
        "DATE": {"MinimumValue": day, "MaximumValue": day, "NumberOfNulls": 0, "NumberOfDistinctValues": 1},
        "DECIMAL": {"MinimumValue": {"UnscaledValue": b"\x01\x02", "Scale": 2},
                    "MaximumValue": {"UnscaledValue": b"\x7f", "Scale": 2},
                    "NumberOfNulls": 0, "NumberOfDistinctValues": 2},
        "STRING": {"MaximumLength": 10, "AverageLength": 4.5, "NumberOfNulls": 1, "NumberOfDistinctValues": 3},
        "BINARY": {"MaximumLength": 8, "AverageLength": 2.0, "NumberOfNulls": 0},
    }
    members = {"BOOLEAN": "BooleanColumnStatisticsData", "DATE": "DateColumnStatisticsData",
               "DECIMAL": "DecimalColumnStatisticsData", "STRING": "StringColumnStatisticsData",
               "BINARY": "BinaryColumnStatisticsData"}
    for kind, values in data.items():
        stats = {"ColumnName": "amount", "ColumnType": kind.lower(), "AnalyzedTime": ANALYZED,
                 "StatisticsData": {"Type": kind, members[kind]: values}}
        assert glue.update_column_statistics_for_table(DatabaseName=database, TableName=name,
                                                       ColumnStatisticsList=[stats])["Errors"] == []
        got = glue.get_column_statistics_for_table(DatabaseName=database, TableName=name, ColumnNames=["amount"])
        assert got["ColumnStatisticsList"][0]["StatisticsData"] == {"Type": kind, members[kind]: values}


def test_unknown_columns_are_reported_per_item(glue: Any, table: tuple[str, str]) -> None:
    database, name = table
    response = glue.update_column_statistics_for_table(
        DatabaseName=database, TableName=name, ColumnStatisticsList=[long_stats("nope"), long_stats("id")])
    assert len(response["Errors"]) == 1
    error = response["Errors"][0]
    assert error["ColumnStatistics"]["ColumnName"] == "nope"
    assert error["ColumnStatistics"]["StatisticsData"] == long_stats("nope")["StatisticsData"]
    assert error["Error"] == {"ErrorCode": "EntityNotFoundException",
                              "ErrorMessage": f"Column nope not found in table {database}.{name}."}
    got = glue.get_column_statistics_for_table(DatabaseName=database, TableName=name,
                                               ColumnNames=["id", "amount", "nope"])
    assert [s["ColumnName"] for s in got["ColumnStatisticsList"]] == ["id"]
    assert got["Errors"] == [
        {"ColumnName": "amount", "Error": {"ErrorCode": "EntityNotFoundException",
                                           "ErrorMessage": f"No statistics for column amount in table "
                                                           f"{database}.{name}."}},
        {"ColumnName": "nope", "Error": {"ErrorCode": "EntityNotFoundException",
                                         "ErrorMessage": f"Column nope not found in table {database}.{name}."}},
    ]


@pytest.mark.parametrize(("data", "message"), [
    ({"Type": "LONG", "DoubleColumnStatisticsData": {"NumberOfNulls": 0, "NumberOfDistinctValues": 1}},
     "StatisticsData of column id has Type LONG but no LongColumnStatisticsData"),
    ({"Type": "LONG", "LongColumnStatisticsData": {"NumberOfNulls": 0, "NumberOfDistinctValues": 1},
      "BooleanColumnStatisticsData": {"NumberOfTrues": 0, "NumberOfFalses": 0, "NumberOfNulls": 0}},
     "StatisticsData of column id has Type LONG but also BooleanColumnStatisticsData"),
])
def test_statistics_type_must_match_its_member(glue: Any, table: tuple[str, str], data: dict[str, Any],
                                               message: str) -> None:
    database, name = table
    stats = {"ColumnName": "id", "ColumnType": "bigint", "AnalyzedTime": ANALYZED, "StatisticsData": data}
    with pytest.raises(ClientError) as excinfo:
        glue.update_column_statistics_for_table(DatabaseName=database, TableName=name,
                                                ColumnStatisticsList=[long_stats("amount"), stats])
    assert error_of(excinfo) == ("InvalidInputException", message)
    got = glue.get_column_statistics_for_table(DatabaseName=database, TableName=name, ColumnNames=["amount"])
    assert got["ColumnStatisticsList"] == []  # nothing of a refused request is written


def test_delete_table_statistics(glue: Any, table: tuple[str, str]) -> None:
    database, name = table
    glue.update_column_statistics_for_table(DatabaseName=database, TableName=name,
                                            ColumnStatisticsList=[long_stats("id")])
    glue.delete_column_statistics_for_table(DatabaseName=database, TableName=name, ColumnName="ID")
    got = glue.get_column_statistics_for_table(DatabaseName=database, TableName=name, ColumnNames=["id"])
    assert got["ColumnStatisticsList"] == []
    with pytest.raises(ClientError) as excinfo:
        glue.delete_column_statistics_for_table(DatabaseName=database, TableName=name, ColumnName="id")
    assert error_of(excinfo) == ("EntityNotFoundException",
                                 f"No statistics for column id in table {database}.{name}.")
    with pytest.raises(ClientError) as excinfo:
        glue.delete_column_statistics_for_table(DatabaseName=database, TableName=name, ColumnName="nope")
    assert error_of(excinfo) == ("EntityNotFoundException", f"Column nope not found in table {database}.{name}.")


def test_missing_database_or_table_is_entity_not_found(glue: Any, table: tuple[str, str]) -> None:
    database, _ = table
    missing_db, missing_table = unique("nodb"), unique("notable")
    calls = [
        lambda db, t: glue.update_column_statistics_for_table(DatabaseName=db, TableName=t,
                                                              ColumnStatisticsList=[long_stats("id")]),
        lambda db, t: glue.get_column_statistics_for_table(DatabaseName=db, TableName=t, ColumnNames=["id"]),
        lambda db, t: glue.delete_column_statistics_for_table(DatabaseName=db, TableName=t, ColumnName="id"),
        lambda db, t: glue.get_column_statistics_for_partition(DatabaseName=db, TableName=t,
                                                               PartitionValues=["x"], ColumnNames=["id"]),
    ]
    for call in calls:
        with pytest.raises(ClientError) as excinfo:
            call(missing_db, "t")
        assert error_of(excinfo) == ("EntityNotFoundException", f"Database {missing_db} not found.")
        with pytest.raises(ClientError) as excinfo:
            call(database, missing_table)
        assert error_of(excinfo)[0] == "EntityNotFoundException"
        assert missing_table in error_of(excinfo)[1]


def test_partition_statistics_are_separate_from_the_table(glue: Any, table: tuple[str, str]) -> None:
    database, name = table
    for day in ("2026-01-01", "2026-01-02"):
        glue.create_partition(DatabaseName=database, TableName=name, PartitionInput={
            "Values": [day], "StorageDescriptor": table_input(name)["StorageDescriptor"]})
    response = glue.update_column_statistics_for_partition(
        DatabaseName=database, TableName=name, PartitionValues=["2026-01-01"],
        ColumnStatisticsList=[long_stats("id", maximum=5), long_stats("ghost")])
    assert [e["ColumnStatistics"]["ColumnName"] for e in response["Errors"]] == ["ghost"]
    assert response["Errors"][0]["Error"] == {
        "ErrorCode": "EntityNotFoundException",
        "ErrorMessage": f"Column ghost not found in partition ['2026-01-01'] of table {database}.{name}."}
    glue.update_column_statistics_for_partition(
        DatabaseName=database, TableName=name, PartitionValues=["2026-01-02"],
        ColumnStatisticsList=[long_stats("id", maximum=6)])
    glue.update_column_statistics_for_table(DatabaseName=database, TableName=name,
                                            ColumnStatisticsList=[long_stats("id", maximum=7)])

    def maximum(values: list[str] | None) -> int:
        if values is None:
            got = glue.get_column_statistics_for_table(DatabaseName=database, TableName=name, ColumnNames=["id"])
        else:
            got = glue.get_column_statistics_for_partition(DatabaseName=database, TableName=name,
                                                           PartitionValues=values, ColumnNames=["id"])
        assert got["Errors"] == []
        return int(got["ColumnStatisticsList"][0]["StatisticsData"]["LongColumnStatisticsData"]["MaximumValue"])

    assert (maximum(["2026-01-01"]), maximum(["2026-01-02"]), maximum(None)) == (5, 6, 7)
    glue.delete_column_statistics_for_partition(DatabaseName=database, TableName=name,
                                                PartitionValues=["2026-01-01"], ColumnName="id")
    got = glue.get_column_statistics_for_partition(DatabaseName=database, TableName=name,
                                                   PartitionValues=["2026-01-01"], ColumnNames=["id"])
    assert got["ColumnStatisticsList"] == []
    assert got["Errors"][0]["Error"]["ErrorMessage"] == \
        f"No statistics for column id in partition ['2026-01-01'] of table {database}.{name}."
    assert (maximum(["2026-01-02"]), maximum(None)) == (6, 7)
    with pytest.raises(ClientError) as excinfo:
        glue.delete_column_statistics_for_partition(DatabaseName=database, TableName=name,
                                                    PartitionValues=["2026-01-01"], ColumnName="id")
    assert error_of(excinfo)[0] == "EntityNotFoundException"


def test_missing_partition_is_entity_not_found(glue: Any, table: tuple[str, str]) -> None:
    database, name = table
    expected = ("EntityNotFoundException", f"Partition ['1999-01-01'] not found in table {database}.{name}.")
    calls = [
        lambda: glue.update_column_statistics_for_partition(
            DatabaseName=database, TableName=name, PartitionValues=["1999-01-01"],
            ColumnStatisticsList=[long_stats("id")]),
        lambda: glue.get_column_statistics_for_partition(
            DatabaseName=database, TableName=name, PartitionValues=["1999-01-01"], ColumnNames=["id"]),
        lambda: glue.delete_column_statistics_for_partition(
            DatabaseName=database, TableName=name, PartitionValues=["1999-01-01"], ColumnName="id"),
    ]
    for call in calls:
        with pytest.raises(ClientError) as excinfo:
            call()
        assert error_of(excinfo) == expected


def test_partition_statistics_go_with_the_partition(glue: Any, table: tuple[str, str]) -> None:
    database, name = table
    glue.create_partition(DatabaseName=database, TableName=name, PartitionInput={"Values": ["d1"]})
    glue.update_column_statistics_for_partition(DatabaseName=database, TableName=name, PartitionValues=["d1"],
                                                ColumnStatisticsList=[long_stats("id")])
    glue.delete_partition(DatabaseName=database, TableName=name, PartitionValues=["d1"])
    glue.create_partition(DatabaseName=database, TableName=name, PartitionInput={"Values": ["d1"]})
    got = glue.get_column_statistics_for_partition(DatabaseName=database, TableName=name,
                                                   PartitionValues=["d1"], ColumnNames=["id"])
    assert got["ColumnStatisticsList"] == []
    assert got["Errors"][0]["ColumnName"] == "id"


def test_request_limits_are_validated(glue: Any, table: tuple[str, str]) -> None:
    database, name = table
    with pytest.raises(ClientError) as excinfo:
        glue.update_column_statistics_for_table(DatabaseName=database, TableName=name,
                                                ColumnStatisticsList=[long_stats("id")] * 26)
    code, message = error_of(excinfo)
    assert code == "ValidationException"
    assert "'columnStatisticsList' failed to satisfy constraint: Member must have length less than or equal " \
           "to 25" in message
    with pytest.raises(ClientError) as excinfo:
        glue.get_column_statistics_for_table(DatabaseName=database, TableName=name,
                                             ColumnNames=[f"c{i}" for i in range(101)])
    assert error_of(excinfo)[0] == "ValidationException"


def test_statistics_follow_a_partition_whose_values_change(glue: Any, table: tuple[str, str]) -> None:
    database, name = table
    glue.create_partition(DatabaseName=database, TableName=name, PartitionInput={"Values": ["old"]})
    glue.update_column_statistics_for_partition(DatabaseName=database, TableName=name, PartitionValues=["old"],
                                                ColumnStatisticsList=[long_stats("id", maximum=11)])
    glue.update_partition(DatabaseName=database, TableName=name, PartitionValueList=["old"],
                          PartitionInput={"Values": ["new"]})
    glue.create_partition(DatabaseName=database, TableName=name, PartitionInput={"Values": ["old"]})
    response = glue.update_column_statistics_for_partition(
        DatabaseName=database, TableName=name, PartitionValues=["old"],
        ColumnStatisticsList=[long_stats("id", maximum=22)])
    assert response["Errors"] == []
    for values, expected in ((["new"], 11), (["old"], 22)):
        got = glue.get_column_statistics_for_partition(DatabaseName=database, TableName=name,
                                                       PartitionValues=values, ColumnNames=["id"])
        assert got["ColumnStatisticsList"][0]["StatisticsData"]["LongColumnStatisticsData"]["MaximumValue"] \
            == expected
