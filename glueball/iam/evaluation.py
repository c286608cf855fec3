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
from glueball.iam.conditions import Context, arn_matches, expand, holds
from glueball.iam.policy import Effect, Policy, Principals, Statement


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


def statement_applies(statement: Statement, action: str | None, resource: str | None, context: Context,
                      variables: bool, principal: Principal | None = None,
                      memo: dict[tuple[int, str], bool] | None = None, context_key: str = "") -> tuple[bool, bool]:
    """Whether ``statement`` applies to the request, and (for resource policies) whether only through
    the principal's account.

    ``action`` or ``resource`` None: the caller already knows the statement covers it
    (:func:`_candidates`). ``memo`` keeps, across the resources of one request, whether the conditions
    hold in the context named ``context_key`` (the request's own, or a resource's when it has keys of
    its own)."""
    if action is not None:
        acts = (not action_matches(statement.not_actions, action) if statement.not_actions is not None
                else action_matches(statement.actions, action))
        if not acts:
            return False, False
    if resource is not None and not _covers(statement, resource, context, variables):
        return False, False
    via_account = False
    if principal is not None:
        if statement.principals is not None:
            named, via_account = principal_matches(statement.principals, principal)
            if not named:
                return False, False
        elif statement.not_principals is not None and principal_matches(statement.not_principals, principal)[0]:
            return False, False
    if statement.conditions:
        if memo is None:
            memo = {}
        key = (id(statement), context_key)
        met = memo.get(key)
        if met is None:
            met = memo[key] = all(holds(c, context, variables) for c in statement.conditions)
        if not met:
            return False, False
    return True, via_account


def _covers(statement: Statement, resource: str, context: Context, variables: bool) -> bool:
    if statement.not_resources is not None:
        return not resource_matches(statement.not_resources, resource, context, variables)
    if statement.resources is None:  # a resource or trust policy without Resource: the resource it is attached to
        return True
    return resource_matches(statement.resources, resource, context, variables)


def _candidates(policy: Policy, action: str, resource: str | None) -> tuple[tuple[Statement, bool], ...]:
    """The statements of ``policy`` that cover ``action`` and may cover ``resource``, each with whether its
    resources name a policy variable (then matched per request): worked out once per (action, resource),
    as neither depends on the request."""
    key = (action, resource)
    found = policy.candidates.get(key)
    if found is None:
        variables = policy.variables_allowed
        kept = []
        for statement in policy.statements_for(action, action_matches):
            patterns = statement.resources if statement.not_resources is None else statement.not_resources
            varying = variables and any("${" in p for p in patterns or ())
            if resource is None or varying or _covers(statement, resource, {}, False):
                kept.append((statement, varying))
        found = tuple(kept)
        policy.remember(policy.candidates, key, found)
    return found


@dataclass
class _Tally:
    deny: bool = False
    allow: bool = False
    allow_via_account: bool = False


def _tally(policies: Iterable[Policy], action: str, resource: str | None, context: Context,
           principal: Principal | None, memo: dict[tuple[int, str], bool] | None = None,
           context_key: str = "") -> _Tally:
    tally = _Tally()
    for policy in policies:
        variables = policy.variables_allowed
        for statement, varying in _candidates(policy, action, resource):
            if principal is None and not varying:  # an identity policy's statement on a constant resource
                if statement.conditions:
                    key = (id(statement), context_key)
                    met = memo.get(key) if memo is not None else None
                    if met is None:
                        met = all(holds(c, context, variables) for c in statement.conditions)
                        if memo is not None:
                            memo[key] = met
                    if not met:
                        continue
                if statement.effect is Effect.DENY:
                    tally.deny = True
                    return tally
                tally.allow = True
                continue
            applies, via_account = statement_applies(statement, None, resource if varying else None, context,
                                                     variables, principal, memo, context_key)
            if not applies:
                continue
            if statement.effect is Effect.DENY:
                tally.deny = True
                return tally
            if via_account:
                tally.allow_via_account = True
            else:
                tally.allow = True
    return tally


def decide(request: Request, resource: str, identity_policies: Sequence[Policy],
           resource_policies: Sequence[Policy] = (), memo: dict[tuple[int, str], bool] | None = None) -> Outcome:
    """The decision for ``request`` on one ``resource``."""
    principal = request.principal
    context = request.context
    context_key = ""
    if resource in request.resource_context:
        context = {**context, **request.resource_context[resource]}
        context_key = resource
    memo = {} if memo is None else memo
    identity = _tally(identity_policies, request.action, resource, context, None, memo, context_key)
    on_resource = _tally(resource_policies, request.action, resource, context, principal, memo, context_key)
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
              resource_policies: Sequence[Policy] = ()) -> Outcome:
    """Allowed only if every resource of the request is; otherwise the first refusal (an explicit
    deny on any resource wins over an implicit one)."""
    memo: dict[tuple[int, str], bool] = {}  # per request: action matches and conditions met, shared by resources
    refusals = [decide(request, resource, identity_policies, resource_policies, memo)
                for resource in request.resources]
    denied = [o for o in refusals if not o.allowed]
    if not denied:
        return Outcome(Decision.ALLOW, request.resources[0] if request.resources else "*")
    explicit = [o for o in denied if o.decision is Decision.EXPLICIT_DENY]
    return (explicit or denied)[0]


def trust_allows(trust: Policy, principal: Principal, action: str, context: Context) -> tuple[bool, bool, str]:
    """Whether a role's trust policy lets ``principal`` call ``action`` (``sts:AssumeRole``).

    Returns (allowed, through the account only, reason when refused).
    """
    tally = _tally([trust], action, None, context, principal)
    if tally.deny:
        return False, False, "with an explicit deny in the role's trust policy"
    if tally.allow:
        return True, False, ""
    if tally.allow_via_account:
        return True, True, ""
    return False, False, "because the role's trust policy does not allow it"

