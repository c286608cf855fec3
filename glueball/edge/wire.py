"""Requests and responses as the edge sees them: bytes and headers, no framework.

The ASGI server builds a :class:`WireRequest` from an HTTP request and sends a
:class:`WireResponse` back; the in-process transport (:mod:`glueball.edge.inprocess`) builds the
same request from botocore's prepared request, so both go through exactly the same code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import parse_qsl

from glueball.api.bodies import FileRange, SpooledBody


@dataclass(frozen=True)
class WireRequest:
    """One HTTP request: header names lower-cased, the path and the query string as sent (percent-encoded)."""

    method: str
    path: str
    query: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    source_ip: str | None = None
    spooled: SpooledBody | None = None  # the body, when it was written to a file instead of held

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())

    @property
    def content_type(self) -> str:
        return (self.header("content-type") or "").split(";", 1)[0].strip().lower()

    def query_pairs(self) -> list[tuple[str, str]]:
        """The query string's ``(name, value)`` pairs, decoded, in order (blank values kept)."""
        return parse_qsl(self.query, keep_blank_values=True)


@dataclass
class WireResponse:
    """One HTTP response; ``request_id`` goes out as ``x-amzn-RequestId``."""

    status: int
    body: bytes
    request_id: str
    content_type: str = "application/x-amz-json-1.1"
    headers: list[tuple[str, str]] = field(default_factory=list)
    stream: FileRange | None = None  # the body comes from a file (``body`` is then empty)
    head: bool = False  # the answer to a HEAD request: headers only, Content-Length as the headers say

    @property
    def length(self) -> int:
        return self.stream.length if self.stream is not None else len(self.body)
