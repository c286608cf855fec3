"""Catalog tables are visible to spark.sql and spark.table, with partition pruning through the catalog."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from glueball.runtime.sqlcatalog import storage_format, table_ddl
from tests.helpers import unique


def test_catalog_tables_are_queryable_with_catalog_partition_pruning(glue_context: Any, glue_home: Path) -> None:
    spark, client = glue_context.spark_session, glue_context.glue_client
    db = unique("sqlcat")
    base = f"s3://lake/{db}/orders"
    for year, rows in (("2025", [(1, 10.0), (2, 20.0)]), ("2026", [(3, 30.0)])):
        spark.createDataFrame(rows, "id bigint, amount double").write.parquet(
            str(glue_home / "s3" / "lake" / db / "orders" / f"y{year}"))
    # a folder under the table location that the catalog does not list: it must never be read
    spark.createDataFrame([(99, 0.0)], "id bigint, amount double").write.parquet(
        str(glue_home / "s3" / "lake" / db / "orders" / "stray"))
    client.create_database(DatabaseInput={"Name": db})
    client.create_table(DatabaseName=db, TableInput={
        "Name": "orders", "PartitionKeys": [{"Name": "year", "Type": "int"}],
        "Parameters": {"classification": "parquet"},
        "StorageDescriptor": {"Location": base, "Columns": [{"Name": "id", "Type": "bigint"},
                                                              {"Name": "amount", "Type": "double"}]}})
    client.batch_create_partition(DatabaseName=db, TableName="orders", PartitionInputList=[
        {"Values": [y], "StorageDescriptor": {"Location": f"{base}/y{y}"}} for y in ("2025", "2026")])

    report = glue_context.refresh_sql_catalog()
    assert f"{db}.orders" in report.tables
    assert report.partitions >= 2

    rows = spark.sql(f"SELECT year, sum(amount) AS total FROM {db}.orders GROUP BY year ORDER BY year").collect()
    assert [(r.year, r.total) for r in rows] == [(2025, 30.0), (2026, 30.0)]
    pruned = spark.sql(f"SELECT id FROM {db}.orders WHERE year = 2026")
    assert [r.id for r in pruned.collect()] == [3]
    files = pruned.inputFiles()
    assert files and all("/orders/y2026/" in f for f in files)
    assert not any("/stray/" in f for f in spark.table(f"{db}.orders").inputFiles())
    assert spark.table(f"{db}.orders").count() == 3


def test_formats_and_ddl_from_catalog_definitions() -> None:
    csv = {"Name": "c", "Parameters": {"classification": "csv", "skip.header.line.count": "1"},
           "StorageDescriptor": {"Location": "s3://b/c/", "Columns": [{"Name": "a b", "Type": "string"}],
                                 "SerdeInfo": {"Parameters": {"field.delim": "|"}}}}
    assert storage_format(csv) == ("csv", {"header": "true", "sep": "|"})
    ddl = table_ddl("d", csv)
    assert ddl is not None and ddl.startswith("CREATE TABLE `d`.`c` (`a b` string) USING csv OPTIONS")
    assert storage_format({"Parameters": {"classification": "avro"}}) is None
    assert table_ddl("d", {"Name": "x", "Parameters": {"classification": "parquet"}, "StorageDescriptor": {}}) is None
