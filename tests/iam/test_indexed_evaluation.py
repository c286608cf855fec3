"""The indexed, compiled evaluation decides as the plain one does, on generated policies and requests.

Each policy's statements are found through an index (by action, then by the literal start of their
resource patterns) and their conditions run compiled (:mod:`glueball.iam.compiled`); ``plain=True``
reads every statement in turn with the condition interpreter (``conditions.holds``). A faster evaluator
that changed one decision would be a security bug, so thousands of generated requests — against policies
mixing wildcards, NotAction, NotResource, policy variables in both document versions, every condition
operator, ``IfExists`` and set qualifiers, resource policies naming principals — must get the same
decision, on the same resource, for the same reason, from both, including after the index has
remembered earlier answers.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from glueball.api.identity import Principal, PrincipalKind
from glueball.iam.conditions import CallerContext, compile_condition, holds, parse_condition_block
from glueball.iam.evaluation import Decision, Request, authorize, context_of, trust_allows
from glueball.iam.policy import PolicyKind, parse_policy

A, B = "111122223333", "444455556666"
PRINCIPALS = [
    Principal(PrincipalKind.USER, A, f"arn:aws:iam::{A}:user/alice", unique_id="AIDA1", name="alice"),
    Principal(PrincipalKind.USER, A, f"arn:aws:iam::{A}:user/team/bob", unique_id="AIDA2", name="bob"),
    Principal(PrincipalKind.USER, B, f"arn:aws:iam::{B}:user/carol", unique_id="AIDA3", name="carol"),
    Principal(PrincipalKind.ASSUMED_ROLE, A, f"arn:aws:sts::{A}:assumed-role/Analyst/s1",
              role_arn=f"arn:aws:iam::{A}:role/Analyst", unique_id="AROA1:s1", name="s1"),
    Principal.root(A),
    Principal.root(B),
    Principal(PrincipalKind.SERVICE, A, "glue.amazonaws.com", service="glue.amazonaws.com"),
]
ACTIONS = ["glue:GetTable", "glue:GetTables", "glue:CreateTable", "glue:GetDatabase", "glue:StartJobRun",
           "glue:BatchGetJobs", "s3:GetObject", "s3:PutObject", "iam:PassRole", "sts:AssumeRole"]
ACTION_PATTERNS = ["glue:GetTable", "GLUE:gettable", "glue:Get*", "glue:*Table", "glue:*", "*", "glue:Get?able",
                   "glue:GetTable?", "s3:*Object", "s3:Get*", "iam:PassRole", "sts:*", "glue:Batch*", "glue:Start*"]
RESOURCES = [
    f"arn:aws:glue:us-east-1:{A}:catalog", f"arn:aws:glue:us-east-1:{A}:database/sales",
    f"arn:aws:glue:us-east-1:{A}:table/sales/orders", f"arn:aws:glue:us-east-1:{A}:table/sales/order_items",
    f"arn:aws:glue:eu-west-1:{A}:table/hr/people", f"arn:aws:glue:us-east-1:{B}:table/sales/orders",
    f"arn:aws:glue:us-east-1:{A}:job/etl", f"arn:aws:glue:us-east-1:{A}:job/alice-etl",
    "arn:aws:s3:::lake/raw/a:b.csv", "arn:aws:s3:::lake/alice/x", f"arn:aws:iam::{A}:role/GlueRole", "*",
]
RESOURCE_PATTERNS = [
    "*", f"arn:aws:glue:us-east-1:{A}:catalog", f"arn:aws:glue:*:{A}:database/sales",
    f"arn:aws:glue:*:{A}:table/sales/*", "arn:aws:glue:us-east-1:*:table/*", "arn:aws:glue:*:*:*",
    f"arn:aws:glue:*:{A}:table/sales/order?", f"arn:aws:glue:*:{A}:table/s*/o*", "arn:aws:glue:us-?ast-1:*:*",
    f"arn:aws:glue:*:{A}:job/${{aws:username}}-*", "arn:aws:s3:::lake/${aws:username}/*", "arn:aws:s3:::lake/*",
    "arn:aws:s3:::lake/raw/a:*", "arn:aws:s3:::*", f"arn:aws:iam::{A}:role/*", "arn:aws:glue:*",
    "arn:aws:glue:*:${aws:PrincipalAccount}:table/*/*", "arn:aws:*:*:*:*", f"arn:aws:glue:*:{A}:table/hr/*",
    "arn:aws:s3:::lake/${*}*", f"arn:aws:glue:us-east-1:{A}:table/sales/orders",
]
CONDITIONS: list[tuple[str, str, Any]] = [
    ("StringEquals", "aws:PrincipalTag/team", "data"), ("StringEquals", "aws:PrincipalTag/team", ["data", "ml"]),
    ("StringNotEquals", "aws:PrincipalTag/team", "data"), ("StringEqualsIgnoreCase", "aws:PrincipalTag/team", "DATA"),
    ("StringNotEqualsIgnoreCase", "aws:username", "ALICE"), ("StringLike", "aws:username", "a*"),
    ("StringNotLike", "aws:PrincipalArn", "*:user/*"), ("StringLike", "s3:prefix", "${aws:username}/*"),
    ("StringEquals", "aws:username", "${aws:PrincipalTag/owner, 'nobody'}"),
    ("StringEqualsIfExists", "aws:PrincipalTag/team", "data"), ("NumericLessThan", "s3:max-keys", "100"),
    ("NumericGreaterThanEquals", "s3:max-keys", 10), ("NumericNotEquals", "s3:max-keys", ["5", "7"]),
    ("DateLessThan", "aws:CurrentTime", "2030-01-01T00:00:00Z"), ("DateGreaterThan", "aws:EpochTime", "1700000000"),
    ("DateNotEquals", "aws:CurrentTime", "2026-01-01T00:00:00Z"), ("Bool", "aws:SecureTransport", "false"),
    ("Bool", "aws:MultiFactorAuthPresent", True), ("BinaryEquals", "aws:PrincipalTag/blob", "QmluYXJ5"),
    ("IpAddress", "aws:SourceIp", "10.0.0.0/8"), ("NotIpAddress", "aws:SourceIp", ["10.0.0.0/8", "192.0.2.1"]),
    ("IpAddressIfExists", "aws:SourceIp", "2001:db8::/32"), ("ArnLike", "aws:PrincipalArn", f"arn:aws:iam::{A}:*"),
    ("ArnEquals", "aws:PrincipalArn", f"arn:aws:iam::{A}:role/Analyst"),
    ("ArnNotLike", "aws:PrincipalArn", "arn:aws:iam::*:user/team/*"), ("Null", "aws:PrincipalTag/team", "true"),
    ("Null", "aws:PrincipalTag/team", "false"), ("ForAllValues:StringEquals", "aws:TagKeys", ["team", "env"]),
    ("ForAnyValue:StringLike", "aws:TagKeys", "t*"), ("ForAllValues:StringNotEquals", "aws:TagKeys", "secret"),
    ("ForAnyValue:StringNotEqualsIfExists", "aws:TagKeys", "team"), ("StringEquals", "glue:VpcIds", "vpc-1"),
    ("StringLike", "aws:ResourceTag/team", "d*"), ("StringEquals", "aws:ResourceTag/team", "${aws:PrincipalTag/team}"),
    ("StringEquals", "aws:ResourceTag/team", "data"), ("StringNotEquals", "aws:ResourceTag/team", "finance"),
    ("ArnLike", "aws:PrincipalArn", "arn:aws:iam::${aws:PrincipalAccount}:user/*"),
    ("NumericLessThanEqualsIfExists", "s3:max-keys", "50"), ("DateGreaterThanEquals", "aws:CurrentTime", "${aws:x}"),
]


def _pick(rng: random.Random, pool: list[Any], most: int = 3) -> Any:
    values = rng.sample(pool, rng.randint(1, most))
    return values[0] if len(values) == 1 and rng.random() < 0.5 else values


def _statement(rng: random.Random, kind: PolicyKind, deny: float) -> dict[str, Any]:
    statement: dict[str, Any] = {"Effect": "Deny" if rng.random() < deny else "Allow"}
    statement["NotAction" if rng.random() < 0.15 else "Action"] = _pick(rng, ACTION_PATTERNS)
    if kind is not PolicyKind.TRUST and (kind is PolicyKind.IDENTITY or rng.random() < 0.7):
        patterns = "*" if rng.random() < 0.2 else _pick(rng, RESOURCE_PATTERNS)
        statement["NotResource" if rng.random() < 0.15 else "Resource"] = patterns
    if kind is not PolicyKind.IDENTITY:
        choices: list[Any] = ["*", {"AWS": A}, {"AWS": B}, {"AWS": f"arn:aws:iam::{A}:root"},
                              {"AWS": [PRINCIPALS[0].arn, PRINCIPALS[3].role_arn]}, {"AWS": PRINCIPALS[2].arn},
                              {"Service": "glue.amazonaws.com"}, {"AWS": "*"}]
        statement["NotPrincipal" if rng.random() < 0.1 else "Principal"] = rng.choice(choices)
    if rng.random() < 0.6:
        block: dict[str, dict[str, Any]] = {}
        chosen = rng.sample(CONDITIONS, rng.randint(0 if rng.random() < 0.3 else 1, 3))
        if not chosen or rng.random() < 0.3:  # each resource's own tags: decided per resource of a request
            chosen.append(rng.choice([c for c in CONDITIONS if "ResourceTag" in c[1]]))
        for operator, key, value in chosen:
            block.setdefault(operator, {})[key] = value
        statement["Condition"] = block
    return statement


def _policy(rng: random.Random, kind: PolicyKind, size: int) -> Any:
    version = "2012-10-17" if rng.random() < 0.8 else "2008-10-17"
    deny = 0.15 if size <= 3 else 0.015  # large policies deny rarely, or every request would be denied
    return parse_policy({"Version": version, "Statement": [_statement(rng, kind, deny) for _ in range(size)]}, kind)


def _context(rng: random.Random, principal: Principal) -> dict[str, Any]:
    keys: dict[str, Any] = {"aws:PrincipalArn": principal.role_arn or principal.arn,
                            "aws:PrincipalAccount": principal.account_id, "aws:username": principal.name or None,
                            "aws:CurrentTime": rng.choice(["2026-11-28T10:00:00Z", "2031-01-01T00:00:00Z"]),
                            "aws:EpochTime": rng.choice(["1764324000", "1600000000"]),
                            "aws:SecureTransport": "false"}
    optional = {"aws:PrincipalTag/team": ["data", "ml", "DATA", ""], "aws:PrincipalTag/owner": ["alice", "bob"],
                "aws:PrincipalTag/blob": ["QmluYXJ5", "eA=="], "aws:SourceIp": ["10.1.2.3", "192.0.2.1",
                                                                                "2001:db8::1", "not-an-ip"],
                "s3:prefix": ["alice/x", "bob/y"], "s3:max-keys": ["5", "60", "1000", "x"],
                "aws:TagKeys": [["team"], ["team", "env"], ["secret", "team"], []], "glue:VpcIds": [["vpc-1", "vpc-2"]],
                "aws:MultiFactorAuthPresent": ["true", "false"]}
    for key, values in optional.items():
        if rng.random() < 0.5:
            keys[key] = rng.choice(values)
    return keys


def _compare(seed: int, requests: int) -> set[Decision]:
    """Generate policies and requests from ``seed``; every request decided alike both ways. Returns the
    decisions met."""
    rng = random.Random(seed)
    size = [1, 3, 20, 60][seed % 4]
    identity = [_policy(rng, PolicyKind.IDENTITY, size) for _ in range(rng.randint(1, 3))]
    on_resource = [_policy(rng, PolicyKind.RESOURCE, max(1, size // 4))] if seed % 3 else []
    # callers' contexts made once and reused, as the server does (what they decide is remembered with them)
    callers = [(p, CallerContext(context_of(_context(rng, p)))) for p in PRINCIPALS for _ in range(2)]
    decisions = set()
    for _ in range(requests):  # the same policies throughout: later requests meet what the index remembered
        if rng.random() < 0.5:
            principal, context = rng.choice(callers)
        else:
            principal = rng.choice(PRINCIPALS)
            context = context_of(_context(rng, principal))
        resources = tuple(rng.sample(RESOURCES, rng.randint(1, 3)))
        tags = {r: context_of({"aws:ResourceTag/team": rng.choice(["data", "finance"])})
                for r in resources if rng.random() < 0.6}
        request = Request(principal, rng.choice(ACTIONS), resources, rng.choice([A, B]), context, tags)
        fast = authorize(request, identity, on_resource)
        plain = authorize(request, identity, on_resource, plain=True)
        assert (fast.decision, fast.resource, fast.reason) == (plain.decision, plain.resource, plain.reason), request
        decisions.add(fast.decision)
    return decisions


@pytest.mark.parametrize("seed", range(16))
def test_indexed_and_plain_evaluation_decide_alike(seed: int) -> None:
    _compare(seed, 400)


def test_the_generated_cases_reach_every_decision() -> None:
    assert set().union(*(_compare(seed, 60) for seed in range(16))) == set(Decision)


@pytest.mark.parametrize("seed", range(4))
def test_trust_policies_decide_alike(seed: int) -> None:
    rng = random.Random(100 + seed)
    trust = _policy(rng, PolicyKind.TRUST, 8)
    for _ in range(200):
        principal = rng.choice(PRINCIPALS)
        context = context_of(_context(rng, principal))
        action = rng.choice(["sts:AssumeRole", "sts:TagSession", "glue:GetTable"])
        assert trust_allows(trust, principal, action, context) == trust_allows(trust, principal, action, context,
                                                                               plain=True)


def test_compiled_conditions_hold_as_the_interpreter_says() -> None:
    rng = random.Random(7)
    conditions = [c for operator, key, value in CONDITIONS for c in parse_condition_block({operator: {key: value}})]
    for _ in range(300):
        context = context_of(_context(rng, rng.choice(PRINCIPALS)))
        for condition in conditions:
            for variables in (True, False):
                assert compile_condition(condition, variables)(context) == holds(condition, context, variables), (
                    condition, context, variables)


def test_a_large_policy_finds_the_one_statement_that_applies() -> None:
    """200 statements, of which the index leaves the few that can apply; the answer is the plain one."""
    statements: list[dict[str, Any]] = [
        {"Effect": "Allow", "Action": "glue:Get*", "Resource": f"arn:aws:glue:*:{A}:table/other{i}/*"}
        for i in range(199)]
    statements.append({"Effect": "Allow", "Action": "glue:GetTable", "Resource": f"arn:aws:glue:*:{A}:table/bench/*"})
    policy = parse_policy({"Version": "2012-10-17", "Statement": statements})
    rules = policy.compiled.for_action("glue:GetTable")
    assert len(rules.constant(f"arn:aws:glue:us-east-1:{A}:table/bench/t")) == 1
    assert len(rules.constant(f"arn:aws:glue:us-east-1:{A}:table/other17/t")) == 1
    for table in ("bench/t", "other17/t", "nowhere/t"):
        request = Request(PRINCIPALS[0], "glue:GetTable", (f"arn:aws:glue:us-east-1:{A}:table/{table}",), A)
        assert authorize(request, [policy]) == authorize(request, [policy], plain=True)
