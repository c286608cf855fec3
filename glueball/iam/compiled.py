"""Policies compiled for evaluation: statements indexed by action and by resource, conditions as closures.

A parsed :class:`~glueball.iam.policy.Policy` never changes (a new version is a new document), so what
can be worked out from it alone is worked out once and kept with it:

- **by action**: the statements whose ``Action`` covers an action come from a dictionary of the exact
  action names written (lower-cased), the wildcard patterns tried once per action asked, and the
  ``NotAction`` statements that do not name it — remembered per action (a service asks about few);
- **by resource**, among those: statements on ``*`` (or without ``Resource``: the resource a resource
  or trust policy is attached to) cover every resource; constant ARN patterns are found through the
  literal start of their resource part (``table/sales/`` of ``arn:aws:glue:*:*:table/sales/*``), so a
  request for ``table/bench/t`` tries only the patterns that can match it, whatever the policy's size;
  ``NotResource`` statements the same way, inverted; patterns naming a policy variable
  (``${aws:username}``) are matched per request, with the request's values;
- **conditions**: each statement's conditions as one test (:func:`~glueball.iam.conditions.compile_condition`:
  the key lower-cased, constant policy values read once).

The decision logic itself stays in :mod:`glueball.iam.evaluation`; these are only the statements that
can apply, in document order. ``tests/iam/test_indexed_evaluation.py`` holds the two equal to a plain
statement-by-statement evaluation on generated policies.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from glueball.iam.conditions import CallerContext, Context, arn_matches, compile_condition, expand

if TYPE_CHECKING:
    from glueball.iam.policy import Policy, Statement

REMEMBERED = 4096  # answers per action or resource kept before starting afresh


@dataclass(frozen=True, eq=False)
class Rule:
    """One statement, compiled. ``varying``: its resources name a policy variable (matched per request)."""

    statement: Statement
    order: int
    deny: bool
    test: Callable[[Context], bool] | None  # its conditions (None: it has none)
    varying: bool

    def covers_varying(self, resource: str, context: Context, variables: bool) -> bool:
        """Whether this statement's resources, with the request's variables, cover ``resource``."""
        statement = self.statement
        if statement.not_resources is not None:
            return not _any_match(statement.not_resources, resource, context, variables)
        return _any_match(statement.resources or (), resource, context, variables)


def _any_match(patterns: Sequence[str], resource: str, context: Context, variables: bool) -> bool:
    return any(p == "*" or arn_matches(resource, expand(p, context, variables, "arn")) for p in patterns)


def _conditions_test(statement: Statement, variables: bool) -> Callable[[Context], bool] | None:
    if not statement.conditions:
        return None
    tests = tuple(compile_condition(c, variables) for c in statement.conditions)
    if len(tests) == 1:
        return tests[0]
    return lambda context: all(test(context) for test in tests)


def _action_regex(pattern: str) -> re.Pattern[str]:
    text = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
    return re.compile(text, re.IGNORECASE | re.DOTALL)


def _resource_part(arn: str) -> str | None:
    """The sixth part of an ARN (what follows its fifth colon), None for text that is no ARN."""
    parts = arn.split(":", 5)
    return parts[5] if len(parts) == 6 else None


class _PatternIndex:
    """Constant ARN patterns, each with its rule, found by the literal start of their resource part."""

    def __init__(self, entries: list[tuple[str, Rule]]) -> None:
        self.by_prefix: dict[int, dict[str, list[tuple[re.Pattern[str], Rule]]]] = {}
        self.entries: list[tuple[re.Pattern[str], Rule]] = []
        for pattern, rule in entries:
            compiled = expand(pattern, {}, False, "arn")
            if compiled is None:  # not an ARN pattern of six parts: it matches nothing
                continue
            self.entries.append((compiled, rule))
            part = _resource_part(pattern)
            literal = "" if part is None else re.split(r"[*?]", part, maxsplit=1)[0]
            self.by_prefix.setdefault(len(literal), {}).setdefault(literal, []).append((compiled, rule))

    def matching(self, resource: str) -> dict[int, Rule]:
        """The rules with a pattern matching ``resource``, by their order."""
        part = _resource_part(resource)
        if part is None:  # only a 6-part ARN can match an ARN pattern; try them all anyway (rare)
            return {rule.order: rule for compiled, rule in self.entries if arn_matches(resource, compiled)}
        found: dict[int, Rule] = {}
        for length, prefixes in self.by_prefix.items():
            for compiled, rule in prefixes.get(part[:length], ()):
                if rule.order not in found and compiled.fullmatch(resource) is not None:
                    found[rule.order] = rule
        return found


def _order(rule: Rule) -> int:
    return rule.order


class ActionRules:
    """The statements of one policy that cover one action, indexed by resource."""

    def __init__(self, rules: list[Rule]) -> None:
        self.rules = rules
        self.anywhere: list[Rule] = []  # Resource "*", or no Resource element
        self.varying: list[Rule] = []
        self.negated: list[Rule] = []  # constant NotResource
        positive: list[tuple[str, Rule]] = []
        negative: list[tuple[str, Rule]] = []
        for rule in rules:
            statement = rule.statement
            if rule.varying:
                self.varying.append(rule)
            elif statement.not_resources is not None:
                if "*" not in statement.not_resources:  # NotResource "*" covers nothing
                    self.negated.append(rule)
                    negative += [(p, rule) for p in statement.not_resources]
            elif statement.resources is None or "*" in statement.resources:
                self.anywhere.append(rule)
            else:
                positive += [(p, rule) for p in statement.resources]
        self._positive = _PatternIndex(positive)
        self._negative = _PatternIndex(negative)
        self._by_resource: dict[str, tuple[Rule, ...]] = {}
        self._unvarying = tuple(r for r in rules if not r.varying)

    def general(self, context: Context, memo: dict[tuple[int, str], bool], context_key: str) -> tuple[bool, bool]:
        """(denies, allows) of the rules on every resource, for an identity policy (no principal to match):
        the same for each of a request's resources, and for every request of a caller when ``context`` is
        its :class:`~glueball.iam.conditions.CallerContext` (then remembered with it)."""
        if isinstance(context, CallerContext):
            found = context.outcomes.get(self)
            if found is None:
                found = context.outcomes[self] = self._general(context, memo, context_key)
            return found
        return self._general(context, memo, context_key)

    def _general(self, context: Context, memo: dict[tuple[int, str], bool], context_key: str) -> tuple[bool, bool]:
        allows = False
        for rule in self.anywhere:
            if rule.test is None or met(rule, context, memo, context_key):
                if rule.deny:
                    return True, allows
                allows = True
        return False, allows

    def specific(self, resource: str) -> tuple[Rule, ...]:
        """The rules whose constant resources name ``resource`` — a pattern matching it, or ``NotResource``
        patterns not matching it — in document order (those on every resource are :meth:`general`'s)."""
        found = self._by_resource.get(resource)
        if found is None:
            excluded = self._negative.matching(resource) if self.negated else {}
            chosen = [*self._positive.matching(resource).values(),
                      *(r for r in self.negated if r.order not in excluded)]
            found = tuple(sorted(chosen, key=_order))
            if len(self._by_resource) >= REMEMBERED:
                self._by_resource.clear()
            self._by_resource[resource] = found
        return found

    def constant(self, resource: str | None) -> tuple[Rule, ...]:
        """The rules whose constant resources cover ``resource`` (None: any resource — trust policies),
        in document order; rules with varying resources are not among them."""
        if resource is None:
            return self._unvarying
        return tuple(sorted((*self.anywhere, *self.specific(resource)), key=_order))


class CompiledPolicy:
    """A policy's statements, compiled and indexed by action (see the module notes)."""

    def __init__(self, policy: Policy) -> None:
        self.variables = policy.variables_allowed
        self.rules: list[Rule] = []
        self._exact: dict[str, list[Rule]] = {}
        self._wildcards: list[tuple[re.Pattern[str], Rule]] = []
        self._not_actions: list[tuple[tuple[re.Pattern[str], ...], Rule]] = []
        for order, statement in enumerate(policy.statements):
            patterns = statement.resources if statement.not_resources is None else statement.not_resources
            varying = self.variables and any("${" in p for p in patterns or ())
            rule = Rule(statement, order, statement.effect == "Deny", _conditions_test(statement, self.variables),
                        varying)
            self.rules.append(rule)
            if statement.not_actions is not None:
                self._not_actions.append((tuple(_action_regex(a) for a in statement.not_actions), rule))
                continue
            for action in statement.actions:
                if "*" in action or "?" in action:
                    self._wildcards.append((_action_regex(action), rule))
                else:
                    self._exact.setdefault(action.lower(), []).append(rule)
        self._by_action: dict[str, ActionRules] = {}

    def for_action(self, action: str) -> ActionRules:
        """The statements covering ``action`` (``Action`` naming it, or ``NotAction`` not naming it)."""
        found = self._by_action.get(action)
        if found is None:
            orders = {rule.order for rule in self._exact.get(action.lower(), ())}
            orders.update(rule.order for regex, rule in self._wildcards if regex.fullmatch(action) is not None)
            orders.update(rule.order for regexes, rule in self._not_actions
                          if not any(regex.fullmatch(action) is not None for regex in regexes))
            found = ActionRules([self.rules[order] for order in sorted(orders)])
            if len(self._by_action) >= REMEMBERED:
                self._by_action.clear()
            self._by_action[action] = found
        return found


def met(rule: Rule, context: Context, memo: dict[tuple[int, str], bool], context_key: str) -> bool:
    """Whether ``rule``'s conditions hold in ``context``: remembered with a caller's context for every
    request of that caller, else in ``memo`` for the resources of one request (``context_key`` names the
    context: the request's own, or a resource's when it has keys of its own)."""
    assert rule.test is not None
    if isinstance(context, CallerContext):
        found = context.outcomes.get(rule)
        if found is None:
            found = context.outcomes[rule] = rule.test(context)
        return found
    key = (id(rule), context_key)
    outcome = memo.get(key)
    if outcome is None:
        outcome = memo[key] = rule.test(context)
    return outcome
