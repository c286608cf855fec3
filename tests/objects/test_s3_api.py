"""The S3 API of a real ``glueball server``, through the AWS CLI, boto3 and plain HTTP only.

The object store is a folder: what the API writes is a file, and files written past the API (as
Spark writes them) are objects. Errors are S3's XML with S3's codes and statuses.
"""

from __future__ import annotations

import base64
import hashlib
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import botocore.config
import pytest
from botocore.exceptions import ClientError

from tests.helpers import ServerProcess

AWS = str(Path(sys.executable).with_name("aws"))
CONFIG = botocore.config.Config(retries={"max_attempts": 1})


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    running = ServerProcess(tmp_path_factory.mktemp("s3-home"),
                            extra_args=("--access-key", "AKIDOTHERACCOUNT=444455556666")).start()
    yield running
    running.stop()


@pytest.fixture(scope="module")
def s3(server: ServerProcess) -> Any:
    return boto3.client("s3", endpoint_url=server.endpoint, region_name="us-east-1", aws_access_key_id="AKIDS3TEST",
                        aws_secret_access_key="x", config=CONFIG)


def cli(server: ServerProcess, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "AWS_ACCESS_KEY_ID": "AKIDS3TEST", "AWS_SECRET_ACCESS_KEY": "x",
           "AWS_DEFAULT_REGION": "us-east-1"}
    return subprocess.run([AWS, "--endpoint-url", server.endpoint, *args], capture_output=True, text=True, env=env,
                          check=check)


def error_of(call: Any, **kwargs: Any) -> tuple[str, int, dict[str, Any]]:
    with pytest.raises(ClientError) as caught:
        call(**kwargs)
    response = caught.value.response
    return response["Error"]["Code"], response["ResponseMetadata"]["HTTPStatusCode"], response["Error"]


def test_the_aws_cli_round_trip(server: ServerProcess, tmp_path: Path) -> None:
    assert cli(server, "s3", "mb", "s3://cli-bucket").stdout.strip() == "make_bucket: cli-bucket"
    small = tmp_path / "small.txt"
    small.write_text("hello, lake\n")
    cli(server, "s3", "cp", str(small), "s3://cli-bucket/in/small.txt")
    big = tmp_path / "big.bin"
    big.write_bytes(os.urandom(100 * 1024 * 1024))  # over the CLI's 8 MB threshold: a multipart upload
    cli(server, "s3", "cp", str(big), "s3://cli-bucket/in/big.bin", "--only-show-errors")
    stored = server.home / "s3" / "cli-bucket" / "in" / "big.bin"
    assert stored.stat().st_size == big.stat().st_size
    assert hashlib.sha256(stored.read_bytes()).digest() == hashlib.sha256(big.read_bytes()).digest()
    back = tmp_path / "back.bin"
    cli(server, "s3", "cp", "s3://cli-bucket/in/big.bin", str(back), "--only-show-errors")
    assert back.read_bytes() == big.read_bytes()
    listing = cli(server, "s3", "ls", "--recursive", "s3://cli-bucket").stdout.splitlines()
    assert [line.split()[-1] for line in listing] == ["in/big.bin", "in/small.txt"]
    assert listing[0].split()[2] == str(100 * 1024 * 1024)
    assert "cli-bucket" in cli(server, "s3", "ls").stdout

    tree = tmp_path / "tree"
    (tree / "x" / "y").mkdir(parents=True)
    for name in ("x/y/a.csv", "x/b.csv", "top.txt"):
        (tree / name).write_text(name)
        os.utime(tree / name, (time.time() - 60, time.time() - 60))  # older than the upload: a re-sync skips it
    first = cli(server, "s3", "sync", str(tree), "s3://cli-bucket/tree", "--only-show-errors")
    assert first.returncode == 0
    again = cli(server, "s3", "sync", str(tree), "s3://cli-bucket/tree", "--dryrun").stdout
    assert again.strip() == "", f"a second sync should have nothing to do: {again}"
    (tree / "x" / "b.csv").write_text("changed, longer")
    changed = cli(server, "s3", "sync", str(tree), "s3://cli-bucket/tree", "--dryrun").stdout
    assert "x/b.csv" in changed and "top.txt" not in changed
    top = cli(server, "s3", "ls", "s3://cli-bucket/tree/").stdout
    assert "PRE x/" in top and "top.txt" in top and "a.csv" not in top

    url = cli(server, "s3", "presign", "s3://cli-bucket/in/small.txt").stdout.strip()
    fetched = subprocess.run(["curl", "-sS", "--fail", url], capture_output=True, check=True)
    assert fetched.stdout == b"hello, lake\n"

    removed = cli(server, "s3", "rm", "--recursive", "s3://cli-bucket/tree").stdout
    assert removed.count("delete:") == 3
    assert cli(server, "s3", "ls", "--recursive", "s3://cli-bucket").stdout.count("\n") == 2
    assert not (server.home / "s3" / "cli-bucket" / "tree").exists(), "emptied prefixes leave no folder behind"
    refused = cli(server, "s3", "rb", "s3://cli-bucket", check=False)
    assert refused.returncode != 0 and "BucketNotEmpty" in refused.stderr
    cli(server, "s3", "rb", "s3://cli-bucket", "--force")
    assert "cli-bucket" not in cli(server, "s3", "ls").stdout


def test_objects_with_metadata_ranges_and_conditions(s3: Any) -> None:
    s3.create_bucket(Bucket="objects")
    body = b"0123456789" * 10
    put = s3.put_object(Bucket="objects", Key="dir/data.bin", Body=body, ContentType="application/x-test",
                        Metadata={"team": "analytics"}, CacheControl="max-age=60",
                        ContentMD5=base64.b64encode(hashlib.md5(body).digest()).decode())
    etag = f'"{hashlib.md5(body).hexdigest()}"'
    assert put["ETag"] == etag
    got = s3.get_object(Bucket="objects", Key="dir/data.bin")
    assert got["Body"].read() == body and got["ContentType"] == "application/x-test"
    assert got["Metadata"] == {"team": "analytics"} and got["CacheControl"] == "max-age=60"
    assert got["ETag"] == etag and got["ContentLength"] == 100
    ranged = s3.get_object(Bucket="objects", Key="dir/data.bin", Range="bytes=10-14")
    assert ranged["ResponseMetadata"]["HTTPStatusCode"] == 206 and ranged["Body"].read() == b"01234"
    assert ranged["ContentRange"] == "bytes 10-14/100"
    assert s3.get_object(Bucket="objects", Key="dir/data.bin", Range="bytes=-3")["Body"].read() == b"789"
    code, status, error = error_of(s3.get_object, Bucket="objects", Key="dir/data.bin", Range="bytes=500-")
    assert (code, status) == ("InvalidRange", 416) and error["ActualObjectSize"] == "100"
    assert error_of(s3.get_object, Bucket="objects", Key="dir/data.bin", IfNoneMatch=etag)[:2] == ("304", 304)
    assert error_of(s3.get_object, Bucket="objects", Key="dir/data.bin", IfMatch='"other"')[:2] == (
        "PreconditionFailed", 412)
    assert s3.get_object(Bucket="objects", Key="dir/data.bin", IfMatch=etag)["ContentLength"] == 100
    head = s3.head_object(Bucket="objects", Key="dir/data.bin")
    assert head["ContentLength"] == 100 and head["Metadata"] == {"team": "analytics"}
    assert error_of(s3.head_object, Bucket="objects", Key="nope")[:2] == ("404", 404)
    code, status, error = error_of(s3.get_object, Bucket="objects", Key="nope")
    assert (code, status, error["Message"], error["Key"]) == ("NoSuchKey", 404, "The specified key does not exist.",
                                                              "nope")
    assert error_of(s3.get_object, Bucket="no-such-bucket", Key="k")[:2] == ("NoSuchBucket", 404)
    code, status, _ = error_of(s3.put_object, Bucket="objects", Key="bad-md5", Body=b"abc",
                               ContentMD5=base64.b64encode(hashlib.md5(b"abd").digest()).decode())
    assert (code, status) == ("BadDigest", 400)
    assert error_of(s3.put_object, Bucket="objects", Key="bad-md5", Body=b"abc", ContentMD5="not-md5")[0] == (
        "InvalidDigest")
    assert error_of(s3.head_object, Bucket="objects", Key="bad-md5")[1] == 404, "a refused upload leaves nothing"
    assert error_of(s3.put_object, Bucket="objects", Key="dir/data.bin", Body=b"x", IfNoneMatch="*")[0] == (
        "PreconditionFailed")
    s3.put_object(Bucket="objects", Key="fresh", Body=b"x", IfNoneMatch="*")


def test_checksums_are_verified_and_answered(s3: Any) -> None:
    s3.create_bucket(Bucket="checked")
    sent = s3.put_object(Bucket="checked", Key="k", Body=b"payload", ChecksumAlgorithm="SHA256")
    expected = base64.b64encode(hashlib.sha256(b"payload").digest()).decode()
    assert sent["ChecksumSHA256"] == expected
    head = s3.head_object(Bucket="checked", Key="k", ChecksumMode="ENABLED")
    assert head["ChecksumSHA256"] == expected
    wrong = base64.b64encode(hashlib.sha256(b"other").digest()).decode()
    assert error_of(s3.put_object, Bucket="checked", Key="k2", Body=b"payload", ChecksumSHA256=wrong)[0] == (
        "BadDigest")


def test_listings_page_in_key_order_with_prefixes(s3: Any, server: ServerProcess) -> None:
    s3.create_bucket(Bucket="listed")
    keys = ["a.txt", "a/b/c.txt", "a/b/d.txt", "a-b.txt", "a0.txt", "logs/2024/01.json", "logs/2024/02.json",
            "logs/2025/01.json", "z z+plus.txt", "ü.txt"]
    for key in keys:
        s3.put_object(Bucket="listed", Key=key.replace("a.txt", "a.txt") if key != "a.txt" else "top-a.txt",
                      Body=key.encode())
    keys = sorted(k if k != "a.txt" else "top-a.txt" for k in keys)
    paginator = s3.get_paginator("list_objects_v2")
    found = [o["Key"] for page in paginator.paginate(Bucket="listed", PaginationConfig={"PageSize": 3})
             for o in page.get("Contents", [])]
    assert found == keys, "every key once, in UTF-8 binary order, across pages of 3"
    top = s3.list_objects_v2(Bucket="listed", Delimiter="/")
    assert [p["Prefix"] for p in top["CommonPrefixes"]] == ["a/", "logs/"]
    assert [o["Key"] for o in top["Contents"]] == ["a-b.txt", "a0.txt", "top-a.txt", "z z+plus.txt", "ü.txt"]
    years = s3.list_objects_v2(Bucket="listed", Prefix="logs/20", Delimiter="/")
    assert [p["Prefix"] for p in years["CommonPrefixes"]] == ["logs/2024/", "logs/2025/"]
    paged = s3.list_objects_v2(Bucket="listed", Prefix="logs/", Delimiter="/", MaxKeys=1)
    assert paged["IsTruncated"] is True and paged["KeyCount"] == 1
    prefixes = []
    for page in paginator.paginate(Bucket="listed", Delimiter="/", Prefix="logs/2", PaginationConfig={"PageSize": 1}):
        prefixes += [p["Prefix"] for p in page.get("CommonPrefixes", [])]
    assert prefixes == ["logs/2024/", "logs/2025/"]
    after = s3.list_objects_v2(Bucket="listed", StartAfter="logs/2024/01.json")
    assert [o["Key"] for o in after["Contents"]][0] == "logs/2024/02.json"
    other = s3.list_objects_v2(Bucket="listed", Delimiter="0")
    assert "a0" in [p["Prefix"] for p in other["CommonPrefixes"]]
    v1 = s3.list_objects(Bucket="listed", Delimiter="/", MaxKeys=2)
    assert v1["IsTruncated"] and v1["NextMarker"] == "a/"
    rest = s3.list_objects(Bucket="listed", Delimiter="/", Marker=v1["NextMarker"])
    assert [o["Key"] for o in rest["Contents"]][0] == "a0.txt"
    assert error_of(s3.list_objects_v2, Bucket="listed", ContinuationToken="%%%")[0] == "InvalidArgument"

    # a file written past the API (as Spark writes) is an object; so is a "folder" object
    written = server.home / "s3" / "listed" / "spark" / "part-00000.parquet"
    written.parent.mkdir()
    written.write_bytes(b"PAR1")
    listed = s3.list_objects_v2(Bucket="listed", Prefix="spark/")["Contents"]
    assert [(o["Key"], o["Size"]) for o in listed] == [("spark/part-00000.parquet", 4)]
    assert s3.get_object(Bucket="listed", Key="spark/part-00000.parquet")["Body"].read() == b"PAR1"
    assert s3.head_object(Bucket="listed", Key="spark/part-00000.parquet")["ETag"] == listed[0]["ETag"]
    s3.put_object(Bucket="listed", Key="folder/", Body=b"")
    assert [o["Key"] for o in s3.list_objects_v2(Bucket="listed", Prefix="folder")["Contents"]] == ["folder/"]
    # a listing of the folder itself lists its folder object first (S3A's mkdirs makes one, then finds the
    # directory by listing its prefix, two keys at most), with or without a delimiter, then what is below it
    for delimiter in ("", "/"):
        marker = s3.list_objects_v2(Bucket="listed", Prefix="folder/", Delimiter=delimiter, MaxKeys=2)
        assert [(o["Key"], o["Size"]) for o in marker["Contents"]] == [("folder/", 0)] and marker["KeyCount"] == 1
    s3.put_object(Bucket="listed", Key="folder/inside.txt", Body=b"x")
    s3.put_object(Bucket="listed", Key="folder/sub/deeper.txt", Body=b"y")
    below = s3.list_objects_v2(Bucket="listed", Prefix="folder/", Delimiter="/")
    assert [o["Key"] for o in below["Contents"]] == ["folder/", "folder/inside.txt"]
    assert [p["Prefix"] for p in below["CommonPrefixes"]] == ["folder/sub/"]
    pages = [o["Key"] for page in paginator.paginate(Bucket="listed", Prefix="folder/",
                                                     PaginationConfig={"PageSize": 1})
             for o in page.get("Contents", [])]
    assert pages == ["folder/", "folder/inside.txt", "folder/sub/deeper.txt"], "the folder object once, across pages"
    # a folder that only holds objects is no object of its own
    assert [o["Key"] for o in s3.list_objects_v2(Bucket="listed", Prefix="folder/sub/")["Contents"]] == [
        "folder/sub/deeper.txt"]


def test_keys_that_cannot_be_files_are_refused(s3: Any) -> None:
    s3.create_bucket(Bucket="refusing")
    s3.put_object(Bucket="refusing", Key="a", Body=b"file")
    code, status, error = error_of(s3.put_object, Bucket="refusing", Key="a/b", Body=b"below a file")
    assert (code, status) == ("InvalidRequest", 400) and "a is an object" in error["Message"]
    assert error_of(s3.put_object, Bucket="refusing", Key="x/../../escape", Body=b"")[0] == "InvalidArgument"
    assert error_of(s3.create_bucket, Bucket="Bad_Name")[0] == "InvalidBucketName"
    assert error_of(s3.create_bucket, Bucket="refusing")[:2] == ("BucketAlreadyOwnedByYou", 409)


def test_copy_delete_many_and_tagging(s3: Any) -> None:
    s3.create_bucket(Bucket="copies")
    s3.put_object(Bucket="copies", Key="src", Body=b"source", Metadata={"a": "1"}, ContentType="text/plain")
    copied = s3.copy_object(Bucket="copies", Key="same-meta", CopySource="copies/src")
    assert copied["CopyObjectResult"]["ETag"] == f'"{hashlib.md5(b"source").hexdigest()}"'
    assert s3.head_object(Bucket="copies", Key="same-meta")["Metadata"] == {"a": "1"}
    s3.copy_object(Bucket="copies", Key="new-meta", CopySource={"Bucket": "copies", "Key": "src"},
                   MetadataDirective="REPLACE", Metadata={"b": "2"}, ContentType="text/csv")
    replaced = s3.head_object(Bucket="copies", Key="new-meta")
    assert replaced["Metadata"] == {"b": "2"} and replaced["ContentType"] == "text/csv"
    assert error_of(s3.copy_object, Bucket="copies", Key="src", CopySource="copies/src")[0] == "InvalidRequest"
    assert error_of(s3.copy_object, Bucket="copies", Key="x", CopySource="copies/missing")[0] == "NoSuchKey"
    assert error_of(s3.copy_object, Bucket="copies", Key="x", CopySource="copies/src",
                    CopySourceIfMatch='"nope"')[0] == "PreconditionFailed"
    deleted = s3.delete_objects(Bucket="copies", Delete={"Objects": [{"Key": "same-meta"}, {"Key": "new-meta"},
                                                                     {"Key": "never-was"}]})
    assert sorted(d["Key"] for d in deleted["Deleted"]) == ["never-was", "new-meta", "same-meta"]
    assert [o["Key"] for o in s3.list_objects_v2(Bucket="copies")["Contents"]] == ["src"]

    assert error_of(s3.get_bucket_tagging, Bucket="copies")[:2] == ("NoSuchTagSet", 404)
    s3.put_bucket_tagging(Bucket="copies", Tagging={"TagSet": [{"Key": "team", "Value": "analytics"}]})
    assert s3.get_bucket_tagging(Bucket="copies")["TagSet"] == [{"Key": "team", "Value": "analytics"}]
    s3.delete_bucket_tagging(Bucket="copies")
    assert error_of(s3.get_bucket_tagging, Bucket="copies")[0] == "NoSuchTagSet"
    s3.put_object_tagging(Bucket="copies", Key="src", Tagging={"TagSet": [{"Key": "k", "Value": "v"}]})
    assert s3.get_object_tagging(Bucket="copies", Key="src")["TagSet"] == [{"Key": "k", "Value": "v"}]
    assert s3.get_object(Bucket="copies", Key="src")["TagCount"] == 1
    assert error_of(s3.put_object_tagging, Bucket="copies", Key="src",
                    Tagging={"TagSet": [{"Key": "aws:x", "Value": "v"}]})[0] == "InvalidTag"
    assert s3.get_bucket_location(Bucket="copies")["LocationConstraint"] is None
    assert s3.head_bucket(Bucket="copies")["ResponseMetadata"]["HTTPHeaders"]["x-amz-bucket-region"] == "us-east-1"
    assert error_of(s3.head_bucket, Bucket="nothing-here")[:2] == ("404", 404)


def test_multipart_uploads_by_the_low_level_api(s3: Any) -> None:
    s3.create_bucket(Bucket="parts")
    upload = s3.create_multipart_upload(Bucket="parts", Key="joined.bin", ContentType="application/x-joined",
                                        Metadata={"source": "test"})["UploadId"]
    first, second = os.urandom(5 * 1024 * 1024), b"tail"
    etags = [s3.upload_part(Bucket="parts", Key="joined.bin", UploadId=upload, PartNumber=n, Body=body)["ETag"]
             for n, body in ((1, first), (2, second))]
    listed = s3.list_parts(Bucket="parts", Key="joined.bin", UploadId=upload)["Parts"]
    assert [(p["PartNumber"], p["Size"]) for p in listed] == [(1, len(first)), (2, 4)]
    assert [u["Key"] for u in s3.list_multipart_uploads(Bucket="parts")["Uploads"]] == ["joined.bin"]
    assert error_of(s3.head_object, Bucket="parts", Key="joined.bin")[1] == 404, "nothing visible before completion"
    code = error_of(s3.complete_multipart_upload, Bucket="parts", Key="joined.bin", UploadId=upload,
                    MultipartUpload={"Parts": [{"PartNumber": 2, "ETag": etags[1]},
                                               {"PartNumber": 1, "ETag": etags[0]}]})[0]
    assert code == "InvalidPartOrder"
    assert error_of(s3.complete_multipart_upload, Bucket="parts", Key="joined.bin", UploadId=upload,
                    MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": '"0000"'}]})[0] == "InvalidPart"
    done = s3.complete_multipart_upload(Bucket="parts", Key="joined.bin", UploadId=upload, MultipartUpload={
        "Parts": [{"PartNumber": n + 1, "ETag": e} for n, e in enumerate(etags)]})
    digests = hashlib.md5(hashlib.md5(first).digest() + hashlib.md5(second).digest()).hexdigest()
    assert done["ETag"] == f'"{digests}-2"'
    got = s3.get_object(Bucket="parts", Key="joined.bin")
    assert got["Body"].read() == first + second and got["Metadata"] == {"source": "test"}
    assert got["ContentType"] == "application/x-joined"
    assert "Uploads" not in s3.list_multipart_uploads(Bucket="parts")
    assert error_of(s3.list_parts, Bucket="parts", Key="joined.bin", UploadId=upload)[:2] == ("NoSuchUpload", 404)

    small = s3.create_multipart_upload(Bucket="parts", Key="small")["UploadId"]
    tags = [s3.upload_part(Bucket="parts", Key="small", UploadId=small, PartNumber=n, Body=b"x")["ETag"]
            for n in (1, 2)]
    assert error_of(s3.complete_multipart_upload, Bucket="parts", Key="small", UploadId=small, MultipartUpload={
        "Parts": [{"PartNumber": n + 1, "ETag": e} for n, e in enumerate(tags)]})[0] == "EntityTooSmall"
    s3.abort_multipart_upload(Bucket="parts", Key="small", UploadId=small)
    assert error_of(s3.abort_multipart_upload, Bucket="parts", Key="small", UploadId=small)[0] == "NoSuchUpload"


def test_virtual_host_addressing_and_plain_http(server: ServerProcess, s3: Any) -> None:
    s3.create_bucket(Bucket="hosted")
    s3.put_object(Bucket="hosted", Key="k.txt", Body=b"by host")
    request = urllib.request.Request(server.endpoint + "/k.txt", headers={"Host": f"hosted.localhost:{server.port}"})
    assert urllib.request.urlopen(request).read() == b"by host"
    assert urllib.request.urlopen(server.endpoint + "/hosted/k.txt").read() == b"by host"
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(server.endpoint + "/hosted/missing")
    assert caught.value.code == 404 and b"<Code>NoSuchKey</Code>" in caught.value.read()
    put = urllib.request.Request(server.endpoint + "/hosted/plain.txt", data=b"plain put", method="PUT")
    assert urllib.request.urlopen(put).status == 200
    assert s3.get_object(Bucket="hosted", Key="plain.txt")["Body"].read() == b"plain put"


def test_bad_requests_get_s3s_codes(server: ServerProcess, s3: Any) -> None:
    s3.create_bucket(Bucket="strict")
    other = boto3.client("s3", endpoint_url=server.endpoint, region_name="us-east-1",
                         aws_access_key_id="AKIDOTHERACCOUNT", aws_secret_access_key="x", config=CONFIG)
    assert error_of(other.create_bucket, Bucket="strict")[:2] == ("BucketAlreadyExists", 409)
    other.create_bucket(Bucket="theirs")
    assert "theirs" not in [b["Name"] for b in s3.list_buckets()["Buckets"]], "ListBuckets lists the caller's own"
    assert [b["Name"] for b in other.list_buckets()["Buckets"]] == ["theirs"]

    assert error_of(s3.put_object, Bucket="strict", Key="k" * 1025, Body=b"")[:2] == ("KeyTooLongError", 400)
    assert error_of(s3.list_objects_v2, Bucket="strict", MaxKeys=-1)[0] == "InvalidArgument"
    s3.put_object(Bucket="strict", Key="src", Body=b"x")
    assert error_of(s3.copy_object, Bucket="strict", Key="dst", CopySource="strict/src?versionId=abc")[0] == (
        "InvalidArgument")
    assert error_of(s3.put_bucket_tagging, Bucket="strict", Tagging={"TagSet": [
        {"Key": "a", "Value": "1"}, {"Key": "a", "Value": "2"}]})[0] == "InvalidArgument"
    code, status, _ = error_of(s3.get_bucket_versioning, Bucket="strict")
    assert (code, status) == ("NotImplemented", 501)

    def raw(method: str, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
        request = urllib.request.Request(server.endpoint + path, data=body, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request) as answer:
                return answer.status, answer.read()
        except urllib.error.HTTPError as err:
            return err.code, err.read()

    status, body = raw("POST", "/strict?delete", b"<Delete><Object><Key>src", {"Content-Type": "application/xml"})
    assert status == 400 and b"<Code>MalformedXML</Code>" in body
    too_many = "".join(f"<Object><Key>k{i}</Key></Object>" for i in range(1001))
    status, body = raw("POST", "/strict?delete", f"<Delete>{too_many}</Delete>".encode(), {})
    assert status == 400 and b"<Code>MalformedXML</Code>" in body
    status, body = raw("PUT", "/strict/chunked", b"5;chunk-signature=00\r\nabc", {
        "Content-Encoding": "aws-chunked", "X-Amz-Content-Sha256": "STREAMING-UNSIGNED-PAYLOAD-TRAILER",
        "X-Amz-Decoded-Content-Length": "5"})
    assert status == 400 and b"<Code>IncompleteBody</Code>" in body
    assert error_of(s3.head_object, Bucket="strict", Key="chunked")[1] == 404
    assert list((server.home / "s3-work" / "spool").iterdir()) == [], "refused uploads leave no spool file"


def test_aws_chunked_is_the_wire_framing_not_the_object_s_encoding(s3: Any, server: ServerProcess) -> None:
    """S3 keeps an upload's Content-Encoding without ``aws-chunked`` (the SDKs' framing of the body), so a client
    that copies an object's headers back (S3A's rename: CopyObject with the source's Content-Encoding and no body)
    sends no chunked body, and is not refused as one."""
    s3.create_bucket(Bucket="framing")

    def raw_put(key: str, body: bytes, headers: dict[str, str]) -> int:
        request = urllib.request.Request(f"{server.endpoint}/framing/{key}", data=body, method="PUT",
                                         headers=headers)
        try:
            with urllib.request.urlopen(request) as answer:
                return int(answer.status)
        except urllib.error.HTTPError as err:
            return int(err.code)

    chunked = b"5\r\nhello\r\n0\r\n\r\n"
    assert raw_put("plain", chunked, {"Content-Encoding": "aws-chunked", "X-Amz-Decoded-Content-Length": "5",
                                      "X-Amz-Content-Sha256": "STREAMING-UNSIGNED-PAYLOAD-TRAILER"}) == 200
    assert raw_put("gzipped", chunked, {"Content-Encoding": "gzip,aws-chunked", "X-Amz-Decoded-Content-Length": "5",
                                        "X-Amz-Content-Sha256": "STREAMING-UNSIGNED-PAYLOAD-TRAILER"}) == 200
    plain = s3.head_object(Bucket="framing", Key="plain")
    assert "ContentEncoding" not in plain and plain["ContentLength"] == 5
    assert s3.head_object(Bucket="framing", Key="gzipped")["ContentEncoding"] == "gzip"
    assert s3.get_object(Bucket="framing", Key="plain")["Body"].read() == b"hello"
    # a copy that repeats an aws-chunked Content-Encoding over an empty, unsigned body is an ordinary copy
    assert raw_put("copy", b"", {"Content-Encoding": "aws-chunked", "X-Amz-Content-Sha256": "UNSIGNED-PAYLOAD",
                                 "X-Amz-Copy-Source": "framing/plain", "X-Amz-Metadata-Directive": "REPLACE"}) == 200
    assert s3.get_object(Bucket="framing", Key="copy")["Body"].read() == b"hello"
