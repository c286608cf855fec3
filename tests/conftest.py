from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import ServerProcess, create_postgres_database, drop_postgres_database


@pytest.fixture(scope="session", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A running `glueball server`, once on SQLite and once on PostgreSQL."""
    home: Path = tmp_path_factory.mktemp(f"home-{request.param}")
    store_url = create_postgres_database() if request.param == "postgres" else ""
    proc = ServerProcess(home, store_url).start()
    yield proc
    proc.stop()
    if store_url:
        drop_postgres_database(store_url)


@pytest.fixture()
def glue(server: ServerProcess) -> Any:
    """A boto3 Glue client pointed at the running server."""
    return server.client()
