"""Athena's resources without an engine: workgroups (configuration, tags, the primary workgroup), named queries,
prepared statements and data catalogs, and their errors with Athena's codes."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.helpers import unique


def code_of(call: Any, **request: Any) -> tuple[str, str]:
    with pytest.raises(ClientError) as caught:
        call(**request)
    return caught.value.response["Error"]["Code"], caught.value.response["Error"]["Message"]


def test_workgroups(athena: Any) -> None:
    name = unique("wg")
    athena.create_work_group(Name=name, Description="nightly", Configuration={
        "ResultConfiguration": {"OutputLocation": "s3://athena-results/nightly/"},
        "EnforceWorkGroupConfiguration": True, "BytesScannedCutoffPerQuery": 20_000_000},
        Tags=[{"Key": "team", "Value": "risk"}])
    group = athena.get_work_group(WorkGroup=name)["WorkGroup"]
    assert group["State"] == "ENABLED" and group["Description"] == "nightly"
    assert group["Configuration"]["BytesScannedCutoffPerQuery"] == 20_000_000
    assert group["Configuration"]["ResultConfiguration"]["OutputLocation"] == "s3://athena-results/nightly/"
    listed = [g["Name"] for g in athena.list_work_groups()["WorkGroups"]]
    assert "primary" in listed and name in listed
    # the primary workgroup enforces nothing, as Athena makes it (the console's "Override client-side settings"
    # is not selected by default): a client's result location applies
    assert athena.get_work_group(WorkGroup="primary")["WorkGroup"]["Configuration"][
        "EnforceWorkGroupConfiguration"] is False
    arn = f"arn:aws:athena:us-east-1:{_account(athena)}:workgroup/{name}"
    assert athena.list_tags_for_resource(ResourceARN=arn)["Tags"] == [{"Key": "team", "Value": "risk"}]
    assert code_of(athena.create_work_group, Name=name)[0] == "InvalidRequestException"
    missing = code_of(athena.get_work_group, WorkGroup=unique("nope"))
    assert missing[0] == "InvalidRequestException"
    athena.delete_work_group(WorkGroup=name)
    assert code_of(athena.get_work_group, WorkGroup=name)[0] == "InvalidRequestException"


def _account(athena: Any) -> str:
    import boto3

    sts = boto3.client("sts", endpoint_url=athena.meta.endpoint_url, region_name="us-east-1",
                       aws_access_key_id="AKIDATHENA", aws_secret_access_key="secret")
    return str(sts.get_caller_identity()["Account"])


def test_named_queries_and_prepared_statements(athena: Any) -> None:
    named = athena.create_named_query(Name="top rates", Database="default", QueryString="SELECT 1",
                                      Description="d")["NamedQueryId"]
    found = athena.get_named_query(NamedQueryId=named)["NamedQuery"]
    assert (found["Name"], found["QueryString"], found["WorkGroup"]) == ("top rates", "SELECT 1", "primary")
    assert named in athena.list_named_queries()["NamedQueryIds"]
    batch = athena.batch_get_named_query(NamedQueryIds=[named, "00000000-0000-0000-0000-00000000000f"])
    assert [q["NamedQueryId"] for q in batch["NamedQueries"]] == [named]
    assert batch["UnprocessedNamedQueryIds"][0]["NamedQueryId"] == "00000000-0000-0000-0000-00000000000f"
    athena.delete_named_query(NamedQueryId=named)
    assert code_of(athena.get_named_query, NamedQueryId=named)[0] == "InvalidRequestException"

    statement = unique("stmt")
    athena.create_prepared_statement(StatementName=statement, WorkGroup="primary", QueryStatement="SELECT ?")
    assert athena.get_prepared_statement(StatementName=statement, WorkGroup="primary")["PreparedStatement"][
        "QueryStatement"] == "SELECT ?"
    assert code_of(athena.create_prepared_statement, StatementName=statement, WorkGroup="primary",
                   QueryStatement="SELECT 2")[0] == "InvalidRequestException"
    athena.delete_prepared_statement(StatementName=statement, WorkGroup="primary")
    assert code_of(athena.get_prepared_statement, StatementName=statement, WorkGroup="primary")[0] == \
        "ResourceNotFoundException"


def test_data_catalogs(athena: Any) -> None:
    built_in = athena.get_data_catalog(Name="AwsDataCatalog")["DataCatalog"]
    assert built_in["Type"] == "GLUE"
    name = unique("glue_cat")
    athena.create_data_catalog(Name=name, Type="GLUE", Parameters={"catalog-id": "123456789012"})
    assert name in [c["CatalogName"] for c in athena.list_data_catalogs()["DataCatalogsSummary"]]
    refused = code_of(athena.create_data_catalog, Name=unique("lambda"), Type="LAMBDA",
                      Parameters={"function": "arn:aws:lambda:us-east-1:123456789012:function:f"})
    assert refused[0] == "InvalidRequestException"
    athena.delete_data_catalog(Name=name)
    assert code_of(athena.get_data_catalog, Name=name)[0] in ("InvalidRequestException", "MetadataException")
    assert code_of(athena.delete_data_catalog, Name="AwsDataCatalog")[0] == "InvalidRequestException"
