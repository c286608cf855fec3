"""TestConnection's probes run as classes compiled once into glueball's jar cache, not from their source files (which
a JVM compiles on every launch); with no javac they still run from source. A probe run either way opens a real JDBC
connection to the suite's PostgreSQL."""

from __future__ import annotations

import os
import subprocess
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from glueball.connections import probe
from glueball.runtime import javabuild
from tools import services


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    folder = tmp_path / "jars"
    monkeypatch.setenv("GLUEBALL_HADOOP_CACHE", str(folder))
    probe._BUILDS.clear()  # each test builds (or fails to build) for its own cache
    yield folder
    probe._BUILDS.clear()


def _run(arguments: list[str], secrets: bytes) -> str:
    done = subprocess.run(["java", "-Xshare:auto", "-XX:TieredStopAtLevel=1", *arguments], input=secrets,
                          capture_output=True, timeout=120, check=False)
    return done.stdout.decode().strip()


def _postgres_secrets(server: services.DatabaseServer) -> bytes:
    properties = server.connection_properties()
    return b"".join(probe._line(properties.get(key, "")) for key in ("JDBC_CONNECTION_URL", "USERNAME", "PASSWORD"))


def test_the_jdbc_probe_runs_its_class_from_the_cache_built_once(cache: Path) -> None:
    pg = services.postgres()
    drivers = ["/usr/share/java/postgresql.jar"]
    arguments = probe.launch(probe.PROBE_SOURCE, drivers, [])
    jar = Path(arguments[1].split(":")[0])
    assert arguments[-1] == "ConnectionProbe" and jar.parent == cache, arguments
    assert arguments[1].split(":")[1:] == drivers  # the drivers on the class path it runs with
    assert "ConnectionProbe.class" in zipfile.ZipFile(jar).namelist()
    assert _run([*arguments, "15"], _postgres_secrets(pg)).splitlines()[-1].startswith("OK")

    built = jar.stat().st_mtime_ns
    probe._BUILDS.clear()  # another process: finds the jar, builds nothing
    assert probe.launch(probe.PROBE_SOURCE, drivers, []) == arguments
    assert jar.stat().st_mtime_ns == built


def test_the_kafka_probe_s_jar_follows_the_client_jars_it_was_compiled_against(cache: Path) -> None:
    classpath = probe.kafka_probe_classpath(msk_iam=False)
    arguments = probe.launch(probe.KAFKA_PROBE_SOURCE, classpath)
    jar = Path(arguments[1].split(":")[0])
    assert arguments[-1] == "KafkaProbe" and "KafkaProbe.class" in zipfile.ZipFile(jar).namelist()
    # the same sources against other client jars (another pinned kafka-clients) make another jar
    other = [str(Path(p).with_name("v2-" + Path(p).name)) for p in classpath]
    moved = javabuild.JavaJar("x", lambda: [probe.KAFKA_PROBE_SOURCE], list, RuntimeError, "",
                              facts=lambda: [Path(p).name for p in other]).jar_path()
    assert moved != jar


def test_without_javac_a_probe_runs_from_its_source(cache: Path, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    pg = services.postgres()
    bare = tmp_path / "bin"  # a PATH with java but no javac, and no JAVA_HOME
    bare.mkdir()
    java = subprocess.run(["sh", "-c", "command -v java"], capture_output=True, text=True, check=True).stdout.strip()
    (bare / "java").symlink_to(os.path.realpath(java))
    monkeypatch.setenv("PATH", str(bare))
    monkeypatch.delenv("JAVA_HOME", raising=False)
    arguments = probe.launch(probe.PROBE_SOURCE, ["/usr/share/java/postgresql.jar"], [])
    assert arguments == ["-cp", "/usr/share/java/postgresql.jar", str(probe.PROBE_SOURCE)]
    assert not list(cache.glob("*.jar"))
    monkeypatch.setenv("PATH", f"{bare}:{os.defpath}")
    assert _run([*arguments, "15"], _postgres_secrets(pg)).splitlines()[-1].startswith("OK")
