"""Athena under ``--auth iam``. A query of an Iceberg table acts as its caller: Iceberg's own Glue and S3 clients in
the engine sign each query's requests with the caller's credentials, so a caller whose policies allow reading but
not ``glue:UpdateTable`` reads the table and cannot commit to it, while the next caller's commit on the same engine
goes through (the identity is the query's, not the engine's or the previous query's). An earlier query's result is
reused only for a caller who may read its tables."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.athena.helpers import RESULTS, rows, run
from tests.helpers import ServerProcess, keyed_client
from tests.helpers import iam_server as started_iam_server

pytest.importorskip("pyspark")
ACCOUNT = "123456789012"


@pytest.fixture(scope="module")
def iam_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, tuple[str, str]]]:
    with started_iam_server(tmp_path_factory.mktemp("athena-iceberg-iam")) as started:
        yield started


def _ended(athena: Any, sql: str, **request: Any) -> dict[str, Any]:
    return run(athena, sql, QueryExecutionContext={"Database": "sales"},
               ResultConfiguration={"OutputLocation": RESULTS}, **request)


@pytest.fixture(scope="module")
def sales(iam_server: tuple[ServerProcess, tuple[str, str]]) -> None:
    server, root = iam_server
    keyed_client(server, "s3", root).create_bucket(Bucket="athena-results")
    keyed_client(server, "s3", root).create_bucket(Bucket="lake")
    keyed_client(server, "glue", root).create_database(DatabaseInput={"Name": "sales"})


def _user(server: ServerProcess, root: tuple[str, str], name: str, statements: list[dict[str, Any]]) -> Any:
    iam = keyed_client(server, "iam", root)
    iam.create_user(UserName=name)
    iam.put_user_policy(UserName=name, PolicyName="own", PolicyDocument=json.dumps({
        "Version": "2012-10-17", "Statement": statements}))
    key = iam.create_access_key(UserName=name)["AccessKey"]
    return keyed_client(server, "athena", (key["AccessKeyId"], key["SecretAccessKey"]))


def test_an_iceberg_commit_is_authorized_as_the_querys_caller(
        iam_server: tuple[ServerProcess, tuple[str, str]], sales: None) -> None:
    server, root = iam_server
    reader = _user(server, root, "reader", [
        {"Effect": "Allow", "Action": ["athena:*", "s3:*", "glue:Get*", "glue:BatchGet*"], "Resource": "*"},
        {"Effect": "Deny", "Action": ["glue:UpdateTable", "glue:CreateTable"], "Resource": "*"}])
    owner = keyed_client(server, "athena", root)

    created = _ended(owner, "CREATE TABLE orders (id bigint, amount double) LOCATION 's3://lake/iceberg/orders/' "
                            "TBLPROPERTIES ('table_type'='ICEBERG')")
    assert created["Status"]["State"] == "SUCCEEDED", created["Status"]
    assert _ended(owner, "INSERT INTO orders VALUES (1, 10.0)")["Status"]["State"] == "SUCCEEDED"

    read = _ended(reader, "SELECT id, amount FROM orders")
    assert read["Status"]["State"] == "SUCCEEDED", read["Status"]
    assert rows(reader, read["QueryExecutionId"])[1:] == [["1", "10.0"]]
    denied = _ended(reader, "INSERT INTO orders VALUES (2, 20.0)")
    assert denied["Status"]["State"] == "FAILED"
    reason = denied["Status"]["StateChangeReason"]  # Iceberg's commit, refused by the reader's glue:UpdateTable deny
    assert reason.startswith("Insufficient permissions") and "Glue cannot access" in reason, reason
    again = _ended(owner, "INSERT INTO orders VALUES (3, 30.0)")  # the same engine, as its own caller again
    assert again["Status"]["State"] == "SUCCEEDED", again["Status"]
    final = _ended(reader, "SELECT id FROM orders ORDER BY id")
    assert rows(reader, final["QueryExecutionId"])[1:] == [["1"], ["3"]]


def test_a_result_is_reused_only_for_a_caller_who_may_read_its_tables(
        iam_server: tuple[ServerProcess, tuple[str, str]], sales: None) -> None:
    server, root = iam_server
    outsider = _user(server, root, "outsider", [
        {"Effect": "Allow", "Action": ["athena:*", "s3:*", "glue:Get*"], "Resource": "*"},
        {"Effect": "Deny", "Action": ["glue:GetTable", "glue:GetTables"],
         "Resource": f"arn:aws:glue:*:{ACCOUNT}:table/sales/secrets"}])
    owner = keyed_client(server, "athena", root)
    made = _ended(owner, "CREATE TABLE secrets WITH (format = 'PARQUET', external_location = "
                         "'s3://lake/secrets/') AS SELECT 'hidden' AS word")
    assert made["Status"]["State"] == "SUCCEEDED", made["Status"]
    reuse = {"ResultReuseConfiguration": {"ResultReuseByAgeConfiguration": {"Enabled": True}}}
    first = _ended(owner, "SELECT word FROM secrets", **reuse)
    assert first["Status"]["State"] == "SUCCEEDED", first["Status"]
    assert _ended(owner, "SELECT word FROM secrets", **reuse)["Statistics"]["ResultReuseInformation"] == {
        "ReusedPreviousResult": True}
    refused = _ended(outsider, "SELECT word FROM secrets", **reuse)  # not reused: run, and refused as the outsider
    assert refused["Status"]["State"] == "FAILED", refused["Status"]
    assert refused["Statistics"]["ResultReuseInformation"] == {"ReusedPreviousResult": False}
