"""glueball's Hadoop FileSystem: ``s3://``, ``s3a://`` and ``s3n://`` in plain Spark, over the object store.

``spark.read.parquet("s3://bucket/key")``, ``df.write.parquet("s3a://bucket/key")`` and
``CREATE TABLE ... LOCATION 's3://...'`` in a Glue script reach ``$GLUEBALL_HOME/s3/bucket/key``
through ``dev.glueball.fs.ObjectStoreFileSystem``, a small Hadoop FileSystem whose Java source sits
beside this module. It is compiled on this machine with its JDK's ``javac`` against the Hadoop jars
pyspark ships (no Maven, no network): lazily, the first time a Spark session is configured
(:func:`jar`), or ahead of time with ``python -m glueball.runtime.hadoop``. The jar is cached in
``$GLUEBALL_HADOOP_CACHE`` (default ``~/.cache/glueball/hadoop``) as ``<digest>.jar``, the digest of
the Java sources, the pyspark version and the JVM; a build compiles into a temporary folder and renames
the finished jar into place, under a lock, so concurrent builders never see a partial jar.

Without a JDK, or when the build fails, Spark still starts, without the jar: glueball's own readers and
writers (which hand Spark local paths) are unaffected and only ``s3://`` in plain Spark fails. Every
Spark start then says why once on stderr, and ``glueball run`` ends a script that failed on such a
path with a :class:`HadoopJarError` naming what is missing (:func:`explain`).

With ``GLUEBALL_S3_ENDPOINT`` set, ``s3://`` means that S3-compatible store: the three schemes go to
Hadoop's ``S3AFileSystem`` when hadoop-aws is on the class path, else to a file system that refuses to
start with a message naming the jars it needs (:func:`filesystem_settings`).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from glueball.runtime.jvmshare import java_home

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
JAVA_RELEASE = "17"  # Spark 4's minimum: the classes load in any JVM that runs Spark
JAVAC_MISSING = "javac not found: install a JDK (openjdk-17-jdk-headless) to use s3:// paths in Spark"
KEEP = 8  # jars kept in the cache (a few kB each): those of the installations used last

_NO_FILESYSTEM = re.compile(r'No FileSystem for scheme "(s3[an]?)"')
_outcomes: dict[Path, Path | HadoopJarError] = {}  # jar path -> the jar, or why it could not be built
_warned = False


class HadoopJarError(RuntimeError):
    """glueball's Hadoop FileSystem jar cannot be built (no JDK, no pyspark Hadoop jars, javac failed)."""


def cache_dir() -> Path:
    """Where built jars are kept: ``$GLUEBALL_HADOOP_CACHE``, else ``$XDG_CACHE_HOME/glueball/hadoop``."""
    configured = os.environ.get("GLUEBALL_HADOOP_CACHE")
    if configured:
        return Path(configured)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "glueball" / "hadoop"


def sources() -> list[Path]:
    """The Java sources of the file system (package ``dev.glueball.fs``), in a stable order."""
    return sorted(Path(__file__).parent.glob("*.java"))


def _pyspark() -> tuple[str, Path]:
    """pyspark's version and its folder of jars."""
    import pyspark

    return pyspark.__version__, Path(pyspark.__file__).parent / "jars"


def compile_classpath() -> list[Path]:
    """The Hadoop jars pyspark ships that javac compiles against.

    Raises:
        HadoopJarError: pyspark has no ``hadoop-client-api`` jar.
    """
    _, folder = _pyspark()
    found = sorted(folder.glob("hadoop-client-api-*.jar"))
    if not found:
        raise HadoopJarError(f"no hadoop-client-api jar in {folder}: pyspark's Hadoop jars are needed to build "
                             "glueball's Hadoop FileSystem")
    return found


def jar_path() -> Path:
    """The jar of these sources, this pyspark and this JVM in the cache (built or not)."""
    version, folder = _pyspark()
    home = java_home()
    release = Path(home, "release") if home else None
    facts = [version, str(folder), home, release.read_text() if release and release.is_file() else ""]
    digest = hashlib.sha256()
    for fact in facts:
        digest.update(fact.encode() + b"\0")
    for source in sources():
        digest.update(source.name.encode() + b"\0" + source.read_bytes() + b"\0")
    return cache_dir() / f"{digest.hexdigest()[:16]}.jar"


def find_javac() -> str:
    """``$JAVA_HOME/bin/javac``, else the ``javac`` on ``PATH``.

    Raises:
        HadoopJarError: neither exists.
    """
    home = os.environ.get("JAVA_HOME")
    if home:
        candidate = Path(home, "bin", "javac")
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    found = shutil.which("javac")
    if not found:
        raise HadoopJarError(JAVAC_MISSING)
    return found


@contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """Hold the cache's build lock (``folder/.lock``) for the ``with`` block."""
    with open(folder / ".lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)  # one builder at a time; the others then find its jar
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def build(timeout: float = 300.0) -> Path:
    """The jar, compiled now unless the cache has it.

    Raises:
        HadoopJarError: no javac, no pyspark Hadoop jars, or javac failed (its message included).
    """
    target = jar_path()
    if target.is_file():
        return target
    javac = find_javac()
    classpath = compile_classpath()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with _locked(target.parent):
            if target.is_file():  # another process built it while this one waited
                return target
            with tempfile.TemporaryDirectory(prefix=".building-", dir=target.parent) as work:
                _compile(javac, classpath, Path(work, "classes"), timeout)
                scratch = Path(work, "filesystem.jar")
                _write_jar(Path(work, "classes"), scratch)
                os.replace(scratch, target)  # readers see a whole jar or none
    except OSError as exc:
        raise HadoopJarError(f"glueball's Hadoop FileSystem jar cannot be written to {target.parent}: {exc} "
                             "(GLUEBALL_HADOOP_CACHE names another folder)") from exc
    prune(target.parent)
    return target


def _compile(javac: str, classpath: list[Path], classes: Path, timeout: float) -> None:
    """Compile the sources into ``classes``.

    Raises:
        HadoopJarError: javac could not run, or failed (its output included).
    """
    command = [javac, "--release", JAVA_RELEASE, "-nowarn", "-encoding", "UTF-8", "-d", str(classes),
               "-cp", os.pathsep.join(str(p) for p in classpath), *(str(s) for s in sources())]
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.SubprocessError) as exc:
        raise HadoopJarError(f"{javac} could not run to build glueball's Hadoop FileSystem: {exc}") from exc
    if result.returncode != 0:
        output = (result.stderr or result.stdout).strip()[-2000:]
        raise HadoopJarError(f"javac failed to build glueball's Hadoop FileSystem (exit status "
                             f"{result.returncode}): {output}")


def _write_jar(classes: Path, jar_file: Path) -> None:
    """Zip the compiled ``classes`` folder, with a manifest, into ``jar_file``."""
    with zipfile.ZipFile(jar_file, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\r\nCreated-By: glueball\r\n\r\n")
        for path in sorted(classes.rglob("*.class")):
            archive.write(path, path.relative_to(classes).as_posix())


def prune(folder: Path, keep: int = KEEP) -> None:
    """Remove all but the ``keep`` most recently built jars (each pyspark and JVM has its own)."""
    jars = sorted(folder.glob("*.jar"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in jars[keep:]:
        try:
            old.unlink()
        except OSError:
            pass


def jar() -> Path | None:
    """The jar, built on first use in this process; None when it cannot be built (see :func:`unavailable_reason`)."""
    try:
        target = jar_path()
    except OSError as exc:
        _outcomes[cache_dir()] = HadoopJarError(f"glueball's Hadoop FileSystem sources cannot be read: {exc}")
        return None
    known = _outcomes.get(target)
    if known is None or (isinstance(known, Path) and not known.is_file()):
        try:
            known = build()
        except HadoopJarError as exc:
            known = exc
        _outcomes[target] = known
    return known if isinstance(known, Path) else None


def unavailable_reason() -> str | None:
    """Why this process has no jar (after :func:`jar` said None), or None."""
    try:
        outcome = _outcomes.get(jar_path())
    except OSError:
        outcome = _outcomes.get(cache_dir())
    return str(outcome) if isinstance(outcome, HadoopJarError) else None


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
    _, folder = _pyspark()
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


def _warn_unavailable() -> None:
    """Say once per process, on stderr, why s3:// in plain Spark is unavailable."""
    global _warned
    reason = unavailable_reason()
    if reason and not _warned:
        _warned = True
        print(f"glueball: s3://, s3a:// and s3n:// paths in plain Spark (spark.read, df.write, SQL LOCATION) are "
              f"unavailable: {reason}", file=sys.stderr)
