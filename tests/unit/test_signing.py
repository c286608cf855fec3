"""SigV4 verification against requests signed by botocore itself (header and presigned, JSON, query, S3)."""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from botocore.auth import S3SigV4Auth, S3SigV4QueryAuth, SigV4Auth, SigV4QueryAuth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from glueball.edge.inprocess import to_wire_request
from glueball.edge.signing import FailureKind, SecretKey, SignatureFailure, read_signature, verify
from glueball.edge.wire import WireRequest

KEY, SECRET = "AKIAEXAMPLE000000001", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
SERVER_KEY = SecretKey(SECRET)


def now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def signed(method: str, url: str, body: bytes = b"", headers: dict[str, str] | None = None, service: str = "glue",
           auth: type = SigV4Auth, token: str | None = None, expires: int | None = None) -> WireRequest:
    request = AWSRequest(method=method, url=url, data=body, headers=headers or {})
    credentials = Credentials(KEY, SECRET, token)
    if expires is not None:
        auth(credentials, service, "us-east-1", expires=expires).add_auth(request)
    else:
        auth(credentials, service, "us-east-1").add_auth(request)
    return to_wire_request(request.prepare())


def check(request: WireRequest, key: SecretKey | None = SERVER_KEY, at: dt.datetime | None = None,
          s3_style: bool = False) -> None:
    verify(request, read_signature(request), key, at or now(), s3_style)


def failure(request: WireRequest, **kwargs: object) -> SignatureFailure:
    with pytest.raises(SignatureFailure) as caught:
        check(request, **kwargs)  # type: ignore[arg-type]
    return caught.value


def glue_request(body: dict[str, object] | None = None) -> WireRequest:
    return signed("POST", "http://127.0.0.1:9400/", json.dumps(body or {"Name": "db"}).encode(),
                  {"X-Amz-Target": "AWSGlue.GetDatabase", "Content-Type": "application/x-amz-json-1.1"})


def test_a_json_request_signed_by_botocore_verifies() -> None:
    check(glue_request())


def test_a_query_request_verifies() -> None:
    check(signed("POST", "http://localhost:9400/", b"Action=GetCallerIdentity&Version=2011-06-15",
                 {"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"}, service="sts"))


def test_a_get_with_query_parameters_and_an_odd_path_verifies() -> None:
    check(signed("GET", "http://localhost:9400/recipes/a%20b/./c?b=2&a=1&a=0&empty=&sp=x%20y&plus=%2B",
                 service="databrew"))


def test_s3_signs_its_path_as_sent_and_declares_the_payload_hash() -> None:
    body = b"hello object"
    request = signed("PUT", "http://localhost:9400/bucket/a%20key/../x//y.txt", body,
                     {"X-Amz-Content-SHA256": hashlib.sha256(body).hexdigest()}, service="s3", auth=S3SigV4Auth)
    check(request, s3_style=True)
    assert failure(request).kind is FailureKind.BAD_SIGNATURE  # normalised, as other services do, it differs


def test_s3_with_an_unsigned_payload_verifies() -> None:
    check(signed("PUT", "http://localhost:9400/bucket/k", b"data", {"X-Amz-Content-SHA256": "UNSIGNED-PAYLOAD"},
                 service="s3", auth=S3SigV4Auth), s3_style=True)


def test_a_body_that_is_not_the_declared_hash_is_refused() -> None:
    request = signed("PUT", "http://localhost:9400/bucket/k", b"data",
                     {"X-Amz-Content-SHA256": hashlib.sha256(b"data").hexdigest()}, service="s3", auth=S3SigV4Auth)
    tampered = WireRequest(request.method, request.path, request.query, request.headers, b"other")
    assert failure(tampered, s3_style=True).kind is FailureKind.CONTENT_HASH


def test_a_presigned_url_verifies_and_expires() -> None:
    request = signed("GET", "http://localhost:9400/bucket/report.csv", service="s3", auth=S3SigV4QueryAuth,
                     expires=60)
    assert "authorization" not in request.headers and "X-Amz-Signature" in request.query
    check(request, s3_style=True)
    late = failure(request, at=now() + dt.timedelta(seconds=120), s3_style=True)
    assert late.kind is FailureKind.EXPIRED_URL and "valid for 60 seconds" in late.message


def test_a_presigned_url_for_a_json_service_verifies() -> None:
    check(signed("GET", "http://localhost:9400/?Action=GetCallerIdentity&Version=2011-06-15", service="sts",
                 auth=SigV4QueryAuth, expires=300))


def test_a_wrong_secret_is_a_bad_signature_and_the_message_holds_no_secret() -> None:
    refused = failure(glue_request(), key=SecretKey("another-secret"))
    assert refused.kind is FailureKind.BAD_SIGNATURE
    assert "does not match the signature you provided" in refused.message
    assert SECRET not in str(refused) and "another-secret" not in str(refused)


def test_a_changed_body_or_header_is_a_bad_signature() -> None:
    request = glue_request()
    body = WireRequest(request.method, request.path, request.query, request.headers, b'{"Name": "other"}')
    assert failure(body).kind is FailureKind.BAD_SIGNATURE
    headers = dict(request.headers, **{"x-amz-target": "AWSGlue.DeleteDatabase"})
    assert failure(WireRequest(request.method, request.path, request.query, headers, request.body)).kind \
        is FailureKind.BAD_SIGNATURE


def test_an_old_or_future_request_time_is_refused_with_the_times_named() -> None:
    request = glue_request()
    old = failure(request, at=now() + dt.timedelta(minutes=10))
    assert old.kind is FailureKind.SKEWED and old.message.startswith("Signature expired: ")
    assert "- 5 min.)" in old.message
    future = failure(request, at=now() - dt.timedelta(minutes=10))
    assert future.kind is FailureKind.SKEWED and "not yet current" in future.message
    check(request, at=now() + dt.timedelta(minutes=4))


def test_an_unknown_key_is_refused() -> None:
    assert failure(glue_request(), key=None).kind is FailureKind.UNKNOWN_KEY


def test_temporary_credentials_need_their_token_and_expire() -> None:
    token = "FwoGZXIvYXdzEXAMPLETOKEN"
    request = signed("POST", "http://localhost:9400/", b"{}", {"X-Amz-Target": "AWSGlue.GetDatabases"}, token=token)
    later = (now() + dt.timedelta(hours=1)).timestamp()
    check(request, key=SecretKey(SECRET, token, later))
    assert failure(request, key=SecretKey(SECRET, "another-token", later)).kind is FailureKind.INVALID_TOKEN
    assert failure(request, key=SecretKey(SECRET, token, now().timestamp() - 1)).kind is FailureKind.EXPIRED_TOKEN
    assert failure(request, key=SERVER_KEY).kind is FailureKind.INVALID_TOKEN  # a token for a long-term key
    unsigned_token = glue_request()
    assert failure(unsigned_token, key=SecretKey(SECRET, token, later)).kind is FailureKind.INVALID_TOKEN


@pytest.mark.parametrize("authorization,message", [
    ("AWS AKID:signature", "Unsupported authorization type"),
    ("AWS4-HMAC-SHA256 Credential=AKID/20261125/us-east-1/glue/aws4_request", "requires 'SignedHeaders'"),
    ("AWS4-HMAC-SHA256 Credential=AKID/20261125/glue/aws4_request, SignedHeaders=host, Signature=ab",
     "Credential should be scoped"),
    ("AWS4-HMAC-SHA256 Credential=AKID/20261125/us-east-1/glue/aws4_request, SignedHeaders=x-amz-date, "
     "Signature=ab", "include 'host'"),
])
def test_malformed_authorization_headers(authorization: str, message: str) -> None:
    request = WireRequest("POST", "/", headers={"authorization": authorization, "host": "h",
                                                "x-amz-date": "20261125T000000Z"})
    with pytest.raises(SignatureFailure) as caught:
        read_signature(request)
    assert caught.value.kind is FailureKind.MALFORMED and message in caught.value.message


def test_a_request_without_a_signature_is_missing_one() -> None:
    with pytest.raises(SignatureFailure) as caught:
        read_signature(WireRequest("POST", "/", headers={"x-amz-target": "AWSGlue.GetDatabases"}))
    assert caught.value.kind is FailureKind.MISSING


def test_the_scope_date_must_be_the_request_date() -> None:
    request = glue_request()
    headers = dict(request.headers)
    headers["authorization"] = headers["authorization"].replace(
        f"/{headers['x-amz-date'][:8]}/", "/20200101/")
    with pytest.raises(SignatureFailure) as caught:
        read_signature(WireRequest(request.method, request.path, request.query, headers, request.body))
    assert "Date in Credential scope does not match" in caught.value.message


# ---------------------------------------------------------------- S3 chunked uploads (aws-chunked)
# the worked example of the S3 API Reference, "Signature Calculations for the Authorization Header:
# Transferring Payload in Multiple Chunks", Example: PUT Object (65 KB of 'a' in a 64 KB and a 1 KB chunk)

_EXAMPLE_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
_EXAMPLE_SIGNATURES = ("ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648",
                       "0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497",
                       "b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9")
_EXAMPLE_SEED = "4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9"


def _chunked_example(tmp_path: Path, signatures: tuple[str, ...] = _EXAMPLE_SIGNATURES) -> tuple[Any, Any]:
    from glueball.edge.spool import Spooler

    body = b""
    for data, signature in zip((b"a" * 65536, b"a" * 1024, b""), signatures, strict=True):
        body += f"{len(data):x};chunk-signature={signature}\r\n".encode() + data + b"\r\n"
    headers = {
        "host": "s3.amazonaws.com", "x-amz-date": "20130524T000000Z", "x-amz-storage-class": "REDUCED_REDUNDANCY",
        "x-amz-content-sha256": "STREAMING-AWS4-HMAC-SHA256-PAYLOAD", "content-encoding": "aws-chunked",
        "x-amz-decoded-content-length": "66560", "content-length": str(len(body)),
        "authorization": "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
                         "SignedHeaders=content-encoding;content-length;host;x-amz-content-sha256;x-amz-date;"
                         f"x-amz-decoded-content-length;x-amz-storage-class, Signature={_EXAMPLE_SEED}",
    }
    spooler = Spooler(tmp_path, chunked=True)
    for start in range(0, len(body), 1000):  # pieces that cut through chunk headers and data
        spooler.feed(body[start:start + 1000])
    spooled = spooler.finish()
    return WireRequest("PUT", "/examplebucket/chunkObject.txt", "", headers, b"", None, spooled), spooled


def test_an_aws_chunked_body_is_decoded_and_its_chunk_signatures_checked(tmp_path: Path) -> None:
    request, spooled = _chunked_example(tmp_path)
    assert spooled.size == 66560 and spooled.path.read_bytes() == b"a" * 66560
    assert [signature for signature, _ in spooled.chunks] == list(_EXAMPLE_SIGNATURES)
    signed = read_signature(request)
    moment = datetime(2013, 5, 24, tzinfo=UTC)
    verify(request, signed, SecretKey(_EXAMPLE_SECRET), moment, s3_style=True, spooled=spooled)


def test_a_tampered_chunk_is_refused(tmp_path: Path) -> None:
    swapped = (_EXAMPLE_SIGNATURES[0], _EXAMPLE_SIGNATURES[0], _EXAMPLE_SIGNATURES[2])
    request, spooled = _chunked_example(tmp_path, swapped)
    with pytest.raises(SignatureFailure) as refused:
        verify(request, read_signature(request), SecretKey(_EXAMPLE_SECRET), datetime(2013, 5, 24, tzinfo=UTC),
               s3_style=True, spooled=spooled)
    assert refused.value.kind is FailureKind.BAD_SIGNATURE and "chunk 2" in refused.value.message


def test_broken_chunk_framing_is_named(tmp_path: Path) -> None:
    from glueball.edge.spool import Spooler, SpoolError

    spooler = Spooler(tmp_path, chunked=True)
    with pytest.raises(SpoolError, match="hex size"):
        spooler.feed(b"zz;chunk-signature=00\r\n")
    spooler.discard()
    unfinished = Spooler(tmp_path, chunked=True)
    unfinished.feed(b"3\r\nabc\r\n")
    with pytest.raises(SpoolError, match="final zero-length chunk"):
        unfinished.finish()
    unfinished.discard()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("key", [b"", b"k", bytes(range(32)), bytes(range(64)), bytes(range(65)), b"\xff" * 200])
@pytest.mark.parametrize("message", [b"", b"AWS4-HMAC-SHA256\n20130524T000000Z", bytes(range(256)) * 3])
def test_the_day_keys_mac_copied_per_message_is_hmac_sha256(key: bytes, message: bytes) -> None:
    """Signatures are computed with an HMAC keyed once and copied per message: the same MAC as a one-shot
    HMAC, each time, for keys shorter than, as long as and longer than a block."""
    from glueball.edge.signing import _Mac, _sha256_hex

    assert _Mac(key).hexdigest(message) == hmac.new(key, message, hashlib.sha256).hexdigest()
    mac = _Mac(key)
    assert [mac.hexdigest(message) for _ in range(2)] == [hmac.new(key, message, hashlib.sha256).hexdigest()] * 2
    assert _sha256_hex(message) == hashlib.sha256(message).hexdigest() == _sha256_hex(message)
