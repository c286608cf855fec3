"""Object-store locations: s3:// URIs to files under $GLUEBALL_HOME/s3 and back, escapes refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from glueball.objects.locations import (
    LocationError,
    S3Location,
    local_path,
    object_store_root,
    parse_s3,
    to_spark_path,
    to_uri,
)


@pytest.mark.parametrize(("uri", "expected"), [
    ("s3://bkt/a/b.csv", S3Location("bkt", "a/b.csv")),
    ("s3://bkt/a//b/", S3Location("bkt", "a/b", folder=True)),
    ("s3a://bkt/x", S3Location("bkt", "x")),
    ("s3n://bkt/", S3Location("bkt", "")),
    ("s3://bkt", S3Location("bkt", "")),
    ("s3://bkt/a..b/c.", S3Location("bkt", "a..b/c.")),   # dots inside a segment are just names
])
def test_parse_normalises_keys(uri: str, expected: S3Location) -> None:
    assert parse_s3(uri) == expected


@pytest.mark.parametrize(("uri", "reason"), [
    ("/tmp/x", "is not an s3:// URI"),
    ("s3:///key", "names no bucket"),
    ("s3://../etc/passwd", "is not a bucket name"),
    ("s3://./x", "is not a bucket name"),
    ("s3://b\\c/x", "is not a bucket name"),
    ("s3://bkt/a/../../../etc", "would leave the object store"),
    ("s3://bkt/./x", "would leave the object store"),
    ("s3://bkt/a\x00b", "NUL or backslash"),
])
def test_escaping_or_malformed_uris_are_refused_with_the_reason(uri: str, reason: str) -> None:
    with pytest.raises(LocationError, match=reason):
        parse_s3(uri)


def test_local_paths_stay_inside_the_store(tmp_path: Path) -> None:
    root = object_store_root(tmp_path)
    assert root == tmp_path / "s3"
    assert local_path("s3://bkt/a//b.csv", root) == root / "bkt" / "a" / "b.csv"
    assert local_path("file:///data/x.csv", root) == Path("/data/x.csv")
    assert local_path("/data/x.csv", root) == Path("/data/x.csv")
    with pytest.raises(LocationError):
        local_path("s3://bkt/../../x", root)


def test_to_uri_is_the_inverse_inside_the_store_only(tmp_path: Path) -> None:
    root = object_store_root(tmp_path)
    inside = root / "bkt" / "a" / "b.csv"
    assert to_uri(inside, root) == "s3://bkt/a/b.csv"
    assert parse_s3(to_uri(inside, root)).local(root) == inside
    assert to_uri(tmp_path / "elsewhere.csv", root) == str(tmp_path / "elsewhere.csv")


def test_spark_paths_are_files_or_s3a_with_an_endpoint(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GLUEBALL_HOME", str(tmp_path))
    monkeypatch.delenv("GLUEBALL_S3_ENDPOINT", raising=False)
    assert to_spark_path("s3://bkt/a/") == str(tmp_path / "s3" / "bkt" / "a")
    assert to_spark_path("file:///x/y") == "/x/y"
    monkeypatch.setenv("GLUEBALL_S3_ENDPOINT", "http://127.0.0.1:9000")
    assert to_spark_path("s3://bkt/a/") == "s3a://bkt/a/"
    with pytest.raises(LocationError):
        to_spark_path("s3://bkt/../x")
