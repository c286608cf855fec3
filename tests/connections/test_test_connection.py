"""TestConnection through boto3 against `glueball server` (SQLite and PostgreSQL): it really connects, to
the suite's PostgreSQL and MariaDB (tools.services) through their JDBC drivers and to a Tansu Kafka
broker, and a failure carries the driver's or broker's reason in Glue's error shape."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.helpers import error_of, free_port, unique
from tests.streaming.helpers import Broker
from tools import services


def expect_error(call: Any, code: str) -> str:
    with pytest.raises(ClientError) as excinfo:
        call()
    got, message = error_of(excinfo)
    assert got == code, message
    return message


def jdbc(url: str, user: str, **more: str) -> dict[str, Any]:
    return {"ConnectionType": "JDBC", "ConnectionProperties": {"JDBC_CONNECTION_URL": url, "USERNAME": user, **more}}


def server_jdbc(server: services.DatabaseServer, url: str | None = None, **more: str) -> dict[str, Any]:
    """A JDBC connection input for one of the suite's servers (its URL unless ``url`` is given)."""
    properties = {**server.connection_properties(), **more}
    if url is not None:
        properties["JDBC_CONNECTION_URL"] = url
    return {"ConnectionType": "JDBC", "ConnectionProperties": properties}


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Broker]:
    started = Broker.start(Path(tmp_path_factory.mktemp("tansu")))
    yield started
    started.stop()


def test_jdbc_connections_to_postgresql_and_mariadb_succeed(glue: Any) -> None:
    pg, maria = services.postgres(), services.mariadb()
    assert glue.test_connection(TestConnectionInput=server_jdbc(pg))["ResponseMetadata"]["HTTPStatusCode"] == 200
    glue.test_connection(TestConnectionInput=server_jdbc(maria, maria.mariadb_jdbc_url))
    glue.test_connection(TestConnectionInput=server_jdbc(maria))  # jdbc:mysql://
    name = unique("pg")
    glue.create_connection(ConnectionInput={"Name": name, **server_jdbc(pg)})
    glue.test_connection(ConnectionName=name)  # a stored connection is tested with its own properties


def test_basic_authentication_credentials_are_used(glue: Any) -> None:
    maria = services.mariadb()
    glue.test_connection(TestConnectionInput={
        "ConnectionType": "JDBC", "ConnectionProperties": {"JDBC_CONNECTION_URL": maria.mariadb_jdbc_url},
        "AuthenticationConfiguration": {"AuthenticationType": "BASIC", "BasicAuthenticationCredentials": {
            "Username": maria.user, "Password": maria.password}}})
    message = expect_error(lambda: glue.test_connection(TestConnectionInput={
        "ConnectionType": "JDBC", "ConnectionProperties": {"JDBC_CONNECTION_URL": maria.mariadb_jdbc_url},
        "AuthenticationConfiguration": {"AuthenticationType": "BASIC", "BasicAuthenticationCredentials": {
            "Username": "no_such_user", "Password": "wrong"}}}), "InvalidInputException")
    assert "no_such_user" in message


def test_jdbc_failures_carry_the_driver_s_reason(glue: Any) -> None:
    pg = services.postgres()
    message = expect_error(lambda: glue.test_connection(TestConnectionInput=server_jdbc(
        pg, pg.jdbc_url_of("no_such_database"))), "InvalidInputException")
    assert 'database "no_such_database" does not exist' in message
    message = expect_error(lambda: glue.test_connection(TestConnectionInput=jdbc(
        f"jdbc:postgresql://127.0.0.1:{free_port()}/test", "postgres")), "InvalidInputException")
    assert "Connection refused" in message or "refused" in message.lower()
    message = expect_error(lambda: glue.test_connection(TestConnectionInput=server_jdbc(
        pg, JDBC_ENFORCE_SSL="true")), "InvalidInputException")
    assert "SSL" in message  # the local server has no TLS: enforcing it fails, as it must
    message = expect_error(lambda: glue.test_connection(TestConnectionInput=jdbc(
        "jdbc:oracle:thin:@db.example.com:1521/orcl", "scott")), "InvalidInputException")
    assert "No suitable driver" in message


def test_kafka_connections_reach_the_broker_or_say_why_not(glue: Any, broker: Broker) -> None:
    glue.test_connection(TestConnectionInput={"ConnectionType": "KAFKA",
                                              "ConnectionProperties": {"KAFKA_BOOTSTRAP_SERVERS": broker.bootstrap}})
    name = unique("kafka")
    glue.create_connection(ConnectionInput={"Name": name, "ConnectionType": "KAFKA", "ConnectionProperties": {
        "KAFKA_BOOTSTRAP_SERVERS": broker.bootstrap}})
    glue.test_connection(ConnectionName=name)
    message = expect_error(lambda: glue.test_connection(TestConnectionInput={
        "ConnectionType": "KAFKA", "ConnectionProperties": {"KAFKA_BOOTSTRAP_SERVERS": f"127.0.0.1:{free_port()}"}}),
        "InvalidInputException")
    assert "Connection refused" in message
    message = expect_error(lambda: glue.test_connection(TestConnectionInput={
        "ConnectionType": "KAFKA", "ConnectionProperties": {
            "KAFKA_BOOTSTRAP_SERVERS": broker.bootstrap, "KAFKA_SASL_MECHANISM": "SCRAM-SHA-512",
            "KAFKA_SASL_SCRAM_USERNAME": "u", "KAFKA_SASL_SCRAM_PASSWORD": "p"}}), "InvalidInputException")
    assert "SASL" in message


def test_request_errors(glue: Any) -> None:
    assert "not both" not in expect_error(lambda: glue.test_connection(), "InvalidInputException")
    assert "not both" in expect_error(lambda: glue.test_connection(
        ConnectionName="x", TestConnectionInput=jdbc("jdbc:postgresql://db:5432/x", "postgres")),
        "InvalidInputException")
    expect_error(lambda: glue.test_connection(ConnectionName=unique("none")), "EntityNotFoundException")
    network = unique("net")
    glue.create_connection(ConnectionInput={"Name": network, "ConnectionType": "NETWORK", "ConnectionProperties": {},
                                            "PhysicalConnectionRequirements": {"SubnetId": "subnet-1",
                                                                               "SecurityGroupIdList": ["sg-1"]}})
    assert "NETWORK" in expect_error(lambda: glue.test_connection(ConnectionName=network), "InvalidInputException")
    assert "MONGODB" in expect_error(lambda: glue.test_connection(TestConnectionInput={
        "ConnectionType": "MONGODB", "ConnectionProperties": {}}), "InvalidInputException")
    assert "BASIC" in expect_error(lambda: glue.test_connection(TestConnectionInput={
        **jdbc("jdbc:postgresql://db:5432/x", "postgres"),
        "AuthenticationConfiguration": {"AuthenticationType": "OAUTH2"}}),
        "InvalidInputException")
    assert "JDBC_CONNECTION_URL" in expect_error(lambda: glue.test_connection(TestConnectionInput={
        "ConnectionType": "JDBC", "ConnectionProperties": {"USERNAME": "x"}}), "InvalidInputException")
