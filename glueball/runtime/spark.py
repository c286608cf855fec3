"""The Spark session of a Glue script: one per process, sensible for a small machine.

JDBC drivers come from Debian packages (``libpostgresql-jdbc-java``, ``libmariadb-java``) and are put on
the driver's and executors' classpath, with the JVM connectors of glueball's pinned list
(``glueball.jvm``: Spark's Kafka connector by default, ``GLUEBALL_JVM_FEATURES`` names others), fetched
with Maven the first time a session needs them; ``GLUEBALL_EXTRA_JARS`` adds more. Glue's semantics need
non-ANSI SQL (a failed cast is NULL, not an error), which Spark 4 no longer has by default. ``s3://``,
``s3a://`` and ``s3n://`` paths reach the object store through glueball's Hadoop FileSystem
(``glueball.runtime.hadoop``), whose jar is on the classpath too."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from glueball import jvm
from glueball.objects.locations import LocationError, is_s3, object_store_root
from glueball.objects.reach import through_s3_api
from glueball.runtime import hadoop, hivecatalog, lakeformats, pydaemon
from glueball.runtime.capacity import is_local_master
from glueball.runtime.io import rawkinds
from glueball.runtime.jvmshare import with_share

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

JDBC_DRIVER_JARS = (
    "/usr/share/java/postgresql.jar",
    "/usr/share/java/mariadb-java-client.jar",
)

DEFAULT_CONF = {
    # Python workers run this interpreter (the one with glueball installed), not whatever is on PATH
    "spark.pyspark.python": sys.executable,
    "spark.pyspark.driver.python": sys.executable,
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.ansi.enabled": "false",
    "spark.sql.shuffle.partitions": "8",
    "spark.sql.adaptive.enabled": "true",
    "spark.sql.session.timeZone": "UTC",
    "spark.driver.memory": "2g",
    "spark.sql.sources.partitionOverwriteMode": "dynamic",
    "spark.sql.legacy.timeParserPolicy": "CORRECTED",
    # executors' memory sampled every second into each task's end event: the heap metrics of a run (glue.*.jvm.heap.*,
    # served by glueball.logs) come from those samples. On every session, so warm drivers have the shape runs ask for
    "spark.executor.metrics.pollingInterval": "1s",
}


def jdbc_jars() -> list[str]:
    """The JDBC driver jars on this machine and ``GLUEBALL_EXTRA_JARS`` (comma separated), those that exist."""
    extra = [j for j in os.environ.get("GLUEBALL_EXTRA_JARS", "").split(",") if j]
    return [j for j in (*JDBC_DRIVER_JARS, *extra) if Path(j).exists()]


DEFAULT_JVM_FEATURES = ("kafka",)


def jvm_features(formats: tuple[str, ...] = ()) -> list[str]:
    """The features of glueball's pinned JVM list every Spark session of this process gets: ``kafka`` (as every
    Glue job has Spark's Kafka connector), ``s3a`` when s3:// goes through S3A (``GLUEBALL_S3_FILESYSTEM=s3a``
    or any S3 API behind s3://: ``glueball.objects.reach``), plus those ``GLUEBALL_JVM_FEATURES`` names (comma
    separated), plus the data lake ``formats`` of its driver (``--datalake-formats``: each format is the feature of
    its name)."""
    named = [f.strip() for f in os.environ.get("GLUEBALL_JVM_FEATURES", "").split(",") if f.strip()]
    s3a = ["s3a"] if os.environ.get(hadoop.S3_FILESYSTEM_ENV, "").strip().lower() == "s3a" \
        or through_s3_api() else []
    return list(dict.fromkeys([*DEFAULT_JVM_FEATURES, *s3a, *named, *formats]))


def connector_jars(formats: tuple[str, ...] = ()) -> list[str]:
    """The jars of :func:`jvm_features` (fetched on first need); a feature whose jars cannot be had now is left
    out, and what uses it says so when it is used (``glueball.jvm.JarsUnavailable``)."""
    found: list[str] = []
    for name in jvm_features(formats):
        try:
            found.extend(str(p) for p in jvm.jars(name))
        except jvm.JarsUnavailable:
            continue
    return found


def driver_jars(formats: tuple[str, ...] = ()) -> list[str]:
    """The jars of every Spark driver glueball starts: :func:`jdbc_jars`, the connectors of :func:`jvm_features`
    (with those of the driver's data lake ``formats``), glueball's Hadoop FileSystem and its raw-kinds scanner (each
    built on first use; left out when it cannot be built)."""
    jars = [*jdbc_jars(), *connector_jars(formats)]
    for own in (hadoop.jar(), rawkinds.jar()):
        if own is not None:
            jars.append(str(own))
    return jars


# a hidden object that makes an s3:// event log prefix a directory (Spark refuses a missing one; its history
# server skips names starting with ".")
EVENT_LOG_PLACEHOLDER = ".glueball-event-logs"


def python_worker_settings(master: str) -> dict[str, str]:
    """The Python worker daemon of a ``master`` on this host (``local...``): glueball's
    (:mod:`glueball.runtime.pydaemon`), which imports PySpark from its installed, compiled package rather than
    Spark's archive of the same release, and whose workers do not re-read Spark's zip archives before every task on
    Python 3.11. Elsewhere, executors' interpreters are not known to have glueball: PySpark's own."""
    if not is_local_master(master):
        return {}
    return {"spark.python.daemon.module": pydaemon.__name__}


def base_settings(jars: list[str], master: str) -> dict[str, str]:
    """:data:`DEFAULT_CONF`, the Python workers of ``master`` (:func:`python_worker_settings`), the file systems of
    ``s3``, ``s3a`` and ``s3n`` (over ``$GLUEBALL_HOME/s3``), and the Data Catalog as Spark's metastore
    (:mod:`glueball.runtime.hivecatalog`, whose endpoint starts here)."""
    settings = dict(DEFAULT_CONF)
    settings.update(python_worker_settings(master))
    settings.update(hadoop.filesystem_settings(jars, object_store_root().absolute()))
    s3_native = settings.get("spark.hadoop.fs.s3.impl") in (hadoop.FILESYSTEM, hadoop.S3A_FILESYSTEM)
    settings.update(hivecatalog.spark_settings(s3_native))
    return settings


def serve_this_home(session: SparkSession) -> None:
    """Point a running session's ``s3://`` file systems at this process's object store, as it is now.

    A warm driver (:mod:`glueball.runtime.warm_driver`) starts its SparkContext before it has a run, under the
    environment of the process that started its pool; once it takes a run's environment, the run's object store
    (``GLUEBALL_HOME``, ``GLUEBALL_S3_ENDPOINT``) is the one its plain ``df.write.parquet("s3://...")`` and
    ``CREATE TABLE ... LOCATION`` must reach: the Hadoop configuration of the context, the SparkConf later
    sessions start from and the session's own settings are all set again. The catalog now served has the
    ``default`` database Spark makes at start in the one it started with.
    """
    context = session.sparkContext
    settings = hadoop.filesystem_settings(driver_jars(), object_store_root().absolute())
    if context._jsc.hadoopConfiguration().get(hadoop.ROOT_KEY) != settings.get(f"spark.hadoop.{hadoop.ROOT_KEY}"):
        jvm = context._jvm
        assert jvm is not None  # a running context's gateway
        jvm.org.apache.hadoop.fs.FileSystem.closeAll()  # instances made before hold the old root
    if f"spark.hadoop.{hadoop.ROOT_KEY}" not in settings:
        context._jsc.hadoopConfiguration().unset(hadoop.ROOT_KEY)
        context._jsc.sc().conf().remove(f"spark.hadoop.{hadoop.ROOT_KEY}")
        session.conf.unset(f"spark.hadoop.{hadoop.ROOT_KEY}")
    for key, value in settings.items():
        context._jsc.hadoopConfiguration().set(key.removeprefix("spark.hadoop."), value)
        context._jsc.sc().conf().set(key, value)
        session.conf.set(key, value)
    hivecatalog.have_default_database(session)


def prepare_event_log(settings: dict[str, str]) -> None:
    """Make an ``s3://`` event log directory before Spark starts (Spark refuses a missing one): a folder of the
    local store, or, through an S3 API, a placeholder object that makes the prefix a directory for S3A; without
    glueball's Hadoop FileSystem, give Spark that directory as a local folder instead."""
    from glueball.objects.access import LocalObjects, process_objects

    directory = settings.get("spark.eventLog.dir", "")
    enabled = settings.get("spark.eventLog.enabled", "false").strip().lower() == "true"
    if not enabled or not is_s3(directory):
        return
    try:
        objects = process_objects()
        if not isinstance(objects, LocalObjects):
            objects.write(directory.rstrip("/") + "/" + EVENT_LOG_PLACEHOLDER, b"")
            return
        folder = objects.path(directory)
    except LocationError:
        return  # the file system refuses it, saying why
    folder.mkdir(parents=True, exist_ok=True)
    scheme = directory.partition("://")[0]
    if settings.get(f"spark.hadoop.fs.{scheme}.impl") != hadoop.FILESYSTEM:
        settings["spark.eventLog.dir"] = folder.resolve().as_uri()


def spark_session(master: str | None = None, app_name: str = "glueball",
                  conf: dict[str, str] | None = None, for_run: bool = True) -> SparkSession:
    """The process's Spark session, created on first use.

    Args:
        master: a Spark master URL; defaults to ``$GLUEBALL_SPARK_MASTER`` or ``local[*]``.
        app_name: the application name shown by Spark.
        conf: extra Spark settings (``--conf k=v``), applied over the defaults.
        for_run: the session serves this process's run (False: a warm driver's, made before it has one), so its
            Iceberg catalogs are pointed at the run's glueball (:func:`glueball.runtime.lakeformats.serve_run`).
    """
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    master = master or os.environ.get("GLUEBALL_SPARK_MASTER", "local[*]")
    builder = SparkSession.builder.appName(app_name).master(master)
    given = {**json.loads(os.environ.get("GLUEBALL_SPARK_CONF") or "{}"), **(conf or {})}
    jars = driver_jars(lakeformats.formats_of(given))
    settings = base_settings(jars, master)
    if jars:
        settings["spark.jars"] = ",".join(jars)
        settings["spark.driver.extraClassPath"] = os.pathsep.join(jars)
    settings.update(given)
    if for_run:
        settings.update(lakeformats.catalog_settings(settings))
    prepare_event_log(settings)
    options = with_share(settings.get("spark.driver.extraJavaOptions"), jars)
    if options:  # the driver's JVM starts from the class-data-sharing archive (glueball.runtime.jvmshare)
        settings["spark.driver.extraJavaOptions"] = options
    for key, value in settings.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel(os.environ.get("GLUEBALL_SPARK_LOG_LEVEL", "ERROR"))
    if for_run:
        lakeformats.serve_run(session)
    return session
