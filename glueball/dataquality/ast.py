"""Typed, immutable nodes for a parsed DQDL ruleset.

A DQDL document (AWS Glue Data Quality's Data Quality Definition Language) is a
handful of sections — ``Metadata``, ``DataSources``, constants, ``DefaultLabels``,
``Rules`` and ``Analyzers`` — and :class:`Ruleset` mirrors them. Every node is a
frozen dataclass with ``to_dqdl()`` returning its text as the reference DQDL
implementation prints it (lists joined by ``,``, ``labels=[...]``, function arguments
joined by ``,``), so that ``parse(ruleset.to_dqdl()) == ruleset``. Nodes parsed from
text also remember how they were written where the reference printer does too
(``$constants``, ``of``/``and`` connectors, unquoted parameters, a number's digits,
parentheses): the parsed text then prints back as written. Constants (``$name``) are
resolved while parsing: nodes hold the values, :attr:`Ruleset.constants` keeps the
definitions.

Source positions (``position``, 1-based ``(line, column)``) ride along for error
messages but take no part in equality.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Generic, Literal, TypeVar

__all__ = [
    "Aggregate",
    "Analyzer",
    "Between",
    "BinaryOp",
    "Comparison",
    "CompositeRule",
    "ConstantValue",
    "DateArithmetic",
    "DateLiteral",
    "DqdlError",
    "Duration",
    "Expression",
    "FrozenMap",
    "FunctionCall",
    "InList",
    "IndexOf",
    "Keyword",
    "LastK",
    "Matches",
    "Negative",
    "Now",
    "NumberLiteral",
    "Operand",
    "Parameter",
    "Position",
    "Rule",
    "RuleNode",
    "Ruleset",
    "Size",
    "StringLiteral",
    "TagValue",
    "TimeLiteral",
    "format_number",
    "quote",
]

K = TypeVar("K")
V = TypeVar("V")

#: ``(line, column)``, both 1-based
Position = tuple[int, int]


class DqdlError(ValueError):
    """A DQDL ruleset that Glue would reject, with where and what.

    ``line``/``column`` are 1-based (0 when unknown); ``expected`` lists, in words,
    what would have been accepted at a syntax error; ``errors`` holds every problem
    when several were found (the message then lists them all, one per line).
    """

    def __init__(
        self,
        detail: str,
        line: int = 0,
        column: int = 0,
        expected: Iterable[str] = (),
        errors: Iterable[DqdlError] = (),
    ) -> None:
        self.detail = detail
        self.line = line
        self.column = column
        self.expected = tuple(expected)
        self.errors = tuple(errors) or (self,)
        super().__init__(f"line {line}, column {column}: {detail}" if line else detail)

    @classmethod
    def combine(cls, errors: list[DqdlError]) -> DqdlError:
        """One error carrying all of ``errors``; its position is the first one's."""
        if len(errors) == 1:
            return errors[0]
        first = errors[0]
        combined = cls(first.detail, first.line, first.column, first.expected, errors)
        combined.args = ("\n".join(str(e) for e in errors),)
        return combined


class FrozenMap(Mapping[K, V], Generic[K, V]):
    """An insertion-ordered, hashable, read-only mapping (equal to the same dict)."""

    __slots__ = ("_data",)

    def __init__(self, items: Mapping[K, V] | Iterable[tuple[K, V]] = ()) -> None:
        self._data: dict[K, V] = dict(items)

    def __getitem__(self, key: K) -> V:
        return self._data[key]

    def __iter__(self) -> Iterator[K]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __hash__(self) -> int:
        return hash(frozenset(self._data.items()))

    def __repr__(self) -> str:
        return f"FrozenMap({self._data!r})"


def quote(text: str) -> str:
    """``text`` as a DQDL string literal: ``"`` escaped, and ``\\`` only where it would be misread."""
    out = ['"']
    for i, char in enumerate(text):
        if char == '"':
            out.append('\\"')
        elif char == "\\" and (i + 1 == len(text) or text[i + 1] in '"\\'):
            out.append("\\\\")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def format_number(value: int | float) -> str:
    """Plain decimal text for a number (never exponent notation, floats keep a ``.``)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"not a number: {value!r}")
    if isinstance(value, int):
        return str(value)
    text = repr(value)
    if "e" in text or "E" in text:
        text = format(Decimal(text), "f")
    return text if "." in text else text + ".0"


# ---------------------------------------------------------------- operands


@dataclass(frozen=True)
class NumberLiteral:
    """A number: ``10``, ``-3``, ``0.95`` (``text``: its digits as written, kept for printing)."""

    value: int | float
    text: str | None = field(default=None, compare=False, repr=False)

    def to_dqdl(self) -> str:
        return self.text if self.text is not None else format_number(self.value)


@dataclass(frozen=True)
class StringLiteral:
    """A double-quoted string."""

    value: str

    def to_dqdl(self) -> str:
        return quote(self.value)


@dataclass(frozen=True)
class Keyword:
    """``NULL``, ``EMPTY`` (``""``) or ``WHITESPACES_ONLY`` — Glue's keywords for missing values."""

    name: Literal["NULL", "EMPTY", "WHITESPACES_ONLY"]

    def to_dqdl(self) -> str:
        return self.name


@dataclass(frozen=True)
class DateLiteral:
    """A quoted ``"yyyy-mm-dd"`` date, as Glue's lexer reads every such string."""

    value: dt.date

    def to_dqdl(self) -> str:
        return quote(self.value.isoformat())


@dataclass(frozen=True)
class TimeLiteral:
    """A quoted time of day, ``"9:30 AM"`` or ``"21:30"`` (today, in the rule's ``timeZone`` tag)."""

    value: dt.time
    text: str

    def to_dqdl(self) -> str:
        return quote(self.text)


@dataclass(frozen=True)
class Now:
    """``now()``: the time of the evaluation."""

    def to_dqdl(self) -> str:
        return "now()"


@dataclass(frozen=True)
class Duration:
    """``24 hours``, ``3 days``, ``45 minutes``."""

    amount: int
    unit: Literal["minutes", "hours", "days"]

    @property
    def seconds(self) -> int:
        return self.amount * {"minutes": 60, "hours": 3600, "days": 86400}[self.unit]

    def to_dqdl(self) -> str:
        return f"{self.amount} {self.unit}"


@dataclass(frozen=True)
class DateArithmetic:
    """``(now() - 3 days)``: now shifted by a duration."""

    operator: Literal["+", "-"]
    duration: Duration

    def to_dqdl(self) -> str:
        return f"(now() {self.operator} {self.duration.to_dqdl()})"


@dataclass(frozen=True)
class Size:
    """``2 MB``: a file size in B, KB, MB, GB or TB (powers of 1024)."""

    amount: int
    unit: Literal["B", "KB", "MB", "GB", "TB"]

    @property
    def bytes(self) -> int:
        return self.amount * 1024 ** ["B", "KB", "MB", "GB", "TB"].index(self.unit)

    def to_dqdl(self) -> str:
        return f"{self.amount} {self.unit}"


@dataclass(frozen=True)
class LastK:
    """``last(k)``: the metric's values in the last ``k`` runs (dynamic rules)."""

    k: int

    def to_dqdl(self) -> str:
        return f"last({self.k})"


@dataclass(frozen=True)
class Aggregate:
    """``avg(last(10))`` and friends: one number from the metric history."""

    function: Literal["avg", "min", "max", "sum", "median", "std"]
    source: LastK

    def to_dqdl(self) -> str:
        return f"{self.function}({self.source.to_dqdl()})"


@dataclass(frozen=True)
class IndexOf:
    """``index(last(10), 2)``: the ``index``-th of the last ``k`` values (0 is the most recent)."""

    source: LastK
    index: int

    def to_dqdl(self) -> str:
        return f"index({self.source.to_dqdl()},{self.index})"


@dataclass(frozen=True)
class FunctionCall:
    """Any other ``name(arguments)`` of a dynamic expression.

    The reference grammar takes any function name; one glueball does not know (or a
    known one given arguments it cannot use) fails the rule when it is evaluated.
    """

    name: str
    arguments: tuple[Operand, ...] = ()

    def to_dqdl(self) -> str:
        return f"{self.name}({','.join(a.to_dqdl() for a in self.arguments)})"


_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2}


@dataclass(frozen=True)
class BinaryOp:
    """Arithmetic on numbers and dynamic values: ``avg(last(10)) * 0.8``, ``max(last(5)) + 1``."""

    operator: Literal["+", "-", "*", "/"]
    left: Operand
    right: Operand

    def to_dqdl(self) -> str:
        mine = _PRECEDENCE[self.operator]
        left = self.left.to_dqdl()
        if isinstance(self.left, BinaryOp) and _PRECEDENCE[self.left.operator] < mine:
            left = f"({left})"
        right = self.right.to_dqdl()
        if isinstance(self.right, BinaryOp) and _PRECEDENCE[self.right.operator] <= mine:
            right = f"({right})"
        return f"{left} {self.operator} {right}"


@dataclass(frozen=True)
class Negative:
    """``-avg(last(3))``: the negation of a non-literal operand."""

    operand: Operand

    def to_dqdl(self) -> str:
        inner = self.operand.to_dqdl()
        return f"-({inner})" if isinstance(self.operand, BinaryOp) else f"-{inner}"


Operand = (
    NumberLiteral
    | StringLiteral
    | Keyword
    | DateLiteral
    | TimeLiteral
    | Now
    | Duration
    | DateArithmetic
    | Size
    | LastK
    | Aggregate
    | IndexOf
    | FunctionCall
    | BinaryOp
    | Negative
)


# ---------------------------------------------------------------- expressions


@dataclass(frozen=True)
class Comparison:
    """``= x``, ``!= x``, ``> x``, ``>= x``, ``< x``, ``<= x``."""

    operator: Literal["=", "!=", ">", ">=", "<", "<="]
    operand: Operand
    text: str | None = field(default=None, compare=False, repr=False)

    def to_dqdl(self) -> str:
        return self.text if self.text is not None else f"{self.operator} {self.operand.to_dqdl()}"


@dataclass(frozen=True)
class Between:
    """``between a and b`` — exclusive of both bounds, as AWS documents; ``not between`` negates it."""

    lower: Operand
    upper: Operand
    negated: bool = False
    text: str | None = field(default=None, compare=False, repr=False)

    def to_dqdl(self) -> str:
        if self.text is not None:
            return self.text
        prefix = "not " if self.negated else ""
        return f"{prefix}between {self.lower.to_dqdl()} and {self.upper.to_dqdl()}"


@dataclass(frozen=True)
class InList:
    """``in [a, b, NULL]`` / ``not in [...]``."""

    values: tuple[Operand, ...]
    negated: bool = False
    text: str | None = field(default=None, compare=False, repr=False)

    def to_dqdl(self) -> str:
        if self.text is not None:
            return self.text
        prefix = "not " if self.negated else ""
        return f"{prefix}in [{','.join(v.to_dqdl() for v in self.values)}]"


@dataclass(frozen=True)
class Matches:
    """``matches "regex"`` / ``not matches "regex"`` (the whole value must match)."""

    pattern: str
    negated: bool = False
    text: str | None = field(default=None, compare=False, repr=False)

    def to_dqdl(self) -> str:
        if self.text is not None:
            return self.text
        prefix = "not " if self.negated else ""
        return f"{prefix}matches {quote(self.pattern)}"


Expression = Comparison | Between | InList | Matches

#: a rule parameter: a column name, alias, SQL text, path... or a bare number
Parameter = str | int | float
#: the value of a ``with key = value`` tag
TagValue = str | int | float | tuple[str, ...]
#: the value of a constant (``name = "..."``, ``name = NULL``, ``name = ["a", "b"]``)
ConstantValue = str | int | float | Keyword | tuple[str | int | float | Keyword, ...]


def _format_value(value: Any) -> str:
    if isinstance(value, str):
        return quote(value)
    if isinstance(value, Keyword):
        return value.to_dqdl()
    if isinstance(value, tuple):
        return "[" + ",".join(_format_value(v) for v in value) + "]"
    return format_number(value)


def _format_labels(labels: Mapping[str, str]) -> str:
    return "[" + ", ".join(f"{quote(k)}={quote(v)}" for k, v in labels.items()) + "]"


# ---------------------------------------------------------------- rules


@dataclass(frozen=True)
class Rule:
    """One DQDL rule: ``<RuleType> <parameters> <condition> [where] [with ...] [labels]``."""

    rule_type: str
    parameters: tuple[Parameter, ...] = ()
    condition: Expression | None = None
    where: str | None = None
    threshold: Expression | None = None
    tags: FrozenMap[str, TagValue] = field(default_factory=FrozenMap)
    labels: FrozenMap[str, str] = field(default_factory=FrozenMap)
    position: Position | None = field(default=None, compare=False, repr=False)
    parameter_positions: tuple[Position, ...] = field(default=(), compare=False, repr=False)
    parameter_quoted: tuple[bool, ...] = field(default=(), compare=False, repr=False)
    parameter_texts: tuple[str, ...] = field(default=(), compare=False, repr=False)
    tag_texts: FrozenMap[str, str] = field(default_factory=FrozenMap, compare=False, repr=False)
    condition_position: Position | None = field(default=None, compare=False, repr=False)
    where_position: Position | None = field(default=None, compare=False, repr=False)
    threshold_position: Position | None = field(default=None, compare=False, repr=False)

    def to_dqdl(self) -> str:
        """The rule as the reference prints it: parameters, condition, where, threshold, tags, labels."""
        written = self.parameter_texts or tuple(_format_value(p) for p in self.parameters)
        parts = [self.rule_type, *written]
        if self.condition is not None:
            parts.append(self.condition.to_dqdl())
        if self.where is not None:
            parts.append(f"where {quote(self.where)}")
        if self.threshold is not None:
            parts.append(f"with threshold {self.threshold.to_dqdl()}")
        parts.extend(f"with {key} = {self.tag_texts.get(key) or _format_value(value)}"
                     for key, value in self.tags.items())
        if self.labels:
            parts.append(f"labels={_format_labels(self.labels)}")
        return " ".join(parts)


@dataclass(frozen=True)
class CompositeRule:
    """``(A) and (B) and ...`` or ``(A) or (B) or ...``; children may nest further composites.

    ``labels`` are those written after the parentheses around the composite,
    ``((A) and (B)) labels=["k"="v"]``. The reference printer leaves them out of the rule's text
    (:meth:`to_dqdl`); the document printer keeps them (:meth:`written`), so that a document re-parses
    to the same ruleset.
    """

    operator: Literal["and", "or"]
    rules: tuple[RuleNode, ...]
    position: Position | None = field(default=None, compare=False, repr=False)
    labels: FrozenMap[str, str] = field(default_factory=FrozenMap)

    def same_operator(self) -> bool:
        """Whether every composite inside joins with this one's operator (the reference then flattens)."""
        return all(not isinstance(c, CompositeRule) or (c.operator == self.operator and c.same_operator())
                   for c in self.rules)

    def to_dqdl(self) -> str:
        """The composite as the reference prints it: each side in parentheses, ``AND``/``OR`` in capitals
        (the reference prints its operator enum's name), a chain of one operator flattened, and no labels
        of composites (a plain rule's own labels stay inside its parentheses)."""
        sides = list(self.leaves()) if self.same_operator() else list(self.rules)
        return f" {self.operator.upper()} ".join(f"({side.to_dqdl()})" for side in sides)

    def written(self) -> str:
        """The composite as the document printer writes it: as :meth:`to_dqdl`, but a composite's labels
        kept after its parentheses, ``((A) and (B)) labels=["k"="v"]``."""
        body = f" {self.operator.upper()} ".join(_side(child) for child in self.rules)
        return f"({body}) labels={_format_labels(self.labels)}" if self.labels else body

    def leaves(self) -> Iterator[Rule]:
        """Every plain rule inside, depth first."""
        for child in self.rules:
            if isinstance(child, CompositeRule):
                yield from child.leaves()
            else:
                yield child


RuleNode = Rule | CompositeRule


def _side(node: RuleNode) -> str:
    """One side of ``and``/``or`` in a document: in parentheses, a labelled composite's labels after them."""
    if isinstance(node, CompositeRule):
        return node.written() if node.labels else f"({node.written()})"
    return f"({node.to_dqdl()})"


def _written(node: RuleNode) -> str:
    return node.written() if isinstance(node, CompositeRule) else node.to_dqdl()


@dataclass(frozen=True)
class Analyzer:
    """An entry of ``Analyzers = [...]``: metrics to compute, without a condition (nor, as in the
    reference grammar, a where clause)."""

    analyzer_type: str
    parameters: tuple[Parameter, ...] = ()
    position: Position | None = field(default=None, compare=False, repr=False)
    parameter_positions: tuple[Position, ...] = field(default=(), compare=False, repr=False)
    parameter_texts: tuple[str, ...] = field(default=(), compare=False, repr=False)

    def to_dqdl(self) -> str:
        written = self.parameter_texts or tuple(_format_value(p) for p in self.parameters)
        return " ".join([self.analyzer_type, *written])


@dataclass(frozen=True)
class Ruleset:
    """A whole DQDL document.

    ``data_sources`` is ``{"Primary": name, "AdditionalDataSources": {alias: source}}``
    (each key only when given); ``AdditionalDataSources = ["a", "b"]`` reads as
    ``{"a": "a", "b": "b"}``.
    """

    rules: tuple[RuleNode, ...] = ()
    analyzers: tuple[Analyzer, ...] = ()
    metadata: FrozenMap[str, str] = field(default_factory=FrozenMap)
    data_sources: FrozenMap[str, str | FrozenMap[str, str]] = field(default_factory=FrozenMap)
    constants: FrozenMap[str, ConstantValue] = field(default_factory=FrozenMap)
    default_labels: FrozenMap[str, str] = field(default_factory=FrozenMap)

    @property
    def primary_source(self) -> str | None:
        value = self.data_sources.get("Primary")
        return value if isinstance(value, str) else None

    @property
    def additional_sources(self) -> Mapping[str, str]:
        value = self.data_sources.get("AdditionalDataSources")
        return value if isinstance(value, Mapping) else FrozenMap()

    def leaves(self) -> Iterator[Rule]:
        """Every plain rule, composites opened, in document order."""
        for node in self.rules:
            if isinstance(node, CompositeRule):
                yield from node.leaves()
            else:
                yield node

    def labels_for(self, node: RuleNode) -> FrozenMap[str, str]:
        """The labels Glue reports for ``node``: ``DefaultLabels`` overridden by the rule's own."""
        return FrozenMap({**self.default_labels, **node.labels})

    def to_dqdl(self) -> str:
        """The whole document as the reference prints it: ``Metadata`` and ``DataSources`` one pair a line,
        then ``Rules`` and ``Analyzers`` one entry a line, sections apart by a blank line, no final newline.

        The reference's document keeps neither constants nor ``DefaultLabels`` nor a composite's labels,
        so its text does not re-parse to the same ruleset; here constants (one a line, as the reference
        prints a constant: ``name = "value"``) and ``DefaultLabels=[...]`` (as the reference formats it)
        come before ``Rules``, and a composite's labels after its parentheses.
        """
        sections: list[str] = []
        if self.metadata:
            pairs = ",\n".join(f"    {quote(k)}: {quote(v)}" for k, v in self.metadata.items())
            sections.append(f"Metadata = {{\n{pairs}\n}}")
        if self.data_sources:
            sections.append(f"DataSources = {{\n{_format_sources(self.data_sources)}\n}}")
        if self.constants:
            sections.append("\n".join(f"{name} = {_format_constant(value)}" for name, value in self.constants.items()))
        if self.default_labels:
            sections.append(f"DefaultLabels={_format_labels(self.default_labels)}")
        if self.rules or not self.analyzers:
            sections.append(_format_section("Rules", [_written(r) for r in self.rules]))
        if self.analyzers:
            sections.append(_format_section("Analyzers", [a.to_dqdl() for a in self.analyzers]))
        return "\n\n".join(sections)


def _format_constant(value: ConstantValue) -> str:
    if isinstance(value, tuple):
        return "[" + ", ".join(_format_value(v) for v in value) + "]"
    return _format_value(value)


def _format_section(name: str, entries: list[str]) -> str:
    if not entries:
        return f"{name} = []"
    body = ",\n".join(f"    {entry}" for entry in entries)
    return f"{name} = [\n{body}\n]"


def _format_sources(sources: Mapping[str, str | FrozenMap[str, str]]) -> str:
    """The pairs of ``DataSources``, one a line: ``"AdditionalDataSources": [ "a", "b" ]``."""
    pairs = []
    for key, value in sources.items():
        if isinstance(value, Mapping):
            text = "[ " + ", ".join(quote(alias) for alias in value) + " ]"
        else:
            text = quote(value)
        pairs.append(f"    {quote(key)}: {text}")
    return ",\n".join(pairs)
