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
Spark driver without one. The build holds a lock (``spark-<digest>.lock``), so there is one at a time
per archive: it writes a scratch file and renames it into place once whole (or removes it), and it
finishes on its own - a short-lived server stopped meanwhile leaves it to complete, and the next server,
finding the archive in place (or the build still under way), starts no other.
``GLUEBALL_JVM_SHARE=0`` turns the whole mechanism off.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import TextIO

_LOG_OFF = "-Xlog:cds=off -Xlog:cds+dynamic=off"  # a misfit archive is skipped without a word
_building = threading.Lock()
_started: set[Path] = set()  # the archives this process started building


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
    try:
        if time.time() - path.stat().st_mtime > _USE_MARK_SECONDS:
            os.utime(path)  # used: pruning keeps the archives drivers start from
    except OSError:
        return ""
    return f"-XX:SharedArchiveFile={path} {_LOG_OFF}"


def with_share(options: str | None, jars: list[str]) -> str:
    """``options`` (a driver's extraJavaOptions) with the archive's options added, and the JVM options
    of ``$GLUEBALL_DRIVER_JAVA_OPTIONS`` (for every Spark driver glueball starts)."""
    share = driver_java_options(jars)
    extra = os.environ.get("GLUEBALL_DRIVER_JAVA_OPTIONS", "")
    return " ".join(part for part in (options or "", share, extra) if part)


def build(jars: list[str], timeout: float = 300.0) -> Path | None:
    """Build the archive now, in a process of its own (:func:`build_here`), and wait for it; its path, or None
    when that failed. When another process is building it already (a server's build that outlived its server),
    wait for that one instead of starting a second."""
    if not enabled():
        return None
    target = archive_path(jars)
    if target.is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    proc = _start_builder(target, jars, timeout)
    try:
        proc.wait(timeout=timeout + 30)
    except subprocess.TimeoutExpired:
        pass  # the builder bounds itself
    _wait_unlocked(target, timeout)
    return target if target.is_file() else None


def _start_builder(target: Path, jars: list[str], timeout: float) -> subprocess.Popen[bytes]:
    env = dict(os.environ, GLUEBALL_JVM_SHARE="0")
    return subprocess.Popen(  # its own session: it finishes (or gives up) whether or not its starter lives on
        [sys.executable, "-m", "glueball.runtime.jvmshare", str(target), os.pathsep.join(jars), str(timeout)],
        env=env, preexec_fn=lambda: os.nice(10), start_new_session=True,  # behind the real work
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _lock_path(target: Path) -> Path:
    return target.with_suffix(".lock")


def _try_lock(target: Path) -> TextIO | None:
    """The build lock of ``target``, taken (held while the returned file is open); None when a build holds it."""
    handle = _lock_path(target).open("a")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        return None
    return handle


def building(jars: list[str]) -> bool:
    """Whether a process is building the archive of ``jars`` now."""
    target = archive_path(jars)
    if not target.parent.is_dir():
        return False
    held = _try_lock(target)
    if held is None:
        return True
    held.close()
    return False


def _wait_unlocked(target: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        held = _try_lock(target)
        if held is not None:
            held.close()
            return
        time.sleep(0.5)


def build_here(target: Path, jars: list[str], timeout: float) -> int:
    """Build ``target`` in this process (the builder ``python -m glueball.runtime.jvmshare`` runs): under its lock,
    so one build at a time per archive, into a scratch file renamed into place once the JVM has written it whole,
    the scratch removed otherwise - also when the build outlives the server that started it, or is ended."""
    lock = _try_lock(target)
    if lock is None or target.is_file():
        return 0  # being built by another process, or built already
    for left in target.parent.glob(f".building-{target.stem}-*.jsa"):  # a build that was killed: ours now
        left.unlink(missing_ok=True)
    scratch = target.parent / f".building-{target.stem}-{os.getpid()}.jsa"
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # the finally clause below still runs
    watchdog = threading.Timer(timeout, lambda: os.killpg(os.getpgid(0), signal.SIGTERM))
    watchdog.daemon = True
    watchdog.start()
    try:
        _workload(str(scratch), jars)
        if not scratch.is_file() or scratch.stat().st_size == 0:
            return 1
        os.replace(scratch, target)  # readers see a whole archive or none
        prune(target.parent)
        return 0
    finally:
        watchdog.cancel()
        scratch.unlink(missing_ok=True)
        lock.close()


KEEP = 8  # archives kept in the cache: those used last (every venv and class path on the machine has its own)
UNUSED_DAYS = 7  # beyond the newest, an archive no driver started from for this long goes
_USE_MARK_SECONDS = 3600.0


def prune(directory: Path, keep: int = KEEP) -> None:
    """Remove all but the ``keep`` most recently used archives (and, but the newest, those unused for
    :data:`UNUSED_DAYS`), and the scratch files of builds that died an hour ago or more. An archive's modification
    time is when a driver last started from it (:func:`driver_java_options` marks it)."""
    archives = sorted(directory.glob("spark-*.jsa"), key=lambda p: p.stat().st_mtime, reverse=True)
    stale = [p for p in archives[1:] if time.time() - p.stat().st_mtime > UNUSED_DAYS * 86400]
    abandoned = [p for p in directory.glob(".building-*.jsa") if time.time() - p.stat().st_mtime > 3600]
    for old in [*archives[keep:], *stale, *abandoned]:
        try:
            old.unlink()
        except OSError:
            pass


def build_in_background(jars: list[str]) -> None:
    """Start building the archive of ``jars``, once per process (a server's first Spark launch of those jars),
    unless it exists or another process builds it already. The build is a process of its own that finishes on its
    own: a server stopped meanwhile leaves it to complete, and the next server finds its archive in place."""
    target = archive_path(jars)
    if not enabled() or target.is_file() or building(jars):
        return
    with _building:
        if target in _started:
            return
        _started.add(target)
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
    sys.exit(build_here(Path(sys.argv[1]), [j for j in (sys.argv[2] if len(sys.argv) > 2 else "").split(os.pathsep)
                                            if j], float(sys.argv[3]) if len(sys.argv) > 3 else 300.0))
