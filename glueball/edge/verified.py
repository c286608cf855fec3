"""Signed requests recognised when they come again unchanged, so that their signature is not computed twice.

A client sends the same request again and again (a driver reading one table, a poll): the same method, path,
query, headers and body, signed within the same second (a request time is in seconds), so with the very same
``Authorization`` header. A SigV4 signature is a function of what it signs and of the key's secret alone: a
request identical in everything its verification reads, checked against the same key object the server held
when it verified it, would be verified again with the same result. Such a request is recognised by comparing
those parts themselves (values, not digests) with the request verified before, and only what depends on the
moment is checked again, every time (:func:`glueball.edge.signing.check_current`: the session token and its
expiry, the five-minute window). Anything that differs, however little, or a key the lookup answers anew (after
any IAM change, and every second), is verified in full.

Only requests signed in the ``Authorization`` header with a body held in memory, and not large, are remembered:
presigned URLs, uploads and aws-chunked bodies are verified every time.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from glueball.edge.signing import SecretKey, Signed, check_current, verify
from glueball.edge.wire import WireRequest

LIMIT = 1024  # requests remembered before all are dropped (clients sign anew every second: few stay useful)
LARGEST_BODY = 4 * 1024  # a larger body is verified every time rather than held here
# what verification reads besides the method, path, query, body and signed headers: the request time, the
# session token, a declared payload hash (each also signed when the client signs it)
_ALSO_READ = ("x-amz-date", "date", "x-amz-security-token", "x-amz-content-sha256")


@dataclass(frozen=True, slots=True, repr=False)  # it holds a session token: never printed
class Recalled:
    """A request verified before, identical to the one at hand: its signature, and the key that verified it."""

    signed: Signed
    key: SecretKey  # the very object: a key the lookup answers anew is another one
    s3_style: bool
    method: str
    path: str
    query: str
    body: bytes
    names: tuple[str, ...]  # the headers its verification read (signed, then _ALSO_READ) ...
    values: tuple[str | None, ...]  # ... and their values


class VerifiedRequests:
    """The requests verified last (at most :data:`LIMIT`), by ``Authorization`` header."""

    def __init__(self, limit: int = LIMIT) -> None:
        self.limit = limit
        self._seen: dict[str, Recalled] = {}

    def recall(self, request: WireRequest, s3_style: bool) -> Recalled | None:
        """The request verified before that ``request`` is identical to (for a service that signs its paths as
        S3 does when ``s3_style``), or None."""
        authorization = request.headers.get("authorization")
        seen = self._seen.get(authorization) if authorization is not None else None
        if seen is None or seen.s3_style is not s3_style or request.spooled is not None:
            return None
        if seen.body != request.body or seen.path != request.path or seen.query != request.query or \
                seen.method != request.method or seen.values != tuple(map(request.headers.get, seen.names)):
            return None
        return seen

    def verify(self, request: WireRequest, signed: Signed, key: SecretKey | None, now: dt.datetime,
               s3_style: bool, recalled: Recalled | None) -> None:
        """:func:`glueball.edge.signing.verify` ``request`` (whose signature is ``signed``) with ``key`` at ``now``,
        unless it is ``recalled`` (what :meth:`recall` answered) as verified with this very key: then only what
        depends on the moment is checked.

        Raises:
            SignatureFailure: as :func:`~glueball.edge.signing.verify`.
        """
        if recalled is not None and key is not None and key is recalled.key and signed is recalled.signed:
            check_current(signed, key, now)
            return
        verify(request, signed, key, now, s3_style, request.spooled)
        assert key is not None  # verify refuses an unknown key
        self._remember(request, signed, key, s3_style)

    def _remember(self, request: WireRequest, signed: Signed, key: SecretKey, s3_style: bool) -> None:
        authorization = request.headers.get("authorization")
        if authorization is None or signed.presigned or signed.version != 4 or request.spooled is not None or \
                len(request.body) > LARGEST_BODY:
            return
        names = (*signed.signed_headers, *_ALSO_READ)
        if len(self._seen) >= self.limit:  # verified requests come from clients: bounded
            self._seen.clear()
        self._seen[authorization] = Recalled(signed, key, s3_style, request.method, request.path, request.query,
                                             request.body, names, tuple(map(request.headers.get, names)))
