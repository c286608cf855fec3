"""A request recognised as one verified before (glueball.edge.verified) is accepted only when it is identical in all
its verification reads and checked against the very key that verified it; what depends on the moment (the
five-minute window, the session token's expiry) is checked every time."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from dataclasses import replace

import pytest
from botocore.auth import S3SigV4QueryAuth, SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from glueball.edge import verified
from glueball.edge.inprocess import to_wire_request
from glueball.edge.signing import FailureKind, SecretKey, SignatureFailure, read_signature
from glueball.edge.verified import LARGEST_BODY, VerifiedRequests
from glueball.edge.wire import WireRequest

KEY, SECRET = "AKIAEXAMPLE000000002", "kept/secret/of/the/example/key/00000000"


def now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def glue_request(body: dict[str, object] | None = None, token: str | None = None, service: str = "glue",
                 query: str = "") -> WireRequest:
    request = AWSRequest("POST", f"http://127.0.0.1:9400/{'?' + query if query else ''}",
                         data=json.dumps(body or {"DatabaseName": "sales", "Name": "orders"}).encode(),
                         headers={"X-Amz-Target": "AWSGlue.GetTable", "Content-Type": "application/x-amz-json-1.1"})
    SigV4Auth(Credentials(KEY, SECRET, token), service, "us-east-1").add_auth(request)
    return to_wire_request(request.prepare())


@pytest.fixture()
def computed(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[WireRequest]]:
    """The requests whose signature was computed in full (glueball.edge.signing.verify)."""
    calls: list[WireRequest] = []
    full = verified.verify

    def counted(request: WireRequest, *args: object) -> None:
        calls.append(request)
        full(request, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(verified, "verify", counted)
    yield calls


def check(memory: VerifiedRequests, request: WireRequest, key: SecretKey | None, at: dt.datetime | None = None,
          s3_style: bool = False) -> None:
    """What the edge does: recall, else read the signature; then verify."""
    recalled = memory.recall(request, s3_style)
    signed = recalled.signed if recalled is not None else read_signature(request)
    memory.verify(request, signed, key, at or now(), s3_style, recalled)


def refused(memory: VerifiedRequests, request: WireRequest, key: SecretKey | None, **kwargs: object) -> FailureKind:
    with pytest.raises(SignatureFailure) as caught:
        check(memory, request, key, **kwargs)  # type: ignore[arg-type]
    return caught.value.kind


def test_an_identical_request_is_recognised_with_the_same_key(computed: list[WireRequest]) -> None:
    memory, key, request = VerifiedRequests(), SecretKey(SECRET), glue_request()
    for _ in range(3):
        check(memory, request, key)
    # the same request arriving as new objects (as over HTTP), with an unsigned header added
    check(memory, replace(request, headers={**request.headers, "user-agent": "another"}, body=bytes(request.body)),
          key)
    assert computed == [request]


@pytest.mark.parametrize("change", [
    {"body": b'{"DatabaseName": "sales", "Name": "secret_orders"}'},
    {"query": "Action=DeleteTable"},
    {"path": "/other"},
    {"method": "PUT"},
    {"headers": {"x-amz-target": "AWSGlue.DeleteTable"}},
    {"headers": {"x-amz-date": "20200101T000000Z"}},
    {"headers": {"x-amz-security-token": "a-token"}},
    {"headers": {"x-amz-content-sha256": "UNSIGNED-PAYLOAD"}},
])
def test_a_request_changed_under_the_same_authorization_header_is_verified_in_full(
        change: dict[str, object], computed: list[WireRequest]) -> None:
    memory, key, request = VerifiedRequests(), SecretKey(SECRET), glue_request()
    check(memory, request, key)
    headers = change.pop("headers", {})
    tampered = replace(request, headers={**request.headers, **headers}, **change)  # type: ignore[arg-type]
    assert tampered.headers["authorization"] == request.headers["authorization"]
    assert memory.recall(tampered, False) is None
    with pytest.raises(SignatureFailure):
        check(memory, tampered, key)
    check(memory, request, key)  # the request verified before is still recognised
    assert computed.count(request) == 1


def test_the_request_time_is_checked_every_time(computed: list[WireRequest]) -> None:
    memory, key, request = VerifiedRequests(), SecretKey(SECRET), glue_request()
    check(memory, request, key)
    assert memory.recall(request, False) is not None
    assert refused(memory, request, key, at=now() + dt.timedelta(minutes=6)) is FailureKind.SKEWED
    assert refused(memory, request, key, at=now() - dt.timedelta(minutes=6)) is FailureKind.SKEWED
    check(memory, request, key, at=now() + dt.timedelta(minutes=4))
    assert computed == [request]


def test_another_key_object_verifies_in_full(computed: list[WireRequest]) -> None:
    """A key the lookup answered anew (rotated, or simply read again) is not the key that verified the request."""
    memory, request = VerifiedRequests(), glue_request()
    check(memory, request, SecretKey(SECRET))
    assert refused(memory, request, SecretKey("a-rotated-secret")) is FailureKind.BAD_SIGNATURE
    assert refused(memory, request, None) is FailureKind.UNKNOWN_KEY  # deleted or deactivated
    again = SecretKey(SECRET)
    check(memory, request, again)  # the same secret read again: verified again, then recognised
    check(memory, request, again)
    assert len(computed) == 4


def test_an_expired_session_token_is_refused_when_recognised() -> None:
    memory, token = VerifiedRequests(), "FwoGZXIvYXdzEXAMPLETOKEN2"
    request = glue_request(token=token)
    key = SecretKey(SECRET, token, (now() + dt.timedelta(minutes=2)).timestamp())
    check(memory, request, key)
    assert memory.recall(request, False) is not None
    assert refused(memory, request, key, at=now() + dt.timedelta(minutes=3)) is FailureKind.EXPIRED_TOKEN


def test_a_request_is_recognised_only_for_the_same_path_signing() -> None:
    memory, key, request = VerifiedRequests(), SecretKey(SECRET), glue_request()
    check(memory, request, key)
    assert memory.recall(request, True) is None  # S3 signs its path as sent


def test_a_failed_verification_is_not_remembered(computed: list[WireRequest]) -> None:
    memory, request = VerifiedRequests(), glue_request()
    for _ in range(2):
        assert refused(memory, request, SecretKey("wrong")) is FailureKind.BAD_SIGNATURE
    assert memory.recall(request, False) is None and len(computed) == 2


def test_large_bodies_and_presigned_urls_are_verified_every_time(computed: list[WireRequest]) -> None:
    memory, key = VerifiedRequests(), SecretKey(SECRET)
    large = glue_request({"Name": "x" * LARGEST_BODY})
    url = AWSRequest("GET", "http://localhost:9400/bucket/report.csv")
    S3SigV4QueryAuth(Credentials(KEY, SECRET), "s3", "us-east-1", expires=60).add_auth(url)
    presigned = to_wire_request(url.prepare())
    for _ in range(2):
        check(memory, large, key)
        check(memory, presigned, key, s3_style=True)
    assert len(computed) == 4


def test_what_is_remembered_is_bounded() -> None:
    memory, key = VerifiedRequests(limit=3), SecretKey(SECRET)
    requests = [glue_request({"Name": f"t{i}"}) for i in range(4)]
    for request in requests:
        check(memory, request, key)
    assert memory.recall(requests[-1], False) is not None
    assert all(memory.recall(r, False) is None for r in requests[:-1])  # dropped when the fourth came
