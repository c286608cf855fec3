"""The clients of the runtime: Glue, and glueball's own operations, embedded or remote.

- no ``GLUEBALL_ENDPOINT``: the embedded installation of ``GLUEBALL_HOME``, in-process — real
  boto3 clients whose requests an in-process glueball answers. They are made by the factory
  ``GLUEBALL_EMBEDDED_FACTORY`` names (``glueball.app:default_embedded_client`` by default,
  called with the service name): the runtime names the composition root instead of importing
  it, so it depends on no server code;
- ``GLUEBALL_ENDPOINT=http://host:9400``: boto3 against a ``glueball server``;
- ``GLUEBALL_ENDPOINT=aws``: boto3 against AWS Glue with the usual AWS configuration (there are no
  glueball operations there: bookmarks and data quality results are AWS Glue's own business).

Glue and glueball's own ``Glueball.*`` operations (bookmarks, metrics, data quality publishing)
go through the same kind of client — boto3 with glueball's service model
(``glueball/api/data``) — and so share one transport: serialization, signing, retries, errors.
All answer with the same dicts and raise the same ``botocore`` ``ClientError``s.
"""

from __future__ import annotations

import importlib
import os
import threading
from typing import Any

import boto3

from glueball.api import INTERNAL_SERVICE, MODELS_PATH
from glueball.supervise import driverenv

EMBEDDED_FACTORY_ENV = "GLUEBALL_EMBEDDED_FACTORY"
DEFAULT_EMBEDDED_FACTORY = "glueball.app:default_embedded_client"
GLUE = "glue"

_lock = threading.Lock()
Acting = tuple[str, str, str | None, str]  # access key, secret, session token, region
_clients: dict[tuple[str, Acting | None], Any] = {}
_acting: Acting | None = None  # whom the clients act as now (None: the process's own credentials)


class NoGlueballService(Exception):
    """glueball's own operations were asked for where there is no glueball (``GLUEBALL_ENDPOINT=aws``)."""


def glue_client() -> Any:
    """The process's Glue client (created once)."""
    return _client(GLUE)


def internal_client() -> Any:
    """The process's client of glueball's own operations (created once).

    Raises:
        NoGlueballService: the runtime talks to AWS Glue itself.
    """
    if driverenv.current().on_aws:
        raise NoGlueballService("glueball's own operations are not served by AWS Glue")
    return _client(INTERNAL_SERVICE)


def service_client(service: str) -> Any:
    """The process's client of another service the installation serves (``databrew``, ``s3`` ...), made
    as the Glue client is: embedded, or against ``GLUEBALL_ENDPOINT`` with the run's credentials."""
    return _client(service)


def act_as(credentials: Acting | None) -> None:
    """Sign the process's clients against ``GLUEBALL_ENDPOINT`` with ``credentials`` (access key, secret, session
    token, region) from now on; None: the process's own again. An Athena engine runs each query as the caller that
    started it, so the Glue calls of Spark's metastore for that query are authorized as that caller's (clients are
    kept per credentials). glueball's own operations keep the process's credentials (the engine's own calls), and
    embedded clients (no endpoint) are the installation's default account's whatever is set."""
    global _acting
    with _lock:
        _acting = credentials


def reset_client() -> None:
    """Forget the process's clients, closing an embedded installation (tests switch homes and endpoints)."""
    with _lock:
        closers = {id(close): close for client in _clients.values()
                   if (close := getattr(client, "close_embedded", None)) is not None}
        _clients.clear()
    for close in closers.values():
        close()


def _client(service: str) -> Any:
    with _lock:
        key = (service, _acting if driverenv.current().endpoint and service != INTERNAL_SERVICE else None)
        found = _clients.get(key)
        if found is None:
            found = _clients[key] = _create(service, key[1])
        return found


def boto3_session() -> boto3.session.Session:
    """A boto3 session that also knows glueball's own service model."""
    session = boto3.session.Session()
    loader = session._session.get_component("data_loader")
    if str(MODELS_PATH) not in loader.search_paths:
        loader.search_paths.append(str(MODELS_PATH))
    return session


def _create(service: str, acting: Acting | None = None) -> Any:
    endpoint = driverenv.current().endpoint
    if endpoint:
        region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1"
        if endpoint == "aws":
            return boto3.client(service, region_name=region)
        key, secret, token, region = acting or (os.environ.get("AWS_ACCESS_KEY_ID", "glueball"),
                                                os.environ.get("AWS_SECRET_ACCESS_KEY", "glueball"),
                                                os.environ.get("AWS_SESSION_TOKEN"), region)
        return boto3_session().client(service, endpoint_url=endpoint, region_name=region, aws_access_key_id=key,
                                      aws_secret_access_key=secret, aws_session_token=token)
    module, _, function = os.environ.get(EMBEDDED_FACTORY_ENV, DEFAULT_EMBEDDED_FACTORY).partition(":")
    return getattr(importlib.import_module(module), function)(service)
