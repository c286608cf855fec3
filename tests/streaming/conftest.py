"""The suite's Apache Kafka broker (tools.services) and a moto_server Kinesis per test session; the runtime's Spark
fixtures."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.runtime.conftest import glue_context, glue_home, spark  # noqa: F401 - one Spark session per process
from tests.streaming.helpers import Broker
from tests.streaming.kinesis_helpers import MotoServer
from tools import services


@pytest.fixture(scope="session")
def broker() -> Broker:
    """The suite's Kafka broker (KRaft, started on first use, stopped at the session's end by tests/conftest.py)."""
    return Broker(services.kafka())


# boto3 in the tests, the driver and Spark's Python workers (started after this import) talks to moto_server
for _name, _value in (("AWS_ACCESS_KEY_ID", "testing"), ("AWS_SECRET_ACCESS_KEY", "testing"),
                      ("AWS_EC2_METADATA_DISABLED", "true")):
    os.environ.setdefault(_name, _value)


@pytest.fixture(scope="session")
def moto_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MotoServer]:
    """One ``moto_server`` (Kinesis endpoint) on a free loopback port for the session."""
    running = MotoServer.start(tmp_path_factory.mktemp("moto"))
    yield running
    running.stop()
