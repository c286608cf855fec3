"""Avro: parsing, a canonical form, and schema resolution of a reader against a writer.

A definition is parsed by fastavro (its message is the refusal) and then by the stricter checks of
the Avro specification that fastavro leaves out and Avro's Java parser (which Glue runs) enforces:
names, duplicate fields and symbols, unions without duplicates or nested unions, a union field's
default matching its first branch.

Compatibility is the specification's "Schema Resolution", as Avro's ``SchemaCompatibility`` checks it:
the reader can read what the writer wrote when, recursively,

- both are the same primitive, or the writer's type promotes to the reader's (int -> long, float,
  double; long -> float, double; float -> double; string <-> bytes);
- both are records with the same unqualified name (or the writer's full name is a reader alias) and
  every reader field is found in the writer (by name or one of the reader field's aliases) with a
  resolvable type, or has a default;
- both are enums with the same name and every writer symbol is a reader symbol, unless the reader has
  an enum default;
- both are fixed with the same name and size; arrays / maps with resolvable items / values;
- the writer is a union: every branch resolves against the reader; the reader is a union (the writer
  is not): some branch of the reader resolves against the writer.

Recursive types are handled by taking a pair being checked as compatible while it is checked.
Logical types do not take part (the specification resolves on the underlying type).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from fastavro import parse_schema
from fastavro.schema import SchemaParseException, UnknownType

from glueball.registry.compat.verdicts import InvalidSchemaDefinition

PRIMITIVES = ("null", "boolean", "int", "long", "float", "double", "bytes", "string")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# writer type -> the reader types it is promoted to (Avro specification, "Schema Resolution")
PROMOTIONS = {
    "int": {"long", "float", "double"},
    "long": {"float", "double"},
    "float": {"double"},
    "string": {"bytes"},
    "bytes": {"string"},
}
_LOGICAL_KEYS = ("logicalType", "precision", "scale")


@dataclass(eq=False)
class AvroField:
    """A record field: its type, its aliases, and its default when it has one."""

    name: str
    type: AvroType
    aliases: tuple[str, ...] = ()
    has_default: bool = False
    default: Any = None


@dataclass(eq=False)
class AvroType:
    """One node of a parsed schema; named types are shared nodes, so recursion is a cycle of nodes."""

    kind: str  # a primitive, 'record', 'enum', 'fixed', 'array', 'map' or 'union'
    name: str = ""  # the full name of a named type
    aliases: tuple[str, ...] = ()
    fields: list[AvroField] = field(default_factory=list)
    symbols: tuple[str, ...] = ()
    enum_default: str | None = None
    size: int = 0
    element: AvroType | None = None  # array items, map values
    branches: list[AvroType] = field(default_factory=list)
    logical: tuple[tuple[str, Any], ...] = ()

    @property
    def short_name(self) -> str:
        return self.name.rpartition(".")[2]

    def describe(self) -> str:
        if self.kind == "union":
            return "[" + ", ".join(branch.describe() for branch in self.branches) + "]"
        return f"{self.kind} {self.name}" if self.name else self.kind


def _refuse(message: str) -> InvalidSchemaDefinition:
    return InvalidSchemaDefinition(f"Invalid Avro schema: {message}")


class _Parser:
    """Builds the node tree of a definition, checking what the specification requires of it."""

    def __init__(self) -> None:
        self.named: dict[str, AvroType] = {}

    def parse(self, schema: Any, namespace: str, where: str) -> AvroType:
        if isinstance(schema, str):
            return AvroType(schema) if schema in PRIMITIVES else self._lookup(schema, namespace, where)
        if isinstance(schema, list):
            return self._union(schema, namespace, where)
        if not isinstance(schema, dict):
            raise _refuse(f"{where}: a schema is a type name, an object or an array, not {json.dumps(schema)}")
        if "type" not in schema:
            raise _refuse(f"{where}: 'type' is missing from {json.dumps(schema)}")
        kind = schema["type"]
        logical = tuple((key, schema[key]) for key in _LOGICAL_KEYS if key in schema)
        if kind in PRIMITIVES:
            return AvroType(kind, logical=logical)
        if kind in ("record", "error"):
            return self._record(schema, namespace, where)
        if kind == "enum":
            return self._enum(schema, namespace, where)
        if kind == "fixed":
            node = self._named(AvroType("fixed", logical=logical), schema, namespace, where)
            size = schema.get("size")
            if not isinstance(size, int) or isinstance(size, bool) or size < 0:
                raise _refuse(f"{where}: fixed {node.name} needs a non-negative integer 'size', not {size!r}")
            node.size = size
            return node
        if kind in ("array", "map"):
            key = "items" if kind == "array" else "values"
            if key not in schema:
                raise _refuse(f"{where}: {kind} needs '{key}'")
            return AvroType(kind, element=self.parse(schema[key], namespace, f"{where}/{key}"), logical=logical)
        # {"type": <a type name, object or union>} wraps another schema
        return self.parse(kind, namespace, where)

    def _lookup(self, name: str, namespace: str, where: str) -> AvroType:
        candidates = [f"{namespace}.{name}", name] if namespace and "." not in name else [name]
        for candidate in candidates:
            if candidate in self.named:
                return self.named[candidate]
        raise _refuse(f"{where}: unknown type {name!r}")

    def _full_name(self, name: Any, namespace: str, where: str) -> tuple[str, str]:
        if not isinstance(name, str) or not name:
            raise _refuse(f"{where}: a named type needs a 'name' string, not {name!r}")
        full = name if "." in name else (f"{namespace}.{name}" if namespace else name)
        for part in full.split("."):
            if not _NAME.match(part):
                raise _refuse(f"{where}: illegal name {full!r} (each part must match [A-Za-z_][A-Za-z0-9_]*)")
        return full, full.rpartition(".")[0]

    def _named(self, node: AvroType, schema: dict[str, Any], namespace: str, where: str) -> AvroType:
        own_namespace = schema.get("namespace", namespace)
        if own_namespace is None:
            own_namespace = ""
        if not isinstance(own_namespace, str):
            raise _refuse(f"{where}: 'namespace' must be a string, not {own_namespace!r}")
        node.name, inner_namespace = self._full_name(schema.get("name"), own_namespace, where)
        if node.name in PRIMITIVES or node.short_name in PRIMITIVES:
            raise _refuse(f"{where}: a named type cannot be called {node.short_name!r}")
        if node.name in self.named:
            raise _refuse(f"{where}: the type {node.name!r} is defined twice")
        aliases = schema.get("aliases", [])
        if not isinstance(aliases, list):
            raise _refuse(f"{where}: 'aliases' must be an array of names")
        node.aliases = tuple(self._full_name(alias, inner_namespace, where)[0] for alias in aliases)
        self.named[node.name] = node
        return node

    def _record(self, schema: dict[str, Any], namespace: str, where: str) -> AvroType:
        node = self._named(AvroType("record"), schema, namespace, where)
        inner_namespace = node.name.rpartition(".")[0]
        fields = schema.get("fields")
        if not isinstance(fields, list):
            raise _refuse(f"{where}: record {node.name} needs a 'fields' array")
        seen: set[str] = set()
        for position, spec in enumerate(fields):
            if not isinstance(spec, dict) or not isinstance(spec.get("name"), str):
                raise _refuse(f"{where}/fields/{position}: a field needs a 'name'")
            name = spec["name"]
            if not _NAME.match(name):
                raise _refuse(f"{where}/fields/{position}: illegal field name {name!r}")
            if name in seen:
                raise _refuse(f"{where}: record {node.name} has two fields named {name!r}")
            seen.add(name)
            if "type" not in spec:
                raise _refuse(f"{where}/fields/{name}: field {name!r} has no 'type'")
            field_type = self.parse(spec["type"], inner_namespace, f"{where}/fields/{name}/type")
            aliases = spec.get("aliases", [])
            if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
                raise _refuse(f"{where}/fields/{name}: 'aliases' must be an array of names")
            order = spec.get("order", "ascending")
            if order not in ("ascending", "descending", "ignore"):
                raise _refuse(f"{where}/fields/{name}: 'order' must be ascending, descending or ignore")
            node.fields.append(AvroField(name, field_type, tuple(aliases), "default" in spec, spec.get("default")))
        return node

    def _enum(self, schema: dict[str, Any], namespace: str, where: str) -> AvroType:
        node = self._named(AvroType("enum"), schema, namespace, where)
        symbols = schema.get("symbols")
        if not isinstance(symbols, list) or not all(isinstance(s, str) for s in symbols):
            raise _refuse(f"{where}: enum {node.name} needs a 'symbols' array of strings")
        for symbol in symbols:
            if not _NAME.match(symbol):
                raise _refuse(f"{where}: enum {node.name} has an illegal symbol {symbol!r}")
        if len(set(symbols)) != len(symbols):
            raise _refuse(f"{where}: enum {node.name} repeats a symbol")
        node.symbols = tuple(symbols)
        default = schema.get("default")
        if default is not None and default not in node.symbols:
            raise _refuse(f"{where}: the default {default!r} of enum {node.name} is not one of its symbols")
        node.enum_default = default
        return node

    def _union(self, schema: list[Any], namespace: str, where: str) -> AvroType:
        node = AvroType("union")
        seen: set[str] = set()
        for position, branch_schema in enumerate(schema):
            branch = self.parse(branch_schema, namespace, f"{where}/{position}")
            if branch.kind == "union":
                raise _refuse(f"{where}: a union may not immediately contain another union")
            key = branch.name or branch.kind
            if key in seen:
                raise _refuse(f"{where}: the union contains {key!r} twice")
            seen.add(key)
            node.branches.append(branch)
        return node


def _matches(value: Any, node: AvroType) -> bool:
    """Whether a default value (JSON) is a value of ``node``; a union's default is one of its first branch."""
    kind = node.kind
    if kind == "null":
        return value is None
    if kind == "boolean":
        return isinstance(value, bool)
    if kind in ("int", "long"):
        return isinstance(value, int) and not isinstance(value, bool)
    if kind in ("float", "double"):
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind in ("bytes", "string", "fixed"):
        return isinstance(value, str)
    if kind == "enum":
        return value in node.symbols
    if kind == "array":
        assert node.element is not None
        return isinstance(value, list) and all(_matches(item, node.element) for item in value)
    if kind == "map":
        assert node.element is not None
        return isinstance(value, dict) and all(_matches(item, node.element) for item in value.values())
    if kind == "record":
        return isinstance(value, dict) and all(
            _matches(value[f.name], f.type) if f.name in value else f.has_default for f in node.fields)
    return bool(node.branches) and _matches(value, node.branches[0])


def _check_defaults(node: AvroType, seen: set[int]) -> None:
    if id(node) in seen:
        return
    seen.add(id(node))
    for f in node.fields:
        if f.has_default and f.type.kind == "union" and not _matches(f.default, f.type):
            raise _refuse(f"the default {json.dumps(f.default)} of field {f.name!r} in {node.name} does not match "
                          f"the first branch of its union ({f.type.branches[0].describe()})")
        _check_defaults(f.type, seen)
    for child in [*node.branches, *([node.element] if node.element else [])]:
        _check_defaults(child, seen)


@lru_cache(maxsize=1024)
def parse(definition: str) -> AvroType:
    """The node tree of a definition; raises :class:`InvalidSchemaDefinition` with the parser's message."""
    try:
        schema = json.loads(definition)
    except ValueError as e:
        raise _refuse(f"not JSON: {e}") from e
    try:
        parse_schema(schema, _write_hint=False, _force=True)
    except UnknownType as e:
        raise _refuse(f"unknown type {e.name!r}") from e
    except SchemaParseException as e:
        raise _refuse(str(e)) from e
    except (KeyError, TypeError, AttributeError, ValueError) as e:
        # fastavro reads attributes without checking them first; our own parse below names what is missing
        _Parser().parse(schema, "", "schema")
        raise _refuse(f"{type(e).__name__}: {e}") from e
    node = _Parser().parse(schema, "", "schema")
    _check_defaults(node, set())
    return node


def validate(definition: str) -> None:
    """Raise :class:`InvalidSchemaDefinition` unless ``definition`` is a valid Avro schema."""
    parse(definition)


def canonical(definition: str) -> str:
    """Avro's Parsing Canonical Form, keeping what changes how data is read.

    As the specification's form: full names, primitives as bare names, attributes in the order
    name, type, fields, symbols, items, values, size; no whitespace; ``doc`` and ``order`` dropped.
    Unlike it, ``default``, ``aliases`` and logical types are kept, since two definitions that differ
    there are different versions for the registry (adding a default is a new version).
    """
    return _canonical(parse(definition), set())


def _canonical(node: AvroType, written: set[str]) -> str:
    dumps = _json
    if node.kind in PRIMITIVES:
        if not node.logical:
            return dumps(node.kind)
        attributes = [f'"type":{dumps(node.kind)}', *(f"{dumps(k)}:{dumps(v)}" for k, v in node.logical)]
        return "{" + ",".join(attributes) + "}"
    if node.kind == "union":
        return "[" + ",".join(_canonical(branch, written) for branch in node.branches) + "]"
    if node.kind in ("array", "map"):
        assert node.element is not None
        key = "items" if node.kind == "array" else "values"
        return "{" + f'"type":"{node.kind}","{key}":{_canonical(node.element, written)}' + "}"
    if node.name in written:
        return dumps(node.name)
    written.add(node.name)
    parts = [f'"name":{dumps(node.name)}', f'"type":"{node.kind}"']
    if node.kind == "record":
        fields = []
        for f in node.fields:
            spec = [f'"name":{dumps(f.name)}', f'"type":{_canonical(f.type, written)}']
            if f.has_default:
                spec.append(f'"default":{dumps(f.default)}')
            if f.aliases:
                spec.append(f'"aliases":{dumps(sorted(f.aliases))}')
            fields.append("{" + ",".join(spec) + "}")
        parts.append('"fields":[' + ",".join(fields) + "]")
    elif node.kind == "enum":
        parts.append(f'"symbols":{dumps(list(node.symbols))}')
        if node.enum_default is not None:
            parts.append(f'"default":{dumps(node.enum_default)}')
    else:
        parts.append(f'"size":{node.size}')
        parts.extend(f"{dumps(k)}:{dumps(v)}" for k, v in node.logical)
    if node.aliases:
        parts.append(f'"aliases":{dumps(sorted(node.aliases))}')
    return "{" + ",".join(parts) + "}"


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class _Resolution:
    """Schema resolution of one reader against one writer, collecting why it fails."""

    def __init__(self) -> None:
        # (reader, writer) -> reasons; None while the pair is being checked (recursion: assumed fine)
        self.memo: dict[tuple[int, int], list[str] | None] = {}

    def resolve(self, reader: AvroType, writer: AvroType, path: str) -> list[str]:
        if reader.kind == writer.kind and reader.kind in PRIMITIVES:
            return []
        key = (id(reader), id(writer))
        if key in self.memo:
            return self.memo[key] or []
        self.memo[key] = None
        reasons = self._resolve(reader, writer, path)
        self.memo[key] = reasons
        return reasons

    def _resolve(self, reader: AvroType, writer: AvroType, path: str) -> list[str]:
        if writer.kind == "union":
            reasons: list[str] = []
            for position, branch in enumerate(writer.branches):
                reasons.extend(self.resolve(reader, branch, f"{path}/{position}"))
            return reasons
        if reader.kind == "union":
            # the branch of the writer's own type first (the usual match), then the others (promotions, aliases)
            same = [b for b in reader.branches if b.kind == writer.kind and b.name == writer.name]
            others = [b for b in reader.branches if not (b.kind == writer.kind and b.name == writer.name)]
            if any(not self.resolve(branch, writer, path) for branch in same + others):
                return []
            return [f"MISSING_UNION_BRANCH at {path or '/'}: the writer's {writer.describe()} matches no branch "
                    f"of the reader's union {reader.describe()}"]
        if reader.kind != writer.kind:
            if reader.kind in PROMOTIONS.get(writer.kind, ()):
                return []
            return [f"TYPE_MISMATCH at {path or '/'}: the reader's {reader.describe()} cannot read the writer's "
                    f"{writer.describe()}"]
        if reader.kind in ("array", "map"):
            assert reader.element is not None and writer.element is not None
            inner = "items" if reader.kind == "array" else "values"
            return self.resolve(reader.element, writer.element, f"{path}/{inner}")
        if reader.kind in PRIMITIVES:
            return []
        if reader.short_name != writer.short_name and writer.name not in reader.aliases:
            return [f"NAME_MISMATCH at {path or '/'}: the reader's {reader.kind} is named {reader.name}, the "
                    f"writer's {writer.name} (and is not one of the reader's aliases)"]
        if reader.kind == "fixed":
            if reader.size != writer.size:
                return [f"FIXED_SIZE_MISMATCH at {path or '/'}: fixed {reader.name} has size {reader.size} in the "
                        f"reader, {writer.size} in the writer"]
            return []
        if reader.kind == "enum":
            missing = [s for s in writer.symbols if s not in reader.symbols]
            if missing and reader.enum_default is None:
                return [f"MISSING_ENUM_SYMBOLS at {path or '/'}: the reader's enum {reader.name} lacks the writer's "
                        f"symbols {missing} and has no default"]
            return []
        return self._record(reader, writer, path)

    def _record(self, reader: AvroType, writer: AvroType, path: str) -> list[str]:
        by_name = {f.name: f for f in writer.fields}
        reasons: list[str] = []
        for reader_field in reader.fields:
            writer_field = by_name.get(reader_field.name)
            for alias in reader_field.aliases:
                writer_field = writer_field or by_name.get(alias)
            if writer_field is None:
                if not reader_field.has_default:
                    reasons.append(f"READER_FIELD_MISSING_DEFAULT_VALUE at {path}/fields/{reader_field.name}: "
                                   f"the reader's field {reader_field.name!r} of {reader.name} is not written by the "
                                   "writer and has no default")
                continue
            reasons.extend(self.resolve(reader_field.type, writer_field.type, f"{path}/fields/{reader_field.name}"))
        return reasons


@lru_cache(maxsize=4096)
def _incompatibilities(writer: str, reader: str) -> tuple[str, ...]:
    return tuple(_Resolution().resolve(parse(reader), parse(writer), ""))


def incompatibilities(writer: str, reader: str) -> list[str]:
    """Why data written with ``writer`` cannot be read with ``reader`` (empty when it can)."""
    return list(_incompatibilities(writer, reader))
