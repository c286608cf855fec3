from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.helpers import ServerProcess, error_of, unique


def jdbc_input(name: str, **extra: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "Name": name,
        "ConnectionType": "JDBC",
        "ConnectionProperties": {
            "JDBC_CONNECTION_URL": "jdbc:postgresql://db.example.com:5432/sales",
            "USERNAME": "etl",
            "PASSWORD": "s3cret",
            "JDBC_ENFORCE_SSL": "false",
        },
    }
    spec.update(extra)
    return spec


def kafka_input(name: str, servers: str = "b-1.kafka:9092,b-2.kafka:9092", **props: str) -> dict[str, Any]:
    return {"Name": name, "ConnectionType": "KAFKA",
            "ConnectionProperties": {"KAFKA_BOOTSTRAP_SERVERS": servers, **props}}


def network_input(name: str) -> dict[str, Any]:
    return {"Name": name, "ConnectionType": "NETWORK", "ConnectionProperties": {},
            "PhysicalConnectionRequirements": {"SubnetId": "subnet-1", "SecurityGroupIdList": ["sg-1", "sg-2"],
                                               "AvailabilityZone": "us-east-1a"}}


def invalid_input(glue: Any, connection_input: dict[str, Any]) -> str:
    with pytest.raises(ClientError) as excinfo:
        glue.create_connection(ConnectionInput=connection_input)
    code, message = error_of(excinfo)
    assert code == "InvalidInputException"
    with pytest.raises(ClientError) as excinfo:
        glue.get_connection(Name=connection_input["Name"])
    assert error_of(excinfo)[0] == "EntityNotFoundException"
    return message


def test_create_get_jdbc_connection_round_trips(glue: Any) -> None:
    name = unique("Pg")
    before = dt.datetime.now(dt.UTC) - dt.timedelta(seconds=5)
    status = glue.create_connection(ConnectionInput=jdbc_input(
        name, Description="sales database", MatchCriteria=["sales", "pg"],
        PhysicalConnectionRequirements={"SubnetId": "subnet-9", "SecurityGroupIdList": ["sg-9"],
                                        "AvailabilityZone": "us-east-1b"},
    ))["CreateConnectionStatus"]
    assert status == "READY"
    connection = glue.get_connection(Name=name)["Connection"]
    assert connection["Name"] == name  # case is kept
    assert connection["ConnectionType"] == "JDBC"
    assert connection["Description"] == "sales database"
    assert connection["MatchCriteria"] == ["sales", "pg"]
    assert connection["ConnectionProperties"] == jdbc_input(name)["ConnectionProperties"]
    assert connection["PhysicalConnectionRequirements"] == {
        "SubnetId": "subnet-9", "SecurityGroupIdList": ["sg-9"], "AvailabilityZone": "us-east-1b"}
    assert connection["CreationTime"] >= before
    assert connection["LastUpdatedTime"] == connection["CreationTime"]
    assert connection["LastUpdatedBy"] == "AKIDEXAMPLE"
    assert connection["Status"] == "READY"
    with pytest.raises(ClientError) as excinfo:
        glue.get_connection(Name=name.lower())
    assert error_of(excinfo) == ("EntityNotFoundException", f"Connection {name.lower()} not found.")


def test_kafka_and_network_connections(glue: Any) -> None:
    kafka, network = unique("kafka"), unique("net")
    glue.create_connection(ConnectionInput=kafka_input(
        kafka, KAFKA_SSL_ENABLED="true", KAFKA_SASL_MECHANISM="PLAIN", KAFKA_SASL_PLAIN_USERNAME="u",
        KAFKA_SASL_PLAIN_PASSWORD="kafka-secret"))
    glue.create_connection(ConnectionInput=network_input(network))
    got = glue.get_connection(Name=kafka)["Connection"]
    assert got["ConnectionProperties"]["KAFKA_BOOTSTRAP_SERVERS"] == "b-1.kafka:9092,b-2.kafka:9092"
    assert got["ConnectionProperties"]["KAFKA_SASL_PLAIN_PASSWORD"] == "kafka-secret"
    hidden = glue.get_connection(Name=kafka, HidePassword=True)["Connection"]["ConnectionProperties"]
    assert "KAFKA_SASL_PLAIN_PASSWORD" not in hidden
    assert hidden["KAFKA_SASL_PLAIN_USERNAME"] == "u"
    net = glue.get_connection(Name=network)["Connection"]
    assert net["ConnectionType"] == "NETWORK"
    assert net["PhysicalConnectionRequirements"]["SecurityGroupIdList"] == ["sg-1", "sg-2"]


def test_hide_password_never_returns_passwords(glue: Any) -> None:
    name = unique("secret")
    props = dict(jdbc_input(name)["ConnectionProperties"], ENCRYPTED_PASSWORD="ZW5jcnlwdGVk")
    glue.create_connection(ConnectionInput=jdbc_input(name, ConnectionProperties=props))
    shown = glue.get_connection(Name=name)["Connection"]["ConnectionProperties"]
    assert shown["PASSWORD"] == "s3cret"
    assert shown["ENCRYPTED_PASSWORD"] == "ZW5jcnlwdGVk"
    hidden = glue.get_connection(Name=name, HidePassword=True)["Connection"]["ConnectionProperties"]
    assert "PASSWORD" not in hidden
    assert "ENCRYPTED_PASSWORD" not in hidden
    assert hidden["USERNAME"] == "etl"
    listed = [c for c in glue.get_connections(HidePassword=True)["ConnectionList"] if c["Name"] == name]
    assert len(listed) == 1
    assert "PASSWORD" not in listed[0]["ConnectionProperties"]
    assert "ENCRYPTED_PASSWORD" not in listed[0]["ConnectionProperties"]
    listed = [c for c in glue.get_connections()["ConnectionList"] if c["Name"] == name]
    assert listed[0]["ConnectionProperties"]["PASSWORD"] == "s3cret"


def test_duplicate_connection_is_already_exists(glue: Any) -> None:
    name = unique("dup")
    glue.create_connection(ConnectionInput=jdbc_input(name))
    with pytest.raises(ClientError) as excinfo:
        glue.create_connection(ConnectionInput=kafka_input(name))
    assert error_of(excinfo) == ("AlreadyExistsException", f"Connection {name} already exists.")
    assert glue.get_connection(Name=name)["Connection"]["ConnectionType"] == "JDBC"


def test_missing_connection_is_entity_not_found(glue: Any) -> None:
    name = unique("missing")
    with pytest.raises(ClientError) as excinfo:
        glue.get_connection(Name=name)
    assert error_of(excinfo) == ("EntityNotFoundException", f"Connection {name} not found.")
    with pytest.raises(ClientError) as excinfo:
        glue.delete_connection(ConnectionName=name)
    assert error_of(excinfo) == ("EntityNotFoundException", f"Connection {name} not found.")
    with pytest.raises(ClientError) as excinfo:
        glue.update_connection(Name=name, ConnectionInput=jdbc_input(name))
    assert error_of(excinfo) == ("EntityNotFoundException", f"Connection {name} not found.")


@pytest.mark.parametrize(("properties", "expected"), [
    ({"USERNAME": "u"}, "JDBC connections require the connection property JDBC_CONNECTION_URL"),
    ({"JDBC_CONNECTION_URL": "postgresql://h:5432/db"},
     "Connection property JDBC_CONNECTION_URL must be a JDBC URL (jdbc:<subprotocol>:<location>), "
     "got 'postgresql://h:5432/db'"),
    ({"JDBC_CONNECTION_URL": "jdbc:mysql://h:3306/db", "JDBC_ENFORCE_SSL": "yes"},
     "Connection property JDBC_ENFORCE_SSL must be 'true' or 'false', got 'yes'"),
    ({"JDBC_CONNECTION_URL": "jdbc:mysql://h:3306/db", "PORT": "99999"},
     "Connection property PORT must be a port number, got '99999'"),
])
def test_jdbc_properties_are_validated(glue: Any, properties: dict[str, str], expected: str) -> None:
    message = invalid_input(glue, {"Name": unique("badjdbc"), "ConnectionType": "JDBC",
                                   "ConnectionProperties": properties})
    assert message == expected


@pytest.mark.parametrize(("properties", "expected"), [
    ({}, "KAFKA connections require the connection property KAFKA_BOOTSTRAP_SERVERS"),
    ({"KAFKA_BOOTSTRAP_SERVERS": "b-1:9092,b-2"},
     "Connection property KAFKA_BOOTSTRAP_SERVERS must be a comma-separated list of host:port, got 'b-2'"),
    ({"KAFKA_BOOTSTRAP_SERVERS": "b-1:port"},
     "Connection property KAFKA_BOOTSTRAP_SERVERS must be a comma-separated list of host:port, got 'b-1:port'"),
    ({"KAFKA_BOOTSTRAP_SERVERS": "b-1:9092", "KAFKA_SASL_MECHANISM": "PLAIN",
      "KAFKA_SASL_PLAIN_USERNAME": "u"},
     "KAFKA_SASL_MECHANISM PLAIN requires the connection property KAFKA_SASL_PLAIN_PASSWORD"),
    ({"KAFKA_BOOTSTRAP_SERVERS": "b-1:9092", "KAFKA_SASL_MECHANISM": "OAUTHBEARER"},
     "Connection property KAFKA_SASL_MECHANISM must be one of SCRAM-SHA-512, GSSAPI, AWS_MSK_IAM, PLAIN, "
     "got 'OAUTHBEARER'"),
])
def test_kafka_properties_are_validated(glue: Any, properties: dict[str, str], expected: str) -> None:
    message = invalid_input(glue, {"Name": unique("badkafka"), "ConnectionType": "KAFKA",
                                   "ConnectionProperties": properties})
    assert message == expected


def test_network_needs_physical_connection_requirements(glue: Any) -> None:
    name = unique("badnet")
    message = invalid_input(glue, {"Name": name, "ConnectionType": "NETWORK", "ConnectionProperties": {}})
    assert message == "NETWORK connections require PhysicalConnectionRequirements"
    message = invalid_input(glue, {"Name": name, "ConnectionType": "NETWORK", "ConnectionProperties": {},
                                   "PhysicalConnectionRequirements": {"SecurityGroupIdList": ["sg-1"]}})
    assert message == "NETWORK connections require PhysicalConnectionRequirements.SubnetId"
    message = invalid_input(glue, {"Name": name, "ConnectionType": "NETWORK", "ConnectionProperties": {},
                                   "PhysicalConnectionRequirements": {"SubnetId": "subnet-1"}})
    assert message == ("NETWORK connections require at least one security group in "
                       "PhysicalConnectionRequirements.SecurityGroupIdList")


@pytest.mark.parametrize("kind", ["MARKETPLACE", "CUSTOM", "SALESFORCE", "MONGODB"])
def test_unsupported_connection_types_are_refused(glue: Any, kind: str) -> None:
    message = invalid_input(glue, {"Name": unique("other"), "ConnectionType": kind,
                                   "ConnectionProperties": {"CONNECTION_URL": "x"}})
    assert message == (f"ConnectionType {kind} is not supported by glueball; "
                       "supported types are: JDBC, KAFKA, NETWORK")


def test_unsupported_members_are_refused(glue: Any) -> None:
    message = invalid_input(glue, jdbc_input(unique("auth"), AuthenticationConfiguration={
        "AuthenticationType": "BASIC", "SecretArn": "arn:aws:secretsmanager:us-east-1:123456789012:secret:x"}))
    assert message == "ConnectionInput.AuthenticationConfiguration is not supported by glueball"


def test_update_replaces_definition(glue: Any) -> None:
    name = unique("upd")
    glue.create_connection(ConnectionInput=jdbc_input(name, Description="old", MatchCriteria=["a"]))
    created = glue.get_connection(Name=name)["Connection"]
    glue.update_connection(Name=name, ConnectionInput=kafka_input(name, servers="k:9093"))
    updated = glue.get_connection(Name=name)["Connection"]
    assert updated["ConnectionType"] == "KAFKA"
    assert updated["ConnectionProperties"] == {"KAFKA_BOOTSTRAP_SERVERS": "k:9093"}
    assert "Description" not in updated
    assert updated["MatchCriteria"] == []
    assert updated["CreationTime"] == created["CreationTime"]
    assert updated["LastUpdatedTime"] >= created["LastUpdatedTime"]
    with pytest.raises(ClientError) as excinfo:
        glue.update_connection(Name=name, ConnectionInput=kafka_input(name, servers="nope"))
    assert error_of(excinfo) == ("InvalidInputException", "Connection property KAFKA_BOOTSTRAP_SERVERS must be "
                                 "a comma-separated list of host:port, got 'nope'")
    assert glue.get_connection(Name=name)["Connection"]["ConnectionProperties"] == {"KAFKA_BOOTSTRAP_SERVERS":
                                                                                   "k:9093"}


def test_update_with_a_new_name_renames_and_keeps_tags(glue: Any) -> None:
    old, new, taken = unique("old"), unique("new"), unique("taken")
    glue.create_connection(ConnectionInput=jdbc_input(old), Tags={"team": "sales"})
    glue.create_connection(ConnectionInput=jdbc_input(taken))
    with pytest.raises(ClientError) as excinfo:
        glue.update_connection(Name=old, ConnectionInput=jdbc_input(taken))
    assert error_of(excinfo) == ("AlreadyExistsException", f"Connection {taken} already exists.")
    glue.update_connection(Name=old, ConnectionInput=jdbc_input(new))
    assert glue.get_connection(Name=new)["Connection"]["Name"] == new
    with pytest.raises(ClientError) as excinfo:
        glue.get_connection(Name=old)
    assert error_of(excinfo)[0] == "EntityNotFoundException"
    arn = f"arn:aws:glue:us-east-1:123456789012:connection/{new}"
    assert glue.get_tags(ResourceArn=arn)["Tags"] == {"team": "sales"}


def test_get_connections_filters_and_paginates(glue: Any) -> None:
    criterion = unique("crit")
    names = sorted(unique(f"c{i}") for i in range(5))
    for i, name in enumerate(names):
        connection = jdbc_input(name, MatchCriteria=[criterion, f"n{i % 2}"]) if i < 4 else kafka_input(name)
        if i == 4:
            connection["MatchCriteria"] = [criterion]
        glue.create_connection(ConnectionInput=connection)
    seen: list[str] = []
    pages = 0
    for page in glue.get_paginator("get_connections").paginate(
            Filter={"MatchCriteria": [criterion]}, PaginationConfig={"PageSize": 2}):
        pages += 1
        assert len(page["ConnectionList"]) <= 2
        seen += [c["Name"] for c in page["ConnectionList"]]
    assert seen == names
    assert pages == 3
    jdbc_only = glue.get_connections(Filter={"MatchCriteria": [criterion], "ConnectionType": "JDBC"})
    assert [c["Name"] for c in jdbc_only["ConnectionList"]] == names[:4]
    both = glue.get_connections(Filter={"MatchCriteria": [criterion, "n1"]})["ConnectionList"]
    assert [c["Name"] for c in both] == [names[1], names[3]]
    kafka = glue.get_connections(Filter={"MatchCriteria": [criterion], "ConnectionType": "KAFKA"})
    assert [c["Name"] for c in kafka["ConnectionList"]] == [names[4]]
    assert glue.get_connections(Filter={"MatchCriteria": [criterion], "ConnectionSchemaVersion": 2})[
        "ConnectionList"] == []
    with pytest.raises(ClientError) as excinfo:
        glue.get_connections(NextToken="not-a-token!")
    assert error_of(excinfo)[0] == "InvalidInputException"


def test_delete_connection_removes_it_and_its_tags(glue: Any) -> None:
    name = unique("del")
    arn = f"arn:aws:glue:us-east-1:123456789012:connection/{name}"
    glue.create_connection(ConnectionInput=jdbc_input(name), Tags={"k": "v"})
    assert glue.get_tags(ResourceArn=arn)["Tags"] == {"k": "v"}
    glue.delete_connection(ConnectionName=name)
    with pytest.raises(ClientError) as excinfo:
        glue.get_connection(Name=name)
    assert error_of(excinfo)[0] == "EntityNotFoundException"
    glue.create_connection(ConnectionInput=jdbc_input(name))
    assert glue.get_tags(ResourceArn=arn)["Tags"] == {}


def test_batch_delete_reports_each_name(glue: Any) -> None:
    first, second, missing = unique("b1"), unique("b2"), unique("b3")
    glue.create_connection(ConnectionInput=jdbc_input(first))
    glue.create_connection(ConnectionInput=network_input(second))
    response = glue.batch_delete_connection(ConnectionNameList=[first, missing, second])
    assert response["Succeeded"] == [first, second]
    assert response["Errors"] == {missing: {"ErrorCode": "EntityNotFoundException",
                                            "ErrorMessage": f"Connection {missing} not found."}}
    for name in (first, second):
        with pytest.raises(ClientError) as excinfo:
            glue.get_connection(Name=name)
        assert error_of(excinfo)[0] == "EntityNotFoundException"


def test_connections_are_per_account_and_region(server: ServerProcess, glue: Any) -> None:
    name = unique("scoped")
    glue.create_connection(ConnectionInput=jdbc_input(name))
    other_region = server.client(region="eu-west-1")
    with pytest.raises(ClientError) as excinfo:
        other_region.get_connection(Name=name)
    assert error_of(excinfo)[0] == "EntityNotFoundException"
    other_region.create_connection(ConnectionInput=kafka_input(name))
    assert other_region.get_connection(Name=name)["Connection"]["ConnectionType"] == "KAFKA"
    assert glue.get_connection(Name=name)["Connection"]["ConnectionType"] == "JDBC"


def test_compute_environment_override(glue: Any) -> None:
    name = unique("override")
    glue.create_connection(ConnectionInput=jdbc_input(name, SparkProperties={"USERNAME": "spark-user"}))
    plain = glue.get_connection(Name=name)["Connection"]
    assert plain["ConnectionProperties"]["USERNAME"] == "etl"
    assert plain["SparkProperties"] == {"USERNAME": "spark-user"}
    spark = glue.get_connection(Name=name, ApplyOverrideForComputeEnvironment="SPARK")["Connection"]
    assert spark["ConnectionProperties"]["USERNAME"] == "spark-user"
    athena = glue.get_connection(Name=name, ApplyOverrideForComputeEnvironment="ATHENA")["Connection"]
    assert athena["ConnectionProperties"]["USERNAME"] == "etl"


def test_property_keys_outside_the_models_enum_are_kept_as_aws_keeps_them(glue: Any, server: ServerProcess) -> None:
    name = unique("Spark")
    spark_properties = '{"secretId": "bigquery-creds", "parentProject": "p"}'
    connection_input = jdbc_input(name)
    connection_input["ConnectionProperties"].update({"SparkProperties": spark_properties, "my_option": "1"})
    glue.create_connection(ConnectionInput=connection_input)
    properties = glue.get_connection(Name=name)["Connection"]["ConnectionProperties"]
    assert properties["SparkProperties"] == spark_properties and properties["my_option"] == "1"
    # other enums of the model are still enforced
    status, body = server.raw("CreateConnection", {"ConnectionInput": {**jdbc_input(unique("x")),
                                                                       "ConnectionType": "NOT_A_TYPE"}})
    assert status == 400 and body["__type"].endswith("ValidationException")
    assert "connectionType" in body["message"] and "enum value set" in body["message"]
