"""An embedded run's own Glue and S3 endpoint: the embedded installation over HTTP on a loopback port.

Engines inside the driver's JVM that speak AWS's APIs themselves - Iceberg's ``GlueCatalog``, ``S3FileIO``,
its REST catalog - need an HTTP endpoint. A run launched by a server gets that server's; an embedded run
(``glueball run`` without ``GLUEBALL_ENDPOINT``) has none, so the driver serves its own installation (the one its
runtime client already answers in-process: ``GLUEBALL_HOME``, its store) on ``127.0.0.1`` and a free port, in a
thread of its own, started on first use and ended with the process. Nothing but this process's JVM is told the
port; requests are checked as an embedded installation checks them (``--auth off``).
"""

from __future__ import annotations

import importlib
import os
import socket
import threading
import time
from typing import Any

ASGI_FACTORY_ENV = "GLUEBALL_EMBEDDED_ASGI"
DEFAULT_ASGI_FACTORY = "glueball.app:default_embedded_asgi"
START_SECONDS = 30.0

_lock = threading.Lock()
_url: str | None = None


class EndpointError(RuntimeError):
    """The loopback endpoint did not start; the message says why."""


def url() -> str:
    """The endpoint's URL (``http://127.0.0.1:PORT``), starting it on first use.

    Raises:
        EndpointError: it did not answer within :data:`START_SECONDS`.
    """
    global _url
    with _lock:
        if _url is None:
            _url = _start()
        return _url


def _asgi_app() -> Any:
    module, _, function = os.environ.get(ASGI_FACTORY_ENV, DEFAULT_ASGI_FACTORY).partition(":")
    return getattr(importlib.import_module(module), function)()


def _start() -> str:
    import uvicorn

    from glueball.edge.asgi import KEEP_ALIVE_SECONDS

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    # idle connections kept as long as the server keeps them: the AWS SDK's pools reuse them for up to 60 s, and a
    # PUT (Expect: 100-continue) sent on one uvicorn's 5 s default has just closed reads EOF and fails the write
    config = uvicorn.Config(_asgi_app(), log_level="warning", lifespan="off", http="httptools", loop="asyncio",
                            access_log=False, timeout_keep_alive=KEEP_ALIVE_SECONDS)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="glueball-loopback",
                              daemon=True)
    thread.start()
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if server.started:
            return f"http://127.0.0.1:{port}"
        if not thread.is_alive():
            break
        time.sleep(0.02)
    raise EndpointError(f"the embedded installation's loopback endpoint did not start on port {port}")
