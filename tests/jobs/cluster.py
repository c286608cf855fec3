"""A real Spark standalone cluster (one master, one worker) started from the PySpark install.

``SPARK_HOME`` is the ``pyspark`` package directory, whose ``bin/spark-class`` launches the
standalone ``Master`` and ``Worker``. Everything binds to 127.0.0.1. Use the fixture by
importing it into a test module: ``spark_cluster = cluster.spark_cluster``.
"""

from __future__ import annotations

import json
import os
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


def _launch(main_class: str, args: list[str], log_file: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    with log_file.open("ab") as log:
        return subprocess.Popen([str(spark_home() / "bin" / "spark-class"), main_class, *args], stdout=log,
                                stderr=subprocess.STDOUT, env=env, start_new_session=True)


def start_cluster(work: Path, cores: int = 1, memory: str = "1g") -> SparkCluster:
    """Start a master and one worker with ``cores`` and ``memory``; return once the worker registered."""
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
        cluster.processes.append(_launch(
            "org.apache.spark.deploy.worker.Worker",
            ["--host", "127.0.0.1", "--cores", str(cores), "--memory", memory, "--webui-port", str(worker_webui),
             "--work-dir", str(work / "worker"), cluster.master_url], log_dir / "worker.log", env))
        cluster.wait_for(lambda state: state.get("aliveworkers", 0) >= 1, "the worker to register")
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
