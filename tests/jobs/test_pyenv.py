"""Per-job Python environments for --additional-python-modules (pip against PyPI)."""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from glueball.runtime.pyenv import PythonModulesError, env_dir, job_python, parse_modules


def test_requirements_are_parsed_as_glue_takes_them(tmp_path: Path) -> None:
    assert parse_modules("tabulate==0.9.0, six>=1.10,,six>=1.10") == ["six>=1.10", "tabulate==0.9.0"]
    wheel = tmp_path / "home" / "s3" / "libs" / "pkg-1.0-py3-none-any.whl"
    wheel.parent.mkdir(parents=True)
    wheel.write_bytes(b"wheel bytes")
    [local] = parse_modules("s3://libs/pkg-1.0-py3-none-any.whl", tmp_path / "home")
    # the object store's wheel, as a local file pip can install (a copy when the store is remote)
    assert Path(local).name == wheel.name and Path(local).read_bytes() == b"wheel bytes"
    with pytest.raises(PythonModulesError, match="'six >> 1' is not a pip requirement"):
        parse_modules("six >> 1")
    with pytest.raises(PythonModulesError, match="s3://libs/missing.whl does not exist"):
        parse_modules("s3://libs/missing.whl", tmp_path / "home")


def test_the_environment_is_keyed_by_the_sorted_list(tmp_path: Path) -> None:
    assert env_dir(["a", "b"], tmp_path) == env_dir(["b", "a"], tmp_path)
    assert env_dir(["a", "b"], tmp_path) != env_dir(["a", "b"], tmp_path, "--upgrade")
    assert env_dir(["a"], tmp_path).parent == tmp_path / "envs"


def test_no_modules_is_this_interpreter(tmp_path: Path) -> None:
    assert job_python("", tmp_path) == Path(sys.executable)


def test_modules_are_installed_once_and_glueball_stays_importable(tmp_path: Path) -> None:
    # six 1.16.0 is not the version in glueball's own environment: the job's copy must win
    with ThreadPoolExecutor(2) as pool:
        pythons = list(pool.map(lambda _: job_python("six==1.16.0", tmp_path), range(2)))
    assert pythons[0] == pythons[1]
    python = pythons[0]
    assert python.parent.parent.parent == tmp_path / "envs"
    probe = subprocess.run(
        [str(python), "-c", "import six, pyspark, glueball, awsglue.context; print(six.__version__, six.__file__)"],
        capture_output=True, text=True, timeout=60)
    assert probe.returncode == 0, probe.stderr
    version, location = probe.stdout.split()
    assert version == "1.16.0"
    assert location.startswith(str(python.parent.parent))
    stamp = (python.parent.parent / ".ready").stat().st_mtime_ns
    assert job_python(" six==1.16.0 ", tmp_path) == python
    assert (python.parent.parent / ".ready").stat().st_mtime_ns == stamp


def test_a_failed_install_says_what_and_why(tmp_path: Path) -> None:
    with pytest.raises(PythonModulesError) as excinfo:
        job_python("glueball-no-such-package-4b1d==0.0.1", tmp_path)
    message = str(excinfo.value)
    assert "could not install glueball-no-such-package-4b1d==0.0.1" in message
    assert "No matching distribution found for glueball-no-such-package-4b1d" in message
    assert not any(p.is_dir() for p in (tmp_path / "envs").iterdir())
