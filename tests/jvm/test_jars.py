"""glueball.jvm: features of the pinned list resolved by a real Maven into the cache, PySpark's own jars left
out, and a clear message (remembered for a while) when Maven cannot be run or cannot resolve."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from glueball import jvm


@pytest.fixture()
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GLUEBALL_JARS_CACHE", str(tmp_path / "jars"))
    monkeypatch.delenv("GLUEBALL_MVN", raising=False)
    return tmp_path / "jars"


def test_a_feature_resolves_once_into_the_cache_without_pyspark_s_own_jars(cache: Path) -> None:
    assert jvm.available("kafka") is None
    found = jvm.jars("kafka")
    names = {p.name.rsplit("-", 1)[0] for p in found}
    assert {"spark-sql-kafka-0-10_2.13", "spark-token-provider-kafka-0-10_2.13", "kafka-clients",
            "commons-pool2"} <= names
    shipped = jvm.pyspark_artifacts()
    assert "zstd-jni" in shipped and not any(p.name.startswith(("zstd-jni", "lz4-java", "snappy-java",
                                                                 "slf4j-api", "scala-library")) for p in found)
    assert all(p.parent.parent == cache for p in found)
    assert jvm.available("kafka") == found  # cached: no Maven run the second time
    os.environ["GLUEBALL_MVN"] = "/nonexistent/mvn"
    try:
        assert jvm.jars("kafka") == found
    finally:
        del os.environ["GLUEBALL_MVN"]


def test_without_maven_the_message_names_the_feature_and_the_command(cache: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(jvm.JarsUnavailable) as excinfo:
        jvm.jars("msk-iam")
    message = str(excinfo.value)
    assert "AWS_MSK_IAM" in message and "Maven (mvn) is not installed" in message
    assert "glueball jars fetch msk-iam" in message


def test_a_failed_resolution_is_remembered_until_fetched_again(cache: Path, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    calls = tmp_path / "calls"
    fake = tmp_path / "mvn"
    fake.write_text(f"#!/bin/sh\necho x >> {calls}\necho '[ERROR] Could not transfer artifact: Unknown host'\n"
                    "exit 1\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("GLUEBALL_MVN", str(fake))
    for _ in range(3):
        with pytest.raises(jvm.JarsUnavailable, match="Unknown host"):
            jvm.jars("kafka")
    assert len(calls.read_text().split()) == 1  # Maven ran once; the next Spark starts do not pay for it
    with pytest.raises(jvm.JarsUnavailable, match="once Maven Central is reachable"):
        jvm.fetch("kafka")  # an explicit fetch tries again
    assert len(calls.read_text().split()) == 2


def test_an_unknown_feature_is_refused_by_name(cache: Path) -> None:
    with pytest.raises(jvm.JarsUnavailable, match="unknown JVM feature 'kafak'"):
        jvm.jars("kafak")
