"""Semantic checks of a parsed ruleset against the rule type registry.

These are the errors Glue reports when a ruleset is created or started, before any
data is read: unknown rule types, wrong arity, a condition on a boolean rule or a
missing one, ``where``/``with threshold`` where the rule type does not allow them,
a bad regular expression, an operand of the wrong kind (a string for ``Mean``), bad
tags and labels, and — when the data's schema is known — unknown columns.
"""

from __future__ import annotations

import difflib
import re
import zoneinfo
from collections.abc import Mapping, Sequence

from glueball.dataquality.ast import (
    Aggregate,
    Analyzer,
    Between,
    BinaryOp,
    Comparison,
    CompositeRule,
    DateArithmetic,
    DateLiteral,
    DqdlError,
    Duration,
    Expression,
    FunctionCall,
    IndexOf,
    InList,
    Keyword,
    LastK,
    Matches,
    Negative,
    Now,
    NumberLiteral,
    Operand,
    Parameter,
    Position,
    Rule,
    RuleNode,
    Ruleset,
    Size,
    StringLiteral,
    TagValue,
    TimeLiteral,
)
from glueball.dataquality.rules import (
    ANOMALY_RULE_TYPES,
    COLUMN_DATA_TYPES,
    CONDITION_EXAMPLES,
    RULE_TYPES,
    ConditionUse,
    ParamKind,
    RuleTypeSpec,
    ValueKind,
)

__all__ = ["MAX_LABEL_KEY", "MAX_LABEL_VALUE", "MAX_LABELS", "check_ruleset"]

#: labels per rule (DefaultLabels included), and the longest key and value
MAX_LABELS = 10
MAX_LABEL_KEY = 128
MAX_LABEL_VALUE = 256

_NUMERIC_TYPES = re.compile(r"(tinyint|smallint|int|integer|bigint|long|short|byte|float|double|real|decimal)\b", re.I)
_REFERENCE_COLUMNS = re.compile(r"([^.{}]+)\.(?:\{([^{}]+)\}|([^{}]+))")
_AGGREGATION = re.compile(r"\s*(sum|avg)\(\s*([^()]+?)\s*\)\s*", re.I)
_HASH_ALGORITHMS = ("MD5", "SHA-1", "SHA-256")
_FILE_FILTERS = ("recentFiles", "uriRegex")


def check_ruleset(ruleset: Ruleset, schema: Sequence[tuple[str, str]] | None = None) -> list[DqdlError]:
    """Every semantic problem of ``ruleset`` (and of its columns, given ``schema``), in order."""
    return _Checker(ruleset, schema).run()


def _describe(operand: Operand) -> str:
    if isinstance(operand, StringLiteral):
        return f"the string {operand.to_dqdl()}"
    if isinstance(operand, Keyword):
        return operand.name
    if isinstance(operand, DateLiteral | TimeLiteral | Now | DateArithmetic):
        return f"the date {operand.to_dqdl()}"
    if isinstance(operand, Duration):
        return f"the duration {operand.to_dqdl()}"
    if isinstance(operand, Size):
        return f"the size {operand.to_dqdl()}"
    return operand.to_dqdl()


def _operands(expression: Expression) -> tuple[Operand, ...]:
    if isinstance(expression, Comparison):
        return (expression.operand,)
    if isinstance(expression, Between):
        return (expression.lower, expression.upper)
    if isinstance(expression, InList):
        return expression.values
    return ()


def _regex_error(pattern: str) -> str | None:
    try:
        re.compile(pattern)
    except re.error as error:
        return f'bad regular expression "{pattern}": {error}'
    return None


class _Checker:
    def __init__(self, ruleset: Ruleset, schema: Sequence[tuple[str, str]] | None) -> None:
        self.ruleset = ruleset
        self.columns = {name.lower(): (name, kind) for name, kind in schema} if schema is not None else None
        self.aliases = set(ruleset.additional_sources)
        self.errors: list[DqdlError] = []

    def error(self, position: Position | None, detail: str) -> None:
        line, column = position or (0, 0)
        self.errors.append(DqdlError(detail, line, column))

    def run(self) -> list[DqdlError]:
        if not self.ruleset.rules and not self.ruleset.analyzers:
            self.error(None, "no rules or analyzers: give Rules = [ ... ] with at least one rule")
        self.labels(None, self.ruleset.default_labels, "DefaultLabels")
        for node in self.ruleset.rules:
            self.node(node)
        for analyzer in self.ruleset.analyzers:
            self.analyzer(analyzer)
        return self.errors

    # ------------------------------------------------------------ rules

    def node(self, node: RuleNode) -> None:
        if isinstance(node, CompositeRule):
            for child in node.rules:
                self.node(child)
        else:
            self.rule(node)

    def spec(self, name: str, position: Position | None) -> RuleTypeSpec | None:
        spec = RULE_TYPES.get(name)
        if spec is None:
            folded = {n.lower(): n for n in RULE_TYPES}
            close = folded.get(name.lower()) or next(iter(difflib.get_close_matches(name, RULE_TYPES, 1)), None)
            hint = f"; did you mean {close}? (rule types are case-sensitive)" if close else ""
            self.error(position, f"unknown rule type '{name}'{hint}")
        return spec

    def rule(self, rule: Rule) -> None:
        spec = self.spec(rule.rule_type, rule.position)
        if spec is None:
            return
        if not spec.in_rules:
            self.error(rule.position, f"{spec.name} can only be used in Analyzers = [ ... ]")
            return
        signature = spec.signature(len(rule.parameters))
        if signature is None:
            self.arity(spec, rule)
            return
        self.parameters(spec, rule.parameters, rule.parameter_positions, rule.position)
        name = spec.name
        if signature.condition is ConditionUse.REQUIRED and rule.condition is None:
            self.error(rule.position, f"{name} needs a condition such as {CONDITION_EXAMPLES[spec.value_kind]}")
        elif signature.condition is ConditionUse.FORBIDDEN and rule.condition is not None:
            what = "compares two paths" if name == "FileMatch" else "is a boolean rule"
            self.error(rule.condition_position, f"{name} {what} and takes no condition, found "
                       f"'{rule.condition.to_dqdl()}'")
        elif rule.condition is not None:
            problem = self.values(spec, rule.condition)
            if problem:
                self.error(rule.condition_position, problem)
        if rule.where is not None and not spec.where:
            self.error(rule.where_position, f"{name} does not support a where clause")
        if rule.threshold is not None:
            self.threshold(spec, rule)
        self.tags(rule)
        self.labels(rule.position, self.ruleset.labels_for(rule), f"the labels of {name}")
        self.schema(spec, rule.parameters, rule.position)

    def arity(self, spec: RuleTypeSpec, rule: Rule) -> None:
        count = len(rule.parameters)
        fixed = max(len(s.parameters) for s in spec.signatures)
        needs_condition = any(s.condition is ConditionUse.REQUIRED for s in spec.signatures)
        if count > fixed and all(s.repeat is None for s in spec.signatures):
            surplus = rule.parameters[fixed]
            quoted = rule.parameter_quoted[fixed] if len(rule.parameter_quoted) > fixed else True
            position = rule.parameter_positions[fixed] if len(rule.parameter_positions) > fixed else rule.position
            before = Rule(spec.name, rule.parameters[:fixed]).to_dqdl()
            if not quoted and surplus in RULE_TYPES:
                self.error(position, f"expected ',' before the next rule after {before}, found '{surplus}'")
                return
            if not quoted and needs_condition and rule.condition is None:
                self.error(position, f"expected a comparison such as '> 10' after {before}, found '{surplus}'")
                return
        self.error(rule.position, f"{spec.name} takes {spec.arity()}, got {count}")

    def parameters(
        self,
        spec: RuleTypeSpec,
        values: tuple[Parameter, ...],
        positions: tuple[Position, ...],
        fallback: Position | None,
    ) -> None:
        signature = spec.signature(len(values))
        assert signature is not None
        for index, (kind, value) in enumerate(zip(signature.kinds(len(values)), values, strict=True)):
            position = positions[index] if index < len(positions) else fallback
            problem = self.parameter(kind, value)
            if problem:
                self.error(position, f"{spec.name}: {problem}")
            elif kind is ParamKind.RULE_NAME:
                self.watched(values, positions, fallback)

    def parameter(self, kind: ParamKind, value: Parameter) -> str | None:
        if not isinstance(value, str):
            return f"expected {kind.value} in double quotes, found {value}"
        if not value.strip():
            return f"expected {kind.value}, found an empty string"
        if kind is ParamKind.PATTERN:
            return _regex_error(value)
        if kind is ParamKind.ALIAS:
            return self.alias(value)
        if kind is ParamKind.COLUMN_LIST and not all(part.strip() for part in value.split(",")):
            return f'expected {kind.value}, found "{value}"'
        if kind is ParamKind.REFERENCE_COLUMNS:
            match = _REFERENCE_COLUMNS.fullmatch(value)
            if not match or not all(p.strip() for p in (match[2] or match[3]).split(",")):
                return f'expected {kind.value}, found "{value}"'
            return self.alias(match[1])
        if kind is ParamKind.KEY_MAPPINGS:
            for mapping in value.split(","):
                sides = mapping.split("->")
                if len(sides) > 2 or not all(side.strip() for side in sides):
                    return f'expected {kind.value}, found "{value}"'
        if kind is ParamKind.AGGREGATE:
            match = _AGGREGATION.fullmatch(value)
            if not match:
                return f'expected {kind.value}, found "{value}"'
            parts = match[2].split(".")
            return self.alias(parts[0]) if len(parts) == 2 else None
        if kind is ParamKind.RULE_NAME and value not in ANOMALY_RULE_TYPES and value != "CustomSql":
            return f"cannot watch '{value}'; anomaly detection covers {', '.join(ANOMALY_RULE_TYPES)}"
        return None

    def alias(self, alias: str) -> str | None:
        if self.aliases and alias not in self.aliases and alias != self.ruleset.primary_source:
            known = ", ".join(sorted(self.aliases))
            return f"unknown data source alias '{alias}'; DataSources declares {known}"
        return None

    def watched(self, values: tuple[Parameter, ...], positions: tuple[Position, ...], at: Position | None) -> None:
        name = "CustomSql" if values[0] == "CustomSQL" else str(values[0])
        spec = RULE_TYPES[name]
        if spec.signature(len(values) - 1) is None:
            self.error(at, f"DetectAnomalies \"{values[0]}\" needs the parameters of {name}: {spec.arity()}, "
                       f"got {len(values) - 1}")
        else:
            self.parameters(spec, values[1:], positions[1:], at)

    # ------------------------------------------------------------ conditions

    def values(self, spec: RuleTypeSpec, expression: Expression) -> str | None:
        kind, name = spec.value_kind, spec.name
        if isinstance(expression, Matches):
            if kind is not ValueKind.COLUMN_VALUES:
                return f"'matches' compares text; {name} takes a condition such as {CONDITION_EXAMPLES[kind]}"
            return _regex_error(expression.pattern)
        for operand in _operands(expression):
            problem = self.operand(spec, expression, operand)
            if problem:
                return problem
        if isinstance(expression, Between) and kind is ValueKind.COLUMN_VALUES:
            numbers = [isinstance(op, NumberLiteral) for op in (expression.lower, expression.upper)]
            if any(numbers) and not all(numbers):
                return f"{name}: 'between' needs two numbers or two dates"
        return None

    def operand(self, spec: RuleTypeSpec, expression: Expression, operand: Operand) -> str | None:
        kind, name = spec.value_kind, spec.name
        if kind is ValueKind.NUMBER:
            return self.number(spec, operand)
        if kind is ValueKind.COLUMN_VALUES:
            if isinstance(operand, Keyword | StringLiteral):
                equality = isinstance(expression, InList) or (
                    isinstance(expression, Comparison) and expression.operator in ("=", "!=")
                )
                return None if equality else f"{name}: {_describe(operand)} can only be used with =, !=, in or not in"
            if isinstance(operand, DateLiteral | TimeLiteral | Now | DateArithmetic):
                return None
            if isinstance(operand, Duration | Size):
                return f"{name} compares column values, not {_describe(operand)}"
            if isinstance(operand, Aggregate | IndexOf | LastK | FunctionCall):
                return f"{name} does not support dynamic rules (last(k))"
            return self.number(spec, operand)
        if kind is ValueKind.DATA_TYPE:
            equality = isinstance(expression, InList) or (
                isinstance(expression, Comparison) and expression.operator in ("=", "!=")
            )
            if not equality or not isinstance(operand, StringLiteral):
                return f"{name} takes a type name such as = \"INTEGER\" (one of {', '.join(COLUMN_DATA_TYPES)})"
            return None  # any text, as the reference parser takes it: an unknown type fails when evaluated
        accepted = {
            ValueKind.DURATION: (Duration,),
            ValueKind.DATE: (DateLiteral, TimeLiteral, Now, DateArithmetic),
            ValueKind.SIZE: (Size,),
            ValueKind.CHECKSUMS: (StringLiteral,),
        }[kind]
        if isinstance(operand, accepted):
            return None
        if kind is ValueKind.SIZE and isinstance(operand, NumberLiteral) and isinstance(operand.value, int):
            return None if operand.value >= 0 else f"{name}: a size cannot be negative"
        return f"{name} takes a condition such as {CONDITION_EXAMPLES[kind]}, not {_describe(operand)}"

    def number(self, spec: RuleTypeSpec, operand: Operand) -> str | None:
        name = spec.name
        if isinstance(operand, NumberLiteral):
            return None
        if isinstance(operand, LastK):
            return (f"{operand.to_dqdl()} is a list of past values; summarize it with avg, min, max, sum, "
                    f"median or std, or pick one with index({operand.to_dqdl()}, 0)")
        if isinstance(operand, Aggregate | IndexOf | FunctionCall):
            return None if spec.dynamic else f"{name} does not support dynamic rules (last(k))"
        if isinstance(operand, BinaryOp):
            return self.number(spec, operand.left) or self.number(spec, operand.right)
        if isinstance(operand, Negative):
            return self.number(spec, operand.operand)
        if isinstance(operand, Duration) and spec.value_kind is not ValueKind.DURATION:
            return f"{name}: durations only follow now(), as in (now() - {operand.to_dqdl()})"
        return f"{name} compares a number, not {_describe(operand)}"

    def threshold(self, spec: RuleTypeSpec, rule: Rule) -> None:
        assert rule.threshold is not None
        if not spec.threshold:
            self.error(rule.threshold_position, f"{spec.name} does not support 'with threshold'")
        elif spec.name == "CustomSql" and rule.condition is not None:
            self.error(rule.threshold_position, "CustomSql takes a condition (one value) or 'with threshold' "
                       "(row-level results), not both")
        elif isinstance(rule.threshold, Matches) or not all(
            isinstance(op, NumberLiteral) for op in _operands(rule.threshold)
        ):
            self.error(rule.threshold_position, "'with threshold' compares the fraction of passing rows with "
                       f"numbers, e.g. with threshold > 0.9, not '{rule.threshold.to_dqdl()}'")

    # ------------------------------------------------------------ tags, labels, columns

    def tags(self, rule: Rule) -> None:
        for key, value in rule.tags.items():
            problem = _tag_problem(key, value)
            if problem:
                self.error(rule.position, f"{rule.rule_type}: tag {key}: {problem}")

    def labels(self, position: Position | None, labels: Mapping[str, str], owner: str) -> None:
        if len(labels) > MAX_LABELS:
            self.error(position, f"{owner} has {len(labels)} labels; at most {MAX_LABELS} are allowed per rule")
        for key, value in labels.items():
            if not key.strip() or len(key) > MAX_LABEL_KEY:
                self.error(position, f"{owner}: a label key must have 1 to {MAX_LABEL_KEY} characters, "
                           f"found \"{key}\"")
            if not value.strip() or len(value) > MAX_LABEL_VALUE:
                self.error(position, f"{owner}: the value of label \"{key}\" must have 1 to {MAX_LABEL_VALUE} "
                           "characters")

    def schema(self, spec: RuleTypeSpec, values: tuple[Parameter, ...], position: Position | None) -> None:
        if self.columns is None:
            return
        signature = spec.signature(len(values))
        if signature is None:
            return
        if spec.name == "DetectAnomalies":
            watched = "CustomSql" if values[0] == "CustomSQL" else str(values[0])
            if watched in RULE_TYPES:
                self.schema(RULE_TYPES[watched], values[1:], position)
            return
        for kind, value in zip(signature.kinds(len(values)), values, strict=True):
            for column in _primary_columns(kind, str(value)):
                found = self.column(column)
                if found is None:
                    names = ", ".join(name for name, _ in self.columns.values())
                    self.error(position, f"{spec.name}: column \"{column}\" is not in the data (columns: {names})")
                elif spec.numeric_columns and not _NUMERIC_TYPES.match(found[1]):
                    self.error(position, f"{spec.name} needs a numeric column; \"{found[0]}\" is {found[1]}")

    def column(self, name: str) -> tuple[str, str] | None:
        assert self.columns is not None
        found = self.columns.get(name.lower())
        if found is None and "." in name:  # a field of a struct column
            found = self.columns.get(name.split(".", 1)[0].lower())
        return found

    # ------------------------------------------------------------ analyzers

    def analyzer(self, analyzer: Analyzer) -> None:
        spec = self.spec(analyzer.analyzer_type, analyzer.position)
        if spec is None:
            return
        if not spec.in_analyzers or (spec.name == "FileMatch" and len(analyzer.parameters) == 2):
            self.error(analyzer.position, f"{spec.name} is not supported as an analyzer")
            return
        if spec.signature(len(analyzer.parameters)) is None:
            self.error(analyzer.position, f"{spec.name} takes {spec.arity()}, got {len(analyzer.parameters)}")
            return
        self.parameters(spec, analyzer.parameters, analyzer.parameter_positions, analyzer.position)
        self.schema(spec, analyzer.parameters, analyzer.position)


def _primary_columns(kind: ParamKind, value: str) -> list[str]:
    """The primary dataset's columns that a parameter names."""
    if kind is ParamKind.COLUMN:
        return [value]
    if kind is ParamKind.COLUMN_LIST:
        return [part.strip() for part in value.split(",")]
    if kind is ParamKind.KEY_MAPPINGS:
        return [mapping.split("->")[0].strip() for mapping in value.split(",")]
    if kind is ParamKind.AGGREGATE:
        match = _AGGREGATION.fullmatch(value)
        return [match[2]] if match and "." not in match[2] else []
    return []


def _tag_problem(key: str, value: TagValue) -> str | None:
    """Checks of the tags AWS documents; other tags pass through."""
    if key == "hashAlgorithm" and value not in _HASH_ALGORITHMS:
        return f"expected one of {', '.join(_HASH_ALGORITHMS)}, found {value!r}"
    if key == "uriRegex":
        return _regex_error(value) if isinstance(value, str) else "expected a regular expression in quotes"
    if key == "recentFiles" and not (isinstance(value, int) and value >= 1):
        return f"expected a whole number of files >= 1, found {value!r}"
    if key in ("matchFileName", "ignoreCase") and str(value).lower() not in ("true", "false"):
        return f'expected "true" or "false", found {value!r}'
    if key == "filterOrder" and not (isinstance(value, tuple) and set(value) <= set(_FILE_FILTERS)):
        return f'expected a list of {", ".join(_FILE_FILTERS)}, e.g. ["uriRegex", "recentFiles"]'
    if key == "format" and not (isinstance(value, str) and value.strip()):
        return 'expected a date pattern in quotes, such as "dd-MM-yyyy"'
    if key == "timeZone":
        try:
            zoneinfo.ZoneInfo(str(value))
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            return f"unknown time zone {value!r}"
    return None
