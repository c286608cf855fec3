"""JVM artifacts from Maven Central, from one pinned list (``glueball/jvm/pom.xml``), cached per machine.

Each *feature* is a profile of ``pom.xml`` (Spark's Kafka connector, the MSK IAM login, hadoop-aws, the
test suite's Kafka broker, ...). :func:`jars` gives a feature's jars, resolved on first use: Maven
(``mvn``, ``$GLUEBALL_MVN``) lists the profile's runtime dependencies, downloading them into its own
repository (``~/.m2``), and the jars PySpark does not ship itself are copied into
``$GLUEBALL_JARS_CACHE`` (default ``~/.cache/glueball/jars``) as ``<feature>-<digest>/``: the digest of the
pinned list and the PySpark version, so a new pin is a new folder. A resolution copies into a temporary
folder and renames it into place under a lock, so concurrent drivers never see a partial set.

Jars PySpark already ships (the same artifact, in any version) are left out: Spark's own copy of a shared
library (lz4, snappy, zstd, slf4j, Scala's collections) is first on the class path anyway, and the
connectors are built against it.

Without Maven, or offline, nothing fails until a feature is used: :class:`JarsUnavailable` then names the
feature, what needs it and the command that fetches it (``glueball jars fetch FEATURE``, ``make jars``).
A failed resolution is remembered for :data:`RETRY_AFTER` seconds (``<feature>-<digest>.failed``), so a
machine without Maven Central does not pay Maven's start at every Spark start. Spark's own "Failed to find data
source: kafka" becomes that message through :func:`explain` (``glueball run`` and the Glue Kafka source use it).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

__all__ = ["DATA_SOURCES", "FEATURES", "Feature", "JarsUnavailable", "available", "cache_root", "explain", "feature",
           "fetch", "jars", "pyspark_artifacts"]

HERE = Path(__file__).resolve().parent
POM = HERE / "pom.xml"
SETTINGS = HERE / "settings.xml"
RETRY_AFTER = 3600.0
MAVEN_TIMEOUT = 1800.0


@dataclass(frozen=True)
class Feature:
    """One profile of the pinned list.

    Attributes:
        name: the profile's id (``kafka``).
        needed_by: what uses it, for messages ("Kafka and MSK sources").
        spark: whether its jars go on Spark's class path (PySpark's own jars are then left out).
    """

    name: str
    needed_by: str
    spark: bool = True


FEATURES: dict[str, Feature] = {f.name: f for f in (
    Feature("kafka", "Kafka and MSK sources (connection_type kafka, spark.readStream.format('kafka'))"),
    Feature("msk-iam", "MSK connections with IAM authentication (KAFKA_SASL_MECHANISM AWS_MSK_IAM)"),
    Feature("s3a", "s3a:// as Hadoop's S3AFileSystem against an S3 API (--s3-filesystem s3a, remote object stores)"),
    Feature("kafka-broker", "the Kafka broker of the test suite and bench/streaming.py", spark=False),
)}


class JarsUnavailable(RuntimeError):
    """A feature's jars are not in the cache and cannot be fetched now; the message says how to get them."""


def feature(name: str) -> Feature:
    try:
        return FEATURES[name]
    except KeyError:
        raise JarsUnavailable(f"unknown JVM feature {name!r}: known are {', '.join(FEATURES)}") from None


def cache_root() -> Path:
    """``$GLUEBALL_JARS_CACHE``, else ``$XDG_CACHE_HOME/glueball/jars`` (``~/.cache/glueball/jars``)."""
    configured = os.environ.get("GLUEBALL_JARS_CACHE")
    if configured:
        return Path(configured)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "glueball" / "jars"


def _pyspark_version() -> str:
    import pyspark

    return str(pyspark.__version__)


def _folder(name: str) -> Path:
    digest = hashlib.sha256()
    for part in (POM.read_bytes(), SETTINGS.read_bytes(), name.encode(), _pyspark_version().encode()):
        digest.update(part + b"\0")
    return cache_root() / f"{name}-{digest.hexdigest()[:12]}"


def pyspark_artifacts() -> set[str]:
    """The artifact ids of the jars PySpark ships (``pyspark/jars``), e.g. ``zstd-jni``, ``hive-exec``."""
    import pyspark

    names: set[str] = set()
    for path in (Path(pyspark.__file__).parent / "jars").glob("*.jar"):
        match = re.match(r"^(.+?)-\d", path.name)
        if match:
            names.add(match.group(1))
    return names


def available(name: str) -> list[Path] | None:
    """The feature's jars when the cache has them, else None (never runs Maven)."""
    folder = _folder(feature(name).name)
    if not (folder / ".complete").is_file():
        return None
    return sorted(folder.glob("*.jar"))


def jars(name: str) -> list[Path]:
    """The feature's jars: from the cache, else resolved now with Maven.

    Raises:
        JarsUnavailable: no Maven, Maven could not resolve them (offline, say), or an earlier attempt failed
            less than :data:`RETRY_AFTER` seconds ago; the message names the feature and how to fetch it.
    """
    found = available(name)
    if found is not None:
        return found
    failed = _folder(name).with_suffix(".failed")
    try:
        if time.time() - failed.stat().st_mtime < RETRY_AFTER:
            raise JarsUnavailable(failed.read_text())
    except FileNotFoundError:
        pass
    return fetch(name)


def fetch(name: str) -> list[Path]:
    """Resolve the feature with Maven now (unless the cache has it) and return its jars.

    Raises:
        JarsUnavailable: as :func:`jars`, remembered for :data:`RETRY_AFTER` seconds.
    """
    spec = feature(name)
    folder = _folder(spec.name)
    folder.parent.mkdir(parents=True, exist_ok=True)
    with _locked(folder.parent):
        found = available(name)
        if found is not None:
            return found
        failed = folder.with_suffix(".failed")
        try:
            listed = _maven_list(spec)
            staging = Path(tempfile.mkdtemp(prefix=f".{spec.name}-", dir=folder.parent))
            try:
                skip = pyspark_artifacts() if spec.spark else set()
                for artifact, path in listed:
                    if artifact not in skip:
                        shutil.copy2(path, staging / path.name)
                (staging / ".complete").write_text("".join(f"{a} {p}\n" for a, p in listed))
                shutil.rmtree(folder, ignore_errors=True)
                staging.rename(folder)
            except BaseException:
                shutil.rmtree(staging, ignore_errors=True)
                raise
        except JarsUnavailable as exc:
            failed.write_text(str(exc))
            raise
        failed.unlink(missing_ok=True)
        return sorted(folder.glob("*.jar"))


def _how_to_fetch(spec: Feature) -> str:
    return f"fetch them with `glueball jars fetch {spec.name}` (or `make jars` in a checkout)"


def _maven_list(spec: Feature) -> list[tuple[str, Path]]:
    """``(artifactId, jar)`` of the profile's runtime dependencies, downloaded into Maven's repository."""
    mvn = os.environ.get("GLUEBALL_MVN") or shutil.which("mvn")
    needs = f"{spec.needed_by} need{'s' if not spec.needed_by.endswith('s') else ''} the jars of glueball's " \
            f"'{spec.name}' feature (glueball/jvm/pom.xml)"
    if not mvn:
        raise JarsUnavailable(f"{needs}, which are not in {cache_root()} and Maven (mvn) is not installed: "
                              f"install Maven (Debian: maven), then {_how_to_fetch(spec)}")
    with tempfile.TemporaryDirectory(prefix="glueball-mvn-") as scratch:
        listing = Path(scratch) / "dependencies.txt"
        command = [mvn, "-B", "-q", "-gs", str(SETTINGS), "-f", str(POM), f"-P{spec.name}", "dependency:list",
                   "-DincludeScope=runtime", "-DoutputAbsoluteArtifactFilename=true",
                   f"-DoutputFile={listing}"]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=MAVEN_TIMEOUT,
                                  stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise JarsUnavailable(f"{needs}; Maven could not resolve them ({exc}): {_how_to_fetch(spec)} once "
                                  "Maven Central is reachable") from exc
        if done.returncode != 0 or not listing.is_file():
            lines = [line for line in (done.stdout + done.stderr).splitlines() if "ERROR" in line][:3]
            reason = " ".join(lines).replace("[ERROR]", "").strip() or f"mvn exited with {done.returncode}"
            raise JarsUnavailable(f"{needs}; Maven could not resolve them ({reason[:600]}): {_how_to_fetch(spec)} "
                                  "once Maven Central is reachable")
        return _parse_listing(listing.read_text())


def _parse_listing(text: str) -> list[tuple[str, Path]]:
    """``group:artifact:type[:classifier]:version:scope:/path.jar`` lines of ``dependency:list``."""
    found: list[tuple[str, Path]] = []
    for line in text.splitlines():
        parts = line.strip().split(":")
        if len(parts) < 6 or not parts[-1].endswith(".jar"):
            continue
        path = Path(parts[-1])
        if path.is_file():
            found.append((parts[1], path))
    return sorted(found)


@contextmanager
def _locked(folder: Path) -> Iterator[None]:
    with open(folder / ".lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


# the Spark data source short names a feature's jars provide: Spark's "Failed to find data source: NAME" is explained
DATA_SOURCES = {"kafka": "kafka"}
_NOT_FOUND = re.compile(r"Failed to find (?:the )?data source: ([\w-]+(?:\.[\w-]+)*)")


def explain(exc: BaseException) -> JarsUnavailable | None:
    """Why Spark failed to find a data source of one of the features (``kafka``), else None.

    The feature's :class:`JarsUnavailable` when its jars cannot be had now; when they can (fetched since), one
    saying that this Spark session was started without them.
    """
    match = _NOT_FOUND.search(str(exc))
    name = DATA_SOURCES.get(match.group(1).lower()) if match else None
    if name is None:
        return None
    try:
        found = jars(name)
    except JarsUnavailable as missing:
        return missing
    spec = feature(name)
    return JarsUnavailable(f"{spec.needed_by} need the jars of glueball's '{spec.name}' feature; they are in "
                           f"{found[0].parent if found else cache_root()} now, but this Spark session was started "
                           "without them: start it again")
