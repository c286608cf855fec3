"""Jars of glueball's own Java classes, compiled on this machine and cached.

glueball ships a few small Java classes as sources beside the Python modules that use them (its Hadoop
FileSystem for ``s3://``, the raw-text kinds scanner of the CSV and JSON readers, TestConnection's probes).
Each set is compiled with the machine's JDK (``$JAVA_HOME/bin/javac``, else the one on ``PATH``;
``--release 17``) against jars pyspark ships (no Maven, no network) or those the set names, the first time it
is needed, into ``$GLUEBALL_HADOOP_CACHE`` (default ``~/.cache/glueball/hadoop``) as ``<digest>.jar``: the
digest of the sources, the pyspark version, the JVM and whatever else the set's classes depend on (``facts``).
A build compiles into a temporary folder and renames the finished jar into place under a lock file, so
concurrent builders (several drivers starting at once) never see a partial jar; the cache keeps the newest
jars (:data:`KEEP`).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from glueball.runtime.jvmshare import java_home

JAVA_RELEASE = "17"  # Spark 4's minimum: the classes load in any JVM that runs Spark
KEEP = 12  # jars kept in the cache (a few kB each): those of the installations used last


def cache_dir() -> Path:
    """Where built jars are kept: ``$GLUEBALL_HADOOP_CACHE``, else ``$XDG_CACHE_HOME/glueball/hadoop``."""
    configured = os.environ.get("GLUEBALL_HADOOP_CACHE")
    if configured:
        return Path(configured)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "glueball" / "hadoop"


def pyspark_jars() -> tuple[str, Path]:
    """pyspark's version and its folder of jars."""
    import pyspark

    return pyspark.__version__, Path(pyspark.__file__).parent / "jars"


def find_javac() -> str | None:
    """``$JAVA_HOME/bin/javac``, else the ``javac`` on ``PATH``, else None."""
    home = os.environ.get("JAVA_HOME")
    if home:
        candidate = Path(home, "bin", "javac")
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return shutil.which("javac")


@contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """Hold the cache's build lock (``folder/.lock``) for the ``with`` block."""
    with open(folder / ".lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)  # one builder at a time; the others then find its jar
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def prune(folder: Path, keep: int = KEEP) -> None:
    """Remove all but the ``keep`` most recently built jars (each pyspark and JVM has its own)."""
    jars = sorted(folder.glob("*.jar"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in jars[keep:]:
        try:
            old.unlink()
        except OSError:
            pass


@dataclass
class JavaJar:
    """One set of Java sources and the jar they compile to.

    Attributes:
        what: what the jar is, for messages ("glueball's Hadoop FileSystem").
        sources: the ``.java`` files, in a stable order.
        classpath: the jars javac compiles against (raises ``error`` when they are missing).
        error: the exception class of every failure to build.
        javac_missing: the message when no javac is found.
        facts: what else the compiled classes depend on (the versions of the jars they compile against, where
            those are not pyspark's), part of the jar's digest.
    """

    what: str
    sources: Callable[[], list[Path]]
    classpath: Callable[[], list[Path]]
    error: type[Exception]
    javac_missing: str
    facts: Callable[[], list[str]] = list
    _outcomes: dict[Path, Path | Exception] = field(default_factory=dict)

    def jar_path(self) -> Path:
        """The jar of these sources, this pyspark and this JVM in the cache (built or not)."""
        version, folder = pyspark_jars()
        home = java_home()
        release = Path(home, "release") if home else None
        facts = [version, str(folder), home, release.read_text() if release and release.is_file() else "",
                 *self.facts()]
        digest = hashlib.sha256()
        for fact in facts:
            digest.update(fact.encode() + b"\0")
        for source in self.sources():
            digest.update(source.name.encode() + b"\0" + source.read_bytes() + b"\0")
        return cache_dir() / f"{digest.hexdigest()[:16]}.jar"

    def build(self, timeout: float = 300.0) -> Path:
        """The jar, compiled now unless the cache has it.

        Raises:
            Exception: of class ``error``: no javac, no pyspark jars to compile against, or javac failed.
        """
        target = self.jar_path()
        if target.is_file():
            return target
        javac = find_javac()
        if javac is None:
            raise self.error(self.javac_missing)
        classpath = self.classpath()
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            with _locked(target.parent):
                if target.is_file():  # another process built it while this one waited
                    return target
                with tempfile.TemporaryDirectory(prefix=".building-", dir=target.parent) as work:
                    self._compile(javac, classpath, Path(work, "classes"), timeout)
                    scratch = Path(work, "built.jar")
                    _write_jar(Path(work, "classes"), scratch)
                    os.replace(scratch, target)  # readers see a whole jar or none
        except OSError as exc:
            raise self.error(f"{self.what} jar cannot be written to {target.parent}: {exc} "
                             "(GLUEBALL_HADOOP_CACHE names another folder)") from exc
        prune(target.parent)
        return target

    def _compile(self, javac: str, classpath: list[Path], classes: Path, timeout: float) -> None:
        command = [javac, "--release", JAVA_RELEASE, "-nowarn", "-encoding", "UTF-8", "-d", str(classes),
                   "-cp", os.pathsep.join(str(p) for p in classpath), *(str(s) for s in self.sources())]
        try:
            result = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
        except (OSError, subprocess.SubprocessError) as exc:
            raise self.error(f"{javac} could not run to build {self.what}: {exc}") from exc
        if result.returncode != 0:
            output = (result.stderr or result.stdout).strip()[-2000:]
            raise self.error(f"javac failed to build {self.what} (exit status {result.returncode}): {output}")

    def jar(self) -> Path | None:
        """The jar, built on first use in this process; None when it cannot be (see :meth:`unavailable_reason`)."""
        try:
            target = self.jar_path()
        except OSError as exc:
            self._outcomes[cache_dir()] = self.error(f"{self.what} sources cannot be read: {exc}")
            return None
        known = self._outcomes.get(target)
        if known is None or (isinstance(known, Path) and not known.is_file()):
            try:
                known = self.build()
            except self.error as exc:
                known = exc
            self._outcomes[target] = known
        return known if isinstance(known, Path) else None

    def unavailable_reason(self) -> str | None:
        """Why this process has no jar (after :meth:`jar` said None), or None."""
        try:
            outcome = self._outcomes.get(self.jar_path())
        except OSError:
            outcome = self._outcomes.get(cache_dir())
        return str(outcome) if isinstance(outcome, Exception) else None


def _write_jar(classes: Path, jar_file: Path) -> None:
    """Zip the compiled ``classes`` folder, with a manifest, into ``jar_file``."""
    with zipfile.ZipFile(jar_file, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\r\nCreated-By: glueball\r\n\r\n")
        for path in sorted(classes.rglob("*.class")):
            archive.write(path, path.relative_to(classes).as_posix())
