"""A column statistics task run with its real driver on Spark, through boto3 against a server (SQLite): the
statistics Spark computed for every supported column type are what GetColumnStatisticsForTable answers."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.helpers import ServerProcess, unique, wait_for

pytestmark = pytest.mark.spark

ROWS = [
    {"id": 1, "name": "ann", "amount": 1.5, "price": 10.25, "active": True, "day": "2024-01-02"},
    {"id": 2, "name": "bob", "amount": None, "price": 3.10, "active": False, "day": "2024-03-04"},
    {"id": 3, "name": None, "amount": 7.0, "price": 99.99, "active": True, "day": None},
    {"id": 3, "name": "ann", "amount": 2.0, "price": None, "active": None, "day": "2023-12-31"},
]
COLUMNS = [("id", "bigint"), ("name", "string"), ("amount", "double"), ("price", "decimal(10,2)"),
           ("active", "boolean"), ("day", "date"), ("tags", "array<string>")]


@pytest.fixture(scope="module")
def spark_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(tmp_path_factory.mktemp("stats-spark")).start()
    yield proc
    proc.stop()


def test_spark_computes_the_statistics_the_catalog_then_answers(spark_server: ServerProcess) -> None:
    glue = spark_server.client()
    database = unique("statsspark")
    glue.create_database(DatabaseInput={"Name": database})
    folder = spark_server.home / "s3" / "stats-data" / database / "orders"
    folder.mkdir(parents=True)
    (folder / "part-0.json").write_text("".join(json.dumps(row) + "\n" for row in ROWS))
    glue.create_table(DatabaseName=database, TableInput={
        "Name": "orders", "TableType": "EXTERNAL_TABLE", "Parameters": {"classification": "json"},
        "StorageDescriptor": {
            "Columns": [{"Name": c, "Type": t} for c, t in COLUMNS], "Location": f"s3://stats-data/{database}/orders/",
            "InputFormat": "org.apache.hadoop.mapred.TextInputFormat",
            "OutputFormat": "org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat",
            "SerdeInfo": {"SerializationLibrary": "org.openx.data.jsonserde.JsonSerDe"}}})

    run_id = glue.start_column_statistics_task_run(DatabaseName=database, TableName="orders",
                                                   Role="GlueRole")["ColumnStatisticsTaskRunId"]

    def ended() -> Any:
        run = glue.get_column_statistics_task_run(ColumnStatisticsTaskRunId=run_id)["ColumnStatisticsTaskRun"]
        return run if run["Status"] in ("SUCCEEDED", "FAILED", "STOPPED") else None

    run = wait_for(ended, 600, "the column statistics task run to end", interval=0.5)
    assert run["Status"] == "SUCCEEDED", run.get("ErrorMessage")
    assert run["ColumnNameList"] == ["id", "name", "amount", "price", "active", "day"]  # tags has no statistics

    answer = glue.get_column_statistics_for_table(DatabaseName=database, TableName="orders",
                                                  ColumnNames=[c for c, _ in COLUMNS])
    found = {s["ColumnName"]: s for s in answer["ColumnStatisticsList"]}
    assert [e["ColumnName"] for e in answer["Errors"]] == ["tags"]
    assert found["price"]["ColumnType"] == "decimal(10,2)"
    assert found["id"]["StatisticsData"] == {"Type": "LONG", "LongColumnStatisticsData": {
        "MinimumValue": 1, "MaximumValue": 3, "NumberOfNulls": 0, "NumberOfDistinctValues": 3}}
    assert found["name"]["StatisticsData"] == {"Type": "STRING", "StringColumnStatisticsData": {
        "MaximumLength": 3, "AverageLength": 3.0, "NumberOfNulls": 1, "NumberOfDistinctValues": 2}}
    assert found["amount"]["StatisticsData"] == {"Type": "DOUBLE", "DoubleColumnStatisticsData": {
        "MinimumValue": 1.5, "MaximumValue": 7.0, "NumberOfNulls": 1, "NumberOfDistinctValues": 3}}
    assert found["active"]["StatisticsData"] == {"Type": "BOOLEAN", "BooleanColumnStatisticsData": {
        "NumberOfTrues": 2, "NumberOfFalses": 1, "NumberOfNulls": 1}}
    dates = found["day"]["StatisticsData"]["DateColumnStatisticsData"]
    assert dates["MinimumValue"].astimezone(dt.UTC).date() == dt.date(2023, 12, 31)
    assert dates["MaximumValue"].astimezone(dt.UTC).date() == dt.date(2024, 3, 4)
    assert (dates["NumberOfNulls"], dates["NumberOfDistinctValues"]) == (1, 3)
    decimals = found["price"]["StatisticsData"]["DecimalColumnStatisticsData"]
    assert int.from_bytes(decimals["MinimumValue"]["UnscaledValue"], "big", signed=True) == 310
    assert int.from_bytes(decimals["MaximumValue"]["UnscaledValue"], "big", signed=True) == 9999
    assert decimals["MaximumValue"]["Scale"] == 2 and decimals["NumberOfNulls"] == 1
