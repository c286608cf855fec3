"""glueball's Hadoop FileSystem jar: built once into its cache, a clear error without a JDK, Spark's settings."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from glueball.runtime import hadoop
from glueball.runtime.scriptrunner import parse_run_args, spark_submit_args

CLASSES = {"dev/glueball/fs/ObjectStoreFileSystem.class", "dev/glueball/fs/ObjectStoreFs.class",
           "dev/glueball/fs/S3ARequiredFileSystem.class"}


@pytest.fixture()
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty jar cache of the test's own (GLUEBALL_HADOOP_CACHE)."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("GLUEBALL_HADOOP_CACHE", str(folder))
    return folder


@pytest.fixture()
def no_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    """The local object store, not a remote S3-compatible one."""
    monkeypatch.delenv("GLUEBALL_S3_ENDPOINT", raising=False)


def test_the_jar_is_built_once_and_then_reused(cache: Path) -> None:
    built = hadoop.build()
    assert built.parent == cache and built.suffix == ".jar" and built == hadoop.jar_path()
    with zipfile.ZipFile(built) as jar:
        assert CLASSES <= set(jar.namelist()) and jar.testzip() is None
    before = built.stat()
    assert hadoop.build() == built and hadoop.jar() == built
    after = built.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)  # not built again
    assert sorted(p.name for p in cache.iterdir()) == [".lock", built.name]  # no scratch left behind


def test_a_jar_belongs_to_its_sources_pyspark_and_jvm(cache: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    one = hadoop.jar_path()
    assert hadoop.jar_path() == one
    other_jvm = tmp_path / "jdk"
    other_jvm.mkdir()
    (other_jvm / "release").write_text('JAVA_VERSION="21.0.2"\n')
    monkeypatch.setenv("JAVA_HOME", str(other_jvm))
    assert hadoop.jar_path() not in (one, None) and hadoop.jar_path().parent == cache


def test_concurrent_builders_leave_one_whole_jar(cache: Path) -> None:
    builders = [subprocess.Popen([sys.executable, "-m", "glueball.runtime.hadoop"], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True) for _ in range(3)]
    outputs = [builder.communicate(timeout=300) for builder in builders]
    assert [b.returncode for b in builders] == [0, 0, 0], [err for _, err in outputs]
    printed = {out.strip() for out, _ in outputs}
    assert len(printed) == 1
    jar = Path(printed.pop())
    with zipfile.ZipFile(jar) as archive:
        assert archive.testzip() is None and CLASSES <= set(archive.namelist())
    assert sorted(p.name for p in cache.iterdir()) == [".lock", jar.name]


def test_without_javac_the_build_says_to_install_a_jdk_and_spark_gets_no_s3_settings(
        cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_endpoint: None) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.setenv("JAVA_HOME", str(empty))
    with pytest.raises(hadoop.HadoopJarError) as missing:
        hadoop.build()
    assert str(missing.value) == "javac not found: install a JDK (openjdk-17-jdk-headless) to use s3:// paths in Spark"
    assert hadoop.jar() is None
    assert hadoop.unavailable_reason() == str(missing.value)
    assert not cache.exists() or not list(cache.glob("*.jar"))
    # Spark still starts, without the jar and without s3 file systems; Hadoop's error then gets its reason
    assert hadoop.filesystem_settings([], tmp_path / "s3") == {}
    explained = hadoop.explain(RuntimeError('An error occurred while calling o42.csv.\n: org.apache.hadoop.fs.'
                                            'UnsupportedFileSystemException: No FileSystem for scheme "s3a"'))
    assert explained is not None
    assert str(explained) == ("s3a:// paths in Spark need glueball's Hadoop FileSystem, which is not available: "
                              "javac not found: install a JDK (openjdk-17-jdk-headless) to use s3:// paths in Spark")
    assert hadoop.explain(RuntimeError('No FileSystem for scheme "hdfs"')) is None
    assert hadoop.explain(ValueError("the input bucket is empty")) is None


def test_an_unwritable_cache_is_an_error_that_names_it_not_a_crash(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("GLUEBALL_HADOOP_CACHE", str(blocker / "cache"))
    with pytest.raises(hadoop.HadoopJarError, match="cannot be written to .*a-file/cache.*GLUEBALL_HADOOP_CACHE"):
        hadoop.build()
    assert hadoop.jar() is None and "GLUEBALL_HADOOP_CACHE" in (hadoop.unavailable_reason() or "")


def test_spark_settings_give_the_three_schemes_the_object_store(no_endpoint: None) -> None:
    jar = hadoop.jar()
    assert jar is not None, hadoop.unavailable_reason()
    settings = hadoop.filesystem_settings([str(jar)], Path("/srv/glueball/s3"))
    assert settings["spark.hadoop.fs.glueball.objectstore.root"] == "/srv/glueball/s3"
    for scheme in ("s3", "s3a", "s3n"):
        assert settings[f"spark.hadoop.fs.{scheme}.impl"] == "dev.glueball.fs.ObjectStoreFileSystem"
        assert settings[f"spark.hadoop.fs.AbstractFileSystem.{scheme}.impl"] == "dev.glueball.fs.ObjectStoreFs"
    assert settings["spark.hadoop.mapreduce.outputcommitter.factory.scheme.s3a"] == hadoop.FILE_COMMITTER_FACTORY


def test_with_a_remote_store_the_schemes_go_to_s3a_or_say_which_jars_are_missing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GLUEBALL_S3_ENDPOINT", "http://127.0.0.1:9000")
    jar = hadoop.jar()
    assert jar is not None
    assert hadoop.filesystem_settings([str(jar)], tmp_path) == {
        f"spark.hadoop.fs.{scheme}.impl": "dev.glueball.fs.S3ARequiredFileSystem" for scheme in ("s3", "s3a", "s3n")}
    aws = tmp_path / "hadoop-aws-3.5.0.jar"  # a jar holding Hadoop's S3AFileSystem
    with zipfile.ZipFile(aws, "w") as archive:
        archive.writestr("org/apache/hadoop/fs/s3a/S3AFileSystem.class", b"\xca\xfe\xba\xbe")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "minio")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "minio-secret")
    monkeypatch.delenv("AWS_SESSION_TOKEN", raising=False)
    settings = hadoop.filesystem_settings([str(jar), str(aws)], tmp_path)
    assert {settings[f"spark.hadoop.fs.{scheme}.impl"] for scheme in ("s3", "s3a", "s3n")} == {
        "org.apache.hadoop.fs.s3a.S3AFileSystem"}
    assert (settings["spark.hadoop.fs.s3a.endpoint"], settings["spark.hadoop.fs.s3a.path.style.access"],
            settings["spark.hadoop.fs.s3a.access.key"]) == ("http://127.0.0.1:9000", "true", "minio")
    assert "spark.hadoop.fs.glueball.objectstore.root" not in settings


def _submitted_conf(args: str) -> dict[str, str]:
    """The ``--conf`` settings, ``--jars`` and ``--driver-class-path`` of a ``PYSPARK_SUBMIT_ARGS`` string."""
    parts = shlex.split(args)
    conf = dict(parts[i + 1].split("=", 1) for i, part in enumerate(parts) if part == "--conf")
    conf["--jars"] = parts[parts.index("--jars") + 1]
    conf["--driver-class-path"] = parts[parts.index("--driver-class-path") + 1]
    return conf


def test_glueball_run_gives_scripts_that_make_their_own_spark_the_file_system(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_endpoint: None) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("GLUEBALL_HOME", str(home))
    script = tmp_path / "job.py"
    script.write_text("print('hi')\n")
    plan = parse_run_args(str(script), ["--conf", "spark.eventLog.enabled=true",
                                        "--conf", "spark.eventLog.dir=s3://logs/spark-events"])
    conf = _submitted_conf(spark_submit_args(plan))
    jar = str(hadoop.jar())
    assert jar in conf["--jars"].split(",") and jar in conf["--driver-class-path"].split(os.pathsep)
    assert conf["spark.hadoop.fs.s3.impl"] == hadoop.FILESYSTEM
    assert conf["spark.hadoop.fs.glueball.objectstore.root"] == str((home / "s3").absolute())
    assert conf["spark.eventLog.dir"] == "s3://logs/spark-events"  # Spark writes it through the file system
    assert (home / "s3" / "logs" / "spark-events").is_dir()  # which needs the folder to exist
    # a user's own choice wins
    plan = parse_run_args(str(script), ["--conf", "spark.hadoop.fs.s3a.impl=org.example.MyFileSystem"])
    assert _submitted_conf(spark_submit_args(plan))["spark.hadoop.fs.s3a.impl"] == "org.example.MyFileSystem"


def test_without_the_jar_an_s3_event_log_dir_is_given_to_spark_as_its_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_endpoint: None) -> None:
    from glueball.runtime.spark import prepare_event_log

    monkeypatch.setenv("GLUEBALL_HOME", str(tmp_path / "home"))
    settings = {"spark.eventLog.enabled": "true", "spark.eventLog.dir": "s3://logs/events"}
    prepare_event_log(settings)  # no spark.hadoop.fs.s3.impl: glueball's file system is missing
    folder = tmp_path / "home" / "s3" / "logs" / "events"
    assert folder.is_dir() and settings["spark.eventLog.dir"] == folder.resolve().as_uri()
