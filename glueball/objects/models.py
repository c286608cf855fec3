"""What the object store knows of buckets and objects."""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

EMPTY_MD5 = "d41d8cd98f00b204e9800998ecf8427e"
# the headers S3 keeps with an object and answers back on GET and HEAD
STORED_HEADERS = ("CacheControl", "ContentDisposition", "ContentEncoding", "ContentLanguage", "Expires",
                  "WebsiteRedirectLocation")


@dataclass
class ObjectMeta:
    """What S3 keeps with an object besides its bytes, stored on the object's file (an extended
    attribute, or a sidecar where the file system has none). ``size`` and ``mtime_ns`` are the
    file's when it was written: a file changed since by something else is described afresh."""

    etag: str  # without quotes: the MD5 hex, or MD5-of-part-MD5s "-N" for a multipart upload
    size: int
    mtime_ns: int
    content_type: str = "binary/octet-stream"
    metadata: dict[str, str] = field(default_factory=dict)  # x-amz-meta-*
    headers: dict[str, Any] = field(default_factory=dict)  # STORED_HEADERS
    checksums: dict[str, str] = field(default_factory=dict)  # "CRC32" -> base64 value
    checksum_type: str | None = None  # FULL_OBJECT | COMPOSITE
    parts: int | None = None
    tags: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"etag": self.etag, "size": self.size, "mtime_ns": self.mtime_ns, "type": self.content_type,
                "meta": self.metadata, "headers": self.headers, "checksums": self.checksums,
                "checksum_type": self.checksum_type, "parts": self.parts, "tags": self.tags}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ObjectMeta:
        return cls(str(data["etag"]), int(data["size"]), int(data["mtime_ns"]), str(data.get("type") or
                   "binary/octet-stream"), dict(data.get("meta") or {}), dict(data.get("headers") or {}),
                   dict(data.get("checksums") or {}), data.get("checksum_type"), data.get("parts"),
                   dict(data.get("tags") or {}))


@dataclass(frozen=True)
class ObjectInfo:
    """One object as it is now: its file, size, time and what S3 keeps with it."""

    bucket: str
    key: str
    path: Path
    size: int
    mtime_ns: int
    meta: ObjectMeta | None  # None: a file written by something else (Spark, a copy): described from the file

    @property
    def etag(self) -> str:
        """S3's ETag, quoted. A file written past the API has no MD5 on record: its ETag is derived from its
        size and time (stable while the file is unchanged; not its MD5, as a multipart object's is not)."""
        if self.meta is not None:
            return f'"{self.meta.etag}"'
        if self.size == 0:
            return f'"{EMPTY_MD5}"'
        derived = hashlib.md5(f"{self.size}:{self.mtime_ns}".encode()).hexdigest()  # noqa: S324 - an identifier
        return f'"{derived}"'

    @property
    def last_modified(self) -> dt.datetime:
        return dt.datetime.fromtimestamp(self.mtime_ns // 1_000_000_000, dt.UTC)

    @property
    def content_type(self) -> str:
        return self.meta.content_type if self.meta is not None else "binary/octet-stream"


@dataclass
class BucketInfo:
    """A bucket: a folder of the object store, with its owner, region, creation time and tags."""

    name: str
    owner: str  # account id
    region: str
    created: dt.datetime
    tags: dict[str, str] | None = None  # None: no tag set

    def to_json(self) -> dict[str, Any]:
        return {"owner": self.owner, "region": self.region, "created": self.created.timestamp(), "tags": self.tags}
