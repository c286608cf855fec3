"""Listing the input files of an S3 (or local) read the way Glue does.

Glue reads the objects under each of ``paths``: only the ones directly under a
folder unless ``recurse`` is true, never Hadoop's hidden files (``_SUCCESS``,
``.crc``, names starting with ``_`` or ``.``), and none matching a glob of
``exclusions`` (a JSON list of Unix-style glob patterns: ``*`` inside one path
component, ``**`` across components, ``?``, ``[...]``, ``{a,b}``). A pattern
is matched against the full ``s3://`` URI and against the path relative to the
folder that was read, so ``"**.pdf"`` and ``"s3://bucket/logs/2019-*"`` both work.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from glueball.globs import glob_to_regex
from glueball.objects import locations
from glueball.runtime.errors import GlueRuntimeError


@dataclass(frozen=True)
class InputFile:
    """One file to read: its Spark path, its ``s3://``-style URI, size in bytes and mtime (epoch s)."""

    spark_path: str
    uri: str
    size: int
    mtime: float


def _hidden(name: str) -> bool:
    return name.startswith(("_", "."))


@lru_cache(maxsize=256)
def glob_regex(pattern: str) -> re.Pattern[str]:
    """The regex of a Glue exclusion glob: ``*`` stays in one component, ``**`` crosses them."""
    return re.compile(glob_to_regex(pattern) + r"\Z", re.DOTALL)


def parse_exclusions(value: Any) -> list[str]:
    """Glue's ``exclusions``: a string holding a JSON list of globs (a Python list is accepted too)."""
    if value is None or value == "":
        return []
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except json.JSONDecodeError as err:
            raise GlueRuntimeError(f"exclusions must be a JSON list of glob patterns, got {value!r}") from err
    else:
        parsed = value
    if not isinstance(parsed, list) or not all(isinstance(p, str) for p in parsed):
        raise GlueRuntimeError(f"exclusions must be a JSON list of glob patterns, got {value!r}")
    return list(parsed)


def _excluded(uri: str, relative: str, patterns: list[str]) -> bool:
    return any(glob_regex(p).match(uri) or glob_regex(p).match(relative) for p in patterns)


def _uri_join(base: str, name: str) -> str:
    return base.rstrip("/") + "/" + name


def _objects() -> Any:
    from glueball.objects.access import process_objects

    return process_objects()


def list_files(uris: list[str], *, recurse: bool = False, exclusions: list[str] | None = None,
               spark: Any = None, include_hidden: bool = False) -> list[InputFile]:
    """The files a Glue read of ``uris`` covers (see the module docstring), in a stable order.

    ``s3://`` locations are listed through the process's object store (:mod:`glueball.objects.access`:
    the installation's folder, or an S3 API when the driver's executors share no disk with the server);
    ``file://`` URIs and plain paths from the local disk.

    Args:
        uris: ``s3://`` URIs, ``file://`` URIs or local paths, of files or folders.
        recurse: read the files of every sub-folder too (Glue's ``recurse``).
        exclusions: glob patterns of files to leave out.
        spark: the Spark session (unused: kept for callers).
        include_hidden: list ``_``/``.`` files too (purging deletes every object).
    """
    patterns = exclusions or []
    found: list[InputFile] = []
    for uri in uris:
        if locations.is_s3(uri):
            found.extend(_list_objects(uri, recurse, patterns, include_hidden))
        else:
            found.extend(_list_local(uri, recurse, patterns, include_hidden))
    return found


def _list_objects(uri: str, recurse: bool, patterns: list[str], include_hidden: bool) -> list[InputFile]:
    objects = _objects()
    location = locations.parse_s3(uri)
    single = objects.stat(location.uri) if location.key and not location.folder else None
    if single is not None:
        if _excluded(uri, single.name, patterns):
            return []
        return [InputFile(locations.to_spark_path(uri), uri, single.size, single.mtime)]
    out: list[InputFile] = []
    pending = [""]
    while pending:
        rel = pending.pop()
        listed = objects.listdir(_uri_join(location.uri, rel) if rel else location.uri)
        for name in listed.folders:
            if recurse and (include_hidden or not _hidden(name)):
                pending.append(f"{rel}{name}/")
        for entry in listed.files:
            if _hidden(entry.name) and not include_hidden:
                continue
            child_rel = f"{rel}{entry.name}"
            child_uri = _uri_join(uri, child_rel)
            if not _excluded(child_uri, child_rel, patterns):
                out.append(InputFile(locations.to_spark_path(child_uri), child_uri, entry.size, entry.mtime))
    out.sort(key=lambda f: f.uri)
    return out


def _list_local(uri: str, recurse: bool, patterns: list[str], include_hidden: bool) -> list[InputFile]:
    root = locations.local_path(uri)
    if not root.exists():
        return []
    if root.is_file():
        stat = root.stat()
        if _excluded(uri, root.name, patterns):
            return []
        return [InputFile(str(root), uri, stat.st_size, stat.st_mtime)]
    out: list[InputFile] = []
    pending: list[tuple[str, str]] = [(str(root), "")]
    while pending:
        folder, rel = pending.pop()
        with os.scandir(folder) as entries:
            listed = sorted(entries, key=lambda e: e.name)
        for entry in listed:
            if _hidden(entry.name) and not include_hidden:
                continue
            child_rel = f"{rel}{entry.name}"
            if entry.is_dir():
                if recurse:
                    pending.append((entry.path, child_rel + "/"))
                continue
            child_uri = _uri_join(uri, child_rel)
            if _excluded(child_uri, child_rel, patterns):
                continue
            stat = entry.stat()
            out.append(InputFile(entry.path, child_uri, stat.st_size, stat.st_mtime))
    out.sort(key=lambda f: f.uri)
    return out


def delete_file(spark: Any, item: InputFile) -> None:
    """Delete one listed file (an object, or a local file)."""
    if locations.is_s3(item.uri):
        _objects().delete(item.uri)
        return
    os.remove(item.spark_path)


def list_dirs(spark: Any, uri: str) -> list[tuple[str, str]]:
    """The sub-folders of a folder: ``(name, uri)`` pairs (empty if it does not exist)."""
    if locations.is_s3(uri):
        return sorted((name, _uri_join(uri, name)) for name in _objects().listdir(uri).folders)
    root = locations.local_path(uri)
    if not root.is_dir():
        return []
    return sorted((e.name, _uri_join(uri, e.name)) for e in os.scandir(root) if e.is_dir())


def remove_empty_dirs(uri: str) -> None:
    """Remove the empty folders under (and including) a local folder: S3 has no empty folders (and the local
    store's own code prunes the folders its deletions empty)."""
    if locations.is_s3(uri):
        return
    root = locations.local_path(uri)
    if not root.is_dir():
        return
    for folder, _subdirs, _files in os.walk(root, topdown=False):
        try:
            os.rmdir(folder)
        except OSError:
            pass
