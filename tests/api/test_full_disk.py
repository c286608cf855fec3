"""A real full disk under a real server: each protocol's error names it, and nothing is half-written.

The disk is a small tmpfs mounted for the test (the suite runs as root) and filled with a file to its
last byte; the server's home lives on it (SQLite: the catalog too), or a PostgreSQL tablespace does (the
catalog database's files on the full disk, the cluster's own WAL elsewhere). Freeing the filler lets the
same writes succeed: what failed left nothing behind that gets in the way.
"""

from __future__ import annotations

import contextlib
import errno
import http.client
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import botocore.config
import pytest
from botocore.exceptions import ClientError

from tests.helpers import ServerProcess, table_input

MIB = 1024 * 1024
CONFIG = botocore.config.Config(retries={"max_attempts": 1})  # a 500 is retried by default


class Disk:
    """A tmpfs of ``size_mb`` at ``point``, which :meth:`fill` fills to the last byte and :meth:`free` empties."""

    def __init__(self, point: Path, size_mb: int, options: str = "") -> None:
        self.point = point
        point.mkdir(parents=True, exist_ok=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_mb}m{options}", "tmpfs", str(point)], check=True,
                       capture_output=True)
        self.filler = point / "filler"

    def fill(self) -> None:
        with self.filler.open("ab", buffering=0) as out:
            for piece in (MIB, 4096, 1):
                try:
                    while True:
                        out.write(b"\0" * piece)
                except OSError as exc:
                    assert exc.errno == errno.ENOSPC

    def free(self) -> None:
        self.filler.unlink()

    def unmount(self) -> None:
        # lazily: the test process may still hold a file there (ServerProcess keeps its log open)
        subprocess.run(["umount", "--lazy", str(self.point)], check=False, capture_output=True)
        shutil.rmtree(self.point, ignore_errors=True)


def _clients(server: ServerProcess) -> tuple[Any, Any]:
    keys = {"endpoint_url": server.endpoint, "region_name": "us-east-1", "aws_access_key_id": "AKIDFULL",
            "aws_secret_access_key": "secret", "config": CONFIG}
    return boto3.client("s3", **keys), boto3.client("glue", **keys)


def _error(call: Any, **kwargs: Any) -> tuple[str, int, str, str]:
    with pytest.raises(ClientError) as caught:
        call(**kwargs)
    response = caught.value.response
    return (response["Error"]["Code"], response["ResponseMetadata"]["HTTPStatusCode"], response["Error"]["Message"],
            response["ResponseMetadata"].get("RequestId", ""))


@contextlib.contextmanager
def _server_on_tmpfs(tmp_path: Path) -> Iterator[tuple[ServerProcess, Disk]]:
    """A server whose home (SQLite catalog included) is on a 48 MB tmpfs."""
    disk = Disk(tmp_path / "disk", 48)
    (disk.point / "home").mkdir()
    server = ServerProcess(disk.point / "home")
    try:
        yield server.start(), disk
    finally:
        server.stop()
        disk.unmount()


@pytest.fixture()
def full_home(tmp_path: Path) -> Iterator[tuple[ServerProcess, Disk]]:
    with _server_on_tmpfs(tmp_path) as running:
        yield running


def test_s3_writes_on_a_full_disk_answer_s3_errors_and_store_nothing(full_home: tuple[ServerProcess, Disk]) -> None:
    server, disk = full_home
    s3, _ = _clients(server)
    s3.create_bucket(Bucket="full")
    upload = s3.create_multipart_upload(Bucket="full", Key="joined")["UploadId"]
    part = s3.upload_part(Bucket="full", Key="joined", UploadId=upload, PartNumber=1, Body=b"p" * (6 * MIB))
    parts = {"Parts": [{"PartNumber": 1, "ETag": part["ETag"]}]}
    s3.put_object(Bucket="full", Key="before", Body=b"b" * (4 * MIB))
    disk.fill()

    code, status, message, request_id = _error(s3.put_object, Bucket="full", Key="object", Body=b"o" * (2 * MIB))
    assert (code, status) == ("InternalError", 500) and request_id
    assert "No space left on device" in message
    raw = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    raw.request("PUT", "/full/raw", body=b"r" * MIB)
    answer = raw.getresponse()
    body = answer.read()
    assert answer.status == 500 and answer.getheader("Content-Type") == "application/xml"
    assert b"<Error><Code>InternalError</Code>" in body and b"No space left on device" in body
    assert b"<RequestId>" in body
    code, status, message, _ = _error(s3.upload_part, Bucket="full", Key="joined", UploadId=upload, PartNumber=2,
                                      Body=b"q" * (2 * MIB))
    assert (code, status) == ("InternalError", 500) and "No space left on device" in message
    code, status, message, _ = _error(s3.complete_multipart_upload, Bucket="full", Key="joined", UploadId=upload,
                                      MultipartUpload=parts)
    assert (code, status) == ("InternalError", 500) and "No space left on device" in message
    code, status, message, _ = _error(s3.copy_object, Bucket="full", Key="copied", CopySource="full/before")
    assert (code, status) == ("InternalError", 500) and "No space left on device" in message

    for key in ("object", "raw", "joined", "copied"):  # nothing half-written: no object, no spool file
        assert _error(s3.head_object, Bucket="full", Key=key)[:2] == ("404", 404)
    assert not list((server.home / "s3-work" / "spool").iterdir())
    assert [u["UploadId"] for u in s3.list_multipart_uploads(Bucket="full")["Uploads"]] == [upload]
    assert [p["PartNumber"] for p in s3.list_parts(Bucket="full", Key="joined", UploadId=upload)["Parts"]] == [1]

    disk.free()
    s3.put_object(Bucket="full", Key="object", Body=b"o" * (2 * MIB))
    s3.complete_multipart_upload(Bucket="full", Key="joined", UploadId=upload, MultipartUpload=parts)
    assert s3.head_object(Bucket="full", Key="joined")["ContentLength"] == 6 * MIB
    assert s3.get_object(Bucket="full", Key="object")["Body"].read() == b"o" * (2 * MIB)


@pytest.fixture(params=["sqlite", "postgres"])
def full_catalog(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[ServerProcess, Disk]]:
    if request.param == "sqlite":
        with _server_on_tmpfs(tmp_path) as running:
            yield running
        return
    with _tablespace_database() as (url, disk):
        (tmp_path / "home").mkdir()
        server = ServerProcess(tmp_path / "home", url)
        try:
            yield server.start(), disk
        finally:
            server.stop()


class _tablespace_database:  # noqa: N801 - a context manager used like a function
    """A database whose files live in a tablespace on a 24 MB tmpfs, in a throwaway PostgreSQL cluster of its own
    (a tablespace is a folder of the server's machine: the suite's server may be a user's, elsewhere)."""

    def __enter__(self) -> tuple[str, Disk]:
        import psycopg

        from tools.services import PostgreSQL
        from tools.services.base import new_folder, service_user

        self.cluster = PostgreSQL.start_throwaway()
        user = service_user("postgres") or "root"
        self.disk = Disk(new_folder("tablespace"), 24, f",uid={_uid(user)},mode=0700")
        (self.disk.point / "pg").mkdir()
        subprocess.run(["chown", user, str(self.disk.point / "pg")], check=True)
        with psycopg.connect(self.cluster.url, autocommit=True) as conn:
            conn.execute(f"CREATE TABLESPACE full_disk LOCATION '{self.disk.point / 'pg'}'")
            conn.execute("CREATE DATABASE catalog TABLESPACE full_disk")
        return self.cluster.url_of("catalog"), self.disk

    def __exit__(self, *exc: object) -> None:
        self.cluster.stop()
        self.disk.unmount()


def _uid(user: str) -> int:
    import pwd

    return pwd.getpwnam(user).pw_uid


def test_glue_writes_on_a_full_disk_name_it_and_write_nothing(full_catalog: tuple[ServerProcess, Disk]) -> None:
    server, disk = full_catalog
    _, glue = _clients(server)
    glue.create_database(DatabaseInput={"Name": "lake"})
    big = {f"p{i}": "v" * 500_000 for i in range(8)}  # 4 MB: more than any free page or WAL room
    disk.fill()

    code, status, message, request_id = _error(glue.create_table, DatabaseName="lake",
                                               TableInput=table_input("wide", Parameters=big))
    assert (code, status) == ("InternalServiceException", 500) and request_id
    assert "No space left on device" in message and "disk is full" in message
    assert "OperationalError" not in message
    assert _error(glue.get_table, DatabaseName="lake", Name="wide")[0] == "EntityNotFoundException"
    assert [t["Name"] for t in glue.get_tables(DatabaseName="lake")["TableList"]] == []

    disk.free()
    glue.create_table(DatabaseName="lake", TableInput=table_input("wide", Parameters=big))
    assert glue.get_table(DatabaseName="lake", Name="wide")["Table"]["Parameters"] == big
