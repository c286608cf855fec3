"""IAM policy documents: the grammar AWS documents, read into typed statements.

A document is JSON with ``Version`` (``2012-10-17`` or ``2008-10-17``), an optional ``Id`` and
``Statement`` (one statement or a list). A statement has ``Effect`` (``Allow`` | ``Deny``), exactly
one of ``Action`` / ``NotAction``, exactly one of ``Resource`` / ``NotResource`` (identity-based
policies; resource-based and trust policies may leave the resource out: it is the resource the
policy is attached to), ``Principal`` / ``NotPrincipal`` (resource-based and trust policies only,
and required there), an optional ``Sid`` and ``Condition``. Every element that takes values takes
one string or a list of strings.

Errors are :class:`PolicyError` with the text IAM's ``MalformedPolicyDocument`` answers carry.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from glueball.iam.conditions import Condition, ConditionError, parse_condition_block

if TYPE_CHECKING:
    from glueball.iam.compiled import CompiledPolicy

VERSIONS = ("2012-10-17", "2008-10-17")
MAX_DOCUMENT_CHARS = 131072


class PolicyError(ValueError):
    """A policy document IAM would refuse (``MalformedPolicyDocument``); the message says why."""


class PolicyKind(StrEnum):
    """Where a document is used: it decides whether ``Principal`` and ``Resource`` belong in it."""

    IDENTITY = "identity"  # attached to users, groups, roles: no Principal, Resource required
    RESOURCE = "resource"  # a resource-based policy (Glue's catalog policy): Principal required
    TRUST = "trust"  # a role's trust policy: Principal required, no Resource


class Effect(StrEnum):
    ALLOW = "Allow"
    DENY = "Deny"


@dataclass(frozen=True)
class Principals:
    """A ``Principal`` element: ``"*"`` or a map of principal types to values."""

    anyone: bool = False
    aws: tuple[str, ...] = ()
    service: tuple[str, ...] = ()
    federated: tuple[str, ...] = ()
    canonical_user: tuple[str, ...] = ()


@dataclass(frozen=True)
class Statement:
    """One statement, its values as written (wildcards and policy variables unresolved)."""

    effect: Effect
    actions: tuple[str, ...] = ()
    not_actions: tuple[str, ...] | None = None
    resources: tuple[str, ...] | None = None
    not_resources: tuple[str, ...] | None = None
    principals: Principals | None = None
    not_principals: Principals | None = None
    conditions: tuple[Condition, ...] = ()
    sid: str | None = None


@dataclass(frozen=True, eq=False)
class Policy:
    """A parsed document; ``text`` is what was given, kept for answering it back."""

    version: str
    statements: tuple[Statement, ...]
    text: str = field(default="", compare=False)
    policy_id: str | None = None

    @functools.cached_property
    def reads_resource_tags(self) -> bool:
        """Whether a condition reads ``aws:ResourceTag/*`` (as a key or a policy variable): only then do
        the resources' tags need looking up."""
        return self._reads("aws:resourcetag/")

    @functools.cached_property
    def reads_time(self) -> bool:
        """Whether a condition reads the request's time (``aws:CurrentTime``, ``aws:EpochTime``): its
        decisions then hold for one request only."""
        return self._reads("aws:currenttime") or self._reads("aws:epochtime")

    @functools.cached_property
    def decided_per_request(self) -> bool:
        """Whether a decision with this policy holds for one request only (it reads the request's time or
        a resource's tags, which are not part of the question a decision is remembered by)."""
        return self.reads_time or self.reads_resource_tags

    def _reads(self, key: str) -> bool:
        for statement in self.statements:
            for condition in statement.conditions:
                if condition.key.lower().startswith(key) or any(key in value.lower() for value in condition.values):
                    return True
            if any(key in r.lower() for r in (statement.resources or statement.not_resources or ())):
                return True
        return False

    @property
    def variables_allowed(self) -> bool:
        """Policy variables (``${aws:username}``) are read only in documents of version 2012-10-17."""
        return self.version == "2012-10-17"

    @functools.cached_property
    def compiled(self) -> CompiledPolicy:
        """The statements compiled and indexed for evaluation, once per document (:mod:`glueball.iam.compiled`)."""
        from glueball.iam.compiled import CompiledPolicy

        return CompiledPolicy(self)


def stored_policy(text: str, kind: PolicyKind = PolicyKind.IDENTITY) -> Policy:
    """A stored document, parsed once per text: the same text (a policy version) is the same
    :class:`Policy`, so what its evaluation compiles and remembers outlives the caches of principals.

    Raises:
        PolicyError: as :func:`parse_policy`.
    """
    return _stored(text, kind)


@functools.lru_cache(maxsize=2048)
def _stored(text: str, kind: PolicyKind) -> Policy:
    return parse_policy(text, kind)


def parse_policy(document: str | dict[str, Any], kind: PolicyKind = PolicyKind.IDENTITY) -> Policy:
    """Read and check a policy document of ``kind``.

    Raises:
        PolicyError: the document is not JSON, or breaks the policy grammar (the message names what).
    """
    text = document if isinstance(document, str) else json.dumps(document)
    if len(text) > MAX_DOCUMENT_CHARS:
        raise PolicyError(f"Cannot exceed quota for PolicySize: {MAX_DOCUMENT_CHARS}")
    if isinstance(document, str):
        try:
            data = json.loads(document)
        except ValueError as exc:
            raise PolicyError("Syntax errors in policy.") from exc
    else:
        data = document
    if not isinstance(data, dict):
        raise PolicyError("Syntax errors in policy.")
    unknown = sorted(set(data) - {"Version", "Id", "Statement"})
    if unknown:
        raise PolicyError(f"Syntax errors in policy. Unknown field {unknown[0]}")
    version = data.get("Version", "2008-10-17")
    if version not in VERSIONS:
        raise PolicyError("The policy must contain a valid version string")
    if "Statement" not in data:
        raise PolicyError("Syntax errors in policy. Missing required field Statement")
    raw_statements = data["Statement"]
    if isinstance(raw_statements, dict):
        raw_statements = [raw_statements]
    if not isinstance(raw_statements, list) or not raw_statements:
        raise PolicyError("Syntax errors in policy. Statement must be an object or a non-empty list")
    policy_id = data.get("Id")
    if policy_id is not None and not isinstance(policy_id, str):
        raise PolicyError("Syntax errors in policy. Id must be a string")
    statements = tuple(_statement(raw, kind) for raw in raw_statements)
    sids = [s.sid for s in statements if s.sid]
    duplicate = next((sid for sid in sids if sids.count(sid) > 1), None)
    if duplicate is not None:
        raise PolicyError(f"Statement IDs (SID) in a single policy must be unique: {duplicate}")
    return Policy(version, statements, text, policy_id)


_STATEMENT_FIELDS = {"Sid", "Effect", "Action", "NotAction", "Resource", "NotResource", "Principal",
                     "NotPrincipal", "Condition"}


def _statement(raw: Any, kind: PolicyKind) -> Statement:
    if not isinstance(raw, dict):
        raise PolicyError("Syntax errors in policy. A statement must be a JSON object")
    unknown = sorted(set(raw) - _STATEMENT_FIELDS)
    if unknown:
        raise PolicyError(f"Syntax errors in policy. Unknown field {unknown[0]} in a statement")
    sid = raw.get("Sid")
    if sid is not None and (not isinstance(sid, str) or (sid and not sid.isalnum())):
        raise PolicyError(f"Statement IDs (SID) must be alpha-numeric: {sid!r}")
    if "Effect" not in raw:
        raise PolicyError("Missing required field Effect")
    if raw["Effect"] not in (Effect.ALLOW.value, Effect.DENY.value):
        raise PolicyError(f"Invalid effect: {raw['Effect']}")
    effect = Effect(raw["Effect"])

    actions = _pair(raw, "Action", "NotAction", "Policy statement must contain actions.")
    for action in actions[0] or actions[1] or ():
        if action != "*" and ":" not in action:
            raise PolicyError(f"Actions/Conditions must be prefaced by a vendor, e.g., iam, sdb, ec2, etc. ({action})")

    has_resource = "Resource" in raw or "NotResource" in raw
    if kind is PolicyKind.IDENTITY and not has_resource:
        raise PolicyError("Policy statement must contain resources.")
    if kind is PolicyKind.TRUST and has_resource:
        raise PolicyError("Has prohibited field Resource")
    resources: tuple[tuple[str, ...] | None, tuple[str, ...] | None] = (None, None)
    if has_resource:
        resources = _pair(raw, "Resource", "NotResource", "Policy statement must contain resources.")
        for resource in resources[0] or resources[1] or ():
            if resource != "*" and not resource.startswith("arn:"):
                raise PolicyError(f"Resource {resource} must be in ARN format or \"*\".")

    has_principal = "Principal" in raw or "NotPrincipal" in raw
    if kind is PolicyKind.IDENTITY and has_principal:
        raise PolicyError("Policy document should not specify a principal.")
    if kind is not PolicyKind.IDENTITY and not has_principal:
        raise PolicyError("Missing required field Principal")
    if "Principal" in raw and "NotPrincipal" in raw:
        raise PolicyError("Statement/policy already has instance of Principal")
    principals = _principals(raw["Principal"]) if "Principal" in raw else None
    not_principals = _principals(raw["NotPrincipal"]) if "NotPrincipal" in raw else None

    try:
        conditions = parse_condition_block(raw.get("Condition"))
    except ConditionError as exc:
        raise PolicyError(str(exc)) from exc
    return Statement(effect, actions[0] or (), actions[1], resources[0], resources[1], principals, not_principals,
                     conditions, sid or None)


def _pair(raw: dict[str, Any], name: str, negated: str,
          missing: str) -> tuple[tuple[str, ...] | None, tuple[str, ...] | None]:
    if name in raw and negated in raw:
        raise PolicyError(f"Statement/policy already has instance of {name}")
    if name not in raw and negated not in raw:
        raise PolicyError(missing)
    key = name if name in raw else negated
    values = _strings(raw[key], key)
    if not values:
        raise PolicyError(missing)
    return (values, None) if key == name else (None, values)


def _strings(value: Any, element: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise PolicyError(f"Syntax errors in policy. {element} must be a string or a list of strings")


_PRINCIPAL_TYPES = {"AWS": "aws", "Service": "service", "Federated": "federated", "CanonicalUser": "canonical_user"}


def _principals(value: Any) -> Principals:
    if value == "*":
        return Principals(anyone=True)
    if not isinstance(value, dict) or not value:
        raise PolicyError("Invalid principal in policy: a principal is \"*\" or an object of principal types")
    found: dict[str, tuple[str, ...]] = {}
    for key, values in value.items():
        if key not in _PRINCIPAL_TYPES:
            raise PolicyError(f"Invalid principal in policy: \"{key}\"")
        found[_PRINCIPAL_TYPES[key]] = _strings(values, f"Principal {key}")
    for principal in found.get("aws", ()):
        if principal != "*" and not principal.startswith("arn:") and not (principal.isdigit() and len(principal) == 12):
            raise PolicyError(f"Invalid principal in policy: \"AWS\":\"{principal}\"")
    return Principals(anyone=False, **found)
