"""Glue's Kafka options as Spark's Kafka source options, and catalog KAFKA connections as Kafka client properties,
without a Spark session or a broker."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from glueball.runtime.errors import GlueRuntimeError
from glueball.runtime.streaming.decode import DecodeSpec
from glueball.runtime.streaming.kafka_connection import MSK_IAM, client_settings, connection_settings
from glueball.runtime.streaming.kafka_options import kafka_source, parse_timestamp_ms

BASE = {"bootstrap.servers": "127.0.0.1:9092"}


@pytest.mark.parametrize(("options", "message"), [
    ({"topicName": "t"}, "bootstrap.servers or connectionName"),
    ({**BASE}, "exactly one of topicName, assign and subscribePattern; got none"),
    ({**BASE, "topicName": "t", "subscribePattern": "t.*"}, "got topicname, subscribepattern"),
    ({**BASE, "topicName": " , "}, "topicName names no topic: ' , '"),
    ({**BASE, "assign": "{bad"}, "assign is not valid JSON .*'{bad'"),
    ({**BASE, "assign": '["t"]'}, "assign must be a JSON object"),
    ({**BASE, "assign": '{"t": []}'}, "topic 't' needs a list of partitions, got \\[\\]"),
    ({**BASE, "assign": '{"t": ["x"]}'}, "partitions of 't' must be integers, got \\['x'\\]"),
    ({**BASE, "subscribePattern": "("}, "subscribePattern is not a regular expression .*'\\('"),
    ({**BASE, "topicName": "t", "startingOffsets": "soon"}, "startingOffsets is not valid JSON .*'soon'"),
    ({**BASE, "topicName": "t", "startingOffsets": '{"u": {"0": 1}}'}, "names topics not subscribed: u"),
    ({**BASE, "topicName": "t", "startingOffsets": '{"t": [1]}'}, "topic 't' needs an object of partition offsets"),
    ({**BASE, "topicName": "t", "startingOffsets": '{"t": {"zero": 1}}'}, "must be integers, got {'zero': 1}"),
    ({**BASE, "assign": '{"t": [0, 1]}', "startingOffsets": '{"t": {"0": 1}}'}, "exactly the assigned partitions"),
    ({**BASE, "topicName": "t", "startingOffsets": '{"t": {"0": -3}}'}, "offset -3 of 't' is not an offset"),
    ({**BASE, "topicName": "t", "startingOffsets": "earliest", "startingTimestamp": "2024-01-01T00:00:00Z"},
     "startingOffsets and startingTimestamp exclude each other"),
    ({**BASE, "topicName": "t", "startingTimestamp": "yesterday"}, "startingTimestamp must be .* got 'yesterday'"),
    ({**BASE, "topicName": "t", "endingOffsets": "earliest"}, "endingOffsets cannot be earliest .* got 'earliest'"),
    ({**BASE, "topicName": "t", "endingOffsets": '{"t": {"0": -2}}'}, "endingOffsets cannot be earliest"),
    ({**BASE, "topicName": "t", "maxOffsetsPerTrigger": "0"}, "maxOffsetsPerTrigger must be at least 1, got 0"),
    ({**BASE, "topicName": "t", "minPartitions": "many"}, "minPartitions must be an integer, got 'many'"),
    ({**BASE, "topicName": "t", "pollTimeoutMs": "-5"}, "pollTimeoutMs must be at least 1, got -5"),
    ({**BASE, "topicName": "t", "numRetries": "x"}, "numRetries must be an integer, got 'x'"),
    ({**BASE, "topicName": "t", "retryIntervalMs": "-1"}, "retryIntervalMs must be at least 0, got -1"),
    ({**BASE, "topicName": "t", "failOnDataLoss": "maybe"}, "failOnDataLoss must be true or false, got 'maybe'"),
    ({**BASE, "topicName": "t", "includeHeaders": "2"}, "includeHeaders must be true or false, got '2'"),
    ({**BASE, "topicName": "t", "security.protocol": "TLS"}, "security.protocol must be one of .* got 'TLS'"),
])
def test_bad_options_are_rejected_naming_the_option_and_value(options: dict[str, Any], message: str) -> None:
    with pytest.raises(GlueRuntimeError, match=message):
        kafka_source(options)


def test_glue_options_become_spark_options() -> None:
    source = kafka_source({"Bootstrap.Servers": "b:1,b:2", "TOPICNAME": "a, b", "maxoffsetspertrigger": "10",
                           "minPartitions": 4, "pollTimeoutMs": "700", "numRetries": "5", "retryIntervalMs": "20",
                           "failOnDataLoss": "False", "includeHeaders": True, "startingOffsets": "EARLIEST",
                           "security.protocol": "sasl_ssl", "sasl.mechanism": "PLAIN", "kafka.client.id": "me",
                           "maxTriggerDelay": "5s", "classification": "json", "inferSchema": "true"})
    assert source.options == {
        "subscribe": "a,b", "startingOffsets": "earliest", "maxOffsetsPerTrigger": "10", "minPartitions": "4",
        "kafkaConsumer.pollTimeoutMs": "700", "fetchOffset.numRetries": "5", "fetchOffset.retryIntervalMs": "20",
        "failOnDataLoss": "false", "includeHeaders": "true", "maxtriggerdelay": "5s",
        "kafka.bootstrap.servers": "b:1,b:2", "kafka.security.protocol": "SASL_SSL", "kafka.sasl.mechanism": "PLAIN",
        "kafka.client.id": "me"}
    assert source.ending == {} and not source.needs_msk_iam


def test_positions_assign_pattern_and_ending_offsets() -> None:
    source = kafka_source({**BASE, "assign": '{"t": [1, 0]}', "startingOffsets": {"t": {"1": -2, "0": 7}},
                           "endingOffsets": '{"t": {"0": 30, "1": -1}}'})
    assert source.options["assign"] == '{"t": [0, 1]}'
    assert json.loads(source.options["startingOffsets"]) == {"t": {"0": 7, "1": -2}}
    assert source.ending == {"t": {0: 30}}, "latest (-1) caps nothing"
    assert "endingOffsets" not in source.options, "Spark refuses endingOffsets in streaming queries"
    pattern = kafka_source({**BASE, "subscribePattern": " orders-.* ", "endingOffsets": "latest"})
    assert pattern.options["subscribePattern"] == "orders-.*" and pattern.ending == {}


def test_starting_timestamp_is_epoch_millis_falling_back_to_latest() -> None:
    assert parse_timestamp_ms("2023-04-04T08:00:00+08:00") == int(dt.datetime(2023, 4, 4, tzinfo=dt.UTC).timestamp()
                                                                   * 1000)
    assert parse_timestamp_ms("2023-04-04T00:00:00Z") == parse_timestamp_ms("2023-04-04T00:00:00") == 1680566400000
    assert parse_timestamp_ms("1680566400000") == 1680566400000
    source = kafka_source({**BASE, "topicName": "t", "startingTimestamp": "2023-04-04T00:00:00Z"})
    assert source.options["startingTimestamp"] == "1680566400000"
    assert source.options["startingOffsetsByTimestampStrategy"] == "latest"
    strict = kafka_source({**BASE, "topicName": "t", "startingTimestamp": "1680566400000",
                           "startingOffsetsByTimestampStrategy": "error"})  # Spark's own option wins
    assert strict.options["startingoffsetsbytimestampstrategy"] == "error"
    assert "startingOffsetsByTimestampStrategy" not in strict.options


def test_decode_options_are_checked() -> None:
    assert DecodeSpec.from_options({"topicName": "t"}) is None
    with pytest.raises(GlueRuntimeError, match="needs a classification"):
        DecodeSpec.from_options({"inferSchema": "true"})
    with pytest.raises(GlueRuntimeError, match="not supported here"):
        DecodeSpec.from_options({"classification": "parquet"})
    with pytest.raises(GlueRuntimeError, match="one character"):
        DecodeSpec.from_options({"classification": "csv", "delimiter": "||"})


class Catalog:
    """GetConnection answered from a table, as the catalog does (with passwords: HidePassword false)."""

    def __init__(self, **connections: dict[str, Any]) -> None:
        self.connections = connections

    def get_connection(self, Name: str, HidePassword: bool) -> dict[str, Any]:  # noqa: N803
        from botocore.exceptions import ClientError

        assert not HidePassword
        if Name not in self.connections:
            raise ClientError({"Error": {"Code": "EntityNotFoundException",
                                         "Message": f"Connection {Name} not found"}}, "GetConnection")
        return {"Connection": {"Name": Name, **self.connections[Name]}}


def _kafka(**properties: str) -> dict[str, Any]:
    return {"ConnectionType": "KAFKA", "ConnectionProperties": {"KAFKA_BOOTSTRAP_SERVERS": "b1:9096", **properties}}


def test_connection_properties_become_java_client_properties() -> None:
    catalog = Catalog(scram=_kafka(KAFKA_SSL_ENABLED="true", KAFKA_SASL_MECHANISM="SCRAM-SHA-512",
                                   KAFKA_SASL_SCRAM_USERNAME="app", KAFKA_SASL_SCRAM_PASSWORD='p"w\\d'),
                      plain=_kafka(KAFKA_SASL_MECHANISM="PLAIN", KAFKA_SASL_PLAIN_USERNAME="u",
                                   KAFKA_SASL_PLAIN_PASSWORD="p"),
                      iam=_kafka(KAFKA_SASL_MECHANISM="AWS_MSK_IAM"), tls=_kafka(KAFKA_SSL_ENABLED="TRUE"))
    assert connection_settings("scram", catalog).properties == {
        "bootstrap.servers": "b1:9096", "security.protocol": "SASL_SSL", "sasl.mechanism": "SCRAM-SHA-512",
        "sasl.jaas.config": 'org.apache.kafka.common.security.scram.ScramLoginModule required username="app" '
                            'password="p\\"w\\\\d";'}
    plain = connection_settings("plain", catalog).properties
    assert plain["security.protocol"] == "SASL_PLAINTEXT" and plain["sasl.mechanism"] == "PLAIN"
    assert connection_settings("iam", catalog).properties == {"bootstrap.servers": "b1:9096", **MSK_IAM}
    assert connection_settings("tls", catalog).properties == {"bootstrap.servers": "b1:9096",
                                                               "security.protocol": "SSL"}
    source = kafka_source({"connectionName": "iam", "topicName": "t"}, catalog)
    assert source.needs_msk_iam and source.options["kafka.sasl.mechanism"] == "AWS_MSK_IAM"
    assert source.options["kafka.sasl.client.callback.handler.class"] == \
        "software.amazon.msk.auth.iam.IAMClientCallbackHandler"
    overridden = kafka_source({"connectionName": "tls", "topicName": "t", "bootstrap.servers": "b9:1"}, catalog)
    assert overridden.options["kafka.bootstrap.servers"] == "b9:1"


def test_connections_glueball_cannot_use_are_refused_with_the_reason() -> None:
    catalog = Catalog(jdbc={"ConnectionType": "JDBC", "ConnectionProperties": {}},
                      vault=_kafka(KAFKA_SASL_MECHANISM="SCRAM-SHA-512", KAFKA_SASL_SCRAM_USERNAME="app",
                                   KAFKA_SASL_SCRAM_SECRETS_ARN="arn:aws:secretsmanager:us-east-1:1:secret:s"),
                      sealed=_kafka(KAFKA_SASL_MECHANISM="PLAIN", KAFKA_SASL_PLAIN_USERNAME="u",
                                    ENCRYPTED_KAFKA_SASL_PLAIN_PASSWORD="AQICAH..."),
                      yes=_kafka(KAFKA_SSL_ENABLED="yes please"),
                      nocert=_kafka(KAFKA_CUSTOM_CERT="s3://certs/missing.pem"))
    for name, message in (("missing", "connectionName 'missing': Connection missing not found"),
                          ("jdbc", "is a JDBC connection, not KAFKA"),
                          ("vault", "SCRAM password in Secrets Manager"),
                          ("sealed", "KAFKA_SASL_PLAIN_PASSWORD only encrypted"),
                          ("yes", "KAFKA_SSL_ENABLED must be true or false, got 'yes please'"),
                          ("nocert", "KAFKA_CUSTOM_CERT 's3://certs/missing.pem' does not exist")):
        with pytest.raises(GlueRuntimeError, match=message):
            kafka_source({"connectionName": name, "topicName": "t"}, catalog)


def _openssl(folder: Path, *argv: str) -> None:
    subprocess.run(["openssl", *argv], cwd=folder, check=True, capture_output=True)


def test_custom_certificates_are_checked_as_glue_checks_them(tmp_path: Path) -> None:
    _openssl(tmp_path, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "rsa.key", "-out", "rsa.pem",
             "-days", "1", "-sha384", "-subj", "/CN=rsa")
    _openssl(tmp_path, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
             "-keyout", "ec.key", "-out", "ec.pem", "-days", "1", "-subj", "/CN=ec")
    (tmp_path / "junk.pem").write_text("not a certificate")
    rsa = client_settings("kafka", {"KAFKA_BOOTSTRAP_SERVERS": "b:1", "KAFKA_SSL_ENABLED": "true",
                                    "KAFKA_CUSTOM_CERT": str(tmp_path / "rsa.pem")}).properties
    assert rsa["ssl.truststore.type"] == "PEM"
    assert rsa["ssl.truststore.certificates"] == (tmp_path / "rsa.pem").read_text()
    with pytest.raises(GlueRuntimeError, match="signed with algorithm 1.2.840.10045.4.3.2; Glue accepts SHA256withRSA"):
        client_settings("kafka", {"KAFKA_CUSTOM_CERT": str(tmp_path / "ec.pem")})
    with pytest.raises(GlueRuntimeError, match="holds no PEM certificate"):
        client_settings("kafka", {"KAFKA_CUSTOM_CERT": str(tmp_path / "junk.pem")})
    skipped = client_settings("kafka", {"KAFKA_CUSTOM_CERT": str(tmp_path / "ec.pem"),
                                        "KAFKA_SKIP_CUSTOM_CERT_VALIDATION": "true"}).properties
    assert "BEGIN CERTIFICATE" in skipped["ssl.truststore.certificates"]


def test_keystores_and_kerberos_settings(tmp_path: Path) -> None:
    keystore, keytab, krb5 = tmp_path / "client.jks", tmp_path / "app.keytab", tmp_path / "krb5.conf"
    for path in (keystore, keytab, krb5):
        path.write_bytes(b"x")
    mtls = client_settings("kafka", {"KAFKA_SSL_ENABLED": "true", "KAFKA_CLIENT_KEYSTORE": str(keystore),
                                     "KAFKA_CLIENT_KEYSTORE_PASSWORD": "s", "KAFKA_CLIENT_KEY_PASSWORD": "k"})
    assert {k: v for k, v in mtls.properties.items() if k.startswith("ssl.")} == {
        "ssl.keystore.location": str(keystore), "ssl.keystore.password": "s", "ssl.key.password": "k"}
    kerberos = client_settings("kafka", {"KAFKA_SASL_MECHANISM": "GSSAPI", "KAFKA_SASL_GSSAPI_KEYTAB": str(keytab),
                                         "KAFKA_SASL_GSSAPI_KRB5_CONF": str(krb5), "KAFKA_SASL_GSSAPI_SERVICE": "kfk",
                                         "KAFKA_SASL_GSSAPI_PRINCIPAL": "app@EXAMPLE.COM"})
    assert kerberos.system_properties == {"java.security.krb5.conf": str(krb5)}
    assert kerberos.properties["sasl.kerberos.service.name"] == "kfk"
    assert kerberos.properties["sasl.jaas.config"] == (
        f'com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true storeKey=true keyTab="{keytab}" '
        'principal="app@EXAMPLE.COM";')
    assert kerberos.properties["security.protocol"] == "SASL_PLAINTEXT"


def test_spark_s_missing_kafka_source_is_explained() -> None:
    from glueball import jvm

    assert jvm.explain(RuntimeError("[DATA_SOURCE_NOT_FOUND] Failed to find the data source: avro.")) is None
    assert jvm.explain(RuntimeError("Table or view not found: kafka")) is None
    # the jars are in this machine's cache: the session that failed was started without them
    jvm.jars("kafka")
    found = jvm.explain(RuntimeError("Failed to find data source: kafka. Please deploy the application as per ..."))
    assert isinstance(found, jvm.JarsUnavailable)
    assert "glueball's 'kafka' feature" in str(found) and "this Spark session was started without them" in str(found)
