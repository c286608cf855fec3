"""The Glue client of the runtime: embedded catalog, a glueball server, or AWS Glue itself.

- no ``GLUEBALL_ENDPOINT``: the embedded catalog of ``GLUEBALL_HOME``, in-process;
- ``GLUEBALL_ENDPOINT=http://host:9400``: boto3 against a ``glueball server``;
- ``GLUEBALL_ENDPOINT=aws``: boto3 against AWS Glue with the usual AWS configuration.

All three answer with the same dicts and raise the same ``botocore`` ``ClientError``s.
"""

from __future__ import annotations

import os
import threading
from typing import Any

_lock = threading.Lock()
_client: Any = None


def glue_client() -> Any:
    """The process's Glue client (created once)."""
    global _client
    with _lock:
        if _client is None:
            _client = _create()
        return _client


def reset_client() -> None:
    """Forget the process's client (tests switch homes and endpoints)."""
    global _client
    with _lock:
        if _client is not None and hasattr(_client, "glue"):
            _client.glue.close()
        _client = None


def _create() -> Any:
    endpoint = os.environ.get("GLUEBALL_ENDPOINT", "")
    if endpoint:
        import boto3

        region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1"
        if endpoint == "aws":
            return boto3.client("glue", region_name=region)
        return boto3.client(
            "glue", endpoint_url=endpoint, region_name=region,
            aws_access_key_id=os.environ.get("AWS_ACCESS_KEY_ID", "glueball"),
            aws_secret_access_key=os.environ.get("AWS_SECRET_ACCESS_KEY", "glueball"),
        )
    from glueball.api.client import GlueClient
    from glueball.app import Glueball

    return GlueClient(Glueball())
