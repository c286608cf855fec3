"""Glue's Kafka source through catalog KAFKA connections on the suite's broker: TLS with a custom CA from the object
store, mutual TLS with a JKS keystore, SASL SCRAM-SHA-512 and PLAIN; MSK IAM as far as a broker that is not MSK
lets it go (the options Glue sets, the login module loaded from the msk-iam jars into the running session, a
signature checked here, the broker's refusal of the mechanism)."""

from __future__ import annotations

import hashlib
import hmac
import json
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from glueball.runtime.streaming.kafka_connection import MSK_IAM_CALLBACK_HANDLER, MSK_IAM_LOGIN_MODULE
from tests.helpers import unique
from tests.streaming.helpers import Broker, drain

pytestmark = pytest.mark.spark


def _connection(glue_context: Any, **properties: str) -> str:
    name = unique("kafka")
    glue_context.glue_client.create_connection(ConnectionInput={
        "Name": name, "ConnectionType": "KAFKA", "ConnectionProperties": properties})
    return name


def _read(glue_context: Any, connection: str, topic: str, checkpoint: Path) -> list[bytes]:
    frame = glue_context.create_data_frame.from_options("kafka", {
        "connectionName": connection, "topicName": topic, "startingOffsets": "earliest"})
    return sorted(bytes(r["value"]) for _, rows in drain(frame, checkpoint) for r in rows)


@pytest.fixture(scope="module")
def certificates(broker: Broker, glue_home: Path) -> dict[str, str]:
    """The CA and the client keystore in the object store, as Glue keeps them (s3:// locations)."""
    folder = glue_home / "s3" / "kafka-certs"
    folder.mkdir(parents=True, exist_ok=True)
    tls = broker.server.certificates
    shutil.copy(tls.ca, folder / "ca.pem")
    shutil.copy(tls.client_keystore, folder / "client.jks")
    return {"ca": "s3://kafka-certs/ca.pem", "keystore": "s3://kafka-certs/client.jks"}


def test_tls_mutual_tls_scram_and_plain_connections(glue_context: Any, broker: Broker, certificates: dict[str, str],
                                                     tmp_path: Path) -> None:
    server, tls = broker.server, broker.server.certificates
    topic = broker.create_topic()
    broker.produce(topic, [(0, None, b"one"), (0, None, b"two")])
    trusted = {"KAFKA_SSL_ENABLED": "true", "KAFKA_CUSTOM_CERT": certificates["ca"]}
    connections = {
        "ssl": _connection(glue_context, KAFKA_BOOTSTRAP_SERVERS=server.address("SSL"), **trusted),
        "mtls": _connection(glue_context, KAFKA_BOOTSTRAP_SERVERS=server.address("MTLS"), **trusted,
                            KAFKA_CLIENT_KEYSTORE=certificates["keystore"],
                            KAFKA_CLIENT_KEYSTORE_PASSWORD=tls.client_keystore_password,
                            KAFKA_CLIENT_KEY_PASSWORD=tls.client_key_password),
        "scram": _connection(glue_context, KAFKA_BOOTSTRAP_SERVERS=server.address("SASL_SSL"), **trusted,
                             KAFKA_SASL_MECHANISM="SCRAM-SHA-512", KAFKA_SASL_SCRAM_USERNAME=server.scram_user,
                             KAFKA_SASL_SCRAM_PASSWORD=server.scram_password),
        "plain": _connection(glue_context, KAFKA_BOOTSTRAP_SERVERS=server.address("SASL_PLAINTEXT"),
                             KAFKA_SASL_MECHANISM="PLAIN", KAFKA_SASL_PLAIN_USERNAME=server.plain_user,
                             KAFKA_SASL_PLAIN_PASSWORD=server.plain_password),
    }
    for kind, connection in connections.items():
        assert _read(glue_context, connection, topic, tmp_path / kind) == [b"one", b"two"], kind


def test_a_wrong_scram_password_fails_with_the_broker_s_reason(glue_context: Any, broker: Broker,
                                                               certificates: dict[str, str], tmp_path: Path) -> None:
    server = broker.server
    connection = _connection(glue_context, KAFKA_BOOTSTRAP_SERVERS=server.address("SASL_SSL"), KAFKA_SSL_ENABLED="true",
                             KAFKA_CUSTOM_CERT=certificates["ca"], KAFKA_SASL_MECHANISM="SCRAM-SHA-512",
                             KAFKA_SASL_SCRAM_USERNAME=server.scram_user, KAFKA_SASL_SCRAM_PASSWORD="wrong")
    with pytest.raises(Exception, match="invalid credentials with SASL mechanism SCRAM-SHA-512"):
        _read(glue_context, connection, broker.create_topic(), tmp_path / "ckpt")


def _sigv4_matches(payload: dict[str, str], secret: str) -> bool:
    """Whether the MSK IAM payload's signature is SigV4 over ``GET /?Action=...`` presigned for ``host``."""
    def mac(key: bytes, text: str) -> bytes:
        return hmac.new(key, text.encode(), hashlib.sha256).digest()

    _, day, region, service, _ = payload["x-amz-credential"].split("/")
    query = {"Action": payload["action"], "X-Amz-Algorithm": payload["x-amz-algorithm"],
             "X-Amz-Credential": payload["x-amz-credential"], "X-Amz-Date": payload["x-amz-date"],
             "X-Amz-Expires": payload["x-amz-expires"], "X-Amz-SignedHeaders": payload["x-amz-signedheaders"]}
    canonical_query = "&".join(f"{quote(k, safe='-_.~')}={quote(v, safe='-_.~')}" for k, v in sorted(query.items()))
    empty = hashlib.sha256(b"").hexdigest()
    request = "\n".join(["GET", "/", canonical_query, f"host:{payload['host']}\n", "host", empty])
    to_sign = "\n".join(["AWS4-HMAC-SHA256", payload["x-amz-date"], f"{day}/{region}/{service}/aws4_request",
                         hashlib.sha256(request.encode()).hexdigest()])
    key = mac(mac(mac(mac(f"AWS4{secret}".encode(), day), region), service), "aws4_request")
    return hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest() == payload["x-amz-signature"]


def test_msk_iam_login_module_loads_into_the_session_and_signs(spark: Any) -> None:
    from glueball.runtime.streaming.kafka import add_feature, loadable

    add_feature(spark, "msk-iam", MSK_IAM_LOGIN_MODULE)  # the shared session started with the kafka feature only
    assert loadable(spark, MSK_IAM_LOGIN_MODULE) and loadable(spark, MSK_IAM_CALLBACK_HANDLER)
    # the executors' class loader has the jars too (sc.addJar): a task calls into the AWS SDK they bring
    upper = spark.range(1).selectExpr("reflect('software.amazon.awssdk.utils.StringUtils', 'upperCase', 'msk')")
    assert upper.first()[0] == "MSK"
    # what Kafka's client does with the login module and the callback handler Glue configures
    jvm, gateway = spark._jvm, spark.sparkContext._gateway
    handler = getattr(jvm, MSK_IAM_CALLBACK_HANDLER)()
    required = getattr(jvm, "javax.security.auth.login.AppConfigurationEntry$LoginModuleControlFlag").REQUIRED
    entries = jvm.java.util.ArrayList()
    entries.add(jvm.javax.security.auth.login.AppConfigurationEntry(MSK_IAM_LOGIN_MODULE, required,
                                                                     jvm.java.util.HashMap()))
    handler.configure(jvm.java.util.HashMap(), "AWS_MSK_IAM", entries)
    getattr(jvm, MSK_IAM_LOGIN_MODULE)().initialize(jvm.javax.security.auth.Subject(), handler,
                                                    jvm.java.util.HashMap(), jvm.java.util.HashMap())
    mechanisms = gateway.new_array(jvm.java.lang.String, 1)
    mechanisms[0] = "AWS_MSK_IAM"
    host = "b-1.orders.a1b2c3.c2.kafka.eu-west-1.amazonaws.com"
    client = jvm.javax.security.sasl.Sasl.createSaslClient(mechanisms, None, "kafka", host, jvm.java.util.HashMap(),
                                                           handler)
    payload = json.loads(bytes(client.evaluateChallenge(bytearray())))
    assert payload["action"] == "kafka-cluster:Connect" and payload["host"] == host
    # the login module's chain reads the environment first: the driver's, as its JVM started (tests/streaming/
    # conftest.py); a later change to this process's os.environ never reaches the JVM
    key, secret = (jvm.java.lang.System.getenv(name) for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"))
    assert payload["x-amz-credential"].startswith(f"{key}/") and payload["x-amz-credential"].endswith(
        "/eu-west-1/kafka-cluster/aws4_request"), "signed as the driver's identity, for the broker's region"
    assert _sigv4_matches(payload, secret)
    assert not _sigv4_matches(payload, "another secret")


def test_an_msk_iam_connection_reaches_the_broker_s_handshake(glue_context: Any, broker: Broker,
                                                              certificates: dict[str, str], tmp_path: Path) -> None:
    connection = _connection(glue_context, KAFKA_BOOTSTRAP_SERVERS=broker.server.address("SASL_SSL"),
                             KAFKA_SSL_ENABLED="true", KAFKA_CUSTOM_CERT=certificates["ca"],
                             KAFKA_SASL_MECHANISM="AWS_MSK_IAM")
    # the driver's Kafka client logs in with the MSK IAM login module; the broker (not MSK) refuses the mechanism
    with pytest.raises(Exception, match="Client SASL mechanism 'AWS_MSK_IAM' not enabled in the server"):
        _read(glue_context, connection, broker.create_topic(), tmp_path / "ckpt")
