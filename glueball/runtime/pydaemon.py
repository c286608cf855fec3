"""PySpark's Python worker daemon (``pyspark.daemon``) for local drivers, with zip archives read once.

Every task a Python worker runs begins with ``importlib.invalidate_caches()`` (PySpark's ``setup_spark_files``),
and on Python 3.11 a zip archive's importer answers that by reading the archive's whole directory again, at once.
Spark puts three archives on its workers' ``PYTHONPATH``: ``pyspark.zip``, py4j's, and the ``spark-core`` jar (5,358
entries): 34 ms of a worker's CPU for every task measured here, three quarters of a worker's time in a test of
Map and Filter lambdas over a dozen rows. Python 3.12 made that re-read lazy (on the next import from the archive);
this module gives 3.11 the same effect by re-reading an archive only when its size or modification time changed
since it was last read, so a zip that does change is still seen anew.

It also imports PySpark and py4j from the interpreter's installed, compiled copies when Spark's archives are the
same release (``<site-packages>/pyspark/python/lib/pyspark.zip`` of the pip-installed pyspark that is the running
Spark, and the ``py4j-<version>-src.zip`` of the installed py4j): modules in a zip that holds no bytecode are
compiled from source by every interpreter that imports them, 0.7 s of CPU each time a daemon starts (importing
``pyspark.daemon`` and ``pyspark.worker`` from the archive: 0.96 s, from the installed package: 0.23 s). Those
archives move to the end of ``sys.path``, so anything only they hold is still found there; archives of another
Spark (a ``SPARK_HOME`` of its own) stay where they are.

Spark starts it as ``python -m glueball.runtime.pydaemon pyspark.worker`` (``spark.python.daemon.module``, set for
local masters only: :func:`glueball.runtime.spark.python_worker_settings`); the workers it forks inherit the change.
"""

from __future__ import annotations

import os
import runpy
import sys
import zipimport
from importlib import machinery, metadata
from pathlib import Path
from typing import Any

DAEMON = "pyspark.daemon"


def _stamp(archive: str) -> tuple[int, int] | None:
    try:
        status = os.stat(archive)
    except OSError:
        return None
    return status.st_mtime_ns, status.st_size


def read_archives_once() -> None:
    """Make ``zipimporter.invalidate_caches`` re-read an archive only when it changed (Python before 3.12)."""
    if sys.version_info >= (3, 12) or getattr(zipimport.zipimporter.invalidate_caches, "_glueball", False):
        return
    reread = zipimport.zipimporter.invalidate_caches
    read: dict[str, tuple[int, int]] = {}

    def invalidate_caches(self: Any) -> None:
        stamp = _stamp(self.archive)
        if stamp is not None and read.get(self.archive) == stamp:
            return
        reread(self)
        if stamp is not None:
            read[self.archive] = stamp

    invalidate_caches._glueball = True  # type: ignore[attr-defined]
    zipimport.zipimporter.invalidate_caches = invalidate_caches  # type: ignore[method-assign]


def _installed(package: str, path: list[str]) -> Path | None:
    """The folder of ``package`` as ``path`` (no archives) would import it, or None."""
    spec = machinery.PathFinder.find_spec(package, path)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))).resolve()


def same_release_archives(path: list[str]) -> list[str]:
    """The entries of ``path`` that are Spark's archives of the PySpark and py4j installed beside them."""
    folders = [entry for entry in path if not entry.endswith(".zip")]
    found: list[str] = []
    pyspark = _installed("pyspark", folders)
    try:
        py4j = f"py4j-{metadata.version('py4j')}-src.zip" if _installed("py4j", folders) else None
    except metadata.PackageNotFoundError:
        py4j = None
    for entry in path:
        archive = Path(entry)
        if not entry.endswith(".zip") or pyspark is None or archive.resolve().parent != pyspark / "python" / "lib":
            continue
        if archive.name == "pyspark.zip" or archive.name == py4j:
            found.append(entry)
    return found


def prefer_installed_pyspark() -> None:
    """Import PySpark and py4j from their installed, compiled packages where Spark's archives are the same
    release: those archives go to the end of ``sys.path``."""
    moved = same_release_archives(sys.path)
    for entry in moved:
        sys.path.remove(entry)
    sys.path.extend(moved)


if __name__ == "__main__":
    prefer_installed_pyspark()
    read_archives_once()
    runpy.run_module(DAEMON, run_name="__main__", alter_sys=True)
