"""The object store on a local folder: ``s3://bucket/key`` is the file ``<root>/bucket/key``.

The folder is the truth: a bucket is a folder of the root, an object a file (``a/b/c`` the file
``c`` in ``a/b``), so what Spark writes directly is listed, read and deleted like anything put
through the API. What S3 keeps with an object besides its bytes (ETag, content type, user
metadata, checksums, tags: :class:`~glueball.objects.models.ObjectMeta`) is stored on the file
itself, as the extended attribute ``user.glueball.s3``; where the file system has no extended
attributes (or the record is too big for one), in a sidecar file under ``<work>/meta``. A record
whose size and time no longer match the file (something rewrote it) is ignored.

Writes are atomic: a body is written to a file under ``<work>/spool`` (same file system) and
renamed into place with its metadata already on it, so a reader sees the old object or the new
one, never half of one, and a crashed upload leaves only a spool file, removed at the next start.
A key ending in ``/`` (a "folder" object) is a folder carrying the record. Keys that cannot be
files are refused: ``.``/``..`` segments, or a key below an existing object (``a`` and ``a/b``).
"""

from __future__ import annotations

import datetime as dt
import errno
import json
import os
import re
import time
from pathlib import Path

from glueball.objects.errors import (
    BucketAlreadyExists,
    BucketAlreadyOwnedByYou,
    BucketNotEmpty,
    InvalidArgument,
    InvalidBucketName,
    InvalidRequest,
    KeyTooLongError,
    NoSuchBucket,
    NoSuchKey,
)
from glueball.objects.models import BucketInfo, ObjectInfo, ObjectMeta

XATTR = "user.glueball.s3"
MAX_KEY_BYTES = 1024
_BUCKET = re.compile(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")
_STALE_SPOOL_SECONDS = 3600


class ObjectStore:
    """Buckets and objects under ``root``; ``work`` holds the spool, uploads in progress and bucket records.

    Args:
        root: the object store folder (``$GLUEBALL_HOME/s3``).
        work: a folder on the same file system for what is not objects (``$GLUEBALL_HOME/s3-work``).
        owner: the account that owns buckets nobody created through the API (folders made directly).
        region: the region of such buckets.
    """

    def __init__(self, root: Path, work: Path, owner: str, region: str) -> None:
        self.root = root
        self.work = work
        self.owner = owner
        self.region = region
        self.spool = work / "spool"
        self.uploads = work / "uploads"
        self.sidecars = work / "meta"
        self._bucket_records = work / "buckets"
        for folder in (root, self.spool, self.uploads, self._bucket_records):
            folder.mkdir(parents=True, exist_ok=True)
        self._xattrs = _supports_xattrs(self.spool)
        # records in sidecar files: only where the file system has no extended attributes (or one was too big)
        self._sidecars_used = not self._xattrs or self.sidecars.exists()
        self._clean_spool()

    # -- buckets

    def bucket_path(self, name: str) -> Path:
        if not name or name.startswith(".") or "/" in name or "\\" in name or "\x00" in name:
            raise NoSuchBucket("The specified bucket does not exist", BucketName=name)
        return self.root / name

    def buckets(self) -> list[BucketInfo]:
        """Every bucket, by name."""
        found = []
        with os.scandir(self.root) as entries:
            for entry in entries:
                if entry.is_dir() and not entry.name.startswith("."):
                    found.append(self._bucket_info(entry.name, Path(entry.path)))
        return sorted(found, key=lambda b: b.name)

    def bucket(self, name: str) -> BucketInfo:
        """The bucket ``name``.

        Raises:
            NoSuchBucket: there is none.
        """
        path = self.bucket_path(name)
        if not path.is_dir():
            raise NoSuchBucket("The specified bucket does not exist", BucketName=name)
        return self._bucket_info(name, path)

    def create_bucket(self, name: str, owner: str, region: str) -> BucketInfo:
        """Make the bucket ``name`` for ``owner``.

        Raises:
            InvalidBucketName: not a name S3 allows.
            BucketAlreadyOwnedByYou / BucketAlreadyExists: it exists (the owner's, or another account's).
        """
        check_bucket_name(name)
        path = self.root / name
        try:
            path.mkdir()
        except FileExistsError:
            existing = self._bucket_info(name, path)
            if existing.owner == owner:
                raise BucketAlreadyOwnedByYou("Your previous request to create the named bucket succeeded and you "
                                              "already own it.", BucketName=name) from None
            raise BucketAlreadyExists("The requested bucket name is not available. The bucket namespace is shared "
                                      "by all users of the system. Please select a different name and try again.",
                                      BucketName=name) from None
        info = BucketInfo(name, owner, region, dt.datetime.now(dt.UTC).replace(microsecond=0))
        self._write_bucket(info)
        return info

    def delete_bucket(self, name: str) -> None:
        """Remove the empty bucket ``name`` (empty folders left in it do not count).

        Raises:
            NoSuchBucket, BucketNotEmpty.
        """
        self.bucket(name)
        path = self.bucket_path(name)
        if self._holds_objects(path):
            raise BucketNotEmpty("The bucket you tried to delete is not empty", BucketName=name)
        for folder, _, _ in sorted(os.walk(path), key=lambda w: -len(w[0])):
            os.rmdir(folder)
        (self._bucket_records / f"{name}.json").unlink(missing_ok=True)

    def set_bucket_tags(self, name: str, tags: dict[str, str] | None) -> None:
        info = self.bucket(name)
        info.tags = tags
        self._write_bucket(info)

    def _bucket_info(self, name: str, path: Path) -> BucketInfo:
        record = self._bucket_records / f"{name}.json"
        try:
            data = json.loads(record.read_text())
            return BucketInfo(name, str(data["owner"]), str(data["region"]),
                              dt.datetime.fromtimestamp(float(data["created"]), dt.UTC), data.get("tags"))
        except (FileNotFoundError, ValueError, KeyError):  # a folder made directly: the server's account owns it
            created = dt.datetime.fromtimestamp(int(path.stat().st_mtime), dt.UTC)
            return BucketInfo(name, self.owner, self.region, created)

    def _write_bucket(self, info: BucketInfo) -> None:
        record = self._bucket_records / f"{info.name}.json"
        temporary = self.spool / f"bucket-{info.name}-{os.getpid()}-{time.monotonic_ns()}"
        temporary.write_text(json.dumps(info.to_json()))
        os.replace(temporary, record)

    # -- objects

    def object_path(self, bucket: str, key: str) -> Path:
        """The file of ``key`` in ``bucket`` (the bucket must exist).

        Raises:
            NoSuchBucket, KeyTooLongError, InvalidArgument (a key that cannot be a file).
        """
        base = self.bucket_path(bucket)
        if not base.is_dir():
            raise NoSuchBucket("The specified bucket does not exist", BucketName=bucket)
        return base / check_key(key)

    def head(self, bucket: str, key: str) -> ObjectInfo:
        """The object ``key``.

        Raises:
            NoSuchBucket, NoSuchKey.
        """
        try:
            path = self.object_path(bucket, key)
        except InvalidArgument:
            raise NoSuchKey("The specified key does not exist.", Key=key) from None
        try:
            stat = path.stat()
        except (FileNotFoundError, NotADirectoryError):
            raise NoSuchKey("The specified key does not exist.", Key=key) from None
        is_folder = key.endswith("/")
        if is_folder != os.path.isdir(path):
            raise NoSuchKey("The specified key does not exist.", Key=key)
        meta = self.read_meta(path, stat.st_size if not is_folder else 0, stat.st_mtime_ns, is_folder)
        if is_folder and meta is None:  # a folder that only holds objects is no object itself
            raise NoSuchKey("The specified key does not exist.", Key=key)
        return ObjectInfo(bucket, key, path, 0 if is_folder else stat.st_size, stat.st_mtime_ns, meta)

    def place(self, bucket: str, key: str, source: Path, meta: ObjectMeta) -> ObjectInfo:
        """Make the file ``source`` (in the spool) the object ``key``, with ``meta``, in one rename.

        Raises:
            NoSuchBucket, InvalidArgument, InvalidRequest (the key clashes with an object or folder).
        """
        target = self.object_path(bucket, key)
        if key.endswith("/"):
            self._make_parents(bucket, target / "x")
            target.mkdir(exist_ok=True)
            source.unlink(missing_ok=True)
            stat = target.stat()
            meta.size, meta.mtime_ns = 0, stat.st_mtime_ns
            self.write_meta(target, meta, target, folder=True)
            return ObjectInfo(bucket, key, target, 0, stat.st_mtime_ns, meta)
        self._make_parents(bucket, target)
        if target.is_dir():
            raise InvalidRequest(f"glueball keeps objects as files: objects exist below {key}/, so {key} cannot be "
                                 f"an object too", Key=key)
        stat = source.stat()
        meta.size, meta.mtime_ns = stat.st_size, stat.st_mtime_ns
        self.write_meta(source, meta, target)
        os.replace(source, target)
        return ObjectInfo(bucket, key, target, stat.st_size, stat.st_mtime_ns, meta)

    def delete(self, bucket: str, key: str) -> None:
        """Remove ``key`` if it exists (deleting a missing key is not an error, as in S3).

        Raises:
            NoSuchBucket.
        """
        try:
            path = self.object_path(bucket, key)
        except InvalidArgument:
            return
        try:
            if key.endswith("/"):
                self._drop_meta(path, folder=True)
                path.rmdir()  # only when empty: objects below it stay
            else:
                if path.is_dir():
                    return
                path.unlink()
                if self._sidecars_used:
                    self._sidecar(path, False).unlink(missing_ok=True)
        except (FileNotFoundError, NotADirectoryError):
            return
        except OSError as exc:
            if exc.errno != errno.ENOTEMPTY:
                raise
        self._prune(path.parent, self.bucket_path(bucket))

    def update_meta(self, info: ObjectInfo, meta: ObjectMeta) -> None:
        """Rewrite what is kept with an existing object (its tags), keeping its size and time."""
        meta.size, meta.mtime_ns = info.size, info.mtime_ns
        self.write_meta(info.path, meta, info.path, folder=info.key.endswith("/"))

    # -- metadata on files

    def read_meta(self, path: Path, size: int, mtime_ns: int, folder: bool = False) -> ObjectMeta | None:
        """The record on ``path``, if it still describes the file (same size and time; a folder's any time)."""
        raw: bytes | None = None
        if self._xattrs:
            try:
                raw = os.getxattr(path, XATTR)
            except OSError:
                raw = None
        if raw is None and self._sidecars_used:
            try:
                raw = self._sidecar(path, folder).read_bytes()
            except (OSError, ValueError):
                raw = None
        if raw is None:
            return None
        try:
            meta = ObjectMeta.from_json(json.loads(raw))
        except (ValueError, KeyError, TypeError):
            return None
        if meta.size != size or (meta.mtime_ns != mtime_ns and not folder):
            return None
        return meta

    def write_meta(self, path: Path, meta: ObjectMeta, target: Path, folder: bool = False) -> None:
        """Put ``meta`` on ``path`` (the spooled file, about to become ``target``, or ``target`` itself)."""
        raw = json.dumps(meta.to_json(), separators=(",", ":")).encode()
        if self._xattrs:
            try:
                os.setxattr(path, XATTR, raw)
                if self._sidecars_used:
                    self._sidecar(target, folder).unlink(missing_ok=True)
                return
            except OSError as exc:
                if exc.errno not in (errno.E2BIG, errno.ENOSPC, errno.ENOTSUP, errno.ERANGE):
                    raise
        sidecar = self._sidecar(target, folder)
        self._sidecars_used = True
        sidecar.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.spool / f"meta-{os.getpid()}-{time.monotonic_ns()}"
        temporary.write_bytes(raw)
        os.replace(temporary, sidecar)

    def _sidecar(self, target: Path, folder: bool) -> Path:
        """Where the record of the object at ``target`` goes when its file cannot carry it."""
        relative = target.relative_to(self.root).as_posix()
        return self.sidecars / ("folders" if folder else "files") / f"{relative}.json"

    def _drop_meta(self, path: Path, folder: bool) -> None:
        if self._xattrs:
            try:
                os.removexattr(path, XATTR)
            except OSError:
                pass
        if self._sidecars_used:
            self._sidecar(path, folder).unlink(missing_ok=True)

    # -- folders

    def _make_parents(self, bucket: str, target: Path) -> None:
        base = self.bucket_path(bucket)
        parent = target.parent
        try:
            parent.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError):
            clash = next(p for p in [parent, *parent.parents] if p.is_file())
            raise InvalidRequest(f"glueball keeps objects as files: {clash.relative_to(base).as_posix()} is an "
                                 f"object, so no object can be created below it",
                                 Key=target.relative_to(base).as_posix()) from None

    def _holds_objects(self, folder: Path) -> bool:
        """Whether any file is below ``folder``, or a folder object (a folder carrying the record)."""
        for path, _, files in os.walk(folder):
            if files or (path != str(folder) and self.read_meta(Path(path), 0, 0, folder=True) is not None):
                return True
        return False

    def _prune(self, folder: Path, bucket_path: Path) -> None:
        """Remove folders a delete left empty, up to the bucket (S3 has no empty prefixes); not folder objects."""
        while folder != bucket_path and bucket_path in folder.parents:
            if self.read_meta(folder, 0, 0, folder=True) is not None:
                return
            try:
                folder.rmdir()
            except OSError:
                return
            folder = folder.parent

    def _clean_spool(self) -> None:
        """Remove what crashed uploads left in the spool (older than an hour: other processes may be writing)."""
        cutoff = time.time() - _STALE_SPOOL_SECONDS
        with os.scandir(self.spool) as entries:
            for entry in entries:
                try:
                    if entry.stat().st_mtime < cutoff:
                        os.unlink(entry.path)
                except OSError:
                    pass


def check_bucket_name(name: str) -> None:
    """S3's rules for a new bucket's name: 3-63 lower-case letters, digits, ``.`` and ``-``, starting and
    ending with a letter or digit, no ``..``, not an IP address.

    Raises:
        InvalidBucketName: what rule it breaks.
    """
    if not _BUCKET.fullmatch(name) or ".." in name or ".-" in name or "-." in name or re.fullmatch(
            r"\d+\.\d+\.\d+\.\d+", name):
        raise InvalidBucketName("The specified bucket is not valid: bucket names are 3-63 lower-case letters, "
                                "digits, '.' and '-', beginning and ending with a letter or digit", BucketName=name)


def check_key(key: str) -> str:
    """``key`` as a relative file path.

    Raises:
        KeyTooLongError: over 1,024 bytes.
        InvalidArgument: empty, or a key that cannot be a file (``.``/``..`` segments, NUL, ``//``).
    """
    if not key:
        raise InvalidArgument("An object key must not be empty", ArgumentName="key")
    if len(key.encode("utf-8", "surrogatepass")) > MAX_KEY_BYTES:
        raise KeyTooLongError("Your key is too long", Key=key[:64])
    body = key[:-1] if key.endswith("/") else key
    segments = body.split("/")
    if "\x00" in key or any(s in ("", ".", "..") for s in segments) or key.startswith("/"):
        raise InvalidArgument(f"glueball keeps objects as files: the key {key!r} has an empty, '.' or '..' path "
                              f"segment (or NUL), which no file can have", ArgumentName="key", ArgumentValue=key)
    return body


def _supports_xattrs(folder: Path) -> bool:
    probe = folder / f"xattr-probe-{os.getpid()}"
    try:
        probe.touch()
        os.setxattr(probe, XATTR, b"{}")
        return True
    except (OSError, AttributeError):
        return False
    finally:
        probe.unlink(missing_ok=True)
