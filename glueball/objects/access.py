"""One way for glueball's own readers and writers to reach ``s3://``: :class:`Objects`.

Crawlers, job scripts and ``--extra-py-files`` given as ``s3://``, data quality results and row-level
outputs, blueprint archives, visual jobs' scripts and custom transforms, Spark event logs kept in
``s3://`` and the runtime's own files all read and write objects through this interface, whichever
store stands behind it:

- :class:`LocalObjects`: the installation's folder (``$GLUEBALL_HOME/s3``), the embedded default;
- :class:`RemoteObjects`: an S3 API (boto3) — a remote store (``--object-store``), or, in a driver whose
  executors share no disk with its server, that server's S3 API (:mod:`glueball.objects.reach`).

Only this module and the local store's own code (the S3 API over the folder: ``store``, ``listing``,
``multipart``) touch ``$GLUEBALL_HOME/s3`` (a test enforces it). Missing objects raise
``FileNotFoundError`` from both.
"""

from __future__ import annotations

import io
import os
import shutil
import uuid
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from glueball.config import default_home
from glueball.objects.locations import S3Location, is_s3, parse_s3
from glueball.objects.reach import RemoteStore, process_s3_api

_READ_BLOCK = 1024 * 1024


@dataclass(frozen=True)
class Entry:
    """An object: its name in its folder (or key below a listed prefix), size and modification time (epoch s)."""

    name: str
    size: int
    mtime: float


@dataclass
class Folder:
    """What is directly inside a folder: its objects and its sub-folders' names (common prefixes)."""

    files: list[Entry] = field(default_factory=list)
    folders: list[str] = field(default_factory=list)


def _folder_key(location: S3Location) -> str:
    return f"{location.key}/" if location.key else ""


class Objects(ABC):
    """Objects of one store, addressed by ``s3://bucket/key`` (``s3a://``, ``s3n://`` too)."""

    @abstractmethod
    def read(self, uri: str) -> bytes:
        """The object's bytes. Raises FileNotFoundError: no such object."""

    @abstractmethod
    def open(self, uri: str) -> BinaryIO:
        """The object as a seekable binary stream. Raises FileNotFoundError: no such object."""

    @abstractmethod
    def write(self, uri: str, data: bytes) -> None:
        """Make ``data`` the object (its bucket is created when missing, as a folder would be)."""

    @abstractmethod
    def upload(self, uri: str, source: Path) -> None:
        """Make the file ``source`` the object."""

    @abstractmethod
    def download(self, uri: str, target: Path) -> None:
        """Copy the object to the file ``target``. Raises FileNotFoundError: no such object."""

    @abstractmethod
    def stat(self, uri: str) -> Entry | None:
        """The object (its key's last segment as name), or None."""

    @abstractmethod
    def listdir(self, uri: str) -> Folder:
        """The objects and sub-folders directly under the folder ``uri`` (empty when there is none)."""

    @abstractmethod
    def walk(self, uri: str) -> list[Entry]:
        """Every object below the folder ``uri``, named by its key relative to it, in key order."""

    @abstractmethod
    def delete(self, uri: str) -> None:
        """Remove the object if it exists."""

    def delete_tree(self, uri: str) -> int:
        """Remove every object below the folder ``uri``; how many."""
        base = uri.rstrip("/")
        entries = self.walk(uri)
        for entry in entries:
            self.delete(f"{base}/{entry.name}")
        return len(entries)

    def exists(self, uri: str) -> bool:
        return self.stat(uri) is not None

    def read_text(self, uri: str) -> str:
        return self.read(uri).decode("utf-8")


class LocalObjects(Objects):
    """``s3://bucket/key`` as the file ``<root>/bucket/key``; writes are atomic (a temporary file renamed)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, uri: str) -> Path:
        """The file of ``uri`` (for the local store's own code and Spark's local paths)."""
        return parse_s3(uri).local(self.root)

    def read(self, uri: str) -> bytes:
        path = self.path(uri)
        if not path.is_file():
            raise FileNotFoundError(f"no object {uri}")
        return path.read_bytes()

    def open(self, uri: str) -> BinaryIO:
        path = self.path(uri)
        if not path.is_file():
            raise FileNotFoundError(f"no object {uri}")
        return path.open("rb")

    def _place(self, uri: str, fill: Any) -> None:
        target = self.path(uri)
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.parent / f".{target.name}.{uuid.uuid4().hex}.tmp"
        try:
            fill(temporary)
            os.replace(temporary, target)
        finally:
            temporary.unlink(missing_ok=True)

    def write(self, uri: str, data: bytes) -> None:
        self._place(uri, lambda temporary: temporary.write_bytes(data))

    def upload(self, uri: str, source: Path) -> None:
        self._place(uri, lambda temporary: shutil.copyfile(source, temporary))

    def download(self, uri: str, target: Path) -> None:
        path = self.path(uri)
        if not path.is_file():
            raise FileNotFoundError(f"no object {uri}")
        shutil.copyfile(path, target)

    def stat(self, uri: str) -> Entry | None:
        path = self.path(uri)
        try:
            found = path.stat()
        except OSError:
            return None
        return Entry(path.name, found.st_size, found.st_mtime) if path.is_file() else None

    def listdir(self, uri: str) -> Folder:
        folder = Folder()
        try:
            entries = sorted(os.scandir(self.path(uri)), key=lambda e: e.name)
        except OSError:
            return folder
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                folder.folders.append(entry.name)
            elif entry.is_file():
                found = entry.stat()
                folder.files.append(Entry(entry.name, found.st_size, found.st_mtime))
        return folder

    def walk(self, uri: str) -> list[Entry]:
        root = self.path(uri)
        found: list[Entry] = []
        for folder, _subfolders, files in os.walk(root):
            relative = Path(folder).relative_to(root).as_posix()
            for name in files:
                stat = os.stat(os.path.join(folder, name))
                found.append(Entry(name if relative == "." else f"{relative}/{name}", stat.st_size, stat.st_mtime))
        return sorted(found, key=lambda e: e.name)

    def delete(self, uri: str) -> None:
        """Remove the file, and the folders that leaves empty up to its bucket (S3 has no empty prefixes)."""
        path = self.path(uri)
        if not path.is_file():
            return
        path.unlink(missing_ok=True)
        bucket = self.root / parse_s3(uri).bucket
        folder = path.parent
        while folder != bucket and bucket in folder.parents:
            try:
                folder.rmdir()
            except OSError:
                break
            folder = folder.parent

    def delete_tree(self, uri: str) -> int:
        count = len(self.walk(uri))
        shutil.rmtree(self.path(uri), ignore_errors=True)
        return count


def _missing(error: Any) -> bool:
    code = str(error.response.get("Error", {}).get("Code", ""))
    return code in ("NoSuchKey", "404", "NotFound", "NoSuchBucket")


class _RangedObject(io.RawIOBase):
    """A remote object read by ranges: seekable, as readers of Parquet, ORC and Avro footers need."""

    def __init__(self, client: Any, bucket: str, key: str, size: int) -> None:
        self._client, self._bucket, self._key, self._size = client, bucket, key, size
        self._position = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._position, io.SEEK_END: self._size}[whence]
        self._position = max(0, base + offset)
        return self._position

    def readinto(self, buffer: Any) -> int:
        wanted = min(len(buffer), self._size - self._position)
        if wanted <= 0:
            return 0
        answer = self._client.get_object(Bucket=self._bucket, Key=self._key,
                                         Range=f"bytes={self._position}-{self._position + wanted - 1}")
        data = answer["Body"].read()
        buffer[:len(data)] = data
        self._position += len(data)
        return len(data)


class RemoteObjects(Objects):
    """Objects of an S3 API through boto3 (a remote store, or a glueball server's own S3 API)."""

    def __init__(self, client: Any) -> None:
        self.client = client

    @classmethod
    def of(cls, api: RemoteStore) -> RemoteObjects:
        return cls(api.client())

    def _error(self) -> Any:
        from botocore.exceptions import ClientError

        return ClientError

    def read(self, uri: str) -> bytes:
        location = parse_s3(uri)
        try:
            return bytes(self.client.get_object(Bucket=location.bucket, Key=location.key)["Body"].read())
        except self._error() as exc:
            if _missing(exc):
                raise FileNotFoundError(f"no object {uri}") from None
            raise

    def open(self, uri: str) -> BinaryIO:
        location = parse_s3(uri)
        found = self.stat(uri)
        if found is None:
            raise FileNotFoundError(f"no object {uri}")
        return io.BufferedReader(_RangedObject(self.client, location.bucket, location.key, found.size),
                                 _READ_BLOCK)

    def _ensure_bucket(self, bucket: str) -> None:
        try:
            self.client.head_bucket(Bucket=bucket)
        except self._error() as exc:
            if not _missing(exc):
                raise
            try:
                self.client.create_bucket(Bucket=bucket)
            except self._error() as created:
                if created.response.get("Error", {}).get("Code") not in ("BucketAlreadyOwnedByYou",
                                                                         "BucketAlreadyExists"):
                    raise

    def write(self, uri: str, data: bytes) -> None:
        location = parse_s3(uri)
        self._ensure_bucket(location.bucket)
        self.client.put_object(Bucket=location.bucket, Key=location.key, Body=data)

    def upload(self, uri: str, source: Path) -> None:
        location = parse_s3(uri)
        self._ensure_bucket(location.bucket)
        self.client.upload_file(str(source), location.bucket, location.key)

    def download(self, uri: str, target: Path) -> None:
        location = parse_s3(uri)
        try:
            answer = self.client.get_object(Bucket=location.bucket, Key=location.key)
        except self._error() as exc:
            if _missing(exc):
                raise FileNotFoundError(f"no object {uri}") from None
            raise
        with target.open("wb") as out:
            shutil.copyfileobj(answer["Body"], out, _READ_BLOCK)

    def stat(self, uri: str) -> Entry | None:
        location = parse_s3(uri)
        if not location.key or location.folder:
            return None
        try:
            head = self.client.head_object(Bucket=location.bucket, Key=location.key)
        except self._error() as exc:
            if _missing(exc):
                return None
            raise
        return Entry(location.key.rsplit("/", 1)[-1], int(head["ContentLength"]), head["LastModified"].timestamp())

    def _pages(self, bucket: str, prefix: str, delimiter: str) -> list[dict[str, Any]]:
        params = {"Bucket": bucket, "Prefix": prefix, **({"Delimiter": delimiter} if delimiter else {})}
        try:
            return list(self.client.get_paginator("list_objects_v2").paginate(**params))
        except self._error() as exc:
            if _missing(exc):
                return []
            raise

    def listdir(self, uri: str) -> Folder:
        location = parse_s3(uri)
        prefix = _folder_key(location)
        folder = Folder()
        for page in self._pages(location.bucket, prefix, "/"):
            for common in page.get("CommonPrefixes") or []:
                folder.folders.append(common["Prefix"][len(prefix):].rstrip("/"))
            for item in page.get("Contents") or []:
                name = item["Key"][len(prefix):]
                if name and not name.endswith("/"):
                    folder.files.append(Entry(name, int(item["Size"]), item["LastModified"].timestamp()))
        return folder

    def walk(self, uri: str) -> list[Entry]:
        location = parse_s3(uri)
        prefix = _folder_key(location)
        return [Entry(item["Key"][len(prefix):], int(item["Size"]), item["LastModified"].timestamp())
                for page in self._pages(location.bucket, prefix, "")
                for item in page.get("Contents") or [] if not item["Key"].endswith("/")]

    def delete(self, uri: str) -> None:
        location = parse_s3(uri)
        try:
            self.client.delete_object(Bucket=location.bucket, Key=location.key)
        except self._error() as exc:
            if not _missing(exc):
                raise

    def delete_tree(self, uri: str) -> int:
        location = parse_s3(uri)
        keys = [f"{_folder_key(location)}{entry.name}" for entry in self.walk(uri)]
        for start in range(0, len(keys), 1000):
            self.client.delete_objects(Bucket=location.bucket, Delete={
                "Objects": [{"Key": key} for key in keys[start:start + 1000]], "Quiet": True})
        return len(keys)


def installation_objects(home: Path, object_store_url: str = "") -> Objects:
    """The objects of an installation: its remote store (``--object-store``) or its folder ``home/s3``.

    Raises:
        ValueError: ``object_store_url`` is not a store URL.
    """
    if object_store_url:
        return RemoteObjects.of(RemoteStore.parse(object_store_url))
    return LocalObjects(home / "s3")


def process_objects(home: Path | None = None) -> Objects:
    """The objects this process reaches (:func:`glueball.objects.reach.process_s3_api`), else the folder of
    ``home`` (``GLUEBALL_HOME`` by default)."""
    api = process_s3_api()
    if api is not None:
        return RemoteObjects.of(api)
    return LocalObjects((home or default_home()) / "s3")


def write_location(location: str, data: bytes, objects: Objects | None = None) -> None:
    """Write ``data`` at an ``s3://`` location (through ``objects``, this process's by default) or a local path."""
    if is_s3(location):
        (objects or process_objects()).write(location, data)
        return
    path = Path(location.removeprefix("file://"))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def open_location(location: str, objects: Objects | None = None) -> BinaryIO:
    """An ``s3://`` object (through ``objects``, this process's by default) or a local file, opened for reading.

    Raises:
        FileNotFoundError: there is none.
    """
    if is_s3(location):
        return (objects or process_objects()).open(location)
    return Path(location.removeprefix("file://")).open("rb")


def walk_location(location: str, objects: Objects | None = None) -> list[tuple[str, Entry]]:
    """``(uri or path, entry)`` of the object or file at ``location``, or of every one below that folder (names
    relative to it); empty when there is none."""
    if is_s3(location):
        objects = objects or process_objects()
        single = objects.stat(location)
        if single is not None:
            return [(location, single)]
        base = location.rstrip("/")
        return [(f"{base}/{entry.name}", entry) for entry in objects.walk(location)]
    root = Path(location.removeprefix("file://"))
    if root.is_file():
        stat = root.stat()
        return [(str(root), Entry(root.name, stat.st_size, stat.st_mtime))]
    found = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        stat = path.stat()
        found.append((str(path), Entry(path.relative_to(root).as_posix(), stat.st_size, stat.st_mtime)))
    return found


def download_location(location: str, folder: Path, objects: Objects | None = None) -> Path:
    """A local file of ``location``: an ``s3://`` object downloaded into ``folder`` under its own name (through
    ``objects``, this process's by default), or a ``file://`` URI or path as it is.

    Raises:
        FileNotFoundError: there is no such object or file. LocationError: an s3 location that would leave the
            object store.
    """
    if not is_s3(location):
        path = Path(location.removeprefix("file://"))
        if not path.exists():
            raise FileNotFoundError(f"{location} does not exist")
        return path
    name = parse_s3(location).key.rsplit("/", 1)[-1]
    if not name:
        raise FileNotFoundError(f"{location} names no object")
    folder.mkdir(parents=True, exist_ok=True)
    (objects or process_objects()).download(location, folder / name)
    return folder / name
