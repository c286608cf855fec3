"""Run moto's own Glue test suite black-box against a ``glueball server`` (docs/fidelity.md).

``python -m tools.moto_suite --moto-git DIR`` takes ``tests/test_glue`` from a git directory of
getmoto/moto (e.g. what ``fetch github:getmoto/moto`` leaves), puts it in a scratch folder outside
the repository with a conftest that turns ``moto.mock_aws`` into a no-op and empties the server's
store before each test, starts a server on a fresh home, runs pytest there and prints the counts and
the failures (test, first line of its message). moto's tests never enter glueball's suite.

Needs ``moto`` (test extra) and ``freezegun`` (which moto's tests import) in the interpreter.
"""

from __future__ import annotations

import argparse
import io
import os
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# written as <scratch>/conftest.py: boto3 reaches the server through AWS_ENDPOINT_URL, moto's
# decorator does nothing, TEST_SERVER_MODE makes moto's tests skip what only an in-process mock can
# do (freezing the server's clock), moto's state manager (job-run state progression) is a no-op,
# and every table of the server's SQLite store except alembic_version and IAM is emptied before
# each test, so each test starts from an empty catalog as under mock_aws
CONFTEST = '''
import contextlib
import os
import sqlite3

os.environ["AWS_ENDPOINT_URL"] = os.environ["MOTO_SUITE_ENDPOINT"]
os.environ.setdefault("AWS_ACCESS_KEY_ID", "AKIAMOTOSUITE")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "secret")
os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
os.environ["TEST_SERVER_MODE"] = "true"

import moto
import pytest


class _NoMock(contextlib.ContextDecorator):
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _mock_aws(func=None, **kwargs):
    return _NoMock() if func is None else func


moto.mock_aws = _mock_aws


@pytest.fixture(autouse=True)
def _empty_store():
    con = sqlite3.connect(os.environ["MOTO_SUITE_DB"], timeout=30)
    try:
        names = [row[0] for row in con.execute("select name from sqlite_master where type='table'")]
        for name in names:
            if name != "alembic_version" and not name.startswith("iam_"):
                con.execute(f'DELETE FROM "{name}"')
        con.commit()
    finally:
        con.close()
    yield


@pytest.fixture(autouse=True)
def _no_state_manager(monkeypatch):
    from tests.test_glue import helpers

    monkeypatch.setattr(helpers, "set_transition", lambda *args, **kwargs: None)
    yield
'''


def export_suite(moto_git: Path, scratch: Path) -> None:
    """Write moto's ``tests/test_glue`` (and an empty ``tests/__init__.py``) under ``scratch``."""
    archive = subprocess.run(["git", f"--git-dir={moto_git}", "archive", "HEAD", "tests/test_glue"],
                             check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(scratch, filter="data")
    (scratch / "tests" / "__init__.py").write_text("")
    (scratch / "conftest.py").write_text(CONFTEST)


def _wait_for(port: int, server: subprocess.Popen[bytes], timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"glueball server exited with status {server.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)
    raise SystemExit(f"glueball server did not listen on port {port} within {timeout:.0f} s")


def failures(junit: Path) -> tuple[dict[str, int], list[tuple[str, str]]]:
    """Counts (passed, failed, skipped) and the failed tests with the first line of their message."""
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    failed: list[tuple[str, str]] = []
    for case in ElementTree.parse(junit).iter("testcase"):
        problem = case.find("failure")
        if problem is None:
            problem = case.find("error")
        if problem is not None:
            counts["failed"] += 1
            module = (case.get("classname") or "").rsplit(".", 1)[-1]
            message = (problem.get("message") or "").strip().splitlines()
            failed.append((f"{module}::{case.get('name')}", message[0] if message else ""))
        elif case.find("skipped") is not None:
            counts["skipped"] += 1
        else:
            counts["passed"] += 1
    return counts, failed


def main(argv: list[str] | None = None) -> int:
    """Export, serve, run, report; the exit status is 0 whatever the tally."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moto-git", type=Path, required=True, help="git directory of getmoto/moto")
    parser.add_argument("--port", type=int, default=18080)
    parser.add_argument("--out", type=Path, help="write the failures here (one a line)")
    parser.add_argument("pytest_args", nargs="*", help="more pytest arguments (e.g. -k crawler)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="moto-glue-") as scratch_name:
        scratch = Path(scratch_name)
        export_suite(args.moto_git.resolve(), scratch)
        home = scratch / "home"
        home.mkdir()
        env = dict(os.environ, PYTHONPATH=str(REPO))
        server = subprocess.Popen(
            [sys.executable, "-m", "glueball", "server", "--port", str(args.port), "--home", str(home),
             "--allow-local-scripts"],
            cwd=scratch, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            _wait_for(args.port, server)
            junit = scratch / "junit.xml"
            run_env = dict(env, MOTO_SUITE_ENDPOINT=f"http://127.0.0.1:{args.port}",
                           MOTO_SUITE_DB=str(home / "glueball.db"))
            run_env.pop("PYTHONPATH")
            subprocess.run([sys.executable, "-m", "pytest", "tests/test_glue", "-q", "-p", "no:cacheprovider",
                            "-o", "addopts=", f"--junitxml={junit}", *args.pytest_args],
                           cwd=scratch, env=run_env, stdout=subprocess.DEVNULL, check=False)
        finally:
            server.terminate()
            server.wait(timeout=60)
        counts, failed = failures(junit)
    lines = [f"{name} | {message}" for name, message in failed]
    if args.out:
        args.out.write_text("".join(line + "\n" for line in lines))
    else:
        print("\n".join(lines))
    print(f"{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
