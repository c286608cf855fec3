"""The HTTP server: an ASGI application handing every request to the edge (:mod:`glueball.edge.router`).

Point reads — operations that fetch one entity by its key (``GetTable``,
``GetDatabase``, ...) — cost one indexed lookup and run directly on the event
loop: handing them to a thread costs more than serving them. Everything else
(writes, listings, searches, batches) runs on a thread pool, so that a slow
call does not hold up the others and concurrent writers really race in the
store. ``--workers N`` runs N such processes on one port for more cores.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import quote

from glueball.api.bodies import FileRange
from glueball.edge.router import Edge
from glueball.edge.spool import Spooler, SpoolError, is_aws_chunked
from glueball.edge.wire import WireRequest, WireResponse

_MAX_BODY = 32 * 1024 * 1024
_SEND_PIECE = 1024 * 1024  # a streamed response goes out in pieces of this size
_JSON = "application/x-amz-json-1.1"
Scope = dict[str, Any]

POINT_READS = frozenset({
    "GetDatabase", "GetTable", "GetTableVersion", "GetPartition", "GetConnection",
    "GetUserDefinedFunction", "GetTags",
})


class EdgeAsgiApp:
    """Serves ``edge``; ``on_shutdown`` closes what the composition root built (runners, store)."""

    def __init__(self, edge: Edge, on_shutdown: Any = None, workers: int = 8) -> None:
        self.edge = edge
        self.on_shutdown = on_shutdown
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="glue-api")

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        query = scope.get("query_string", b"").decode("latin-1")
        if (scope["method"] == "GET" and scope["path"] in ("/", "/health") and not query
                and "authorization" not in headers and "x-amz-target" not in headers):
            await self._send(send, WireResponse(200, b'{"status":"ok"}', "health", "application/json"))
            return
        client = scope.get("client")
        raw_path = scope.get("raw_path")  # as sent, percent-encoded: what REST routes match and SigV4 signed
        path = raw_path.decode("latin-1").partition("?")[0] if raw_path else quote(scope["path"], safe="/~")
        request = WireRequest(scope["method"], path, query, headers, b"", client[0] if client else None)
        loop = asyncio.get_running_loop()
        folder = self.edge.spool_folder(request)
        if folder is not None:  # an upload: to a file as it arrives, never whole in memory
            spooler = Spooler(folder, is_aws_chunked(headers))
            try:
                try:
                    while True:
                        message = await receive()
                        piece = message.get("body", b"")
                        if piece:
                            await loop.run_in_executor(self.pool, spooler.feed, piece)
                        if not message.get("more_body"):
                            break
                    spooled = await loop.run_in_executor(self.pool, spooler.finish)
                except SpoolError as err:
                    await self._send(send, self.edge.refuse(request, "IncompleteBody", str(err)))
                    return
                request = WireRequest(request.method, path, query, headers, b"", request.source_ip, spooled)
                response = await loop.run_in_executor(self.pool, self.edge.handle, request)
                await self._send(send, response)
            finally:
                spooler.discard()  # what the handler did not rename into place
            return
        body = bytearray()
        while True:
            message = await receive()
            body += message.get("body", b"")
            if len(body) > _MAX_BODY:
                await self._send(send, WireResponse(
                    413, b'{"__type":"SerializationException","message":"Body too large"}', "", _JSON))
                return
            if not message.get("more_body"):
                break
        request = WireRequest(request.method, path, query, headers, bytes(body), request.source_ip)
        target = headers.get("x-amz-target")
        if (target or "").partition(".")[2] in POINT_READS:
            response = self.edge.handle(request)
        else:
            response = await loop.run_in_executor(self.pool, self.edge.handle, request)
        await self._send(send, response)

    async def _send(self, send: Any, response: WireResponse) -> None:
        named = {name.lower() for name, _ in response.headers}
        headers = [(b"content-type", response.content_type.encode()),
                   (b"x-amzn-requestid", response.request_id.encode())]
        if "content-length" not in named:  # a HEAD answer says the object's length itself
            headers.append((b"content-length", str(response.length).encode()))
        headers += [(name.encode("latin-1"), value.encode("latin-1")) for name, value in response.headers]
        await send({"type": "http.response.start", "status": response.status, "headers": headers})
        if response.head or response.stream is None:
            if response.stream is not None:
                response.stream.done()
            await send({"type": "http.response.body", "body": b"" if response.head else response.body})
            return
        stream = response.stream
        loop = asyncio.get_running_loop()
        try:
            await self._stream(send, stream, loop)
        finally:
            stream.done()

    async def _stream(self, send: Any, stream: FileRange, loop: asyncio.AbstractEventLoop) -> None:
        with stream.path.open("rb") as handle:
            handle.seek(stream.offset)
            left = stream.length
            while left > 0:
                piece = await loop.run_in_executor(self.pool, handle.read, min(_SEND_PIECE, left))
                if not piece:  # the file shrank under us: the client sees a short body, as from S3
                    break
                left -= len(piece)
                await send({"type": "http.response.body", "body": piece, "more_body": left > 0})
        if left > 0:
            await send({"type": "http.response.body", "body": b""})

    async def _lifespan(self, receive: Any, send: Any) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                self.pool.shutdown(wait=True)
                if self.on_shutdown is not None:
                    self.on_shutdown()
                await send({"type": "lifespan.shutdown.complete"})
                return


