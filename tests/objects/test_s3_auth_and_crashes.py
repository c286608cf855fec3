"""S3 under ``--auth iam`` (signatures, presigned URLs, s3:* policies) and a server killed mid-upload."""

from __future__ import annotations

import base64
import configparser
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import botocore.config
import pytest
import urllib3
from botocore.exceptions import ClientError

from tests.helpers import ServerProcess

AWS = str(Path(sys.executable).with_name("aws"))
CONFIG = botocore.config.Config(retries={"max_attempts": 1})


def s3_client(server: ServerProcess, key: str, secret: str, **config: Any) -> Any:
    return boto3.client("s3", endpoint_url=server.endpoint, region_name="us-east-1", aws_access_key_id=key,
                        aws_secret_access_key=secret, config=CONFIG.merge(botocore.config.Config(**config)))


def error_of(call: Any, **kwargs: Any) -> tuple[str, int]:
    with pytest.raises(ClientError) as caught:
        call(**kwargs)
    return caught.value.response["Error"]["Code"], caught.value.response["ResponseMetadata"]["HTTPStatusCode"]


def http_error(url: str) -> tuple[int, bytes]:
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(url)
    return caught.value.code, caught.value.read()


@pytest.fixture(scope="module")
def iam_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, tuple[str, str]]]:
    home = tmp_path_factory.mktemp("s3-iam")
    server = ServerProcess(home, extra_args=("--auth", "iam")).start()
    profile = configparser.ConfigParser()
    profile.read(home / "credentials")
    yield server, (profile["glueball"]["aws_access_key_id"], profile["glueball"]["aws_secret_access_key"])
    server.stop()


def test_signatures_and_policies_decide(iam_server: tuple[ServerProcess, tuple[str, str]]) -> None:
    server, root = iam_server
    s3 = s3_client(server, *root)
    s3.create_bucket(Bucket="guarded")
    s3.put_object(Bucket="guarded", Key="public/report.csv", Body=b"a,b\n1,2\n")
    s3.put_object(Bucket="guarded", Key="private/secret.txt", Body=b"no")

    assert error_of(s3_client(server, root[0], "wrong").list_objects_v2, Bucket="guarded") == (
        "SignatureDoesNotMatch", 403)
    assert error_of(s3_client(server, "AKIANOBODY", "x").list_buckets) == ("InvalidAccessKeyId", 403)
    status, body = http_error(server.endpoint + "/guarded/public/report.csv")  # anonymous
    assert status == 403 and b"<Code>AccessDenied</Code>" in body
    log = (server.home / "logs").rglob("*.log")
    refusals = "".join(path.read_text() for path in log)
    assert "refused s3 request signed with key" in refusals and root[1] not in refusals

    iam = boto3.client("iam", endpoint_url=server.endpoint, region_name="us-east-1", aws_access_key_id=root[0],
                       aws_secret_access_key=root[1], config=CONFIG)
    iam.create_user(UserName="reader")
    iam.put_user_policy(UserName="reader", PolicyName="public-only", PolicyDocument=json.dumps({
        "Version": "2012-10-17", "Statement": [
            {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::guarded/public/*"},
            {"Effect": "Allow", "Action": "s3:ListBucket", "Resource": "arn:aws:s3:::guarded",
             "Condition": {"StringLike": {"s3:prefix": "public/*"}}}]}))
    key = iam.create_access_key(UserName="reader")["AccessKey"]
    reader = s3_client(server, key["AccessKeyId"], key["SecretAccessKey"])
    assert reader.get_object(Bucket="guarded", Key="public/report.csv")["Body"].read() == b"a,b\n1,2\n"
    assert error_of(reader.get_object, Bucket="guarded", Key="private/secret.txt") == ("AccessDenied", 403)
    assert [o["Key"] for o in reader.list_objects_v2(Bucket="guarded", Prefix="public/")["Contents"]] == [
        "public/report.csv"]
    assert error_of(reader.list_objects_v2, Bucket="guarded") == ("AccessDenied", 403)
    assert error_of(reader.put_object, Bucket="guarded", Key="public/new", Body=b"x") == ("AccessDenied", 403)
    assert error_of(reader.list_buckets) == ("AccessDenied", 403)


def test_presigned_urls_are_verified(iam_server: tuple[ServerProcess, tuple[str, str]], tmp_path: Path) -> None:
    server, root = iam_server
    s3 = s3_client(server, *root, signature_version="s3v4")
    s3.create_bucket(Bucket="shared")
    s3.put_object(Bucket="shared", Key="file.txt", Body=b"presigned")
    url = s3.generate_presigned_url("get_object", Params={"Bucket": "shared", "Key": "file.txt"}, ExpiresIn=60)
    assert "X-Amz-Signature=" in url and urllib.request.urlopen(url).read() == b"presigned"
    status, body = http_error(url.replace("file.txt", "file.txx"))
    assert status == 403 and b"SignatureDoesNotMatch" in body
    put = s3.generate_presigned_url("put_object", Params={"Bucket": "shared", "Key": "uploaded.txt"}, ExpiresIn=60)
    request = urllib.request.Request(put, data=b"sent by url", method="PUT", headers={"Content-Type": ""})
    assert urllib.request.urlopen(request).status == 200
    assert s3.get_object(Bucket="shared", Key="uploaded.txt")["Body"].read() == b"sent by url"
    short = s3.generate_presigned_url("get_object", Params={"Bucket": "shared", "Key": "file.txt"}, ExpiresIn=1)
    time.sleep(2)
    status, body = http_error(short)
    assert status == 403 and b"<Code>AccessDenied</Code>" in body and b"expired" in body

    env = {**os.environ, "AWS_ACCESS_KEY_ID": root[0], "AWS_SECRET_ACCESS_KEY": root[1],
           "AWS_DEFAULT_REGION": "us-east-1"}
    cli_url = subprocess.run([AWS, "--endpoint-url", server.endpoint, "s3", "presign", "s3://shared/file.txt"],
                             capture_output=True, text=True, env=env, check=True).stdout.strip()
    assert urllib.request.urlopen(cli_url).read() == b"presigned"  # Signature Version 2, as the CLI signs
    status, body = http_error(cli_url.replace("Signature=", "Signature=A"))
    assert status == 403 and b"SignatureDoesNotMatch" in body
    brief = subprocess.run([AWS, "--endpoint-url", server.endpoint, "s3", "presign", "s3://shared/file.txt",
                            "--expires-in", "1"], capture_output=True, text=True, env=env, check=True).stdout.strip()
    time.sleep(2)
    status, body = http_error(brief)
    assert status == 403 and b"<Code>AccessDenied</Code>" in body and b"expired" in body


def test_a_server_killed_during_a_multipart_upload_leaves_no_object(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path).start()
    s3 = s3_client(server, "AKIDCRASH", "x")
    s3.create_bucket(Bucket="crash")
    upload = s3.create_multipart_upload(Bucket="crash", Key="huge.bin")["UploadId"]
    part = os.urandom(100 * 1024 * 1024)
    s3.upload_part(Bucket="crash", Key="huge.bin", UploadId=upload, PartNumber=1, Body=part)

    sent = threading.Event()

    def slow_body() -> Iterator[bytes]:
        for offset in range(0, len(part), 1024 * 1024):
            if offset == 40 * 1024 * 1024:
                sent.set()
                time.sleep(30)  # the server dies while this part is half sent
            yield part[offset:offset + 1024 * 1024]

    def second_part() -> None:
        request = urllib.request.Request(
            f"{server.endpoint}/crash/huge.bin?partNumber=2&uploadId={upload}", data=slow_body(), method="PUT",
            headers={"Content-Length": str(len(part))})
        try:
            urllib.request.urlopen(request, timeout=60)
        except Exception:  # noqa: BLE001 - the connection dies with the server
            pass

    sender = threading.Thread(target=second_part, daemon=True)
    sender.start()
    assert sent.wait(60)
    time.sleep(1)
    assert server.proc is not None
    os.kill(server.proc.pid, signal.SIGKILL)
    server.proc.wait()
    server.proc = None
    leftovers = list((tmp_path / "s3-work" / "spool").iterdir())
    assert leftovers, "the half-sent part was being spooled when the server died"
    assert not (tmp_path / "s3" / "crash" / "huge.bin").exists()

    server.start()
    try:
        s3 = s3_client(server, "AKIDCRASH", "x")
        assert error_of(s3.head_object, Bucket="crash", Key="huge.bin") == ("404", 404)
        assert "Contents" not in s3.list_objects_v2(Bucket="crash")
        uploads = s3.list_multipart_uploads(Bucket="crash")["Uploads"]
        assert [(u["Key"], u["UploadId"]) for u in uploads] == [("huge.bin", upload)]
        parts = s3.list_parts(Bucket="crash", Key="huge.bin", UploadId=upload)["Parts"]
        assert [(p["PartNumber"], p["Size"]) for p in parts] == [(1, len(part))], "the half-sent part is not a part"
        s3.abort_multipart_upload(Bucket="crash", Key="huge.bin", UploadId=upload)
        assert "Uploads" not in s3.list_multipart_uploads(Bucket="crash")
        assert not (tmp_path / "s3-work" / "uploads" / upload).exists()
    finally:
        server.stop()


def test_the_s3_api_can_serve_another_s3_compatible_store(tmp_path: Path) -> None:
    """``--object-store``: glueball's S3 API forwards to another store (moto_server here), with its codes."""
    from tests.streaming.kinesis_helpers import MotoServer

    moto = MotoServer.start(tmp_path)
    host = moto.endpoint.removeprefix("http://")
    (tmp_path / "home").mkdir()
    server = ServerProcess(tmp_path / "home", extra_args=(
        "--object-store", f"s3://MOTOKEY:MOTOSECRET@{host}?scheme=http")).start()
    try:
        env = {**os.environ, "AWS_ACCESS_KEY_ID": "AKIDFRONT", "AWS_SECRET_ACCESS_KEY": "x",
               "AWS_DEFAULT_REGION": "us-east-1"}

        def cli(*args: str) -> str:
            return subprocess.run([AWS, "--endpoint-url", server.endpoint, *args], capture_output=True, text=True,
                                  env=env, check=True).stdout

        cli("s3", "mb", "s3://remote-bucket")
        big = tmp_path / "big.bin"
        big.write_bytes(os.urandom(20 * 1024 * 1024))
        cli("s3", "cp", str(big), "s3://remote-bucket/data/big.bin", "--only-show-errors")
        (tmp_path / "small.txt").write_text("small")
        cli("s3", "cp", str(tmp_path / "small.txt"), "s3://remote-bucket/data/small.txt")
        assert [line.split()[-1] for line in cli("s3", "ls", "--recursive", "s3://remote-bucket").splitlines()] == [
            "data/big.bin", "data/small.txt"]
        direct = boto3.client("s3", endpoint_url=moto.endpoint, region_name="us-east-1",
                              aws_access_key_id="MOTOKEY", aws_secret_access_key="MOTOSECRET")
        assert direct.get_object(Bucket="remote-bucket", Key="data/big.bin")["Body"].read() == big.read_bytes()
        for key, data in (("data/folder/", b""), ("data/chunked.txt", b"hello world")):
            # aws-chunked with a checksum trailer, as the AWS SDK v2 (S3A's) sends uploads: forwarded decoded
            crc = base64.b64encode(zlib.crc32(data).to_bytes(4, "big")).decode()
            framed = (f"{len(data):x}\r\n".encode() + data + b"\r\n" if data else b"") + \
                f"0\r\nx-amz-checksum-crc32:{crc}\r\n\r\n".encode()
            put = urllib3.PoolManager().request("PUT", f"{server.endpoint}/remote-bucket/{key}", body=framed,
                                                timeout=60, retries=False, headers={
                "Content-Encoding": "aws-chunked", "x-amz-content-sha256": "STREAMING-UNSIGNED-PAYLOAD-TRAILER",
                "x-amz-decoded-content-length": str(len(data)), "x-amz-trailer": "x-amz-checksum-crc32",
                "x-amz-sdk-checksum-algorithm": "CRC32", "Content-Length": str(len(framed)),
                "x-amz-date": "20261128T000000Z", "Authorization": "AWS4-HMAC-SHA256 Credential=AKIDFRONT/20261128/"
                "us-east-1/s3/aws4_request, SignedHeaders=host, Signature=00"})
            assert put.status == 200, put.data
            stored = direct.get_object(Bucket="remote-bucket", Key=key)
            assert stored["Body"].read() == data and "ContentEncoding" not in stored
        assert not (tmp_path / "home" / "s3" / "remote-bucket").exists(), "nothing is kept locally"
        front = s3_client(server, "AKIDFRONT", "x")
        assert front.get_object(Bucket="remote-bucket", Key="data/small.txt", Range="bytes=1-2")["Body"].read() == (
            b"ma")
        assert error_of(front.get_object, Bucket="remote-bucket", Key="missing") == ("NoSuchKey", 404)
        # a copy whose source key needs URL-encoding (a partition's "=", a space), as S3A's rename sends it
        front.put_object(Bucket="remote-bucket", Key="data/day=1/a b.txt", Body=b"partition")
        front.copy_object(Bucket="remote-bucket", Key="data/day=2/copied.txt",
                          CopySource={"Bucket": "remote-bucket", "Key": "data/day=1/a b.txt"})
        assert direct.get_object(Bucket="remote-bucket", Key="data/day=2/copied.txt")["Body"].read() == b"partition"
        assert error_of(front.delete_bucket, Bucket="remote-bucket") == ("BucketNotEmpty", 409)
        assert not list((tmp_path / "home" / "s3-work" / "spool").iterdir()), "downloads leave no spool file"
    finally:
        server.stop()
        moto.stop()


def test_a_malformed_object_store_url_is_refused(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "glueball", "server", "--home", str(tmp_path), "--object-store",
                           "http://example.com"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "--object-store takes s3://" in done.stderr
