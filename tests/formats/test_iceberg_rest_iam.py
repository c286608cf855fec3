"""The Iceberg REST endpoint under ``--auth iam``: requests are SigV4-signed as Iceberg's clients sign them
(``rest.sigv4-enabled``, signing name ``glue``), and each is decided by the caller's policies on Glue's actions,
because the endpoint reads and commits the catalog through the Glue API as the caller."""

from __future__ import annotations

import configparser
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pyarrow as pa
import pytest
import urllib3

from tests.helpers import ServerProcess, unique

ACCOUNT = "123456789012"


@pytest.fixture(scope="module")
def iam_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, tuple[str, str]]]:
    home = tmp_path_factory.mktemp("iceberg-rest-iam")
    server = ServerProcess(home, extra_args=("--auth", "iam")).start()
    profile = configparser.ConfigParser()
    profile.read(Path(home) / "credentials")
    yield server, (profile["glueball"]["aws_access_key_id"], profile["glueball"]["aws_secret_access_key"])
    server.stop()


def _client(server: ServerProcess, service: str, keys: tuple[str, str]) -> Any:
    return boto3.client(service, endpoint_url=server.endpoint, region_name="us-east-1", aws_access_key_id=keys[0],
                        aws_secret_access_key=keys[1])


def _rest(server: ServerProcess, keys: tuple[str, str]) -> Any:
    from pyiceberg.catalog import load_catalog

    return load_catalog(unique("sigv4"), **{
        "type": "rest", "uri": f"{server.endpoint}/iceberg",
        "rest.sigv4-enabled": "true", "rest.signing-name": "glue", "rest.signing-region": "us-east-1",
        "client.access-key-id": keys[0], "client.secret-access-key": keys[1], "client.region": "us-east-1",
        "s3.access-key-id": keys[0], "s3.secret-access-key": keys[1], "s3.region": "us-east-1",
        "py-io-impl": "pyiceberg.io.pyarrow.PyArrowFileIO"})


def _user(server: ServerProcess, admin: tuple[str, str], policy: dict[str, Any]) -> tuple[str, str]:
    iam = _client(server, "iam", admin)
    name = unique("rest-user")
    iam.create_user(UserName=name)
    iam.put_user_policy(UserName=name, PolicyName="rest", PolicyDocument=json.dumps(policy))
    key = iam.create_access_key(UserName=name)["AccessKey"]
    return key["AccessKeyId"], key["SecretAccessKey"]


def test_signed_requests_are_decided_by_the_caller_s_glue_policies(
        iam_server: tuple[ServerProcess, tuple[str, str]]) -> None:
    from pyiceberg.exceptions import ForbiddenError

    server, admin = iam_server
    bucket = unique("restiam").replace("_", "-")
    _client(server, "s3", admin).create_bucket(Bucket=bucket)
    namespace = unique("open")
    _rest(server, admin).create_namespace(namespace, {"location": f"s3://{bucket}/{namespace}"})
    keys = _user(server, admin, {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": ["glue:GetDatabase", "glue:GetDatabases", "glue:GetTable", "glue:GetTables"],
         "Resource": "*"},
        {"Effect": "Allow", "Action": ["glue:CreateTable", "glue:UpdateTable"],
         "Resource": [f"arn:aws:glue:*:{ACCOUNT}:catalog", f"arn:aws:glue:*:{ACCOUNT}:database/{namespace}",
                      f"arn:aws:glue:*:{ACCOUNT}:table/{namespace}/*"]},
        {"Effect": "Deny", "Action": "glue:UpdateTable",
         "Resource": f"arn:aws:glue:*:{ACCOUNT}:table/{namespace}/frozen"},
        {"Effect": "Allow", "Action": "s3:*", "Resource": [f"arn:aws:s3:::{bucket}", f"arn:aws:s3:::{bucket}/*"]}]})
    catalog = _rest(server, keys)
    assert (namespace,) in catalog.list_namespaces()
    schema = pa.schema([pa.field("id", pa.int64())])
    table = catalog.create_table(f"{namespace}.events", schema=schema)
    table.append(pa.table({"id": pa.array([1, 2, 3], pa.int64())}))
    assert catalog.load_table(f"{namespace}.events").scan().to_arrow().num_rows == 3
    glue_table = _client(server, "glue", admin).get_table(DatabaseName=namespace, Name="events")["Table"]
    assert glue_table["Parameters"]["table_type"] == "ICEBERG"

    frozen = catalog.create_table(f"{namespace}.frozen", schema=schema)
    with pytest.raises(ForbiddenError, match="glue:UpdateTable"):
        frozen.append(pa.table({"id": pa.array([1], pa.int64())}))   # deny wins over the allow on table/*
    with pytest.raises(ForbiddenError, match="glue:CreateDatabase"):
        catalog.create_namespace(unique("notmine"))
    assert catalog.load_table(f"{namespace}.frozen").current_snapshot() is None


def test_unsigned_or_badly_signed_requests_are_refused_with_the_spec_s_errors(
        iam_server: tuple[ServerProcess, tuple[str, str]]) -> None:
    from pyiceberg.exceptions import RESTError

    server, admin = iam_server
    answer = urllib3.request("GET", f"{server.endpoint}/iceberg/v1/namespaces")
    assert answer.status == 401
    assert json.loads(answer.data)["error"]["type"] == "NotAuthorizedException"
    with pytest.raises(RESTError) as refused:
        _rest(server, (admin[0], "not-the-secret")).list_namespaces()
    assert "NotAuthorizedException" in str(refused.value)
