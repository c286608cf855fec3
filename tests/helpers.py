"""Builders and process helpers shared by the test suite."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

import boto3
import botocore.config
import pytest
import urllib3


def free_port() -> int:
    with closing(socket.socket()) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for(check: Callable[[], Any], timeout: float = 60.0, what: str = "condition",
             interval: float = 0.05) -> Any:
    """Call ``check`` every ``interval`` s until it answers something truthy (returned); fail after ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"{what} not reached in {timeout} s")


def unique(prefix: str = "t") -> str:
    return f"{prefix}_{uuid.uuid4().hex[:10]}"


class ServerProcess:
    """A `glueball server` subprocess on a free port, restartable on the same home and store."""

    def __init__(self, home: Path, store_url: str = "", extra_args: tuple[str, ...] = (),
                 local_scripts: bool = True, warm_drivers: int = 0) -> None:
        self.home = home
        self.store_url = store_url
        # most tests write their job scripts as local files; a server refuses them unless told
        self.extra_args = (*extra_args, "--allow-local-scripts") if local_scripts else extra_args
        # a warm driver is a JVM: only the tests about them keep any (2 cores run the whole suite)
        self.extra_args = (*self.extra_args, "--warm-drivers", str(warm_drivers))
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, env: dict[str, str] | None = None) -> ServerProcess:
        self.launch(env)
        return self.wait_ready()

    def launch(self, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        """Start the server process without waiting for it to serve (``env``: its whole environment)."""
        cmd = [sys.executable, "-m", "glueball", "server", "--port", str(self.port), "--home", str(self.home)]
        if self.store_url:
            cmd += ["--store", self.store_url]
        cmd += list(self.extra_args)
        log = open(self.home / "server.log", "ab")  # noqa: SIM115 - lives as long as the process
        self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
        return self.proc

    def kill(self) -> None:
        """kill -9 of the server process (no shutdown of any kind)."""
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def wait_ready(self) -> ServerProcess:
        """Wait until the launched server answers (30 s)."""
        assert self.proc is not None
        deadline = time.monotonic() + 30
        http = urllib3.PoolManager()
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {(self.home / 'server.log').read_text()[-2000:]}")
            try:
                if http.request("GET", self.endpoint + "/health", timeout=1).status == 200:
                    return self
            except urllib3.exceptions.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError("server did not start in 30 s")

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None

    def raw(self, operation: str, body: Any, headers: dict[str, str] | None = None) -> tuple[int, dict[str, Any]]:
        """POST a raw AWS JSON 1.1 request (no client-side validation); return status and JSON body."""
        import json

        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        all_headers = {"X-Amz-Target": f"AWSGlue.{operation}", "Content-Type": "application/x-amz-json-1.1"}
        all_headers.update(headers or {})
        response = urllib3.PoolManager().request("POST", self.endpoint + "/", body=data, headers=all_headers)
        return response.status, json.loads(response.data or b"{}")

    def client(self, access_key: str = "AKIDEXAMPLE", region: str = "us-east-1", **kwargs: Any) -> Any:
        return boto3.client(
            "glue",
            endpoint_url=self.endpoint,
            region_name=region,
            aws_access_key_id=access_key,
            aws_secret_access_key="secret",
            config=botocore.config.Config(retries={"max_attempts": 1}, **kwargs),
        )


@contextmanager
def iam_server(home: Path) -> Iterator[tuple[ServerProcess, tuple[str, str]]]:
    """A running server under ``--auth iam`` in ``home``, and its root access key and secret (from the home's
    ``credentials`` file, as the server writes them)."""
    import configparser

    server = ServerProcess(home, extra_args=("--auth", "iam")).start()
    try:
        profile = configparser.ConfigParser()
        profile.read(home / "credentials")
        yield server, (profile["glueball"]["aws_access_key_id"], profile["glueball"]["aws_secret_access_key"])
    finally:
        server.stop()


def keyed_client(server: ServerProcess, service: str, keys: tuple[str, str]) -> Any:
    """A boto3 client of ``service`` at ``server`` signing with ``keys`` (access key, secret)."""
    return boto3.client(service, endpoint_url=server.endpoint, region_name="us-east-1", aws_access_key_id=keys[0],
                        aws_secret_access_key=keys[1])


def create_postgres_database() -> str:
    """A fresh database on the suite's PostgreSQL (tools.services) for one test session; returns its URL."""
    import psycopg

    from tools import services

    server = services.postgres()
    name = unique("glueball_test")
    with psycopg.connect(server.url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return server.url_of(name)


def drop_postgres_database(url: str) -> None:
    import psycopg

    from tools import services

    name = url.rsplit("/", 1)[1]
    with psycopg.connect(services.postgres().url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def error_of(excinfo: pytest.ExceptionInfo[Any]) -> tuple[str, str]:
    """The (code, message) of a botocore ClientError."""
    error = excinfo.value.response["Error"]
    return error["Code"], error["Message"]


def table_input(name: str, partition_keys: list[tuple[str, str]] | None = None, **extra: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "Name": name,
        "StorageDescriptor": {
            "Columns": [{"Name": "id", "Type": "bigint"}, {"Name": "amount", "Type": "double"}],
            "Location": f"s3://bucket/{name}/",
            "InputFormat": "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
            "OutputFormat": "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat",
            "SerdeInfo": {"SerializationLibrary":
                          "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe"},
        },
        "PartitionKeys": [{"Name": k, "Type": t} for k, t in (partition_keys or [])],
        "TableType": "EXTERNAL_TABLE",
        "Parameters": {"classification": "parquet"},
    }
    spec.update(extra)
    return spec


def send(server: ServerProcess, target: str, body: Any) -> tuple[int, dict[str, Any]]:
    """POST a raw AWS JSON 1.1 request with any ``X-Amz-Target`` (e.g. ``Glueball.NotifyEvent``)."""
    import json

    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    headers = {"X-Amz-Target": target, "Content-Type": "application/x-amz-json-1.1"}
    response = urllib3.PoolManager().request("POST", server.endpoint + "/", body=data, headers=headers)
    return response.status, json.loads(response.data or b"{}")


class ScopedEnviron:
    """``env`` added to os.environ inside a ``with`` block (a server started there inherits it), then restored."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env
        self.saved: dict[str, str | None] = {}

    def __enter__(self) -> None:
        self.saved = {key: os.environ.get(key) for key in self.env}
        os.environ.update(self.env)

    def __exit__(self, *exc: object) -> None:
        for key, value in self.saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def shared_spark() -> Any:
    """The test process's one Spark session (local[2], 4 shuffle partitions), created on first use."""
    from glueball.runtime.spark import spark_session

    options = os.environ.pop("GLUEBALL_DRIVER_JAVA_OPTIONS", None)  # those are for launched drivers
    try:
        return spark_session(master="local[2]", app_name="glueball-tests",
                             conf={"spark.sql.shuffle.partitions": "4", "spark.default.parallelism": "4"})
    finally:
        if options is not None:
            os.environ["GLUEBALL_DRIVER_JAVA_OPTIONS"] = options


def _temporary_views(session: Any) -> set[str]:
    """The session's local temporary views: SHOW VIEWS of ``global_temp`` lists them with the global ones and needs
    no database of the catalog (a home without ``default`` has none to list)."""
    return {row.viewName for row in session.sql("SHOW VIEWS IN global_temp").collect()
            if row.isTemporary and not row.namespace}


def run_script_in_process(home: Path, script: Path, *args: str,
                          env: dict[str, str | None] | None = None) -> tuple[int, str, str]:
    """Run a Glue script as ``glueball run`` would, but in this process's Spark session, over ``home``.

    For tests of what a script computes; tests of the process contract (exit status, kill, timeout,
    stop, retry, resume) launch real drivers instead. Returns the exit status and what the script
    printed to stdout and stderr (its traceback when it failed). ``env`` is set (None: removed) while
    the script runs, as a launcher would set a driver's environment.
    """
    import contextlib
    import io

    from glueball.runtime.client import reset_client
    from glueball.runtime.scriptrunner import execute
    from glueball.runtime.spark import serve_this_home

    session = shared_spark()
    changes: dict[str, str | None] = {"GLUEBALL_HOME": str(home), "GLUEBALL_ENDPOINT": None, **(env or {})}
    saved = {key: os.environ.get(key) for key in changes}
    for key, value in changes.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
    output, errors = io.StringIO(), io.StringIO()
    views: set[str] = set()
    try:  # from here on the environment is restored whatever fails
        reset_client()
        serve_this_home(session)  # the session's s3:// is ``home``'s object store while the script runs, as a driver's
        views = _temporary_views(session)
        with contextlib.redirect_stdout(output), contextlib.redirect_stderr(errors):
            status = execute(script, list(args))
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        reset_client()
        serve_this_home(session)
        for view in _temporary_views(session) - views:  # a driver's views end with it
            session.catalog.dropTempView(view)
    return status, output.getvalue(), errors.getvalue()
