"""Hive type strings: parsing, widening, value inference and the schema similarity crawlers use.

Crawlers combine the schemas of the files under one prefix into one table when the schemas are
similar: AWS documents that a crawler treats schemas as partitions of one table when their
similarity ("partition threshold") reaches 70%, and otherwise creates separate tables. Columns
present in only some files are all kept (evolving schemas), and a column whose type differs
between files gets the wider type (``int`` → ``bigint`` → ``double``; anything mixed with
``string``, or of incompatible kinds, becomes ``string``; structs merge field by field).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

SIMILARITY_THRESHOLD = 0.7

_INTEGERS = ("tinyint", "smallint", "int", "bigint")
_NUMERIC_RANK = {"tinyint": 0, "smallint": 1, "int": 2, "bigint": 3, "float": 4, "double": 5}
INT_MIN, INT_MAX = -(2**31), 2**31 - 1
BIGINT_MIN, BIGINT_MAX = -(2**63), 2**63 - 1


@dataclass
class HiveType:
    """A parsed Hive type: a primitive name (with parameters, e.g. ``decimal(10,2)``), or a
    ``struct``/``array``/``map``/``uniontype`` with its members."""

    name: str
    params: str = ""
    fields: list[tuple[str, HiveType]] = field(default_factory=list)  # struct members
    args: list[HiveType] = field(default_factory=list)  # array element, map key/value, union members

    def __str__(self) -> str:
        if self.name == "struct":
            return "struct<" + ",".join(f"{n}:{t}" for n, t in self.fields) + ">"
        if self.name in ("array", "map", "uniontype"):
            return f"{self.name}<" + ",".join(str(a) for a in self.args) + ">"
        return f"{self.name}({self.params})" if self.params else self.name

    @property
    def is_complex(self) -> bool:
        return self.name in ("struct", "array", "map", "uniontype")


_TOKEN = re.compile(r"\s*([<>(),:]|[^<>(),:\s]+)")


def parse_type(text: str) -> HiveType:
    """Parse a Hive type string such as ``array<struct<a:int,b:map<string,double>>>``.

    Raises:
        ValueError: the string is not a Hive type.
    """
    tokens = [m.group(1) for m in _TOKEN.finditer(text)]
    if "".join(tokens).replace(" ", "") != re.sub(r"\s+", "", text):
        raise ValueError(f"not a Hive type: {text!r}")
    parsed, end = _parse(tokens, 0, text)
    if end != len(tokens):
        raise ValueError(f"not a Hive type: {text!r}")
    return parsed


def _expect(tokens: list[str], pos: int, token: str, text: str) -> int:
    if pos >= len(tokens) or tokens[pos] != token:
        raise ValueError(f"not a Hive type: {text!r} (expected {token!r})")
    return pos + 1


def _parse(tokens: list[str], pos: int, text: str) -> tuple[HiveType, int]:
    if pos >= len(tokens) or tokens[pos] in "<>(),:":
        raise ValueError(f"not a Hive type: {text!r}")
    name = tokens[pos].lower()
    pos += 1
    if name == "struct":
        pos = _expect(tokens, pos, "<", text)
        members: list[tuple[str, HiveType]] = []
        while pos < len(tokens) and tokens[pos] != ">":
            if members:
                pos = _expect(tokens, pos, ",", text)
            member = tokens[pos]
            pos = _expect(tokens, pos + 1, ":", text)
            member_type, pos = _parse(tokens, pos, text)
            members.append((member, member_type))
        return HiveType("struct", fields=members), _expect(tokens, pos, ">", text)
    if name in ("array", "map", "uniontype"):
        pos = _expect(tokens, pos, "<", text)
        args: list[HiveType] = []
        while pos < len(tokens) and tokens[pos] != ">":
            if args:
                pos = _expect(tokens, pos, ",", text)
            arg, pos = _parse(tokens, pos, text)
            args.append(arg)
        expected = {"array": 1, "map": 2}.get(name)
        if (expected and len(args) != expected) or not args:
            raise ValueError(f"not a Hive type: {text!r}")
        return HiveType(name, args=args), _expect(tokens, pos, ">", text)
    if pos < len(tokens) and tokens[pos] == "(":
        close = tokens.index(")", pos)
        return HiveType(name, params="".join(tokens[pos + 1:close])), close + 1
    return HiveType(name), pos


def wider_type(a: str, b: str) -> str:
    """The type both values fit in, as Glue widens a column seen with two types."""
    if a == b:
        return a
    return str(widen(parse_type(a), parse_type(b)))


def widen(a: HiveType, b: HiveType) -> HiveType:
    """The parsed form of :func:`wider_type`."""
    if str(a) == str(b):
        return a
    if a.name == "struct" and b.name == "struct":
        merged: dict[str, HiveType] = {}
        order: list[str] = []
        for name, member in [*a.fields, *b.fields]:
            key = name.lower()
            if key in merged:
                merged[key] = widen(merged[key], member)
            else:
                merged[key] = member
                order.append(name)
        return HiveType("struct", fields=[(name, merged[name.lower()]) for name in order])
    if a.name == b.name == "array":
        return HiveType("array", args=[widen(a.args[0], b.args[0])])
    if a.name == b.name == "map":
        return HiveType("map", args=[widen(a.args[0], b.args[0]), widen(a.args[1], b.args[1])])
    if a.name in _NUMERIC_RANK and b.name in _NUMERIC_RANK:
        if a.name in ("float", "double") or b.name in ("float", "double"):
            return HiveType("double")
        return a if _NUMERIC_RANK[a.name] >= _NUMERIC_RANK[b.name] else b
    if a.name == b.name == "decimal":
        return _wider_decimal(a, b)
    if {a.name, b.name} <= {"decimal", *_INTEGERS, "float", "double"}:
        return HiveType("double")
    if {a.name, b.name} == {"date", "timestamp"}:
        return HiveType("timestamp")
    return HiveType("string")


def _wider_decimal(a: HiveType, b: HiveType) -> HiveType:
    def precision_scale(t: HiveType) -> tuple[int, int]:
        parts = [int(p) for p in t.params.split(",") if p.strip()] if t.params else []
        return (parts + [10, 0])[0], (parts[1:] + [0])[0]

    (pa, sa), (pb, sb) = precision_scale(a), precision_scale(b)
    scale = max(sa, sb)
    precision = min(38, max(pa - sa, pb - sb) + scale)
    return HiveType("decimal", params=f"{precision},{scale}")


def same_kind(a: str, b: str) -> bool:
    """Whether two column types describe the same kind of value (primitive, struct, array, map)."""
    kind_a, kind_b = parse_type(a), parse_type(b)
    if kind_a.is_complex or kind_b.is_complex:
        return kind_a.name == kind_b.name
    return True


def similarity(a: list[tuple[str, str]], b: list[tuple[str, str]]) -> float:
    """How alike two schemas are: matching columns over all distinct columns (0.0 to 1.0).

    A column matches when both schemas have it (names compare case-insensitively, as in the
    catalog) with the same kind of type; primitive types of any kind match, since a crawler
    widens them. Two empty schemas are identical (1.0).
    """
    types_a = {name.lower(): type_ for name, type_ in a}
    types_b = {name.lower(): type_ for name, type_ in b}
    union = set(types_a) | set(types_b)
    if not union:
        return 1.0
    matching = sum(1 for name in set(types_a) & set(types_b) if same_kind(types_a[name], types_b[name]))
    return matching / len(union)


def union_columns(a: list[tuple[str, str]], b: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """All columns of ``a`` then the new ones of ``b``, each with the wider of its types.

    This is the merge Glue applies when it combines schemas (always, under the crawler
    configuration ``TableGroupingPolicy: CombineCompatibleSchemas``).
    """
    merged: dict[str, tuple[str, str]] = {}
    for name, type_ in [*a, *b]:
        key = name.lower()
        if key in merged:
            merged[key] = (merged[key][0], wider_type(merged[key][1], type_))
        else:
            merged[key] = (name, type_)
    return list(merged.values())


def merge_columns(a: list[tuple[str, str]], b: list[tuple[str, str]]) -> list[tuple[str, str]] | None:
    """Merge the schemas of two files of one format into one table schema, if they are similar.

    Mirrors how a crawler groups files into one table: when the schemas' :func:`similarity` is at
    least 70% the columns are united (see :func:`union_columns`); otherwise the schemas are
    incompatible and the files become separate tables.

    Returns:
        The merged columns, or None when the schemas are not similar enough.
    """
    if similarity(a, b) < SIMILARITY_THRESHOLD:
        return None
    return union_columns(a, b)


_INTEGER = re.compile(r"[+-]?\d+")
_DECIMAL = re.compile(r"[+-]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?")
_BOOLEAN = frozenset({"true", "false"})


def infer_value_type(value: str) -> str | None:
    """The Hive type a CSV-style text value parses as: ``bigint``, ``double``, ``boolean`` or
    ``string``; None for an empty value (a null, which says nothing about the column)."""
    if value == "":
        return None
    if _INTEGER.fullmatch(value):
        number = int(value)
        return "bigint" if BIGINT_MIN <= number <= BIGINT_MAX else "string"
    if _DECIMAL.fullmatch(value):
        return "double"
    if value.lower() in _BOOLEAN:
        return "boolean"
    return "string"
