"""Builders for the CloudWatch Logs and metrics tests."""

from __future__ import annotations

import json
import time
from typing import Any

import boto3
import botocore.config
import pytest
import urllib3
from botocore.exceptions import ClientError

from tests.helpers import ServerProcess

CONFIG = botocore.config.Config(retries={"max_attempts": 1})


def client(server: ServerProcess, service: str, key: str = "AKIDLOGS", secret: str = "secret",
           region: str = "us-east-1") -> Any:
    return boto3.client(service, endpoint_url=server.endpoint, region_name=region, aws_access_key_id=key,
                        aws_secret_access_key=secret, config=CONFIG)


def now_ms() -> int:
    return int(time.time() * 1000)


def refused(call: Any, *args: Any, **kwargs: Any) -> tuple[str, str]:
    """The (code, message) a call fails with."""
    with pytest.raises(ClientError) as caught:
        call(*args, **kwargs)
    return caught.value.response["Error"]["Code"], caught.value.response["Error"]["Message"]


def raw_logs(server: ServerProcess, operation: str, body: Any) -> tuple[int, dict[str, Any]]:
    """A CloudWatch Logs request as sent by hand (no client-side validation)."""
    response = urllib3.PoolManager().request(
        "POST", server.endpoint + "/", body=json.dumps(body).encode(),
        headers={"X-Amz-Target": f"Logs_20140328.{operation}", "Content-Type": "application/x-amz-json-1.1"})
    return response.status, json.loads(response.data or b"{}")


def messages(logs: Any, group: str, stream: str) -> list[str]:
    """Every message of a stream, oldest first, read page by page forward until the token repeats."""
    found: list[str] = []
    token = None
    while True:
        kwargs: dict[str, Any] = {"nextToken": token} if token else {"startFromHead": True}
        page = logs.get_log_events(logGroupName=group, logStreamName=stream, limit=1000, **kwargs)
        found += [event["message"] for event in page["events"]]
        if page["nextForwardToken"] == token:
            return found
        token = page["nextForwardToken"]


def streams(logs: Any, group: str, prefix: str) -> list[str]:
    """The names of a group's streams with ``prefix`` (none while the group does not exist yet)."""
    try:
        found = logs.describe_log_streams(logGroupName=group, logStreamNamePrefix=prefix)["logStreams"]
    except logs.exceptions.ResourceNotFoundException:
        return []
    return [stream["logStreamName"] for stream in found]
