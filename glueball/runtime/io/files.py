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


def _use_hadoop_fs(uri: str) -> bool:
    return locations.is_s3(uri) and bool(os.environ.get("GLUEBALL_S3_ENDPOINT"))


def list_files(uris: list[str], *, recurse: bool = False, exclusions: list[str] | None = None,
               spark: Any = None, include_hidden: bool = False) -> list[InputFile]:
    """The files a Glue read of ``uris`` covers (see the module docstring), in a stable order.

    Args:
        uris: ``s3://`` URIs, ``file://`` URIs or local paths, of files or folders.
        recurse: read the files of every sub-folder too (Glue's ``recurse``).
        exclusions: glob patterns of files to leave out.
        spark: the Spark session, needed only for a real S3 endpoint (listed with Hadoop's FileSystem).
        include_hidden: list ``_``/``.`` files too (purging deletes every object).
    """
    patterns = exclusions or []
    found: list[InputFile] = []
    for uri in uris:
        if _use_hadoop_fs(uri):
            found.extend(_list_hadoop(spark, uri, recurse, patterns, include_hidden))
        else:
            found.extend(_list_local(uri, recurse, patterns, include_hidden))
    return found


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


def _list_hadoop(spark: Any, uri: str, recurse: bool, patterns: list[str],
                 include_hidden: bool) -> list[InputFile]:
    if spark is None:
        raise GlueRuntimeError(f"listing {uri} on an S3 endpoint needs the Spark session")
    jvm = spark._jvm
    spark_path = locations.to_spark_path(uri)
    hpath = jvm.org.apache.hadoop.fs.Path(spark_path)
    fs = hpath.getFileSystem(spark._jsc.hadoopConfiguration())
    if not fs.exists(hpath):
        return []
    base = fs.getFileStatus(hpath)
    if base.isFile():
        return [InputFile(spark_path, uri, int(base.getLen()), base.getModificationTime() / 1000.0)]
    out: list[InputFile] = []
    pending: list[tuple[Any, str]] = [(hpath, "")]
    while pending:
        folder, rel = pending.pop()
        for status in fs.listStatus(folder):
            name = status.getPath().getName()
            if _hidden(name) and not include_hidden:
                continue
            child_rel = f"{rel}{name}"
            if status.isDirectory():
                if recurse:
                    pending.append((status.getPath(), child_rel + "/"))
                continue
            child_uri = _uri_join(uri, child_rel)
            if not _excluded(child_uri, child_rel, patterns):
                out.append(InputFile(status.getPath().toString(), child_uri, int(status.getLen()),
                                     status.getModificationTime() / 1000.0))
    out.sort(key=lambda f: f.uri)
    return out


def delete_file(spark: Any, item: InputFile) -> None:
    """Delete one listed file (local, or through Hadoop's FileSystem on an S3 endpoint)."""
    if _use_hadoop_fs(item.uri):
        jvm = spark._jvm
        hpath = jvm.org.apache.hadoop.fs.Path(item.spark_path)
        hpath.getFileSystem(spark._jsc.hadoopConfiguration()).delete(hpath, False)
        return
    os.remove(item.spark_path)


def list_dirs(spark: Any, uri: str) -> list[tuple[str, str]]:
    """The sub-folders of a folder: ``(name, uri)`` pairs (empty if it does not exist)."""
    if _use_hadoop_fs(uri):
        jvm = spark._jvm
        hpath = jvm.org.apache.hadoop.fs.Path(locations.to_spark_path(uri))
        fs = hpath.getFileSystem(spark._jsc.hadoopConfiguration())
        if not fs.exists(hpath):
            return []
        return sorted((s.getPath().getName(), _uri_join(uri, s.getPath().getName()))
                      for s in fs.listStatus(hpath) if s.isDirectory())
    root = locations.local_path(uri)
    if not root.is_dir():
        return []
    return sorted((e.name, _uri_join(uri, e.name)) for e in os.scandir(root) if e.is_dir())


def remove_empty_dirs(uri: str) -> None:
    """Remove the empty folders under (and including) a local folder: S3 has no empty folders."""
    if _use_hadoop_fs(uri):
        return
    root = locations.local_path(uri)
    if not root.is_dir():
        return
    for folder, _subdirs, _files in os.walk(root, topdown=False):
        try:
            os.rmdir(folder)
        except OSError:
            pass
