"""Creating a table with data is all or nothing: a failed CTAS or ``saveAsTable`` leaves nothing behind.

Spark writes a new table's files through its commit protocol (task output staged under ``_temporary``
or ``.spark-staging-*``, moved into place when the job commits) and registers the table in the catalog
only after the write succeeded (a Hive-format CTAS registers first and drops the table again when the
write fails). What a failed job can still leave is its staging folders — tasks that were running when
the job aborted recreate them — and a table folder holding only those: enough for Spark to refuse the
next run with ``LOCATION_ALREADY_EXISTS``, which is how dbt runs got stuck after one failed model.

So, in a session whose catalog is the Data Catalog (:mod:`glueball.runtime.hivecatalog`), a statement
that creates a table that does not exist yet (``CREATE TABLE [AS SELECT]``, ``df.write.saveAsTable``):

- before it runs, removes the table's folder if it holds no file but empty or hidden staging folders
  (a folder with data in it is left for Spark to refuse, as it should);
- when it fails and the table is still not in the catalog, removes what it wrote into a folder that held
  no data before.

``GLUEBALL_SQL_CATALOG=off`` turns this off with the metastore.
"""

from __future__ import annotations

import contextlib
import logging
import re
import threading
import time
from collections.abc import Callable
from typing import Any

log = logging.getLogger("glueball.runtime.tablewrites")
_CREATES = ("CreateTableAsSelect", "CreateTable", "ReplaceTableAsSelect")
_installed = False
_lock = threading.Lock()
_HIDDEN = re.compile(r"^[._]")
_CREATING = re.compile(r"(?<![A-Za-z0-9_])(CREATE|REPLACE)(?![A-Za-z0-9_])", re.IGNORECASE)


def _parser(spark: Any) -> Any:
    return spark._jsparkSession.sessionState().sqlParser()


def created_table(spark: Any, sql_text: str) -> tuple[list[str], str | None] | None:
    """The name parts and explicit ``LOCATION`` of the table a statement creates, or None for other statements
    (and for statements Spark cannot parse: Spark reports those itself)."""
    try:
        plan = _parser(spark).parsePlan(sql_text)
        if plan.getClass().getSimpleName() not in _CREATES:
            return None
        identifier = plan.name()
        parts = [str(p) for p in identifier.nameParts().mkString("\u0001").split("\u0001")]
        location = plan.tableSpec().location()
        return parts, (str(location.get()) if location.isDefined() else None)
    except Exception:
        return None


class _Guard:
    """One table creation: its folder before, cleaned up after a failure."""

    def __init__(self, spark: Any, parts: list[str], location: str | None) -> None:
        self.spark = spark
        self.database = parts[-2] if len(parts) >= 2 else str(spark.catalog.currentDatabase())
        self.table = parts[-1]
        self.active = not self._exists()
        self.location = location or (self._default_location() if self.active else None)
        self.was_empty = False
        if self.active and self.location:
            self.was_empty = not self._holds_data()
            if self.was_empty:
                self._remove()  # leftovers of an earlier failed write: nothing of them is data

    def _exists(self) -> bool:
        try:
            return bool(self.spark._jsparkSession.catalog().tableExists(self.database, self.table))
        except Exception:
            return False

    def _default_location(self) -> str | None:
        try:
            root = str(self.spark._jsparkSession.catalog().getDatabase(self.database).locationUri())
        except Exception:
            return None
        return f"{root.rstrip('/')}/{self.table.lower()}"

    def _fs_path(self) -> tuple[Any, Any]:
        context = self.spark.sparkContext
        path = context._jvm.org.apache.hadoop.fs.Path(self.location)
        return path.getFileSystem(context._jsc.hadoopConfiguration()), path

    def _holds_data(self) -> bool:
        """Whether the folder holds a file outside hidden (``_``/``.``) folders."""
        try:
            fs, path = self._fs_path()
            if not fs.exists(path):
                return False
            pending = [path]
            while pending:
                for status in fs.listStatus(pending.pop()):
                    name = str(status.getPath().getName())
                    if status.isDirectory():
                        if not _HIDDEN.match(name):
                            pending.append(status.getPath())
                    elif not _HIDDEN.match(name) or name == "_SUCCESS":
                        return True
            return False
        except Exception:
            return True  # unreadable: never remove it

    def _remove(self) -> None:
        try:
            fs, path = self._fs_path()
            if fs.exists(path):
                fs.delete(path, True)
        except Exception as exc:
            log.info("could not clean up %s: %s", self.location, exc)

    def failed(self) -> None:
        if self.active and self.location and self.was_empty and not self._exists():
            self._tasks_settled()
            self._remove()

    def _tasks_settled(self, timeout: float = 10.0) -> None:
        """Wait (at most ``timeout`` seconds) until no task runs on the session's executors: the failed job's
        other tasks are killed, not stopped, and one still running would write its staging folder again after
        the removal. The running tasks are counted from Spark's listener events, which are delivered behind the
        scheduler: the events posted so far are let through first, or a task whose start is still queued counts
        as not running (a staging folder was found again after a failed ``saveAsTable`` on a loaded machine)."""
        deadline = time.monotonic() + timeout
        try:
            context = self.spark.sparkContext._jsc.sc()
            with contextlib.suppress(Exception):  # not emptied in time: the tasks are counted as far as delivered
                context.listenerBus().waitUntilEmpty(int(timeout * 1000))
            tracker = context.statusTracker()
            while time.monotonic() < deadline:
                infos = tracker.getExecutorInfos()
                if sum(int(info.numRunningTasks()) for info in infos) == 0:
                    return
                time.sleep(0.05)
        except Exception as exc:
            log.info("could not wait for the failed job's tasks: %s", exc)


def is_hive_session(spark: Any) -> bool:
    """Whether ``spark``'s catalog is the metastore (:mod:`glueball.runtime.hivecatalog`). One call into the JVM:
    ``SparkContext.getConf()`` copies every setting, a few hundred calls, on each ``spark.sql``."""
    try:
        return str(spark.sparkContext._conf.get("spark.sql.catalogImplementation", "in-memory")) == "hive"
    except Exception:
        return False


def may_create_table(sql_text: str) -> bool:
    """Whether a statement could create a table at all: every statement that does (``CREATE [OR REPLACE] TABLE``,
    ``REPLACE TABLE``) says CREATE or REPLACE, so any other is not parsed a second time by :func:`created_table`."""
    return _CREATING.search(sql_text) is not None


def _guarded(spark: Any, created: tuple[list[str], str | None] | None, run: Callable[[], Any]) -> Any:
    if created is None:
        return run()
    guard = _Guard(spark, *created)
    try:
        return run()
    except BaseException:
        guard.failed()
        raise


def install() -> None:
    """Guard table creations of Hive-catalog sessions from now on (once per process)."""
    global _installed
    with _lock:
        if _installed:
            return
        from pyspark.sql import DataFrameWriter, SparkSession

        original_sql, original_save = SparkSession.sql, DataFrameWriter.saveAsTable

        def sql(self: Any, sqlQuery: str, *args: Any, **kwargs: Any) -> Any:  # noqa: N803
            created = created_table(self, sqlQuery) if isinstance(sqlQuery, str) and may_create_table(sqlQuery) \
                and is_hive_session(self) else None
            return _guarded(self, created, lambda: original_sql(self, sqlQuery, *args, **kwargs))

        def save_as_table(self: Any, name: str, *args: Any, **kwargs: Any) -> Any:
            spark = self._spark
            created = None
            if is_hive_session(spark):
                try:
                    parts = [str(p) for p in _parser(spark).parseMultipartIdentifier(name)]
                    created = (parts, kwargs.get("path"))
                except Exception:
                    created = None
            return _guarded(spark, created, lambda: original_save(self, name, *args, **kwargs))

        SparkSession.sql = sql  # type: ignore[method-assign]
        DataFrameWriter.saveAsTable = save_as_table  # type: ignore[method-assign]
        _installed = True
