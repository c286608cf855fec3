"""``--additional-python-modules``: a per-job Python environment with the listed modules.

Glue takes a comma-separated list of pip requirements (``"scikit-learn==1.5.0,pyarrow>=15"``)
or wheel paths (``s3://bucket/lib.whl``: the object store under ``GLUEBALL_HOME``), and
``--python-modules-installer-option`` for pip's options (``"--upgrade"``, ``"--index-url URL"``).

``job_python`` makes, once, a virtual environment ``$GLUEBALL_HOME/envs/<hash>`` where the
hash is of the sorted requirement list, the installer options and this interpreter. The
environment has ``--system-site-packages`` and also sees this interpreter's own site-packages
(glueball's virtualenv, through a ``.pth`` file), so pyspark, glueball and ``awsglue`` stay
importable while the listed modules, installed into the environment, come first. Runs with
the same list reuse it. Creation takes a file lock, so concurrent runs build it once; a
``.ready`` marker is written last, so an interrupted build is started over.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import shlex
import shutil
import site
import subprocess
import sys
import venv
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from glueball.config import default_home
from glueball.objects.access import download_location, process_objects
from glueball.objects.locations import LocationError

__all__ = ["PythonModulesError", "env_dir", "job_python", "parse_modules"]

READY = ".ready"
PIP_TAIL_LINES = 15
PIP_TIMEOUT_SECONDS = 900


class PythonModulesError(Exception):
    """``--additional-python-modules`` could not be parsed or installed."""


def parse_modules(modules: str | Sequence[str], home: Path | None = None) -> list[str]:
    """The requirements of ``--additional-python-modules``, sorted and deduplicated.

    ``s3://`` wheel paths become the object store's local files.

    Raises:
        PythonModulesError: an entry that is not a valid pip requirement, or a wheel that does not exist.
    """
    items = modules.split(",") if isinstance(modules, str) else list(modules)
    requirements: set[str] = set()
    for raw in items:
        item = raw.strip()
        if not item:
            continue
        if item.startswith(("s3://", "s3a://", "file://", "/")) or item.endswith((".whl", ".tar.gz", ".zip")):
            requirements.add(str(_local_file(item, home)))
            continue
        try:
            from packaging.requirements import InvalidRequirement, Requirement
        except ImportError:  # pragma: no cover - packaging comes with pip and setuptools
            requirements.add(item)
            continue
        try:
            requirements.add(str(Requirement(item)))
        except InvalidRequirement as exc:
            raise PythonModulesError(f"--additional-python-modules: {item!r} is not a pip requirement: {exc}") from exc
    return sorted(requirements)


def _local_file(item: str, home: Path | None) -> Path:
    """A wheel or archive named by ``item``: an ``s3://`` object of the installation's store, downloaded into
    ``home/envs/files/<digest of its location>/``, or a local file."""
    folder = (home or default_home()) / "envs" / "files" / hashlib.sha256(item.encode()).hexdigest()[:16]
    try:
        return download_location(item, folder, process_objects(home)).resolve()
    except LocationError as exc:
        raise PythonModulesError(f"--additional-python-modules: {exc}") from exc
    except FileNotFoundError:
        raise PythonModulesError(f"--additional-python-modules: {item} does not exist") from None


def env_dir(requirements: Sequence[str], home: Path, installer_options: str = "") -> Path:
    """Where the environment of ``requirements`` lives: ``home/envs/<hash>``."""
    key = json.dumps({"requirements": sorted(requirements), "options": shlex.split(installer_options),
                      "python": sys.executable, "version": sys.version}, sort_keys=True)
    return home / "envs" / hashlib.sha256(key.encode()).hexdigest()[:16]


def _python_of(env: Path) -> Path:
    return env / "bin" / "python"


@contextmanager
def _locked(lock_file: Path) -> Iterator[None]:
    lock_file.parent.mkdir(parents=True, exist_ok=True)
    with lock_file.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _parent_site_dirs() -> list[str]:
    """This interpreter's site-packages (glueball's virtualenv), which a new venv would not see."""
    dirs = [*site.getsitepackages(), site.getusersitepackages()]
    return [d for d in dict.fromkeys(dirs) if Path(d).is_dir()]


def _create(env: Path, requirements: list[str], installer_options: str) -> None:
    if env.exists():
        shutil.rmtree(env)
    venv.EnvBuilder(system_site_packages=True, with_pip=False, symlinks=True).create(env)
    python = _python_of(env)
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                             capture_output=True, text=True, check=True).stdout.strip()
    # addsitedir (not a bare path) so the parent's own .pth files, e.g. an editable glueball, apply too
    lines = [f"import site; site.addsitedir({d!r})" for d in _parent_site_dirs()]
    (Path(purelib) / "_glueball_parent.pth").write_text("\n".join(lines) + "\n")
    command = [str(python), "-m", "pip", "install", "--disable-pip-version-check", "--no-input",
               *shlex.split(installer_options), *requirements]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=PIP_TIMEOUT_SECONDS, check=False)
    except subprocess.TimeoutExpired as exc:
        shutil.rmtree(env, ignore_errors=True)
        raise PythonModulesError(
            f"--additional-python-modules: pip did not finish installing {', '.join(requirements)} "
            f"in {PIP_TIMEOUT_SECONDS} s") from exc
    if done.returncode != 0:
        shutil.rmtree(env, ignore_errors=True)
        tail = "\n".join((done.stderr.strip() or done.stdout.strip()).splitlines()[-PIP_TAIL_LINES:])
        raise PythonModulesError(
            f"--additional-python-modules: pip could not install {', '.join(requirements)} "
            f"(exit {done.returncode}):\n{tail}")
    (env / READY).write_text(json.dumps({"requirements": requirements, "options": installer_options}) + "\n")


def job_python(modules: str | Sequence[str], home: Path, installer_options: str = "") -> Path:
    """The Python interpreter of the environment with ``modules`` installed, created on first use.

    Args:
        modules: the value of ``--additional-python-modules`` (comma-separated) or its entries.
        home: ``GLUEBALL_HOME``; environments live in ``home/envs``.
        installer_options: the value of ``--python-modules-installer-option`` (pip options).

    Returns:
        The path of the environment's ``python``: run the driver with it (pyspark and glueball
        are importable there, and Spark's Python workers use it too).

    Raises:
        PythonModulesError: an invalid requirement, or pip failed (the message ends with pip's last lines).
    """
    requirements = parse_modules(modules, home)
    if not requirements:
        return Path(sys.executable)
    env = env_dir(requirements, home, installer_options)
    python = _python_of(env)
    if (env / READY).exists():
        return python
    with _locked(env.with_name(env.name + ".lock")):
        if not (env / READY).exists():
            _create(env, requirements, installer_options)
    return python
