"""The in-process transport: a real boto3 client whose requests the edge answers without HTTP.

botocore emits ``before-send`` with the fully prepared (serialized and signed) request just
before it would open a connection; a handler that returns a response short-circuits the send.
:func:`answer_in_process` registers such a handler that gives the request to the edge and hands
its bytes back to botocore, which parses them as it parses any HTTP answer. Everything a client
does — parameter validation, serialization, signing, paginators, waiters, ``ClientError`` — is
boto3's own, so an embedded client behaves exactly as one pointed at ``glueball server``.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlsplit

from botocore.awsrequest import AWSPreparedRequest, AWSResponse

from glueball.edge.wire import WireRequest, WireResponse

Handle = Callable[[WireRequest], WireResponse]


class _Body(io.BytesIO):
    """A response body as botocore reads it from a urllib3 response (``read`` and ``stream``)."""

    def stream(self, amt: int = 65536, decode_content: bool = True) -> Iterator[bytes]:
        while True:
            chunk = self.read(amt)
            if not chunk:
                return
            yield chunk


def _body(request: AWSPreparedRequest) -> bytes:
    body = request.body
    if body is None:
        return b""
    if isinstance(body, bytes | bytearray):
        return bytes(body)
    if isinstance(body, str):
        return body.encode("utf-8")
    data = body.read()  # a file-like body (uploads)
    return data.encode("utf-8") if isinstance(data, str) else bytes(data)


def to_wire_request(request: AWSPreparedRequest) -> WireRequest:
    """The edge's view of a prepared botocore request."""
    url = urlsplit(request.url)
    headers = {name.lower(): value.decode("latin-1") if isinstance(value, bytes) else str(value)
               for name, value in request.headers.items()}
    if "host" not in headers:  # what an HTTP client sends (and what SigV4 signed): no default port
        default_port = {"http": 80, "https": 443}.get(url.scheme)
        host = url.hostname or ""
        headers["host"] = host if url.port in (None, default_port) else f"{host}:{url.port}"
    return WireRequest(str(request.method), url.path or "/", url.query, headers, _body(request), "127.0.0.1")


def in_process_sender(handle: Handle) -> Callable[..., AWSResponse]:
    """A ``before-send`` handler that answers a prepared request with ``handle`` instead of over HTTP."""

    def send(request: AWSPreparedRequest, **_: Any) -> AWSResponse:
        wire = handle(to_wire_request(request))
        body = wire.stream.read() if wire.stream is not None else wire.body
        body = b"" if wire.head else body
        headers = {"content-type": wire.content_type, "content-length": str(len(body)),
                   "x-amzn-requestid": wire.request_id}
        headers.update({name.lower(): value for name, value in wire.headers})
        return AWSResponse(request.url, wire.status, headers, _Body(body))

    return send


def answer_in_process(client: Any, handle: Handle) -> None:
    """Make ``client`` send every request to ``handle`` instead of over HTTP."""
    client.meta.events.register("before-send", in_process_sender(handle))
