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

With ``GLUEBALL_S3_FILESYSTEM=s3a`` (a job's ``--s3-filesystem s3a``), the three schemes are Hadoop's
``S3AFileSystem`` speaking the S3 API of the glueball server the run reports to (``GLUEBALL_ENDPOINT``,
path-style, with the run's credentials: the server's keys, or the role's temporary ones under
``--auth iam``), as executors on other machines need: hadoop-aws comes from glueball's pinned JVM list
(the ``s3a`` feature, ``glueball.jvm``). With ``GLUEBALL_S3_ENDPOINT`` set, ``s3://`` means that
S3-compatible store, through S3A the same way. Without hadoop-aws on the class path either way, the three
schemes go to a file system that refuses to start with a message naming the jars it needs
(:func:`filesystem_settings`).
"""

from __future__ import annotations

import os
import re
import sys
import zipfile
from pathlib import Path
from typing import Any

from glueball.objects import locations
from glueball.runtime import javabuild
from glueball.runtime.javabuild import cache_dir

__all__ = ["HadoopJarError", "build", "cache_dir", "explain", "filesystem_settings", "jar", "jar_path",
           "output_path", "unavailable_reason"]

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


S3_FILESYSTEM_ENV = "GLUEBALL_S3_FILESYSTEM"
S3_FILESYSTEMS = ("glueball", "s3a")


def s3_filesystem() -> str:
    """``glueball`` (the object store's folder, read and written in place: one machine) or ``s3a`` (Hadoop's
    S3AFileSystem over an S3 API), from ``GLUEBALL_S3_FILESYSTEM``; ``s3a`` whenever ``GLUEBALL_S3_ENDPOINT``
    names a remote store.

    Raises:
        HadoopJarError: ``GLUEBALL_S3_FILESYSTEM`` names neither.
    """
    chosen = os.environ.get(S3_FILESYSTEM_ENV, "").strip().lower() or "glueball"
    if chosen not in S3_FILESYSTEMS:
        raise HadoopJarError(f"{S3_FILESYSTEM_ENV}={chosen!r}: expected one of {', '.join(S3_FILESYSTEMS)}")
    return "s3a" if os.environ.get("GLUEBALL_S3_ENDPOINT") else chosen


def s3a_settings(endpoint: str) -> dict[str, str]:
    """S3A against the S3 API at ``endpoint``: path-style (buckets are not host names here), the process's AWS
    credentials (``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY`` and a session token when there is one: a
    run's role), and Hadoop's classic rename committer (S3A's magic committers need Spark's hadoop-cloud
    module, which PySpark does not ship)."""
    settings = {f"spark.hadoop.fs.{scheme}.impl": S3A_FILESYSTEM for scheme in SCHEMES}
    region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1"
    settings.update({
        "spark.hadoop.fs.s3a.endpoint": endpoint,
        "spark.hadoop.fs.s3a.endpoint.region": region,
        "spark.hadoop.fs.s3a.path.style.access": "true",
        "spark.hadoop.fs.s3a.connection.ssl.enabled": str(endpoint.startswith("https://")).lower(),
        # a local server answers at once: Hadoop's defaults wait up to minutes between retries
        "spark.hadoop.fs.s3a.retry.limit": "3",
        "spark.hadoop.fs.s3a.attempts.maximum": "3",
    })
    key, secret = os.environ.get("AWS_ACCESS_KEY_ID"), os.environ.get("AWS_SECRET_ACCESS_KEY")
    if key and secret:
        settings["spark.hadoop.fs.s3a.access.key"] = key
        settings["spark.hadoop.fs.s3a.secret.key"] = secret
        token = os.environ.get("AWS_SESSION_TOKEN")
        if token:
            settings["spark.hadoop.fs.s3a.session.token"] = token
            settings["spark.hadoop.fs.s3a.aws.credentials.provider"] = \
                "org.apache.hadoop.fs.s3a.TemporaryAWSCredentialsProvider"
        else:
            settings["spark.hadoop.fs.s3a.aws.credentials.provider"] = \
                "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider"
    return settings


def filesystem_settings(jars: list[str], root: Path) -> dict[str, str]:
    """The Spark settings (``spark.hadoop.*``) that give ``s3``, ``s3a`` and ``s3n`` their file system.

    Args:
        jars: the driver's jars (``glueball.runtime.spark.driver_jars``: this jar when it was built).
        root: the object store's folder, behind ``s3://``.

    Raises:
        HadoopJarError: ``s3a`` was chosen for a process that reports to no server and names no S3 endpoint.
    """
    own = jar()
    if own is None:
        _warn_unavailable()
    if s3_filesystem() == "s3a":
        endpoint = os.environ.get("GLUEBALL_S3_ENDPOINT") or os.environ.get("GLUEBALL_ENDPOINT", "")
        if not endpoint.startswith(("http://", "https://")):
            raise HadoopJarError(f"{S3_FILESYSTEM_ENV}=s3a reads and writes s3:// through an S3 API, and this "
                                 "process has none: run it under a glueball server (GLUEBALL_ENDPOINT) or name "
                                 "a store with GLUEBALL_S3_ENDPOINT")
        if s3a_on_classpath(jars):
            return s3a_settings(endpoint)
        return {f"spark.hadoop.fs.{scheme}.impl": S3A_REQUIRED for scheme in SCHEMES} if own else {}
    if own is None:
        return {}
    settings = {f"spark.hadoop.{ROOT_KEY}": str(root)}
    for scheme in SCHEMES:
        settings[f"spark.hadoop.fs.{scheme}.impl"] = FILESYSTEM
        settings[f"spark.hadoop.fs.AbstractFileSystem.{scheme}.impl"] = ABSTRACT_FILESYSTEM
    settings["spark.hadoop.mapreduce.outputcommitter.factory.scheme.s3a"] = FILE_COMMITTER_FACTORY
    return settings


def output_path(spark: Any, uri: str) -> str:
    """The path through which glueball's own writers (the Glue sinks, relationalize's staging, spigot) have
    Spark write ``uri``.

    An ``s3://`` location of the local object store is written through this FileSystem when the session has
    it: given the local path instead, Spark would write through Hadoop's LocalFileSystem, a checksummed file
    system that leaves a ``.<name>.crc`` beside every file it writes, and the S3 API would list those
    beside the data (S3 has no such files). Anything else, and ``s3://`` without the FileSystem (no JDK to
    build it), is :func:`glueball.objects.locations.to_spark_path`'s.

    Raises:
        LocationError: an s3 URI that would escape the store.
    """
    if locations.is_s3(uri) and not os.environ.get("GLUEBALL_S3_ENDPOINT"):
        if spark.sparkContext._jsc.hadoopConfiguration().get("fs.s3.impl") == FILESYSTEM:
            return locations.parse_s3(uri).uri
    return locations.to_spark_path(uri)


def _warn_unavailable() -> None:
    """Say once per process, on stderr, why s3:// in plain Spark is unavailable."""
    global _warned
    reason = unavailable_reason()
    if reason and not _warned:
        _warned = True
        print(f"glueball: s3://, s3a:// and s3n:// paths in plain Spark (spark.read, df.write, SQL LOCATION) are "
              f"unavailable: {reason}", file=sys.stderr)
