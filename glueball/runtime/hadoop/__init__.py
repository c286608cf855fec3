"""glueball's Hadoop FileSystem: ``s3://``, ``s3a://`` and ``s3n://`` in plain Spark, over the object store.

``spark.read.parquet("s3://bucket/key")``, ``df.write.parquet("s3a://bucket/key")`` and
``CREATE TABLE ... LOCATION 's3://...'`` in a Glue script reach ``$GLUEBALL_HOME/s3/bucket/key``
through ``dev.glueball.fs.ObjectStoreFileSystem``, a small Hadoop FileSystem whose Java source sits
beside this module. It is compiled on this machine with its JDK's ``javac`` against the Hadoop jars
pyspark ships (no Maven, no network): lazily, the first time a Spark session is configured
(:func:`jar`), or ahead of time with ``python -m glueball.runtime.hadoop``; the build and its cache are
``glueball.runtime.javabuild``'s (``$GLUEBALL_HADOOP_CACHE``, default ``~/.cache/glueball/hadoop``,
``<digest>.jar`` of the Java sources, the pyspark version and the JVM; built under a lock and renamed
into place, so concurrent builders never see a partial jar).

Without a JDK, or when the build fails, Spark still starts, without the jar: glueball's own readers and
writers (which hand Spark local paths) are unaffected and only ``s3://`` in plain Spark fails. Every
Spark start then says why once on stderr, and ``glueball run`` ends a script that failed on such a
path with a :class:`HadoopJarError` naming what is missing (:func:`explain`).

With ``GLUEBALL_S3_ENDPOINT`` set, ``s3://`` means that S3-compatible store: the three schemes go to
Hadoop's ``S3AFileSystem`` when hadoop-aws is on the class path, else to a file system that refuses to
start with a message naming the jars it needs (:func:`filesystem_settings`).
"""

from __future__ import annotations

import os
import re
import sys
import zipfile
from pathlib import Path

from glueball.runtime import javabuild
from glueball.runtime.javabuild import cache_dir

__all__ = ["HadoopJarError", "build", "cache_dir", "explain", "filesystem_settings", "jar", "jar_path",
           "unavailable_reason"]

SCHEMES = ("s3", "s3a", "s3n")
FILESYSTEM = "dev.glueball.fs.ObjectStoreFileSystem"
ABSTRACT_FILESYSTEM = "dev.glueball.fs.ObjectStoreFs"
S3A_REQUIRED = "dev.glueball.fs.S3ARequiredFileSystem"
S3A_FILESYSTEM = "org.apache.hadoop.fs.s3a.S3AFileSystem"
ROOT_KEY = "fs.glueball.objectstore.root"
# mapred-default.xml sends s3a:// output to hadoop-aws's committers; over the local store, Hadoop's plain one
FILE_COMMITTER_FACTORY = "org.apache.hadoop.mapreduce.lib.output.FileOutputCommitterFactory"
JAVAC_MISSING = "javac not found: install a JDK (openjdk-17-jdk-headless) to use s3:// paths in Spark"

_NO_FILESYSTEM = re.compile(r'No FileSystem for scheme "(s3[an]?)"')
_warned = False


class HadoopJarError(RuntimeError):
    """glueball's Hadoop FileSystem jar cannot be built (no JDK, no pyspark Hadoop jars, javac failed)."""


def sources() -> list[Path]:
    """The Java sources of the file system (package ``dev.glueball.fs``), in a stable order."""
    return sorted(Path(__file__).parent.glob("*.java"))


def compile_classpath() -> list[Path]:
    """The Hadoop jars pyspark ships that javac compiles against.

    Raises:
        HadoopJarError: pyspark has no ``hadoop-client-api`` jar.
    """
    _, folder = javabuild.pyspark_jars()
    found = sorted(folder.glob("hadoop-client-api-*.jar"))
    if not found:
        raise HadoopJarError(f"no hadoop-client-api jar in {folder}: pyspark's Hadoop jars are needed to build "
                             "glueball's Hadoop FileSystem")
    return found


_JAR = javabuild.JavaJar("glueball's Hadoop FileSystem", sources, compile_classpath, HadoopJarError, JAVAC_MISSING)


def jar_path() -> Path:
    """The jar of these sources, this pyspark and this JVM in the cache (built or not)."""
    return _JAR.jar_path()


def build(timeout: float = 300.0) -> Path:
    """The jar, compiled now unless the cache has it.

    Raises:
        HadoopJarError: no javac, no pyspark Hadoop jars, or javac failed (its message included).
    """
    return _JAR.build(timeout)


def jar() -> Path | None:
    """The jar, built on first use in this process; None when it cannot be built (see :func:`unavailable_reason`)."""
    return _JAR.jar()


def unavailable_reason() -> str | None:
    """Why this process has no jar (after :func:`jar` said None), or None."""
    return _JAR.unavailable_reason()


def explain(exc: BaseException) -> HadoopJarError | None:
    """The reason behind Hadoop's ``No FileSystem for scheme "s3"`` when the jar could not be built, else None."""
    match = _NO_FILESYSTEM.search(str(exc))
    reason = unavailable_reason()
    if match is None or reason is None:
        return None
    return HadoopJarError(f"{match.group(1)}:// paths in Spark need glueball's Hadoop FileSystem, which is not "
                          f"available: {reason}")


def s3a_on_classpath(jars: list[str]) -> bool:
    """Whether Hadoop's S3AFileSystem (hadoop-aws) is in pyspark's jars or in ``jars``."""
    _, folder = javabuild.pyspark_jars()
    if any(folder.glob("hadoop-aws-*.jar")):
        return True
    entry = S3A_FILESYSTEM.replace(".", "/") + ".class"
    for candidate in sorted(jars, key=lambda j: "aws" not in Path(j).name):  # hadoop-aws first
        try:
            with zipfile.ZipFile(candidate) as archive:
                archive.getinfo(entry)
            return True
        except (KeyError, OSError, zipfile.BadZipFile):
            continue
    return False


def filesystem_settings(jars: list[str], root: Path) -> dict[str, str]:
    """The Spark settings (``spark.hadoop.*``) that give ``s3``, ``s3a`` and ``s3n`` their file system.

    Args:
        jars: the driver's jars (``glueball.runtime.spark.driver_jars``: this jar when it was built).
        root: the object store's folder, behind ``s3://``.
    """
    own = jar()
    if own is None:
        _warn_unavailable()
    if os.environ.get("GLUEBALL_S3_ENDPOINT"):
        if s3a_on_classpath(jars):  # s3a:// is S3A by Hadoop's own default
            return {f"spark.hadoop.fs.{scheme}.impl": S3A_FILESYSTEM for scheme in ("s3", "s3n")}
        return {f"spark.hadoop.fs.{scheme}.impl": S3A_REQUIRED for scheme in SCHEMES} if own else {}
    if own is None:
        return {}
    settings = {f"spark.hadoop.{ROOT_KEY}": str(root)}
    for scheme in SCHEMES:
        settings[f"spark.hadoop.fs.{scheme}.impl"] = FILESYSTEM
        settings[f"spark.hadoop.fs.AbstractFileSystem.{scheme}.impl"] = ABSTRACT_FILESYSTEM
    settings["spark.hadoop.mapreduce.outputcommitter.factory.scheme.s3a"] = FILE_COMMITTER_FACTORY
    return settings


def reroot(root: Path) -> None:
    """Point the running SparkContext's ``s3://`` file system at ``root``: a warm driver, started with the
    server's environment, taking on a run whose object store is another folder (``--home``)."""
    from pyspark import SparkContext

    context = SparkContext._active_spark_context
    if context is None or context._jsc is None or context._jvm is None:
        return
    conf = context._jsc.hadoopConfiguration()
    if conf.get(ROOT_KEY) is None or conf.get(ROOT_KEY) == str(root):
        return
    conf.set(ROOT_KEY, str(root))
    context._jvm.org.apache.hadoop.fs.FileSystem.closeAll()  # cached instances hold the old root


def _warn_unavailable() -> None:
    """Say once per process, on stderr, why s3:// in plain Spark is unavailable."""
    global _warned
    reason = unavailable_reason()
    if reason and not _warned:
        _warned = True
        print(f"glueball: s3://, s3a:// and s3n:// paths in plain Spark (spark.read, df.write, SQL LOCATION) are "
              f"unavailable: {reason}", file=sys.stderr)
