"""The Glue Schema Registry wire format: framing, and the SerDe against `glueball server` through boto3."""

from __future__ import annotations

import json
import uuid
import zlib
from typing import Any

import pytest

from glueball.registry.serde import (
    Deserializer,
    SerDeError,
    Serializer,
    UnknownSchemaVersion,
    frame,
    is_framed,
    unframe,
)
from tests.helpers import unique

V1 = json.dumps({"type": "record", "name": "Order", "fields": [{"name": "id", "type": "long"},
                                                              {"name": "item", "type": "string"}]})
V2 = json.dumps({"type": "record", "name": "Order", "fields": [
    {"name": "id", "type": "long"}, {"name": "item", "type": "string"},
    {"name": "qty", "type": "int", "default": 1}]})


def test_frame_layout() -> None:
    version = str(uuid.uuid4())
    framed = frame(version, b"payload")
    assert framed[0] == 3 and framed[1] == 0 and framed[2:18] == uuid.UUID(version).bytes
    assert framed[18:] == b"payload"
    packed = frame(version, b"payload" * 50, compress=True)
    assert packed[1] == 5 and zlib.decompress(packed[18:]) == b"payload" * 50
    assert unframe(packed).payload == b"payload" * 50 and unframe(packed).version_id == version
    assert is_framed(framed) and not is_framed(b'{"id": 1}') and not is_framed(framed[:17])


@pytest.mark.parametrize(("data", "message"), [
    (b"\x03\x00short", "at least 18 bytes"),
    (b"\x02\x00" + bytes(16) + b"x", "Header version byte 2 is not 3"),
    (b"\x03\x07" + bytes(16) + b"x", "Compression byte 7 is neither 0 (none) nor 5 (zlib)"),
    (b"\x03\x05" + bytes(16) + b"not zlib", "does not inflate"),
])
def test_malformed_frames(data: bytes, message: str) -> None:
    with pytest.raises(SerDeError, match=message.replace("(", r"\(").replace(")", r"\)")):
        unframe(data)


def test_round_trip_with_auto_registration_and_evolution(glue: Any) -> None:
    registry = unique("serde")
    glue.create_registry(RegistryName=registry)
    writer = Serializer(glue, "orders", V1, registry_name=registry, auto_register=True)
    framed = writer.serialize({"id": 1, "item": "tea"})
    schema = glue.get_schema(SchemaId={"RegistryName": registry, "SchemaName": "orders"})
    assert schema["LatestSchemaVersion"] == 1, "the schema was created with the first record"
    assert unframe(framed).version_id == writer.version_id
    reader = Deserializer(glue)
    assert reader.deserialize(framed) == {"id": 1, "item": "tea"}
    newer = Serializer(glue, "orders", V2, registry_name=registry, auto_register=True, compress=True)
    framed2 = newer.serialize({"id": 2, "item": "milk", "qty": 3})
    assert framed2[1] == 5 and newer.version_id != writer.version_id
    assert reader.deserialize(framed2) == {"id": 2, "item": "milk", "qty": 3}
    # a consumer reading with v2 sees v1's records with the default
    assert Deserializer(glue, reader=V2).deserialize(framed) == {"id": 1, "item": "tea", "qty": 1}
    # a known definition is found, not registered again
    assert Serializer(glue, "orders", V1, registry_name=registry).version_id == writer.version_id


def test_serializer_refusals(glue: Any) -> None:
    registry = unique("serde")
    glue.create_registry(RegistryName=registry)
    with pytest.raises(SerDeError, match="has no AVAILABLE version of this definition"):
        Serializer(glue, "absent", V1, registry_name=registry).serialize({"id": 1, "item": "x"})
    Serializer(glue, "orders", V1, registry_name=registry, auto_register=True).serialize({"id": 1, "item": "x"})
    breaking = json.dumps({"type": "record", "name": "Order", "fields": [
        {"name": "id", "type": "long"}, {"name": "item", "type": "string"}, {"name": "must", "type": "string"}]})
    with pytest.raises(SerDeError, match=r"version 2 is FAILURE: .*must.* \(compatibility BACKWARD\)"):
        Serializer(glue, "orders", breaking, registry_name=registry, auto_register=True).serialize(
            {"id": 1, "item": "x", "must": "y"})
    with pytest.raises(SerDeError, match="Data format 'XML'"):
        Serializer(glue, "orders", "<x/>", data_format="XML")


def test_json_records_and_unknown_versions(glue: Any) -> None:
    registry = unique("serde")
    glue.create_registry(RegistryName=registry)
    definition = json.dumps({"type": "object", "properties": {"id": {"type": "integer"}}})
    writer = Serializer(glue, "events", definition, data_format="JSON", registry_name=registry, auto_register=True)
    framed = writer.serialize({"id": 7})
    assert framed[18:] == b'{"id":7}'
    reader = Deserializer(glue)
    assert reader.deserialize(framed) == {"id": 7}
    stranger = frame(str(uuid.uuid4()), b"{}")
    with pytest.raises(UnknownSchemaVersion, match="is not in the registry"):
        reader.deserialize(stranger)
    with pytest.raises(SerDeError, match="does not decode"):
        reader.deserialize(frame(writer.version_id, b"{broken"))


PROTO = """syntax = "proto3";
package shop;
message Order {
  int64 id = 1;
  string item = 2;
  repeated string tags = 3;
  Status status = 4;
  Line line = 5;
  map<string, int32> counts = 6;
  message Line { int32 qty = 1; }
}
enum Status { NEW = 0; PAID = 1; }
message Refund { int64 order_id = 1; }
"""


def test_protobuf_records(glue: Any) -> None:
    from glueball.registry.serde import message_types

    registry = unique("serde")
    glue.create_registry(RegistryName=registry)
    writer = Serializer(glue, "orders", PROTO, data_format="PROTOBUF", registry_name=registry, auto_register=True)
    record = {"id": "5", "item": "tea", "tags": ["hot"], "status": "PAID", "line": {"qty": 2}, "counts": {"a": 1}}
    framed = writer.serialize(record)
    assert framed[18] == 0, "the payload starts with the message's index among the file's message types"
    assert Deserializer(glue).deserialize(framed) == {"id": 5, "item": "tea", "tags": ["hot"], "status": "PAID",
                                                      "line": {"qty": 2}, "counts": {"a": 1}}
    types = {t.DESCRIPTOR.full_name: t for t in message_types(PROTO)}
    assert list(types) == ["shop.Order", "shop.Order.Line", "shop.Refund"], "depth first, nested types included"
    refund = writer.serialize(types["shop.Refund"](order_id=9))
    assert refund[18] == 2
    assert Deserializer(glue).deserialize(refund) == {"order_id": 9}
    with pytest.raises(SerDeError, match="Message index 7"):
        Deserializer(glue).deserialize(frame(writer.version_id, b"\x07"))
