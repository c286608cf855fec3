"""How ``glueball server`` starts and keeps connections: a home it cannot write, idle keep-alive connections.

The read-only homes are real read-only file systems (a tmpfs mounted read-only, an existing home
bind-mounted read-only; the suite runs as root, which ignores file modes), unmounted afterwards.
"""

from __future__ import annotations

import http.client
import logging
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import boto3
import botocore.config
import pytest

from glueball.app import Glueball
from glueball.config import Settings
from tests.helpers import ServerProcess, free_port


def _mount(*args: str) -> None:
    subprocess.run(["mount", *args], check=True, capture_output=True)


@pytest.fixture()
def mounts() -> Iterator[list[Path]]:
    """Mount points to unmount after the test, newest first."""
    mounted: list[Path] = []
    yield mounted
    for point in reversed(mounted):
        subprocess.run(["umount", "--lazy", str(point)], check=False, capture_output=True)


def _start(home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "glueball", "server", "--home", str(home), "--port",
                           str(free_port()), "--warm-drivers", "0"], capture_output=True, text=True, timeout=120)


def test_a_home_on_a_read_only_file_system_is_a_one_line_start_up_error(tmp_path: Path, mounts: list[Path]) -> None:
    frozen = tmp_path / "frozen"
    frozen.mkdir()
    _mount("-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", str(frozen))
    mounts.append(frozen)
    started = _start(frozen / "home")
    assert started.returncode != 0
    lines = started.stderr.strip().splitlines()
    assert len(lines) == 1, started.stderr
    assert str(frozen / "home") in lines[0] and "Read-only file system" in lines[0]


def test_an_existing_home_made_read_only_is_a_one_line_start_up_error(tmp_path: Path, mounts: list[Path]) -> None:
    source = tmp_path / "source"
    Glueball(Settings(home=source / "home")).close()  # a home with its database, as a server leaves it
    assert (source / "home" / "glueball.db").exists()
    frozen = tmp_path / "frozen"
    frozen.mkdir()
    _mount("--bind", str(source), str(frozen))
    mounts.append(frozen)
    _mount("-o", "remount,bind,ro", str(frozen))
    started = _start(frozen / "home")
    assert started.returncode != 0
    lines = started.stderr.strip().splitlines()
    assert len(lines) == 1, started.stderr  # it was a 140-line traceback ending "unable to open database file"
    assert str(frozen / "home") in lines[0] and "Read-only file system" in lines[0]


def test_a_store_that_cannot_be_opened_is_a_one_line_start_up_error(tmp_path: Path) -> None:
    (tmp_path / "home" / "glueball.db").mkdir(parents=True)  # where SQLite's file should be
    started = _start(tmp_path / "home")
    assert started.returncode != 0
    lines = started.stderr.strip().splitlines()
    assert len(lines) == 1, started.stderr
    assert f"the store sqlite:///{tmp_path / 'home' / 'glueball.db'} cannot be opened" in lines[0]
    assert "unable to open database file" in lines[0]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    running = ServerProcess(tmp_path_factory.mktemp("keep-alive")).start()
    yield running
    running.stop()


IDLE = 7.0  # longer than uvicorn's default keep-alive of 5 s


def test_a_connection_idle_longer_than_5_s_is_reused(server: ServerProcess) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    headers = {"X-Amz-Target": "AWSGlue.GetDatabases", "Content-Type": "application/x-amz-json-1.1"}
    try:
        connection.request("POST", "/", body=b"{}", headers=headers)
        assert connection.getresponse().read() and connection.sock is not None
        local = connection.sock.getsockname()
        time.sleep(IDLE)
        connection.request("POST", "/", body=b"{}", headers=headers)  # on the same socket, no reconnect
        answer = connection.getresponse()
        assert answer.status == 200 and b"DatabaseList" in answer.read()
        assert connection.sock.getsockname() == local
    finally:
        connection.close()


def test_boto3_reuses_its_pooled_connection_after_an_idle_pause(server: ServerProcess,
                                                                  caplog: pytest.LogCaptureFixture) -> None:
    glue = boto3.client("glue", endpoint_url=server.endpoint, region_name="us-east-1", aws_access_key_id="AKID",
                        aws_secret_access_key="secret", config=botocore.config.Config(retries={"max_attempts": 1}))
    glue.get_databases()
    time.sleep(IDLE)
    with caplog.at_level(logging.DEBUG, logger="urllib3.connectionpool"):
        glue.get_databases()
    messages = [record.getMessage() for record in caplog.records]
    assert not any("Resetting dropped connection" in m or "Starting new HTTP connection" in m for m in messages), \
        messages
