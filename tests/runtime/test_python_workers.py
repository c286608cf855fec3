"""A local session's Python workers come from glueball's daemon (glueball.runtime.pydaemon): PySpark's worker,
imported from the installed package rather than Spark's archive of it, without re-reading Spark's zip archives
before each task."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest


def _worker_file() -> str:
    import pyspark.worker

    return str(Path(pyspark.worker.__file__).resolve())


def _archives_read_once() -> bool:
    import zipimport

    return bool(getattr(zipimport.zipimporter.invalidate_caches, "_glueball", False))


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="Python 3.12 reads archives lazily itself")
def test_a_local_session_s_python_tasks_run_in_workers_that_read_archives_once(spark: Any) -> None:
    from pyspark.sql.functions import udf

    assert spark.sparkContext.getConf().get("spark.python.daemon.module") == "glueball.runtime.pydaemon"

    reads_once = udf(lambda _: _archives_read_once(), "boolean")
    answers = {row[0] for row in spark.range(8).repartition(4).select(reads_once("id")).collect()}
    assert answers == {True}


def test_a_local_session_s_python_workers_import_the_installed_pyspark_not_spark_s_archive(spark: Any) -> None:
    import pyspark
    from pyspark.sql.functions import udf

    installed = Path(pyspark.__file__).resolve().parent  # the driver's: the pip-installed package
    worker_file = udf(lambda _: _worker_file(), "string")
    found = {row[0] for row in spark.range(4).repartition(2).select(worker_file("id")).collect()}
    assert found == {str(installed / "worker.py")}, found  # not .../python/lib/pyspark.zip/pyspark/worker.py
