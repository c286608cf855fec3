"""A script's own boto3 clients reach glueball: ``boto3.client("s3")`` works in a Glue script unchanged.

Glue scripts call boto3 themselves (``boto3.client("s3").put_object(...)``, ``boto3.client("glue")
.get_table(...)``). Under glueball they must reach glueball, not AWS:

- with a server (``GLUEBALL_ENDPOINT=http://host:9400``: job runs the server launches, ``glueball
  run`` pointed at one), the SDKs' service endpoints are set — ``AWS_ENDPOINT_URL_S3``,
  ``AWS_ENDPOINT_URL_GLUE``, ``AWS_ENDPOINT_URL_STS``, ``AWS_ENDPOINT_URL_IAM``,
  ``AWS_ENDPOINT_URL_CLOUDWATCH_LOGS``, ``AWS_ENDPOINT_URL_CLOUDWATCH`` — unless the
  environment already sets them, which every AWS SDK and the AWS CLI honour;
- embedded (no endpoint: ``glueball run`` on a laptop), boto3's default session answers the
  services glueball serves in-process, through the embedded installation of ``GLUEBALL_HOME``
  (the same edge a server runs), with placeholder credentials when none are configured;
- against AWS itself (``GLUEBALL_ENDPOINT=aws``) nothing changes.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from typing import Any

from glueball.supervise import driverenv

# botocore's service ids, hyphenated as its events name them (CloudWatch Logs is "cloudwatch-logs")
SERVED = ("s3", "glue", "sts", "iam", "cloudwatch-logs", "cloudwatch")
HANDLE_FACTORY_ENV = "GLUEBALL_EMBEDDED_HANDLE"
DEFAULT_HANDLE_FACTORY = "glueball.app:default_embedded_handle"


def endpoint_variables(endpoint: str) -> dict[str, str]:
    """The SDK environment that points every service glueball serves at ``endpoint``."""
    return {f"AWS_ENDPOINT_URL_{service.upper().replace('-', '_')}": endpoint for service in SERVED}


def expose(environ: dict[str, str] | None = None) -> None:
    """Make the boto3 clients this process's script creates reach glueball (see the module's doc)."""
    env = os.environ if environ is None else environ
    endpoint = driverenv.current().endpoint
    if endpoint == driverenv.AWS_ENDPOINT:
        return
    if endpoint:
        for name, value in endpoint_variables(endpoint).items():
            env.setdefault(name, value)
        return
    env.setdefault("AWS_DEFAULT_REGION", env.get("AWS_REGION", "us-east-1"))
    if not env.get("AWS_ACCESS_KEY_ID") and not env.get("AWS_PROFILE"):
        env["AWS_ACCESS_KEY_ID"], env["AWS_SECRET_ACCESS_KEY"] = "glueball", "glueball"
    answer_default_session_in_process()


def answer_default_session_in_process(handle: Callable[..., Any] | None = None) -> None:
    """Clients made from boto3's default session (``boto3.client(...)``) from now on send their requests for
    the served services to the embedded installation instead of the network."""
    import boto3

    from glueball.edge.inprocess import in_process_sender

    if handle is None:
        module, _, function = os.environ.get(HANDLE_FACTORY_ENV, DEFAULT_HANDLE_FACTORY).partition(":")
        handle = getattr(importlib.import_module(module), function)()
    if boto3.DEFAULT_SESSION is None:
        boto3.setup_default_session()
    session = boto3.DEFAULT_SESSION
    assert session is not None
    send = in_process_sender(handle)
    for service in SERVED:
        session.events.register(f"before-send.{service}", send, unique_id=f"glueball-in-process-{service}")
