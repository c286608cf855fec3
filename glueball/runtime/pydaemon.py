"""PySpark's Python worker daemon (``pyspark.daemon``) for local drivers, with zip archives read once.

Every task a Python worker runs begins with ``importlib.invalidate_caches()`` (PySpark's ``setup_spark_files``),
and on Python 3.11 a zip archive's importer answers that by reading the archive's whole directory again, at once.
Spark puts three archives on its workers' ``PYTHONPATH``: ``pyspark.zip``, py4j's, and the ``spark-core`` jar (5,358
entries): 34 ms of a worker's CPU for every task measured here, three quarters of a worker's time in a test of
Map and Filter lambdas over a dozen rows. Python 3.12 made that re-read lazy (on the next import from the archive);
this module gives 3.11 the same effect by re-reading an archive only when its size or modification time changed
since it was last read, so a zip that does change is still seen anew.

Spark starts it as ``python -m glueball.runtime.pydaemon pyspark.worker`` (``spark.python.daemon.module``, set for
local masters only: :func:`glueball.runtime.spark.python_worker_settings`); the workers it forks inherit the change.
"""

from __future__ import annotations

import os
import runpy
import sys
import zipimport
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


if __name__ == "__main__":
    read_archives_once()
    runpy.run_module(DAEMON, run_name="__main__", alter_sys=True)
