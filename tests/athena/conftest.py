"""One server (and so one Athena engine, a Spark driver) for every Athena test: an engine's JVM starts once, and
ends with the package (its engine's JVM holds memory, and a core while it computes)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from tests.athena.helpers import client
from tests.helpers import ServerProcess


@pytest.fixture(scope="package")
def athena_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    # the engine outlives a server that stops (a restarted one adopts it): without a server it ends in 5 s
    server = ServerProcess(tmp_path_factory.mktemp("athena")).start(
        env=dict(os.environ, GLUEBALL_SESSION_ORPHAN_SECONDS="5"))
    s3 = client(server, "s3")
    for bucket in ("athena-results", "lake"):
        s3.create_bucket(Bucket=bucket)
    yield server
    server.stop()


@pytest.fixture()
def athena(athena_server: ServerProcess) -> Any:
    return client(athena_server)


@pytest.fixture()
def wrangler(athena_server: ServerProcess) -> Iterator[Any]:
    """awswrangler with every client it makes pointed at the server."""
    import awswrangler

    for service in ("athena", "s3", "glue", "sts"):
        setattr(awswrangler.config, f"{service}_endpoint_url", athena_server.endpoint)
    yield awswrangler
    awswrangler.config.reset()
