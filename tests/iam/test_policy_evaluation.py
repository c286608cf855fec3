"""Policy evaluation, table-driven: every case is a rule of the IAM User Guide, written from its text.

Sources (IAM User Guide): "Policy evaluation logic" (deny > allow > implicit deny; cross-account
needs both sides), "IAM JSON policy elements" (Action/NotAction, Resource/NotResource with
wildcards per ARN part, Principal), "Condition operators" (every operator; a missing key makes a
condition false except for negated operators, ``...IfExists`` and ``Null``; several values of a
key are OR, for negated operators NOR), "Set operators for multivalued context keys"
(ForAllValues true on an absent key, ForAnyValue false), "Policy variables" (resolved in version
2012-10-17 only; ``${*}``, ``${?}``, ``${$}``, defaults).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from glueball.api.identity import Principal, PrincipalKind
from glueball.iam.evaluation import Decision, Request, authorize, context_of, trust_allows
from glueball.iam.policy import PolicyKind, parse_policy

A = "111122223333"
B = "444455556666"
ALICE = Principal(PrincipalKind.USER, A, f"arn:aws:iam::{A}:user/alice")
BOB_B = Principal(PrincipalKind.USER, B, f"arn:aws:iam::{B}:user/bob")
ROOT_A = Principal.root(A)
SESSION_A = Principal(PrincipalKind.ASSUMED_ROLE, A, f"arn:aws:sts::{A}:assumed-role/Analyst/s1",
                      role_arn=f"arn:aws:iam::{A}:role/Analyst")
GLUE_SERVICE = Principal(PrincipalKind.SERVICE, A, "glue.amazonaws.com", service="glue.amazonaws.com")
TABLE = f"arn:aws:glue:us-east-1:{A}:table/sales/orders"
DB = f"arn:aws:glue:us-east-1:{A}:database/sales"
CATALOG = f"arn:aws:glue:us-east-1:{A}:catalog"
JOB = f"arn:aws:glue:us-east-1:{A}:job/etl"
ALLOW, DENY, IMPLICIT = Decision.ALLOW, Decision.EXPLICIT_DENY, Decision.IMPLICIT_DENY


def allow(action: Any = "glue:*", resource: Any = "*", **extra: Any) -> dict[str, Any]:
    return {"Effect": "Allow", "Action": action, "Resource": resource, **extra}


def deny(action: Any = "glue:*", resource: Any = "*", **extra: Any) -> dict[str, Any]:
    return {"Effect": "Deny", "Action": action, "Resource": resource, **extra}


def cond(operator: str, key: str, value: Any) -> dict[str, Any]:
    return {"Condition": {operator: {key: value}}}


@dataclass
class Case:
    name: str
    statements: list[dict[str, Any]]
    expected: Decision
    action: str = "glue:GetTable"
    resource: str = TABLE
    context: dict[str, Any] = field(default_factory=dict)
    principal: Principal = ALICE
    resource_policy: list[dict[str, Any]] | None = None
    resource_account: str = A
    version: str = "2012-10-17"


def run(case: Case) -> Decision:
    identity = [parse_policy({"Version": case.version, "Statement": case.statements})] if case.statements else []
    on_resource = ([parse_policy({"Version": "2012-10-17", "Statement": case.resource_policy}, PolicyKind.RESOURCE)]
                   if case.resource_policy else [])
    request = Request(case.principal, case.action, (case.resource,), case.resource_account,
                      context_of(case.context))
    return authorize(request, identity, on_resource).decision


ACTIONS = [
    Case("exact action", [allow("glue:GetTable")], ALLOW),
    Case("action names are case-insensitive", [allow("GLUE:gettable")], ALLOW),
    Case("service wildcard", [allow("glue:*")], ALLOW),
    Case("everything", [allow("*")], ALLOW),
    Case("prefix wildcard", [allow("glue:Get*")], ALLOW),
    Case("prefix wildcard misses another verb", [allow("glue:Get*")], IMPLICIT, action="glue:BatchGetJobs"),
    Case("suffix wildcard", [allow("glue:*Table")], ALLOW, action="glue:CreateTable"),
    Case("middle wildcard", [allow("glue:Get*s")], ALLOW, action="glue:GetTables"),
    Case("single-character wildcard", [allow("glue:GetT?ble")], ALLOW),
    Case("single-character wildcard needs one character", [allow("glue:GetTabl?s")], IMPLICIT),
    Case("another action", [allow("glue:GetDatabase")], IMPLICIT),
    Case("another service", [allow("s3:*")], IMPLICIT),
    Case("a list of actions", [allow(["glue:GetDatabase", "glue:GetTable"])], ALLOW),
    Case("NotAction allows every other action", [{"Effect": "Allow", "NotAction": "glue:Delete*", "Resource": "*"}],
         ALLOW),
    Case("NotAction does not allow the named action",
         [{"Effect": "Allow", "NotAction": "glue:Delete*", "Resource": "*"}], IMPLICIT, action="glue:DeleteTable"),
    Case("Deny with NotAction denies everything else", [allow(), {"Effect": "Deny", "NotAction": "glue:Get*",
                                                                  "Resource": "*"}], DENY, action="glue:CreateJob",
         resource=JOB),
    Case("Deny with NotAction leaves the named actions", [allow(), {"Effect": "Deny", "NotAction": "glue:Get*",
                                                                    "Resource": "*"}], ALLOW),
    Case("NotAction with another service's actions", [{"Effect": "Allow", "NotAction": "iam:*", "Resource": "*"}],
         ALLOW),
    Case("iam action is not glue's", [allow("iam:GetUser")], IMPLICIT),
    Case("service prefix wildcard", [allow("gl*:GetTable")], ALLOW),
]

RESOURCES = [
    Case("exact ARN", [allow(resource=TABLE)], ALLOW),
    Case("another table", [allow(resource=f"arn:aws:glue:us-east-1:{A}:table/sales/returns")], IMPLICIT),
    Case("tables of a database", [allow(resource=f"arn:aws:glue:us-east-1:{A}:table/sales/*")], ALLOW),
    Case("wildcard crosses slashes in the resource part", [allow(resource=f"arn:aws:glue:us-east-1:{A}:table*")],
         ALLOW),
    Case("region wildcard", [allow(resource=f"arn:aws:glue:*:{A}:table/sales/orders")], ALLOW),
    Case("account wildcard", [allow(resource="arn:aws:glue:us-east-1:*:table/sales/orders")], ALLOW),
    Case("wildcard in a part stays in that part",
         [allow(resource="arn:aws:glue:us-east-1*:table/sales/orders")], IMPLICIT),
    Case("single-character wildcard", [allow(resource=f"arn:aws:glue:us-east-?:{A}:table/sales/orders")], ALLOW),
    Case("ARNs are case-sensitive", [allow(resource=f"arn:aws:glue:us-east-1:{A}:table/Sales/orders")], IMPLICIT),
    Case("another region", [allow(resource=f"arn:aws:glue:eu-west-1:{A}:table/sales/orders")], IMPLICIT),
    Case("another account", [allow(resource=f"arn:aws:glue:us-east-1:{B}:table/sales/orders")], IMPLICIT),
    Case("a list of resources", [allow(resource=[DB, TABLE])], ALLOW),
    Case("NotResource allows others", [{"Effect": "Allow", "Action": "glue:*", "NotResource": JOB}], ALLOW),
    Case("NotResource excludes the named", [{"Effect": "Allow", "Action": "glue:*", "NotResource": TABLE}], IMPLICIT),
    Case("Deny with NotResource denies everything else",
         [allow(), {"Effect": "Deny", "Action": "glue:*", "NotResource": f"arn:aws:glue:*:{A}:table/public/*"}],
         DENY),
    Case("Deny with NotResource spares the named",
         [allow(), {"Effect": "Deny", "Action": "glue:*", "NotResource": f"arn:aws:glue:*:{A}:table/sales/*"}],
         ALLOW),
    Case("a variable in the resource", [allow(resource=f"arn:aws:glue:us-east-1:{A}:table/${{aws:username}}/*")],
         ALLOW, context={"aws:username": "sales"}),
    Case("a variable for another user", [allow(resource=f"arn:aws:glue:us-east-1:{A}:table/${{aws:username}}/*")],
         IMPLICIT, context={"aws:username": "marketing"}),
    Case("a variable whose key is absent matches nothing",
         [allow(resource=f"arn:aws:glue:us-east-1:{A}:table/${{aws:username}}/*")], IMPLICIT),
    Case("a variable's default", [allow(resource=f"arn:aws:glue:us-east-1:{A}:table/${{aws:username, 'sales'}}/*")],
         ALLOW),
    Case("variables are text in version 2008-10-17",
         [allow(resource=f"arn:aws:glue:us-east-1:{A}:table/${{aws:username}}/*")], IMPLICIT,
         context={"aws:username": "sales"}, version="2008-10-17"),
    Case("${*} is a literal star", [allow(resource=f"arn:aws:glue:us-east-1:{A}:table/sales/${{*}}")], IMPLICIT),
    Case("${*} matches a star", [allow(resource=f"arn:aws:glue:us-east-1:{A}:table/sales/${{*}}")], ALLOW,
         resource=f"arn:aws:glue:us-east-1:{A}:table/sales/*"),
    Case("a variable's value is literal, not a wildcard",
         [allow(resource=f"arn:aws:glue:us-east-1:{A}:table/${{aws:username}}/orders")], IMPLICIT,
         context={"aws:username": "*"}),
    Case("a principal tag as a variable",
         [allow(resource=f"arn:aws:glue:us-east-1:{A}:table/${{aws:PrincipalTag/team}}/*")], ALLOW,
         context={"aws:PrincipalTag/team": "sales"}),
]

PRECEDENCE = [
    Case("nothing allows: implicit deny", [], IMPLICIT),
    Case("deny beats allow in one policy", [allow(), deny("glue:GetTable")], DENY),
    Case("deny beats a more specific allow", [allow("glue:GetTable", TABLE), deny("glue:*", "*")], DENY),
    Case("a deny for another action leaves the allow", [allow(), deny("glue:DeleteTable")], ALLOW),
    Case("a deny for another resource leaves the allow", [allow(), deny(resource=JOB)], ALLOW),
    Case("a deny whose condition fails does not apply",
         [allow(), deny(**cond("StringEquals", "aws:PrincipalTag/team", "blocked"))], ALLOW,
         context={"aws:PrincipalTag/team": "sales"}),
    Case("a deny whose condition holds applies",
         [allow(), deny(**cond("StringEquals", "aws:PrincipalTag/team", "blocked"))], DENY,
         context={"aws:PrincipalTag/team": "blocked"}),
    Case("an allow whose condition fails does not apply",
         [allow(**cond("StringEquals", "aws:PrincipalTag/team", "sales"))], IMPLICIT,
         context={"aws:PrincipalTag/team": "hr"}),
    Case("deny alone", [deny()], DENY),
    Case("root is not limited by identity policies in its account", [], ALLOW, principal=ROOT_A),
    Case("but a resource policy's deny stops root", [], DENY, principal=ROOT_A,
         resource_policy=[{"Effect": "Deny", "Principal": "*", "Action": "glue:*", "Resource": "*"}]),
    Case("an assumed role's session uses its policies", [allow()], ALLOW, principal=SESSION_A),
]

STRINGS = [
    Case("StringEquals", [allow(**cond("StringEquals", "aws:RequestTag/team", "analytics"))], ALLOW,
         context={"aws:RequestTag/team": "analytics"}),
    Case("StringEquals is case-sensitive", [allow(**cond("StringEquals", "aws:RequestTag/team", "analytics"))],
         IMPLICIT, context={"aws:RequestTag/team": "Analytics"}),
    Case("StringEquals values are OR", [allow(**cond("StringEquals", "aws:RequestTag/team", ["a", "analytics"]))],
         ALLOW, context={"aws:RequestTag/team": "analytics"}),
    Case("StringEquals takes no wildcards", [allow(**cond("StringEquals", "aws:RequestTag/team", "ana*"))],
         IMPLICIT, context={"aws:RequestTag/team": "analytics"}),
    Case("StringNotEquals", [allow(**cond("StringNotEquals", "aws:RequestTag/team", "hr"))], ALLOW,
         context={"aws:RequestTag/team": "analytics"}),
    Case("StringNotEquals on the value", [allow(**cond("StringNotEquals", "aws:RequestTag/team", "hr"))], IMPLICIT,
         context={"aws:RequestTag/team": "hr"}),
    Case("StringNotEquals values are NOR", [allow(**cond("StringNotEquals", "aws:RequestTag/team", ["hr", "it"]))],
         IMPLICIT, context={"aws:RequestTag/team": "it"}),
    Case("StringNotEquals none listed", [allow(**cond("StringNotEquals", "aws:RequestTag/team", ["hr", "it"]))],
         ALLOW, context={"aws:RequestTag/team": "sales"}),
    Case("StringEqualsIgnoreCase", [allow(**cond("StringEqualsIgnoreCase", "aws:RequestTag/team", "ANALYTICS"))],
         ALLOW, context={"aws:RequestTag/team": "analytics"}),
    Case("StringNotEqualsIgnoreCase", [allow(**cond("StringNotEqualsIgnoreCase", "aws:RequestTag/team", "HR"))],
         IMPLICIT, context={"aws:RequestTag/team": "hr"}),
    Case("StringLike with *", [allow(**cond("StringLike", "aws:RequestTag/team", "ana*"))], ALLOW,
         context={"aws:RequestTag/team": "analytics"}),
    Case("StringLike with ?", [allow(**cond("StringLike", "aws:RequestTag/team", "h?"))], ALLOW,
         context={"aws:RequestTag/team": "hr"}),
    Case("StringLike whole value", [allow(**cond("StringLike", "aws:RequestTag/team", "ana"))], IMPLICIT,
         context={"aws:RequestTag/team": "analytics"}),
    Case("StringLike is case-sensitive", [allow(**cond("StringLike", "aws:RequestTag/team", "ANA*"))], IMPLICIT,
         context={"aws:RequestTag/team": "analytics"}),
    Case("StringNotLike", [allow(**cond("StringNotLike", "aws:RequestTag/team", "tmp-*"))], ALLOW,
         context={"aws:RequestTag/team": "analytics"}),
    Case("StringNotLike on a match", [allow(**cond("StringNotLike", "aws:RequestTag/team", "tmp-*"))], IMPLICIT,
         context={"aws:RequestTag/team": "tmp-x"}),
    Case("condition keys are case-insensitive", [allow(**cond("StringEquals", "AWS:REQUESTTAG/TEAM", "a"))], ALLOW,
         context={"aws:RequestTag/team": "a"}),
    Case("a variable in a condition value",
         [allow(**cond("StringEquals", "aws:ResourceTag/owner", "${aws:username}"))], ALLOW,
         context={"aws:ResourceTag/owner": "alice", "aws:username": "alice"}),
    Case("a variable in a condition value, another user",
         [allow(**cond("StringEquals", "aws:ResourceTag/owner", "${aws:username}"))], IMPLICIT,
         context={"aws:ResourceTag/owner": "bob", "aws:username": "alice"}),
    Case("a variable in StringLike stays literal",
         [allow(**cond("StringLike", "aws:ResourceTag/owner", "${aws:username}-*"))], ALLOW,
         context={"aws:ResourceTag/owner": "a*-x", "aws:username": "a*"}),
    Case("two keys under one operator are AND",
         [allow(Condition={"StringEquals": {"aws:RequestTag/team": "a", "aws:RequestTag/cost": "1"}})], IMPLICIT,
         context={"aws:RequestTag/team": "a", "aws:RequestTag/cost": "2"}),
    Case("two keys under one operator, both hold",
         [allow(Condition={"StringEquals": {"aws:RequestTag/team": "a", "aws:RequestTag/cost": "1"}})], ALLOW,
         context={"aws:RequestTag/team": "a", "aws:RequestTag/cost": "1"}),
    Case("two operators are AND",
         [allow(Condition={"StringEquals": {"aws:RequestTag/team": "a"}, "Bool": {"aws:SecureTransport": "true"}})],
         IMPLICIT, context={"aws:RequestTag/team": "a", "aws:SecureTransport": "false"}),
    Case("glue:VpcIds in a list", [deny("glue:CreateSession", **cond("ForAnyValue:StringNotEquals", "glue:VpcIds",
                                                                      ["vpc-1", "vpc-2"])), allow()], ALLOW,
         action="glue:CreateSession", context={"glue:VpcIds": ["vpc-1"]}),
    Case("glue:VpcIds outside the list", [deny("glue:CreateSession", **cond("ForAnyValue:StringNotEquals",
                                                                             "glue:VpcIds", ["vpc-1", "vpc-2"])),
                                          allow()], DENY, action="glue:CreateSession",
         context={"glue:VpcIds": ["vpc-9"]}),
]

NUMBERS = [
    Case("NumericEquals", [allow(**cond("NumericEquals", "glue:NumberOfWorkers", "10"))], ALLOW,
         context={"glue:NumberOfWorkers": "10"}),
    Case("NumericEquals compares numbers", [allow(**cond("NumericEquals", "glue:NumberOfWorkers", "10"))], ALLOW,
         context={"glue:NumberOfWorkers": "10.0"}),
    Case("NumericEquals JSON number", [allow(**cond("NumericEquals", "glue:NumberOfWorkers", 10))], ALLOW,
         context={"glue:NumberOfWorkers": "10"}),
    Case("NumericNotEquals", [allow(**cond("NumericNotEquals", "glue:NumberOfWorkers", "10"))], IMPLICIT,
         context={"glue:NumberOfWorkers": "10"}),
    Case("NumericLessThan", [allow(**cond("NumericLessThan", "glue:NumberOfWorkers", "10"))], ALLOW,
         context={"glue:NumberOfWorkers": "9"}),
    Case("NumericLessThan at the bound", [allow(**cond("NumericLessThan", "glue:NumberOfWorkers", "10"))], IMPLICIT,
         context={"glue:NumberOfWorkers": "10"}),
    Case("NumericLessThanEquals at the bound", [allow(**cond("NumericLessThanEquals", "glue:NumberOfWorkers", 10))],
         ALLOW, context={"glue:NumberOfWorkers": "10"}),
    Case("NumericGreaterThan", [allow(**cond("NumericGreaterThan", "glue:NumberOfWorkers", "10"))], ALLOW,
         context={"glue:NumberOfWorkers": "11"}),
    Case("NumericGreaterThan at the bound", [allow(**cond("NumericGreaterThan", "glue:NumberOfWorkers", "10"))],
         IMPLICIT, context={"glue:NumberOfWorkers": "10"}),
    Case("NumericGreaterThanEquals", [allow(**cond("NumericGreaterThanEquals", "glue:NumberOfWorkers", "10"))],
         ALLOW, context={"glue:NumberOfWorkers": "10"}),
    Case("decimals", [allow(**cond("NumericLessThan", "glue:MaxCapacity", "2.5"))], ALLOW,
         context={"glue:MaxCapacity": "2.0625"}),
    Case("a request value that is not a number matches nothing",
         [allow(**cond("NumericLessThan", "glue:NumberOfWorkers", "10"))], IMPLICIT,
         context={"glue:NumberOfWorkers": "few"}),
    Case("negative numbers", [allow(**cond("NumericGreaterThan", "glue:X", "-5"))], ALLOW, context={"glue:X": "-1"}),
]

DATES = [
    Case("DateLessThan", [allow(**cond("DateLessThan", "aws:CurrentTime", "2027-01-01T00:00:00Z"))], ALLOW,
         context={"aws:CurrentTime": "2026-11-25T10:00:00Z"}),
    Case("DateLessThan past the date", [allow(**cond("DateLessThan", "aws:CurrentTime", "2026-01-01T00:00:00Z"))],
         IMPLICIT, context={"aws:CurrentTime": "2026-11-25T10:00:00Z"}),
    Case("DateGreaterThan", [allow(**cond("DateGreaterThan", "aws:CurrentTime", "2026-01-01T00:00:00Z"))], ALLOW,
         context={"aws:CurrentTime": "2026-11-25T10:00:00Z"}),
    Case("DateEquals", [allow(**cond("DateEquals", "aws:CurrentTime", "2026-11-25T10:00:00Z"))], ALLOW,
         context={"aws:CurrentTime": "2026-11-25T10:00:00Z"}),
    Case("DateEquals across time zones", [allow(**cond("DateEquals", "aws:CurrentTime", "2026-11-25T11:00:00+01:00"))],
         ALLOW, context={"aws:CurrentTime": "2026-11-25T10:00:00Z"}),
    Case("DateNotEquals", [allow(**cond("DateNotEquals", "aws:CurrentTime", "2026-11-25T10:00:00Z"))], IMPLICIT,
         context={"aws:CurrentTime": "2026-11-25T10:00:00Z"}),
    Case("epoch seconds in the policy", [allow(**cond("DateLessThan", "aws:CurrentTime", "1798761600"))], ALLOW,
         context={"aws:CurrentTime": "2026-11-25T10:00:00Z"}),
    Case("epoch seconds in the request", [allow(**cond("DateGreaterThan", "aws:EpochTime", "2026-01-01T00:00:00Z"))],
         ALLOW, context={"aws:EpochTime": "1795600000"}),
    Case("a date without time", [allow(**cond("DateGreaterThanEquals", "aws:CurrentTime", "2026-11-25"))], ALLOW,
         context={"aws:CurrentTime": "2026-11-25T00:00:00Z"}),
    Case("DateLessThanEquals at the bound",
         [allow(**cond("DateLessThanEquals", "aws:CurrentTime", "2026-11-25T10:00:00Z"))], ALLOW,
         context={"aws:CurrentTime": "2026-11-25T10:00:00Z"}),
    Case("DateGreaterThanEquals before",
         [allow(**cond("DateGreaterThanEquals", "aws:CurrentTime", "2026-11-25T10:00:01Z"))], IMPLICIT,
         context={"aws:CurrentTime": "2026-11-25T10:00:00Z"}),
    Case("a time window", [allow(Condition={"DateGreaterThan": {"aws:CurrentTime": "2026-11-01T00:00:00Z"},
                                            "DateLessThan": {"aws:CurrentTime": "2026-12-01T00:00:00Z"}})], ALLOW,
         context={"aws:CurrentTime": "2026-11-25T10:00:00Z"}),
    Case("outside a time window", [allow(Condition={"DateGreaterThan": {"aws:CurrentTime": "2026-11-01T00:00:00Z"},
                                                    "DateLessThan": {"aws:CurrentTime": "2026-11-20T00:00:00Z"}})],
         IMPLICIT, context={"aws:CurrentTime": "2026-11-25T10:00:00Z"}),
]

BOOL_BINARY_IP = [
    Case("Bool true", [allow(**cond("Bool", "aws:SecureTransport", "true"))], ALLOW,
         context={"aws:SecureTransport": "true"}),
    Case("Bool JSON true", [allow(**cond("Bool", "aws:SecureTransport", True))], ALLOW,
         context={"aws:SecureTransport": "true"}),
    Case("Bool false vs true", [allow(**cond("Bool", "aws:SecureTransport", "true"))], IMPLICIT,
         context={"aws:SecureTransport": "false"}),
    Case("Bool is case-insensitive", [allow(**cond("Bool", "aws:SecureTransport", "TRUE"))], ALLOW,
         context={"aws:SecureTransport": "true"}),
    Case("deny insecure transport", [allow(), deny(**cond("Bool", "aws:SecureTransport", "false"))], DENY,
         context={"aws:SecureTransport": "false"}),
    Case("Bool on an absent key is false", [allow(**cond("Bool", "aws:MultiFactorAuthPresent", "true"))], IMPLICIT),
    Case("BinaryEquals", [allow(**cond("BinaryEquals", "glue:Blob", "QmluYXJ5"))], ALLOW,
         context={"glue:Blob": "QmluYXJ5"}),
    Case("BinaryEquals other", [allow(**cond("BinaryEquals", "glue:Blob", "QmluYXJ5"))], IMPLICIT,
         context={"glue:Blob": "T3RoZXI="}),
    Case("IpAddress in a CIDR", [allow(**cond("IpAddress", "aws:SourceIp", "203.0.113.0/24"))], ALLOW,
         context={"aws:SourceIp": "203.0.113.7"}),
    Case("IpAddress outside", [allow(**cond("IpAddress", "aws:SourceIp", "203.0.113.0/24"))], IMPLICIT,
         context={"aws:SourceIp": "198.51.100.7"}),
    Case("IpAddress single address", [allow(**cond("IpAddress", "aws:SourceIp", "127.0.0.1"))], ALLOW,
         context={"aws:SourceIp": "127.0.0.1"}),
    Case("IpAddress list", [allow(**cond("IpAddress", "aws:SourceIp", ["10.0.0.0/8", "127.0.0.0/8"]))], ALLOW,
         context={"aws:SourceIp": "127.0.0.5"}),
    Case("IPv6", [allow(**cond("IpAddress", "aws:SourceIp", "2001:db8::/32"))], ALLOW,
         context={"aws:SourceIp": "2001:db8::1"}),
    Case("IPv4 against an IPv6 range", [allow(**cond("IpAddress", "aws:SourceIp", "2001:db8::/32"))], IMPLICIT,
         context={"aws:SourceIp": "127.0.0.1"}),
    Case("NotIpAddress", [allow(**cond("NotIpAddress", "aws:SourceIp", "203.0.113.0/24"))], ALLOW,
         context={"aws:SourceIp": "198.51.100.7"}),
    Case("NotIpAddress inside", [allow(**cond("NotIpAddress", "aws:SourceIp", "203.0.113.0/24"))], IMPLICIT,
         context={"aws:SourceIp": "203.0.113.9"}),
    Case("deny from outside the network", [allow(), deny(**cond("NotIpAddress", "aws:SourceIp", "10.0.0.0/8"))],
         DENY, context={"aws:SourceIp": "192.0.2.1"}),
]

ARNS = [
    Case("ArnEquals", [allow(**cond("ArnEquals", "aws:PrincipalArn", f"arn:aws:iam::{A}:user/alice"))], ALLOW,
         context={"aws:PrincipalArn": f"arn:aws:iam::{A}:user/alice"}),
    Case("ArnEquals other", [allow(**cond("ArnEquals", "aws:PrincipalArn", f"arn:aws:iam::{A}:user/bob"))], IMPLICIT,
         context={"aws:PrincipalArn": f"arn:aws:iam::{A}:user/alice"}),
    Case("ArnLike wildcard in the resource part", [allow(**cond("ArnLike", "aws:PrincipalArn",
                                                                f"arn:aws:iam::{A}:user/*"))], ALLOW,
         context={"aws:PrincipalArn": f"arn:aws:iam::{A}:user/alice"}),
    Case("ArnLike wildcard for the account",
         [allow(**cond("ArnLike", "aws:PrincipalArn", "arn:aws:iam::*:role/Admin"))],
         ALLOW, context={"aws:PrincipalArn": f"arn:aws:iam::{B}:role/Admin"}),
    Case("ArnEquals also takes wildcards", [allow(**cond("ArnEquals", "aws:PrincipalArn", "arn:aws:iam::*:user/*"))],
         ALLOW, context={"aws:PrincipalArn": f"arn:aws:iam::{A}:user/alice"}),
    Case("ArnLike part by part", [allow(**cond("ArnLike", "aws:PrincipalArn", f"arn:aws:iam::{A}*"))], IMPLICIT,
         context={"aws:PrincipalArn": f"arn:aws:iam::{A}:user/alice"}),
    Case("ArnNotLike", [allow(**cond("ArnNotLike", "aws:PrincipalArn", f"arn:aws:iam::{A}:role/*"))], ALLOW,
         context={"aws:PrincipalArn": f"arn:aws:iam::{A}:user/alice"}),
    Case("ArnNotLike match", [allow(**cond("ArnNotLike", "aws:PrincipalArn", f"arn:aws:iam::{A}:user/*"))], IMPLICIT,
         context={"aws:PrincipalArn": f"arn:aws:iam::{A}:user/alice"}),
    Case("ArnNotEquals", [allow(**cond("ArnNotEquals", "aws:PrincipalArn", f"arn:aws:iam::{A}:user/bob"))], ALLOW,
         context={"aws:PrincipalArn": f"arn:aws:iam::{A}:user/alice"}),
    Case("a request value that is not an ARN", [allow(**cond("ArnLike", "aws:SourceArn", "arn:aws:glue:*:*:*"))],
         IMPLICIT, context={"aws:SourceArn": "not-an-arn"}),
    Case("ArnLike on a Glue ARN", [allow(**cond("ArnLike", "aws:SourceArn", f"arn:aws:glue:*:{A}:job/*"))], ALLOW,
         context={"aws:SourceArn": JOB}),
]

NULLS_AND_MISSING = [
    Case("Null true on an absent key", [allow(**cond("Null", "aws:TokenIssueTime", "true"))], ALLOW),
    Case("Null true on a present key", [allow(**cond("Null", "aws:TokenIssueTime", "true"))], IMPLICIT,
         context={"aws:TokenIssueTime": "2026-11-25T00:00:00Z"}),
    Case("Null false on a present key", [allow(**cond("Null", "aws:TokenIssueTime", "false"))], ALLOW,
         context={"aws:TokenIssueTime": "2026-11-25T00:00:00Z"}),
    Case("Null false on an absent key", [allow(**cond("Null", "aws:TokenIssueTime", "false"))], IMPLICIT),
    Case("Null JSON boolean", [allow(**cond("Null", "aws:TokenIssueTime", True))], ALLOW),
    Case("deny when glue:VpcIds is null", [allow(), deny("glue:CreateSession",
                                                         **cond("Null", "glue:VpcIds", "true"))], DENY,
         action="glue:CreateSession"),
    Case("no deny when glue:VpcIds is set", [allow(), deny("glue:CreateSession",
                                                           **cond("Null", "glue:VpcIds", "true"))], ALLOW,
         action="glue:CreateSession", context={"glue:VpcIds": ["vpc-1"]}),
    Case("an empty value counts as absent for Null", [allow(**cond("Null", "aws:RequestTag/team", "true"))], ALLOW,
         context={"aws:RequestTag/team": ""}),
    Case("absent key: StringEquals false", [allow(**cond("StringEquals", "aws:RequestTag/team", "a"))], IMPLICIT),
    Case("absent key: StringLike false", [allow(**cond("StringLike", "aws:RequestTag/team", "*"))], IMPLICIT),
    Case("absent key: NumericLessThan false", [allow(**cond("NumericLessThan", "glue:N", "5"))], IMPLICIT),
    Case("absent key: DateLessThan false", [allow(**cond("DateLessThan", "aws:TokenIssueTime", "2030-01-01"))],
         IMPLICIT),
    Case("absent key: IpAddress false", [allow(**cond("IpAddress", "aws:SourceIp", "0.0.0.0/0"))], IMPLICIT),
    Case("absent key: StringNotEquals true", [allow(**cond("StringNotEquals", "aws:RequestTag/team", "a"))], ALLOW),
    Case("absent key: StringNotLike true", [allow(**cond("StringNotLike", "aws:RequestTag/team", "a*"))], ALLOW),
    Case("absent key: ArnNotLike true", [allow(**cond("ArnNotLike", "aws:SourceArn", "arn:aws:glue:*:*:*"))], ALLOW),
    Case("absent key: NotIpAddress true", [allow(**cond("NotIpAddress", "aws:SourceIp", "10.0.0.0/8"))], ALLOW),
    Case("absent key: a deny with StringNotEquals applies",
         [allow(), deny(**cond("StringNotEquals", "aws:RequestTag/team", "analytics"))], DENY),
]

IF_EXISTS = [
    Case("IfExists on an absent key holds", [allow(**cond("StringEqualsIfExists", "aws:RequestTag/team", "a"))],
         ALLOW),
    Case("IfExists on a present key checks it", [allow(**cond("StringEqualsIfExists", "aws:RequestTag/team", "a"))],
         IMPLICIT, context={"aws:RequestTag/team": "b"}),
    Case("IfExists on a present matching key", [allow(**cond("StringEqualsIfExists", "aws:RequestTag/team", "a"))],
         ALLOW, context={"aws:RequestTag/team": "a"}),
    Case("NumericLessThanIfExists absent", [allow(**cond("NumericLessThanIfExists", "glue:NumberOfWorkers", "5"))],
         ALLOW),
    Case("NumericLessThanIfExists over", [allow(**cond("NumericLessThanIfExists", "glue:NumberOfWorkers", "5"))],
         IMPLICIT, context={"glue:NumberOfWorkers": "8"}),
    Case("a deny with IfExists applies on an absent key",
         [allow(), deny(**cond("StringNotEqualsIfExists", "aws:RequestTag/team", "a"))], DENY),
    Case("BoolIfExists absent", [allow(**cond("BoolIfExists", "aws:MultiFactorAuthPresent", "true"))], ALLOW),
    Case("ArnLikeIfExists present", [allow(**cond("ArnLikeIfExists", "aws:SourceArn", "arn:aws:glue:*:*:job/*"))],
         ALLOW, context={"aws:SourceArn": JOB}),
    Case("IpAddressIfExists present outside", [allow(**cond("IpAddressIfExists", "aws:SourceIp", "10.0.0.0/8"))],
         IMPLICIT, context={"aws:SourceIp": "127.0.0.1"}),
    Case("DateLessThanIfExists absent", [allow(**cond("DateLessThanIfExists", "aws:TokenIssueTime", "2020-01-01"))],
         ALLOW),
]

SETS = [
    Case("ForAllValues: every request value listed", [allow(**cond("ForAllValues:StringEquals", "aws:TagKeys",
                                                                   ["team", "cost"]))], ALLOW,
         context={"aws:TagKeys": ["team", "cost"]}),
    Case("ForAllValues: a subset", [allow(**cond("ForAllValues:StringEquals", "aws:TagKeys", ["team", "cost"]))],
         ALLOW, context={"aws:TagKeys": ["team"]}),
    Case("ForAllValues: one value not listed", [allow(**cond("ForAllValues:StringEquals", "aws:TagKeys",
                                                             ["team", "cost"]))], IMPLICIT,
         context={"aws:TagKeys": ["team", "owner"]}),
    Case("ForAllValues: an absent key holds", [allow(**cond("ForAllValues:StringEquals", "aws:TagKeys", "team"))],
         ALLOW),
    Case("ForAllValues: an empty set holds", [allow(**cond("ForAllValues:StringEquals", "aws:TagKeys", "team"))],
         ALLOW, context={"aws:TagKeys": []}),
    Case("ForAllValues:StringLike", [allow(**cond("ForAllValues:StringLike", "aws:TagKeys", "Created*"))], ALLOW,
         context={"aws:TagKeys": ["CreatedBy", "CreatedAt"]}),
    Case("ForAllValues:StringLike one off", [allow(**cond("ForAllValues:StringLike", "aws:TagKeys", "Created*"))],
         IMPLICIT, context={"aws:TagKeys": ["CreatedBy", "Owner"]}),
    Case("ForAnyValue: one value listed", [allow(**cond("ForAnyValue:StringEquals", "aws:TagKeys", "team"))], ALLOW,
         context={"aws:TagKeys": ["owner", "team"]}),
    Case("ForAnyValue: none listed", [allow(**cond("ForAnyValue:StringEquals", "aws:TagKeys", "team"))], IMPLICIT,
         context={"aws:TagKeys": ["owner", "cost"]}),
    Case("ForAnyValue: an absent key does not hold", [allow(**cond("ForAnyValue:StringEquals", "aws:TagKeys",
                                                                   "team"))], IMPLICIT),
    Case("ForAllValues:StringNotEquals: none of them", [allow(**cond("ForAllValues:StringNotEquals", "aws:TagKeys",
                                                                     ["secret"]))], ALLOW,
         context={"aws:TagKeys": ["team", "cost"]}),
    Case("ForAllValues:StringNotEquals: one of them", [allow(**cond("ForAllValues:StringNotEquals", "aws:TagKeys",
                                                                    ["secret"]))], IMPLICIT,
         context={"aws:TagKeys": ["team", "secret"]}),
    Case("ForAnyValue:StringNotEquals: one outside", [allow(**cond("ForAnyValue:StringNotEquals", "glue:VpcIds",
                                                                   ["vpc-1"]))], ALLOW,
         context={"glue:VpcIds": ["vpc-1", "vpc-2"]}),
    Case("ForAnyValue:StringNotEquals: all inside", [allow(**cond("ForAnyValue:StringNotEquals", "glue:VpcIds",
                                                                  ["vpc-1", "vpc-2"]))], IMPLICIT,
         context={"glue:VpcIds": ["vpc-1", "vpc-2"]}),
    Case("ForAnyValue:StringNotEquals: absent key", [allow(**cond("ForAnyValue:StringNotEquals", "glue:VpcIds",
                                                                  ["vpc-1"]))], IMPLICIT),
    Case("ForAllValues with IfExists on an absent key",
         [allow(**cond("ForAllValues:StringEqualsIfExists", "aws:TagKeys", "team"))], ALLOW),
    Case("ForAnyValue with IfExists on an absent key",
         [allow(**cond("ForAnyValue:StringEqualsIfExists", "aws:TagKeys", "team"))], ALLOW),
    Case("a multivalued key without a qualifier: any value", [allow(**cond("StringEquals", "glue:SubnetIds",
                                                                           "subnet-1"))], ALLOW,
         context={"glue:SubnetIds": ["subnet-9", "subnet-1"]}),
    Case("ForAnyValue:StringLike over security groups",
         [allow(**cond("ForAnyValue:StringLike", "glue:SecurityGroupIds", "sg-app*"))], ALLOW,
         context={"glue:SecurityGroupIds": ["sg-db", "sg-app-1"]}),
    Case("ForAllValues:StringEqualsIgnoreCase", [allow(**cond("ForAllValues:StringEqualsIgnoreCase", "aws:TagKeys",
                                                              ["TEAM"]))], ALLOW,
         context={"aws:TagKeys": ["team"]}),
    Case("deny unless every tag key is allowed",
         [allow(), deny(**cond("ForAnyValue:StringNotEquals", "aws:TagKeys", ["team", "billing"]))], DENY,
         context={"aws:TagKeys": ["team", "owner"]}),
    Case("no deny when every tag key is allowed",
         [allow(), deny(**cond("ForAnyValue:StringNotEquals", "aws:TagKeys", ["team", "billing"]))], ALLOW,
         context={"aws:TagKeys": ["team", "billing"]}),
]

TABLE_IN_OTHER = f"arn:aws:glue:us-east-1:{B}:table/shared/t"
RESOURCE_POLICIES = [
    Case("same account: a resource policy naming the user allows alone", [], ALLOW,
         resource_policy=[{"Effect": "Allow", "Principal": {"AWS": ALICE.arn}, "Action": "glue:GetTable",
                           "Resource": TABLE}]),
    Case("same account: naming the account delegates to identity policies", [], IMPLICIT,
         resource_policy=[{"Effect": "Allow", "Principal": {"AWS": A}, "Action": "glue:*", "Resource": "*"}]),
    Case("same account: naming the account, identity allows", [allow()], ALLOW,
         resource_policy=[{"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{A}:root"}, "Action": "glue:*",
                           "Resource": "*"}]),
    Case("same account: a resource policy for another user", [], IMPLICIT,
         resource_policy=[{"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{A}:user/carol"},
                           "Action": "glue:*", "Resource": "*"}]),
    Case("same account: a resource policy naming the role allows its session", [], ALLOW, principal=SESSION_A,
         resource_policy=[{"Effect": "Allow", "Principal": {"AWS": SESSION_A.role_arn}, "Action": "glue:*",
                           "Resource": "*"}]),
    Case("a resource policy's deny beats the identity allow", [allow()], DENY,
         resource_policy=[{"Effect": "Deny", "Principal": {"AWS": ALICE.arn}, "Action": "glue:GetTable",
                           "Resource": "*"}]),
    Case("Principal * with a condition", [], ALLOW,
         resource_policy=[{"Effect": "Allow", "Principal": "*", "Action": "glue:GetTable", "Resource": "*",
                           "Condition": {"StringEquals": {"aws:PrincipalAccount": A}}}],
         context={"aws:PrincipalAccount": A}),
    Case("NotPrincipal deny spares the named", [allow()], ALLOW,
         resource_policy=[{"Effect": "Deny", "NotPrincipal": {"AWS": ALICE.arn}, "Action": "glue:*",
                           "Resource": "*"}]),
    Case("NotPrincipal deny hits the others", [allow()], DENY, principal=SESSION_A,
         resource_policy=[{"Effect": "Deny", "NotPrincipal": {"AWS": ALICE.arn}, "Action": "glue:*",
                           "Resource": "*"}]),
    Case("cross-account: identity alone is not enough", [allow()], IMPLICIT, principal=BOB_B, resource=TABLE,
         resource_account=A),
    Case("cross-account: resource policy alone is not enough", [], IMPLICIT, principal=BOB_B, resource_account=A,
         resource_policy=[{"Effect": "Allow", "Principal": {"AWS": BOB_B.arn}, "Action": "glue:*", "Resource": "*"}]),
    Case("cross-account: both sides allow", [allow()], ALLOW, principal=BOB_B, resource_account=A,
         resource_policy=[{"Effect": "Allow", "Principal": {"AWS": BOB_B.arn}, "Action": "glue:*", "Resource": "*"}]),
    Case("cross-account: the resource policy names the caller's account", [allow()], ALLOW, principal=BOB_B,
         resource_account=A,
         resource_policy=[{"Effect": "Allow", "Principal": {"AWS": B}, "Action": "glue:Get*", "Resource": "*"}]),
    Case("cross-account: the resource policy allows another action", [allow()], IMPLICIT, principal=BOB_B,
         resource_account=A,
         resource_policy=[{"Effect": "Allow", "Principal": {"AWS": B}, "Action": "glue:GetDatabase",
                           "Resource": "*"}]),
    Case("cross-account: the identity policy denies", [allow(), deny("glue:GetTable")], DENY, principal=BOB_B,
         resource_account=A,
         resource_policy=[{"Effect": "Allow", "Principal": {"AWS": B}, "Action": "glue:*", "Resource": "*"}]),
    Case("cross-account: another account's root has no rights here", [], IMPLICIT,
         principal=Principal.root(B), resource_account=A),
    Case("cross-account root, resource policy names its account", [], ALLOW, principal=Principal.root(B),
         resource_account=A,
         resource_policy=[{"Effect": "Allow", "Principal": {"AWS": B}, "Action": "glue:*", "Resource": "*"}]),
    Case("a service principal", [], ALLOW, principal=GLUE_SERVICE,
         resource_policy=[{"Effect": "Allow", "Principal": {"Service": "glue.amazonaws.com"}, "Action": "glue:*",
                           "Resource": "*"}]),
    Case("another service principal", [], IMPLICIT, principal=GLUE_SERVICE,
         resource_policy=[{"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "glue:*",
                           "Resource": "*"}]),
    Case("a resource policy's Resource is matched too", [], IMPLICIT,
         resource_policy=[{"Effect": "Allow", "Principal": {"AWS": ALICE.arn}, "Action": "glue:*",
                           "Resource": f"arn:aws:glue:us-east-1:{A}:table/other/*"}]),
]


ALL = [*ACTIONS, *RESOURCES, *PRECEDENCE, *STRINGS, *NUMBERS, *DATES, *BOOL_BINARY_IP, *ARNS, *NULLS_AND_MISSING,
       *IF_EXISTS, *SETS, *RESOURCE_POLICIES]


@pytest.mark.parametrize("case", ALL, ids=[c.name for c in ALL])
def test_policy_evaluation(case: Case) -> None:
    assert run(case) is case.expected


def test_the_table_is_large_enough() -> None:
    assert len(ALL) + len(TRUST) + len(MALFORMED) >= 150


def test_every_resource_of_a_request_must_be_allowed() -> None:
    policy = parse_policy({"Version": "2012-10-17", "Statement": [allow("glue:GetTable", [CATALOG, DB])]})
    request = Request(ALICE, "glue:GetTable", (CATALOG, DB, TABLE), A)
    outcome = authorize(request, [policy])
    assert outcome.decision is IMPLICIT and outcome.resource == TABLE
    assert outcome.reason == "because no identity-based policy allows the glue:GetTable action"
    both = parse_policy({"Version": "2012-10-17", "Statement": [allow("glue:GetTable", [CATALOG, DB, TABLE]),
                                                                deny("glue:GetTable", DB)]})
    outcome = authorize(request, [both])
    assert outcome.decision is DENY and outcome.resource == DB
    assert outcome.reason == "with an explicit deny in an identity-based policy"


# ---------------------------------------------------------------- trust policies (sts:AssumeRole)

ROLE_B = f"arn:aws:iam::{B}:role/GlueSessionCreationRole"


@dataclass
class TrustCase:
    name: str
    principal_element: Any
    caller: Principal
    expected: tuple[bool, bool]
    condition: dict[str, Any] | None = None
    context: dict[str, Any] = field(default_factory=dict)
    effect: str = "Allow"


TRUST = [
    TrustCase("the account A root ARN: through the account", {"AWS": f"arn:aws:iam::{A}:root"}, ALICE, (True, True)),
    TrustCase("the account id: through the account", {"AWS": A}, ALICE, (True, True)),
    TrustCase("the user's ARN: directly", {"AWS": ALICE.arn}, ALICE, (True, False)),
    TrustCase("another user", {"AWS": f"arn:aws:iam::{A}:user/carol"}, ALICE, (False, False)),
    TrustCase("another account", {"AWS": B}, ALICE, (False, False)),
    TrustCase("anyone", "*", ALICE, (True, False)),
    TrustCase("a service", {"Service": "glue.amazonaws.com"}, GLUE_SERVICE, (True, False)),
    TrustCase("a service is not a user", {"Service": "glue.amazonaws.com"}, ALICE, (False, False)),
    TrustCase("a role's sessions by role ARN", {"AWS": SESSION_A.role_arn}, SESSION_A, (True, False)),
    TrustCase("ExternalId required and given", {"AWS": A}, ALICE, (True, True),
              {"StringEquals": {"sts:ExternalId": "xyz"}}, {"sts:ExternalId": "xyz"}),
    TrustCase("ExternalId required and missing", {"AWS": A}, ALICE, (False, False),
              {"StringEquals": {"sts:ExternalId": "xyz"}}),
    TrustCase("a deny in the trust policy", {"AWS": A}, ALICE, (False, False), effect="Deny"),
    TrustCase("the root of the trusted account", {"AWS": A}, ROOT_A, (True, False)),
]


@pytest.mark.parametrize("case", TRUST, ids=[c.name for c in TRUST])
def test_trust_policies(case: TrustCase) -> None:
    statement: dict[str, Any] = {"Effect": case.effect, "Principal": case.principal_element, "Action": "sts:AssumeRole"}
    if case.condition:
        statement["Condition"] = case.condition
    trust = parse_policy({"Version": "2012-10-17", "Statement": [statement]}, PolicyKind.TRUST)
    allowed, through_account, _ = trust_allows(trust, case.caller, "sts:AssumeRole", context_of(case.context))
    assert (allowed, through_account) == case.expected


# ---------------------------------------------------------------- documents IAM refuses

MALFORMED: list[tuple[str, Any, PolicyKind, str]] = [
    ("not JSON", "{", PolicyKind.IDENTITY, "Syntax errors in policy."),
    ("a list", "[]", PolicyKind.IDENTITY, "Syntax errors in policy."),
    ("a bad version", {"Version": "2020-01-01", "Statement": [allow()]}, PolicyKind.IDENTITY,
     "The policy must contain a valid version string"),
    ("no statement", {"Version": "2012-10-17"}, PolicyKind.IDENTITY, "Missing required field Statement"),
    ("no effect", {"Version": "2012-10-17", "Statement": [{"Action": "glue:*", "Resource": "*"}]},
     PolicyKind.IDENTITY, "Missing required field Effect"),
    ("a bad effect", {"Version": "2012-10-17", "Statement": [{"Effect": "Permit", "Action": "glue:*",
                                                              "Resource": "*"}]},
     PolicyKind.IDENTITY, "Invalid effect: Permit"),
    ("no action", {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Resource": "*"}]},
     PolicyKind.IDENTITY, "Policy statement must contain actions."),
    ("Action and NotAction", {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "glue:*",
                                                                      "NotAction": "iam:*", "Resource": "*"}]},
     PolicyKind.IDENTITY, "Statement/policy already has instance of Action"),
    ("an action without a vendor", {"Version": "2012-10-17", "Statement": [allow("GetTable")]},
     PolicyKind.IDENTITY, "Actions/Conditions must be prefaced by a vendor"),
    ("no resource in an identity policy", {"Version": "2012-10-17", "Statement": [{"Effect": "Allow",
                                                                                   "Action": "glue:*"}]},
     PolicyKind.IDENTITY, "Policy statement must contain resources."),
    ("a principal in an identity policy", {"Version": "2012-10-17", "Statement": [allow(Principal="*")]},
     PolicyKind.IDENTITY, "Policy document should not specify a principal."),
    ("no principal in a trust policy", {"Version": "2012-10-17", "Statement": [{"Effect": "Allow",
                                                                                "Action": "sts:AssumeRole"}]},
     PolicyKind.TRUST, "Missing required field Principal"),
    ("a resource in a trust policy", {"Version": "2012-10-17", "Statement": [allow("sts:AssumeRole",
                                                                                  Principal="*")]},
     PolicyKind.TRUST, "Has prohibited field Resource"),
    ("an unknown condition operator", {"Version": "2012-10-17", "Statement": [allow(**cond("StringEqualz", "a:b",
                                                                                           "x"))]},
     PolicyKind.IDENTITY, "Invalid Condition type : StringEqualz"),
    ("an unknown qualifier", {"Version": "2012-10-17", "Statement": [allow(**cond("ForSomeValues:StringEquals",
                                                                                  "a:b", "x"))]},
     PolicyKind.IDENTITY, "Invalid Condition type : ForSomeValues:StringEquals"),
    ("NullIfExists", {"Version": "2012-10-17", "Statement": [allow(**cond("NullIfExists", "a:b", "true"))]},
     PolicyKind.IDENTITY, "Invalid Condition type : NullIfExists"),
    ("a numeric condition on text", {"Version": "2012-10-17", "Statement": [allow(**cond("NumericLessThan", "a:b",
                                                                                         "ten"))]},
     PolicyKind.IDENTITY, "is not a number"),
    ("a date condition on text", {"Version": "2012-10-17", "Statement": [allow(**cond("DateLessThan", "a:b",
                                                                                      "soon"))]},
     PolicyKind.IDENTITY, "is not a date"),
    ("an IP condition on text", {"Version": "2012-10-17", "Statement": [allow(**cond("IpAddress", "aws:SourceIp",
                                                                                     "home"))]},
     PolicyKind.IDENTITY, "is not an IP address"),
    ("a resource that is not an ARN", {"Version": "2012-10-17", "Statement": [allow(resource="table/x")]},
     PolicyKind.IDENTITY, "must be in ARN format"),
    ("duplicate Sids", {"Version": "2012-10-17", "Statement": [allow(Sid="a"), allow(Sid="a")]},
     PolicyKind.IDENTITY, "must be unique"),
    ("a Sid that is not alphanumeric", {"Version": "2012-10-17", "Statement": [allow(Sid="a-b")]},
     PolicyKind.IDENTITY, "must be alpha-numeric"),
    ("an unknown principal type", {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"User": "x"}, "Action": "sts:AssumeRole"}]},
     PolicyKind.TRUST, "Invalid principal in policy"),
    ("an unknown element", {"Version": "2012-10-17", "Statement": [allow(Effects="Allow")]},
     PolicyKind.IDENTITY, "Unknown field Effects"),
]


@pytest.mark.parametrize("name,document,kind,message", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_documents_iam_refuses(name: str, document: Any, kind: PolicyKind, message: str) -> None:
    from glueball.iam.policy import PolicyError

    with pytest.raises(PolicyError) as caught:
        parse_policy(document, kind)
    assert message in str(caught.value)


def test_a_single_statement_object_and_string_values_are_accepted() -> None:
    policy = parse_policy('{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"glue:*","Resource":"*"}}')
    assert len(policy.statements) == 1 and policy.statements[0].actions == ("glue:*",)


def test_resource_tags_are_each_resources_own() -> None:
    policy = parse_policy({"Version": "2012-10-17", "Statement": [
        allow("glue:GetJob", **cond("StringEquals", "aws:ResourceTag/team", "analytics"))]})
    tagged, other = JOB, f"arn:aws:glue:us-east-1:{A}:job/other"
    request = Request(ALICE, "glue:GetJob", (tagged, other), A, {},
                      {tagged: context_of({"aws:ResourceTag/team": "analytics"}),
                       other: context_of({"aws:ResourceTag/team": "finance"})})
    outcome = authorize(request, [policy])
    assert outcome.decision is IMPLICIT and outcome.resource == other
    alone = Request(ALICE, "glue:GetJob", (tagged,), A, {}, request.resource_context)
    assert authorize(alone, [policy]).allowed
