"""What ``--auth iam`` remembers between requests never outlives a change: a key deactivated or deleted, a
policy changed or a principal replaced decides the very next request, and every request's signature is
still computed and compared. In-process (the edge alone), through boto3 clients answered by the edge.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import boto3
import botocore.config
import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from botocore.exceptions import ClientError

from glueball.api.identity import Caller, KeyHolder, Principal, PrincipalKind
from glueball.api.operations import Operations
from glueball.app import Glueball, embedded_client
from glueball.config import Settings
from glueball.edge import verified
from glueball.edge.inprocess import answer_in_process, to_wire_request
from glueball.edge.router import Edge
from glueball.edge.sigv4 import AccountDirectory
from glueball.edge.wire import WireRequest, WireResponse
from glueball.iam.actions import _glue_ask, glue_ask

READ = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "glue:GetDatabase", "Resource": "*"}]}


@pytest.fixture(scope="module")
def installation(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Glueball, tuple[str, str]]]:
    glue = Glueball(Settings(home=tmp_path_factory.mktemp("remembered-iam"), auth="iam"))
    root = glue.ensure_root_key()
    assert root is not None
    embedded_client(glue, "glue", root[0], secret=root[1]).create_database(DatabaseInput={"Name": "kept"})
    yield glue, root
    glue.close()


def code_of(call: Any, **kwargs: Any) -> str:
    with pytest.raises(ClientError) as caught:
        call(**kwargs)
    return str(caught.value.response["Error"]["Code"])


def reader(glue: Glueball, root: tuple[str, str], name: str) -> tuple[Any, Any, dict[str, str]]:
    """A user allowed to read databases, its key, and clients of root's IAM and of the user's Glue."""
    iam = embedded_client(glue, "iam", root[0], secret=root[1])
    iam.create_user(UserName=name)
    iam.put_user_policy(UserName=name, PolicyName="read", PolicyDocument=json.dumps(READ))
    key = iam.create_access_key(UserName=name)["AccessKey"]
    user_glue = embedded_client(glue, "glue", key["AccessKeyId"], secret=key["SecretAccessKey"])
    for _ in range(3):  # remembered from here on
        user_glue.get_database(Name="kept")
    return iam, user_glue, key


def test_a_deactivated_key_is_refused_at_once(installation: tuple[Glueball, tuple[str, str]]) -> None:
    glue, root = installation
    iam, user_glue, key = reader(glue, root, "deactivated")
    iam.update_access_key(UserName="deactivated", AccessKeyId=key["AccessKeyId"], Status="Inactive")
    assert code_of(user_glue.get_database, Name="kept") == "UnrecognizedClientException"
    iam.update_access_key(UserName="deactivated", AccessKeyId=key["AccessKeyId"], Status="Active")
    assert user_glue.get_database(Name="kept")["Database"]["Name"] == "kept"


def test_a_deleted_key_is_refused_at_once(installation: tuple[Glueball, tuple[str, str]]) -> None:
    glue, root = installation
    iam, user_glue, key = reader(glue, root, "deleted")
    iam.delete_access_key(UserName="deleted", AccessKeyId=key["AccessKeyId"])
    assert code_of(user_glue.get_database, Name="kept") == "UnrecognizedClientException"


def test_a_changed_policy_decides_at_once(installation: tuple[Glueball, tuple[str, str]]) -> None:
    glue, root = installation
    iam, user_glue, _ = reader(glue, root, "narrowed")
    deny = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Deny", "Action": "glue:GetDatabase", "Resource": "*"}]}
    iam.put_user_policy(UserName="narrowed", PolicyName="deny", PolicyDocument=json.dumps(deny))
    assert code_of(user_glue.get_database, Name="kept") == "AccessDeniedException"  # an explicit deny wins
    iam.delete_user_policy(UserName="narrowed", PolicyName="deny")
    assert user_glue.get_database(Name="kept")["Database"]["Name"] == "kept"
    iam.delete_user_policy(UserName="narrowed", PolicyName="read")
    assert code_of(user_glue.get_database, Name="kept") == "AccessDeniedException"


def test_a_changed_policy_decides_a_request_sent_again_unchanged(installation: tuple[Glueball, tuple[str, str]],
                                                                   full_verifications: list[WireRequest]) -> None:
    glue, root = installation
    iam, _, key = reader(glue, root, "resent")
    request = AWSRequest("POST", "http://glueball.embedded/", data=b'{"Name": "kept"}',
                         headers={"X-Amz-Target": "AWSGlue.GetDatabase", "Content-Type": "application/x-amz-json-1.1"})
    SigV4Auth(Credentials(key["AccessKeyId"], key["SecretAccessKey"]), "glue", "us-east-1").add_auth(request)
    resent = to_wire_request(request.prepare())
    assert glue.handle(resent).status == 200
    assert glue.handle(resent).status == 200
    verified_before = len(full_verifications)
    deny = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Deny", "Action": "glue:GetDatabase", "Resource": "*"}]}
    iam.put_user_policy(UserName="resent", PolicyName="deny", PolicyDocument=json.dumps(deny))
    denied = glue.handle(resent)
    assert denied.status == 400 and b"AccessDeniedException" in denied.body and b"explicit deny" in denied.body
    iam.delete_user_policy(UserName="resent", PolicyName="deny")
    assert glue.handle(resent).status == 200
    # verified in full again after each IAM change (the key's holder is read anew), recognised otherwise
    assert [r for r in full_verifications[verified_before:] if r is resent] == [resent, resent]


def test_every_request_of_a_remembered_key_is_verified(installation: tuple[Glueball, tuple[str, str]]) -> None:
    glue, root = installation
    _, _, key = reader(glue, root, "verified")
    forged = embedded_client(glue, "glue", key["AccessKeyId"], secret=key["SecretAccessKey"][:-1] + "x")
    assert code_of(forged.get_database, Name="kept") == "InvalidSignatureException"


def test_a_remembered_key_serves_each_region_its_own(installation: tuple[Glueball, tuple[str, str]]) -> None:
    glue, root = installation
    _, east, key = reader(glue, root, "travelling")
    west = embedded_client(glue, "glue", key["AccessKeyId"], region="eu-west-1", secret=key["SecretAccessKey"])
    assert code_of(west.get_database, Name="kept") == "EntityNotFoundException"  # kept is in us-east-1
    assert east.get_database(Name="kept")["Database"]["Name"] == "kept"


def _whoami_edge(holders: dict[str, KeyHolder | None],
                 clock: Callable[[], dt.datetime] | None = None) -> tuple[Edge, list[Caller]]:
    """An edge whose key lookup answers from ``holders`` and whose GetCallerIdentity records its caller."""
    edge = Edge(AccountDirectory(), "us-east-1", keys=holders.get, clock=clock)
    edge.add_query_service("sts")
    operations = Operations("sts")
    callers: list[Caller] = []

    @operations.operation("GetCallerIdentity")
    def get_caller_identity(needs: Any, caller: Caller, request: dict[str, Any]) -> dict[str, Any]:
        callers.append(caller)
        return {"Account": caller.account_id, "Arn": caller.who.arn, "UserId": caller.who.unique_id}

    edge.mount(operations, None)
    return edge, callers


def _sts(edge: Edge, key: str, secret: str, source: str = "127.0.0.1") -> Any:
    client = boto3.client("sts", endpoint_url="http://edge.test", region_name="us-east-1", aws_access_key_id=key,
                          aws_secret_access_key=secret, config=botocore.config.Config(retries={"max_attempts": 1}))

    def handle(request: Any) -> Any:
        return edge.handle(replace(request, source_ip=source))

    answer_in_process(client, handle)
    return client


def _user(name: str, account: str = "111122223333") -> Principal:
    return Principal(PrincipalKind.USER, account, f"arn:aws:iam::{account}:user/{name}", unique_id=name, name=name)


def test_the_edge_keeps_a_key_only_while_its_lookup_answers_the_same_holder() -> None:
    holders: dict[str, KeyHolder | None] = {"AKIDKEPT": KeyHolder("first-secret", _user("alice"))}
    edge, callers = _whoami_edge(holders)
    first = _sts(edge, "AKIDKEPT", "first-secret")
    for _ in range(2):
        assert first.get_caller_identity()["Arn"].endswith(":user/alice")
    assert callers[0] is callers[1]  # the same holder: the same caller, made once
    # the key's secret changes (a new holder): the old secret's signatures no longer verify
    holders["AKIDKEPT"] = KeyHolder("second-secret", _user("alice"))
    assert code_of(first.get_caller_identity) == "SignatureDoesNotMatch"
    assert _sts(edge, "AKIDKEPT", "second-secret").get_caller_identity()["Arn"].endswith(":user/alice")
    # the key now acts as someone else: the caller follows the holder
    holders["AKIDKEPT"] = KeyHolder("second-secret", _user("bob", "444455556666"))
    assert _sts(edge, "AKIDKEPT", "second-secret").get_caller_identity()["Account"] == "444455556666"
    # deactivated, then gone
    holders["AKIDKEPT"] = KeyHolder("second-secret", _user("bob"), active=False)
    assert code_of(_sts(edge, "AKIDKEPT", "second-secret").get_caller_identity) == "InvalidClientTokenId"
    holders["AKIDKEPT"] = None
    assert code_of(_sts(edge, "AKIDKEPT", "second-secret").get_caller_identity) == "InvalidClientTokenId"


def test_the_edge_keeps_each_source_address_its_own_caller() -> None:
    holders: dict[str, KeyHolder | None] = {"AKIDKEPT": KeyHolder("secret", _user("alice"))}
    edge, callers = _whoami_edge(holders)
    _sts(edge, "AKIDKEPT", "secret", "10.0.0.1").get_caller_identity()
    _sts(edge, "AKIDKEPT", "secret", "10.0.0.2").get_caller_identity()
    assert [c.source_ip for c in callers] == ["10.0.0.1", "10.0.0.2"]


def _signed_whoami(key: str, secret: str) -> WireRequest:
    """A GetCallerIdentity request signed by botocore, as the edge receives it."""
    request = AWSRequest("POST", "http://edge.test/", data=b"Action=GetCallerIdentity&Version=2011-06-15",
                         headers={"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"})
    SigV4Auth(Credentials(key, secret), "sts", "us-east-1").add_auth(request)
    return to_wire_request(request.prepare())


def _answer(response: WireResponse) -> str:
    """"OK", or the error code of a query-protocol answer."""
    if response.status == 200:
        return "OK"
    found = re.search(rb"<Code>([^<]+)</Code>", response.body)
    assert found is not None, response.body
    return found.group(1).decode()


@pytest.fixture()
def full_verifications(monkeypatch: pytest.MonkeyPatch) -> list[WireRequest]:
    """The requests whose signature the edge computed in full (the others it recognised as verified before)."""
    calls: list[WireRequest] = []
    full = verified.verify

    def counted(request: WireRequest, *args: Any) -> None:
        calls.append(request)
        full(request, *args)

    monkeypatch.setattr(verified, "verify", counted)
    return calls


def test_a_request_sent_again_unchanged_is_recognised_and_a_changed_one_verified_in_full(
        full_verifications: list[WireRequest]) -> None:
    edge, callers = _whoami_edge({"AKIDKEPT": KeyHolder("secret", _user("alice"))})
    request = _signed_whoami("AKIDKEPT", "secret")
    for _ in range(3):
        assert _answer(edge.handle(request)) == "OK"
    assert full_verifications == [request] and len(callers) == 3
    more = replace(request, body=request.body + b"&DurationSeconds=900")
    assert _answer(edge.handle(more)) == "SignatureDoesNotMatch"
    assert _answer(edge.handle(replace(request, query="Action=GetSessionToken"))) == "SignatureDoesNotMatch"
    elsewhere = replace(request, headers={**request.headers, "host": "elsewhere.test"})
    assert _answer(edge.handle(elsewhere)) == "SignatureDoesNotMatch"
    assert len(full_verifications) == 4 and len(callers) == 3
    assert _answer(edge.handle(request)) == "OK" and len(full_verifications) == 4


def test_a_request_sent_again_after_its_key_changed_is_decided_by_the_key_now() -> None:
    holders: dict[str, KeyHolder | None] = {"AKIDKEPT": KeyHolder("secret", _user("alice"))}
    edge, _ = _whoami_edge(holders)
    request = _signed_whoami("AKIDKEPT", "secret")
    assert _answer(edge.handle(request)) == "OK"
    holders["AKIDKEPT"] = KeyHolder("rotated-secret", _user("alice"))
    assert _answer(edge.handle(request)) == "SignatureDoesNotMatch"
    holders["AKIDKEPT"] = KeyHolder("secret", _user("alice"), active=False)
    assert _answer(edge.handle(request)) == "InvalidClientTokenId"
    holders["AKIDKEPT"] = None
    assert _answer(edge.handle(request)) == "InvalidClientTokenId"
    holders["AKIDKEPT"] = KeyHolder("secret", _user("alice"))
    assert _answer(edge.handle(request)) == "OK"


def test_a_request_sent_again_is_refused_once_its_time_is_past() -> None:
    moment = [dt.datetime.now(dt.UTC)]
    edge, _ = _whoami_edge({"AKIDKEPT": KeyHolder("secret", _user("alice"))}, clock=lambda: moment[0])
    request = _signed_whoami("AKIDKEPT", "secret")
    assert _answer(edge.handle(request)) == "OK"
    moment[0] += dt.timedelta(minutes=4)
    assert _answer(edge.handle(request)) == "OK"
    moment[0] += dt.timedelta(minutes=2)
    assert _answer(edge.handle(request)) == "SignatureDoesNotMatch"


@pytest.mark.parametrize("operation,request_", [
    ("GetTable", {"DatabaseName": "sales", "Name": "orders"}),
    ("GetTable", {"CatalogId": "111122223333", "DatabaseName": "sales", "Name": "orders"}),
    ("GetDatabase", {"Name": "sales"}),
    ("GetTables", {"DatabaseName": "sales"}),
    ("GetCrawler", {"Name": "nightly"}),
    ("GetDatabases", {}),
    ("GetPartitions", {"DatabaseName": "sales", "TableName": "orders"}),
])
def test_a_question_asked_by_name_is_the_question_made_in_full(operation: str, request_: dict[str, str]) -> None:
    """Requests that name resources only by DatabaseName, Name and TableName have their question remembered
    per name; it is the one made from the whole request."""
    for _ in range(2):
        assert glue_ask(operation, request_, "111122223333", "us-east-1") == \
            _glue_ask(operation, request_, "111122223333", "us-east-1")


def test_a_request_with_other_members_is_asked_in_full() -> None:
    tagged = glue_ask("CreateDatabase", {"DatabaseInput": {"Name": "d"}, "Tags": {"team": "bi"}}, "111122223333",
                      "us-east-1")
    assert tagged.resources[-1].endswith(":database/d")
    assert tagged.context["aws:RequestTag/team"] == "bi"
