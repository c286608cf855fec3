"""Verifying AWS Signature Version 4, in the ``Authorization`` header or a presigned URL.

The server rebuilds what the client signed, as the SigV4 documentation defines it:

- the canonical request: method, canonical URI, canonical query string, the signed headers
  (lower-cased names, sorted, values trimmed with inner runs of spaces folded, one per line), the
  list of signed header names, and the payload hash. The canonical URI is the path as sent; every
  service but S3 normalises it (``.``/``..`` segments, repeated ``/``) and percent-encodes it
  once more. The payload hash is ``X-Amz-Content-SHA256`` when sent (S3; checked against the body
  unless it is ``UNSIGNED-PAYLOAD``), ``UNSIGNED-PAYLOAD`` for S3's presigned URLs, else the SHA-256
  of the body;
- the string to sign: ``AWS4-HMAC-SHA256``, the request time, the credential scope, the hex
  SHA-256 of the canonical request;
- the signing key: HMAC-SHA256 chained over ``AWS4<secret>``, date, region, service,
  ``aws4_request``.

The request time must be within five minutes of the server's clock (header form), or the
presigned URL within its ``X-Amz-Expires`` (at most seven days). Failures are
:class:`SignatureFailure` values naming the kind of failure; each protocol turns them into its
service's own error code (``InvalidSignatureException`` for JSON services, ``SignatureDoesNotMatch``
for the query protocol and S3, ...). Secret keys are never part of a message.
"""

from __future__ import annotations

import base64
import datetime as dt
import functools
import hashlib
import hmac
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import NamedTuple
from urllib.parse import parse_qsl, quote, unquote

from glueball.api.bodies import SpooledBody
from glueball.edge.wire import WireRequest

ALGORITHM = "AWS4-HMAC-SHA256"
UNSIGNED_PAYLOAD = "UNSIGNED-PAYLOAD"
MAX_SKEW = dt.timedelta(minutes=5)
MAX_PRESIGN_SECONDS = 7 * 24 * 3600
_TIME = "%Y%m%dT%H%M%SZ"


class FailureKind(StrEnum):
    MISSING = "missing"  # no signature at all
    MALFORMED = "malformed"  # a signature that cannot be read
    UNKNOWN_KEY = "unknown key"
    BAD_SIGNATURE = "bad signature"
    SKEWED = "skewed"  # the request time is too far from the server's
    EXPIRED_URL = "expired url"  # a presigned URL past its X-Amz-Expires
    EXPIRED_TOKEN = "expired token"
    INVALID_TOKEN = "invalid token"  # a session token that is not this key's
    CONTENT_HASH = "content hash"  # X-Amz-Content-SHA256 is not the body's


class SignatureFailure(Exception):
    """Why a request's signature was refused (the message is safe to send and to log)."""

    def __init__(self, kind: FailureKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message

    def __str__(self) -> str:
        return f"{self.kind}: {self.message}"


class Signed(NamedTuple):
    """What a request's signature says, before it is checked. ``stamp`` is the request time as the string
    to sign holds it (``YYYYMMDD'T'HHMMSS'Z'``); ``scope`` the credential scope
    (``<date>/<region>/<service>/aws4_request``). A tuple: one is made per request, and a tuple is made
    faster than a frozen dataclass."""

    access_key: str
    date: str
    region: str
    service: str
    signed_headers: tuple[str, ...]
    signature: str
    request_time: dt.datetime
    session_token: str | None
    presigned: bool
    expires: int | None = None
    version: int = 4  # 2: an S3 presigned URL of Signature Version 2 (AWSAccessKeyId, Signature, Expires)
    stamp: str = ""
    scope: str = ""


@dataclass(frozen=True)
class SecretKey:
    """A key the server holds: its secret, and for temporary credentials the session token and expiry."""

    secret: str = field(repr=False)  # never in a message or a log, even by accident
    session_token: str | None = field(default=None, repr=False)
    expires_at: float | None = None  # epoch seconds


_AUTH_PART = re.compile(r"\s*(Credential|SignedHeaders|Signature)\s*=\s*([^,\s]*)\s*")


def read_signature(request: WireRequest) -> Signed:
    """The SigV4 elements of ``request`` (header or presigned form).

    Raises:
        SignatureFailure: MISSING when the request carries no signature, MALFORMED when it cannot
            be read.
    """
    authorization = request.headers.get("authorization")  # names lower-cased
    if authorization is not None:
        return _from_header(request, authorization)
    query = dict(parse_qsl(request.query, keep_blank_values=True))
    if "X-Amz-Signature" in query or "X-Amz-Credential" in query:
        return _from_query(query)
    if "AWSAccessKeyId" in query and "Signature" in query:
        return _from_v2_query(query)
    raise SignatureFailure(FailureKind.MISSING, "Missing Authentication Token")


def _from_v2_query(query: dict[str, str]) -> Signed:
    """An S3 presigned URL of Signature Version 2 (what ``aws s3 presign`` makes): it expires at ``Expires``
    (epoch seconds)."""
    expires = query.get("Expires", "")
    if not expires.isdigit():
        raise SignatureFailure(FailureKind.MALFORMED, "Expires must be a number of seconds since the epoch")
    moment = dt.datetime.fromtimestamp(int(expires), dt.UTC)
    return Signed(query["AWSAccessKeyId"], "", "", "s3", (), query["Signature"], moment,
                  query.get("x-amz-security-token"), presigned=True, expires=0, version=2)


# the header as botocore and the AWS SDKs write it: read in one match (other spellings take the long way)
_USUAL_HEADER = re.compile(r"AWS4-HMAC-SHA256 Credential=([^,\s]+), ?SignedHeaders=([^,\s]+), ?Signature=([^,\s]+)")


def _from_header(request: WireRequest, authorization: str) -> Signed:
    usual = _USUAL_HEADER.fullmatch(authorization)
    if usual is not None:
        sent = request.headers  # names lower-cased
        stamp = sent.get("x-amz-date") or sent.get("date")
        if stamp:
            credential, names, signature = usual.groups()
            return _signed(credential, names, signature, stamp, sent.get("x-amz-security-token"), False)
    algorithm, _, rest = authorization.strip().partition(" ")
    if algorithm != ALGORITHM:
        raise SignatureFailure(FailureKind.MALFORMED,
                               f"Unsupported authorization type {algorithm!r}: glueball accepts {ALGORITHM}")
    parts: dict[str, str] = {}
    for piece in rest.split(","):
        match = _AUTH_PART.fullmatch(piece)
        if match is None:
            raise SignatureFailure(FailureKind.MALFORMED, f"Authorization header requires 'Credential', "
                                   f"'SignedHeaders' and 'Signature' parameters; cannot read {piece.strip()!r}")
        parts[match.group(1)] = match.group(2)
    missing = [name for name in ("Credential", "SignedHeaders", "Signature") if not parts.get(name)]
    if missing:
        raise SignatureFailure(FailureKind.MALFORMED,
                               f"Authorization header requires '{missing[0]}' parameter. Authorization={ALGORITHM}")
    stamp = request.header("x-amz-date") or request.header("date")
    if not stamp:
        raise SignatureFailure(FailureKind.MALFORMED,
                               "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.")
    return _signed(parts["Credential"], parts["SignedHeaders"], parts["Signature"], stamp,
                   request.header("x-amz-security-token"), presigned=False)


def _from_query(query: dict[str, str]) -> Signed:
    if query.get("X-Amz-Algorithm") != ALGORITHM:
        raise SignatureFailure(FailureKind.MALFORMED, f"X-Amz-Algorithm must be {ALGORITHM}")
    missing = [name for name in ("X-Amz-Credential", "X-Amz-Date", "X-Amz-SignedHeaders", "X-Amz-Signature")
               if not query.get(name)]
    if missing:
        raise SignatureFailure(FailureKind.MALFORMED, f"The presigned URL lacks {missing[0]}")
    expires_text = query.get("X-Amz-Expires", str(MAX_PRESIGN_SECONDS))
    if not expires_text.isdigit() or int(expires_text) > MAX_PRESIGN_SECONDS:
        raise SignatureFailure(FailureKind.MALFORMED, "X-Amz-Expires must be a number of seconds from 1 to 604800")
    signed = _signed(query["X-Amz-Credential"], query["X-Amz-SignedHeaders"], query["X-Amz-Signature"],
                     query["X-Amz-Date"], query.get("X-Amz-Security-Token"), presigned=True)
    return signed._replace(expires=int(expires_text))


def _signed(credential: str, headers: str, signature: str, stamp: str, token: str | None,
            presigned: bool) -> Signed:
    key, date, region, service, names, scope, request_time, text = _read_scope(credential, headers, stamp)
    return Signed(key, date, region, service, names, signature.lower(), request_time, token, presigned, None, 4,
                  text, scope)


@functools.lru_cache(maxsize=1024)
def _read_scope(credential: str, headers: str, stamp: str) -> tuple[str, str, str, str, tuple[str, ...], str,
                                                                     dt.datetime, str]:
    """:func:`_credential` and :func:`_request_time` of one request's texts, which must name the same day (what a
    client sends for a second: read once, a failure raised again each time)."""
    key, date, region, service, names, scope = _credential(credential, headers)
    request_time, text = _request_time(stamp)
    day = text[:8]
    if day != date:
        raise SignatureFailure(FailureKind.BAD_SIGNATURE, f"Date in Credential scope does not match YYYYMMDD from "
                               f"ISO-8601 version of date from HTTP: '{date}' != "
                               f"'{day}', from '{stamp}'.")
    return key, date, region, service, names, scope, request_time, text


# a client sends the same credential and signed headers request after request, and the same request time for
# a second: what they say is read once (a failure is not remembered: it is raised again each time)
@functools.lru_cache(maxsize=1024)
def _credential(credential: str, headers: str) -> tuple[str, str, str, str, tuple[str, ...], str]:
    """The key, date, region, service, signed header names and scope of a ``Credential`` and ``SignedHeaders``."""
    pieces = credential.split("/")
    if len(pieces) != 5 or pieces[4] != "aws4_request" or not all(pieces):
        raise SignatureFailure(FailureKind.MALFORMED, f"Credential should be scoped to a valid region and service, "
                               f"as <key>/<date>/<region>/<service>/aws4_request; got {'/'.join(pieces[1:])!r}")
    key, date, region, service, _ = pieces
    names = tuple(headers.split(";"))
    if headers != headers.lower() or "host" not in names or list(names) != sorted(names):
        raise SignatureFailure(FailureKind.MALFORMED, "SignedHeaders must be the lower-cased header names, sorted "
                               "and separated by ';', and include 'host'")
    return key, date, region, service, names, f"{date}/{region}/{service}/aws4_request"


@functools.lru_cache(maxsize=256)
def _request_time(stamp: str) -> tuple[dt.datetime, str]:
    """The request time of ``stamp`` and its basic form as signed (``YYYYMMDD'T'HHMMSS'Z'``)."""
    request_time = _parse_time(stamp)
    if request_time is None:
        raise SignatureFailure(FailureKind.MALFORMED, f"Invalid request time {stamp!r}: expected ISO 8601 basic "
                               f"format (YYYYMMDD'T'HHMMSS'Z')")
    basic = len(stamp) == 16 and stamp[8] == "T"  # the X-Amz-Date form: signed as sent
    return request_time, stamp if basic else request_time.strftime(_TIME)


def _parse_time(stamp: str) -> dt.datetime | None:
    if len(stamp) == 16 and stamp[8] == "T" and stamp[15] == "Z" and stamp[:8].isdigit() and stamp[9:15].isdigit():
        try:  # the X-Amz-Date form, read by hand: strptime costs more than the rest of the check
            return dt.datetime(int(stamp[:4]), int(stamp[4:6]), int(stamp[6:8]), int(stamp[9:11]),
                               int(stamp[11:13]), int(stamp[13:15]), tzinfo=dt.UTC)
        except ValueError:
            return None
    try:  # the HTTP Date header form
        from email.utils import parsedate_to_datetime

        parsed = parsedate_to_datetime(stamp)
    except (TypeError, ValueError, IndexError):
        return None
    return parsed.astimezone(dt.UTC) if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)


def verify(request: WireRequest, signed: Signed, key: SecretKey | None, now: dt.datetime,
           s3_style: bool = False, spooled: SpooledBody | None = None) -> None:
    """Check ``signed`` against ``request`` with the server's ``key`` for it (None: unknown).

    ``s3_style``: the service signs its path as sent, without normalising it (S3). ``spooled``: the
    body was written to a file on arrival (its digests stand for it); an aws-chunked body's chunk
    signatures are checked too, each chained to the one before, starting from the request's.

    Raises:
        SignatureFailure: the first check that fails, in AWS's order: key, token, time, signature.
    """
    check_current(signed, key, now)
    assert key is not None
    if signed.version == 2:
        _verify_v2(request, signed, key)
        return
    canonical = canonical_request(request, signed, s3_style)
    stamp = signed.stamp
    mac = _day_mac(key.secret, signed.date, signed.region, signed.service)
    expected = _signature(mac, ALGORITHM, stamp, signed.scope, _sha256_hex(canonical.encode()))
    if not hmac.compare_digest(expected, signed.signature):
        raise SignatureFailure(FailureKind.BAD_SIGNATURE, _MISMATCH)
    if spooled is None:
        return
    declared = request.header("x-amz-content-sha256") or ""
    if declared.startswith(SIGNED_CHUNKS):
        _verify_chunks(spooled, signed, stamp, mac, declared.endswith("-TRAILER"))


def check_current(signed: Signed, key: SecretKey | None, now: dt.datetime) -> None:
    """What :func:`verify` checks before the signature itself, and what holds for a request only at its time: the
    key is known, the session token is the key's and not expired, the request time is within five minutes of
    ``now`` (a presigned URL: not expired, not yet to come).

    Raises:
        SignatureFailure: the first check that fails, in AWS's order: key, token, time.
    """
    if key is None:
        raise SignatureFailure(FailureKind.UNKNOWN_KEY, "The security token included in the request is invalid.")
    if key.session_token is not None:
        if signed.session_token is None or not hmac.compare_digest(signed.session_token, key.session_token):
            raise SignatureFailure(FailureKind.INVALID_TOKEN, "The security token included in the request is invalid.")
        if key.expires_at is not None and now.timestamp() >= key.expires_at:
            raise SignatureFailure(FailureKind.EXPIRED_TOKEN, "The security token included in the request is expired")
    elif signed.session_token is not None:
        raise SignatureFailure(FailureKind.INVALID_TOKEN, "The security token included in the request is invalid.")
    if signed.version == 2:
        if now > signed.request_time:
            raise SignatureFailure(FailureKind.EXPIRED_URL, f"Request has expired: the URL was valid until "
                                   f"{signed.request_time.strftime(_TIME)}")
        return
    if signed.presigned:
        expires = signed.expires or 0
        if now > signed.request_time + dt.timedelta(seconds=expires):
            raise SignatureFailure(FailureKind.EXPIRED_URL, f"Request has expired: the URL was valid for {expires} "
                                   f"seconds from {signed.request_time.strftime(_TIME)}")
        if signed.request_time - now > MAX_SKEW:
            raise SignatureFailure(FailureKind.SKEWED, "Request is not yet valid")
    elif abs(now - signed.request_time) > MAX_SKEW:
        earlier = signed.request_time < now
        bound = now - MAX_SKEW if earlier else now + MAX_SKEW
        raise SignatureFailure(FailureKind.SKEWED, f"Signature {'expired' if earlier else 'not yet current'}: "
                               f"{signed.request_time.strftime(_TIME)} is now "
                               f"{'earlier' if earlier else 'later'} than {bound.strftime(_TIME)} "
                               f"({now.strftime(_TIME)} {'-' if earlier else '+'} 5 min.)")


# the sub-resources and response overrides a Signature Version 2 string to sign includes (S3 Developer Guide)
_V2_SUBRESOURCES = frozenset({
    "acl", "cors", "delete", "lifecycle", "location", "logging", "notification", "partNumber", "policy",
    "requestPayment", "tagging", "torrent", "uploadId", "uploads", "versionId", "versioning", "versions", "website",
    "response-cache-control", "response-content-disposition", "response-content-encoding",
    "response-content-language", "response-content-type", "response-expires",
})


def _verify_v2(request: WireRequest, signed: Signed, key: SecretKey) -> None:
    """``Signature`` = base64(HMAC-SHA1(secret, VERB, Content-MD5, Content-Type, Expires, x-amz-* headers,
    resource)), the resource being the path (``/bucket/key``) and its sub-resources, sorted (its expiry is
    :func:`check_current`'s)."""
    amz = sorted((name, " ".join(value.split())) for name, value in request.headers.items()
                 if name.startswith("x-amz-"))
    pairs = sorted((name, value) for name, value in parse_qsl(request.query, keep_blank_values=True)
                   if name in _V2_SUBRESOURCES)
    resource = request.path + ("?" + "&".join(f"{n}={v}" if v else n for n, v in pairs) if pairs else "")
    to_sign = "\n".join([request.method.upper(), request.header("content-md5") or "",
                         request.header("content-type") or "", str(int(signed.request_time.timestamp()))]
                        + [f"{name}:{value}" for name, value in amz] + [resource])
    expected = base64.b64encode(hmac.new(key.secret.encode(), to_sign.encode(), hashlib.sha1).digest()).decode()
    if not hmac.compare_digest(expected, signed.signature):
        raise SignatureFailure(FailureKind.BAD_SIGNATURE, _MISMATCH)


_MISMATCH = ("The request signature we calculated does not match the signature you provided. Check your AWS "
             "Secret Access Key and signing method. Consult the service documentation for details.")
SIGNED_CHUNKS = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD"
_EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()


def _verify_chunks(spooled: SpooledBody, signed: Signed, stamp: str, mac: _Mac, trailer: bool) -> None:
    """Each chunk signs ``AWS4-HMAC-SHA256-PAYLOAD``, the time, the scope, the previous signature, the
    empty string's hash and the chunk's hash; a signed trailer signs the trailing headers the same way."""
    previous = signed.signature
    if not spooled.chunks:
        raise SignatureFailure(FailureKind.BAD_SIGNATURE, "The aws-chunked body carries no chunk signatures")
    for number, (signature, chunk_hash) in enumerate(spooled.chunks, 1):
        expected = _signature(mac, "AWS4-HMAC-SHA256-PAYLOAD", stamp, signed.scope, previous, _EMPTY_SHA256,
                              chunk_hash)
        if not hmac.compare_digest(expected, signature.lower()):
            raise SignatureFailure(FailureKind.BAD_SIGNATURE, f"The signature of chunk {number} of the aws-chunked "
                                   f"body does not match what was computed")
        previous = signature.lower()
    if trailer:
        headers = [(n, v) for n, v in spooled.trailers if n != "x-amz-trailer-signature"]
        given = dict(spooled.trailers).get("x-amz-trailer-signature", "")
        expected = _signature(mac, "AWS4-HMAC-SHA256-TRAILER", stamp, signed.scope, previous,
                              hashlib.sha256("".join(f"{n}:{v}\n" for n, v in headers).encode()).hexdigest())
        if not hmac.compare_digest(expected, given.lower()):
            raise SignatureFailure(FailureKind.BAD_SIGNATURE, "The trailer signature of the aws-chunked body does "
                                   "not match what was computed")


def _signature(mac: _Mac, *lines: str) -> str:
    """The hex HMAC-SHA256, with the day's signing key (``mac``), of a string to sign made of ``lines``."""
    return mac.hexdigest("\n".join(lines).encode())


class _Mac:
    """HMAC-SHA256 with one key: the standard library's HMAC keyed once and copied for each message (OpenSSL 3's
    one-shot HMAC looks its algorithm up again at every call, which costs more than the MAC itself). Computing
    HMAC from two copied SHA-256 states by hand saves about half a microsecond more per request; not worth a
    hand-written MAC."""

    __slots__ = ("_keyed",)

    def __init__(self, key: bytes) -> None:
        self._keyed = hmac.new(key, digestmod=hashlib.sha256)

    def hexdigest(self, message: bytes) -> str:
        mac = self._keyed.copy()
        mac.update(message)
        return mac.hexdigest()


@functools.lru_cache(maxsize=1024)
def _day_mac(secret: str, date: str, region: str, service: str) -> _Mac:
    """The MAC of the day's signing key of one secret for one region and service (the same for every request
    signed with it that day)."""
    return _Mac(signing_key(secret, date, region, service))


def signing_key(secret: str, date: str, region: str, service: str) -> bytes:
    """The day's signing key: HMAC-SHA256 chained over ``AWS4<secret>``, the date, region, service and
    ``aws4_request``."""
    key = ("AWS4" + secret).encode()
    for part in (date, region, service, "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    return key


def canonical_request(request: WireRequest, signed: Signed, s3_style: bool = False) -> str:
    """The canonical request of ``request`` as its client built it to sign."""
    lines = [request.method.upper(), canonical_uri(request.path, s3_style),
             canonical_query(request.query, signed.presigned)]
    sent = request.headers  # names lower-cased, as the signed names are
    for name in signed.signed_headers:
        value = sent.get(name)
        if value is None:
            raise SignatureFailure(FailureKind.BAD_SIGNATURE, f"The header {name!r} is signed but not sent")
        lines.append(f"{name}:{' '.join(value.split())}")
    lines += ("", ";".join(signed.signed_headers), _payload_hash(request, signed, s3_style))  # "" ends the headers
    return "\n".join(lines)


def canonical_uri(path: str, s3_style: bool) -> str:
    """``path`` is as sent (percent-encoded)."""
    if not path:
        return "/"
    if s3_style:
        return path
    return _normalised_uri(path)


@functools.lru_cache(maxsize=256)
def _normalised_uri(path: str) -> str:
    """A path of a service other than S3: ``.``/``..`` and empty segments resolved, percent-encoded once more
    (JSON and query services post to few paths: remembered)."""
    segments: list[str] = []
    for segment in path.split("/"):
        if segment == "..":
            if segments:
                segments.pop()
        elif segment and segment != ".":
            segments.append(segment)
    trailing = "/" if path.endswith("/") and segments else ""
    return quote("/" + "/".join(segments) + trailing, safe="/~")


def canonical_query(query: str, presigned: bool) -> str:
    if not query:
        return ""
    pairs = []
    for piece in query.split("&"):
        name, _, value = piece.partition("=")
        name, value = unquote(name), unquote(value)
        if presigned and name == "X-Amz-Signature":
            continue
        pairs.append((quote(name, safe="-_.~"), quote(value, safe="-_.~")))
    return "&".join(f"{name}={value}" for name, value in sorted(pairs))


def _payload_hash(request: WireRequest, signed: Signed, s3_style: bool) -> str:
    declared = request.headers.get("x-amz-content-sha256")  # names lower-cased
    if declared is not None:
        if re.fullmatch(r"[0-9a-f]{64}", declared) and declared != body_sha256(request):
            raise SignatureFailure(FailureKind.CONTENT_HASH,
                                   "The provided 'x-amz-content-sha256' header does not match what was computed.")
        return declared
    if signed.presigned and s3_style:  # S3's presigned URLs sign no payload; other services' sign the body
        return UNSIGNED_PAYLOAD
    return body_sha256(request)


def body_sha256(request: WireRequest) -> str:
    """The hex SHA-256 of the request's body (computed on arrival for a spooled one)."""
    if request.spooled is not None:
        return request.spooled.sha256
    return _sha256_hex(request.body)


_SHA256 = hashlib.sha256()  # never updated: copied for each digest


def _sha256_hex(data: bytes) -> str:
    """The hex SHA-256 of ``data``, from a copy of a fresh state (OpenSSL 3 looks the algorithm up again for each
    new one)."""
    digest = _SHA256.copy()
    digest.update(data)
    return digest.hexdigest()


KeyLookup = Callable[[str], SecretKey | None]
