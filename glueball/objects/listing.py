"""Listing objects in key order straight from the folders, a page at a time.

S3 lists keys in UTF-8 binary order; Python compares strings by code point, the same order. A
folder's entries are visited sorted by name, a subfolder as ``name/`` (every key below it starts
so), which makes a depth-first walk yield keys in order. A page starts where the last one ended
(``StartAfter``, or the continuation token): whole folders before it are skipped by bisection, not
walked. With the delimiter ``/`` a subfolder becomes one common prefix without being entered;
another delimiter rolls keys up as they come.

Folder listings are remembered while the folder is unchanged (its modification time) and has been
for a second — file system times are coarse, so a folder changed within the last second is read
again — which makes paging through a big folder cost one read of it, not one per page.
"""

from __future__ import annotations

import bisect
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from glueball.objects.models import ObjectInfo
from glueball.objects.store import ObjectStore

AFTER_ALL = "\U0010ffff"  # appended to a common prefix: resume after everything below it
_REMEMBERED_ENTRIES = 2_000_000
_SETTLED_SECONDS = 1.0


@dataclass
class Page:
    objects: list[ObjectInfo]
    prefixes: list[str]
    truncated: bool
    resume_after: str | None  # what the next page starts after (a key, or a common prefix + AFTER_ALL)


@dataclass(frozen=True)
class _Folder:
    names: list[str]  # sort keys: a file's name, a subfolder's name + "/"
    folders: list[bool]


class Lister:
    """Pages of a bucket's keys for ListObjectsV2, ListObjects and the console."""

    def __init__(self, store: ObjectStore) -> None:
        self.store = store
        self._folders: OrderedDict[str, tuple[int, _Folder]] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def page(self, bucket: str, prefix: str = "", delimiter: str = "", after: str = "",
             max_keys: int = 1000) -> Page:
        """Up to ``max_keys`` objects and common prefixes of ``bucket`` after ``after``, in key order.

        Raises:
            NoSuchBucket: no such bucket.
        """
        self.store.bucket(bucket)
        base = self.store.bucket_path(bucket)
        objects: list[ObjectInfo] = []
        prefixes: list[str] = []
        resume: str | None = None
        if max_keys <= 0:
            return Page(objects, prefixes, False, None)
        collapse = delimiter == "/"
        for key, path, rolled in self._keys(base, prefix, after, collapse):
            if not rolled and delimiter and not collapse:
                found = key.find(delimiter, len(prefix))
                if found >= 0:
                    key, rolled = key[:found + len(delimiter)], True
                    if prefixes and prefixes[-1] == key:
                        continue
            if len(objects) + len(prefixes) >= max_keys:
                return Page(objects, prefixes, True, resume)
            if rolled:
                prefixes.append(key)
                resume = key + AFTER_ALL
                continue
            info = self._info(bucket, key, path)
            if info is not None:
                objects.append(info)
                resume = key
        return Page(objects, prefixes, False, None)

    def _info(self, bucket: str, key: str, path: Path) -> ObjectInfo | None:
        folder = key.endswith("/")
        try:
            stat = path.stat()
        except OSError:  # removed while listing
            return None
        meta = self.store.read_meta(path, 0 if folder else stat.st_size, stat.st_mtime_ns, folder)
        if folder and meta is None:
            return None
        return ObjectInfo(bucket, key, path, 0 if folder else stat.st_size, stat.st_mtime_ns, meta)

    def _keys(self, base: Path, prefix: str, after: str, collapse: bool) -> Iterator[tuple[str, Path, bool]]:
        """(key, path, is a common prefix) of every object whose key starts with ``prefix`` and is after
        ``after``, in order; with ``collapse``, subfolders are common prefixes."""
        folder_part, _, name_part = prefix.rpartition("/")
        start = base / folder_part if folder_part else base
        relative = folder_part + "/" if folder_part else ""
        if not start.is_dir():
            return
        if relative and not name_part and relative > after:
            # the prefix names a folder: its own folder object (a directory marker, S3A's mkdirs) comes first, as S3
            # lists the key equal to the prefix; a folder that only holds objects is none (_info)
            yield relative, start, False
        yield from self._walk(start, relative, name_part, after, collapse)

    def _walk(self, folder: Path, relative: str, name_prefix: str, after: str,
              collapse: bool) -> Iterator[tuple[str, Path, bool]]:
        listing = self._folder(folder)
        if listing is None:
            return
        names = listing.names
        low = bisect.bisect_left(names, name_prefix) if name_prefix else 0
        if after > relative and after.startswith(relative):
            tail = after[len(relative):]
            position = bisect.bisect_left(names, tail)
            if position > 0 and listing.folders[position - 1] and tail.startswith(names[position - 1]):
                position -= 1  # ``after`` lies inside this subfolder: resume within it
            low = max(low, position)
        elif after and after >= relative and not after.startswith(relative):
            return  # everything here sorts before ``after``
        for index in range(low, len(names)):
            name = names[index]
            if name_prefix and not name.startswith(name_prefix):
                return
            key = relative + name
            if not listing.folders[index]:
                if key > after:
                    yield key, folder / name, False
                continue
            child = folder / name[:-1]
            if collapse:
                if key > after and self._holds_objects(child):
                    yield key, child, True
                continue
            if key > after:
                yield key, child, False  # a folder object, if the folder carries a record
            yield from self._walk(child, key, "", after, False)

    def _holds_objects(self, folder: Path) -> bool:
        listing = self._folder(folder)
        if listing is None:
            return False
        if self.store.read_meta(folder, 0, 0, folder=True) is not None:
            return True
        return any(not is_folder or self._holds_objects(folder / name[:-1])
                   for name, is_folder in zip(listing.names, listing.folders, strict=True))

    def _folder(self, folder: Path) -> _Folder | None:
        path = str(folder)
        try:
            modified = os.stat(path).st_mtime_ns
        except OSError:
            return None
        remembered = self._folders.get(path)
        if remembered is not None and remembered[0] == modified:
            return remembered[1]
        entries: list[tuple[str, bool]] = []
        try:
            with os.scandir(path) as scan:
                for entry in scan:
                    try:
                        is_folder = entry.is_dir(follow_symlinks=True)
                    except OSError:
                        continue
                    entries.append((entry.name + "/", True) if is_folder else (entry.name, False))
        except (FileNotFoundError, NotADirectoryError):
            return None
        entries.sort()
        listing = _Folder([name for name, _ in entries], [is_folder for _, is_folder in entries])
        if time.time_ns() - modified > _SETTLED_SECONDS * 1e9:
            self._remember(path, modified, listing)
        return listing

    def _remember(self, path: str, modified: int, listing: _Folder) -> None:
        with self._lock:
            old = self._folders.pop(path, None)
            if old is not None:
                self._size -= len(old[1].names)
            self._folders[path] = (modified, listing)
            self._size += len(listing.names)
            while self._size > _REMEMBERED_ENTRIES and self._folders:
                _, (_, dropped) = self._folders.popitem(last=False)
                self._size -= len(dropped.names)
