"""The raw-kinds scanner's jar: built like the Hadoop FileSystem's (glueball.runtime.javabuild), its own digest, on
every Spark driver's class path, and none without a JDK."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from glueball.runtime import hadoop
from glueball.runtime.io import rawkinds


@pytest.fixture()
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("GLUEBALL_HADOOP_CACHE", str(folder))
    return folder


def test_the_scanner_jar_holds_its_class_and_is_not_the_file_systems(cache: Path) -> None:
    built = rawkinds._JAR.build()
    assert built.parent == cache and built == rawkinds._JAR.jar_path()
    with zipfile.ZipFile(built) as jar:
        names = set(jar.namelist())
        assert "dev/glueball/spark/RawKinds.class" in names and jar.testzip() is None
        assert not any(name.startswith("dev/glueball/fs/") for name in names)
    assert hadoop.jar_path() != built  # its own sources, its own digest
    assert rawkinds._JAR.build() == built  # cached


def test_every_spark_driver_gets_both_jars(cache: Path) -> None:
    from glueball.runtime.spark import driver_jars

    jars = driver_jars()
    assert str(rawkinds.jar()) in jars and str(hadoop.jar()) in jars


def test_without_javac_there_is_no_scanner_jar_and_the_reason_says_why(cache: Path, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.setenv("JAVA_HOME", str(empty))
    with pytest.raises(rawkinds.RawKindsJarError, match="javac not found"):
        rawkinds._JAR.build()
    assert rawkinds.jar() is None
    assert rawkinds.unavailable_reason() == rawkinds.JAVAC_MISSING
    from glueball.runtime.spark import driver_jars

    assert str(rawkinds._JAR.jar_path()) not in driver_jars()
