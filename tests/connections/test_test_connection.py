"""TestConnection through boto3 against `glueball server` (SQLite and PostgreSQL): it really connects, to
the suite's PostgreSQL and MariaDB (tools.services) through their JDBC drivers and to the suite's Kafka broker
(PLAINTEXT, TLS with a custom CA, mutual TLS with a JKS keystore, SASL SCRAM-SHA-512 and PLAIN, MSK IAM up to the
broker's refusal), and a failure carries the driver's or broker's reason in Glue's error shape."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.helpers import error_of, free_port, unique
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
def broker() -> services.KafkaBroker:
    return services.kafka()


def kafka(**properties: str) -> dict[str, Any]:
    return {"ConnectionType": "KAFKA", "ConnectionProperties": properties}


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


def test_kafka_connections_reach_the_broker_or_say_why_not(glue: Any, broker: services.KafkaBroker) -> None:
    glue.test_connection(TestConnectionInput=kafka(KAFKA_BOOTSTRAP_SERVERS=broker.bootstrap))
    name = unique("kafka")
    glue.create_connection(ConnectionInput={"Name": name, **kafka(KAFKA_BOOTSTRAP_SERVERS=broker.bootstrap)})
    glue.test_connection(ConnectionName=name)
    port = free_port()
    message = expect_error(lambda: glue.test_connection(TestConnectionInput=kafka(
        KAFKA_BOOTSTRAP_SERVERS=f"127.0.0.1:{port}")), "InvalidInputException")
    assert f"127.0.0.1:{port}: Connection refused" in message
    message = expect_error(lambda: glue.test_connection(TestConnectionInput=kafka(
        KAFKA_BOOTSTRAP_SERVERS=broker.bootstrap, KAFKA_SASL_MECHANISM="SCRAM-SHA-512",
        KAFKA_SASL_SCRAM_USERNAME="u", KAFKA_SASL_SCRAM_PASSWORD="p")), "InvalidInputException")
    assert "Unexpected handshake request with client mechanism SCRAM-SHA-512" in message  # a PLAINTEXT listener


@pytest.mark.parametrize("server", ["sqlite"], indirect=True)  # the probe is the point here, not the store
def test_kafka_tls_and_sasl_through_connection_properties(glue: Any, broker: services.KafkaBroker) -> None:
    tls = broker.certificates
    trusted = {"KAFKA_SSL_ENABLED": "true", "KAFKA_CUSTOM_CERT": str(tls.ca)}
    glue.test_connection(TestConnectionInput=kafka(KAFKA_BOOTSTRAP_SERVERS=broker.address("SSL"), **trusted))
    message = expect_error(lambda: glue.test_connection(TestConnectionInput=kafka(
        KAFKA_BOOTSTRAP_SERVERS=broker.address("SSL"), KAFKA_SSL_ENABLED="true")), "InvalidInputException")
    assert "SSL handshake failed" in message and "unable to find valid certification path" in message
    keystore = {"KAFKA_CLIENT_KEYSTORE": str(tls.client_keystore),
                "KAFKA_CLIENT_KEYSTORE_PASSWORD": tls.client_keystore_password,
                "KAFKA_CLIENT_KEY_PASSWORD": tls.client_key_password}
    glue.test_connection(TestConnectionInput=kafka(KAFKA_BOOTSTRAP_SERVERS=broker.address("MTLS"), **trusted,
                                                   **keystore))
    message = expect_error(lambda: glue.test_connection(TestConnectionInput=kafka(
        KAFKA_BOOTSTRAP_SERVERS=broker.address("MTLS"), **trusted)), "InvalidInputException")
    assert "bad_certificate" in message, "the broker requires a client certificate"
    scram = {"KAFKA_SASL_MECHANISM": "SCRAM-SHA-512", "KAFKA_SASL_SCRAM_USERNAME": broker.scram_user}
    glue.test_connection(TestConnectionInput=kafka(KAFKA_BOOTSTRAP_SERVERS=broker.address("SASL_SSL"), **trusted,
                                                   **scram, KAFKA_SASL_SCRAM_PASSWORD=broker.scram_password))
    message = expect_error(lambda: glue.test_connection(TestConnectionInput=kafka(
        KAFKA_BOOTSTRAP_SERVERS=broker.address("SASL_SSL"), **trusted, **scram, KAFKA_SASL_SCRAM_PASSWORD="wrong")),
        "InvalidInputException")
    assert "Authentication failed during authentication due to invalid credentials with SASL mechanism " \
           "SCRAM-SHA-512" in message
    glue.test_connection(TestConnectionInput=kafka(
        KAFKA_BOOTSTRAP_SERVERS=broker.address("SASL_PLAINTEXT"), KAFKA_SASL_MECHANISM="PLAIN",
        KAFKA_SASL_PLAIN_USERNAME=broker.plain_user, KAFKA_SASL_PLAIN_PASSWORD=broker.plain_password))
    # MSK IAM: the login module of the msk-iam jars signs in, and this broker (not MSK) refuses the mechanism
    message = expect_error(lambda: glue.test_connection(TestConnectionInput=kafka(
        KAFKA_BOOTSTRAP_SERVERS=broker.address("SASL_SSL"), **trusted, KAFKA_SASL_MECHANISM="AWS_MSK_IAM")),
        "InvalidInputException")
    assert "Client SASL mechanism 'AWS_MSK_IAM' not enabled in the server" in message
    message = expect_error(lambda: glue.test_connection(TestConnectionInput=kafka(
        KAFKA_BOOTSTRAP_SERVERS=broker.address("SSL"), KAFKA_SSL_ENABLED="true",
        KAFKA_CUSTOM_CERT="s3://no-bucket/ca.pem")), "InvalidInputException")
    assert "KAFKA_CUSTOM_CERT 's3://no-bucket/ca.pem' does not exist" in message


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
