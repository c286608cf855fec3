"""Object-store locations: ``s3://bucket/key`` is ``$GLUEBALL_HOME/s3/bucket/key``, and back.

The one place that maps ``s3://`` (and ``s3a://``, ``s3n://``) to files: the runtime's readers and
writers, crawler targets, job script locations and data quality result files all go through it,
so Spark reads and writes the object store natively at full speed. When the process reaches ``s3://``
through an S3 API (:mod:`glueball.objects.reach`: a remote store, or its server's S3 API for executors
that share no disk with it), Spark is handed ``s3a://`` paths instead. Reading and writing objects
from Python goes through :mod:`glueball.objects.access`.

A location whose bucket or key would leave the store is refused (:class:`LocationError`):
bucket names are one path segment (no ``/``, ``\\``, NUL, ``.`` or ``..``), and keys have no
``.`` or ``..`` segment and no NUL — S3 itself allows such keys, but as files they would climb
out of ``$GLUEBALL_HOME/s3`` (``s3://../../etc/``). Empty segments (``a//b``) collapse as they
do on a file system.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from glueball.config import default_home
from glueball.objects.reach import through_s3_api

S3_SCHEMES = ("s3://", "s3a://", "s3n://")
_FORBIDDEN = ("\x00", "\\")


class LocationError(ValueError):
    """A location glueball refuses: not an object-store URI, or one that would escape the store."""


@dataclass(frozen=True)
class S3Location:
    """A normalised object-store location: ``key`` has no leading or repeated ``/``."""

    bucket: str
    key: str
    folder: bool = False  # the URI ended in "/": a prefix, not one object

    @property
    def uri(self) -> str:
        suffix = "/" if self.folder and self.key else ""
        return f"s3://{self.bucket}/{self.key}{suffix}" if self.key else f"s3://{self.bucket}/"

    def local(self, root: Path | None = None) -> Path:
        """The file (or folder) of this location under ``root`` (the object store by default)."""
        base = (root or object_store_root()) / self.bucket
        return base / self.key if self.key else base


def object_store_root(home: Path | None = None) -> Path:
    """The folder behind ``s3://``: ``<home>/s3`` (``$GLUEBALL_HOME/s3`` by default)."""
    return (home or default_home()) / "s3"


def is_s3(uri: str) -> bool:
    return uri.startswith(S3_SCHEMES)


def parse_s3(uri: str) -> S3Location:
    """``s3://bucket/a//b/`` → ``S3Location("bucket", "a/b", folder=True)``.

    Raises:
        LocationError: not an s3 URI, no bucket, or a bucket or key that would escape the store.
    """
    if not is_s3(uri):
        raise LocationError(f"{uri!r} is not an s3:// URI")
    rest = uri.split("://", 1)[1]
    bucket, _, key = rest.partition("/")
    if not bucket:
        raise LocationError(f"{uri!r} names no bucket")
    if bucket in (".", "..") or any(c in bucket for c in _FORBIDDEN):
        raise LocationError(f"{uri!r}: {bucket!r} is not a bucket name")
    if any(c in key for c in _FORBIDDEN):
        raise LocationError(f"{uri!r}: the key has a character glueball cannot store (NUL or backslash)")
    segments = [s for s in key.split("/") if s]
    if any(s in (".", "..") for s in segments):
        raise LocationError(f"{uri!r}: a key with '.' or '..' segments would leave the object store")
    return S3Location(bucket, "/".join(segments), folder=key.endswith("/"))


def local_path(uri: str, root: Path | None = None) -> Path:
    """The local file of an ``s3://`` or ``file://`` URI (or a plain path, unchanged).

    Raises:
        LocationError: an s3 URI that would escape the store.
    """
    if is_s3(uri):
        return parse_s3(uri).local(root)
    if uri.startswith("file://"):
        return Path(uri[len("file://"):])
    return Path(uri)


def to_spark_path(uri: str, root: Path | None = None) -> str:
    """The path Spark should read or write for ``uri`` (s3://, file:// or a local path).

    ``root`` is the object store's folder (``$GLUEBALL_HOME/s3`` by default).

    Raises:
        LocationError: an s3 URI that would escape the store.
    """
    if is_s3(uri):
        location = parse_s3(uri)
        if through_s3_api():
            return "s3a://" + location.uri.removeprefix("s3://")
        return str(location.local(root))
    if uri.startswith("file://"):
        return uri[len("file://"):]
    return uri


def to_uri(path: str | Path, root: Path | None = None) -> str:
    """The s3:// URI of a local path inside the object store, else the path itself."""
    resolved = Path(path).resolve()
    store = (root or object_store_root()).resolve()
    if resolved == store or store in resolved.parents:
        return "s3://" + resolved.relative_to(store).as_posix()
    return str(path)
