"""One `glueball server` (SQLite) for the visual-job tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.helpers import ServerProcess


@pytest.fixture(scope="session")
def studio_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    server = ServerProcess(tmp_path_factory.mktemp("studio-home")).start()
    yield server
    server.stop()
