"""The ``Condition`` element of IAM policies: operators, set qualifiers, ``IfExists``, policy variables.

Semantics as the IAM User Guide documents them ("Condition operators", "Set operators for
multivalued context keys", "Policy variables"):

- every operator in a block must hold, every key under an operator must hold (AND); the values
  listed for one key are alternatives (OR) — for a negated operator (``StringNotEquals``,
  ``NotIpAddress``, ``ArnNotLike`` ...) the request value must match none of them;
- a key absent from the request context: the condition is false, except that a negated
  operator is true, ``...IfExists`` is true, and ``Null`` tests exactly that absence;
- ``ForAllValues:`` holds when every request value matches (and when the key is absent or
  empty); ``ForAnyValue:`` when at least one does (never when the key is absent); without a
  qualifier a multivalued key holds when any of its values matches (a negated operator: none);
- ``ArnEquals`` and ``ArnLike`` both compare each of the six colon-separated ARN parts with
  ``*`` / ``?`` wildcards; ``StringLike`` takes wildcards, ``StringEquals`` does not;
- policy variables ``${key}`` (with ``${key, 'default'}``, ``${*}``, ``${?}``, ``${$}``) are
  resolved from the request context in documents of version 2012-10-17; a variable whose key is
  absent (and has no default) makes that value match nothing.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import functools
import ipaddress
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

Context = Mapping[str, tuple[str, ...]]  # lower-cased key -> its values (one for single-valued keys)


class CallerContext(dict[str, tuple[str, ...]]):
    """A caller's context keys, made once per caller and never changed afterwards: what is computed from
    it alone — whether a statement's conditions hold — is remembered with it (``outcomes``), for every
    request of that caller while it lives (:class:`glueball.iam.credentials.Identities` makes a new one
    after a second, or after an IAM change)."""

    def __init__(self, keys: Mapping[str, tuple[str, ...]]) -> None:
        super().__init__(keys)
        self.outcomes: dict[Any, Any] = {}  # compiled rules (and their groups) -> what they decide here


class ConditionError(ValueError):
    """A condition block IAM would refuse; the message says what."""


_STRING = ("StringEquals", "StringNotEquals", "StringEqualsIgnoreCase", "StringNotEqualsIgnoreCase",
           "StringLike", "StringNotLike")
_NUMERIC = ("NumericEquals", "NumericNotEquals", "NumericLessThan", "NumericLessThanEquals",
            "NumericGreaterThan", "NumericGreaterThanEquals")
_DATE = ("DateEquals", "DateNotEquals", "DateLessThan", "DateLessThanEquals", "DateGreaterThan",
         "DateGreaterThanEquals")
_OTHER = ("Bool", "BinaryEquals", "IpAddress", "NotIpAddress", "ArnEquals", "ArnLike", "ArnNotEquals",
          "ArnNotLike", "Null")
OPERATORS = frozenset(_STRING + _NUMERIC + _DATE + _OTHER)
NEGATED = frozenset({"StringNotEquals", "StringNotEqualsIgnoreCase", "StringNotLike", "NumericNotEquals",
                     "DateNotEquals", "NotIpAddress", "ArnNotEquals", "ArnNotLike"})
QUALIFIERS = ("ForAllValues", "ForAnyValue")


@dataclass(frozen=True)
class Condition:
    """One key under one operator, with the policy's values for it (as strings)."""

    operator: str  # as written: "ForAnyValue:StringLikeIfExists"
    base: str  # "StringLike"
    key: str  # as written ("aws:RequestTag/team"); looked up case-insensitively
    values: tuple[str, ...]
    qualifier: str | None = None
    if_exists: bool = False

    @property
    def negated(self) -> bool:
        return self.base in NEGATED


def parse_condition_block(block: Any) -> tuple[Condition, ...]:
    """The conditions of a statement's ``Condition`` element (absent: none).

    Raises:
        ConditionError: an unknown operator, a value of the wrong form, or a malformed block.
    """
    if block is None:
        return ()
    if not isinstance(block, dict):
        raise ConditionError("Syntax errors in policy. Condition must be an object")
    found: list[Condition] = []
    for operator, keys in block.items():
        qualifier, base, if_exists = _split_operator(operator)
        if not isinstance(keys, dict) or not keys:
            raise ConditionError(f"Syntax errors in policy. Condition {operator} must map keys to values")
        for key, raw in keys.items():
            if ":" not in key:
                raise ConditionError(
                    f"Actions/Conditions must be prefaced by a vendor, e.g., iam, sdb, ec2, etc. ({key})")
            values = _values(raw, operator, key)
            for value in values:
                _check_value(base, value, operator, key)
            found.append(Condition(operator, base, key, values, qualifier, if_exists))
    return tuple(found)


def _split_operator(operator: str) -> tuple[str | None, str, bool]:
    prefix, sep, rest = operator.partition(":")
    qualifier: str | None = prefix
    if not sep:
        qualifier, rest = None, operator
    elif prefix not in QUALIFIERS:
        raise ConditionError(f"Invalid Condition type : {operator}")
    if_exists = rest.endswith("IfExists") and rest != "IfExists"
    base = rest[: -len("IfExists")] if if_exists else rest
    if base not in OPERATORS or (if_exists and base == "Null"):
        raise ConditionError(f"Invalid Condition type : {operator}")
    return qualifier, base, if_exists


def _values(raw: Any, operator: str, key: str) -> tuple[str, ...]:
    items = raw if isinstance(raw, list) else [raw]
    if not items:
        raise ConditionError(f"Syntax errors in policy. Condition {operator} {key} has no value")
    values: list[str] = []
    for item in items:
        if isinstance(item, bool):
            values.append("true" if item else "false")
        elif isinstance(item, (int, float, str)):
            values.append(str(item))
        else:
            raise ConditionError(f"Syntax errors in policy. Condition {operator} {key}: values are strings, "
                                 f"numbers or booleans")
    return tuple(values)


def _check_value(base: str, value: str, operator: str, key: str) -> None:
    if "${" in value:
        return  # resolved per request
    problem = None
    if base in _NUMERIC and _number(value) is None:
        problem = "is not a number"
    elif base in _DATE and _date(value) is None:
        problem = "is not a date (ISO 8601 or epoch seconds)"
    elif base in ("Bool", "Null") and value.lower() not in ("true", "false"):
        problem = "is not true or false"
    elif base in ("IpAddress", "NotIpAddress") and _network(value) is None:
        problem = "is not an IP address or CIDR block"
    elif base == "BinaryEquals" and _binary(value) is None:
        problem = "is not base64"
    if problem:
        raise ConditionError(f"Invalid Condition value: {operator} {key} {value!r} {problem}")


# ---------------------------------------------------------------- evaluation


def holds(condition: Condition, context: Context, variables: bool = True) -> bool:
    """Whether ``condition`` holds for the request ``context`` (keys lower-cased)."""
    present = context.get(condition.key.lower())
    values = tuple(v for v in present if v != "") if present is not None else ()
    if condition.base == "Null":
        absent = not values
        return any((v.lower() == "true") == absent for v in condition.values)
    if not values:
        if condition.if_exists:
            return True
        if condition.qualifier == "ForAllValues":
            return True
        if condition.qualifier == "ForAnyValue":
            return False
        return condition.negated
    matcher = _MATCHERS[_POSITIVE.get(condition.base, condition.base)]
    expanded = [expand(p, context, variables, _GLOB.get(condition.base, "literal")) for p in condition.values]
    policy_values = [p for p in expanded if p is not None]

    def one(value: str) -> bool:
        matched = any(matcher(value, p) for p in policy_values)
        return not matched if condition.negated else matched

    if condition.qualifier == "ForAllValues":
        return all(one(v) for v in values)
    if condition.qualifier == "ForAnyValue" or not condition.negated:
        return any(one(v) for v in values)
    return all(one(v) for v in values)  # negated, unqualified: no value matches


def compile_condition(condition: Condition, variables: bool = True) -> Callable[[Context], bool]:
    """:func:`holds` for one condition, with what does not depend on the request worked out once: the key
    lower-cased, the policy values without variables expanded and read (numbers, dates, networks,
    patterns). A policy's statements are compiled once per document (:mod:`glueball.iam.compiled`)."""
    key = condition.key.lower()
    if condition.base == "Null":
        wanted = tuple(v.lower() == "true" for v in condition.values)

        def null(context: Context) -> bool:
            present = context.get(key)
            absent = not present or all(v == "" for v in present)
            return any(w == absent for w in wanted)

        return null
    if condition.if_exists or condition.qualifier == "ForAllValues":
        missing = True
    elif condition.qualifier == "ForAnyValue":
        missing = False
    else:
        missing = condition.negated
    positive = _POSITIVE.get(condition.base, condition.base)
    mode = _GLOB.get(condition.base, "literal")
    prepare, match = _PREPARED[positive]
    constant: list[Any] = []
    varying: list[str] = []
    for value in condition.values:
        if variables and "${" in value:
            varying.append(value)
        else:
            ready = _ready(prepare, _constant(value, mode))
            if ready is not None:
                constant.append(ready)
    negated, qualifier = condition.negated, condition.qualifier

    def test(context: Context) -> bool:
        present = context.get(key)
        values = [v for v in present if v != ""] if present else ()
        if not values:
            return missing
        policy_values = constant
        if varying:
            policy_values = constant + [r for r in (_ready(prepare, expand(v, context, variables, mode))
                                                    for v in varying) if r is not None]

        def one(value: str) -> bool:
            matched = any(match(value, p) for p in policy_values)
            return not matched if negated else matched

        if qualifier == "ForAllValues":
            return all(one(v) for v in values)
        if qualifier == "ForAnyValue" or not negated:
            return any(one(v) for v in values)
        return all(one(v) for v in values)

    return test


def _ready(prepare: Callable[[Any], Any], policy_value: Any) -> Any:
    """A policy value as its matcher reads it; None: it matches nothing (an unresolved variable, a value
    that does not read as the operator's type)."""
    return None if policy_value is None else prepare(policy_value)


# a negated operator matches as its positive twin, then the outcome is negated
_POSITIVE = {"StringNotEquals": "StringEquals", "StringNotEqualsIgnoreCase": "StringEqualsIgnoreCase",
             "StringNotLike": "StringLike", "NumericNotEquals": "NumericEquals", "DateNotEquals": "DateEquals",
             "NotIpAddress": "IpAddress", "ArnNotEquals": "ArnEquals", "ArnNotLike": "ArnLike"}


# how a policy value is read: literally, as a wildcard pattern, or as an ARN pattern (per part)
_GLOB = {"StringLike": "glob", "StringNotLike": "glob", "ArnEquals": "arn", "ArnLike": "arn",
         "ArnNotEquals": "arn", "ArnNotLike": "arn"}
_VARIABLE = re.compile(r"\$\{([^}]*)\}")
_SPECIAL = {"*": "*", "?": "?", "$": "$"}


def expand(value: str, context: Context, variables: bool, mode: str) -> Any:
    """A policy value with its variables resolved: a literal string, or a compiled pattern for
    wildcard modes; None when a variable cannot be resolved (the value then matches nothing)."""
    if not variables or "${" not in value:
        return _constant(value, mode)  # no variable: the same for every request, compiled once
    return _expanded(value, context, variables, mode)


@functools.lru_cache(maxsize=4096)
def _constant(value: str, mode: str) -> Any:
    return _expanded(value, {}, False, mode)


def _expanded(value: str, context: Context, variables: bool, mode: str) -> Any:
    pieces: list[tuple[str, bool]] = []  # (text, literal?) - resolved variables are always literal
    position = 0
    for match in _VARIABLE.finditer(value) if variables else ():
        pieces.append((value[position:match.start()], False))
        resolved = resolve_variable(match.group(1), context)
        if resolved is None:
            return None
        pieces.append((resolved, True))
        position = match.end()
    pieces.append((value[position:], False))
    if mode == "literal":
        return "".join(text for text, _ in pieces)
    if mode == "glob":
        return re.compile(_pattern(pieces), re.DOTALL)
    return _arn_pattern(pieces)


def resolve_variable(inner: str, context: Context) -> str | None:
    """``aws:username`` / ``aws:PrincipalTag/team, 'none'`` / ``*`` from the context, or None."""
    name, _, default = inner.partition(",")
    name = name.strip()
    if name in _SPECIAL:
        return _SPECIAL[name]
    found = context.get(name.lower())
    if found and len(found) == 1:
        return found[0]
    default = default.strip()
    if len(default) >= 2 and default[0] == default[-1] == "'":
        return default[1:-1]
    return None


def _pattern(pieces: list[tuple[str, bool]], within_part: bool = False) -> str:
    """A regular expression of wildcard text (``*``, ``?``) and literal text (resolved variables);
    ``within_part``: the wildcards do not cross a colon (an ARN part other than the last)."""
    anything, one = ("[^:]*", "[^:]") if within_part else (".*", ".")
    out: list[str] = []
    for text, literal in pieces:
        if literal:
            out.append(re.escape(text))
            continue
        for char in text:
            out.append(anything if char == "*" else one if char == "?" else re.escape(char))
    return "".join(out)


_ANY_ARN = re.compile(r"[^:]*:[^:]*:[^:]*:[^:]*:[^:]*:.*", re.DOTALL)


def _arn_pattern(pieces: list[tuple[str, bool]]) -> re.Pattern[str] | None:
    """One pattern for a whole ARN: the colons that split its six parts are those written in the
    policy, wildcards stay within their part (the last part, the resource, may hold colons)."""
    parts: list[list[tuple[str, bool]]] = [[]]
    for text, literal in pieces:
        if literal or len(parts) == 6:
            parts[-1].append((text, literal))
            continue
        segments = text.split(":", 6 - len(parts))
        parts[-1].append((segments[0], False))
        for segment in segments[1:]:
            parts.append([(segment, False)])
    if len(parts) == 1 and "".join(t for t, _ in parts[0]) == "*":
        return _ANY_ARN
    if len(parts) != 6 or any(literal and ":" in text for part in parts[:5] for text, literal in part):
        return None
    return re.compile(":".join(_pattern(part, index < 5) for index, part in enumerate(parts)), re.DOTALL)


def arn_matches(arn: str, pattern: re.Pattern[str] | None) -> bool:
    return pattern is not None and pattern.fullmatch(arn) is not None


@functools.lru_cache(maxsize=4096)
def _number(text: str) -> Decimal | None:
    try:
        number = Decimal(text.strip())
    except InvalidOperation:
        return None
    return number if number.is_finite() else None


@functools.lru_cache(maxsize=4096)
def _date(text: str) -> dt.datetime | None:
    text = text.strip()
    if re.fullmatch(r"-?\d+", text):
        try:
            return dt.datetime.fromtimestamp(int(text), dt.UTC)
        except (OverflowError, OSError, ValueError):
            return None
    try:
        parsed = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=dt.UTC)


@functools.lru_cache(maxsize=4096)
def _network(text: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    try:
        return ipaddress.ip_network(text.strip(), strict=False)
    except ValueError:
        return None


def _binary(text: str) -> bytes | None:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None


def _compare(parse: Callable[[str], Any], test: Callable[[Any, Any], bool]) -> Callable[[str, Any], bool]:
    def match(value: str, policy: Any) -> bool:
        left, right = parse(value), parse(policy)
        return left is not None and right is not None and test(left, right)

    return match


@functools.lru_cache(maxsize=4096)
def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text.strip())
    except ValueError:
        return None


def _ip_in(value: str, policy: Any) -> bool:
    network = _network(policy)
    address = _address(value)
    return (network is not None and address is not None and address.version == network.version
            and address in network)


def _in_network(value: str, network: Any) -> bool:
    address = _address(value)
    return address is not None and address.version == network.version and address in network


def _compared(parse: Callable[[str], Any], test: Callable[[Any, Any], bool]) -> Callable[[str, Any], bool]:
    def match(value: str, policy: Any) -> bool:
        left = parse(value)
        return left is not None and test(left, policy)

    return match


def _same(value: Any) -> Any:
    return value


# per positive operator: how a policy value is read once (None: it matches nothing), and how a request value
# is matched against it - :func:`compile_condition`'s twin of _MATCHERS
_PREPARED: dict[str, tuple[Callable[[Any], Any], Callable[[str, Any], bool]]] = {
    "StringEquals": (_same, lambda v, p: v == p),
    "StringEqualsIgnoreCase": (lambda p: p.casefold(), lambda v, p: v.casefold() == p),
    "StringLike": (_same, lambda v, p: p.fullmatch(v) is not None),
    "NumericEquals": (_number, _compared(_number, lambda a, b: a == b)),
    "NumericLessThan": (_number, _compared(_number, lambda a, b: a < b)),
    "NumericLessThanEquals": (_number, _compared(_number, lambda a, b: a <= b)),
    "NumericGreaterThan": (_number, _compared(_number, lambda a, b: a > b)),
    "NumericGreaterThanEquals": (_number, _compared(_number, lambda a, b: a >= b)),
    "DateEquals": (_date, _compared(_date, lambda a, b: a == b)),
    "DateLessThan": (_date, _compared(_date, lambda a, b: a < b)),
    "DateLessThanEquals": (_date, _compared(_date, lambda a, b: a <= b)),
    "DateGreaterThan": (_date, _compared(_date, lambda a, b: a > b)),
    "DateGreaterThanEquals": (_date, _compared(_date, lambda a, b: a >= b)),
    "Bool": (lambda p: p.lower(), lambda v, p: v.lower() == p),
    "BinaryEquals": (_same, lambda v, p: v == p),
    "IpAddress": (_network, _in_network),
    "ArnEquals": (_same, arn_matches),
    "ArnLike": (_same, arn_matches),
}


_MATCHERS: dict[str, Callable[[str, Any], bool]] = {
    "StringEquals": lambda v, p: v == p,
    "StringEqualsIgnoreCase": lambda v, p: v.casefold() == p.casefold(),
    "StringLike": lambda v, p: p.fullmatch(v) is not None,
    "NumericEquals": _compare(_number, lambda a, b: a == b),
    "NumericLessThan": _compare(_number, lambda a, b: a < b),
    "NumericLessThanEquals": _compare(_number, lambda a, b: a <= b),
    "NumericGreaterThan": _compare(_number, lambda a, b: a > b),
    "NumericGreaterThanEquals": _compare(_number, lambda a, b: a >= b),
    "DateEquals": _compare(_date, lambda a, b: a == b),
    "DateLessThan": _compare(_date, lambda a, b: a < b),
    "DateLessThanEquals": _compare(_date, lambda a, b: a <= b),
    "DateGreaterThan": _compare(_date, lambda a, b: a > b),
    "DateGreaterThanEquals": _compare(_date, lambda a, b: a >= b),
    "Bool": lambda v, p: v.lower() == p.lower(),
    "BinaryEquals": lambda v, p: v == p,
    "IpAddress": _ip_in,
    "ArnEquals": arn_matches,
    "ArnLike": arn_matches,
}
