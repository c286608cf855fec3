"""The HTTP server: an ASGI application handing every request to the edge (:mod:`glueball.edge.router`).

Point reads — operations that fetch one entity by its key (``GetTable``,
``GetDatabase``, ...) — cost one indexed lookup and run directly on the event
loop: handing them to a thread costs more than serving them. Everything else
(writes, listings, searches, batches) runs on a thread pool, so that a slow
call does not hold up the others and concurrent writers really race in the
store. Requests that hold their thread by design — a driver's or an engine's long poll for work, a read held
until what it reads has ended (:mod:`glueball.waits`) — run on a pool of their own, so that however many of them
wait, the rest of the API is answered. ``--workers N`` runs N such processes on one port for more cores.

Bodies: an upload streams to a spool file (:mod:`glueball.edge.spool`); a body the server reads whole
is held in memory up to ``LARGE_BODY``, kept in an unnamed file beyond, and admitted by what parsing it
costs against the process's budget (:mod:`glueball.edge.memory`): the protocol's throttling error when
it does not fit beside the large requests in flight, its "too large" error when it never would. Anything
that fails outside a handler (a full spool disk) is still answered in the service's protocol.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import quote

from glueball.api.bodies import FileRange
from glueball.edge.failures import environment_cause
from glueball.edge.memory import MIB, BodyBudget, BodyShape, parse_cost, release_memory, tune_allocator
from glueball.edge.router import Edge
from glueball.edge.spool import BodyFile, Spooler, SpoolError, is_aws_chunked
from glueball.edge.wire import WireRequest, WireResponse

MAX_BODY = 32 * MIB  # a body the server reads whole (not an upload) is at most this long
LARGE_BODY = 1 * MIB  # above this, a body read whole is kept in a file as it arrives and admitted by its cost
# the parse cost (glueball.edge.memory) of the large bodies one server process reads at once
BODY_MEMORY = int(os.environ.get("GLUEBALL_REQUEST_MEMORY_MB", "256")) * MIB
_SEND_PIECE = 1024 * 1024  # a streamed response goes out in pieces of this size
# How long an idle keep-alive connection stays open (uvicorn's default is 5 s). Clients keep idle
# connections in their pools with no limit of their own: botocore's urllib3 pool holds them until the
# server closes them, and checks only when it takes one whether the server already has (a zero-timeout
# poll); a request sent on a connection the server is closing at that moment is reset. Every close of an
# idle connection is such a chance, so the server closes them seldom: after longer than the 60 s the AWS
# SDK for Java (Spark's S3A) keeps an idle connection, as AWS's own load balancers do by default.
KEEP_ALIVE_SECONDS = 75
Scope = dict[str, Any]
log = logging.getLogger("glueball.edge")

POINT_READS = frozenset({
    "GetDatabase", "GetTable", "GetTableVersion", "GetPartition", "GetConnection",
    "GetUserDefinedFunction", "GetTags",
})
# Operations (by X-Amz-Target) that may hold their thread for seconds: each live session's driver and each Athena
# engine keeps one TakeStatement / TakeQuery waiting at all times, and clients' reads of a running statement,
# a provisioning session or a running query are held until it ends. On the API's pool, eight idle sessions
# would hold all its threads and every other request would wait for a long poll to end.
WAITING = frozenset({
    "Glueball.TakeStatement", "Glueball.TakeQuery",
    "AWSGlue.GetStatement", "AWSGlue.GetSession", "AmazonAthena.GetQueryExecution",
})
WAITING_THREADS = 256  # threads blocked in a wait cost a little memory each, no CPU


class EdgeAsgiApp:
    """Serves ``edge``; ``on_shutdown`` closes what the composition root built (runners, store)."""

    def __init__(self, edge: Edge, on_shutdown: Any = None, workers: int = 8, body_memory: int = BODY_MEMORY,
                 readiness: Callable[[], tuple[bool, dict[str, Any]]] | None = None) -> None:
        self.edge = edge
        self.on_shutdown = on_shutdown
        self.readiness = readiness
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="glue-api")
        self.waiting = ThreadPoolExecutor(max_workers=WAITING_THREADS, thread_name_prefix="glue-wait")
        self.budget = BodyBudget(body_memory)

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
        if scope["method"] == "GET" and scope["path"] == "/ready" and self.readiness is not None:
            ready, checks = await asyncio.get_running_loop().run_in_executor(self.pool, self.readiness)
            body = json.dumps({"status": "ready" if ready else "not ready", "checks": checks}).encode()
            await self._send(send, WireResponse(200 if ready else 503, body, "ready", "application/json"))
            return
        client = scope.get("client")
        raw_path = scope.get("raw_path")  # as sent, percent-encoded: what REST routes match and SigV4 signed
        path = raw_path.decode("latin-1").partition("?")[0] if raw_path else quote(scope["path"], safe="/~")
        request = WireRequest(scope["method"], path, query, headers, b"", client[0] if client else None)
        reservation = _Reservation(self.budget)
        started = False

        async def answering(message: dict[str, Any]) -> None:
            nonlocal started
            started = True
            await send(message)

        large = False
        try:
            large = await self._serve(request, receive, answering, reservation)
        except Exception as exc:  # not the handler's (the edge answers those): reading or sending the request
            log.exception("%s %s failed outside its handler", request.method, request.path)
            if started:
                raise  # the answer is half sent: the connection is closed, as HTTP allows nothing else
            what = environment_cause(exc) or type(exc).__name__
            await self._send(send, self.edge.internal(request, f"Internal error: {what}"))
        finally:
            reservation.release()
        if large:  # its body, parsed values and answer are freed now: give the memory back
            await asyncio.get_running_loop().run_in_executor(self.pool, release_memory)

    async def _serve(self, request: WireRequest, receive: Any, send: Any, reservation: _Reservation) -> bool:
        """Read, handle and answer ``request``; True if its body was large (spooled, memory reserved)."""
        loop = asyncio.get_running_loop()
        holds = self.edge.holds_body(request)
        folder = self.edge.spool_folder(request)
        length = _content_length(request)
        if folder is None and length is not None and length > MAX_BODY:
            await self._send(send, self._too_large(request, f"The request body is {length} bytes"))
            return False
        if holds and length is not None and length > LARGE_BODY and not reservation.fits(parse_cost(length)):
            await self._send(send, self._limited(request, parse_cost(length)))  # the body is discarded unread
            return False
        if folder is not None:  # S3: an upload, or a document, to a file as it arrives, never whole in memory
            spooler = Spooler(folder, is_aws_chunked(request.headers), BodyShape() if holds else None)
            try:
                try:
                    await self._receive(receive, lambda piece: loop.run_in_executor(self.pool, spooler.feed, piece))
                    spooled = await loop.run_in_executor(self.pool, spooler.finish)
                except SpoolError as err:
                    await self._send(send, self.edge.refuse(request, "IncompleteBody", str(err)))
                    return False
                shape = spooler.shape
                if shape is not None and shape.size > LARGE_BODY and not reservation.fits(shape.cost):
                    await self._send(send, self._limited(request, shape.cost))
                    return True
                request = replace(request, spooled=spooled)
                await self._send(send, await loop.run_in_executor(self.pool, self.edge.handle, request))
            finally:
                spooler.discard()  # what the handler did not rename into place
            return shape is not None and shape.size > LARGE_BODY
        body = await self._body(request, receive, send, reservation)
        if body is None:
            return True
        request = replace(request, body=body)
        target = request.header("x-amz-target") or ""
        if target.partition(".")[2] in POINT_READS:
            response = self.edge.handle(request)
        else:
            pool = self.waiting if target in WAITING else self.pool
            response = await loop.run_in_executor(pool, self.edge.handle, request)
        await self._send(send, response)
        return len(body) > LARGE_BODY

    async def _body(self, request: WireRequest, receive: Any, send: Any, reservation: _Reservation) -> bytes | None:
        """The whole body of a request the server reads whole: in memory while small, in a file once large
        (then admitted by what parsing it costs); None once a refusal was sent."""
        loop = asyncio.get_running_loop()
        held = bytearray()
        spilled: BodyFile | None = None
        size = 0
        try:  # a full disk here is answered by __call__: the spool file is gone, nothing was read
            while True:
                message = await receive()
                piece = message.get("body", b"")
                size += len(piece)
                if size > MAX_BODY:
                    await self._send(send, self._too_large(request, f"The request body is over {MAX_BODY} bytes"))
                    return None
                if spilled is None and size > LARGE_BODY:
                    spilled = BodyFile(self.edge.body_spool or Path(tempfile.gettempdir()))
                    first, held = bytes(held), bytearray()
                    await loop.run_in_executor(self.pool, spilled.feed, first)
                if spilled is not None:
                    await loop.run_in_executor(self.pool, spilled.feed, piece)
                else:
                    held += piece
                if not message.get("more_body"):
                    break
            if spilled is None:
                return bytes(held)
            if not reservation.fits(spilled.shape.cost):
                await self._send(send, self._limited(request, spilled.shape.cost))
                return None
            return await loop.run_in_executor(self.pool, spilled.read)
        finally:
            if spilled is not None:
                spilled.close()

    @staticmethod
    async def _receive(receive: Any, feed: Any) -> None:
        while True:
            message = await receive()
            piece = message.get("body", b"")
            if piece:
                await feed(piece)
            if not message.get("more_body"):
                return

    def _limited(self, request: WireRequest, cost: int) -> WireResponse:
        """The refusal of a body whose parse (``cost`` bytes) does not fit the budget: too large if it never
        would, else throttled until other large requests are done."""
        if cost > self.budget.capacity:
            return self._too_large(request, f"Reading this request body would take about {cost / MIB:.0f} MiB, "
                                            f"more than the {self.budget.capacity / MIB:.0f} MiB the server "
                                            "reads request bodies in; send smaller requests")
        return self.edge.limit(request, "throttled", f"Rate exceeded: {self.budget.describe()}; retry later")

    def _too_large(self, request: WireRequest, message: str) -> WireResponse:
        return self.edge.limit(request, "too large", message)

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
                tune_allocator()  # the serving process's allocator gives large freed blocks back
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                self.pool.shutdown(wait=True)
                self.waiting.shutdown(wait=True)
                if self.on_shutdown is not None:
                    self.on_shutdown()
                await send({"type": "lifespan.shutdown.complete"})
                return




def _content_length(request: WireRequest) -> int | None:
    """The body's declared length, or None (chunked transfer, or a header that is not a number)."""
    text = request.header("content-length")
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


class _Reservation:
    """One request's share of the :class:`BodyBudget`, taken once and grown as its cost becomes known."""

    def __init__(self, budget: BodyBudget) -> None:
        self.budget = budget
        self.held = 0
        self.taken = False

    def fits(self, cost: int) -> bool:
        """Hold ``cost`` bytes (or keep holding more); False if they do not fit now."""
        if not self.taken:
            self.taken = self.budget.take(cost)
            self.held = cost if self.taken else 0
            return self.taken
        if cost <= self.held:
            return True
        if not self.budget.grow(self.held, cost):
            return False
        self.held = cost
        return True

    def release(self) -> None:
        if self.taken:
            self.budget.give_back(self.held)
            self.taken = False
            self.held = 0
