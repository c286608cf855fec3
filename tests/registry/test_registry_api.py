"""The schema registry through boto3 against `glueball server`: every operation, its shapes and its errors."""

from __future__ import annotations

import json
from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.helpers import ServerProcess, error_of, unique

PREFIX = "arn:aws:glue:us-east-1:123456789012"
BAD_AVRO = '{"type": "record", "name": "R", "fields": [{"name": "a", "type": "nope"}]}'


def avro(*fields: dict[str, Any], name: str = "Event") -> str:
    return json.dumps({"type": "record", "name": name, "fields": [{"name": "id", "type": "long"}, *fields]})


def fails(excinfo: Any) -> tuple[str, str]:
    return error_of(excinfo)


def schema_in(glue: Any, compatibility: str = "BACKWARD", definition: str | None = None,
              data_format: str = "AVRO") -> dict[str, Any]:
    registry = unique("reg")
    glue.create_registry(RegistryName=registry)
    return glue.create_schema(RegistryId={"RegistryName": registry}, SchemaName=unique("schema"),
                              DataFormat=data_format, Compatibility=compatibility,
                              SchemaDefinition=definition or avro())


# -- registries -----------------------------------------------------------------------------------

def test_registry_lifecycle(glue: Any) -> None:
    name = unique("Registry")
    created = glue.create_registry(RegistryName=name, Description="orders", Tags={"team": "data"})
    arn = f"{PREFIX}:registry/{name}"
    assert {k: created[k] for k in ("RegistryName", "RegistryArn", "Description", "Tags")} == {
        "RegistryName": name, "RegistryArn": arn, "Description": "orders", "Tags": {"team": "data"}}
    by_name = glue.get_registry(RegistryId={"RegistryName": name})
    by_arn = glue.get_registry(RegistryId={"RegistryArn": arn})
    for got in (by_name, by_arn):
        assert (got["RegistryName"], got["RegistryArn"], got["Description"], got["Status"]) == (
            name, arn, "orders", "AVAILABLE")
        assert got["CreatedTime"].endswith("Z") and got["UpdatedTime"] >= got["CreatedTime"]
    assert glue.get_tags(ResourceArn=arn)["Tags"] == {"team": "data"}
    updated = glue.update_registry(RegistryId={"RegistryArn": arn}, Description="all orders")
    assert (updated["RegistryName"], updated["RegistryArn"]) == (name, arn)
    assert glue.get_registry(RegistryId={"RegistryName": name})["Description"] == "all orders"
    glue.create_schema(RegistryId={"RegistryName": name}, SchemaName="inside", DataFormat="AVRO",
                       SchemaDefinition=avro())
    deleted = glue.delete_registry(RegistryId={"RegistryName": name})
    assert (deleted["RegistryName"], deleted["RegistryArn"], deleted["Status"]) == (name, arn, "DELETING")
    with pytest.raises(ClientError) as excinfo:
        glue.get_registry(RegistryId={"RegistryName": name})
    assert fails(excinfo) == ("EntityNotFoundException", f"Registry is not found. RegistryName: {name}")
    with pytest.raises(ClientError) as excinfo:  # its schemas went with it
        glue.get_schema(SchemaId={"RegistryName": name, "SchemaName": "inside"})
    assert fails(excinfo)[0] == "EntityNotFoundException"
    with pytest.raises(ClientError) as excinfo:  # and its tags
        glue.get_tags(ResourceArn=arn)
    assert fails(excinfo)[0] == "EntityNotFoundException"


def test_registry_errors(glue: Any) -> None:
    name = unique("reg")
    glue.create_registry(RegistryName=name)
    with pytest.raises(ClientError) as excinfo:
        glue.create_registry(RegistryName=name)
    assert fails(excinfo) == ("AlreadyExistsException", f"Registry already exists. RegistryName: {name}")
    with pytest.raises(ClientError) as excinfo:
        glue.get_registry(RegistryId={"RegistryName": name, "RegistryArn": f"{PREFIX}:registry/{name}"})
    assert fails(excinfo) == ("InvalidInputException",
                              "One of registryName or registryArn has to be provided, both cannot be provided.")
    with pytest.raises(ClientError) as excinfo:
        glue.get_registry(RegistryId={})
    assert fails(excinfo) == ("InvalidInputException", "One of registryName or registryArn has to be provided.")
    with pytest.raises(ClientError) as excinfo:
        glue.get_registry(RegistryId={"RegistryArn": f"{PREFIX}:database/{name}"})
    assert fails(excinfo)[0] == "InvalidInputException" and "is not a Glue registry ARN" in fails(excinfo)[1]
    with pytest.raises(ClientError) as excinfo:
        glue.get_registry(RegistryId={"RegistryArn": f"arn:aws:glue:us-east-1:999999999999:registry/{name}"})
    assert fails(excinfo)[0] == "AccessDeniedException"
    for call in (lambda: glue.update_registry(RegistryId={"RegistryName": "nope-" + name}, Description="x"),
                 lambda: glue.delete_registry(RegistryId={"RegistryName": "nope-" + name}),
                 lambda: glue.list_schemas(RegistryId={"RegistryName": "nope-" + name})):
        with pytest.raises(ClientError) as excinfo:
            call()
        assert fails(excinfo) == ("EntityNotFoundException", f"Registry is not found. RegistryName: nope-{name}")
    with pytest.raises(ClientError) as excinfo:  # the model's pattern
        glue.create_registry(RegistryName="no spaces")
    assert fails(excinfo)[0] == "ValidationException"


def test_list_registries_pages(server: ServerProcess) -> None:
    glue = server.client(region="eu-south-2")  # a region of its own: the listing is exactly ours
    names = sorted(unique("page") for _ in range(5))
    for name in names:
        glue.create_registry(RegistryName=name)
    first = glue.list_registries(MaxResults=2)
    assert [r["RegistryName"] for r in first["Registries"]] == names[:2]
    assert first["Registries"][0]["Status"] == "AVAILABLE" and "NextToken" in first
    rest = glue.get_paginator("list_registries").paginate(PaginationConfig={"PageSize": 2})
    assert [r["RegistryName"] for page in rest for r in page["Registries"]] == names
    with pytest.raises(ClientError) as excinfo:
        glue.list_registries(NextToken="garbage")
    assert fails(excinfo)[0] == "InvalidInputException"


def test_registry_quota(server: ServerProcess) -> None:
    glue = server.client(region="ap-southeast-4")
    for index in range(100):
        glue.create_registry(RegistryName=f"quota-{index:03d}")
    with pytest.raises(ClientError) as excinfo:
        glue.create_registry(RegistryName="quota-100")
    assert fails(excinfo)[0] == "ResourceNumberLimitExceededException" and "100" in fails(excinfo)[1]


# -- schemas --------------------------------------------------------------------------------------

def test_schema_in_the_default_registry(server: ServerProcess) -> None:
    glue = server.client(region="sa-east-1")
    with pytest.raises(ClientError):
        glue.get_registry(RegistryId={"RegistryName": "default-registry"})
    created = glue.create_schema(SchemaName="first", DataFormat="AVRO", SchemaDefinition=avro())
    arn = "arn:aws:glue:sa-east-1:123456789012:schema/default-registry/first"
    assert {k: v for k, v in created.items() if k not in ("ResponseMetadata", "SchemaVersionId")} == {
        "RegistryName": "default-registry",
        "RegistryArn": "arn:aws:glue:sa-east-1:123456789012:registry/default-registry",
        "SchemaName": "first", "SchemaArn": arn, "DataFormat": "AVRO", "Compatibility": "BACKWARD",
        "SchemaCheckpoint": 1, "LatestSchemaVersion": 1, "NextSchemaVersion": 2, "SchemaStatus": "AVAILABLE",
        "Tags": {}, "SchemaVersionStatus": "AVAILABLE"}
    assert glue.get_registry(RegistryId={"RegistryName": "default-registry"})["Status"] == "AVAILABLE"
    # a SchemaId without a registry name is in default-registry
    assert glue.get_schema(SchemaId={"SchemaName": "first"})["SchemaArn"] == arn


def test_schema_lifecycle(glue: Any) -> None:
    registry = unique("reg")
    glue.create_registry(RegistryName=registry)
    created = glue.create_schema(RegistryId={"RegistryName": registry}, SchemaName="orders", DataFormat="JSON",
                                 Compatibility="FORWARD", Description="order events", Tags={"k": "v"},
                                 SchemaDefinition='{"type": "object", "properties": {"id": {"type": "integer"}}}')
    arn = f"{PREFIX}:schema/{registry}/orders"
    assert created["SchemaArn"] == arn and created["Tags"] == {"k": "v"}
    got = glue.get_schema(SchemaId={"SchemaArn": arn})
    assert {k: got[k] for k in ("RegistryName", "SchemaName", "Description", "DataFormat", "Compatibility",
                                "SchemaCheckpoint", "LatestSchemaVersion", "NextSchemaVersion", "SchemaStatus")} == {
        "RegistryName": registry, "SchemaName": "orders", "Description": "order events", "DataFormat": "JSON",
        "Compatibility": "FORWARD", "SchemaCheckpoint": 1, "LatestSchemaVersion": 1, "NextSchemaVersion": 2,
        "SchemaStatus": "AVAILABLE"}
    assert glue.get_schema(SchemaId={"RegistryName": registry, "SchemaName": "orders"})["SchemaArn"] == arn
    assert glue.get_tags(ResourceArn=arn)["Tags"] == {"k": "v"}
    glue.tag_resource(ResourceArn=arn, TagsToAdd={"more": "1"})
    assert glue.get_tags(ResourceArn=arn)["Tags"] == {"k": "v", "more": "1"}
    assert glue.update_schema(SchemaId={"SchemaArn": arn}, Description="new")["SchemaName"] == "orders"
    assert glue.get_schema(SchemaId={"SchemaArn": arn})["Description"] == "new"
    updated = glue.update_schema(SchemaId={"SchemaArn": arn}, Compatibility="NONE",
                                 SchemaVersionNumber={"LatestVersion": True})
    assert (updated["SchemaArn"], updated["SchemaName"], updated["RegistryName"]) == (arn, "orders", registry)
    assert glue.get_schema(SchemaId={"SchemaArn": arn})["Compatibility"] == "NONE"
    deleted = glue.delete_schema(SchemaId={"SchemaArn": arn})
    assert (deleted["SchemaArn"], deleted["SchemaName"], deleted["Status"]) == (arn, "orders", "DELETING")
    for call in (lambda: glue.get_schema(SchemaId={"SchemaArn": arn}), lambda: glue.get_tags(ResourceArn=arn)):
        with pytest.raises(ClientError) as excinfo:
            call()
        assert fails(excinfo)[0] == "EntityNotFoundException"


def test_schema_errors(glue: Any) -> None:
    created = schema_in(glue)
    arn, registry, name = created["SchemaArn"], created["RegistryName"], created["SchemaName"]
    with pytest.raises(ClientError) as excinfo:
        glue.create_schema(RegistryId={"RegistryName": registry}, SchemaName=name, DataFormat="AVRO",
                           SchemaDefinition=avro())
    assert fails(excinfo) == ("AlreadyExistsException", f"Schema already exists. SchemaName: {name}")
    with pytest.raises(ClientError) as excinfo:
        glue.create_schema(RegistryId={"RegistryName": "nope-" + registry}, SchemaName="x", DataFormat="AVRO",
                           SchemaDefinition=avro())
    assert fails(excinfo) == ("EntityNotFoundException", f"Registry is not found. RegistryName: nope-{registry}")
    with pytest.raises(ClientError) as excinfo:
        glue.create_schema(RegistryId={"RegistryName": registry}, SchemaName="nodef", DataFormat="AVRO")
    assert fails(excinfo) == ("InvalidInputException", "SchemaDefinition is required to create a schema")
    with pytest.raises(ClientError) as excinfo:
        glue.create_schema(RegistryId={"RegistryName": registry}, SchemaName="bad", DataFormat="AVRO",
                           SchemaDefinition=BAD_AVRO)
    code, message = fails(excinfo)
    assert code == "InvalidInputException" and message.startswith("Schema definition of AVRO data format is invalid: ")
    assert "nope" in message, "the parser's message names what is wrong"
    with pytest.raises(ClientError) as excinfo:  # nothing half-made
        glue.get_schema(SchemaId={"RegistryName": registry, "SchemaName": "bad"})
    assert fails(excinfo)[0] == "EntityNotFoundException"
    with pytest.raises(ClientError) as excinfo:
        glue.get_schema(SchemaId={"RegistryName": registry, "SchemaName": "missing"})
    assert fails(excinfo) == ("EntityNotFoundException",
                              f"Schema is not found. RegistryName: {registry}, SchemaName: missing, "
                              f"SchemaArn: {PREFIX}:schema/{registry}/missing")
    with pytest.raises(ClientError) as excinfo:
        glue.get_schema(SchemaId={"SchemaArn": arn, "SchemaName": name})
    assert fails(excinfo) == ("InvalidInputException", "One of (registryName and schemaName) or schemaArn has to "
                                                       "be provided, both cannot be provided.")
    with pytest.raises(ClientError) as excinfo:
        glue.get_schema(SchemaId={})
    assert fails(excinfo) == ("InvalidInputException",
                              "At least one of (registryName and schemaName) or schemaArn has to be provided.")
    with pytest.raises(ClientError) as excinfo:
        glue.get_schema(SchemaId={"SchemaArn": f"{PREFIX}:schema/only-one-part"})
    assert fails(excinfo)[0] == "EntityNotFoundException"
    with pytest.raises(ClientError) as excinfo:
        glue.update_schema(SchemaId={"SchemaArn": arn})
    assert fails(excinfo) == ("InvalidInputException",
                              "At least one of Compatibility, SchemaVersionNumber or Description has to be provided.")
    with pytest.raises(ClientError) as excinfo:
        glue.update_schema(SchemaId={"SchemaArn": arn}, Compatibility="FULL")
    assert fails(excinfo) == ("InvalidInputException",
                              "SchemaVersionNumber (the checkpoint) is required when Compatibility is provided.")
    with pytest.raises(ClientError) as excinfo:
        glue.update_schema(SchemaId={"SchemaArn": arn}, SchemaVersionNumber={"VersionNumber": 9})
    assert fails(excinfo)[0] == "EntityNotFoundException"
    with pytest.raises(ClientError) as excinfo:
        glue.create_schema(SchemaName="x", DataFormat="XML", SchemaDefinition="<a/>")
    assert fails(excinfo)[0] == "ValidationException", "DataFormat is checked against the model's enum"
    with pytest.raises(ClientError) as excinfo:
        glue.delete_schema(SchemaId={"RegistryName": registry, "SchemaName": "missing"})
    assert fails(excinfo)[0] == "EntityNotFoundException"


def test_list_schemas(glue: Any) -> None:
    registry = unique("reg")
    glue.create_registry(RegistryName=registry)
    for name in ("c", "a", "b"):
        glue.create_schema(RegistryId={"RegistryName": registry}, SchemaName=name, DataFormat="AVRO",
                           SchemaDefinition=avro(), Description=f"schema {name}")
    listed = glue.list_schemas(RegistryId={"RegistryName": registry})["Schemas"]
    assert [s["SchemaName"] for s in listed] == ["a", "b", "c"]
    assert set(listed[0]) == {"RegistryName", "SchemaName", "SchemaArn", "Description", "SchemaStatus",
                              "CreatedTime", "UpdatedTime"}
    pages = glue.get_paginator("list_schemas").paginate(RegistryId={"RegistryName": registry},
                                                         PaginationConfig={"PageSize": 2})
    assert [[s["SchemaName"] for s in p["Schemas"]] for p in pages] == [["a", "b"], ["c"]]
    everywhere = [(s["RegistryName"], s["SchemaName"]) for p in glue.get_paginator("list_schemas").paginate()
                  for s in p["Schemas"]]
    assert [(registry, n) for n in "abc"] == [e for e in everywhere if e[0] == registry]


def test_schema_quota_of_a_schema_versions(glue: Any) -> None:
    created = schema_in(glue, compatibility="NONE")
    arn = created["SchemaArn"]
    for index in range(2, 1001):
        glue.register_schema_version(SchemaId={"SchemaArn": arn}, SchemaDefinition=avro(name=f"E{index}"))
    with pytest.raises(ClientError) as excinfo:
        glue.register_schema_version(SchemaId={"SchemaArn": arn}, SchemaDefinition=avro(name="E1001"))
    assert fails(excinfo)[0] == "ResourceNumberLimitExceededException" and "1000" in fails(excinfo)[1]
    assert glue.get_schema(SchemaId={"SchemaArn": arn})["LatestSchemaVersion"] == 1000


# -- versions -------------------------------------------------------------------------------------

def test_register_versions_under_backward(glue: Any) -> None:
    created = schema_in(glue)
    schema = {"SchemaArn": created["SchemaArn"]}
    v2 = glue.register_schema_version(SchemaId=schema, SchemaDefinition=avro({"name": "note", "type": "string",
                                                                               "default": ""}))
    assert (v2["VersionNumber"], v2["Status"]) == (2, "AVAILABLE")
    # the same definition, written differently, is the version already registered
    again = glue.register_schema_version(SchemaId=schema, SchemaDefinition=json.dumps(
        json.loads(avro({"name": "note", "type": "string", "default": ""})), indent=4))
    assert (again["SchemaVersionId"], again["VersionNumber"]) == (v2["SchemaVersionId"], 2)
    v3 = glue.register_schema_version(SchemaId=schema, SchemaDefinition=avro({"name": "required", "type": "string"}))
    assert (v3["VersionNumber"], v3["Status"]) == (3, "FAILURE"), "a new field without a default breaks BACKWARD"
    got = glue.get_schema(SchemaId=schema)
    assert (got["LatestSchemaVersion"], got["NextSchemaVersion"]) == (2, 4)
    assert glue.get_schema_version(SchemaVersionId=v3["SchemaVersionId"])["Status"] == "FAILURE"
    latest = glue.get_schema_version(SchemaId=schema, SchemaVersionNumber={"LatestVersion": True})
    assert (latest["SchemaVersionId"], latest["VersionNumber"]) == (v2["SchemaVersionId"], 2)
    with pytest.raises(ClientError) as excinfo:
        glue.register_schema_version(SchemaId=schema, SchemaDefinition="{not json")
    assert fails(excinfo)[0] == "InvalidInputException"
    assert glue.get_schema(SchemaId=schema)["NextSchemaVersion"] == 4, "an invalid definition uses up no number"


def test_none_disabled_and_checkpoints(glue: Any) -> None:
    created = schema_in(glue, compatibility="NONE")
    schema = {"SchemaArn": created["SchemaArn"]}
    assert glue.register_schema_version(SchemaId=schema, SchemaDefinition=avro(
        {"name": "x", "type": "string"}))["Status"] == "AVAILABLE", "NONE accepts any change"
    glue.update_schema(SchemaId=schema, Compatibility="DISABLED", SchemaVersionNumber={"VersionNumber": 1})
    with pytest.raises(ClientError) as excinfo:
        glue.register_schema_version(SchemaId=schema, SchemaDefinition=avro({"name": "y", "type": "int"}))
    code, message = fails(excinfo)
    assert code == "InvalidInputException" and message.startswith("Compatibility DISABLED does not allow versioning.")
    # BACKWARD_ALL checks every version since the checkpoint: moving the checkpoint past v1 forgets it
    glue.update_schema(SchemaId=schema, Compatibility="BACKWARD_ALL", SchemaVersionNumber={"VersionNumber": 2})
    assert glue.get_schema(SchemaId=schema)["SchemaCheckpoint"] == 2
    v3 = glue.register_schema_version(SchemaId=schema, SchemaDefinition=avro(
        {"name": "x", "type": "string"}, {"name": "z", "type": "int", "default": 0}))
    assert v3["Status"] == "AVAILABLE"
    bad = glue.register_schema_version(SchemaId=schema, SchemaDefinition=avro(
        {"name": "x", "type": "string"}, {"name": "w", "type": "int"}))
    assert bad["Status"] == "FAILURE"
    with pytest.raises(ClientError) as excinfo:  # a FAILURE version cannot be a checkpoint
        glue.update_schema(SchemaId=schema, SchemaVersionNumber={"VersionNumber": bad["VersionNumber"]})
    assert fails(excinfo)[0] == "InvalidInputException" and "FAILURE" in fails(excinfo)[1]


def test_get_and_list_versions(glue: Any) -> None:
    created = schema_in(glue, compatibility="NONE")
    schema = {"SchemaArn": created["SchemaArn"]}
    ids = [created["SchemaVersionId"]] + [
        glue.register_schema_version(SchemaId=schema, SchemaDefinition=avro(name=f"E{i}"))["SchemaVersionId"]
        for i in range(2, 5)]
    by_number = glue.get_schema_version(SchemaId=schema, SchemaVersionNumber={"VersionNumber": 2})
    assert {k: by_number[k] for k in ("SchemaVersionId", "DataFormat", "SchemaArn", "VersionNumber", "Status")} == {
        "SchemaVersionId": ids[1], "DataFormat": "AVRO", "SchemaArn": schema["SchemaArn"], "VersionNumber": 2,
        "Status": "AVAILABLE"}
    assert json.loads(by_number["SchemaDefinition"])["name"] == "E2"
    assert glue.get_schema_version(SchemaVersionId=ids[3])["VersionNumber"] == 4
    listed = [v for p in glue.get_paginator("list_schema_versions").paginate(
        SchemaId=schema, PaginationConfig={"PageSize": 3}) for v in p["Schemas"]]
    assert [(v["VersionNumber"], v["SchemaVersionId"], v["Status"]) for v in listed] == [
        (i + 1, ids[i], "AVAILABLE") for i in range(4)]
    errors = {
        "No other input parameters can be specified when fetching by SchemaVersionId.":
            {"SchemaVersionId": ids[0], "SchemaId": schema},
        "Only one of VersionNumber or LatestVersion is required.":
            {"SchemaId": schema, "SchemaVersionNumber": {"VersionNumber": 1, "LatestVersion": True}},
        "One of version number (or) latest version is required.": {"SchemaId": schema, "SchemaVersionNumber": {}},
        "At least one of (registryName and schemaName) or schemaArn has to be provided.": {},
    }
    for message, request in errors.items():
        with pytest.raises(ClientError) as excinfo:
            glue.get_schema_version(**request)
        assert fails(excinfo) == ("InvalidInputException", message)
    unknown = "11111111-2222-3333-4444-555555555555"
    with pytest.raises(ClientError) as excinfo:
        glue.get_schema_version(SchemaVersionId=unknown)
    assert fails(excinfo) == ("EntityNotFoundException", f"Schema version is not found. SchemaVersionId: {unknown}")
    with pytest.raises(ClientError) as excinfo:
        glue.get_schema_version(SchemaId=schema, SchemaVersionNumber={"VersionNumber": 99})
    assert fails(excinfo)[0] == "EntityNotFoundException" and "VersionNumber: 99" in fails(excinfo)[1]


def test_get_schema_by_definition_and_diff(glue: Any) -> None:
    created = schema_in(glue)
    schema = {"SchemaArn": created["SchemaArn"]}
    second = avro({"name": "note", "type": "string", "default": ""})
    v2 = glue.register_schema_version(SchemaId=schema, SchemaDefinition=second)
    found = glue.get_schema_by_definition(SchemaId=schema, SchemaDefinition=json.dumps(json.loads(second), indent=2))
    assert {k: found[k] for k in ("SchemaVersionId", "SchemaArn", "DataFormat", "Status")} == {
        "SchemaVersionId": v2["SchemaVersionId"], "SchemaArn": schema["SchemaArn"], "DataFormat": "AVRO",
        "Status": "AVAILABLE"}
    with pytest.raises(ClientError) as excinfo:
        glue.get_schema_by_definition(SchemaId=schema, SchemaDefinition=avro(name="Other"))
    assert fails(excinfo)[0] == "EntityNotFoundException"
    diff = glue.get_schema_versions_diff(SchemaId=schema, FirstSchemaVersionNumber={"VersionNumber": 1},
                                         SecondSchemaVersionNumber={"LatestVersion": True},
                                         SchemaDiffType="SYNTAX_DIFF")
    assert json.loads(diff["Diff"]) == [{"op": "add", "path": "/fields/-",
                                         "value": {"name": "note", "type": "string", "default": ""}}]
    back = glue.get_schema_versions_diff(SchemaId=schema, FirstSchemaVersionNumber={"VersionNumber": 2},
                                         SecondSchemaVersionNumber={"VersionNumber": 1}, SchemaDiffType="SYNTAX_DIFF")
    assert json.loads(back["Diff"]) == [{"op": "remove", "path": "/fields/1"}]
    with pytest.raises(ClientError) as excinfo:
        glue.get_schema_versions_diff(SchemaId=schema, FirstSchemaVersionNumber={"VersionNumber": 1},
                                      SecondSchemaVersionNumber={"VersionNumber": 7}, SchemaDiffType="SYNTAX_DIFF")
    assert fails(excinfo)[0] == "EntityNotFoundException"
    with pytest.raises(ClientError) as excinfo:
        glue.get_schema_versions_diff(SchemaId=schema, FirstSchemaVersionNumber={"VersionNumber": 1},
                                      SecondSchemaVersionNumber={}, SchemaDiffType="SYNTAX_DIFF")
    assert fails(excinfo) == ("InvalidInputException", "VersionNumber is required")


def test_check_schema_version_validity(glue: Any) -> None:
    valid = {"AVRO": avro(), "JSON": '{"type": "object"}',
             "PROTOBUF": 'syntax = "proto3";\nmessage Event {\n  int64 id = 1;\n}\n'}
    for data_format, definition in valid.items():
        assert glue.check_schema_version_validity(DataFormat=data_format, SchemaDefinition=definition)["Valid"]
    invalid = {"AVRO": BAD_AVRO, "JSON": '{"type": ', "PROTOBUF": "this is not proto"}
    for data_format, definition in invalid.items():
        answer = glue.check_schema_version_validity(DataFormat=data_format, SchemaDefinition=definition)
        assert answer["Valid"] is False and answer["Error"], data_format


def test_delete_schema_versions(glue: Any) -> None:
    created = schema_in(glue, compatibility="NONE")
    schema = {"SchemaArn": created["SchemaArn"]}
    for index in range(2, 6):
        glue.register_schema_version(SchemaId=schema, SchemaDefinition=avro(name=f"E{index}"))
    errors = glue.delete_schema_versions(SchemaId=schema, Versions="4-5")["SchemaVersionErrors"]
    assert errors == []
    assert glue.get_schema(SchemaId=schema)["LatestSchemaVersion"] == 3, "the latest moves back"
    errors = glue.delete_schema_versions(SchemaId=schema, Versions="1-4")["SchemaVersionErrors"]
    assert [(e["VersionNumber"], e["ErrorDetails"]["ErrorCode"]) for e in errors] == [
        (1, "InvalidInputException"), (4, "EntityNotFoundException")]
    assert "checkpoint" in errors[0]["ErrorDetails"]["ErrorMessage"]
    left = glue.list_schema_versions(SchemaId=schema)["Schemas"]
    assert [v["VersionNumber"] for v in left] == [1]
    with pytest.raises(ClientError) as excinfo:
        glue.delete_schema_versions(SchemaId=schema, Versions="3-2")
    assert fails(excinfo) == ("InvalidInputException", "Versions '3-2': the range ends before it starts")
    with pytest.raises(ClientError) as excinfo:
        glue.delete_schema_versions(SchemaId=schema, Versions="1-100000")
    assert fails(excinfo) == ("InvalidInputException", "Versions '1-100000': a range covers at most 1000 versions "
                                                       "(a schema has no more)")
    with pytest.raises(ClientError) as excinfo:
        glue.delete_schema_versions(SchemaId=schema, Versions="1,2")
    assert fails(excinfo)[0] == "ValidationException", "the model's pattern: N or N-M"


# -- metadata -------------------------------------------------------------------------------------

def test_schema_version_metadata(glue: Any) -> None:
    created = schema_in(glue)
    schema = {"SchemaArn": created["SchemaArn"]}
    version_id = created["SchemaVersionId"]
    put = glue.put_schema_version_metadata(SchemaId=schema, SchemaVersionNumber={"VersionNumber": 1},
                                           MetadataKeyValue={"MetadataKey": "owner", "MetadataValue": "ana"})
    assert {k: put[k] for k in ("SchemaArn", "SchemaName", "RegistryName", "LatestVersion", "VersionNumber",
                                "SchemaVersionId", "MetadataKey", "MetadataValue")} == {
        "SchemaArn": schema["SchemaArn"], "SchemaName": created["SchemaName"], "RegistryName": created["RegistryName"],
        "LatestVersion": True, "VersionNumber": 1, "SchemaVersionId": version_id, "MetadataKey": "owner",
        "MetadataValue": "ana"}
    glue.put_schema_version_metadata(SchemaVersionId=version_id,
                                     MetadataKeyValue={"MetadataKey": "owner", "MetadataValue": "bob"})
    glue.put_schema_version_metadata(SchemaVersionId=version_id,
                                     MetadataKeyValue={"MetadataKey": "topic", "MetadataValue": "orders"})
    with pytest.raises(ClientError) as excinfo:
        glue.put_schema_version_metadata(SchemaVersionId=version_id,
                                         MetadataKeyValue={"MetadataKey": "topic", "MetadataValue": "orders"})
    assert fails(excinfo) == ("AlreadyExistsException", f"Resource already exist for schema version id: "
                                                        f"{version_id}, metadata key: topic, metadata value: orders")
    everything = glue.query_schema_version_metadata(SchemaVersionId=version_id)
    assert everything["SchemaVersionId"] == version_id
    info = everything["MetadataInfoMap"]
    assert set(info) == {"owner", "topic"} and info["topic"]["MetadataValue"] == "orders"
    owners = {info["owner"]["MetadataValue"], *(o["MetadataValue"] for o in info["owner"]["OtherMetadataValueList"])}
    assert owners == {"ana", "bob"}
    only = glue.query_schema_version_metadata(SchemaId=schema, SchemaVersionNumber={"LatestVersion": True},
                                              MetadataList=[{"MetadataKey": "owner", "MetadataValue": "ana"}])
    assert only["MetadataInfoMap"] == {"owner": {**only["MetadataInfoMap"]["owner"], "MetadataValue": "ana",
                                                 "OtherMetadataValueList": []}}
    paged = glue.query_schema_version_metadata(SchemaVersionId=version_id, MaxResults=1)
    assert list(paged["MetadataInfoMap"]) == ["owner"]
    rest = glue.query_schema_version_metadata(SchemaVersionId=version_id, MaxResults=1, NextToken=paged["NextToken"])
    assert list(rest["MetadataInfoMap"]) == ["topic"] and "NextToken" not in rest
    removed = glue.remove_schema_version_metadata(SchemaVersionId=version_id,
                                                  MetadataKeyValue={"MetadataKey": "owner", "MetadataValue": "ana"})
    assert (removed["MetadataKey"], removed["MetadataValue"]) == ("owner", "ana")
    with pytest.raises(ClientError) as excinfo:
        glue.remove_schema_version_metadata(SchemaVersionId=version_id,
                                            MetadataKeyValue={"MetadataKey": "owner", "MetadataValue": "ana"})
    assert fails(excinfo)[0] == "EntityNotFoundException"
    for index in range(8):
        glue.put_schema_version_metadata(SchemaVersionId=version_id,
                                         MetadataKeyValue={"MetadataKey": f"k{index}", "MetadataValue": "v"})
    with pytest.raises(ClientError) as excinfo:
        glue.put_schema_version_metadata(SchemaVersionId=version_id,
                                         MetadataKeyValue={"MetadataKey": "eleventh", "MetadataValue": "v"})
    assert fails(excinfo)[0] == "ResourceNumberLimitExceededException"
    with pytest.raises(ClientError) as excinfo:
        glue.put_schema_version_metadata(SchemaId=schema, MetadataKeyValue={"MetadataKey": "a", "MetadataValue": "b"})
    assert fails(excinfo) == ("InvalidInputException", "One of version number (or) latest version is required.")
    with pytest.raises(ClientError) as excinfo:
        glue.put_schema_version_metadata(SchemaVersionId=version_id, MetadataKeyValue={"MetadataKey": "a"})
    assert fails(excinfo) == ("InvalidInputException", "MetadataValue is required")
    with pytest.raises(ClientError) as excinfo:
        glue.query_schema_version_metadata(SchemaVersionId="11111111-2222-3333-4444-555555555555")
    assert fails(excinfo)[0] == "EntityNotFoundException"
