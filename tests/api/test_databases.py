from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.helpers import ServerProcess, error_of, unique


def test_create_get_database_round_trips_every_member(glue: Any) -> None:
    name = unique("Raw")
    glue.create_database(DatabaseInput={
        "Name": name, "Description": "landing zone", "LocationUri": "s3://lake/raw/",
        "Parameters": {"owner": "data-eng"},
    })
    db = glue.get_database(Name=name)["Database"]
    assert db["Name"] == name.lower()
    assert db["Description"] == "landing zone"
    assert db["LocationUri"] == "s3://lake/raw/"
    assert db["Parameters"] == {"owner": "data-eng"}
    assert db["CatalogId"] == "123456789012"
    assert db["CreateTableDefaultPermissions"][0]["Principal"]["DataLakePrincipalIdentifier"] == \
        "IAM_ALLOWED_PRINCIPALS"
    assert db["CreateTime"].year >= 2026


def test_duplicate_database_is_already_exists(glue: Any) -> None:
    name = unique("dup")
    glue.create_database(DatabaseInput={"Name": name})
    with pytest.raises(ClientError) as excinfo:
        glue.create_database(DatabaseInput={"Name": name.upper()})
    assert error_of(excinfo) == ("AlreadyExistsException", f"Database {name} already exists.")


def test_missing_database_is_entity_not_found(glue: Any) -> None:
    with pytest.raises(ClientError) as excinfo:
        glue.get_database(Name="no_such_db")
    assert error_of(excinfo) == ("EntityNotFoundException", "Database no_such_db not found.")
    for call in (lambda: glue.delete_database(Name="no_such_db"),
                 lambda: glue.update_database(Name="no_such_db", DatabaseInput={"Name": "no_such_db"})):
        with pytest.raises(ClientError) as excinfo:
            call()
        assert error_of(excinfo)[0] == "EntityNotFoundException"


def test_update_replaces_definition_and_rename_is_refused(glue: Any) -> None:
    name = unique("upd")
    glue.create_database(DatabaseInput={"Name": name, "Description": "old", "Parameters": {"a": "1"}})
    glue.update_database(Name=name, DatabaseInput={"Name": name, "Description": "new"})
    db = glue.get_database(Name=name)["Database"]
    assert db["Description"] == "new"
    assert "Parameters" not in db
    with pytest.raises(ClientError) as excinfo:
        glue.update_database(Name=name, DatabaseInput={"Name": name + "_x"})
    assert error_of(excinfo)[0] == "InvalidInputException"
    assert name + "_x" in error_of(excinfo)[1]


def test_get_databases_paginates_in_name_order(glue: Any) -> None:
    prefix = unique("pg")
    names = [f"{prefix}_{i:02d}" for i in range(7)]
    for n in reversed(names):
        glue.create_database(DatabaseInput={"Name": n})
    seen: list[str] = []
    pages = 0
    for page in glue.get_paginator("get_databases").paginate(PaginationConfig={"PageSize": 3}):
        pages += 1
        seen += [d["Name"] for d in page["DatabaseList"]]
    assert [n for n in seen if n.startswith(prefix)] == names
    assert seen == sorted(seen)
    assert pages >= 3
    only_names = glue.get_databases(AttributesToGet=["NAME"])["DatabaseList"]
    assert all(set(d) <= {"Name", "CatalogId"} for d in only_names)


def test_delete_database_removes_it(glue: Any) -> None:
    name = unique("gone")
    glue.create_database(DatabaseInput={"Name": name})
    glue.delete_database(Name=name)
    with pytest.raises(ClientError) as excinfo:
        glue.get_database(Name=name)
    assert error_of(excinfo)[0] == "EntityNotFoundException"


def test_invalid_input_is_validation_exception_naming_the_member(server: ServerProcess) -> None:
    raw = server.client(parameter_validation=False)
    with pytest.raises(ClientError) as excinfo:
        raw.create_database(DatabaseInput={"Name": "x" * 300, "Description": "ok"})
    code, message = error_of(excinfo)
    assert code == "ValidationException"
    assert message.startswith("1 validation error detected: Value '")
    assert "at 'databaseInput.name' failed to satisfy constraint: Member must have length less than or " \
           "equal to 255" in message
    with pytest.raises(ClientError) as excinfo:
        raw.create_database(DatabaseInput={"Description": "no name"})
    assert error_of(excinfo) == ("ValidationException", "1 validation error detected: Value null at "
                                 "'databaseInput.name' failed to satisfy constraint: Member must not be null")
    status, body = server.raw("CreateDatabase", {"DatabaseInput": {"Name": "ok", "Colour": "blue"}})
    assert (status, body["__type"]) == (400, "ValidationException")
    assert "Unknown parameter 'Colour' at 'databaseInput'" in body["message"]
    status, body = server.raw("CreateDatabase", {"DatabaseInput": {"Name": 7}})
    assert (status, body["__type"]) == (400, "SerializationException")
    status, body = server.raw("CreateDatabase", b"{not json")
    assert (status, body["__type"]) == (400, "SerializationException")
    status, body = server.raw("FlyToTheMoon", {})
    assert (status, body["__type"]) == (400, "UnknownOperationException")


def test_create_database_with_tags_is_all_or_nothing(glue: Any) -> None:
    name = unique("tagged")
    arn = f"arn:aws:glue:us-east-1:123456789012:database/{name}"
    with pytest.raises(ClientError) as excinfo:
        glue.create_database(DatabaseInput={"Name": name}, Tags={"team": "a", "aws:owner": "b"})
    assert error_of(excinfo)[0] == "InvalidInputException"
    assert "aws:" in error_of(excinfo)[1]
    with pytest.raises(ClientError):
        glue.get_database(Name=name)
    glue.create_database(DatabaseInput={"Name": name}, Tags={"team": "a"})
    assert glue.get_tags(ResourceArn=arn)["Tags"] == {"team": "a"}
    glue.delete_database(Name=name)
    glue.create_database(DatabaseInput={"Name": name})
    assert glue.get_tags(ResourceArn=arn)["Tags"] == {}
