"""glueball's Python worker daemon: a zip archive is read again when it changed, not before every task; PySpark and
py4j come from their installed packages where Spark's archives are the same release."""

from __future__ import annotations

import importlib
import sys
import zipfile
import zipimport
from importlib import metadata
from pathlib import Path

import pytest

from glueball.runtime import pydaemon
from glueball.runtime.spark import python_worker_settings


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="Python 3.12 reads archives lazily itself")
def test_an_archive_is_read_again_only_when_it_changed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    archive = tmp_path / "lib.zip"
    with zipfile.ZipFile(archive, "w") as made:
        made.writestr("first_mod.py", "VALUE = 1\n")
    reads: list[str] = []
    read_directory = zipimport._read_directory  # type: ignore[attr-defined]
    monkeypatch.setattr(zipimport, "_read_directory", lambda path: reads.append(path) or read_directory(path))
    monkeypatch.setattr(zipimport.zipimporter, "invalidate_caches", zipimport.zipimporter.invalidate_caches)
    monkeypatch.syspath_prepend(str(archive))
    monkeypatch.delitem(sys.modules, "first_mod", raising=False)
    monkeypatch.delitem(sys.modules, "second_mod", raising=False)
    assert importlib.import_module("first_mod").VALUE == 1

    pydaemon.read_archives_once()
    reads.clear()
    for _ in range(5):
        importlib.invalidate_caches()  # what PySpark's worker does before each task
    assert reads.count(str(archive)) == 1  # once (what was read before is not known), then never again

    with zipfile.ZipFile(archive, "a") as grown:  # a changed archive is read anew: its new module imports
        grown.writestr("second_mod.py", "VALUE = 2\n")
    importlib.invalidate_caches()
    assert reads.count(str(archive)) == 2
    assert importlib.import_module("second_mod").VALUE == 2


def test_local_masters_get_glueball_s_daemon_and_clusters_pyspark_s() -> None:
    for master in ("local", "local[2]", "local[*]"):
        assert python_worker_settings(master) == {"spark.python.daemon.module": "glueball.runtime.pydaemon"}
    for master in ("spark://host:7077", "yarn", "k8s://https://host:443"):
        assert python_worker_settings(master) == {}


def test_spark_s_archives_of_the_installed_release_go_last_and_others_stay(tmp_path: Path) -> None:
    import pyspark

    lib = Path(pyspark.__file__).resolve().parent / "python" / "lib"
    ours, py4j = str(lib / "pyspark.zip"), str(lib / f"py4j-{metadata.version('py4j')}-src.zip")
    other_py4j = str(lib / "py4j-0.0.1-src.zip")
    elsewhere = tmp_path / "spark" / "python" / "lib"  # a SPARK_HOME of its own: another release, maybe
    elsewhere.mkdir(parents=True)
    theirs = str(elsewhere / "pyspark.zip")
    path = [ours, py4j, other_py4j, theirs, *[p for p in sys.path if not p.endswith(".zip")]]
    assert pydaemon.same_release_archives(path) == [ours, py4j]
    assert pydaemon.same_release_archives([theirs, *[p for p in sys.path if not p.endswith(".zip")]]) == []
    assert pydaemon.same_release_archives([ours]) == []  # no installed PySpark on the path: the archive it is
