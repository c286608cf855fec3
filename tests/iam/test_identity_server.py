"""Identity end to end on a real ``glueball server --auth iam``, through boto3 and the AWS CLI only.

Two accounts on one server: account B's roles and policies are created with ``aws iam`` from JSON
documents, a user of account A assumes B's ``GlueSessionCreationRole`` (both sides allow it),
``CreateJob`` without a connection is denied by the VpcIds rule and allowed with the NETWORK
connection ``session_vpc``, the job is tagged and found by tag. Around it: bad signatures, unknown
keys, expired tokens and old request times are refused with each service's code, and the log
records the refusals without a secret.
"""

from __future__ import annotations

import configparser
import json
import os
import sqlite3
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from unittest import mock

import boto3
import botocore.config
import pytest
from botocore.exceptions import ClientError

from tests.helpers import ServerProcess

ACCOUNT_A, ACCOUNT_B = "123456789012", "444455556666"
CONFIG = botocore.config.Config(retries={"max_attempts": 1})


def client(server: ServerProcess, service: str, key: str, secret: str, token: str | None = None) -> Any:
    return boto3.client(service, endpoint_url=server.endpoint, region_name="us-east-1", aws_access_key_id=key,
                        aws_secret_access_key=secret, aws_session_token=token, config=CONFIG)


def code_of(call: Any, *args: Any, **kwargs: Any) -> tuple[str, str, int]:
    with pytest.raises(ClientError) as caught:
        call(*args, **kwargs)
    error = caught.value.response
    return error["Error"]["Code"], error["Error"]["Message"], error["ResponseMetadata"]["HTTPStatusCode"]


@pytest.fixture(scope="module")
def iam_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, dict[str, tuple[str, str]]]]:
    home = tmp_path_factory.mktemp("iam-home")
    created = subprocess.run([sys.executable, "-m", "glueball", "accounts", "create", ACCOUNT_B, "--home", str(home)],
                             capture_output=True, text=True, check=True).stdout
    b_key = created.split("aws_access_key_id = ")[1].split()[0]
    b_secret = created.split("aws_secret_access_key = ")[1].split()[0]
    server = ServerProcess(home, extra_args=("--auth", "iam", "--subnet-vpc", "subnet-0aa=vpc-0abc")).start()
    profile = configparser.ConfigParser()
    profile.read(home / "credentials")
    a_key = profile["glueball"]["aws_access_key_id"]
    a_secret = profile["glueball"]["aws_secret_access_key"]
    yield server, {"A": (a_key, a_secret), "B": (b_key, b_secret)}
    server.stop()


def test_the_first_start_creates_the_root_key_once(iam_server: tuple[ServerProcess, Any]) -> None:
    server, keys = iam_server
    credentials = server.home / "credentials"
    assert stat.S_IMODE(credentials.stat().st_mode) == 0o600
    printed = (server.home / "server.log").read_text()
    assert printed.count(keys["A"][1]) == 1  # shown once on the console
    assert keys["A"][1] not in (server.home / "logs" / "server.log").read_text()
    server.stop()
    server.start()  # a second start makes no new key and shows none
    assert (server.home / "server.log").read_text().count("created the root access key") == 1
    sts = client(server, "sts", *keys["A"])
    assert sts.get_caller_identity()["Arn"] == f"arn:aws:iam::{ACCOUNT_A}:root"


def test_signatures_are_verified_with_each_services_codes(iam_server: tuple[ServerProcess, Any]) -> None:
    server, keys = iam_server
    key, secret = keys["A"]
    assert code_of(client(server, "glue", key, "wrong").get_databases)[0] == "InvalidSignatureException"
    assert code_of(client(server, "sts", key, "wrong").get_caller_identity)[:1] == ("SignatureDoesNotMatch",)
    assert code_of(client(server, "iam", key, "wrong").list_users)[2] == 403
    assert code_of(client(server, "glue", "AKIAUNKNOWN000000000", secret).get_databases)[0] \
        == "UnrecognizedClientException"
    assert code_of(client(server, "sts", "AKIAUNKNOWN000000000", secret).get_caller_identity)[0] \
        == "InvalidClientTokenId"
    status, answer = server.raw("GetDatabases", {})
    assert status == 403 and answer["__type"] == "MissingAuthenticationTokenException"
    old = datetime.now(UTC) - timedelta(minutes=20)
    with mock.patch("botocore.auth.get_current_datetime", return_value=old.replace(tzinfo=None)):
        error, message, _ = code_of(client(server, "glue", key, secret).get_databases)
    assert error == "InvalidSignatureException" and message.startswith("Signature expired: ")
    log = (server.home / "logs" / "server.log").read_text()
    assert "refused glue request signed with key AKIAUNKNOWN000000000: unknown key" in log
    assert secret not in log


def _iam_cli(server: ServerProcess, key: tuple[str, str], *args: str) -> Any:
    env = dict(os.environ, AWS_ACCESS_KEY_ID=key[0], AWS_SECRET_ACCESS_KEY=key[1], AWS_DEFAULT_REGION="us-east-1")
    env.pop("AWS_PROFILE", None)
    result = subprocess.run([sys.executable, "-m", "awscli", *args, "--endpoint-url", server.endpoint],
                            capture_output=True, text=True, env=env, timeout=60)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout) if result.stdout.strip() else {}


SESSION_POLICY = {  # account B: Glue, but sessions and jobs only inside the approved VPC, and PassRole
    "Version": "2012-10-17",
    "Statement": [
        {"Sid": "GlueWork", "Effect": "Allow", "Action": ["glue:*"], "Resource": "*"},
        {"Sid": "DenyOutsideApprovedVpc", "Effect": "Deny", "Action": ["glue:CreateSession", "glue:CreateJob"],
         "Resource": "*", "Condition": {"ForAnyValue:StringNotEquals": {"glue:VpcIds": ["vpc-0abc"]}}},
        {"Sid": "DenyWithoutVpc", "Effect": "Deny", "Action": ["glue:CreateSession", "glue:CreateJob"],
         "Resource": "*", "Condition": {"Null": {"glue:VpcIds": "true"}}},
        {"Sid": "PassGlueRole", "Effect": "Allow", "Action": "iam:PassRole",
         "Resource": f"arn:aws:iam::{ACCOUNT_B}:role/AWSGlueServiceRole-blog"},
    ],
}
TRUST_ACCOUNT_A = {"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT_A}:root"}, "Action": "sts:AssumeRole"}]}
TRUST_GLUE = {"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "glue.amazonaws.com"}, "Action": "sts:AssumeRole"}]}
ASSUME_B = {"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Action": "sts:AssumeRole",
     "Resource": f"arn:aws:iam::{ACCOUNT_B}:role/GlueSessionCreationRole"}]}


def test_the_seed_scenario_across_two_accounts(iam_server: tuple[ServerProcess, Any], tmp_path: Path) -> None:
    server, keys = iam_server
    files = {}
    for name, document in {"session": SESSION_POLICY, "trust-a": TRUST_ACCOUNT_A, "trust-glue": TRUST_GLUE,
                           "assume-b": ASSUME_B}.items():
        files[name] = tmp_path / f"{name}.json"
        files[name].write_text(json.dumps(document, indent=2))
    # account B, with the AWS CLI: the policy and the two roles
    policy = _iam_cli(server, keys["B"], "iam", "create-policy", "--policy-name", "CustomCreateSessionPolicy",
                      "--policy-document", f"file://{files['session']}")["Policy"]
    assert policy["Arn"] == f"arn:aws:iam::{ACCOUNT_B}:policy/CustomCreateSessionPolicy"
    role = _iam_cli(server, keys["B"], "iam", "create-role", "--role-name", "GlueSessionCreationRole",
                    "--assume-role-policy-document", f"file://{files['trust-a']}")["Role"]
    assert role["AssumeRolePolicyDocument"] == TRUST_ACCOUNT_A  # sent URL-encoded, decoded by the CLI
    _iam_cli(server, keys["B"], "iam", "attach-role-policy", "--role-name", "GlueSessionCreationRole",
             "--policy-arn", policy["Arn"])
    _iam_cli(server, keys["B"], "iam", "create-role", "--role-name", "AWSGlueServiceRole-blog",
             "--assume-role-policy-document", f"file://{files['trust-glue']}")
    glue_b = client(server, "glue", *keys["B"])
    glue_b.create_connection(ConnectionInput={
        "Name": "session_vpc", "ConnectionType": "NETWORK", "ConnectionProperties": {},
        "PhysicalConnectionRequirements": {"SubnetId": "subnet-0aa", "SecurityGroupIdList": ["sg-01"],
                                           "AvailabilityZone": "us-east-1a"}})
    # account A: a user with keys whose policy lets it assume B's role
    _iam_cli(server, keys["A"], "iam", "create-user", "--user-name", "analyst")
    analyst_key = _iam_cli(server, keys["A"], "iam", "create-access-key", "--user-name", "analyst")["AccessKey"]
    analyst = (analyst_key["AccessKeyId"], analyst_key["SecretAccessKey"])
    assert code_of(client(server, "sts", *analyst).assume_role, RoleArn=role["Arn"],
                   RoleSessionName="s1")[0] == "AccessDenied"  # B trusts A, but A has not allowed it yet
    assume = _iam_cli(server, keys["A"], "iam", "create-policy", "--policy-name", "AssumeRoleAccountBPolicy",
                      "--policy-document", f"file://{files['assume-b']}")["Policy"]
    _iam_cli(server, keys["A"], "iam", "attach-user-policy", "--user-name", "analyst", "--policy-arn", assume["Arn"])
    assumed = _iam_cli(server, analyst, "sts", "assume-role", "--role-arn", role["Arn"],
                       "--role-session-name", "analyst-session")
    credentials = assumed["Credentials"]
    session = (credentials["AccessKeyId"], credentials["SecretAccessKey"], credentials["SessionToken"])
    assert assumed["AssumedRoleUser"]["Arn"] == \
        f"arn:aws:sts::{ACCOUNT_B}:assumed-role/GlueSessionCreationRole/analyst-session"
    assert client(server, "sts", *session).get_caller_identity()["Account"] == ACCOUNT_B
    glue = client(server, "glue", *session)
    job = {"Role": "AWSGlueServiceRole-blog", "Command": {"Name": "glueetl", "ScriptLocation": "s3://b/job.py"}}
    error, message, _ = code_of(glue.create_job, Name="outside", **job)
    assert error == "AccessDeniedException"
    assert message == (f"User: arn:aws:sts::{ACCOUNT_B}:assumed-role/GlueSessionCreationRole/analyst-session is not "
                       f"authorized to perform: glue:CreateJob on resource: arn:aws:glue:us-east-1:{ACCOUNT_B}:job/"
                       f"outside with an explicit deny in an identity-based policy")
    glue.create_job(Name="inside", Connections={"Connections": ["session_vpc"]},
                    Tags={"team": "analytics", "billing": "bi-42"}, **job)
    assert glue.list_jobs(Tags={"team": "analytics"})["JobNames"] == ["inside"]
    assert glue_b.get_job(JobName="inside")["Job"]["Connections"] == {"Connections": ["session_vpc"]}
    # the job's role must be passable: a role the policy does not name is refused
    _iam_cli(server, keys["B"], "iam", "create-role", "--role-name", "OtherRole",
             "--assume-role-policy-document", f"file://{files['trust-glue']}")
    error, message, _ = code_of(glue.create_job, Name="other", Connections={"Connections": ["session_vpc"]},
                                **{**job, "Role": "OtherRole"})
    assert error == "AccessDeniedException" and "iam:PassRole" in message
    # account A's own catalog is out of the session's reach
    assert code_of(glue.get_databases, CatalogId=ACCOUNT_A)[0] == "AccessDeniedException"


def test_expired_session_tokens_are_refused(iam_server: tuple[ServerProcess, Any]) -> None:
    server, keys = iam_server
    iam_b = client(server, "iam", *keys["B"])
    iam_b.create_role(RoleName="Short", AssumeRolePolicyDocument=json.dumps(TRUST_ACCOUNT_A))
    iam_a = client(server, "iam", *keys["A"])
    iam_a.create_user(UserName="shorty")
    iam_a.put_user_policy(UserName="shorty", PolicyName="assume", PolicyDocument=json.dumps({
        "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "sts:AssumeRole", "Resource": "*"}]}))
    key = iam_a.create_access_key(UserName="shorty")["AccessKey"]
    sts = client(server, "sts", key["AccessKeyId"], key["SecretAccessKey"])
    assert code_of(sts.assume_role, RoleArn=f"arn:aws:iam::{ACCOUNT_B}:role/Short", RoleSessionName="s1",
                   DurationSeconds=7200)[0] == "ValidationError"  # beyond the role's MaxSessionDuration
    creds = sts.assume_role(RoleArn=f"arn:aws:iam::{ACCOUNT_B}:role/Short", RoleSessionName="s1",
                            DurationSeconds=900)["Credentials"]
    token = (creds["AccessKeyId"], creds["SecretAccessKey"], creds["SessionToken"])
    assert client(server, "sts", *token).get_caller_identity()["Arn"].endswith(":assumed-role/Short/s1")
    with sqlite3.connect(server.home / "glueball.db") as db:
        db.execute("UPDATE sts_session SET expires_at = 1 WHERE access_key_id = ?", (creds["AccessKeyId"],))
    time.sleep(1.2)  # the server remembers a key's holder for a second; the store was changed behind its back
    assert code_of(client(server, "glue", *token).get_databases)[0] == "ExpiredTokenException"
    assert code_of(client(server, "sts", *token).get_caller_identity)[0] == "ExpiredToken"
    assert code_of(client(server, "glue", creds["AccessKeyId"], creds["SecretAccessKey"]).get_databases)[0] \
        == "UnrecognizedClientException"  # temporary keys need their token


def test_user_policies_decide_with_named_action_resource_and_reason(iam_server: tuple[ServerProcess, Any]) -> None:
    server, keys = iam_server
    root_glue = client(server, "glue", *keys["A"])
    for name in ("sales", "hr"):
        root_glue.create_database(DatabaseInput={"Name": name})
    iam = client(server, "iam", *keys["A"])
    iam.create_user(UserName="alice", Tags=[{"Key": "team", "Value": "sales"}])
    iam.put_user_policy(UserName="alice", PolicyName="read-own-team", PolicyDocument=json.dumps({
        "Version": "2012-10-17", "Statement": [{
            "Effect": "Allow", "Action": ["glue:GetDatabase", "glue:GetTables"],
            "Resource": [f"arn:aws:glue:*:{ACCOUNT_A}:catalog",
                         f"arn:aws:glue:*:{ACCOUNT_A}:database/${{aws:PrincipalTag/team}}",
                         f"arn:aws:glue:*:{ACCOUNT_A}:table/${{aws:PrincipalTag/team}}/*"]}]}))
    key = iam.create_access_key(UserName="alice")["AccessKey"]
    alice = client(server, "glue", key["AccessKeyId"], key["SecretAccessKey"])
    assert alice.get_database(Name="sales")["Database"]["Name"] == "sales"
    assert alice.get_tables(DatabaseName="sales")["TableList"] == []
    error, message, _ = code_of(alice.get_database, Name="hr")
    assert error == "AccessDeniedException" and message == (
        f"User: arn:aws:iam::{ACCOUNT_A}:user/alice is not authorized to perform: glue:GetDatabase on resource: "
        f"arn:aws:glue:us-east-1:{ACCOUNT_A}:database/hr because no identity-based policy allows the "
        f"glue:GetDatabase action")
    assert code_of(alice.create_database, DatabaseInput={"Name": "x"})[0] == "AccessDeniedException"
    deny = iam.create_policy(PolicyName="no-sales", PolicyDocument=json.dumps({
        "Version": "2012-10-17", "Statement": [{"Effect": "Deny", "Action": "glue:*",
                                                "Resource": "arn:aws:glue:*:*:database/sales"}]}))["Policy"]
    iam.attach_user_policy(UserName="alice", PolicyArn=deny["Arn"])
    error, message, _ = code_of(alice.get_database, Name="sales")
    assert message.endswith("with an explicit deny in an identity-based policy")
    assert code_of(client(server, "iam", key["AccessKeyId"], key["SecretAccessKey"]).list_users)[0] == "AccessDenied"


def test_dev_endpoints_blueprints_and_ml_transforms_have_arns_of_their_own(
        iam_server: tuple[ServerProcess, Any]) -> None:
    server, keys = iam_server
    root_glue = client(server, "glue", *keys["A"])
    for name in ("lab-dev", "prod-dev"):
        root_glue.create_dev_endpoint(EndpointName=name, RoleArn=f"arn:aws:iam::{ACCOUNT_A}:role/dev")
    iam = client(server, "iam", *keys["A"])
    iam.create_user(UserName="carol")
    iam.put_user_policy(UserName="carol", PolicyName="lab-only", PolicyDocument=json.dumps({
        "Version": "2012-10-17", "Statement": [{
            "Effect": "Allow", "Action": ["glue:GetDevEndpoint", "glue:GetBlueprint", "glue:GetMLTransform"],
            "Resource": [f"arn:aws:glue:*:{ACCOUNT_A}:devEndpoint/lab-*", f"arn:aws:glue:*:{ACCOUNT_A}:blueprint/lab-*",
                         f"arn:aws:glue:*:{ACCOUNT_A}:mlTransform/tfm-lab"]}]}))
    key = iam.create_access_key(UserName="carol")["AccessKey"]
    carol = client(server, "glue", key["AccessKeyId"], key["SecretAccessKey"])
    assert carol.get_dev_endpoint(EndpointName="lab-dev")["DevEndpoint"]["EndpointName"] == "lab-dev"
    error, message, _ = code_of(carol.get_dev_endpoint, EndpointName="prod-dev")
    assert error == "AccessDeniedException" and "devEndpoint/prod-dev" in message
    assert code_of(carol.get_blueprint, Name="lab-x")[0] == "EntityNotFoundException"  # allowed, then not found
    assert "blueprint/prod-x" in code_of(carol.get_blueprint, Name="prod-x")[1]
    assert code_of(carol.get_ml_transform, TransformId="tfm-lab")[0] == "EntityNotFoundException"
    assert "mlTransform/tfm-prod" in code_of(carol.get_ml_transform, TransformId="tfm-prod")[1]


def test_decisions_that_read_the_time_are_made_per_request(iam_server: tuple[ServerProcess, Any]) -> None:
    """Decisions are remembered for a second, but not those of policies that read the request's time:
    a policy allowing until a moment stops allowing at that moment, not a second later."""
    server, keys = iam_server
    client(server, "glue", *keys["A"]).create_database(DatabaseInput={"Name": "clocked"})
    iam = client(server, "iam", *keys["A"])
    iam.create_user(UserName="clocked")
    until = datetime.now(UTC) + timedelta(seconds=2)
    iam.put_user_policy(UserName="clocked", PolicyName="until", PolicyDocument=json.dumps({
        "Version": "2012-10-17", "Statement": [{
            "Effect": "Allow", "Action": "glue:GetDatabase", "Resource": "*",
            "Condition": {"DateLessThan": {"aws:CurrentTime": until.strftime("%Y-%m-%dT%H:%M:%SZ")}}}]}))
    key = iam.create_access_key(UserName="clocked")["AccessKey"]
    glue = client(server, "glue", key["AccessKeyId"], key["SecretAccessKey"])
    while datetime.now(UTC) < until.replace(microsecond=0) - timedelta(milliseconds=300):
        assert glue.get_database(Name="clocked")["Database"]["Name"] == "clocked"
    time.sleep(max(0.0, (until.replace(microsecond=0) - datetime.now(UTC)).total_seconds()) + 0.05)
    assert code_of(glue.get_database, Name="clocked")[0] == "AccessDeniedException"


def test_iam_errors_are_iams(iam_server: tuple[ServerProcess, Any]) -> None:
    server, keys = iam_server
    iam = client(server, "iam", *keys["A"])
    iam.create_user(UserName="dup")
    assert code_of(iam.create_user, UserName="DUP")[::2] == ("EntityAlreadyExists", 409)
    assert code_of(iam.get_user, UserName="nobody")[::2] == ("NoSuchEntity", 404)
    error, message, status = code_of(iam.create_policy, PolicyName="bad", PolicyDocument='{"Statement": []}')
    assert (error, status) == ("MalformedPolicyDocument", 400)
    iam.create_access_key(UserName="dup")
    assert code_of(iam.delete_user, UserName="dup")[:2] == (
        "DeleteConflict", "Cannot delete entity, must delete access keys first.")
    arn = iam.create_policy(PolicyName="versions", PolicyDocument=json.dumps({
        "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "glue:Get*", "Resource": "*"}]}))[
        "Policy"]["Arn"]
    document = json.dumps({"Version": "2012-10-17",
                           "Statement": [{"Effect": "Allow", "Action": "glue:List*", "Resource": "*"}]})
    for _ in range(4):
        iam.create_policy_version(PolicyArn=arn, PolicyDocument=document, SetAsDefault=True)
    assert code_of(iam.create_policy_version, PolicyArn=arn, PolicyDocument=document)[0] == "LimitExceeded"
    assert iam.get_policy(PolicyArn=arn)["Policy"]["DefaultVersionId"] == "v5"
    assert code_of(iam.delete_policy_version, PolicyArn=arn, VersionId="v5")[0] == "DeleteConflict"
    assert iam.get_policy_version(PolicyArn=arn, VersionId="v1")["PolicyVersion"]["Document"]["Statement"][0][
        "Action"] == "glue:Get*"
    assert [v["VersionId"] for v in iam.list_policy_versions(PolicyArn=arn)["Versions"]] == [
        "v5", "v4", "v3", "v2", "v1"]


JOB_SCRIPT = '''
import boto3
from botocore.exceptions import ClientError
glue = boto3.client("glue")
sts = boto3.client("sts", endpoint_url=__import__("os").environ["AWS_ENDPOINT_URL_GLUE"])
print("caller", sts.get_caller_identity()["Arn"])
print("public", glue.get_database(Name="public")["Database"]["Name"])
try:
    glue.get_database(Name="secret")
except ClientError as exc:
    print("secret", exc.response["Error"]["Code"])
'''


def _run_to_end(glue: Any, name: str, run_id: str) -> Any:
    from tests.helpers import wait_for

    def ended() -> Any:
        run = glue.get_job_run(JobName=name, RunId=run_id)["JobRun"]
        return run if run["JobRunState"] in ("SUCCEEDED", "FAILED", "ERROR", "TIMEOUT", "STOPPED") else None

    return wait_for(ended, 60, f"run {run_id} to end")


def test_a_job_run_acts_as_its_role(iam_server: tuple[ServerProcess, Any]) -> None:
    server, keys = iam_server
    glue = client(server, "glue", *keys["A"])
    for name in ("public", "secret"):
        glue.create_database(DatabaseInput={"Name": name})
    iam = client(server, "iam", *keys["A"])
    iam.create_role(RoleName="GlueJobRole", AssumeRolePolicyDocument=json.dumps(TRUST_GLUE))
    iam.put_role_policy(RoleName="GlueJobRole", PolicyName="public-only", PolicyDocument=json.dumps({
        "Version": "2012-10-17", "Statement": [{
            "Effect": "Allow", "Action": "glue:GetDatabase",
            "Resource": [f"arn:aws:glue:*:{ACCOUNT_A}:catalog", f"arn:aws:glue:*:{ACCOUNT_A}:database/public"]}]}))
    script = server.home / "s3" / "scripts" / "as_role.py"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(JOB_SCRIPT)
    command = {"Name": "pythonshell", "ScriptLocation": "s3://scripts/as_role.py", "PythonVersion": "3.9"}
    glue.create_job(Name="as-role", Role="GlueJobRole", Command=command, MaxCapacity=0.0625)
    run = _run_to_end(glue, "as-role", glue.start_job_run(JobName="as-role")["JobRunId"])
    assert run["JobRunState"] == "SUCCEEDED", run.get("ErrorMessage")
    output = (server.home / "logs" / "jobs" / "as-role" / run["Id"] / "output.log").read_text()
    assert f"caller arn:aws:sts::{ACCOUNT_A}:assumed-role/GlueJobRole/{run['Id'][:64]}\n" in output
    assert "public public" in output and "secret AccessDeniedException" in output
    # a role that does not exist, or does not trust Glue: the run fails and says why
    iam.create_role(RoleName="NotForGlue", AssumeRolePolicyDocument=json.dumps(TRUST_ACCOUNT_A))
    for role, why in (("NoSuchRole", "does not exist"), ("NotForGlue", "must allow the service principal")):
        glue.create_job(Name=f"job-{role}", Role=role, Command=command, MaxCapacity=0.0625)
        run = _run_to_end(glue, f"job-{role}", glue.start_job_run(JobName=f"job-{role}")["JobRunId"])
        assert run["JobRunState"] == "FAILED" and why in run["ErrorMessage"]


def test_the_drivers_operations_take_a_runs_credentials(iam_server: tuple[ServerProcess, Any]) -> None:
    from glueball.runtime.client import boto3_session

    server, keys = iam_server
    iam = client(server, "iam", *keys["A"])
    iam.create_user(UserName="mallory")
    iam.put_user_policy(UserName="mallory", PolicyName="all", PolicyDocument=json.dumps({
        "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}))
    key = iam.create_access_key(UserName="mallory")["AccessKey"]
    internal = boto3_session().client("glueball", endpoint_url=server.endpoint, region_name="us-east-1",
                                      aws_access_key_id=key["AccessKeyId"],
                                      aws_secret_access_key=key["SecretAccessKey"], config=CONFIG)
    error, message, _ = code_of(internal.notify_event, WorkflowName="wf", EventId="e1")
    assert error == "AccessDeniedException" and "takes the credentials the server gave the run" in message


def test_a_crawl_writes_the_catalog_as_its_role(iam_server: tuple[ServerProcess, Any]) -> None:
    from tests.helpers import wait_for

    server, keys = iam_server
    data = server.home / "s3" / "landing" / "orders" / "orders.csv"
    data.parent.mkdir(parents=True, exist_ok=True)
    data.write_text("id,amount\n1,2.5\n2,3.0\n")
    glue = client(server, "glue", *keys["A"])
    glue.create_database(DatabaseInput={"Name": "landing"})
    iam = client(server, "iam", *keys["A"])
    for role, actions in (("CrawlerRole", ["glue:*"]), ("ReadOnlyCrawlerRole", ["glue:Get*"])):
        iam.create_role(RoleName=role, AssumeRolePolicyDocument=json.dumps(TRUST_GLUE))
        iam.put_role_policy(RoleName=role, PolicyName="catalog", PolicyDocument=json.dumps({
            "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": actions, "Resource": "*"}]}))
        glue.create_crawler(Name=f"crawl-{role}", Role=role, DatabaseName="landing",
                            Targets={"S3Targets": [{"Path": "s3://landing/orders/"}]})
        glue.start_crawler(Name=f"crawl-{role}")

    def ended(name: str) -> Any:
        crawler = glue.get_crawler(Name=name)["Crawler"]
        return crawler.get("LastCrawl") if crawler["State"] == "READY" and crawler.get("LastCrawl") else None

    assert wait_for(lambda: ended("crawl-CrawlerRole"), 60, "the crawl")["Status"] == "SUCCEEDED"
    assert [t["Name"] for t in glue.get_tables(DatabaseName="landing")["TableList"]] == ["orders"]
    refused = wait_for(lambda: ended("crawl-ReadOnlyCrawlerRole"), 60, "the crawl")
    assert refused["Status"] == "FAILED" and "AccessDenied" in refused["ErrorMessage"]


def test_a_catalog_resource_policy_shares_it_with_another_account(iam_server: tuple[ServerProcess, Any]) -> None:
    server, keys = iam_server
    owner = client(server, "glue", *keys["A"])
    owner.create_database(DatabaseInput={"Name": "shared", "Description": "account A's"})
    owner.create_table(DatabaseName="shared", TableInput={"Name": "orders"})
    policy = json.dumps({"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT_B}:root"},
        "Action": ["glue:GetDatabase", "glue:GetTable", "glue:GetTables"],
        "Resource": [f"arn:aws:glue:us-east-1:{ACCOUNT_A}:catalog",
                     f"arn:aws:glue:us-east-1:{ACCOUNT_A}:database/shared",
                     f"arn:aws:glue:us-east-1:{ACCOUNT_A}:table/shared/*"]}]})
    visitor = client(server, "glue", *keys["B"])
    error, message, _ = code_of(visitor.get_database, CatalogId=ACCOUNT_A, Name="shared")
    assert error == "AccessDeniedException" and "because no resource-based policy allows" in message
    digest = owner.put_resource_policy(PolicyInJson=policy, PolicyExistsCondition="NOT_EXIST")["PolicyHash"]
    assert code_of(owner.put_resource_policy, PolicyInJson=policy, PolicyExistsCondition="NOT_EXIST")[0] \
        == "ConditionCheckFailureException"
    stored = owner.get_resource_policy()
    assert stored["PolicyHash"] == digest and json.loads(stored["PolicyInJson"]) == json.loads(policy)
    assert code_of(owner.put_resource_policy, PolicyInJson='{"Statement": []}')[0] == "InvalidInputException"
    # account B reads account A's catalog, and only what the policy grants
    database = visitor.get_database(CatalogId=ACCOUNT_A, Name="shared")["Database"]
    assert database["Description"] == "account A's" and database["CatalogId"] == ACCOUNT_A
    assert [t["Name"] for t in visitor.get_tables(CatalogId=ACCOUNT_A, DatabaseName="shared")["TableList"]] == [
        "orders"]
    assert code_of(visitor.delete_table, CatalogId=ACCOUNT_A, DatabaseName="shared", Name="orders")[0] \
        == "AccessDeniedException"
    assert code_of(visitor.get_database, Name="shared")[0] == "EntityNotFoundException"  # its own catalog
    # a user of B needs its own account's permission as well
    iam_b = client(server, "iam", *keys["B"])
    iam_b.create_user(UserName="visitor")
    key = iam_b.create_access_key(UserName="visitor")["AccessKey"]
    user = client(server, "glue", key["AccessKeyId"], key["SecretAccessKey"])
    error, message, _ = code_of(user.get_database, CatalogId=ACCOUNT_A, Name="shared")
    assert "because no identity-based policy allows" in message
    iam_b.put_user_policy(UserName="visitor", PolicyName="read-a", PolicyDocument=json.dumps({
        "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "glue:Get*",
                                                "Resource": f"arn:aws:glue:*:{ACCOUNT_A}:*"}]}))
    assert user.get_database(CatalogId=ACCOUNT_A, Name="shared")["Database"]["Name"] == "shared"
    assert code_of(owner.delete_resource_policy, PolicyHashCondition="not-the-hash")[0] \
        == "ConditionCheckFailureException"
    owner.delete_resource_policy(PolicyHashCondition=digest)
    assert code_of(visitor.get_database, CatalogId=ACCOUNT_A, Name="shared")[0] == "AccessDeniedException"
    assert code_of(owner.get_resource_policy)[0] == "EntityNotFoundException"


def test_resource_tags_decide(iam_server: tuple[ServerProcess, Any]) -> None:
    server, keys = iam_server
    glue = client(server, "glue", *keys["A"])
    command = {"Name": "pythonshell", "ScriptLocation": "s3://scripts/x.py"}
    glue.create_job(Name="tagged-analytics", Role="r", Command=command, Tags={"team": "analytics"})
    glue.create_job(Name="tagged-finance", Role="r", Command=command, Tags={"team": "finance"})
    iam = client(server, "iam", *keys["A"])
    iam.create_user(UserName="tagreader")
    iam.put_user_policy(UserName="tagreader", PolicyName="team", PolicyDocument=json.dumps({
        "Version": "2012-10-17", "Statement": [{
            "Effect": "Allow", "Action": "glue:GetJob", "Resource": "*",
            "Condition": {"StringEquals": {"aws:ResourceTag/team": "analytics"}}}]}))
    key = iam.create_access_key(UserName="tagreader")["AccessKey"]
    reader = client(server, "glue", key["AccessKeyId"], key["SecretAccessKey"])
    assert reader.get_job(JobName="tagged-analytics")["Job"]["Name"] == "tagged-analytics"
    error, message, _ = code_of(reader.get_job, JobName="tagged-finance")
    assert error == "AccessDeniedException" and "job/tagged-finance" in message


def test_the_seed_notebook_on_the_real_glue_kernel(iam_server: tuple[ServerProcess, Any], tmp_path: Path) -> None:
    """The seed's notebook through the real Glue kernel: a user of account A assumes account B's
    GlueSessionCreationRole (%%assume_role), tags the session, and creates it with the session_vpc connection;
    without %connections the same notebook is refused by the VpcIds deny, with its message."""
    from tests.sessions.test_glue_kernel import kernel_env, notebook, run_notebook, text_of

    server, keys = iam_server
    iam_b = client(server, "iam", *keys["B"])
    glue_b = client(server, "glue", *keys["B"])
    roles = {r["RoleName"] for r in iam_b.list_roles()["Roles"]}
    if "GlueSessionCreationRole" not in roles:  # the seed scenario above made these; alone, this test does
        policy = iam_b.create_policy(PolicyName="CustomCreateSessionPolicy",
                                     PolicyDocument=json.dumps(SESSION_POLICY))["Policy"]
        iam_b.create_role(RoleName="GlueSessionCreationRole", AssumeRolePolicyDocument=json.dumps(TRUST_ACCOUNT_A))
        iam_b.attach_role_policy(RoleName="GlueSessionCreationRole", PolicyArn=policy["Arn"])
        iam_b.create_role(RoleName="AWSGlueServiceRole-blog", AssumeRolePolicyDocument=json.dumps(TRUST_GLUE))
        glue_b.create_connection(ConnectionInput={
            "Name": "session_vpc", "ConnectionType": "NETWORK", "ConnectionProperties": {},
            "PhysicalConnectionRequirements": {"SubnetId": "subnet-0aa", "SecurityGroupIdList": ["sg-01"],
                                               "AvailabilityZone": "us-east-1a"}})
    iam_a = client(server, "iam", *keys["A"])
    iam_a.create_user(UserName="notebook-analyst")
    iam_a.put_user_policy(UserName="notebook-analyst", PolicyName="assume-b", PolicyDocument=json.dumps(ASSUME_B))
    created = iam_a.create_access_key(UserName="notebook-analyst")["AccessKey"]
    env = kernel_env(server, tmp_path, created["AccessKeyId"], created["SecretAccessKey"])
    config = Path(env["AWS_CONFIG_FILE"])
    config.write_text(config.read_text().replace(
        "role/GlueInteractiveRole", "role/AWSGlueServiceRole-blog").replace("123456789012", ACCOUNT_B))
    assume = f"%%assume_role\n'arn:aws:iam::{ACCOUNT_B}:role/GlueSessionCreationRole'"
    tags = "%%tags\n{'team': 'analytics', 'billing': 'bi'}"
    first = "from awsglue.context import GlueContext\nglueContext = GlueContext(sc)\nspark.range(3).count()"

    allowed = run_notebook(notebook(assume, tags, "%idle_timeout 30\n%connections session_vpc", first, "%status",
                                    "%stop_session"), env)
    assert "Role assumed successfully" in text_of(allowed.cells[0])
    assert text_of(allowed.cells[3]).rstrip().endswith("3"), text_of(allowed.cells[3])
    session_id = next(line.split("Session ID:")[1].strip() for line in text_of(allowed.cells[3]).splitlines()
                      if "Session ID:" in line)
    assert "analytics" in text_of(allowed.cells[4])
    session = glue_b.get_session(Id=session_id)["Session"]  # the session lives in account B
    assert session["Connections"] == {"Connections": ["session_vpc"]}
    assert session["Role"] == f"arn:aws:iam::{ACCOUNT_B}:role/AWSGlueServiceRole-blog"
    assert glue_b.list_sessions(Tags={"team": "analytics"})["Ids"] == [session_id]

    refused = run_notebook(notebook(assume, tags, "%idle_timeout 30", first, "%stop_session"), env)
    said = text_of(refused.cells[3])
    assert "AccessDeniedException" in said and "explicit deny" in said and "glue:CreateSession" in said, said
