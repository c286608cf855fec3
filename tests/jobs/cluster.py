"""A real Spark standalone cluster (one master, one or more workers) started from the PySpark install.

``SPARK_HOME`` is the ``pyspark`` package directory, whose ``bin/spark-class`` launches the
standalone ``Master`` and ``Worker``. Everything binds to 127.0.0.1. Use the fixture by
importing it into a test module: ``spark_cluster = cluster.spark_cluster``.

:func:`start_cluster` with ``isolated=True`` starts each worker in a mount namespace of its own
(``unshare --mount``) where ``/tmp`` and each of ``hidden`` is a fresh, empty tmpfs: the worker's home,
Spark work and scratch folders live there, seen by no other process, and the server's home (under
``/tmp``) and glueball's jar cache do not exist for it — what its executors need must reach them through
Spark (jars, Python files) or an S3 API, as on machines that share no disk.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import free_port

START_TIMEOUT_SECONDS = 90


def spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).resolve().parent


def cluster_env(log_dir: Path) -> dict[str, str]:
    """The environment of the cluster's JVMs and of drivers talking to it."""
    return dict(os.environ, SPARK_HOME=str(spark_home()), SPARK_LOCAL_IP="127.0.0.1",
                SPARK_LOG_DIR=str(log_dir), PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable)


@dataclass
class SparkCluster:
    """A running standalone master and worker."""

    master_url: str
    webui_url: str
    log_dir: Path
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def state(self) -> dict[str, Any]:
        """The master's JSON status page (workers, active and completed applications)."""
        with urllib.request.urlopen(self.webui_url + "/json/", timeout=5) as response:
            return dict(json.loads(response.read()))

    def completed_app_ids(self) -> list[str]:
        return [app["id"] for app in self.state().get("completedapps", [])]

    def wait_for(self, predicate: Any, what: str, timeout: float = START_TIMEOUT_SECONDS) -> dict[str, Any]:
        """Poll the master's status until ``predicate(state)`` holds; the state then."""
        deadline = time.monotonic() + timeout
        last: dict[str, Any] = {}
        while time.monotonic() < deadline:
            for proc in self.processes:
                if proc.poll() is not None:
                    raise RuntimeError(f"a cluster process exited ({proc.args!r}): {self.logs()}")
            try:
                last = self.state()
                if predicate(last):
                    return last
            except (urllib.error.URLError, ConnectionError, TimeoutError, json.JSONDecodeError):
                pass
            time.sleep(0.2)
        raise RuntimeError(f"timed out waiting for {what}; master state {last}; {self.logs()}")

    def logs(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-1500:]}"
                         for p in sorted(self.log_dir.glob("*.log")))

    def stop(self) -> None:
        for proc in reversed(self.processes):
            if proc.poll() is None:
                # each daemon leads its own process group: its executors go with it
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in reversed(self.processes):
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def _launch(main_class: str, args: list[str], log_file: Path, env: dict[str, str],
            prefix: list[str] | None = None) -> subprocess.Popen[bytes]:
    with log_file.open("ab") as log:
        return subprocess.Popen([*(prefix or []), str(spark_home() / "bin" / "spark-class"), main_class, *args],
                                stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)


def _own_disk(hidden: tuple[Path, ...], folders: list[str]) -> list[str]:
    """``unshare`` into a mount namespace where ``/tmp`` and ``hidden`` are new empty tmpfs, ``folders`` made."""
    mounts = " && ".join(f"mount -t tmpfs tmpfs '{path}'" for path in ("/tmp", *map(str, hidden)))
    return [shutil.which("unshare") or "unshare", "--mount", "--propagation", "private", "sh", "-c",
            f"{mounts} && mkdir -p {' '.join(folders)} && exec \"$@\"", "sh"]


def start_cluster(work: Path, cores: int = 1, memory: str = "1g", workers: int = 1, isolated: bool = False,
                  hidden: tuple[Path, ...] = ()) -> SparkCluster:
    """Start a master and ``workers`` workers with ``cores`` and ``memory`` each (``isolated``: each on a disk of
    its own, see the module docstring); return once every worker registered."""
    log_dir = work / "logs"
    log_dir.mkdir(parents=True, exist_ok=True)
    env = cluster_env(log_dir)
    port, webui, worker_webui = free_port(), free_port(), free_port()
    cluster = SparkCluster(f"spark://127.0.0.1:{port}", f"http://127.0.0.1:{webui}", log_dir)
    try:
        cluster.processes.append(_launch(
            "org.apache.spark.deploy.master.Master",
            ["--host", "127.0.0.1", "--port", str(port), "--webui-port", str(webui)], log_dir / "master.log", env))
        cluster.wait_for(lambda state: state.get("status") == "ALIVE", "the master")
        for index in range(workers):
            own = Path(f"/tmp/worker-{index}") if isolated else work / f"worker-{index}"
            worker_env = dict(env, HOME=str(own / "home"), SPARK_WORKER_DIR=str(own / "work"),
                              SPARK_LOCAL_DIRS=str(own / "local"), GLUEBALL_HOME=str(own / "glueball")) \
                if isolated else env
            prefix = _own_disk(hidden, [str(own / name) for name in ("home", "work", "local", "glueball")]) \
                if isolated else None
            cluster.processes.append(_launch(
                "org.apache.spark.deploy.worker.Worker",
                ["--host", "127.0.0.1", "--cores", str(cores), "--memory", memory, "--webui-port",
                 str(free_port() if index else worker_webui), "--work-dir", str(own / "work"), cluster.master_url],
                log_dir / f"worker-{index}.log", worker_env, prefix))
        cluster.wait_for(lambda state: state.get("aliveworkers", 0) >= workers, "the workers to register")
    except BaseException:
        cluster.stop()
        raise
    return cluster


@pytest.fixture(scope="module")
def spark_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SparkCluster]:
    """A standalone Spark master with one worker (1 core, 1 GB) on 127.0.0.1, stopped after the module."""
    cluster = start_cluster(tmp_path_factory.mktemp("spark-cluster"))
    yield cluster
    cluster.stop()
