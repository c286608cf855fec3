"""Object-store paths: ``s3://bucket/key`` is ``$GLUEBALL_HOME/s3/bucket/key``.

Spark then reads and writes it as local files, natively and at full speed.
With ``GLUEBALL_S3_ENDPOINT`` set, ``s3://`` paths are handed to Spark as
``s3a://`` instead, for a real S3-compatible store (docs/runtime.md describes the
hadoop-aws setup that needs).
"""

from __future__ import annotations

import os
from pathlib import Path

from glueball.config import default_home

S3_SCHEMES = ("s3://", "s3a://", "s3n://")


def object_store_root() -> Path:
    return default_home() / "s3"


def is_s3(uri: str) -> bool:
    return uri.startswith(S3_SCHEMES)


def to_spark_path(uri: str) -> str:
    """The path Spark should read or write for ``uri`` (s3://, file:// or a local path)."""
    if is_s3(uri):
        if os.environ.get("GLUEBALL_S3_ENDPOINT"):
            return "s3a://" + uri.split("://", 1)[1]
        return str(local_path(uri))
    if uri.startswith("file://"):
        return uri[len("file://"):]
    return uri


def local_path(uri: str) -> Path:
    """The local file of an s3:// or file:// URI (or a plain path)."""
    if is_s3(uri):
        return object_store_root() / uri.split("://", 1)[1]
    if uri.startswith("file://"):
        return Path(uri[len("file://"):])
    return Path(uri)


def to_uri(path: str | Path) -> str:
    """The s3:// URI of a local path inside the object store, else the path itself."""
    resolved = Path(path).resolve()
    root = object_store_root().resolve()
    if resolved == root or root in resolved.parents:
        return "s3://" + str(resolved.relative_to(root))
    return str(path)
