"""Servers for the trigger, workflow and scheduler tests, each on SQLite and on PostgreSQL.

Every server here runs its scheduler every 0.2 s (``GLUEBALL_SCHEDULER_INTERVAL``) and decides
schedules by a clock file (``--clock-file``): a test moves time by writing epoch seconds to it.
``wf_server`` is shared by the API tests; its clock stays at :data:`tests.workflows.helpers.PINNED`, a noon, so no
schedule they create comes due. Tests that move time get their own servers from ``make_server``
(own home, own database, own clock).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import create_postgres_database, drop_postgres_database
from tests.workflows.helpers import Clock, ClockedServer, MakeServer


@pytest.fixture(scope="session", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="session")
def wf_server(store_kind: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClockedServer]:
    """The server the API tests share; its scheduler's clock is pinned at :data:`PINNED`."""
    home = tmp_path_factory.mktemp(f"wf-{store_kind}")
    store_url = create_postgres_database() if store_kind == "postgres" else ""
    server = ClockedServer(home, store_url, Clock(home / "clock")).start()
    yield server
    server.stop()
    if store_url:
        drop_postgres_database(store_url)


@pytest.fixture()
def glue(wf_server: ClockedServer) -> Any:
    return wf_server.client()


@pytest.fixture()
def make_server(store_kind: str, tmp_path: Path) -> Iterator[MakeServer]:
    """A factory of started servers, stopped (and their databases dropped) after the test.

    ``make_server(clock=..., store_url=..., env=...)``: a new home each; a new store unless
    ``store_url`` is given (``server.store_url`` of another server shares its store); a new clock
    at :data:`PINNED` unless one is given.
    """
    servers: list[ClockedServer] = []
    databases: list[str] = []

    def make(clock: Clock | None = None, store_url: str | None = None,
             env: dict[str, str] | None = None) -> ClockedServer:
        home = tmp_path / f"home{len(servers)}"
        home.mkdir()
        if store_url is None:
            store_url = create_postgres_database() if store_kind == "postgres" else ""
            if store_url:
                databases.append(store_url)
        server = ClockedServer(home, store_url, clock or Clock(tmp_path / f"clock{len(servers)}"), env)
        servers.append(server)
        return server.start()

    yield make
    for server in servers:
        server.stop()
    for url in databases:
        drop_postgres_database(url)
