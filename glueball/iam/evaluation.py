"""Policy evaluation as the IAM User Guide documents it ("Policy evaluation logic").

For one action on one resource by one principal:

1. an explicit ``Deny`` in any applicable policy (identity-based or resource-based) decides:
   denied;
2. otherwise, within one account, an ``Allow`` in an identity-based policy, or in the resource's
   policy for that very principal (its user ARN, its role's ARN, its session's ARN), allows —
   a resource policy that names the whole account (``"AWS": "111122223333"`` or the account's
   ``:root`` ARN) delegates to the account, whose identity policies must then allow too;
3. across accounts, both sides must allow: the caller's identity-based policies and the
   resource's policy for the caller (or the caller's account);
4. otherwise: denied (implicitly).

An account's root user is not limited by identity-based policies in its own account (only an
explicit deny in a resource policy stops it). A request naming several resources (``GetTable``:
catalog, database and table) must be allowed on each; :func:`authorize` says which one failed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from glueball.api.identity import Principal, PrincipalKind
from glueball.iam.compiled import met
from glueball.iam.conditions import Context, arn_matches, expand, holds
from glueball.iam.policy import Policy, Principals, Statement


class Decision(StrEnum):
    ALLOW = "allow"
    EXPLICIT_DENY = "explicit deny"
    IMPLICIT_DENY = "implicit deny"


@dataclass(frozen=True)
class Outcome:
    """The decision on one resource, and what decided it (for the AccessDenied message)."""

    decision: Decision
    resource: str
    reason: str = ""

    @property
    def allowed(self) -> bool:
        return self.decision is Decision.ALLOW


@dataclass(frozen=True)
class Request:
    """One authorization question: ``action`` (``glue:GetTable``) on ``resources`` in ``account_id``."""

    principal: Principal
    action: str
    resources: tuple[str, ...]
    resource_account: str
    context: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # keys that differ per resource (aws:ResourceTag/* is the tags of the resource being decided)
    resource_context: Mapping[str, Mapping[str, tuple[str, ...]]] = field(default_factory=dict)


def context_of(keys: Mapping[str, str | Iterable[str] | None]) -> dict[str, tuple[str, ...]]:
    """A request context with lower-cased keys (condition keys are case-insensitive); None drops a key."""
    context: dict[str, tuple[str, ...]] = {}
    for key, value in keys.items():
        if value is None:
            continue
        context[key.lower()] = (value,) if isinstance(value, str) else tuple(value)
    return context


def action_matches(patterns: Sequence[str], action: str) -> bool:
    """``glue:Get*`` against ``glue:GetTable``: wildcards ``*`` and ``?``, case-insensitive."""
    return any(_action_regex(p).fullmatch(action) is not None for p in patterns)


_ACTION_CACHE: dict[str, re.Pattern[str]] = {}


def _action_regex(pattern: str) -> re.Pattern[str]:
    found = _ACTION_CACHE.get(pattern)
    if found is None:
        text = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
        found = _ACTION_CACHE[pattern] = re.compile(text, re.IGNORECASE | re.DOTALL)
    return found


def resource_matches(patterns: Sequence[str], resource: str, context: Context, variables: bool) -> bool:
    """A resource ARN against ``Resource`` values: ``*``, or ARN patterns compared part by part."""
    for pattern in patterns:
        if pattern == "*":
            return True
        if arn_matches(resource, expand(pattern, context, variables, "arn")):
            return True
    return False


def principal_matches(principals: Principals, principal: Principal) -> tuple[bool, bool]:
    """Whether ``principals`` names ``principal``, and whether it names it only through its account
    (which delegates to the account's own identity policies)."""
    if principals.anyone or "*" in principals.aws:
        return True, False
    if principal.kind is PrincipalKind.SERVICE:
        return principal.service in principals.service, False
    for value in principals.aws:
        if value in (principal.arn, principal.role_arn):
            return True, principal.kind is PrincipalKind.ROOT
        if value in (principal.account_id, f"arn:aws:iam::{principal.account_id}:root"):
            return True, principal.kind is not PrincipalKind.ROOT
    return False, False


def statement_applies(statement: Statement, action: str, resource: str | None, context: Context,
                      variables: bool, principal: Principal | None = None) -> tuple[bool, bool]:
    """Whether ``statement`` applies to the request, statement by statement as the IAM User Guide reads,
    and (for resource policies) whether only through the principal's account. ``resource`` None: the
    resource the policy is attached to (trust policies). The evaluation itself goes through each policy's
    compiled index (:mod:`glueball.iam.compiled`); this is the plain reading the index is tested against."""
    acts = (not action_matches(statement.not_actions, action) if statement.not_actions is not None
            else action_matches(statement.actions, action))
    if not acts:
        return False, False
    if resource is not None:
        if statement.not_resources is not None:
            if resource_matches(statement.not_resources, resource, context, variables):
                return False, False
        elif statement.resources is not None and not resource_matches(statement.resources, resource, context,
                                                                       variables):
            return False, False
    via_account = False
    if principal is not None:
        if statement.principals is not None:
            named, via_account = principal_matches(statement.principals, principal)
            if not named:
                return False, False
        elif statement.not_principals is not None and principal_matches(statement.not_principals, principal)[0]:
            return False, False
    if not all(holds(c, context, variables) for c in statement.conditions):
        return False, False
    return True, via_account


@dataclass
class _Tally:
    deny: bool = False
    allow: bool = False
    allow_via_account: bool = False


def _plain_tally(policies: Iterable[Policy], action: str, resource: str | None, context: Context,
                 principal: Principal | None) -> _Tally:
    """What the policies say, every statement read in turn (:func:`statement_applies`): no index, no memo."""
    tally = _Tally()
    for policy in policies:
        for statement in policy.statements:
            applies, via_account = statement_applies(statement, action, resource, context, policy.variables_allowed,
                                                      principal)
            if not applies:
                continue
            if statement.effect == "Deny":
                tally.deny = True
            elif via_account:
                tally.allow_via_account = True
            else:
                tally.allow = True
    return tally


def _tally(policies: Iterable[Policy], action: str, resource: str | None, context: Context,
           principal: Principal | None, memo: dict[tuple[int, str], bool], context_key: str = "",
           plain: bool = False) -> _Tally:
    """What the policies' statements covering ``action`` on ``resource`` say. ``memo`` keeps, across the
    resources of one request, whether a statement's conditions hold in the context named ``context_key``
    (the request's own, or a resource's when it has keys of its own). ``plain``: :func:`_plain_tally`."""
    if plain:
        return _plain_tally(policies, action, resource, context, principal)
    tally = _Tally()
    for policy in policies:
        compiled = policy.compiled
        variables = compiled.variables
        rules = compiled.for_action(action)
        if principal is None and resource is not None:  # an identity policy: no principal to match
            denies, allows = rules.general(context, memo, context_key)
            if denies:
                tally.deny = True
                return tally
            tally.allow = tally.allow or allows
            candidates = rules.specific(resource)
        else:
            candidates = rules.constant(resource)
        for rule in (*candidates, *rules.varying):
            if rule.varying and resource is not None and not rule.covers_varying(resource, context, variables):
                continue
            via_account = False
            if principal is not None:
                statement = rule.statement
                if statement.principals is not None:
                    named, via_account = principal_matches(statement.principals, principal)
                    if not named:
                        continue
                elif statement.not_principals is not None and principal_matches(statement.not_principals,
                                                                                 principal)[0]:
                    continue
            if rule.test is not None and not met(rule, context, memo, context_key):
                continue
            if rule.deny:
                tally.deny = True
                return tally
            if via_account:
                tally.allow_via_account = True
            else:
                tally.allow = True
    return tally


def decide(request: Request, resource: str, identity_policies: Sequence[Policy],
           resource_policies: Sequence[Policy] = (), memo: dict[tuple[int, str], bool] | None = None,
           plain: bool = False) -> Outcome:
    """The decision for ``request`` on one ``resource`` (``plain``: statement by statement, without the
    policies' compiled index — the reading the index is tested against)."""
    principal = request.principal
    context = request.context
    context_key = ""
    if resource in request.resource_context:
        context = {**context, **request.resource_context[resource]}
        context_key = resource
    memo = {} if memo is None else memo
    identity = _tally(identity_policies, request.action, resource, context, None, memo, context_key, plain)
    on_resource = _tally(resource_policies, request.action, resource, context, principal, memo, context_key, plain)
    if identity.deny:
        return Outcome(Decision.EXPLICIT_DENY, resource, "with an explicit deny in an identity-based policy")
    if on_resource.deny:
        return Outcome(Decision.EXPLICIT_DENY, resource, "with an explicit deny in a resource-based policy")
    own_account = principal.account_id == request.resource_account
    identity_allows = identity.allow or principal.kind is PrincipalKind.ROOT  # root: every identity permission
    if own_account:
        if identity_allows or on_resource.allow:
            return Outcome(Decision.ALLOW, resource)
        return Outcome(Decision.IMPLICIT_DENY, resource,
                       f"because no identity-based policy allows the {request.action} action")
    resource_allows = on_resource.allow or on_resource.allow_via_account
    if identity_allows and resource_allows:
        return Outcome(Decision.ALLOW, resource)
    if not resource_allows:
        return Outcome(Decision.IMPLICIT_DENY, resource,
                       f"because no resource-based policy allows the {request.action} action")
    return Outcome(Decision.IMPLICIT_DENY, resource,
                   f"because no identity-based policy allows the {request.action} action")


def authorize(request: Request, identity_policies: Sequence[Policy],
              resource_policies: Sequence[Policy] = (), plain: bool = False) -> Outcome:
    """Allowed only if every resource of the request is; otherwise the first refusal (an explicit
    deny on any resource wins over an implicit one). ``plain``: see :func:`decide`."""
    memo: dict[tuple[int, str], bool] = {}  # per request: conditions met, shared by its resources
    refusals = [decide(request, resource, identity_policies, resource_policies, memo, plain)
                for resource in request.resources]
    denied = [o for o in refusals if not o.allowed]
    if not denied:
        return Outcome(Decision.ALLOW, request.resources[0] if request.resources else "*")
    explicit = [o for o in denied if o.decision is Decision.EXPLICIT_DENY]
    return (explicit or denied)[0]


def trust_allows(trust: Policy, principal: Principal, action: str, context: Context,
                 plain: bool = False) -> tuple[bool, bool, str]:
    """Whether a role's trust policy lets ``principal`` call ``action`` (``sts:AssumeRole``).

    Returns (allowed, through the account only, reason when refused). ``plain``: see :func:`decide`.
    """
    tally = _tally([trust], action, None, context, principal, {}, plain=plain)
    if tally.deny:
        return False, False, "with an explicit deny in the role's trust policy"
    if tally.allow:
        return True, False, ""
    if tally.allow_via_account:
        return True, True, ""
    return False, False, "because the role's trust policy does not allow it"

