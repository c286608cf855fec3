"""Parsing DQDL text into a :class:`~glueball.dataquality.ast.Ruleset`.

:func:`parse` reads a document with the LALR grammar in ``dqdl.lark``, builds the
typed AST (resolving ``$constants``, reading quoted ``"yyyy-mm-dd"`` strings as
dates and ``"9:30 AM"`` as times, as Glue's lexer does) and then runs the semantic
checks (:mod:`glueball.dataquality._checks`, against the rule type registry in
:mod:`glueball.dataquality.rules`), so that a ruleset Glue would refuse is refused
before any data is read. Keywords are reserved everywhere, as in Glue's own lexer:
a column named like one (``days``, ``in``, ``B``) is written in double quotes.
:func:`check` re-runs those checks, and adds column checks when given the schema
of the data.

Every failure is a :class:`~glueball.dataquality.ast.DqdlError` naming the line,
the column and — for syntax errors — what would have been accepted, in words.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any, cast

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedInput

from glueball.dataquality._checks import check_ruleset
from glueball.dataquality._syntax_errors import syntax_error
from glueball.dataquality.ast import (
    Aggregate,
    Analyzer,
    Between,
    BinaryOp,
    Comparison,
    CompositeRule,
    ConstantValue,
    DateArithmetic,
    DateLiteral,
    DqdlError,
    Duration,
    Expression,
    FrozenMap,
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

__all__ = ["DqdlError", "check", "parse"]


@cache
def _lark() -> Lark:
    grammar = Path(__file__).with_name("dqdl.lark").read_text()
    return Lark(grammar, parser="lalr", lexer="contextual", propagate_positions=True, maybe_placeholders=False)


def parse(text: str) -> Ruleset:
    """Parse and check a DQDL document, as Glue does when a ruleset is created or run.

    Raises:
        DqdlError: on a syntax error (with ``expected``) or on any semantic error
            (unknown rule type, wrong arity, a condition on a boolean rule, a
            ``where``/``with threshold`` the rule type does not allow, an unknown
            constant, a bad regex, an operand of the wrong kind...).
    """
    try:
        tree = _lark().parse(text)
    except UnexpectedInput as error:
        raise syntax_error(_lark(), text, error) from None
    ruleset = _Builder().build(tree)
    problems = check_ruleset(ruleset)
    if problems:
        raise DqdlError.combine(problems)
    return ruleset


def check(ruleset: Ruleset, schema: Sequence[tuple[str, str]] | None = None) -> None:
    """Check a parsed ruleset, and its column references against ``schema`` when given.

    ``schema`` is the data's columns as ``(name, spark type)`` pairs, e.g.
    ``[("id", "bigint"), ("email", "string")]``; names match case-insensitively, as
    in Spark SQL. Raises :class:`DqdlError` listing every problem found.
    """
    problems = check_ruleset(ruleset, schema)
    if problems:
        raise DqdlError.combine(problems)


#: words the reference lexer reserves: a column named so is written in double quotes
_RESERVED = frozenset({"and", "AND", "or", "OR", "of", "OF", "null", "NULL", "empty", "EMPTY", "whitespaces_only",
                       "WHITESPACES_ONLY", "between", "in", "not", "matches", "where", "with", "labels", "days",
                       "hours", "minutes", "B", "KB", "MB", "GB", "TB"})
#: how a single expected token reads, in the order phrases are listed

# ---------------------------------------------------------------- tree -> AST

_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_TIME_12H = re.compile(r"([0-9]{1,2}):([0-9]{2}) ?([AP]M)")
_TIME_24H = re.compile(r"([0-9]{2}):([0-9]{2})")
_CONSTANT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.]*")
_CONSTANT_REFERENCE = re.compile(r"\$[A-Za-z_][A-Za-z0-9_.]*")
_AGGREGATES = ("avg", "min", "max", "sum", "median", "std")
_SECTION_NAMES = {
    "metadata": "Metadata",
    "data_sources": "DataSources",
    "default_labels": "DefaultLabels",
    "rules": "Rules",
    "analyzers": "Analyzers",
}


def _position(item: Token | Tree) -> Position:
    if isinstance(item, Token):
        return item.line or 0, item.column or 0
    return item.meta.line, item.meta.column


def _fail(item: Token | Tree, detail: str) -> DqdlError:
    line, column = _position(item)
    return DqdlError(detail, line, column)


def _unquote(token: Token) -> str:
    body, out, i = str(token)[1:-1], [], 0
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body) and body[i + 1] in '"\\':
            out.append(body[i + 1])
            i += 2
        else:
            out.append(body[i])
            i += 1
    return "".join(out)


def _number(token: Token) -> int | float:
    text = str(token)
    return float(text) if "." in text else int(text)


class _Builder:
    """Turns lark's tree into AST nodes, resolving constants as it goes."""

    def __init__(self) -> None:
        self.constants: dict[str, ConstantValue] = {}

    def build(self, tree: Tree) -> Ruleset:
        sections: dict[str, Tree] = {}
        for child in tree.children:
            assert isinstance(child, Tree)
            if child.data == "constant":
                self.constant(child)
            elif child.data in sections:
                raise _fail(child, f"the {_SECTION_NAMES[str(child.data)]} section is given twice")
            else:
                sections[str(child.data)] = child
        rules = analyzers = ()
        if "rules" in sections:
            rules = tuple(self.rule_node(c) for c in sections["rules"].children)  # type: ignore[assignment]
        if "analyzers" in sections:
            analyzers = tuple(self.analyzer(c) for c in sections["analyzers"].children)  # type: ignore[assignment]
        return Ruleset(
            rules=rules,
            analyzers=analyzers,
            metadata=self.metadata(sections.get("metadata")),
            data_sources=self.data_sources(sections.get("data_sources")),
            constants=FrozenMap(self.constants),
            default_labels=self.labels(sections["default_labels"].children[0])
            if "default_labels" in sections
            else FrozenMap(),
        )

    # ------------------------------------------------------------ sections

    def constant(self, tree: Tree) -> None:
        name_token, value = tree.children
        name = str(name_token)
        if not _CONSTANT_NAME.fullmatch(name):
            raise _fail(name_token, f"constant name '{name}' must not start with '.' or '_'")
        if name in self.constants:
            raise _fail(name_token, f"constant '{name}' is already defined")
        resolved = self.literal(value)
        texts = resolved if isinstance(resolved, tuple) else (resolved,)
        if any(isinstance(t, int | float) for t in texts):
            raise _fail(name_token, f"constant '{name}' holds a number; constants hold strings, NULL, EMPTY, "
                        "WHITESPACES_ONLY or lists of them")
        if any(isinstance(t, str) and _CONSTANT_REFERENCE.search(t) for t in texts):
            raise _fail(name_token, f"constant '{name}' refers to another constant; constants cannot be nested")
        self.constants[name] = resolved

    def literal(self, item: Token | Tree) -> ConstantValue:
        if isinstance(item, Token):
            return _unquote(item) if item.type == "STRING" else _number(item)
        if item.data == "keyword":
            return Keyword(cast(Any, str(item.children[0]).upper()))
        if item.data == "signed_number":
            number = _number(cast(Token, item.children[-1]))
            return -number if len(item.children) == 2 else number
        return tuple(cast(Any, self.literal(c)) for c in item.children)

    def dictionary(self, tree: Tree, section: str) -> dict[str, str | tuple[str, ...]]:
        """A ``{"key": value}`` of a section: values are strings or lists of strings, never dictionaries."""
        result: dict[str, str | tuple[str, ...]] = {}
        if not tree.children:
            raise _fail(tree, "empty dictionary: give at least one \"key\": value pair")
        for pair in tree.children:
            assert isinstance(pair, Tree)
            key_token, value = pair.children
            key = _unquote(cast(Token, key_token))
            if key in result:
                raise _fail(key_token, f"key \"{key}\" is given twice")
            if isinstance(value, Token):
                result[key] = _unquote(value)
            elif value.data == "string_list":
                result[key] = tuple(_unquote(cast(Token, t)) for t in value.children)
            else:
                raise _fail(value, f'{section} does not take nested dictionaries: "{key}" is a string or a list '
                            'of strings, as in "AdditionalDataSources": ["reference"]')
        return result

    def metadata(self, tree: Tree | None) -> FrozenMap[str, str]:
        if tree is None:
            return FrozenMap()
        values = self.dictionary(cast(Tree, tree.children[0]), "Metadata")
        for key, value in values.items():
            if key != "Version":
                raise _fail(tree, f"Metadata supports only the key \"Version\", not \"{key}\"")
            if not isinstance(value, str):
                raise _fail(tree, "Metadata \"Version\" must be a string")
        return FrozenMap((key, str(value)) for key, value in values.items())

    def data_sources(self, tree: Tree | None) -> FrozenMap[str, str | FrozenMap[str, str]]:
        if tree is None:
            return FrozenMap()
        result: dict[str, str | FrozenMap[str, str]] = {}
        for key, value in self.dictionary(cast(Tree, tree.children[0]), "DataSources").items():
            if key == "Primary":
                if not isinstance(value, str):
                    raise _fail(tree, 'DataSources "Primary" must be a string naming the primary source')
                result[key] = value
            elif key == "AdditionalDataSources":
                if not isinstance(value, tuple):
                    raise _fail(tree, '"AdditionalDataSources" must be a list of aliases, e.g. ["reference"]')
                result[key] = FrozenMap((alias, alias) for alias in value)
            else:
                raise _fail(tree, f'DataSources supports "Primary" and "AdditionalDataSources", not "{key}"')
        return FrozenMap(result)

    def labels(self, tree: Tree) -> FrozenMap[str, str]:
        """``["key" = "value", ...]`` as a mapping (the reference takes no other form)."""
        if tree.children and isinstance(tree.children[0], Tree) and tree.children[0].data == "dictionary":
            raise _fail(tree, 'labels are a list of "key"="value" pairs, e.g. labels=["team"="core"], '
                        'not a {...} dictionary')
        if not tree.children:
            raise _fail(tree, 'labels need at least one "key"="value" pair')
        result: dict[str, str] = {}
        for label in tree.children:
            assert isinstance(label, Tree)
            key_token, value_token = label.children
            key = _unquote(cast(Token, key_token))
            if key in result:
                raise _fail(key_token, f"label \"{key}\" is given twice")
            result[key] = _unquote(cast(Token, value_token))
        return FrozenMap(result)

    # ------------------------------------------------------------ rules

    def rule_node(self, item: Tree) -> RuleNode:
        if item.data == "group":
            inner = self.rule_node(cast(Tree, item.children[0]))
            if len(item.children) == 1:
                return inner
            if inner.labels:
                raise _fail(item, "labels are given twice: inside and after the parentheses")
            return dataclasses.replace(inner, labels=self.labels(cast(Tree, item.children[1].children[0])))
        if item.data in ("and_rule", "or_rule"):
            operator = "and" if item.data == "and_rule" else "or"
            children: list[RuleNode] = []
            for child in item.children:
                node = self.rule_node(cast(Tree, child))
                if isinstance(node, CompositeRule) and node.operator == operator and not node.labels:
                    children.extend(node.rules)  # (A) and ((B) and (C)) is (A) and (B) and (C)
                else:
                    children.append(node)
            return CompositeRule(cast(Any, operator), tuple(children), position=_position(item))
        return self.rule(item)

    def parameters(self, params: list[Tree]) -> tuple[list[Parameter], list[Position], list[bool], list[str]]:
        """Parameter values (constants expanded), positions, whether quoted, and each as written."""
        values: list[Parameter] = []
        positions: list[Position] = []
        quoted: list[bool] = []
        written: list[str] = []
        for param in params:
            *connector, token = cast(list[Token], param.children)
            written.append(" ".join([*(str(c) for c in connector), str(token)]))
            if token.type == "CONST_REF":
                value = self.reference(token)
                if isinstance(value, tuple):  # the reference: "Invalid variable type ... expected STRING"
                    raise _fail(token, f"constant {token} is a list; a parameter takes a constant holding one "
                                "string")
                if isinstance(value, Keyword):
                    raise _fail(token, f"constant {token} holds {value.name}; a parameter is a string")
                values.append(value)
                positions.append(_position(token))
                quoted.append(True)
                continue
            if token.type == "STRING":
                values.append(_unquote(token))
            elif str(token) in _RESERVED:
                raise _fail(token, f"'{token}' is a DQDL keyword; write the column name in double quotes: \"{token}\"")
            else:
                values.append(_number(token) if token.type == "NUMBER" else str(token))
            positions.append(_position(token))
            quoted.append(token.type != "NAME")
        return values, positions, quoted, written

    def rule(self, tree: Tree) -> Rule:
        type_token = cast(Token, tree.children[0])
        params = [c for c in tree.children[1:] if isinstance(c, Tree) and c.data == "param"]
        values, positions, quoted, written = self.parameters(params)
        fields: dict[str, Any] = {}
        tags: dict[str, TagValue] = {}
        tag_texts: dict[str, str] = {}
        for part in tree.children[1:]:
            if not isinstance(part, Tree) or part.data == "param":
                continue
            if part.data == "where_clause":
                if "where" in fields:
                    raise _fail(part, "only one where clause is allowed per rule")
                fields["where"] = self.where(part)
                fields["where_position"] = _position(part)
            elif part.data == "threshold":
                if "threshold" in fields:
                    raise _fail(part, "only one 'with threshold' is allowed per rule")
                fields["threshold"] = self.condition(cast(Tree, part.children[0]))
                fields["threshold_position"] = _position(part)
            elif part.data == "tag":
                key_token, value = part.children
                if str(key_token) in tags:
                    raise _fail(key_token, f"tag '{key_token}' is given twice")
                tags[str(key_token)] = self.tag_value(value)
                tag_texts[str(key_token)] = _tag_text(value)
            elif part.data == "labels_clause":
                if "labels" in fields:
                    raise _fail(part, "labels are given twice")
                fields["labels"] = self.labels(cast(Tree, part.children[0]))
            else:
                fields["condition"] = self.condition(part)
                fields["condition_position"] = _position(part)
        return Rule(
            rule_type=str(type_token),
            parameters=tuple(values),
            tags=FrozenMap(tags),
            position=_position(type_token),
            parameter_positions=tuple(positions),
            parameter_quoted=tuple(quoted),
            parameter_texts=tuple(written),
            tag_texts=FrozenMap(tag_texts),
            **fields,
        )

    def analyzer(self, tree: Tree) -> Analyzer:
        type_token = cast(Token, tree.children[0])
        params = [c for c in tree.children[1:] if isinstance(c, Tree) and c.data == "param"]
        values, positions, _, written = self.parameters(params)
        where = [c for c in tree.children[1:] if isinstance(c, Tree) and c.data == "where_clause"]
        if where:
            raise _fail(where[0], f"an analyzer takes no where clause ({type_token} ... where ...): only rules do")
        return Analyzer(
            analyzer_type=str(type_token),
            parameters=tuple(values),
            position=_position(type_token),
            parameter_positions=tuple(positions),
            parameter_texts=tuple(written),
        )

    def where(self, tree: Tree) -> str:
        item = cast(Token, tree.children[0])
        if item.type == "CONST_REF":
            raise _fail(item, f'a where clause is a quoted Spark SQL condition, not a constant ({item}): '
                        'write it out, e.g. where "age > 18"')
        text = _unquote(item)
        if not text.strip():
            raise _fail(tree, 'empty where clause: give a Spark SQL condition such as where "age > 18"')
        return text

    def tag_value(self, item: Token | Tree) -> TagValue:
        if isinstance(item, Token) and item.type == "CONST_REF":
            value = self.reference(item)
            if isinstance(value, tuple):
                return tuple(str(v) for v in value)
            return value.name if isinstance(value, Keyword) else value
        if isinstance(item, Tree) and item.data == "keyword":
            return str(item.children[0]).upper()
        if isinstance(item, Tree) and item.data == "string_list":
            return tuple(_unquote(cast(Token, t)) for t in item.children)
        value = self.literal(item)
        if isinstance(value, tuple):  # pragma: no cover - lists are string_list above
            return tuple(str(v) for v in value)
        return value.name if isinstance(value, Keyword) else value

    def reference(self, token: Token) -> ConstantValue:
        name = str(token)[1:]
        if name not in self.constants:
            known = ", ".join(f"${n}" for n in self.constants) or "none are defined"
            raise _fail(token, f"unknown constant {token} (constants: {known})")
        return self.constants[name]

    # ------------------------------------------------------------ expressions

    def condition(self, tree: Tree) -> Expression:
        children = list(tree.children)
        negated = bool(children) and isinstance(children[0], Tree) and children[0].data == "not_kw"
        if negated:
            children = children[1:]
        text = _condition_text(tree)
        if tree.data == "comparison":
            operator, operand = children
            written = "".join(str(c) for c in cast(Tree, operator).children)
            return Comparison(cast(Any, written), self.operand(operand), text)
        if tree.data == "between":
            return Between(self.operand(children[0]), self.operand(children[1]), negated, text)
        if tree.data == "in_list":
            source = children[0]
            if isinstance(source, Token):
                value = self.reference(source)
                items = value if isinstance(value, tuple) else (value,)
                values = tuple(self.value_operand(v, source) for v in items)
            else:
                values = tuple(self.operand(c) for c in source.children)
                found = ("strings" if isinstance(c, Token) and c.type == "CONST_REF" else _list_kind(v)
                         for c, v in zip(source.children, values, strict=True))
                kinds = {kind for kind in found if kind is not None}
                if len(kinds) > 1:  # the reference's lists are of numbers, strings, dates, durations or sizes
                    raise _fail(source, f"a list after 'in' holds one kind of value, not {' and '.join(sorted(kinds))}"
                                f" together: {text}")
            if not values:
                raise _fail(tree, "empty list after 'in': give at least one value")
            return InList(values, negated, text)
        pattern_item = cast(Token, children[0])
        if pattern_item.type == "CONST_REF":
            raise _fail(pattern_item, f"'matches' takes a regular expression in double quotes, not a constant "
                        f"({pattern_item})")
        return Matches(_unquote(pattern_item), negated, text)

    def value_operand(self, value: str | int | float | Keyword, where: Token | Tree) -> Operand:
        if isinstance(value, Keyword):
            return value
        if isinstance(value, str):
            return self.string_operand(value, where)
        return NumberLiteral(value)

    def string_operand(self, text: str, where: Token | Tree) -> Operand:
        """A quoted literal; dates and times read as such, as Glue's lexer does."""
        if _DATE.fullmatch(text):
            try:
                return DateLiteral(dt.date.fromisoformat(text))
            except ValueError:
                raise _fail(where, f'"{text}" is not a valid date (yyyy-mm-dd)') from None
        match = _TIME_12H.fullmatch(text)
        if match:
            hour, minute = int(match[1]), int(match[2])
            if not 1 <= hour <= 12 or minute > 59:
                raise _fail(where, f'"{text}" is not a valid time (h:mm AM or HH:mm)')
            return TimeLiteral(dt.time(hour % 12 + (12 if match[3] == "PM" else 0), minute), text)
        match = _TIME_24H.fullmatch(text)
        if match:
            hour, minute = int(match[1]), int(match[2])
            if hour > 23 or minute > 59:
                raise _fail(where, f'"{text}" is not a valid time (h:mm AM or HH:mm)')
            return TimeLiteral(dt.time(hour, minute), text)
        return StringLiteral(text)

    def operand(self, item: Token | Tree) -> Operand:
        if isinstance(item, Token):
            if item.type == "NUMBER":
                return NumberLiteral(_number(item), str(item))
            if item.type == "STRING":
                return self.string_operand(_unquote(item), item)
            value = self.reference(item)
            if isinstance(value, tuple):
                raise _fail(item, f"constant {item} is a list; use it after 'in', e.g. in {item}")
            return self.value_operand(value, item)
        kind = item.data
        if kind == "paren":
            inner = item.children[0]
            if isinstance(inner, Tree) and inner.data == "binop":
                shifted = self.date_arithmetic(inner)
                if shifted is not None:
                    return shifted
            operand = self.operand(inner)
            if isinstance(operand, DateArithmetic):
                raise _fail(item, f"date arithmetic takes one pair of parentheses: {operand.to_dqdl()}")
            return operand
        if kind == "keyword":
            return Keyword(cast(Any, str(item.children[0]).upper()))
        if kind in ("duration", "size"):
            amount_token, unit_tree = item.children
            amount = _number(cast(Token, amount_token))
            if not isinstance(amount, int):
                raise _fail(item, f"a {kind} takes a whole number, not {amount_token}")
            unit = str(cast(Tree, unit_tree).children[0])
            return Duration(amount, cast(Any, unit)) if kind == "duration" else Size(amount, cast(Any, unit))
        if kind == "negative":
            inner = self.operand(item.children[1])
            if isinstance(inner, NumberLiteral):
                return NumberLiteral(-inner.value, f"-{inner.to_dqdl()}")
            return Negative(inner)
        if kind == "binop":
            left, operator, right = item.children
            lhs, rhs = self.operand(left), self.operand(right)
            if isinstance(lhs, Now) and isinstance(rhs, Duration) and str(operator) in "+-":
                raise _fail(item, f"date arithmetic is written in parentheses: (now() {operator} "
                            f"{rhs.to_dqdl()}), not now() {operator} {rhs.to_dqdl()}")
            return BinaryOp(cast(Any, str(operator)), lhs, rhs)
        return self.call(item)

    def date_arithmetic(self, tree: Tree) -> DateArithmetic | None:
        """``now() - 3 days`` inside parentheses (the only place the reference takes it), else None."""
        left, operator, right = tree.children
        lhs, rhs = self.operand(left), self.operand(right)
        if isinstance(lhs, Now) and isinstance(rhs, Duration) and str(operator) in "+-":
            return DateArithmetic(cast(Any, str(operator)), rhs)
        return None

    def call(self, tree: Tree) -> Operand:
        """A function of a dynamic expression; a call glueball cannot use stays a FunctionCall (fails at run)."""
        name_token, *arg_items = tree.children
        name = str(name_token)
        args = [self.operand(a) for a in arg_items]
        if name == "now" and not args:
            return Now()
        if name == "last" and len(args) == 1 and _is_whole(args[0], minimum=1):
            return LastK(int(cast(NumberLiteral, args[0]).value))
        if name in _AGGREGATES and len(args) == 1 and isinstance(args[0], LastK):
            return Aggregate(cast(Any, name), args[0])
        if (name == "index" and len(args) == 2 and isinstance(args[0], LastK)
                and _is_whole(args[1], minimum=0)):
            return IndexOf(args[0], int(cast(NumberLiteral, args[1]).value))
        return FunctionCall(name, tuple(args))


def _list_kind(operand: Operand) -> str | None:
    """What kind of list an ``in [...]`` item belongs in (None: NULL, which any list may hold)."""
    if isinstance(operand, Keyword):
        return None if operand.name == "NULL" else "strings"
    if isinstance(operand, StringLiteral):
        return "strings"
    if isinstance(operand, DateLiteral | TimeLiteral | Now | DateArithmetic):
        return "dates"
    if isinstance(operand, Duration):
        return "durations"
    if isinstance(operand, Size):
        return "sizes"
    return "numbers"


def _is_whole(operand: Operand, minimum: int) -> bool:
    return isinstance(operand, NumberLiteral) and isinstance(operand.value, int) and operand.value >= minimum


# ---------------------------------------------------------------- text as the reference prints it


def _written(item: Token | Tree) -> str:
    """An operand as the reference prints it: its own digits, strings and parentheses, canonical spacing."""
    if isinstance(item, Token):
        return str(item)
    kind = item.data
    parts = [_written(c) for c in item.children]
    if kind == "paren":
        return f"({parts[0]})"
    if kind == "keyword":
        return parts[0].upper()
    if kind in ("duration", "size", "binop"):
        return " ".join(parts)
    if kind == "negative":
        return "".join(parts)
    if kind == "comparator":
        return "".join(parts)
    if kind in ("duration_unit", "size_unit", "not_kw"):
        return parts[0]
    name, *arguments = parts  # call
    return f"{name}({','.join(arguments)})"


def _tag_text(item: Token | Tree) -> str:
    """A tag's value as written (``1.50``, ``-2``, ``"x"``, ``$name``), which the reference prints back."""
    if isinstance(item, Token):
        return str(item)
    if item.data == "keyword":
        return str(item.children[0]).upper()
    if item.data == "signed_number":
        return "".join(str(c) for c in item.children)
    return "[" + ",".join(str(c) for c in item.children) + "]"  # a list of strings


def _condition_text(tree: Tree) -> str:
    children = list(tree.children)
    prefix = ""
    if children and isinstance(children[0], Tree) and children[0].data == "not_kw":
        prefix, children = "not ", children[1:]
    if tree.data == "comparison":
        return f"{_written(children[0])} {_written(children[1])}"
    if tree.data == "between":
        return f"{prefix}between {_written(children[0])} and {_written(children[1])}"
    if tree.data == "in_list":
        source = children[0]
        if isinstance(source, Token):
            return f"{prefix}in {source}"
        return f"{prefix}in [{','.join(_written(c) for c in source.children)}]"
    return f"{prefix}matches {children[0]}"
