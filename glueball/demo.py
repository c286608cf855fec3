"""`make demo`: the Data Catalog on the embedded default, through the in-process client.

It registers a partitioned sales table, loads a year of daily partitions,
indexes them and answers partition predicates, printing each step. It is the
same call surface a boto3 client sees against `glueball server`.
"""

from __future__ import annotations

import time
from typing import Any

from botocore.exceptions import ClientError

from glueball.api.client import GlueClient
from glueball.app import Glueball
from glueball.config import Settings

DATABASE = "demo_sales"
REGIONS = ("emea", "amer", "apac")


def _step(text: str) -> None:
    print(f"\n== {text}")


def _timed(call: Any) -> tuple[Any, float]:
    start = time.perf_counter()
    result = call()
    return result, (time.perf_counter() - start) * 1000


def main() -> None:
    settings = Settings()
    glue_service = Glueball(settings)
    glue = GlueClient(glue_service)
    print(f"glueball embedded catalog at {settings.home} (store {settings.database_url})")

    try:
        glue.delete_database(Name=DATABASE)
        print(f"removed the previous run's database {DATABASE}")
    except ClientError as err:
        if err.response["Error"]["Code"] != "EntityNotFoundException":
            raise

    _step("CreateDatabase + CreateTable")
    glue.create_database(DatabaseInput={"Name": DATABASE, "Description": "daily sales by region",
                                        "LocationUri": "s3://lake/sales/"})
    glue.create_table(DatabaseName=DATABASE, TableInput={
        "Name": "orders",
        "TableType": "EXTERNAL_TABLE",
        "Parameters": {"classification": "parquet"},
        "PartitionKeys": [{"Name": "day", "Type": "date"}, {"Name": "region", "Type": "string"}],
        "StorageDescriptor": {
            "Columns": [{"Name": "order_id", "Type": "bigint"}, {"Name": "amount", "Type": "decimal(10,2)"}],
            "Location": "s3://lake/sales/orders/",
        },
    })
    table = glue.get_table(DatabaseName=DATABASE, Name="orders")["Table"]
    print(f"table {DATABASE}.orders version {table['VersionId']}, partitioned by "
          + ", ".join(f"{k['Name']} {k['Type']}" for k in table["PartitionKeys"]))

    _step("BatchCreatePartition: 365 days x 3 regions")
    days = [time.strftime("%Y-%m-%d", time.gmtime(1767225600 + 86400 * i)) for i in range(365)]
    inputs = [{"Values": [day, region],
               "StorageDescriptor": {"Location": f"s3://lake/sales/orders/day={day}/region={region}/"}}
              for day in days for region in REGIONS]
    start = time.perf_counter()
    for i in range(0, len(inputs), 100):
        errors = glue.batch_create_partition(DatabaseName=DATABASE, TableName="orders",
                                             PartitionInputList=inputs[i:i + 100]).get("Errors")
        assert not errors, errors
    print(f"{len(inputs)} partitions in {time.perf_counter() - start:.2f} s")

    expression = "day BETWEEN '2026-03-01' AND '2026-03-07' AND region = 'emea'"
    _step(f"GetPartitions --expression \"{expression}\"")
    found, unindexed_ms = _timed(lambda: glue.get_partitions(
        DatabaseName=DATABASE, TableName="orders", Expression=expression)["Partitions"])
    print(f"{len(found)} partitions, first {found[0]['Values']}, last {found[-1]['Values']} "
          f"({unindexed_ms:.1f} ms, no index: filtered after loading all)")

    _step("CreatePartitionIndex (day, region), then the same predicate")
    glue.create_partition_index(DatabaseName=DATABASE, TableName="orders",
                                PartitionIndex={"IndexName": "by_day_region", "Keys": ["day", "region"]})
    again, indexed_ms = _timed(lambda: glue.get_partitions(
        DatabaseName=DATABASE, TableName="orders", Expression=expression)["Partitions"])
    assert [p["Values"] for p in again] == [p["Values"] for p in found]
    print(f"{len(again)} partitions ({indexed_ms:.1f} ms, answered by the store's index)")

    _step("UpdateTable with VersionId (compare-and-swap)")
    table_input = {k: v for k, v in table.items() if k in (
        "Name", "TableType", "Parameters", "PartitionKeys", "StorageDescriptor")}
    table_input["Description"] = "orders, one partition per day and region"
    glue.update_table(DatabaseName=DATABASE, TableInput=table_input, VersionId=table["VersionId"])
    try:
        glue.update_table(DatabaseName=DATABASE, TableInput=table_input, VersionId=table["VersionId"])
    except ClientError as err:
        print(f"second writer with the stale VersionId {table['VersionId']}: {err.response['Error']['Code']}")
    versions = glue.get_table_versions(DatabaseName=DATABASE, TableName="orders")["TableVersions"]
    print("table versions kept: " + ", ".join(v["VersionId"] for v in versions))

    glue_service.close()
    print(f"\nDone. Serve the same catalog to boto3 and the AWS CLI with: glueball server --home {settings.home}")


if __name__ == "__main__":
    main()
