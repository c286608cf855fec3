"""Files written by glueContext's writers are named as Glue names them.

Glue's file sinks do not leave Spark's ``part-00000-<uuid>-c000.json``: their objects are named
``run-<epoch ms>-part-r-00000`` (text formats; ``run-<transformation_ctx>-<n>-part-r-00000`` when the
sink has a transformation context, ``n`` counting that context's writes to the folder) and
``run-<...>-part-block-0-r-00000-snappy.parquet`` for Parquet (``part-block-0-0-r-`` under
partition folders; ``-uncompressed.parquet`` without compression). Tutorials and downstream jobs
list outputs by that prefix. A compressed text file keeps its codec's extension (``.gz``,
``.bz2``) so that readers still recognise the compression; ORC and Avro files keep ``.orc`` and
``.avro``. Files that were there before the write are never touched.

Names observed in AWS's documentation and in users' posts of Glue output listings; plain Spark
writes (``df.write``) keep Spark's names, as on Glue.

The renaming follows the write: the part files that appeared under the target during it are
renamed (listing the target before and after), then Spark's shared file listing cache is cleared
(Spark's writer lists what it committed, under the old names, and a later read of the folder
would otherwise look for them). Another writer's part files appearing in the same folder at the
same moment would be renamed too; they stay complete and readable.
"""

from __future__ import annotations

import re
import time
from typing import Any

_SPARK_PART = re.compile(r"^part-(\d+)-.*?(?:-c(\d{3}))?(\.[^-]*)?$")
_TEXT_CODECS = (".gz", ".bz2", ".deflate", ".lz4", ".snappy", ".zst")
_PARQUET_CODECS = {"none": "uncompressed", "uncompressed": "uncompressed"}


def _filesystem(spark: Any, target: str) -> tuple[Any, Any]:
    jvm = spark._jvm
    path = jvm.org.apache.hadoop.fs.Path(target)
    return path.getFileSystem(spark._jsc.hadoopConfiguration()), path


def existing_files(spark: Any, target: str) -> set[str]:
    """Every file under ``target`` (recursively), as Hadoop paths; empty when there is nothing yet."""
    fs, path = _filesystem(spark, target)
    if not fs.exists(path):
        return set()
    found: set[str] = set()
    listing = fs.listFiles(path, True)
    while listing.hasNext():
        found.add(str(listing.next().getPath().toString()))
    return found


def _prefix(before: set[str], transformation_ctx: str) -> str:
    names = [p.rsplit("/", 1)[-1] for p in before]
    if transformation_ctx:
        pattern = re.compile(r"^run-" + re.escape(transformation_ctx) + r"-(\d+)-part-")
        runs = [int(m.group(1)) for m in map(pattern.match, names) if m]
        return f"run-{transformation_ctx}-{max(runs, default=0) + 1}"
    stamp = int(time.time() * 1000)
    while any(name.startswith(f"run-{stamp}-") for name in names):
        stamp += 1
    return f"run-{stamp}"


def glue_name(spark_name: str, prefix: str, fmt: str, codec: str | None, partitioned: bool) -> str | None:
    """The Glue name of one file Spark wrote (``part-00003-...``), or None for a file that is not a part."""
    match = _SPARK_PART.match(spark_name)
    if match is None:
        return None
    task = f"{int(match.group(1)):05d}"
    extra = f"-{int(match.group(2))}" if match.group(2) and int(match.group(2)) else ""
    if fmt in ("parquet", "glueparquet"):
        block = "part-block-0-0-r-" if partitioned else "part-block-0-r-"
        name = _PARQUET_CODECS.get(codec or "snappy", codec or "snappy")
        return f"{prefix}-{block}{task}{extra}-{name}.parquet"
    suffix = ""
    if fmt in ("orc", "avro"):
        suffix = f".{fmt}"
    else:
        suffix = next((c for c in _TEXT_CODECS if spark_name.endswith(c)), "")
    return f"{prefix}-part-r-{task}{extra}{suffix}"


def rename_written(spark: Any, target: str, before: set[str], fmt: str, codec: str | None,
                   transformation_ctx: str, partitioned: bool) -> list[str]:
    """Rename the part files a write just added under ``target`` to Glue's names; the new paths."""
    fs, _ = _filesystem(spark, target)
    prefix = _prefix(before, transformation_ctx)
    renamed: list[str] = []
    for written in sorted(existing_files(spark, target) - before):
        folder, _, name = written.rpartition("/")
        new = glue_name(name, prefix, fmt, codec, partitioned)
        if new is None:
            continue
        jvm_path = spark._jvm.org.apache.hadoop.fs.Path
        destination = f"{folder}/{new}"
        if fs.rename(jvm_path(written), jvm_path(destination)):
            renamed.append(destination)
    if renamed:  # Spark's shared listing cache may hold the old names (its writer lists what it committed)
        spark._jvm.org.apache.spark.sql.execution.datasources.FileStatusCache.getOrCreate(
            spark._jsparkSession).invalidateAll()
        spark.catalog.refreshByPath(target)
    return renamed
