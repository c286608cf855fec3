"""JSON Schema: validation against the meta-schema, a canonical form, and compatibility.

A definition is checked with the ``jsonschema`` library against the meta-schema of its ``$schema``
(Draft-07 when absent; Glue documents Draft-04, -06 and -07, later drafts are accepted too), and
every ``$ref`` in it must resolve (``referencing``; nothing is fetched from the network).

Compatibility follows the rules of Confluent's JSON Schema compatibility (its ``SchemaDiff``), which
the Glue documentation points to: data valid under the writer ("original") must stay valid under the
reader ("update"). Each reason carries the name of Confluent's difference type. In short:

- objects: in an *open* content model (no ``additionalProperties: false`` / schema, no
  ``patternProperties``) a property may be removed, but one can only be added with the empty schema;
  in a *closed* model a property may be added (optional, or required with a ``default``) but not
  removed; a partially open model (``patternProperties`` / an ``additionalProperties`` schema)
  decides by comparing with the schema covering the name. ``required`` may lose names, not gain them
  (unless the property has a ``default``); ``additionalProperties`` may open, not close or narrow;
- types: a changed type is incompatible, except integer -> number (extended);
- ``enum`` / ``const``: every value the writer allowed must be valid for the reader;
- bounds (``maxLength``, ``maximum``, ``maxItems``, ``maxProperties`` ...) may be removed or relaxed,
  not added or tightened; ``pattern`` may be removed, not added or changed; ``multipleOf`` may become
  a divisor of the old one; ``uniqueItems`` may be dropped, not added;
- arrays: ``items`` compared recursively; tuple ``items`` like properties (open / closed by
  ``additionalItems``);
- ``anyOf`` / ``oneOf`` / ``allOf``: a sum type may gain branches, not lose them; a product type may
  lose parts; allOf/oneOf -> anyOf is allowed; the branches are matched one to one (maximum matching).
  A non-combined writer is accepted when one branch of the reader's anyOf/oneOf accepts it;
- ``not``: the reader's excluded set must lie within the writer's;
- ``$ref``s are resolved before comparing (keywords beside a ``$ref`` are not compared, as in Draft-07),
  and a recursive pair is assumed fine while it is compared.

``if``/``then``/``else``, ``contains``, ``propertyNames`` and ``format`` are not compared.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from jsonschema import SchemaError, validators
from referencing import Registry, Resource, Specification
from referencing.exceptions import Unresolvable
from referencing.jsonschema import DRAFT7, specification_with

from glueball.registry.compat.verdicts import InvalidSchemaDefinition

COMBINATORS = ("anyOf", "oneOf", "allOf")
KIND_KEYWORDS = {
    "object": ("properties", "required", "additionalProperties", "patternProperties", "minProperties",
               "maxProperties", "dependencies", "dependentRequired", "dependentSchemas", "propertyNames"),
    "array": ("items", "additionalItems", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains"),
    "string": ("minLength", "maxLength", "pattern", "format"),
    "number": ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"),
}
# keywords whose value is a map of name -> subschema, a list of subschemas, or one subschema
_SCHEMA_MAPS = ("properties", "patternProperties", "definitions", "$defs", "dependentSchemas")
_SCHEMA_LISTS = ("anyOf", "allOf", "oneOf", "prefixItems")
_SCHEMA_ONE = ("not", "additionalProperties", "additionalItems", "contains", "propertyNames", "if", "then", "else",
               "unevaluatedProperties", "unevaluatedItems")


@dataclass(frozen=True)
class ParsedJsonSchema:
    """A valid definition: its document, the validator class of its draft, and where its ``$ref``s resolve."""

    root: Any
    validator_cls: Any
    registry: Registry[Any]
    specification: Specification[Any]


@dataclass(frozen=True)
class SchemaNode:
    """A subschema and the resolver its references resolve with."""

    value: Any
    resolver: Any


def _refuse(message: str) -> InvalidSchemaDefinition:
    return InvalidSchemaDefinition(f"Invalid JSON schema: {message}")


@lru_cache(maxsize=1024)
def parse(definition: str) -> ParsedJsonSchema:
    """Check a definition against its draft's meta-schema and resolve its references."""
    try:
        root = json.loads(definition)
    except ValueError as e:
        raise _refuse(f"not JSON: {e}") from e
    if not isinstance(root, dict | bool):
        raise _refuse(f"a schema is an object or a boolean, not {type(root).__name__}")
    dialect = root.get("$schema") if isinstance(root, dict) else None
    validator_cls = validators.validator_for(root, default=None) if dialect else validators.Draft7Validator
    if validator_cls is None:
        raise _refuse(f"unknown $schema {dialect!r}")
    try:
        validator_cls.check_schema(root)
    except SchemaError as e:
        raise _refuse(f"{e.message} at {e.json_path}") from e
    specification = specification_with(dialect, default=DRAFT7) if dialect else DRAFT7
    resource: Resource[Any] = specification.create_resource(root)
    registry: Registry[Any] = Registry().with_resource("", resource)
    if resource.id():
        registry = registry.with_resource(resource.id() or "", resource)
    parsed = ParsedJsonSchema(root, validator_cls, registry.crawl(), specification)
    _check_references(parsed, SchemaNode(root, parsed.registry.resolver()), "#", set())
    return parsed


def _check_references(parsed: ParsedJsonSchema, node: SchemaNode, path: str, seen: set[int]) -> None:
    if id(node.value) in seen or not isinstance(node.value, dict):
        return
    seen.add(id(node.value))
    node = enter(parsed, node.value, node.resolver)
    if isinstance(node.value.get("$ref"), str):
        try:
            node.resolver.lookup(node.value["$ref"])
        except Unresolvable as e:
            raise _refuse(f"the $ref {node.value['$ref']!r} at {path} does not resolve ({e})") from e
    for _key, child_path, child in _children(node.value, path):
        _check_references(parsed, SchemaNode(child, node.resolver), child_path, seen)


def _children(value: dict[str, Any], path: str) -> list[tuple[str, str, Any]]:
    found: list[tuple[str, str, Any]] = []
    for key in _SCHEMA_MAPS:
        if isinstance(value.get(key), dict):
            found.extend((key, f"{path}/{key}/{name}", sub) for name, sub in value[key].items())
    for key in _SCHEMA_LISTS:
        if isinstance(value.get(key), list):
            found.extend((key, f"{path}/{key}/{i}", sub) for i, sub in enumerate(value[key]))
    for key in _SCHEMA_ONE:
        if key in value:
            found.append((key, f"{path}/{key}", value[key]))
    items = value.get("items")
    if isinstance(items, list):
        found.extend(("items", f"{path}/items/{i}", sub) for i, sub in enumerate(items))
    elif items is not None:
        found.append(("items", f"{path}/items", items))
    if isinstance(value.get("dependencies"), dict):
        found.extend(("dependencies", f"{path}/dependencies/{name}", sub)
                     for name, sub in value["dependencies"].items() if not isinstance(sub, list))
    return found


def enter(parsed: ParsedJsonSchema, value: Any, resolver: Any) -> SchemaNode:
    """A subschema with its own ``$id`` changes the base its references resolve against."""
    if isinstance(value, dict) and ("$id" in value or "id" in value):
        resolver = resolver.in_subresource(parsed.specification.create_resource(value))
    return SchemaNode(value, resolver)


def validate(definition: str) -> None:
    """Raise :class:`InvalidSchemaDefinition` unless ``definition`` is a valid JSON Schema."""
    parse(definition)


def canonical(definition: str) -> str:
    """The document with sorted keys and no whitespace; ``required``, ``enum`` and ``type`` lists sorted."""
    return json.dumps(_normalise(parse(definition).root), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _normalise(value: Any) -> Any:
    if not isinstance(value, dict):
        return value
    result = dict(value)
    for key in _SCHEMA_MAPS:
        if isinstance(value.get(key), dict):
            result[key] = {name: _normalise(sub) for name, sub in value[key].items()}
    for key in (*_SCHEMA_LISTS, "items"):
        if isinstance(value.get(key), list):
            result[key] = [_normalise(sub) for sub in value[key]]
    for key in (*_SCHEMA_ONE, "items"):
        if isinstance(value.get(key), dict):
            result[key] = _normalise(value[key])
    if isinstance(value.get("dependencies"), dict):
        result["dependencies"] = {name: sorted(sub) if isinstance(sub, list) else _normalise(sub)
                                  for name, sub in value["dependencies"].items()}
    if isinstance(value.get("required"), list):
        result["required"] = sorted(value["required"])
    if isinstance(value.get("type"), list):
        result["type"] = sorted(value["type"])
    if isinstance(value.get("enum"), list):
        result["enum"] = sorted(value["enum"], key=lambda v: json.dumps(v, sort_keys=True))
    return result
