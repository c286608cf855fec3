from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.helpers import error_of, unique


def function_input(name: str, **extra: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "FunctionName": name,
        "ClassName": "com.example.udf.Upper",
        "OwnerName": "etl",
        "OwnerType": "USER",
        "ResourceUris": [{"ResourceType": "JAR", "Uri": "s3://lib/udfs.jar"}],
    }
    spec.update(extra)
    return spec


@pytest.fixture()
def database(glue: Any) -> str:
    name = unique("fndb")
    glue.create_database(DatabaseInput={"Name": name})
    return name


def test_create_get_function_round_trips(glue: Any, database: str) -> None:
    name = unique("Upper")
    before = dt.datetime.now(dt.UTC) - dt.timedelta(seconds=5)
    glue.create_user_defined_function(DatabaseName=database, FunctionInput=function_input(
        name, FunctionType="REGULAR_FUNCTION"))
    function = glue.get_user_defined_function(DatabaseName=database, FunctionName=name)["UserDefinedFunction"]
    assert function["FunctionName"] == name.lower()
    assert function["DatabaseName"] == database
    assert function["ClassName"] == "com.example.udf.Upper"
    assert function["OwnerName"] == "etl"
    assert function["OwnerType"] == "USER"
    assert function["FunctionType"] == "REGULAR_FUNCTION"
    assert function["ResourceUris"] == [{"ResourceType": "JAR", "Uri": "s3://lib/udfs.jar"}]
    assert function["CatalogId"] == "123456789012"
    assert function["CreateTime"] >= before
    again = glue.get_user_defined_function(DatabaseName=database.upper(), FunctionName=name.upper())
    assert again["UserDefinedFunction"]["FunctionName"] == name.lower()


def test_duplicate_function_is_already_exists(glue: Any, database: str) -> None:
    name = unique("dup")
    glue.create_user_defined_function(DatabaseName=database, FunctionInput=function_input(name))
    with pytest.raises(ClientError) as excinfo:
        glue.create_user_defined_function(DatabaseName=database, FunctionInput=function_input(name.upper()))
    assert error_of(excinfo) == ("AlreadyExistsException", f"Function {name} already exists in database {database}.")


def test_missing_database_or_function_is_entity_not_found(glue: Any, database: str) -> None:
    missing_db = unique("nodb")
    with pytest.raises(ClientError) as excinfo:
        glue.create_user_defined_function(DatabaseName=missing_db, FunctionInput=function_input("f"))
    assert error_of(excinfo) == ("EntityNotFoundException", f"Database {missing_db} not found.")
    with pytest.raises(ClientError) as excinfo:
        glue.get_user_defined_function(DatabaseName=missing_db, FunctionName="f")
    assert error_of(excinfo) == ("EntityNotFoundException", f"Database {missing_db} not found.")
    with pytest.raises(ClientError) as excinfo:
        glue.get_user_defined_functions(DatabaseName=missing_db, Pattern="*")
    assert error_of(excinfo) == ("EntityNotFoundException", f"Database {missing_db} not found.")
    name = unique("nofn")
    expected = ("EntityNotFoundException", f"Function {name} not found in database {database}.")
    for call in (lambda: glue.get_user_defined_function(DatabaseName=database, FunctionName=name),
                 lambda: glue.delete_user_defined_function(DatabaseName=database, FunctionName=name),
                 lambda: glue.update_user_defined_function(DatabaseName=database, FunctionName=name,
                                                           FunctionInput=function_input(name))):
        with pytest.raises(ClientError) as excinfo:
            call()
        assert error_of(excinfo) == expected


def test_function_name_and_class_are_required(glue: Any, database: str) -> None:
    with pytest.raises(ClientError) as excinfo:
        glue.create_user_defined_function(DatabaseName=database, FunctionInput={"ClassName": "x.Y"})
    assert error_of(excinfo) == ("InvalidInputException", "FunctionInput.FunctionName is required")
    with pytest.raises(ClientError) as excinfo:
        glue.create_user_defined_function(DatabaseName=database, FunctionInput={"FunctionName": "NoClass"})
    assert error_of(excinfo) == ("InvalidInputException", "FunctionInput.ClassName is required for function noclass")


def test_update_replaces_definition_and_can_rename(glue: Any, database: str) -> None:
    name, renamed, other = unique("fn"), unique("renamed"), unique("other")
    glue.create_user_defined_function(DatabaseName=database, FunctionInput=function_input(name))
    glue.create_user_defined_function(DatabaseName=database, FunctionInput=function_input(other))
    created = glue.get_user_defined_function(DatabaseName=database, FunctionName=name)["UserDefinedFunction"]
    glue.update_user_defined_function(DatabaseName=database, FunctionName=name, FunctionInput={
        "FunctionName": name, "ClassName": "com.example.udf.Lower", "OwnerType": "ROLE",
        "OwnerName": "arn:aws:iam::123456789012:role/etl"})
    updated = glue.get_user_defined_function(DatabaseName=database, FunctionName=name)["UserDefinedFunction"]
    assert updated["ClassName"] == "com.example.udf.Lower"
    assert updated["OwnerType"] == "ROLE"
    assert "ResourceUris" not in updated
    assert updated["CreateTime"] == created["CreateTime"]
    with pytest.raises(ClientError) as excinfo:
        glue.update_user_defined_function(DatabaseName=database, FunctionName=name,
                                          FunctionInput=function_input(other))
    assert error_of(excinfo) == ("AlreadyExistsException",
                                 f"Function {other} already exists in database {database}.")
    glue.update_user_defined_function(DatabaseName=database, FunctionName=name,
                                      FunctionInput=function_input(renamed))
    assert glue.get_user_defined_function(DatabaseName=database, FunctionName=renamed)[
        "UserDefinedFunction"]["ClassName"] == "com.example.udf.Upper"
    with pytest.raises(ClientError) as excinfo:
        glue.get_user_defined_function(DatabaseName=database, FunctionName=name)
    assert error_of(excinfo)[0] == "EntityNotFoundException"


def test_delete_function_removes_it(glue: Any, database: str) -> None:
    name = unique("gone")
    glue.create_user_defined_function(DatabaseName=database, FunctionInput=function_input(name))
    glue.delete_user_defined_function(DatabaseName=database, FunctionName=name)
    with pytest.raises(ClientError) as excinfo:
        glue.get_user_defined_function(DatabaseName=database, FunctionName=name)
    assert error_of(excinfo)[0] == "EntityNotFoundException"


def test_get_functions_matches_pattern_and_paginates(glue: Any, database: str) -> None:
    prefix = unique("pat")
    names = [f"{prefix}_{i:02d}" for i in range(5)]
    for name in reversed(names):
        glue.create_user_defined_function(DatabaseName=database, FunctionInput=function_input(name))
    glue.create_user_defined_function(DatabaseName=database, FunctionInput=function_input(f"x{prefix}"))
    seen: list[str] = []
    pages = 0
    for page in glue.get_paginator("get_user_defined_functions").paginate(
            DatabaseName=database, Pattern=f"{prefix.upper()}*", PaginationConfig={"PageSize": 2}):
        pages += 1
        seen += [f["FunctionName"] for f in page["UserDefinedFunctions"]]
    assert seen == names
    assert pages == 3
    alternatives = glue.get_user_defined_functions(DatabaseName=database,
                                                   Pattern=f"{prefix}_01|{prefix}_03|nothing")
    assert [f["FunctionName"] for f in alternatives["UserDefinedFunctions"]] == [names[1], names[3]]
    # '_' and '%' are literal characters, not SQL wildcards
    literal = glue.get_user_defined_functions(DatabaseName=database, Pattern=f"{prefix}%")
    assert literal["UserDefinedFunctions"] == []
    underscore = glue.get_user_defined_functions(DatabaseName=database, Pattern=f"{prefix}_0_")
    assert underscore["UserDefinedFunctions"] == []


def test_get_functions_across_databases_and_by_type(glue: Any) -> None:
    tag = unique("x")
    first, second = f"{tag}_a", f"{tag}_b"
    for db in (second, first):
        glue.create_database(DatabaseInput={"Name": db})
    glue.create_user_defined_function(DatabaseName=first, FunctionInput=function_input(
        f"{tag}_agg", FunctionType="AGGREGATE_FUNCTION"))
    glue.create_user_defined_function(DatabaseName=second, FunctionInput=function_input(f"{tag}_fn"))
    glue.create_user_defined_function(DatabaseName=first, FunctionInput=function_input(f"{tag}_fn"))
    found = [(f["DatabaseName"], f["FunctionName"]) for page in
             glue.get_paginator("get_user_defined_functions").paginate(
                 Pattern=f"{tag}*", PaginationConfig={"PageSize": 1})
             for f in page["UserDefinedFunctions"]]
    assert found == [(first, f"{tag}_agg"), (first, f"{tag}_fn"), (second, f"{tag}_fn")]
    aggregates = glue.get_user_defined_functions(Pattern=f"{tag}*", FunctionType="AGGREGATE_FUNCTION")
    assert [f["FunctionName"] for f in aggregates["UserDefinedFunctions"]] == [f"{tag}_agg"]


def test_deleting_the_database_deletes_its_functions(glue: Any) -> None:
    db = unique("dropdb")
    glue.create_database(DatabaseInput={"Name": db})
    glue.create_user_defined_function(DatabaseName=db, FunctionInput=function_input("f1"))
    glue.delete_database(Name=db)
    glue.create_database(DatabaseInput={"Name": db})
    assert glue.get_user_defined_functions(DatabaseName=db, Pattern="*")["UserDefinedFunctions"] == []
