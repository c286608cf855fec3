"""How a process reaches ``s3://``: the folder of its installation, or an S3 API.

Three S3 APIs can stand behind ``s3://``:

- **a remote store of the installation** (``glueball server --object-store s3://KEY:SECRET@host:port``,
  ``GLUEBALL_OBJECT_STORE``): MinIO, Ceph, moto_server or AWS S3, with the store's own keys. The server
  and an embedded installation (``make demo``) reach it directly; the drivers a server launches reach it
  through that server's S3 API (below), so its signatures and ``s3:*`` policies apply;
- **a glueball server's own S3 API** (``GLUEBALL_S3_FILESYSTEM=s3a`` with ``GLUEBALL_ENDPOINT``): a run's
  driver and its executors, which share no disk with the server, with the run's credentials;
- **any endpoint named by** ``GLUEBALL_S3_ENDPOINT``, with the process's ``AWS_*`` credentials.

Otherwise ``s3://bucket/key`` is the file ``$GLUEBALL_HOME/s3/bucket/key``. :func:`process_s3_api` decides
it once from the environment, for the driver side (Spark's file system, the runtime's listings) and for
:mod:`glueball.objects.access`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

OBJECT_STORE_ENV = "GLUEBALL_OBJECT_STORE"
S3_ENDPOINT_ENV = "GLUEBALL_S3_ENDPOINT"
S3_FILESYSTEM_ENV = "GLUEBALL_S3_FILESYSTEM"
STORE_URL_FORM = "s3://[KEY:SECRET@]host[:port][?scheme=http&region=...]"


@dataclass(frozen=True)
class RemoteStore:
    """An S3 API: its endpoint, region and the keys used there (None: boto3's usual chain)."""

    endpoint: str
    region: str
    access_key: str | None
    secret_key: str | None
    session_token: str | None = None

    @classmethod
    def parse(cls, url: str) -> RemoteStore:
        """``s3://[KEY:SECRET@]host[:port][?scheme=http&region=...]``.

        Raises:
            ValueError: not such a URL (the message shows the form).
        """
        parts = urlsplit(url)
        if parts.scheme != "s3" or not parts.hostname:
            raise ValueError(f"--object-store takes {STORE_URL_FORM}, got {url!r}")
        options = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        scheme = options.get("scheme", "https")
        if scheme not in ("http", "https"):
            raise ValueError(f"--object-store: scheme must be http or https, got {scheme!r}")
        try:
            port = parts.port
        except ValueError as exc:
            raise ValueError(f"--object-store takes {STORE_URL_FORM}, got {url!r}: {exc}") from None
        host = parts.hostname + (f":{port}" if port else "")
        return cls(f"{scheme}://{host}", options.get("region", "us-east-1"),
                   unquote(parts.username) if parts.username else None,
                   unquote(parts.password) if parts.password else None)

    def client(self) -> Any:
        """A boto3 S3 client of this API (path-style: buckets are not host names here)."""
        import boto3
        import botocore.config

        return boto3.client("s3", endpoint_url=self.endpoint, region_name=self.region,
                            aws_access_key_id=self.access_key, aws_secret_access_key=self.secret_key,
                            aws_session_token=self.session_token,
                            config=botocore.config.Config(s3={"addressing_style": "path"},
                                                          retries={"max_attempts": 3}))


def _environment_credentials(endpoint: str) -> RemoteStore:
    region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1"
    return RemoteStore(endpoint.rstrip("/"), region, os.environ.get("AWS_ACCESS_KEY_ID") or None,
                       os.environ.get("AWS_SECRET_ACCESS_KEY") or None, os.environ.get("AWS_SESSION_TOKEN") or None)


def process_s3_api() -> RemoteStore | None:
    """The S3 API behind this process's ``s3://`` (see the module docstring), or None: the local folder.

    Raises:
        ValueError: ``GLUEBALL_OBJECT_STORE`` is not a store URL.
    """
    named = os.environ.get(S3_ENDPOINT_ENV)
    if named:
        return _environment_credentials(named)
    server = os.environ.get("GLUEBALL_ENDPOINT", "")
    if server.startswith(("http://", "https://")) and \
            os.environ.get(S3_FILESYSTEM_ENV, "").strip().lower() == "s3a":
        return _environment_credentials(server)
    store = os.environ.get(OBJECT_STORE_ENV)
    if store and not server:
        return RemoteStore.parse(store)
    return None


def through_s3_api() -> bool:
    """Whether this process reaches ``s3://`` through an S3 API rather than its installation's folder."""
    return process_s3_api() is not None
