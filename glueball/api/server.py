"""The HTTP edge: an ASGI application serving the Glue API at ``POST /``.

Point reads — operations that fetch one entity by its key (``GetTable``,
``GetDatabase``, ...) — cost one indexed lookup and run directly on the event
loop: handing them to a thread costs more than serving them. Everything else
(writes, listings, searches, batches) runs on a thread pool, so that a slow
call does not hold up the others and concurrent writers really race in the
store. ``--workers N`` runs N such processes on one port for more cores.
"""

from __future__ import annotations

import asyncio
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from glueball.app import Glueball

_MAX_BODY = 32 * 1024 * 1024
_JSON = "application/x-amz-json-1.1"
Scope = dict[str, Any]

POINT_READS = frozenset({
    "GetDatabase", "GetTable", "GetTableVersion", "GetPartition", "GetConnection",
    "GetUserDefinedFunction", "GetTags",
})


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
                                 _JSON, "")
                return
            if not message.get("more_body"):
                break
        target, authorization = headers.get("x-amz-target"), headers.get("authorization")
        if (target or "").partition(".")[2] in POINT_READS:
            response = self.glue.handle(target, bytes(body), authorization)
        else:
            loop = asyncio.get_running_loop()
            response = await loop.run_in_executor(self.pool, self.glue.handle, target, bytes(body), authorization)
        await self._send(send, response.status, response.body, _JSON, response.request_id)

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


_SETTINGS_ENV = "GLUEBALL_SERVER_SETTINGS"


def create_app() -> GlueAsgiApp:
    """The application of one worker process (``--workers``), configured by its parent."""
    import json

    from glueball.api.identity import AccountDirectory
    from glueball.config import Settings, log_to_home

    config = json.loads(os.environ[_SETTINGS_ENV])
    settings = Settings(home=Path(config["home"]), store_url=config["store_url"], region=config["region"],
                        endpoint=config.get("endpoint", ""))
    log_to_home(settings)
    glue = Glueball(settings, AccountDirectory(config["access_keys"]), migrate=False)
    if config.get("scheduler"):
        glue.start_scheduler()  # every worker schedules; fires are decided by compare-and-swap in the store
    return GlueAsgiApp(glue)


def serve(glue: Glueball, host: str, port: int, workers: int = 1, scheduler: bool = True) -> None:
    """Serve ``glue`` on ``host:port``; with ``workers`` > 1, in that many processes.

    With ``scheduler``, each serving process runs the scheduler (glueball.workflows.scheduler).
    """
    import json

    import uvicorn

    options: dict[str, Any] = {"host": host, "port": port, "log_level": "warning", "lifespan": "on",
                               "http": "httptools", "access_log": False}
    if workers <= 1:
        if scheduler:
            glue.start_scheduler()
        uvicorn.run(GlueAsgiApp(glue), **options)
        return
    os.environ[_SETTINGS_ENV] = json.dumps({
        "home": str(glue.settings.home), "store_url": glue.settings.store_url, "region": glue.settings.region,
        "endpoint": glue.settings.endpoint,
        "access_keys": glue.accounts.keys, "scheduler": scheduler,
    })
    glue.close()  # the workers open their own store; the schema is already migrated
    uvicorn.run("glueball.api.server:create_app", factory=True, workers=workers, **options)
