"""The Confluent Schema Registry REST surface: confluent-kafka's client and serializers against `glueball server`."""

from __future__ import annotations

import json
from typing import Any

import boto3
import pytest
import urllib3
from confluent_kafka.schema_registry import Schema, SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.schema_registry.error import SchemaRegistryError
from confluent_kafka.schema_registry.json_schema import JSONDeserializer, JSONSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

from tests.helpers import ServerProcess, unique

V1 = json.dumps({"type": "record", "name": "Payment", "fields": [{"name": "id", "type": "long"},
                                                                {"name": "amount", "type": "double"}]})
V2 = json.dumps({"type": "record", "name": "Payment", "fields": [
    {"name": "id", "type": "long"}, {"name": "amount", "type": "double"},
    {"name": "currency", "type": "string", "default": "EUR"}]})
BREAKING = json.dumps({"type": "record", "name": "Payment", "fields": [
    {"name": "id", "type": "long"}, {"name": "amount", "type": "double"}, {"name": "card", "type": "string"}]})


def _client(server: ServerProcess, registry: str | None = None) -> SchemaRegistryClient:
    path = f"/_confluent/registries/{registry}" if registry else "/_confluent"
    return SchemaRegistryClient({"url": server.endpoint + path})


def _raw(server: ServerProcess, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    response = urllib3.PoolManager().request(
        method, f"{server.endpoint}/_confluent{path}", body=None if body is None else json.dumps(body).encode(),
        headers={"Content-Type": "application/vnd.schemaregistry.v1+json"})
    return response.status, json.loads(response.data) if response.data else None


def test_avro_serializer_round_trip(server: ServerProcess, glue: Any) -> None:
    client = _client(server)
    topic = unique("payments").replace("_", "-")
    context = SerializationContext(topic, MessageField.VALUE)
    serializer = AvroSerializer(client, V1)
    data = serializer({"id": 7, "amount": 9.5}, context)
    assert data[0] == 0, "Confluent's framing: magic byte 0, then the schema id"
    schema_id = int.from_bytes(data[1:5], "big")
    assert AvroDeserializer(client)(data, context) == {"id": 7, "amount": 9.5}
    # the subject is a Glue schema in default-registry, and the id names its version
    subject = f"{topic}-value"
    glue_schema = glue.get_schema(SchemaId={"RegistryName": "default-registry", "SchemaName": subject})
    assert (glue_schema["DataFormat"], glue_schema["LatestSchemaVersion"]) == ("AVRO", 1)
    assert client.get_schema(schema_id).schema_str == V1
    newer = AvroSerializer(client, V2)({"id": 8, "amount": 1.0, "currency": "USD"}, context)
    assert AvroDeserializer(client, V2)(data, context) == {"id": 7, "amount": 9.5, "currency": "EUR"}
    assert AvroDeserializer(client)(newer, context) == {"id": 8, "amount": 1.0, "currency": "USD"}
    assert client.get_versions(subject) == [1, 2]
    latest = client.get_latest_version(subject)
    assert (latest.version, latest.schema_id, latest.schema.schema_str) == (2, int.from_bytes(newer[1:5], "big"), V2)
    assert subject in client.get_subjects()
    assert client.lookup_schema(subject, Schema(V1, "AVRO")).version == 1
    # a version Glue registers is a Confluent version too
    glue.register_schema_version(SchemaId={"RegistryName": "default-registry", "SchemaName": subject},
                                 SchemaDefinition=json.dumps({**json.loads(V2), "fields": [
                                     *json.loads(V2)["fields"], {"name": "note", "type": "string", "default": ""}]}))
    assert client.get_versions(subject) == [1, 2, 3]


def test_compatibility_config_and_refusals(server: ServerProcess) -> None:
    client = _client(server)
    subject = unique("orders")
    client.register_schema(subject, Schema(V1, "AVRO"))
    assert client.get_compatibility(subject) == "BACKWARD"
    assert client.test_compatibility(subject, Schema(V2, "AVRO")) is True
    assert client.test_compatibility(subject, Schema(BREAKING, "AVRO")) is False
    with pytest.raises(SchemaRegistryError) as excinfo:
        client.register_schema(subject, Schema(BREAKING, "AVRO"))
    assert (excinfo.value.http_status_code, excinfo.value.error_code) == (409, 409)
    assert "card" in excinfo.value.error_message, "the reason names the field"
    assert client.get_versions(subject) == [1], "a refused schema leaves no version"
    assert client.set_compatibility(subject, "NONE") == {"compatibility": "NONE"}
    assert client.register_schema(subject, Schema(BREAKING, "AVRO")) > 0
    client.set_compatibility(subject, "FULL_TRANSITIVE")
    assert client.get_compatibility(subject) == "FULL_TRANSITIVE"
    status, answer = _raw(server, "POST", f"/compatibility/subjects/{subject}/versions/latest?verbose=true",
                          {"schema": V1})
    assert status == 200 and answer["is_compatible"] is False and answer["messages"]
    with pytest.raises(SchemaRegistryError) as excinfo:
        client.set_compatibility(subject, "SIDEWAYS")
    assert excinfo.value.error_code == 42203
    with pytest.raises(SchemaRegistryError) as excinfo:
        client.set_compatibility(None, "NONE")
    assert excinfo.value.error_code == 42203
    assert client.get_compatibility() == "BACKWARD"


def test_json_schema_serializer_round_trip(server: ServerProcess) -> None:
    client = _client(server)
    definition = json.dumps({"type": "object", "title": "Event",
                             "properties": {"id": {"type": "integer"}, "name": {"type": "string"}}})
    context = SerializationContext(unique("events"), MessageField.VALUE)
    data = JSONSerializer(definition, client)({"id": 1, "name": "a"}, context)
    assert JSONDeserializer(definition, schema_registry_client=client)(data, context) == {"id": 1, "name": "a"}
    status, schema = _raw(server, "GET", f"/schemas/ids/{int.from_bytes(data[1:5], 'big')}")
    assert status == 200 and schema["schemaType"] == "JSON" and json.loads(schema["schema"])["title"] == "Event"


def test_subjects_in_a_named_registry_and_deletion(server: ServerProcess, glue: Any) -> None:
    registry = unique("confluent")
    glue.create_registry(RegistryName=registry)
    client = _client(server, registry)
    first = client.register_schema("prices", Schema(V1, "AVRO"))
    client.register_schema("prices", Schema(V2, "AVRO"))
    assert glue.get_schema(SchemaId={"RegistryName": registry, "SchemaName": "prices"})["LatestSchemaVersion"] == 2
    assert client.get_subjects() == ["prices"]
    assert client.delete_version("prices", 1) == 1
    assert client.get_versions("prices") == [2]
    with pytest.raises(SchemaRegistryError) as excinfo:
        client.get_schema(first)
    assert (excinfo.value.http_status_code, excinfo.value.error_code) == (404, 40403)
    assert client.delete_subject("prices") == [2]
    assert client.get_subjects() == []
    with pytest.raises(SchemaRegistryError) as excinfo:
        _client(server, unique("absent")).register_schema("x", Schema(V1, "AVRO"))
    assert excinfo.value.error_code == 40401


@pytest.mark.parametrize(("method", "path", "body", "status", "code"), [
    ("GET", "/subjects/nope-nope/versions", None, 404, 40401),
    ("GET", "/subjects/nope-nope/versions/1", None, 404, 40401),
    ("GET", "/schemas/ids/999999", None, 404, 40403),
    ("GET", "/schemas/ids/abc", None, 404, 40403),
    ("GET", "/schemas/ids/99999999999999999999", None, 404, 40403),
    ("POST", "/subjects/s-notjson/versions", [1, 2], 422, 42201),
    ("POST", "/subjects/s-invalid/versions", {"schema": '{"type": "record", "name": "R"}'}, 422, 42201),
    ("POST", "/subjects/s-refs/versions", {"schema": '"string"', "references": [{"name": "x"}]}, 422, 42201),
    ("POST", "/subjects/s-kind/versions", {"schema": "{}", "schemaType": "XML"}, 422, 42201),
    ("POST", "/subjects/s-nobody/versions", {"nothing": 1}, 422, 42201),
    ("PATCH", "/subjects", None, 404, 404),
    ("GET", "/not/a/route", None, 404, 404),
])
def test_confluent_errors(server: ServerProcess, method: str, path: str, body: Any, status: int, code: int) -> None:
    answered, error = _raw(server, method, path, body)
    assert (answered, error["error_code"]) == (status, code) and error["message"]


def test_an_unreadable_body(server: ServerProcess) -> None:
    response = urllib3.PoolManager().request("POST", f"{server.endpoint}/_confluent/subjects/x/versions",
                                             body=b"{broken", headers={"Content-Type": "application/json"})
    error = json.loads(response.data)
    assert response.status == 400 and error["error_code"] == 400
    assert "not valid JSON" in error["message"]


def test_versions_and_lookups_by_path(server: ServerProcess) -> None:
    subject = unique("lookups")
    status, registered = _raw(server, "POST", f"/subjects/{subject}/versions", {"schema": V1})
    assert status == 200 and (registered["subject"], registered["version"]) == (subject, 1)
    assert _raw(server, "GET", f"/subjects/{subject}/versions/latest")[1]["id"] == registered["id"]
    raw = urllib3.PoolManager().request("GET", f"{server.endpoint}/_confluent/subjects/{subject}/versions/1/schema")
    assert json.loads(raw.data) == json.loads(V1)
    assert _raw(server, "GET", f"/schemas/ids/{registered['id']}/versions")[1] == [{"subject": subject, "version": 1}]
    assert _raw(server, "GET", "/schemas/types")[1] == ["AVRO", "JSON", "PROTOBUF"]
    status, error = _raw(server, "POST", f"/subjects/{subject}", {"schema": V2})
    assert (status, error["error_code"]) == (404, 40403)
    assert _raw(server, "GET", f"/subjects/{subject}/versions/0")[1]["error_code"] == 42202
    assert _raw(server, "GET", f"/subjects/{subject}/versions/5")[1]["error_code"] == 40402
    assert _raw(server, "GET", f"/subjects/{subject}/versions/99999999999999999999")[1]["error_code"] == 42202


def test_basic_authentication_with_identity_enforced(tmp_path: Any) -> None:
    import configparser

    server = ServerProcess(tmp_path, extra_args=("--auth", "iam")).start()
    try:
        profile = configparser.ConfigParser()
        profile.read(tmp_path / "credentials")
        key, secret = profile["glueball"]["aws_access_key_id"], profile["glueball"]["aws_secret_access_key"]
        url = server.endpoint + "/_confluent"
        with pytest.raises(SchemaRegistryError) as excinfo:
            SchemaRegistryClient({"url": url}).get_subjects()
        assert (excinfo.value.http_status_code, excinfo.value.error_code) == (401, 40101)
        with pytest.raises(SchemaRegistryError) as excinfo:
            SchemaRegistryClient({"url": url, "basic.auth.user.info": f"{key}:wrong"}).get_subjects()
        assert (excinfo.value.http_status_code, excinfo.value.error_code) == (401, 40101)
        client = SchemaRegistryClient({"url": url, "basic.auth.user.info": f"{key}:{secret}"})
        assert client.register_schema("secured", Schema(V1, "AVRO")) > 0
        assert client.get_subjects() == ["secured"]
        # a user may do what its policy allows of the Glue operations a route amounts to
        iam = boto3.client("iam", endpoint_url=server.endpoint, region_name="us-east-1", aws_access_key_id=key,
                           aws_secret_access_key=secret)
        iam.create_user(UserName="reader")
        iam.put_user_policy(UserName="reader", PolicyName="read-schemas", PolicyDocument=json.dumps({
            "Version": "2012-10-17", "Statement": [{
                "Effect": "Allow", "Action": ["glue:GetSchemaVersion", "glue:ListSchemaVersions"],
                "Resource": ["arn:aws:glue:us-east-1:*:registry/default-registry",
                             "arn:aws:glue:us-east-1:*:schema/default-registry/secured"]}]}))
        reader_key = iam.create_access_key(UserName="reader")["AccessKey"]
        reader = SchemaRegistryClient({"url": url, "basic.auth.user.info":
                                       f"{reader_key['AccessKeyId']}:{reader_key['SecretAccessKey']}"})
        assert reader.get_latest_version("secured").version == 1
        with pytest.raises(SchemaRegistryError) as excinfo:
            reader.register_schema("secured", Schema(V2, "AVRO"))
        assert (excinfo.value.http_status_code, excinfo.value.error_code) == (403, 40301)
        assert "glue:RegisterSchemaVersion" in excinfo.value.error_message
    finally:
        server.stop()


def test_protobuf_serializer_round_trip(server: ServerProcess, glue: Any) -> None:
    from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer, ProtobufSerializer

    from glueball.registry.serde import message_types

    proto = ('syntax = "proto3";\npackage shop;\nmessage Order {\n  int64 id = 1;\n  repeated string tags = 2;\n'
             '  Line line = 3;\n  map<string, int32> counts = 4;\n  oneof pay { string card = 5; int64 cash = 6; }\n'
             '  message Line { int32 qty = 1; }\n}\n')
    order_type = message_types(proto)[0]
    client = _client(server)
    topic = unique("orders").replace("_", "-")
    context = SerializationContext(topic, MessageField.VALUE)
    message = order_type(id=3, tags=["x"], line={"qty": 2}, counts={"a": 1}, cash=5)
    data = ProtobufSerializer(order_type, client, {"use.deprecated.format": False})(message, context)
    assert ProtobufDeserializer(order_type, {"use.deprecated.format": False})(data, context) == message
    # the registry keeps it as .proto text, the same definition as the source (canonically)
    stored = glue.get_schema_by_definition(SchemaId={"SchemaName": f"{topic}-value"}, SchemaDefinition=proto)
    assert stored["Status"] == "AVAILABLE" and stored["DataFormat"] == "PROTOBUF"
