"""Dev endpoints as stored resources through boto3 against `glueball server` (SQLite and PostgreSQL)."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.helpers import error_of, unique

ROLE = "arn:aws:iam::123456789012:role/dev"


def expect_error(call: Any, code: str) -> str:
    with pytest.raises(ClientError) as excinfo:
        call()
    got, message = error_of(excinfo)
    assert got == code, message
    return message


def test_create_get_update_delete(glue: Any) -> None:
    name, configuration = unique("dev"), unique("sec")
    glue.create_security_configuration(Name=configuration, EncryptionConfiguration={})
    created = glue.create_dev_endpoint(EndpointName=name, RoleArn=ROLE, SecurityGroupIds=["sg-1"], SubnetId="subnet-1",
                                       PublicKeys=["ssh-rsa AAA one"], WorkerType="G.1X", NumberOfWorkers=3,
                                       GlueVersion="1.0", SecurityConfiguration=configuration,
                                       Arguments={"--enable-glue-datacatalog": "", "GLUE_PYTHON_VERSION": "3"},
                                       Tags={"team": "data"})
    assert created["EndpointName"] == name and created["Status"] == "READY"
    assert created["WorkerType"] == "G.1X" and created["NumberOfWorkers"] == 3
    got = glue.get_dev_endpoint(EndpointName=name)["DevEndpoint"]
    assert got["RoleArn"] == ROLE and got["SubnetId"] == "subnet-1" and got["SecurityGroupIds"] == ["sg-1"]
    assert got["PublicKeys"] == ["ssh-rsa AAA one"] and got["SecurityConfiguration"] == configuration
    assert "YarnEndpointAddress" not in got and "PrivateAddress" not in got  # no endpoint process runs

    glue.update_dev_endpoint(EndpointName=name, AddPublicKeys=["ssh-rsa BBB two"], DeletePublicKeys=["ssh-rsa AAA one"],
                             CustomLibraries={"ExtraPythonLibsS3Path": "s3://libs/a.zip",
                                              "ExtraJarsS3Path": "s3://libs/b.jar"}, UpdateEtlLibraries=True,
                             DeleteArguments=["GLUE_PYTHON_VERSION"], AddArguments={"--conf": "x=1"})
    got = glue.get_dev_endpoint(EndpointName=name)["DevEndpoint"]
    assert got["PublicKeys"] == ["ssh-rsa BBB two"]
    assert got["ExtraPythonLibsS3Path"] == "s3://libs/a.zip" and got["ExtraJarsS3Path"] == "s3://libs/b.jar"
    assert got["Arguments"] == {"--enable-glue-datacatalog": "", "--conf": "x=1"}
    assert got["LastUpdateStatus"] == "COMPLETED" and got["LastModifiedTimestamp"] >= got["CreatedTimestamp"]

    assert name in glue.list_dev_endpoints(Tags={"team": "data"})["DevEndpointNames"]
    assert name not in glue.list_dev_endpoints(Tags={"team": "other"})["DevEndpointNames"]
    assert name in [e["EndpointName"] for e in glue.get_dev_endpoints()["DevEndpoints"]]
    arn = f"arn:aws:glue:us-east-1:123456789012:devEndpoint/{name}"
    assert glue.get_tags(ResourceArn=arn)["Tags"] == {"team": "data"}
    batch = glue.batch_get_dev_endpoints(DevEndpointNames=[name, "missing"])
    assert [e["EndpointName"] for e in batch["DevEndpoints"]] == [name]
    assert batch["DevEndpointsNotFound"] == ["missing"]

    glue.delete_dev_endpoint(EndpointName=name)
    expect_error(lambda: glue.get_dev_endpoint(EndpointName=name), "EntityNotFoundException")
    expect_error(lambda: glue.get_tags(ResourceArn=arn), "EntityNotFoundException")


def test_defaults_and_paging(glue: Any) -> None:
    names = sorted(unique("devp") for _ in range(3))
    for name in names:
        glue.create_dev_endpoint(EndpointName=name, RoleArn=ROLE)
    assert glue.get_dev_endpoint(EndpointName=names[0])["DevEndpoint"]["NumberOfNodes"] == 5  # Glue's default DPUs
    seen: list[str] = []
    token = None
    while True:
        page = glue.list_dev_endpoints(MaxResults=2, **({"NextToken": token} if token else {}))
        seen += page["DevEndpointNames"]
        token = page.get("NextToken")
        if not token:
            break
    assert [n for n in seen if n in names] == names


def test_error_paths(glue: Any) -> None:
    name = unique("dev")
    glue.create_dev_endpoint(EndpointName=name, RoleArn=ROLE, PublicKey="ssh-rsa AAA")
    assert name in expect_error(lambda: glue.create_dev_endpoint(EndpointName=name, RoleArn=ROLE),
                                "AlreadyExistsException")
    for extra, why in (({"WorkerType": "G.1X"}, "must be given together"),
                       ({"NumberOfWorkers": 2}, "must be given together"),
                       ({"WorkerType": "G.1X", "NumberOfWorkers": 2, "NumberOfNodes": 3}, "NumberOfNodes cannot"),
                       ({"SecurityConfiguration": "no-such"}, "Security configuration no-such not found")):
        message = expect_error(lambda e=extra: glue.create_dev_endpoint(EndpointName=unique("dev"), RoleArn=ROLE, **e),
                               "InvalidInputException")
        assert why in message
    expect_error(lambda: glue.create_dev_endpoint(EndpointName=unique("dev"), RoleArn=ROLE,
                                                  PublicKeys=[f"k{i}" for i in range(5)], PublicKey="k9"),
                 "ValidationException")
    expect_error(lambda: glue.get_dev_endpoint(EndpointName="nope"), "EntityNotFoundException")
    expect_error(lambda: glue.update_dev_endpoint(EndpointName="nope", AddArguments={"a": "b"}),
                 "EntityNotFoundException")
    expect_error(lambda: glue.delete_dev_endpoint(EndpointName="nope"), "EntityNotFoundException")
    message = expect_error(lambda: glue.update_dev_endpoint(EndpointName=name, DeletePublicKeys=["ssh-rsa ZZZ"]),
                           "InvalidInputException")
    assert "ssh-rsa ZZZ" in message
    expect_error(lambda: glue.update_dev_endpoint(EndpointName=name, AddPublicKeys=[f"k{i}" for i in range(5)]),
                 "ValidationException")
    assert glue.get_dev_endpoint(EndpointName=name)["DevEndpoint"]["PublicKey"] == "ssh-rsa AAA"  # unchanged
    assert "PublicKeys" not in glue.get_dev_endpoint(EndpointName=name)["DevEndpoint"]
