"""Athena's catalog metadata over the Data Catalog (no engine): ListDataCatalogs, ListDatabases, GetDatabase,
ListTableMetadata (with Athena's name pattern), GetTableMetadata, and what is not there named as Athena names it."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.athena.helpers import client
from tests.helpers import ServerProcess, unique


@pytest.fixture(scope="module")
def tables(athena_server: ServerProcess) -> tuple[str, list[str]]:
    glue = client(athena_server, "glue")
    database = unique("meta")
    glue.create_database(DatabaseInput={"Name": database, "Description": "rates"})
    names = [f"rates_{kind}" for kind in ("daily", "monthly")] + ["orders"]
    for name in names:
        glue.create_table(DatabaseName=database, TableInput={
            "Name": name, "TableType": "EXTERNAL_TABLE", "Parameters": {"classification": "parquet"},
            "PartitionKeys": [{"Name": "day", "Type": "string"}],
            "StorageDescriptor": {"Location": f"s3://lake/{database}/{name}/",
                                  "Columns": [{"Name": "currency", "Type": "string", "Comment": "ISO 4217"},
                                              {"Name": "rate", "Type": "double"}],
                                  "SerdeInfo": {"SerializationLibrary": "org.apache.hadoop.hive.ql.io.parquet."
                                                                        "serde.ParquetHiveSerDe"}}})
    return database, names


def test_databases_and_tables_of_the_data_catalog(athena: Any, tables: tuple[str, list[str]]) -> None:
    database, names = tables
    assert "AwsDataCatalog" in [c["CatalogName"] for c in athena.list_data_catalogs()["DataCatalogsSummary"]]
    listed = athena.list_databases(CatalogName="AwsDataCatalog")["DatabaseList"]
    assert database in [d["Name"] for d in listed]
    assert athena.get_database(CatalogName="AwsDataCatalog", DatabaseName=database)["Database"]["Description"] == \
        "rates"
    found = athena.list_table_metadata(CatalogName="AwsDataCatalog", DatabaseName=database)["TableMetadataList"]
    assert [t["Name"] for t in found] == sorted(names)
    assert isinstance(found[0]["CreateTime"].year, int)  # a timestamp on the wire, parsed by botocore
    matched = athena.list_table_metadata(CatalogName="AwsDataCatalog", DatabaseName=database,
                                         Expression="rates_*")["TableMetadataList"]
    assert [t["Name"] for t in matched] == ["rates_daily", "rates_monthly"]
    paged = athena.list_table_metadata(CatalogName="AwsDataCatalog", DatabaseName=database, MaxResults=2)
    assert len(paged["TableMetadataList"]) == 2 and "NextToken" in paged
    rest = athena.list_table_metadata(CatalogName="AwsDataCatalog", DatabaseName=database,
                                      NextToken=paged["NextToken"])["TableMetadataList"]
    assert [t["Name"] for t in rest] == ["rates_monthly"]
    table = athena.get_table_metadata(CatalogName="AwsDataCatalog", DatabaseName=database,
                                      TableName="orders")["TableMetadata"]
    assert table["Columns"] == [{"Name": "currency", "Type": "string", "Comment": "ISO 4217"},
                                {"Name": "rate", "Type": "double"}]
    assert table["PartitionKeys"] == [{"Name": "day", "Type": "string"}]
    assert table["Parameters"]["location"] == f"s3://lake/{database}/orders/"


def test_what_is_not_in_the_catalog(athena: Any, tables: tuple[str, list[str]]) -> None:
    database, _ = tables
    with pytest.raises(ClientError) as table:
        athena.get_table_metadata(CatalogName="AwsDataCatalog", DatabaseName=database, TableName="nope")
    assert table.value.response["Error"]["Code"] == "MetadataException"
    # the Data Catalog's error as Athena passes it on (PyAthena's SQLAlchemy dialect reads the code from it)
    assert "(Service: AmazonDataCatalog; Status Code: 400; Error Code: EntityNotFoundException; Request ID: " \
        in table.value.response["Error"]["Message"]
    with pytest.raises(ClientError) as schema:
        athena.list_table_metadata(CatalogName="AwsDataCatalog", DatabaseName=unique("nodb"))
    assert schema.value.response["Error"]["Code"] == "MetadataException"
    with pytest.raises(ClientError) as catalog:
        athena.list_databases(CatalogName="NoSuchCatalog")
    assert catalog.value.response["Error"]["Code"] in ("MetadataException", "InvalidRequestException")
    assert "NoSuchCatalog" in catalog.value.response["Error"]["Message"]
