"""The HTTP edge: an ASGI application serving the Glue API at ``POST /``.

Requests run on a thread pool so that one slow store call does not hold up
the others, and so that concurrent writers really race in the store.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from glueball.app import Glueball

_MAX_BODY = 32 * 1024 * 1024
Scope = dict[str, Any]


class GlueAsgiApp:
    def __init__(self, glue: Glueball, workers: int = 8) -> None:
        self.glue = glue
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="glue-api")

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if scope["method"] == "GET" and scope["path"] in ("/", "/health"):
            await self._send(send, 200, b'{"status":"ok"}', "application/json", "health")
            return
        if scope["method"] != "POST":
            await self._send(send, 405, b'{"message":"Use POST / with X-Amz-Target"}', "application/json", "")
            return
        body = bytearray()
        while True:
            message = await receive()
            body += message.get("body", b"")
            if len(body) > _MAX_BODY:
                await self._send(send, 413, b'{"__type":"SerializationException","message":"Body too large"}',
                                 "application/x-amz-json-1.1", "")
                return
            if not message.get("more_body"):
                break
        loop = asyncio.get_running_loop()
        response = await loop.run_in_executor(
            self.pool, self.glue.handle, headers.get("x-amz-target"), bytes(body), headers.get("authorization")
        )
        await self._send(send, response.status, response.body, "application/x-amz-json-1.1", response.request_id)

    @staticmethod
    async def _send(send: Any, status: int, body: bytes, content_type: str, request_id: str) -> None:
        await send({
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", content_type.encode()),
                (b"content-length", str(len(body)).encode()),
                (b"x-amzn-requestid", request_id.encode()),
            ],
        })
        await send({"type": "http.response.body", "body": body})

    async def _lifespan(self, receive: Any, send: Any) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                self.pool.shutdown(wait=True)
                self.glue.close()
                await send({"type": "lifespan.shutdown.complete"})
                return


def serve(glue: Glueball, host: str, port: int) -> None:
    import uvicorn

    uvicorn.run(GlueAsgiApp(glue), host=host, port=port, log_level="warning", lifespan="on",
                http="httptools", access_log=False)
