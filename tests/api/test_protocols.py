"""The multi-service edge: STS over the query protocol beside Glue over JSON, and each protocol's errors.

STS ``GetCallerIdentity`` proves the query path end to end: routed by the SigV4 credential
scope (boto3, the AWS CLI) or by its API version (unsigned), answered in XML, with the query
protocol's errors (``<ErrorResponse>``) for what it cannot serve. Nothing a client sends gets a 500.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import botocore.config
import pytest
import urllib3
from botocore.exceptions import ClientError

from glueball.api.operations import Operations
from glueball.app import Glueball, embedded_client
from glueball.config import Settings
from glueball.edge.router import Edge
from glueball.edge.sigv4 import AccountDirectory
from glueball.edge.wire import WireRequest
from tests.helpers import ServerProcess, error_of

NS = {"sts": "https://sts.amazonaws.com/doc/2011-06-15/"}
STS_TAG = "{" + NS["sts"] + "}"
FORM = {"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"}


@pytest.fixture(scope="module")
def sts_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    home = tmp_path_factory.mktemp("sts-home")
    proc = ServerProcess(home, extra_args=("--access-key", "AKIDALICE=111111111111")).start()
    yield proc
    proc.stop()


def sts(server: ServerProcess, access_key: str = "AKIDALICE") -> Any:
    return boto3.client("sts", endpoint_url=server.endpoint, region_name="us-east-1",
                        aws_access_key_id=access_key, aws_secret_access_key="secret",
                        config=botocore.config.Config(retries={"max_attempts": 1}))


def post(server: ServerProcess, body: bytes | str, headers: dict[str, str] | None = None,
         path: str = "/", method: str = "POST") -> tuple[int, bytes, Any]:
    data = body.encode() if isinstance(body, str) else body
    response = urllib3.PoolManager().request(method, server.endpoint + path, body=data or None,
                                             headers=headers if headers is not None else FORM)
    return response.status, response.data, response.headers


def xml_error(body: bytes) -> tuple[str, str, str]:
    root = ET.fromstring(body)
    assert root.tag in (STS_TAG + "ErrorResponse", "ErrorResponse"), body
    error = root.find("{*}Error")
    assert error is not None, body
    return (error.findtext("{*}Type") or "", error.findtext("{*}Code") or "", error.findtext("{*}Message") or "")


def test_boto3_get_caller_identity_names_the_keys_account(sts_server: ServerProcess) -> None:
    answer = sts(sts_server).get_caller_identity()
    assert (answer["Account"], answer["UserId"], answer["Arn"]) == (
        "111111111111", "111111111111", "arn:aws:iam::111111111111:root")
    other = sts(sts_server, "AKIDUNKNOWN").get_caller_identity()
    assert other["Account"] == "123456789012"  # unknown keys belong to the default account


def test_the_aws_cli_reaches_sts_and_glue_on_one_port(sts_server: ServerProcess, tmp_path: Path) -> None:
    env = {**os.environ, "AWS_ACCESS_KEY_ID": "AKIDALICE", "AWS_SECRET_ACCESS_KEY": "secret",
           "AWS_DEFAULT_REGION": "us-east-1", "AWS_CONFIG_FILE": str(tmp_path / "none"),
           "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "none")}
    aws = [sys.executable, "-m", "awscli", "--endpoint-url", sts_server.endpoint, "--output", "json"]
    identity = subprocess.run([*aws, "sts", "get-caller-identity"], env=env, capture_output=True, text=True,
                              timeout=120, check=True)
    assert json.loads(identity.stdout)["Account"] == "111111111111"
    databases = subprocess.run([*aws, "glue", "get-databases"], env=env, capture_output=True, text=True,
                               timeout=120, check=True)
    assert json.loads(databases.stdout) == {"DatabaseList": []}


def test_unsigned_query_requests_are_routed_by_api_version(sts_server: ServerProcess) -> None:
    status, body, headers = post(sts_server, "Action=GetCallerIdentity&Version=2011-06-15")
    assert status == 200 and headers["Content-Type"] == "text/xml"
    root = ET.fromstring(body)
    assert root.tag == STS_TAG + "GetCallerIdentityResponse"
    assert root.findtext("sts:GetCallerIdentityResult/sts:Account", namespaces=NS) == "123456789012"
    assert root.findtext("sts:ResponseMetadata/sts:RequestId", namespaces=NS) == headers["x-amzn-RequestId"]
    # the query protocol also takes its parameters in the query string of a GET
    status, body, _ = post(sts_server, b"", headers={}, path="/?Action=GetCallerIdentity&Version=2011-06-15",
                           method="GET")
    assert status == 200 and b"<Account>123456789012</Account>" in body


@pytest.mark.parametrize(("body", "code", "message"), [
    ("Action=AssumeRoot&Version=2011-06-15", "InvalidAction",
     "sts.AssumeRoot is not implemented by glueball; see docs/IMPLEMENTATION_COVERAGE.md"),
    ("Action=FlyToTheMoon&Version=2011-06-15", "InvalidAction",
     "Could not find operation FlyToTheMoon for version 2011-06-15"),
    ("Version=2011-06-15", "MissingAction", "The request must contain the parameter Action"),
    ("Action=GetCallerIdentity&Action=GetCallerIdentity&Version=2011-06-15", "MalformedQueryString",
     "The parameter Action is given more than once"),
    ("Action=GetCallerIdentity&Version=2011-06-15&Extra=1", "InvalidParameterValue",
     "Unknown parameter(s) for GetCallerIdentity: Extra"),
])
def test_query_protocol_errors(sts_server: ServerProcess, body: str, code: str, message: str) -> None:
    status, answer, headers = post(sts_server, body)
    assert (status, headers["Content-Type"]) == (400, "text/xml")
    assert xml_error(answer) == ("Sender", code, message)


def test_a_body_that_is_not_form_encoded_is_malformed(sts_server: ServerProcess) -> None:
    signed = ("AWS4-HMAC-SHA256 Credential=AKIDALICE/20260101/us-east-1/sts/aws4_request, "
              "SignedHeaders=host, Signature=00")
    for headers in (FORM, {**FORM, "Authorization": signed}):
        status, answer, _ = post(sts_server, b"Action=GetCallerIdentity&Version=2011-06-15&\xff\xfe=1", headers)
        assert status == 400 and xml_error(answer)[1] == "MalformedQueryString"


def test_services_glueball_does_not_serve_get_their_protocols_error(sts_server: ServerProcess) -> None:
    firehose = ("AWS4-HMAC-SHA256 Credential=AKIDALICE/20260101/us-east-1/firehose/aws4_request, "
                "SignedHeaders=host, Signature=00")
    status, answer, _ = post(sts_server, b'{"DeliveryStreamName": "s"}',
                             headers={"Content-Type": "application/x-amz-json-1.1", "Authorization": firehose})
    assert status == 400
    assert json.loads(answer) == {"__type": "UnknownOperationException",
                                  "message": "glueball does not serve the service 'firehose'"}
    status, answer, _ = post(sts_server, "Action=ListTopics&Version=2010-03-31", headers={**FORM, "Authorization":
                             firehose.replace("/firehose/", "/sns/")})
    assert status == 400 and xml_error(answer)[1:] == ("InvalidAction", "glueball does not serve the service 'sns'")
    status, answer, _ = post(sts_server, "Action=ListUsers&Version=1999-01-01")
    assert status == 400 and xml_error(answer)[1] == "InvalidAction"


def test_glue_errors_keep_their_json_form_beside_query_services(sts_server: ServerProcess) -> None:
    status, answer = sts_server.raw("GetDatabase", {"Name": "missing"})
    assert (status, answer) == (400, {"__type": "EntityNotFoundException", "message": "Database missing not found."})
    status, answer, _ = post(sts_server, b"{}", headers={"Content-Type": "application/x-amz-json-1.1"})
    assert (status, json.loads(answer)) == (400, {"__type": "UnknownOperationException",
                                                  "message": "Missing X-Amz-Target header"})


def test_embedded_clients_of_two_protocols_share_one_installation(tmp_path: Path) -> None:
    glue = Glueball(Settings(home=tmp_path))
    try:
        identity = embedded_client(glue, "sts").get_caller_identity()
        assert identity["Arn"] == "arn:aws:iam::123456789012:root"
        client = embedded_client(glue)
        client.create_database(DatabaseInput={"Name": "shared"})
        paginator = client.get_paginator("get_databases")
        assert [d["Name"] for page in paginator.paginate() for d in page["DatabaseList"]] == ["shared"]
        with pytest.raises(ClientError) as excinfo:
            embedded_client(glue, "glueball").get_job_run_metrics(JobName="none", RunId="jr_1")
        assert error_of(excinfo) == ("EntityNotFoundException", "Job not found.")
    finally:
        glue.close()


# ---------------------------------------------------------------- the query protocol's reading, on a test edge

def _echo_edge() -> Edge:
    """An edge with STS whose AssumeRole and GetSessionToken handlers answer what they were given."""
    edge = Edge(AccountDirectory(), "us-east-1")
    edge.add_query_service("sts")
    operations = Operations("sts")
    received: list[dict[str, Any]] = []

    @operations.operation("AssumeRole")
    def assume_role(needs: Any, caller: Any, request: dict[str, Any]) -> dict[str, Any]:
        received.append(request)
        return {"AssumedRoleUser": {"AssumedRoleId": "AROA:" + request["RoleSessionName"],
                                    "Arn": request["RoleArn"]}, "PackedPolicySize": 7}

    @operations.operation("GetSessionToken")
    def get_session_token(needs: Any, caller: Any, request: dict[str, Any]) -> dict[str, Any]:
        received.append(request)
        return {"Credentials": {"AccessKeyId": "ASIA", "SecretAccessKey": "s", "SessionToken": "t",
                                "Expiration": 1_900_000_000}}

    edge.mount(operations, None)
    edge.received = received  # type: ignore[attr-defined]
    return edge


def _form(edge: Edge, body: str) -> tuple[int, ET.Element]:
    wire = edge.handle(WireRequest("POST", "/", "", {"content-type": "application/x-www-form-urlencoded"},
                                   body.encode()))
    return wire.status, ET.fromstring(wire.body)


def test_query_parameters_are_read_into_the_input_shape() -> None:
    edge = _echo_edge()
    status, root = _form(edge, "Action=AssumeRole&Version=2011-06-15&RoleArn=arn%3Aaws%3Aiam%3A%3A2%3Arole%2Fr"
                               "&RoleSessionName=me&DurationSeconds=3600&Tags.member.1.Key=team"
                               "&Tags.member.1.Value=analytics&Tags.member.2.Key=cost&Tags.member.2.Value=42"
                               "&TransitiveTagKeys.member.1=team&PolicyArns.member.1.arn=arn%3Aaws%3Aiam%3A%3A2%3Apolicy%2Fp")
    assert status == 200
    assert edge.received[-1] == {  # type: ignore[attr-defined]
        "RoleArn": "arn:aws:iam::2:role/r", "RoleSessionName": "me", "DurationSeconds": 3600,
        "Tags": [{"Key": "team", "Value": "analytics"}, {"Key": "cost", "Value": "42"}],
        "TransitiveTagKeys": ["team"], "PolicyArns": [{"arn": "arn:aws:iam::2:policy/p"}]}
    result = root.find("{*}AssumeRoleResult")
    assert result is not None
    assert result.findtext("{*}AssumedRoleUser/{*}AssumedRoleId") == "AROA:me"
    assert result.findtext("{*}PackedPolicySize") == "7"
    status, root = _form(edge, "Action=GetSessionToken&Version=2011-06-15")
    assert root.findtext("{*}GetSessionTokenResult/{*}Credentials/{*}Expiration") == "2030-03-17T17:46:40Z"


@pytest.mark.parametrize(("body", "code", "message"), [
    ("Action=GetSessionToken&Version=2011-06-15&DurationSeconds=soon", "InvalidParameterValue",
     "Value 'soon' for parameter DurationSeconds is not a number"),
    ("Action=GetSessionToken&Version=2011-06-15&DurationSeconds=5", "ValidationError",
     "1 validation error detected: Value '5' at 'durationSeconds' failed to satisfy constraint: "
     "Member must have value greater than or equal to 900"),
    ("Action=AssumeRole&Version=2011-06-15&RoleSessionName=me", "ValidationError",
     "1 validation error detected: Value null at 'roleArn' failed to satisfy constraint: Member must not be null"),
    ("Action=AssumeRole&Version=2011-06-15&RoleArn=arn%3Aaws%3Aiam%3A%3A2%3Arole%2Fr&RoleSessionName=me"
     "&Tags.member.1.Value=v", "ValidationError",
     "1 validation error detected: Value null at 'tags.1.member.key' failed to satisfy constraint: "
     "Member must not be null"),
    ("Action=GetSessionToken&Version=2011-06-15&DurationSeconds=900&DurationSeconds=901", "MalformedQueryString",
     "The parameter DurationSeconds is given more than once"),
])
def test_query_parameters_that_do_not_fit_the_model_are_refused(body: str, code: str, message: str) -> None:
    edge = _echo_edge()
    status, root = _form(edge, body)
    assert status == 400
    assert (root.findtext("{*}Error/{*}Code"), root.findtext("{*}Error/{*}Message")) == (code, message)
    assert edge.received == []  # type: ignore[attr-defined]


def test_a_handler_bug_is_a_500_in_the_query_form_with_the_request_id() -> None:
    edge = Edge(AccountDirectory(), "us-east-1")
    edge.add_query_service("sts")
    operations = Operations("sts")

    @operations.operation("GetCallerIdentity")
    def broken(needs: Any, caller: Any, request: dict[str, Any]) -> dict[str, Any]:
        raise KeyError("bug")

    edge.mount(operations, None)
    wire = edge.handle(WireRequest("POST", "/", "", {"content-type": "application/x-www-form-urlencoded"},
                                   b"Action=GetCallerIdentity&Version=2011-06-15"))
    root = ET.fromstring(wire.body)
    assert wire.status == 500
    assert (root.findtext("{*}Error/{*}Type"), root.findtext("{*}Error/{*}Code")) == ("Receiver", "InternalFailure")
    assert root.findtext("{*}RequestId") == wire.request_id


def test_mounting_checks_names_against_the_model() -> None:
    edge = Edge(AccountDirectory(), "us-east-1")
    edge.add_query_service("sts")
    operations = Operations("sts")
    operations.operation("GetCallerIdentityz")(lambda needs, caller, request: {})
    with pytest.raises(ValueError, match="GetCallerIdentityz is not an operation of the sts service model"):
        edge.mount(operations, None)
    with pytest.raises(ValueError, match="no service 'iam'"):
        edge.mount(Operations("iam"), None)
