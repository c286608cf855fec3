"""Class-data sharing for Spark drivers: their JVM starts from an archive of the classes a driver loads.

A Spark driver spends seconds of its start loading and verifying the same ten thousand classes.
Java 13+ can dump the classes an application loaded into a dynamic class-data-sharing archive
(``-XX:ArchiveClassesAtExit``) and map them on the next start (``-XX:SharedArchiveFile``): measured
here, a trivial ``glueball run`` takes 5.6-6.6 s instead of 9.0-9.5 s. The archive belongs to one
JVM, one Spark and one class path, so its name carries a digest of them; the JVM itself checks it
and silently starts without it when it does not fit (``-Xshare:auto``, the default).

The archive lives under ``$GLUEBALL_JVM_CACHE`` (default ``$XDG_CACHE_HOME/glueball/jvm``, i.e.
``~/.cache/glueball/jvm``), shared by every installation on the machine. It is built once, by a
child process that runs a small Spark workload and exits (``python -m glueball.runtime.jvmshare``,
or :func:`build`); the server starts that build in the background the first time it launches a
Spark driver without one. ``GLUEBALL_JVM_SHARE=0`` turns the whole mechanism off.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

_LOG_OFF = "-Xlog:cds=off -Xlog:cds+dynamic=off"  # a misfit archive is skipped without a word
_building = threading.Lock()
_started = False


def enabled() -> bool:
    return os.environ.get("GLUEBALL_JVM_SHARE", "1") != "0"


def cache_dir() -> Path:
    configured = os.environ.get("GLUEBALL_JVM_CACHE")
    if configured:
        return Path(configured)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "glueball" / "jvm"


def java_home() -> str:
    """The JVM Spark drivers run: ``$JAVA_HOME``, else the installation of the ``java`` on ``PATH`` ("" if none)."""
    home = os.environ.get("JAVA_HOME")
    if home:
        return home
    from shutil import which

    java = which("java")
    return str(Path(java).resolve().parents[1]) if java else ""


def archive_path(jars: list[str]) -> Path:
    """The archive of this JVM, this Spark and these driver jars (``glueball.runtime.spark.driver_jars``)."""
    import pyspark

    home = java_home()
    release = Path(home, "release")
    facts = [home, release.read_text() if release.exists() else "", pyspark.__version__, str(Path(
        pyspark.__file__).parent), *jars]
    digest = hashlib.sha256("\n".join(facts).encode()).hexdigest()[:16]
    return cache_dir() / f"spark-{digest}.jsa"


def driver_java_options(jars: list[str]) -> str:
    """The JVM options that start a Spark driver from the archive ("" when there is none yet)."""
    if not enabled():
        return ""
    path = archive_path(jars)
    return f"-XX:SharedArchiveFile={path} {_LOG_OFF}" if path.is_file() else ""


def with_share(options: str | None, jars: list[str]) -> str:
    """``options`` (a driver's extraJavaOptions) with the archive's options added, and the JVM options
    of ``$GLUEBALL_DRIVER_JAVA_OPTIONS`` (for every Spark driver glueball starts)."""
    share = driver_java_options(jars)
    extra = os.environ.get("GLUEBALL_DRIVER_JAVA_OPTIONS", "")
    return " ".join(part for part in (options or "", share, extra) if part)


def build(jars: list[str], timeout: float = 300.0) -> Path | None:
    """Build the archive now (in a child process); its path, or None when that failed."""
    if not enabled():
        return None
    target = archive_path(jars)
    if target.is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, scratch = tempfile.mkstemp(prefix=".building-", suffix=".jsa", dir=target.parent)
    os.close(fd)
    os.unlink(scratch)  # the JVM writes it at exit
    env = dict(os.environ, GLUEBALL_JVM_SHARE="0")
    try:
        subprocess.run([sys.executable, "-m", "glueball.runtime.jvmshare", scratch, os.pathsep.join(jars)],
                       env=env, timeout=timeout, preexec_fn=lambda: os.nice(10),  # behind the real work
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        if not Path(scratch).is_file():
            return None
        os.replace(scratch, target)  # readers see a whole archive or none
        prune(target.parent)
        return target
    except (subprocess.SubprocessError, OSError):
        return None
    finally:
        if os.path.exists(scratch):
            os.unlink(scratch)


KEEP = 3  # archives kept in the cache: those of the installations used last


def prune(directory: Path, keep: int = KEEP) -> None:
    """Remove all but the ``keep`` most recently made archives (each venv and class path has its own)."""
    archives = sorted(directory.glob("spark-*.jsa"), key=lambda p: p.stat().st_mtime, reverse=True)
    abandoned = [p for p in directory.glob(".building-*.jsa") if time.time() - p.stat().st_mtime > 3600]
    for old in [*archives[keep:], *abandoned]:  # and what a build that died an hour ago left
        try:
            old.unlink()
        except OSError:
            pass


def build_in_background(jars: list[str]) -> None:
    """Start building the archive in a thread of this process, once (a server's first Spark launch)."""
    global _started
    if not enabled() or archive_path(jars).is_file():
        return
    with _building:
        if _started:
            return
        _started = True
    threading.Thread(target=build, args=(jars,), name="glueball-jvm-share", daemon=True).start()


def _workload(scratch: str, jars: list[str]) -> None:
    """What a typical driver loads: SQL, DataFrames, Parquet and CSV, on the drivers' class path."""
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.master("local[2]").appName("glueball-jvm-share")
    settings = {"spark.ui.enabled": "false", "spark.pyspark.python": sys.executable}
    if jars:
        settings["spark.jars"] = ",".join(jars)
        settings["spark.driver.extraClassPath"] = os.pathsep.join(jars)
    settings["spark.driver.extraJavaOptions"] = f"-XX:ArchiveClassesAtExit={scratch}"
    for key, value in settings.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    with tempfile.TemporaryDirectory() as work:
        frame = spark.range(1000).selectExpr("id", "id % 7 AS k", "cast(id AS string) AS s")
        frame.groupBy("k").count().collect()
        frame.write.parquet(f"{work}/p")
        frame.write.option("header", "true").csv(f"{work}/c")
        spark.read.parquet(f"{work}/p").join(spark.read.option("header", "true").csv(f"{work}/c"), "id").count()
        spark.sql("SELECT k, sum(id) FROM range(10) CROSS JOIN (SELECT 1 AS k) GROUP BY k").collect()
    from pyspark import SparkContext

    gateway = SparkContext._gateway
    jvm = getattr(gateway, "proc", None)
    spark.stop()
    if gateway is not None:
        gateway.shutdown()
    if jvm is not None:  # the JVM writes the archive as it exits: wait for it, so the file is whole
        if jvm.stdin is not None:
            jvm.stdin.close()
        jvm.wait(timeout=240)


if __name__ == "__main__":
    _workload(sys.argv[1], [j for j in (sys.argv[2] if len(sys.argv) > 2 else "").split(os.pathsep) if j])
