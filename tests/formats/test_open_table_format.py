"""``CreateTable`` with ``OpenTableFormatInput``: as AWS, a new Iceberg table whose first metadata file is written
at its location and which Iceberg's own catalogs (pyiceberg's GlueCatalog here) load, write and read."""

from __future__ import annotations

from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from tests.formats.test_iceberg_jobs import pyiceberg_catalog
from tests.helpers import ServerProcess, unique

SCHEMA = {"Fields": [{"Id": 1, "Name": "id", "Type": "long", "Required": True},
                     {"Id": 2, "Name": "city", "Type": "string", "Required": False}]}


def s3_client(server: ServerProcess) -> Any:
    return boto3.client("s3", endpoint_url=server.endpoint, region_name="us-east-1",
                        aws_access_key_id="AKIDEXAMPLE", aws_secret_access_key="secret")


def test_create_table_with_create_iceberg_table_input_makes_a_table_iceberg_clients_use(
        server: ServerProcess, glue: Any) -> None:
    import pyarrow as pa

    bucket = unique("otf").replace("_", "-")
    s3_client(server).create_bucket(Bucket=bucket)
    db = unique("otf")
    glue.create_database(DatabaseInput={"Name": db})
    glue.create_table(DatabaseName=db, Name="cities", OpenTableFormatInput={"IcebergInput": {
        "MetadataOperation": "CREATE", "Version": "2", "CreateIcebergTableInput": {
            "Location": f"s3://{bucket}/cities", "Schema": SCHEMA,
            "PartitionSpec": {"Fields": [{"SourceId": 2, "Transform": "identity", "Name": "city", "FieldId": 1000}]},
            "Properties": {"write.format.default": "parquet"}}}})

    table = glue.get_table(DatabaseName=db, Name="cities")["Table"]
    assert table["Parameters"]["table_type"] == "ICEBERG"
    metadata_location = table["Parameters"]["metadata_location"]
    assert metadata_location.startswith(f"s3://{bucket}/cities/metadata/00000-")
    assert [(c["Name"], c["Type"]) for c in table["StorageDescriptor"]["Columns"]] == [("id", "bigint"),
                                                                                        ("city", "string")]
    key = metadata_location.split("/", 3)[3]
    assert b'"format-version":2' in s3_client(server).get_object(Bucket=bucket, Key=key)["Body"].read()

    loaded = pyiceberg_catalog(server).load_table(f"{db}.cities")
    assert [f.name for f in loaded.spec().fields] == ["city"]
    assert loaded.properties["write.format.default"] == "parquet"
    loaded.append(pa.table({"id": pa.array([1, 2], pa.int64()), "city": ["Oslo", "Lima"]},
                           schema=loaded.schema().as_arrow()))
    assert sorted(pyiceberg_catalog(server).load_table(f"{db}.cities").scan().to_arrow().column("city").to_pylist()) \
        == ["Lima", "Oslo"]
    assert glue.get_table(DatabaseName=db, Name="cities")["Table"]["VersionId"] == "1"


def test_create_table_with_only_a_table_input_makes_an_iceberg_table_of_its_columns(
        server: ServerProcess, glue: Any) -> None:
    bucket = unique("otf").replace("_", "-")
    s3_client(server).create_bucket(Bucket=bucket)
    db = unique("otf")
    glue.create_database(DatabaseInput={"Name": db})
    glue.create_table(DatabaseName=db, OpenTableFormatInput={"IcebergInput": {"MetadataOperation": "CREATE"}},
                      TableInput={"Name": "sales", "StorageDescriptor": {
                          "Location": f"s3://{bucket}/sales",
                          "Columns": [{"Name": "amount", "Type": "decimal(10,2)"}]},
                          "PartitionKeys": [{"Name": "day", "Type": "date"}]})
    loaded = pyiceberg_catalog(server).load_table(f"{db}.sales")
    assert [(f.name, str(f.field_type)) for f in loaded.schema().fields] == [("amount", "decimal(10, 2)"),
                                                                             ("day", "date")]
    assert [f.name for f in loaded.spec().fields] == ["day"]


@pytest.mark.parametrize(("iceberg", "table_input", "message"), [
    ({"MetadataOperation": "CREATE", "Version": "9"}, {"Name": "t", "StorageDescriptor": {"Location": "s3://b/t"}},
     "IcebergInput.Version '9'"),
    ({"MetadataOperation": "CREATE"}, {"Name": "t"}, "needs TableInput.StorageDescriptor.Location"),
    ({"MetadataOperation": "CREATE"}, {"Name": "t", "StorageDescriptor": {
        "Location": "s3://b/t", "Columns": [{"Name": "tags", "Type": "uniontype<int,string>"}]}},
     "Column 'tags' has type 'uniontype<int,string>'"),
    ({"MetadataOperation": "CREATE", "CreateIcebergTableInput": {"Location": "s3://b/t", "Schema": {"Fields": [
        {"Id": 1, "Name": "x", "Type": "no-such-type", "Required": True}]}}}, {"Name": "t"},
     "CreateIcebergTableInput is not a valid Iceberg table"),
    ({"MetadataOperation": "CREATE", "CreateIcebergTableInput": {"Location": "s3://no-such-bucket-here/t",
                                                                  "Schema": SCHEMA}}, {"Name": "t"},
     "Cannot write the table's metadata to s3://no-such-bucket-here/t/metadata/00000-"),
])
def test_create_table_refuses_an_iceberg_table_it_cannot_make(glue: Any, iceberg: dict[str, Any],
                                                              table_input: dict[str, Any], message: str) -> None:
    db = unique("otf")
    glue.create_database(DatabaseInput={"Name": db})
    with pytest.raises(ClientError) as err:
        glue.create_table(DatabaseName=db, OpenTableFormatInput={"IcebergInput": iceberg}, TableInput=table_input)
    assert err.value.response["Error"]["Code"] == "InvalidInputException"
    assert message in err.value.response["Error"]["Message"]
    assert glue.get_tables(DatabaseName=db)["TableList"] == []
