"""S3's object operations over the object store: what each checks and decides, no wire shapes.

Conditional requests follow RFC 7232 as S3 applies them (``If-Match`` before
``If-Unmodified-Since``, ``If-None-Match`` before ``If-Modified-Since``); ranges are one
``bytes=`` range (``a-b``, ``a-``, ``-n``), an unsatisfiable one is ``InvalidRange``; uploads are
checked against ``Content-MD5`` and the ``x-amz-checksum-*`` values the client sent (CRC32, SHA-1,
SHA-256 and MD5 are verified; CRC32C and CRC64NVME, which need libraries glueball does not carry,
are kept and answered back as given).
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import hashlib
import shutil
import uuid
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from glueball.api.bodies import SpooledBody
from glueball.objects.errors import (
    BadDigest,
    InvalidArgument,
    InvalidDigest,
    InvalidRange,
    InvalidRequest,
    InvalidTag,
    NoSuchKey,
    NotModified,
    PreconditionFailed,
)
from glueball.objects.listing import Lister
from glueball.objects.models import STORED_HEADERS, BucketInfo, ObjectInfo, ObjectMeta
from glueball.objects.multipart import Upload, Uploads
from glueball.objects.store import ObjectStore

CHECKSUMS = ("CRC32", "CRC32C", "CRC64NVME", "SHA1", "SHA256")
_VERIFIED = {"CRC32", "SHA1", "SHA256"}


@dataclass
class Conditions:
    """``If-*`` headers (times as epoch seconds)."""

    if_match: str | None = None
    if_none_match: str | None = None
    if_modified_since: float | None = None
    if_unmodified_since: float | None = None


@dataclass
class Written:
    """What an upload carries besides its bytes."""

    content_type: str | None = None
    metadata: dict[str, str] = field(default_factory=dict)
    headers: dict[str, Any] = field(default_factory=dict)
    content_md5: str | None = None
    checksums: dict[str, str] = field(default_factory=dict)  # as sent: "CRC32" -> base64
    tags: dict[str, str] = field(default_factory=dict)


class ObjectService:
    """The object store as S3 serves it to one account in one region."""

    def __init__(self, store: ObjectStore, lister: Lister, uploads: Uploads, account: str, region: str) -> None:
        self.store = store
        self.lister = lister
        self.uploads = uploads
        self.account = account
        self.region = region

    # -- buckets

    def buckets(self) -> list[BucketInfo]:
        """The caller's buckets (S3 lists only the buckets the account owns)."""
        return [b for b in self.store.buckets() if b.owner == self.account]

    def create_bucket(self, name: str, region: str | None) -> BucketInfo:
        return self.store.create_bucket(name, self.account, region or self.region)

    # -- objects

    def put(self, bucket: str, key: str, body: SpooledBody | bytes | None, written: Written,
            conditions: Conditions | None = None) -> ObjectInfo:
        """Store ``body`` as ``key`` once it checks out against what the client said of it.

        Raises:
            BadDigest / InvalidDigest: Content-MD5 or a checksum does not match or cannot be read.
            PreconditionFailed: ``If-None-Match: *`` and the key exists, or ``If-Match`` does not hold.
        """
        self.store.object_path(bucket, key)  # the bucket and the key are valid before anything is written
        spooled = self.spooled(body)
        try:
            checksums = verify_body(spooled, written.content_md5, written.checksums)
            if conditions is not None:
                self._write_conditions(bucket, key, conditions)
            meta = ObjectMeta(spooled.md5.hex(), spooled.size, 0, written.content_type or "binary/octet-stream",
                              written.metadata, written.headers, checksums, "FULL_OBJECT" if checksums else None,
                              None, written.tags)
            return self.store.place(bucket, key, spooled.path, meta)
        finally:
            spooled.path.unlink(missing_ok=True)

    def spooled(self, body: SpooledBody | bytes | None) -> SpooledBody:
        """``body`` as a file in the spool (bytes from an in-process client are written there)."""
        if isinstance(body, SpooledBody):
            return body
        data = body or b""
        path = self.store.spool / f"put-{uuid.uuid4().hex}"
        path.write_bytes(data)
        return SpooledBody(path, len(data), hashlib.sha256(data).hexdigest(),
                           hashlib.md5(data).digest(), zlib.crc32(data))  # noqa: S324 - S3's Content-MD5

    def get(self, bucket: str, key: str, conditions: Conditions, byte_range: str | None) -> tuple[
            ObjectInfo, tuple[int, int] | None]:
        """The object and the (first, last) bytes asked for (None: all of it).

        Raises:
            NoSuchKey, PreconditionFailed (412), NotModified (304), InvalidRange (416).
        """
        info = self.store.head(bucket, key)
        check_conditions(info, conditions)
        return info, parse_range(byte_range, info.size)

    def copy(self, bucket: str, key: str, source: str, conditions: Conditions, replace_meta: bool,
             written: Written, replace_tags: bool) -> ObjectInfo:
        """Copy the object ``source`` (``bucket/key``, URL-encoded as in ``x-amz-copy-source``) to ``key``.

        Raises:
            InvalidArgument: the source cannot be read. NoSuchBucket / NoSuchKey: it does not exist.
            PreconditionFailed: a ``x-amz-copy-source-if-*`` condition does not hold.
            InvalidRequest: copying an object onto itself without changing anything.
        """
        source_bucket, source_key = copy_source(source)
        origin = self.store.head(source_bucket, source_key)
        try:
            check_conditions(origin, conditions)
        except NotModified:
            raise PreconditionFailed("At least one of the pre-conditions you specified did not hold",
                                     Condition="x-amz-copy-source-If-None-Match") from None
        if (source_bucket, source_key) == (bucket, key) and not replace_meta:
            raise InvalidRequest("This copy request is illegal because it is trying to copy an object to itself "
                                 "without changing the object's metadata, storage class, website redirect location "
                                 "or encryption attributes.")
        self.store.object_path(bucket, key)
        spool = self.store.spool / f"copy-{uuid.uuid4().hex}"
        try:
            shutil.copyfile(origin.path, spool)
            old = origin.meta
            if replace_meta or old is None:
                meta = ObjectMeta(old.etag if old is not None and old.parts is None else "", 0, 0,
                                  written.content_type or "binary/octet-stream", written.metadata, written.headers,
                                  dict(old.checksums) if old is not None and old.parts is None else {})
            else:
                meta = ObjectMeta(**{**old.__dict__, "tags": dict(old.tags)})
            if not meta.etag or meta.parts is not None:
                meta.etag, meta.parts = _md5_of(spool), None
                meta.checksums, meta.checksum_type = {}, None
            meta.tags = written.tags if replace_tags else (dict(old.tags) if old is not None else {})
            return self.store.place(bucket, key, spool, meta)
        finally:
            spool.unlink(missing_ok=True)

    def delete_many(self, bucket: str, keys: list[str]) -> tuple[list[str], list[tuple[str, str, str]]]:
        """Delete ``keys``; (deleted, [(key, code, message)] of those that could not be)."""
        self.store.bucket(bucket)
        deleted, errors = [], []
        for key in keys:
            try:
                self.store.delete(bucket, key)
                deleted.append(key)
            except OSError as exc:
                errors.append((key, "InternalError", f"{key} could not be deleted: {exc.strerror}"))
        return deleted, errors

    def set_object_tags(self, bucket: str, key: str, tags: dict[str, str]) -> None:
        info = self.store.head(bucket, key)
        meta = info.meta or ObjectMeta(info.etag.strip('"'), info.size, info.mtime_ns)
        meta.tags = check_tags(tags, 10)
        self.store.update_meta(info, meta)

    def _write_conditions(self, bucket: str, key: str, conditions: Conditions) -> None:
        """Conditional writes: ``If-None-Match: *`` (only if absent) and ``If-Match`` (only if the ETag is)."""
        try:
            existing: ObjectInfo | None = self.store.head(bucket, key)
        except NoSuchKey:
            existing = None
        if conditions.if_none_match is not None and conditions.if_none_match.strip() == "*" and existing:
            raise PreconditionFailed("At least one of the pre-conditions you specified did not hold",
                                     Condition="If-None-Match")
        if conditions.if_match is not None:
            if existing is None:
                raise NoSuchKey("The specified key does not exist.", Key=key)
            if not _etag_matches(conditions.if_match, existing.etag):
                raise PreconditionFailed("At least one of the pre-conditions you specified did not hold",
                                         Condition="If-Match")

    # -- multipart

    def start_upload(self, bucket: str, key: str, written: Written, algorithm: str | None,
                     checksum_type: str | None) -> Upload:
        self.store.object_path(bucket, key)
        meta = ObjectMeta("", 0, 0, written.content_type or "binary/octet-stream", written.metadata,
                          written.headers, tags=written.tags)
        return self.uploads.create(bucket, key, self.account, meta, algorithm, checksum_type)

    def upload_part(self, bucket: str, key: str, upload_id: str, number: int, body: SpooledBody | bytes | None,
                    content_md5: str | None, checksums: dict[str, str]) -> tuple[str, dict[str, str]]:
        """Store one part; its ETag (MD5 hex) and the checksums it was sent with."""
        upload = self.uploads.get(upload_id, bucket, key)
        spooled = self.spooled(body)
        try:
            verified = verify_body(spooled, content_md5, checksums)
            algorithm = (upload.checksum_algorithm or "").upper()
            if algorithm == "CRC32" and algorithm not in verified:  # the part's own, for the composite checksum
                verified[algorithm] = base64.b64encode(spooled.crc32.to_bytes(4, "big")).decode()
            etag = spooled.md5.hex()
            self.uploads.add_part(upload, number, spooled.path, etag, verified)
            return etag, verified
        finally:
            spooled.path.unlink(missing_ok=True)

    def complete_upload(self, bucket: str, key: str, upload_id: str, parts: list[tuple[int, str]]) -> ObjectInfo:
        upload = self.uploads.get(upload_id, bucket, key)
        joined, meta = self.uploads.join(upload, parts, self.store.spool)
        try:
            info = self.store.place(bucket, key, joined, meta)
        finally:
            joined.unlink(missing_ok=True)
        self.uploads.remove(upload)
        return info


# ---------------------------------------------------------------- checks


def verify_body(spooled: SpooledBody, content_md5: str | None, sent: dict[str, str]) -> dict[str, str]:
    """Check the body against ``Content-MD5`` and the checksums sent (headers or aws-chunked trailers);
    the checksums to keep.

    Raises:
        InvalidDigest: a value that is not base64 of the right length. BadDigest: a value that does not match.
    """
    if content_md5 is not None:
        given = _decoded(content_md5, 16, "Content-MD5")
        if given != spooled.md5:
            raise BadDigest("The Content-MD5 you specified did not match what we received.",
                            ExpectedDigest=content_md5, CalculatedDigest=base64.b64encode(spooled.md5).decode())
    checksums = dict(sent)
    for name, value in spooled.trailers:
        if name.startswith("x-amz-checksum-"):
            checksums[name.removeprefix("x-amz-checksum-").upper()] = value
    for algorithm, value in checksums.items():
        if algorithm not in _VERIFIED:
            continue
        expected = _checksum(spooled, algorithm)
        if _decoded(value, len(expected), f"x-amz-checksum-{algorithm.lower()}") != expected:
            raise BadDigest(f"The {algorithm} you specified did not match the calculated checksum.")
    return checksums


def _checksum(spooled: SpooledBody, algorithm: str) -> bytes:
    if algorithm == "CRC32":
        return spooled.crc32.to_bytes(4, "big")
    if algorithm == "SHA256":
        return bytes.fromhex(spooled.sha256)
    digest = hashlib.sha1()  # noqa: S324 - S3's checksum algorithm
    with spooled.path.open("rb") as handle:
        for piece in iter(lambda: handle.read(1 << 20), b""):
            digest.update(piece)
    return digest.digest()


def _decoded(value: str, length: int, name: str) -> bytes:
    try:
        decoded = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        decoded = b""
    if len(decoded) != length:
        raise InvalidDigest(f"The {name} you specified is not valid.", **{"Content-MD5" if name == "Content-MD5"
                                                                          else "Checksum": value})
    return decoded


def check_conditions(info: ObjectInfo, conditions: Conditions) -> None:
    """RFC 7232 as S3 applies it to GET and HEAD.

    Raises:
        PreconditionFailed (412), NotModified (304).
    """
    modified = info.mtime_ns // 1_000_000_000
    if conditions.if_match is not None:
        if not _etag_matches(conditions.if_match, info.etag):
            raise PreconditionFailed("At least one of the pre-conditions you specified did not hold",
                                     Condition="If-Match")
    elif conditions.if_unmodified_since is not None and modified > conditions.if_unmodified_since:
        raise PreconditionFailed("At least one of the pre-conditions you specified did not hold",
                                 Condition="If-Unmodified-Since")
    if conditions.if_none_match is not None:
        if _etag_matches(conditions.if_none_match, info.etag):
            raise NotModified("Not Modified")
    elif conditions.if_modified_since is not None and modified <= conditions.if_modified_since:
        raise NotModified("Not Modified")


def _etag_matches(header: str, etag: str) -> bool:
    wanted = {item.strip().removeprefix("W/").strip('"') for item in header.split(",")}
    return "*" in wanted or etag.strip('"') in wanted


def parse_range(header: str | None, size: int) -> tuple[int, int] | None:
    """The (first, last) byte of a ``Range: bytes=...`` header; None for none (or one S3 ignores).

    Raises:
        InvalidRange: a range that starts past the end.
    """
    if not header:
        return None
    unit, _, spec = header.strip().partition("=")
    if unit.strip().lower() != "bytes" or "," in spec:
        return None  # not a single byte range: the whole object, as S3 answers
    first_text, dash, last_text = spec.strip().partition("-")
    if not dash:
        return None
    try:
        if not first_text:
            suffix = int(last_text)
            if suffix <= 0 or size == 0:
                raise _unsatisfiable(header, size)
            return max(0, size - suffix), size - 1
        first = int(first_text)
        last = int(last_text) if last_text else size - 1
    except ValueError:
        return None
    if first >= size:
        raise _unsatisfiable(header, size)
    if first > last:
        return None
    return first, min(last, size - 1)


def _unsatisfiable(header: str, size: int) -> InvalidRange:
    return InvalidRange("The requested range is not satisfiable", RangeRequested=header,
                        ActualObjectSize=str(size))


def copy_source(text: str) -> tuple[str, str]:
    """``x-amz-copy-source`` (``bucket/key`` or ``/bucket/key``, URL-encoded) as (bucket, key).

    Raises:
        InvalidArgument: it names no bucket and key (or a version, which glueball does not keep).
    """
    path, _, query = text.partition("?")
    if query and not query.startswith("versionId=null"):
        raise InvalidArgument("glueball keeps no object versions: x-amz-copy-source cannot name a versionId",
                              ArgumentName="x-amz-copy-source", ArgumentValue=text)
    bucket, _, key = unquote(path).lstrip("/").partition("/")
    if not bucket or not key:
        raise InvalidArgument("Copy Source must mention the source bucket and key: sourcebucket/sourcekey",
                              ArgumentName="x-amz-copy-source", ArgumentValue=text)
    return bucket, key


def check_tags(tags: dict[str, str], limit: int) -> dict[str, str]:
    """S3's tag rules: at most ``limit`` tags (10 on objects, 50 on buckets), keys 1-128 and values 0-256 characters.

    Raises:
        InvalidTag: a rule broken (the message names it).
    """
    if len(tags) > limit:
        raise InvalidTag(f"Object tags cannot be greater than {limit}" if limit == 10 else
                         f"Bucket tag count cannot be greater than {limit}")
    for key, value in tags.items():
        if not 1 <= len(key) <= 128:
            raise InvalidTag("The TagKey you have provided is invalid", TagKey=key)
        if len(value) > 256:
            raise InvalidTag("The TagValue you have provided is invalid", TagKey=key, TagValue=value)
        if key.lower().startswith("aws:"):
            raise InvalidTag("Your TagKey cannot be prefixed with aws:", TagKey=key)
    return dict(tags)


def stored_headers(request: dict[str, Any]) -> dict[str, Any]:
    """The headers kept with an object from a PutObject-like request (``Expires`` as epoch seconds).

    ``aws-chunked`` is how the body was framed on the wire, not the object's encoding: S3 keeps the
    Content-Encoding without it (and none when it was the only one), so a client copying an object's
    headers (S3A's rename does) never sends it back for a request with no chunked body."""
    found = {name: request[name] for name in STORED_HEADERS if request.get(name) is not None}
    if "ContentEncoding" in found:
        encodings = [e.strip() for e in str(found["ContentEncoding"]).split(",")
                     if e.strip() and e.strip().lower() != "aws-chunked"]
        if encodings:
            found["ContentEncoding"] = ",".join(encodings)
        else:
            del found["ContentEncoding"]
    if isinstance(found.get("Expires"), dt.datetime):
        found["Expires"] = found["Expires"].timestamp()
    return found


def _md5_of(path: Path) -> str:
    digest = hashlib.md5()  # noqa: S324 - S3's ETag
    with path.open("rb") as handle:
        for piece in iter(lambda: handle.read(1 << 20), b""):
            digest.update(piece)
    return digest.hexdigest()

