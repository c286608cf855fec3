"""Catalog tables whose StorageDescriptor has a SchemaReference: GetTable answers the referenced version's columns."""

from __future__ import annotations

import json
from typing import Any

import pytest
from botocore.exceptions import ClientError

from glueball.registry.columns import columns_of
from tests.helpers import error_of, unique

V1 = json.dumps({"type": "record", "name": "R", "fields": [
    {"name": "id", "type": "long"}, {"name": "tags", "type": {"type": "array", "items": "string"}},
    {"name": "maybe", "type": ["null", "double"], "default": None},
    {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
    {"name": "kind", "type": {"type": "enum", "name": "Kind", "symbols": ["A", "B"]}},
    {"name": "inner", "type": {"type": "record", "name": "Inner", "fields": [{"name": "x", "type": "int"}]}},
    {"name": "props", "type": {"type": "map", "values": "bytes"}}]})
V2 = json.dumps({**json.loads(V1), "fields": [*json.loads(V1)["fields"],
                                              {"name": "note", "type": "string", "default": ""}]})


def _table(glue: Any, database: str, name: str, reference: dict[str, Any]) -> None:
    glue.create_table(DatabaseName=database, TableInput={
        "Name": name, "StorageDescriptor": {"Columns": [], "SchemaReference": reference}})


def _columns(glue: Any, database: str, name: str) -> list[tuple[str, str]]:
    table = glue.get_table(DatabaseName=database, Name=name)["Table"]
    return [(c["Name"], c["Type"]) for c in table["StorageDescriptor"]["Columns"]]


def test_tables_follow_their_schema_reference(glue: Any) -> None:
    registry = unique("reg")
    glue.create_registry(RegistryName=registry)
    created = glue.create_schema(RegistryId={"RegistryName": registry}, SchemaName="events", DataFormat="AVRO",
                                 SchemaDefinition=V1)
    database = unique("db")
    glue.create_database(DatabaseInput={"Name": database})
    schema_id = {"RegistryName": registry, "SchemaName": "events"}
    _table(glue, database, "latest", {"SchemaId": schema_id})
    _table(glue, database, "pinned", {"SchemaId": {"SchemaArn": created["SchemaArn"]}, "SchemaVersionNumber": 1})
    _table(glue, database, "by_id", {"SchemaVersionId": created["SchemaVersionId"]})
    expected = [("id", "bigint"), ("tags", "array<string>"), ("maybe", "double"), ("at", "timestamp"),
                ("kind", "string"), ("inner", "struct<x:int>"), ("props", "map<string,binary>")]
    for name in ("latest", "pinned", "by_id"):
        assert _columns(glue, database, name) == expected
    glue.register_schema_version(SchemaId=schema_id, SchemaDefinition=V2)
    assert _columns(glue, database, "latest") == [*expected, ("note", "string")], "the latest version's columns"
    assert _columns(glue, database, "pinned") == expected and _columns(glue, database, "by_id") == expected
    listed = {t["Name"]: [c["Name"] for c in t["StorageDescriptor"]["Columns"]]
              for t in glue.get_tables(DatabaseName=database)["TableList"]}
    assert listed["latest"][-1] == "note" and listed["pinned"][-1] == "props"
    stored = glue.get_table(DatabaseName=database, Name="latest")["Table"]["StorageDescriptor"]["SchemaReference"]
    assert stored == {"SchemaId": schema_id}, "the reference itself is kept as given"


def test_a_reference_must_resolve(glue: Any) -> None:
    database = unique("db")
    glue.create_database(DatabaseInput={"Name": database})
    with pytest.raises(ClientError) as excinfo:
        _table(glue, database, "t", {"SchemaId": {"RegistryName": unique("none"), "SchemaName": "x"}})
    assert error_of(excinfo)[0] == "EntityNotFoundException"
    with pytest.raises(ClientError) as excinfo:
        _table(glue, database, "t", {"SchemaVersionNumber": 2})
    assert error_of(excinfo) == ("InvalidInputException", "SchemaReference needs SchemaId (with an optional "
                                                          "SchemaVersionNumber) or SchemaVersionId")
    with pytest.raises(ClientError) as excinfo:  # nothing was created
        glue.get_table(DatabaseName=database, Name="t")
    assert error_of(excinfo)[0] == "EntityNotFoundException"
    registry = unique("reg")
    glue.create_registry(RegistryName=registry)
    glue.create_schema(RegistryId={"RegistryName": registry}, SchemaName="scalar", DataFormat="AVRO",
                       SchemaDefinition='"string"')
    with pytest.raises(ClientError) as excinfo:
        _table(glue, database, "t", {"SchemaId": {"RegistryName": registry, "SchemaName": "scalar"}})
    assert error_of(excinfo)[0] == "InvalidInputException" and "not a record" in error_of(excinfo)[1]


def test_json_schema_columns() -> None:
    definition = json.dumps({"type": "object", "$defs": {"point": {"type": "object", "properties": {
        "x": {"type": "number"}}}}, "properties": {
        "id": {"type": "integer"}, "name": {"type": ["string", "null"]}, "ok": {"type": "boolean"},
        "at": {"$ref": "#/$defs/point"}, "list": {"type": "array", "items": {"type": "integer"}},
        "free": {"type": "object"}}})
    assert columns_of("JSON", definition) == [
        {"Name": "id", "Type": "bigint"}, {"Name": "name", "Type": "string"}, {"Name": "ok", "Type": "boolean"},
        {"Name": "at", "Type": "struct<x:double>"}, {"Name": "list", "Type": "array<bigint>"},
        {"Name": "free", "Type": "map<string,string>"}]
    with pytest.raises(ValueError, match="no properties"):
        columns_of("JSON", '{"type": "string"}')


def test_protobuf_columns() -> None:
    definition = """syntax = "proto3";
message Reading {
  int32 a = 1; int64 b = 2; uint64 c = 3; bool d = 4; double e = 5; bytes f = 6;
  repeated string g = 7; Kind h = 8; Point i = 9; map<string, int64> j = 10;
  message Point { float x = 1; }
  enum Kind { K0 = 0; }
}
"""
    assert [(c["Name"], c["Type"]) for c in columns_of("PROTOBUF", definition)] == [
        ("a", "int"), ("b", "bigint"), ("c", "decimal(20,0)"), ("d", "boolean"), ("e", "double"), ("f", "binary"),
        ("g", "array<string>"), ("h", "string"), ("i", "struct<x:float>"), ("j", "map<string,bigint>")]
