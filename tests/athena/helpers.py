"""Builders shared by the Athena tests: clients of a server and a query run to its end."""

from __future__ import annotations

import time
from typing import Any

import boto3
import botocore.config

from tests.helpers import ServerProcess

RESULTS = "s3://athena-results/q/"
ENDED = ("SUCCEEDED", "FAILED", "CANCELLED")


def client(server: ServerProcess, service: str = "athena", access_key: str = "AKIDATHENA") -> Any:
    return boto3.client(service, endpoint_url=server.endpoint, region_name="us-east-1",
                        aws_access_key_id=access_key, aws_secret_access_key="secret",
                        config=botocore.config.Config(retries={"max_attempts": 1}))


def wait_query(athena: Any, query_id: str, timeout: float = 300.0, interval: float = 0.1) -> dict[str, Any]:
    """The query execution once it has ended (the first query waits for an engine's JVM to start), asked every
    ``interval`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        execution: dict[str, Any] = athena.get_query_execution(QueryExecutionId=query_id)["QueryExecution"]
        if execution["Status"]["State"] in ENDED:
            return execution
        if time.monotonic() > deadline:
            raise AssertionError(f"query {query_id} still {execution['Status']['State']} after {timeout} s")
        time.sleep(interval)


def run(athena: Any, sql: str, **request: Any) -> dict[str, Any]:
    """Start ``sql`` (results under :data:`RESULTS` unless the request says otherwise) and wait for its end."""
    request.setdefault("ResultConfiguration", {"OutputLocation": RESULTS})
    query_id = athena.start_query_execution(QueryString=sql, **request)["QueryExecutionId"]
    return wait_query(athena, query_id)


def succeeded(athena: Any, sql: str, **request: Any) -> dict[str, Any]:
    execution = run(athena, sql, **request)
    assert execution["Status"]["State"] == "SUCCEEDED", execution["Status"]
    return execution


def rows(athena: Any, query_id: str, **request: Any) -> list[list[str | None]]:
    """Every row GetQueryResults gives (all pages), values as strings, NULL as None."""
    found: list[list[str | None]] = []
    for page in athena.get_paginator("get_query_results").paginate(QueryExecutionId=query_id, **request):
        found += [[value.get("VarCharValue") for value in row["Data"]] for row in page["ResultSet"]["Rows"]]
    return found


def select(athena: Any, sql: str, **request: Any) -> list[list[str | None]]:
    return rows(athena, succeeded(athena, sql, **request)["QueryExecutionId"])


def failure(athena: Any, sql: str, **request: Any) -> dict[str, Any]:
    """The status of ``sql`` run to its end, which must be FAILED (its reason the AthenaError's message)."""
    execution = run(athena, sql, **request)
    assert execution["Status"]["State"] == "FAILED", execution["Status"]
    status: dict[str, Any] = execution["Status"]
    assert status["StateChangeReason"] == status["AthenaError"]["ErrorMessage"]
    return status
