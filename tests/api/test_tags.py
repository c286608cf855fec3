from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.helpers import ServerProcess, error_of, unique

PREFIX = "arn:aws:glue:us-east-1:123456789012"


def jdbc_input(name: str) -> dict[str, Any]:
    return {"Name": name, "ConnectionType": "JDBC",
            "ConnectionProperties": {"JDBC_CONNECTION_URL": "jdbc:postgresql://h:5432/db"}}


def test_database_tags_from_create_and_tag_resource(glue: Any) -> None:
    name = unique("TaggedDb")
    glue.create_database(DatabaseInput={"Name": name}, Tags={"team": "data", "env": "dev"})
    arn = f"{PREFIX}:database/{name.lower()}"
    assert glue.get_tags(ResourceArn=arn)["Tags"] == {"team": "data", "env": "dev"}
    glue.tag_resource(ResourceArn=arn, TagsToAdd={"env": "prod", "cost": "42"})
    assert glue.get_tags(ResourceArn=arn)["Tags"] == {"team": "data", "env": "prod", "cost": "42"}
    glue.untag_resource(ResourceArn=arn, TagsToRemove=["team", "not-there"])
    assert glue.get_tags(ResourceArn=arn)["Tags"] == {"env": "prod", "cost": "42"}
    # the database name in an ARN is folded like the database's own name
    assert glue.get_tags(ResourceArn=f"{PREFIX}:database/{name}")["Tags"] == {"env": "prod", "cost": "42"}


def test_connection_tags(glue: Any) -> None:
    name = unique("TaggedConn")
    glue.create_connection(ConnectionInput=jdbc_input(name), Tags={"owner": "ops"})
    arn = f"{PREFIX}:connection/{name}"
    assert glue.get_tags(ResourceArn=arn)["Tags"] == {"owner": "ops"}
    glue.tag_resource(ResourceArn=arn, TagsToAdd={"tier": "gold"})
    assert glue.get_tags(ResourceArn=arn)["Tags"] == {"owner": "ops", "tier": "gold"}
    with pytest.raises(ClientError) as excinfo:  # connection names are case-sensitive
        glue.get_tags(ResourceArn=f"{PREFIX}:connection/{name.lower()}")
    assert error_of(excinfo) == ("EntityNotFoundException",
                                 f"Resource {PREFIX}:connection/{name.lower()} not found.")


def test_deleting_a_resource_deletes_its_tags(glue: Any) -> None:
    name = unique("shortlived")
    arn = f"{PREFIX}:database/{name}"
    glue.create_database(DatabaseInput={"Name": name}, Tags={"a": "1"})
    glue.delete_database(Name=name)
    with pytest.raises(ClientError) as excinfo:
        glue.get_tags(ResourceArn=arn)
    assert error_of(excinfo) == ("EntityNotFoundException", f"Resource {arn} not found.")
    glue.create_database(DatabaseInput={"Name": name})
    assert glue.get_tags(ResourceArn=arn)["Tags"] == {}


def test_missing_resources_are_entity_not_found(glue: Any) -> None:
    for arn in (f"{PREFIX}:database/{unique('nodb')}", f"{PREFIX}:connection/{unique('noconn')}"):
        for call in (lambda a: glue.get_tags(ResourceArn=a),
                     lambda a: glue.tag_resource(ResourceArn=a, TagsToAdd={"k": "v"}),
                     lambda a: glue.untag_resource(ResourceArn=a, TagsToRemove=["k"])):
            with pytest.raises(ClientError) as excinfo:
                call(arn)
            assert error_of(excinfo) == ("EntityNotFoundException", f"Resource {arn} not found.")


@pytest.mark.parametrize(("arn", "message"), [
    (f"{PREFIX}:database", f"Invalid ResourceArn '{PREFIX}:database': expected "
                           "arn:aws:glue:REGION:ACCOUNT:TYPE/NAME"),
    (f"{PREFIX}:database/", f"Invalid ResourceArn '{PREFIX}:database/': expected "
                            "arn:aws:glue:REGION:ACCOUNT:TYPE/NAME"),
    ("arn:aws:glue:us-east-1", "Invalid ResourceArn 'arn:aws:glue:us-east-1': expected "
                               "arn:aws:glue:REGION:ACCOUNT:TYPE/NAME"),
    (f"{PREFIX}:table/db/t", f"Invalid ResourceArn '{PREFIX}:table/db/t': resource type 'table' cannot be "
                             "tagged; taggable types are: blueprint, connection, crawler, dataQualityRuleset, "
                             "database, devEndpoint, job, mlTransform, registry, schema, session, trigger, workflow"),
])
def test_malformed_or_untaggable_arns_are_invalid_input(glue: Any, arn: str, message: str) -> None:
    with pytest.raises(ClientError) as excinfo:
        glue.get_tags(ResourceArn=arn)
    assert error_of(excinfo) == ("InvalidInputException", message)


def test_non_glue_arn_is_a_validation_error(server: ServerProcess) -> None:
    raw = server.client(parameter_validation=False)
    with pytest.raises(ClientError) as excinfo:
        raw.get_tags(ResourceArn="arn:aws:s3:::bucket")
    code, message = error_of(excinfo)
    assert code == "ValidationException"
    assert "at 'resourceArn' failed to satisfy constraint: Member must satisfy regular expression pattern" \
        in message


def test_other_account_and_region(glue: Any) -> None:
    name = unique("scoped")
    glue.create_database(DatabaseInput={"Name": name})
    other_account = f"arn:aws:glue:us-east-1:999999999999:database/{name}"
    with pytest.raises(ClientError) as excinfo:
        glue.get_tags(ResourceArn=other_account)
    assert error_of(excinfo) == ("AccessDeniedException", "Account 123456789012 is not authorized to access "
                                 f"resource {other_account}")
    with pytest.raises(ClientError) as excinfo:
        glue.tag_resource(ResourceArn=other_account, TagsToAdd={"k": "v"})
    assert error_of(excinfo)[0] == "AccessDeniedException"
    other_region = f"arn:aws:glue:eu-west-1:123456789012:database/{name}"
    with pytest.raises(ClientError) as excinfo:
        glue.get_tags(ResourceArn=other_region)
    assert error_of(excinfo) == ("EntityNotFoundException", f"Resource {other_region} not found in region "
                                 "us-east-1.")


def test_at_most_fifty_tags_per_resource(glue: Any) -> None:
    name = unique("many")
    arn = f"{PREFIX}:connection/{name}"
    glue.create_connection(ConnectionInput=jdbc_input(name), Tags={f"k{i}": str(i) for i in range(40)})
    glue.tag_resource(ResourceArn=arn, TagsToAdd={f"k{i}": "again" for i in range(30, 50)})  # 10 new: 50
    assert len(glue.get_tags(ResourceArn=arn)["Tags"]) == 50
    with pytest.raises(ClientError) as excinfo:
        glue.tag_resource(ResourceArn=arn, TagsToAdd={"one-more": "x"})
    assert error_of(excinfo) == ("InvalidInputException",
                                 f"Resource {arn} would have 51 tags; a resource can have at most 50")
    tags = glue.get_tags(ResourceArn=arn)["Tags"]
    assert len(tags) == 50
    assert "one-more" not in tags
    assert tags["k30"] == "again"


def test_reserved_tag_prefix_is_refused(glue: Any) -> None:
    name = unique("reserved")
    with pytest.raises(ClientError) as excinfo:
        glue.create_connection(ConnectionInput=jdbc_input(name), Tags={"aws:owner": "me"})
    assert error_of(excinfo) == ("InvalidInputException",
                                 "Tag key 'aws:owner' is invalid: the prefix 'aws:' is reserved for AWS use")
    with pytest.raises(ClientError) as excinfo:
        glue.get_connection(Name=name)
    assert error_of(excinfo)[0] == "EntityNotFoundException"  # the create was rolled back
    glue.create_database(DatabaseInput={"Name": name})
    with pytest.raises(ClientError) as excinfo:
        glue.tag_resource(ResourceArn=f"{PREFIX}:database/{name}", TagsToAdd={"AWS:x": "1"})
    assert error_of(excinfo)[0] == "InvalidInputException"


def test_tags_are_per_region(server: ServerProcess, glue: Any) -> None:
    name = unique("regional")
    glue.create_database(DatabaseInput={"Name": name}, Tags={"where": "us"})
    eu = server.client(region="eu-west-1")
    eu.create_database(DatabaseInput={"Name": name}, Tags={"where": "eu"})
    assert glue.get_tags(ResourceArn=f"{PREFIX}:database/{name}")["Tags"] == {"where": "us"}
    eu_arn = f"arn:aws:glue:eu-west-1:123456789012:database/{name}"
    assert eu.get_tags(ResourceArn=eu_arn)["Tags"] == {"where": "eu"}
