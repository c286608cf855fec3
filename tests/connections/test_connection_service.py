"""The service API the ETL runtime uses to read connections (no HTTP)."""

from __future__ import annotations

from pathlib import Path

import pytest

from glueball.catalog.models import Scope
from glueball.connections.models import Connection, ConnectionType, PhysicalConnectionRequirements
from glueball.connections.service import ConnectionService
from glueball.errors import EntityNotFoundException
from glueball.store.engine import Store


@pytest.fixture()
def service(tmp_path: Path) -> ConnectionService:
    return ConnectionService(Store(f"sqlite:///{tmp_path / 'glueball.db'}"), Scope("123456789012", "us-east-1"))


def test_get_returns_a_typed_connection(service: ConnectionService) -> None:
    service.create(Connection(
        name="Sales", connection_type=ConnectionType.JDBC,
        properties={"JDBC_CONNECTION_URL": "jdbc:postgresql://db:5432/sales", "USERNAME": "etl",
                    "PASSWORD": "pw"},
        physical=PhysicalConnectionRequirements(subnet_id="subnet-1", security_group_ids=["sg-1"]),
    ))
    connection = service.get("Sales")
    assert connection.connection_type is ConnectionType.JDBC
    assert (connection.jdbc_url, connection.username, connection.password) == (
        "jdbc:postgresql://db:5432/sales", "etl", "pw")
    assert connection.physical == PhysicalConnectionRequirements("subnet-1", ["sg-1"], None)
    assert connection.create_time is not None
    hidden = service.get("Sales", hide_password=True)
    assert hidden.password is None
    assert hidden.username == "etl"
    with pytest.raises(EntityNotFoundException, match="Connection sales not found."):
        service.get("sales")


def test_kafka_bootstrap_servers(service: ConnectionService) -> None:
    service.create(Connection(name="stream", connection_type=ConnectionType.KAFKA,
                              properties={"KAFKA_BOOTSTRAP_SERVERS": "a:9092, b:9093"}))
    assert service.get("stream").bootstrap_servers == ["a:9092", "b:9093"]
