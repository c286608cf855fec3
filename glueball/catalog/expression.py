"""The partition filter language of GetPartitions' ``Expression``.

Glue accepts a SQL ``WHERE`` clause over the table's partition keys::

    year = '2024' AND month BETWEEN 6 AND 9 AND region IN ('eu', 'us') AND NOT day > 27

Comparisons (``= <> != > >= < <=``), ``AND``, ``OR``, ``NOT``, parentheses,
``[NOT] BETWEEN``, ``[NOT] IN``, ``[NOT] LIKE`` (``%`` and ``_``) and
``IS [NOT] NULL``; keywords and key names are case-insensitive, key names may
be back-quoted, string literals take single or double quotes (a doubled quote
escapes itself). Partition values are strings; as in Glue, they are compared
by the type of their key: integer keys numerically, ``decimal``/``double``
keys as decimals, ``date`` keys as dates (``yyyy-MM-dd``), ``timestamp`` keys
as timestamps and string keys as text (by code point). A literal that cannot
be cast to its key's type is the client's mistake; a partition value that
cannot be cast is SQL ``NULL`` (it matches no comparison).

:func:`compile_filter` parses and types an expression once;
:meth:`PartitionFilter.matches` evaluates it against a partition's values and
:meth:`PartitionFilter.index_conditions` gives the top-level conjuncts that a
partition index can answer (``= > >= < <= BETWEEN``; ``LIKE``, ``IN``, ``OR``
and ``NOT`` sub-expressions are left to :meth:`~PartitionFilter.matches`, as in Glue).
"""

from __future__ import annotations

import datetime as dt
import operator
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import cache
from pathlib import Path
from typing import Any

from lark import Lark, Token
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from glueball.errors import InvalidInputException

__all__ = [
    "INDEXABLE_KINDS",
    "IndexCondition",
    "KeyKind",
    "PartitionFilter",
    "PartitionKey",
    "compile_filter",
    "key_kind",
    "parse_int",
]

Truth = bool | None  # SQL's three-valued logic: None is UNKNOWN

_INT_TYPES = frozenset({"int", "integer", "bigint", "long", "smallint", "tinyint"})
_DECIMAL_TYPES = frozenset({"decimal", "numeric", "double", "float", "real"})
_STRING_TYPES = frozenset({"string", "char", "varchar"})
_INT_TEXT = re.compile(r"[+-]?[0-9]+")
_DATE_TEXT = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_TIMESTAMP_TEXT = re.compile(r"([0-9]{4}-[0-9]{2}-[0-9]{2})(?:[ T]([0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]{1,9})?)?))?")
_BIGINT_MIN, _BIGINT_MAX = -(2**63), 2**63 - 1


class KeyKind:
    """How the values of a partition key compare."""

    INT = "int"
    DECIMAL = "decimal"
    DATE = "date"
    TIMESTAMP = "timestamp"
    STRING = "string"


#: the kinds a partition index (and so the store's typed value columns) can serve
INDEXABLE_KINDS = frozenset({KeyKind.INT, KeyKind.DATE, KeyKind.STRING})


def _base_type(type_name: str) -> str:
    match = re.match(r"\s*([A-Za-z_]+)", type_name or "")
    return match.group(1).lower() if match else ""


def key_kind(type_name: str | None) -> str | None:
    """The :class:`KeyKind` of a Glue column type (``varchar(10)`` -> string), or None if unsupported."""
    base = _base_type(type_name or "string")
    rest = (type_name or "").strip()[len(base):].strip()
    if rest and not (rest.startswith("(") and base in _STRING_TYPES | {"decimal", "numeric"}):
        return None  # struct<...>, array<...>, map<...>
    if base in _INT_TYPES:
        return KeyKind.INT
    if base in _DECIMAL_TYPES:
        return KeyKind.DECIMAL
    if base in _STRING_TYPES:
        return KeyKind.STRING
    if base in (KeyKind.DATE, KeyKind.TIMESTAMP):
        return base
    return None


def parse_int(text: str) -> int | None:
    """The integer an integer-typed partition value stands for, or None (one rule for Python and the store)."""
    if _INT_TEXT.fullmatch(text) is None:
        return None
    value = int(text)
    return value if _BIGINT_MIN <= value <= _BIGINT_MAX else None


def _parse_decimal(text: str) -> Decimal | None:
    try:
        value = Decimal(text.strip())
    except InvalidOperation:
        return None
    return value if value.is_finite() else None


def _parse_date(text: str) -> dt.date | None:
    if _DATE_TEXT.fullmatch(text) is None:
        return None
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        return None


def _parse_timestamp(text: str) -> tuple[dt.datetime, int] | None:
    """A timestamp to the nanosecond, as Glue compares them: (the time to the second, nanoseconds).

    Python's datetime stops at microseconds; a bound such as ``'2022-02-01 00:00:00.000000001'`` must
    still be after ``'2022-02-01 00:00:00'``.
    """
    match = _TIMESTAMP_TEXT.fullmatch(text.strip())
    if match is None:
        return None
    day, clock = match.group(1), match.group(2) or "00:00"
    nanos = 0
    if "." in clock:
        clock, fraction = clock.split(".")
        nanos = int(fraction.ljust(9, "0"))
    try:
        return dt.datetime.fromisoformat(f"{day} {clock}"), nanos
    except ValueError:
        return None


_CASTS: dict[str, Callable[[str], Any]] = {
    KeyKind.INT: parse_int,
    KeyKind.DECIMAL: _parse_decimal,
    KeyKind.DATE: _parse_date,
    KeyKind.TIMESTAMP: _parse_timestamp,
    KeyKind.STRING: lambda text: text,
}


@dataclass(frozen=True)
class PartitionKey:
    """A partition key of a table as the filter sees it.

    Attributes:
        name: the key's name as the table declares it.
        type: its Glue type (``string``, ``int``, ``date``, ``varchar(10)``, ...).
        position: its index in the partition's ``Values``.
    """

    name: str
    type: str
    position: int

    @property
    def kind(self) -> str | None:
        return key_kind(self.type)


@dataclass(frozen=True)
class IndexCondition:
    """One conjunct a partition index can answer: ``value(position) <op> literal``.

    ``literal`` is an ``int`` for integer keys, else text (dates as ISO ``yyyy-MM-dd``).
    """

    position: int
    kind: str
    op: str  # one of = > >= < <=
    literal: int | str


# ---------------------------------------------------------------- typed tree

class _Node:
    def evaluate(self, raw: Sequence[str], typed: Sequence[Any]) -> Truth:
        raise NotImplementedError


_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "=": operator.eq, "<>": operator.ne, "!=": operator.ne,
    ">": operator.gt, ">=": operator.ge, "<": operator.lt, "<=": operator.le,
}
_FLIPPED = {"=": "=", "<>": "<>", "!=": "!=", ">": "<", ">=": "<=", "<": ">", "<=": ">="}


@dataclass
class _Comparison(_Node):
    key: PartitionKey
    op: str
    literal: Any

    def evaluate(self, raw: Sequence[str], typed: Sequence[Any]) -> Truth:
        value = typed[self.key.position]
        return None if value is None else _COMPARE[self.op](value, self.literal)


@dataclass
class _Between(_Node):
    key: PartitionKey
    low: Any
    high: Any
    negated: bool

    def evaluate(self, raw: Sequence[str], typed: Sequence[Any]) -> Truth:
        value = typed[self.key.position]
        if value is None:
            return None
        return (self.low <= value <= self.high) != self.negated


@dataclass
class _InList(_Node):
    key: PartitionKey
    literals: frozenset[Any]
    negated: bool

    def evaluate(self, raw: Sequence[str], typed: Sequence[Any]) -> Truth:
        value = typed[self.key.position]
        return None if value is None else (value in self.literals) != self.negated


@dataclass
class _Like(_Node):
    key: PartitionKey
    pattern: re.Pattern[str]
    negated: bool

    def evaluate(self, raw: Sequence[str], typed: Sequence[Any]) -> Truth:
        return (self.pattern.fullmatch(raw[self.key.position]) is not None) != self.negated


@dataclass
class _IsNull(_Node):
    key: PartitionKey
    negated: bool

    def evaluate(self, raw: Sequence[str], typed: Sequence[Any]) -> Truth:
        return (typed[self.key.position] is None) != self.negated


@dataclass
class _Not(_Node):
    operand: _Node

    def evaluate(self, raw: Sequence[str], typed: Sequence[Any]) -> Truth:
        value = self.operand.evaluate(raw, typed)
        return None if value is None else not value


@dataclass
class _And(_Node):
    operands: list[_Node]

    def evaluate(self, raw: Sequence[str], typed: Sequence[Any]) -> Truth:
        result: Truth = True
        for operand in self.operands:
            value = operand.evaluate(raw, typed)
            if value is False:
                return False
            if value is None:
                result = None
        return result


@dataclass
class _Or(_Node):
    operands: list[_Node]

    def evaluate(self, raw: Sequence[str], typed: Sequence[Any]) -> Truth:
        result: Truth = False
        for operand in self.operands:
            value = operand.evaluate(raw, typed)
            if value is True:
                return True
            if value is None:
                result = None
        return result


# ---------------------------------------------------------------- parsing and typing

@cache
def _parser() -> Lark:
    grammar = (Path(__file__).with_name("partition_filter.lark")).read_text()
    return Lark(grammar, parser="lalr", maybe_placeholders=False, propagate_positions=False)


def _syntax_error(expression: str, error: UnexpectedInput) -> InvalidInputException:
    prefix = f"Invalid partition filter expression {expression!r}: "
    if isinstance(error, UnexpectedEOF) or (
        isinstance(error, UnexpectedToken) and error.token.type == "$END"
    ):
        return InvalidInputException(prefix + "unexpected end of expression")
    if isinstance(error, UnexpectedToken):
        token = error.token
        return InvalidInputException(
            prefix + f"unexpected {str(token)!r} at position {token.start_pos}"
        )
    if isinstance(error, UnexpectedCharacters):
        return InvalidInputException(
            prefix + f"unexpected character {error.char!r} at position {error.pos_in_stream}"
        )
    return InvalidInputException(prefix + str(error).splitlines()[0])


def _unquote(token: Token) -> str:
    quote = token[0]
    return token[1:-1].replace(quote * 2, quote)


class _Builder:
    """Turns lark's tree into typed nodes, resolving key names and casting literals."""

    def __init__(self, expression: str, keys: Sequence[PartitionKey]) -> None:
        self.expression = expression
        self.keys = {key.name.lower(): key for key in keys}
        self.all_names = ", ".join(key.name for key in keys) or "(none)"
        self.used: set[int] = set()

    def build(self, tree: Any) -> _Node:
        if isinstance(tree, Token):
            raise InvalidInputException(
                f"Invalid partition filter expression {self.expression!r}: {str(tree)!r} at position "
                f"{tree.start_pos} is not a condition"
            )
        kind = tree.data
        children: list[Any] = tree.children
        if kind == "or_expr":
            return _Or([self.build(c) for c in children])
        if kind == "and_expr":
            return _And([self.build(c) for c in children])
        if kind == "negation":
            return _Not(self.build(children[1]))
        if kind == "comparison":
            return self.comparison(*children)
        negated = any(isinstance(c, Token) and c.type == "NOT" for c in children)
        operands = [c for c in children if not (isinstance(c, Token) and c.type == "NOT")]
        key = self.key(operands[0])
        if kind == "between":
            return _Between(key, self.literal(key, operands[1]), self.literal(key, operands[2]), negated)
        if kind == "in_list":
            return _InList(key, frozenset(self.literal(key, o) for o in operands[1:]), negated)
        if kind == "like":
            return _Like(key, self.like_pattern(operands[1]), negated)
        if kind == "is_null":
            return _IsNull(key, negated)
        raise InvalidInputException(f"Invalid partition filter expression {self.expression!r}")  # pragma: no cover

    def comparison(self, left: Any, op: Token, right: Any) -> _Node:
        if self.is_key(left) and not self.is_key(right):
            key = self.key(left)
            return _Comparison(key, str(op), self.literal(key, right))
        if self.is_key(right) and not self.is_key(left):
            key = self.key(right)
            return _Comparison(key, _FLIPPED[str(op)], self.literal(key, left))
        what = "two partition keys" if self.is_key(left) else "two literals"
        raise InvalidInputException(
            f"Invalid partition filter expression {self.expression!r}: the comparison at position "
            f"{left.start_pos} compares {what}; compare a partition key with a literal"
        )

    @staticmethod
    def is_key(token: Token) -> bool:
        return token.type in ("NAME", "QUOTED_NAME")

    def key(self, token: Any) -> PartitionKey:
        if not (isinstance(token, Token) and self.is_key(token)):
            raise InvalidInputException(
                f"Invalid partition filter expression {self.expression!r}: expected a partition key at "
                f"position {token.start_pos}, found {str(token)!r}"
            )
        name = token[1:-1] if token.type == "QUOTED_NAME" else str(token)
        key = self.keys.get(name.lower())
        if key is None:
            raise InvalidInputException(
                f"Unknown partition key {name!r} in expression at position {token.start_pos}; "
                f"the partition keys of the table are: {self.all_names}"
            )
        if key.kind is None:
            raise InvalidInputException(
                f"Partition key {key.name} has type {key.type}, which partition filter expressions do not support"
            )
        self.used.add(key.position)
        return key

    def literal(self, key: PartitionKey, token: Token) -> Any:
        if self.is_key(token):
            raise InvalidInputException(
                f"Invalid partition filter expression {self.expression!r}: expected a literal at position "
                f"{token.start_pos}, found partition key {str(token)!r}"
            )
        text = _unquote(token) if token.type == "STRING" else str(token)
        kind = key.kind
        assert kind is not None
        if kind == KeyKind.DATE and token.type == "NUMBER":
            value = None  # a number is never a date
        elif kind == KeyKind.INT and token.type == "NUMBER" and _INT_TEXT.fullmatch(text) is None:
            value = None
        else:
            value = _CASTS[kind](text)
        if value is None:
            raise InvalidInputException(
                f"Cannot compare partition key {key.name} of type {key.type} with {str(token)} "
                f"at position {token.start_pos}: the value is not a valid {kind}"
            )
        return value

    def like_pattern(self, token: Token) -> re.Pattern[str]:
        if token.type != "STRING":
            raise InvalidInputException(
                f"Invalid partition filter expression {self.expression!r}: LIKE needs a string pattern, "
                f"found {str(token)!r} at position {token.start_pos}"
            )
        pattern = "".join(
            ".*" if ch == "%" else "." if ch == "_" else re.escape(ch) for ch in _unquote(token)
        )
        return re.compile(pattern, re.DOTALL)


class PartitionFilter:
    """A parsed and typed partition filter expression of one table."""

    def __init__(self, expression: str, keys: Sequence[PartitionKey], root: _Node, used: set[int]) -> None:
        self.expression = expression
        self.keys = list(keys)
        self._root = root
        self._casts = [(p, _CASTS[keys[p].kind or KeyKind.STRING]) for p in sorted(used)]

    def matches(self, values: Sequence[str]) -> bool:
        """Whether a partition with ``values`` satisfies the expression (UNKNOWN is no)."""
        if len(values) != len(self.keys):
            return False
        typed: list[Any] = [None] * len(values)
        for position, cast in self._casts:
            typed[position] = cast(values[position])
        return self._root.evaluate(values, typed) is True

    def index_conditions(self, positions: set[int]) -> list[IndexCondition]:
        """The top-level conjuncts on the keys at ``positions`` that an index answers.

        Only ``=``, ``>``, ``>=``, ``<``, ``<=`` and (not negated) ``BETWEEN`` on
        integer, string and date keys qualify; every partition satisfying the
        whole expression satisfies each returned condition.
        """
        conjuncts = self._root.operands if isinstance(self._root, _And) else [self._root]
        found: list[IndexCondition] = []
        for node in conjuncts:
            if isinstance(node, _Comparison) and node.op in ("=", ">", ">=", "<", "<="):
                bounds = [(node.op, node.literal)]
                key = node.key
            elif isinstance(node, _Between) and not node.negated:
                bounds = [(">=", node.low), ("<=", node.high)]
                key = node.key
            else:
                continue
            if key.position not in positions or key.kind not in INDEXABLE_KINDS:
                continue
            for op, literal in bounds:
                stored = literal.isoformat() if isinstance(literal, dt.date) else literal
                found.append(IndexCondition(key.position, key.kind or KeyKind.STRING, op, stored))
        return found


def compile_filter(expression: str, keys: Sequence[tuple[str, str | None]]) -> PartitionFilter | None:
    """Parse and type ``expression`` over partition keys ``[(name, type), ...]``.

    Returns:
        The filter, or None when the expression is blank (every partition matches).

    Raises:
        InvalidInputException: a syntax error (with its position), an unknown key,
            a key type filters do not support, or a literal not castable to its key's type.
    """
    if not expression.strip():
        return None
    partition_keys = [PartitionKey(name, type_ or "string", i) for i, (name, type_) in enumerate(keys)]
    try:
        tree = _parser().parse(expression)
    except UnexpectedInput as exc:
        raise _syntax_error(expression, exc) from None
    builder = _Builder(expression, partition_keys)
    root = builder.build(tree)
    return PartitionFilter(expression, partition_keys, root, builder.used)
