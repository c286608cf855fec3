"""Lake Formation's batch grants, as dbt-glue sends them, are refused entry by entry: the catalog is IAM's."""

from __future__ import annotations

import boto3
import pytest
from botocore.exceptions import ClientError

from tests.helpers import ServerProcess

ROLE = "arn:aws:iam::123456789012:role/GlueInteractiveRole"


def _lakeformation(server: ServerProcess) -> object:
    return boto3.client("lakeformation", endpoint_url=server.endpoint, region_name="us-east-1",
                        aws_access_key_id="AKIDEXAMPLE", aws_secret_access_key="x")


def test_batch_grants_and_revokes_answer_each_entry_as_a_failure(server: ServerProcess) -> None:
    lakeformation = _lakeformation(server)
    entries = [{"Id": str(i), "Principal": {"DataLakePrincipalIdentifier": ROLE},
                "Resource": {"Database": {"Name": "shop"}} if i == 0 else
                {"Table": {"DatabaseName": "shop", "TableWildcard": {}, "CatalogId": "123456789012"}},
                "Permissions": ["ALTER", "DROP"], "PermissionsWithGrantOption": ["ALTER"]} for i in range(2)]
    granted = lakeformation.batch_grant_permissions(CatalogId="123456789012", Entries=entries)  # type: ignore[attr-defined]
    assert [f["RequestEntry"]["Id"] for f in granted["Failures"]] == ["0", "1"]
    assert {f["Error"]["ErrorCode"] for f in granted["Failures"]} == {"AccessDeniedException"}
    assert "IAM_ALLOWED_PRINCIPALS" in granted["Failures"][0]["Error"]["ErrorMessage"]
    revoked = lakeformation.batch_revoke_permissions(Entries=entries[:1])  # type: ignore[attr-defined]
    assert "nothing was revoked" in revoked["Failures"][0]["Error"]["ErrorMessage"]


def test_a_malformed_batch_is_refused_by_the_model(server: ServerProcess) -> None:
    lakeformation = boto3.client("lakeformation", endpoint_url=server.endpoint, region_name="us-east-1",
                                 aws_access_key_id="AKIDEXAMPLE", aws_secret_access_key="x",
                                 config=boto3.session.Config(parameter_validation=False))
    with pytest.raises(ClientError) as caught:
        lakeformation.batch_grant_permissions(Entries=[{"Permissions": ["ALTER"]}])
    assert caught.value.response["Error"]["Code"] in ("InvalidInputException", "ValidationException")
