"""The class-data-sharing archive of Spark drivers: where it is, when drivers use it."""

from __future__ import annotations

from pathlib import Path

import pytest

from glueball.runtime import jvmshare
from glueball.runtime.scriptrunner import parse_run_args, spark_submit_args


@pytest.fixture()
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GLUEBALL_JVM_CACHE", str(tmp_path))
    monkeypatch.delenv("GLUEBALL_JVM_SHARE", raising=False)
    monkeypatch.delenv("GLUEBALL_DRIVER_JAVA_OPTIONS", raising=False)  # the suite sets it for its drivers
    return tmp_path


def test_an_archive_belongs_to_one_class_path(cache: Path) -> None:
    one, other = jvmshare.archive_path(["/a.jar"]), jvmshare.archive_path(["/b.jar"])
    assert one != other and one.parent == cache and one.name.startswith("spark-") and one.suffix == ".jsa"
    assert jvmshare.archive_path(["/a.jar"]) == one


def test_drivers_use_the_archive_only_once_it_exists(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    jars: list[str] = []
    assert jvmshare.driver_java_options(jars) == ""
    assert jvmshare.with_share("-Dx=1", jars) == "-Dx=1"
    jvmshare.archive_path(jars).write_bytes(b"archive")
    options = jvmshare.driver_java_options(jars)
    assert options.startswith(f"-XX:SharedArchiveFile={jvmshare.archive_path(jars)} ")
    assert jvmshare.with_share("-Dx=1", jars) == f"-Dx=1 {options}"
    monkeypatch.setenv("GLUEBALL_DRIVER_JAVA_OPTIONS", "-XX:+UseSerialGC")
    assert jvmshare.with_share(None, jars) == f"{options} -XX:+UseSerialGC"
    monkeypatch.setenv("GLUEBALL_JVM_SHARE", "0")
    assert jvmshare.driver_java_options(jars) == "" and jvmshare.build(jars) is None


def test_glueball_run_starts_its_driver_from_the_archive(cache: Path) -> None:
    from glueball.runtime.spark import driver_jars

    script = cache / "job.py"
    script.write_text("print('hi')\n")
    plan = parse_run_args(str(script), ["--conf", "spark.driver.extraJavaOptions=-Dmine=1"])
    assert "SharedArchiveFile" not in spark_submit_args(plan)
    jvmshare.archive_path(driver_jars()).write_bytes(b"archive")
    args = spark_submit_args(plan)
    assert "-Dmine=1 -XX:SharedArchiveFile=" in args  # the script's own options are kept


def test_only_the_archives_used_last_are_kept(cache: Path) -> None:
    import os
    import time

    now = time.time()
    for age, name in enumerate(["spark-a.jsa", "spark-b.jsa", "spark-c.jsa", "spark-d.jsa", "other.txt"]):
        path = cache / name
        path.write_bytes(b"x")
        os.utime(path, (now - age, now - age))  # a is the newest
    (cache / "spark-e.jsa").write_bytes(b"x")
    os.utime(cache / "spark-e.jsa", (now - 8 * 86400, now - 8 * 86400))  # unused for a week
    (cache / ".building-old.jsa").write_bytes(b"x")
    os.utime(cache / ".building-old.jsa", (1000, 1000))
    (cache / ".building-now.jsa").write_bytes(b"x")  # a build under way
    jvmshare.prune(cache, keep=3)
    assert sorted(p.name for p in cache.iterdir()) == [".building-now.jsa", "other.txt", "spark-a.jsa",
                                                       "spark-b.jsa", "spark-c.jsa"]


def test_a_driver_starting_from_an_archive_marks_it_used(cache: Path) -> None:
    import os

    archive = jvmshare.archive_path([])
    archive.write_bytes(b"archive")
    os.utime(archive, (1000, 1000))
    assert jvmshare.driver_java_options([]).startswith(f"-XX:SharedArchiveFile={archive} ")
    assert archive.stat().st_mtime > 1000, "pruning keeps the archives drivers start from"
