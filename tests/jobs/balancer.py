"""A tiny round-robin TCP load balancer for tests: each connection goes to the next backend that accepts it."""

from __future__ import annotations

import asyncio
import itertools
import threading
from collections.abc import Sequence

from tests.helpers import free_port


class RoundRobin:
    """Listens on 127.0.0.1:``port``; a backend that refuses a connection is skipped for that connection."""

    def __init__(self, backends: Sequence[int]) -> None:
        self.backends = list(backends)
        self.port = free_port()
        self._turn = itertools.count()
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="round-robin", daemon=True)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> RoundRobin:
        self._thread.start()
        self._ready.wait(10)
        return self

    def stop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        server = self._loop.run_until_complete(asyncio.start_server(self._connection, "127.0.0.1", self.port))
        self._ready.set()
        try:
            self._loop.run_forever()
        finally:
            server.close()

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        upstream = None
        for _ in self.backends:
            port = self.backends[next(self._turn) % len(self.backends)]
            try:
                upstream = await asyncio.open_connection("127.0.0.1", port)
                break
            except OSError:
                continue
        if upstream is None:
            writer.close()
            return
        up_reader, up_writer = upstream

        async def pipe(source: asyncio.StreamReader, target: asyncio.StreamWriter) -> None:
            try:
                while data := await source.read(65536):
                    target.write(data)
                    await target.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                target.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
