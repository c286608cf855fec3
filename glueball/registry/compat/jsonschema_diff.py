"""The comparison of two JSON Schemas behind :mod:`.jsonschema_rules` (the rules are listed there).

``original`` is the schema data was written with, ``update`` the one reading it; every method returns
the reasons ``update`` may refuse data ``original`` accepted, each ``CODE at 'path': explanation``
with ``CODE`` one of Confluent's JSON Schema difference types.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from glueball.registry.compat.jsonschema_rules import (
    COMBINATORS,
    KIND_KEYWORDS,
    ParsedJsonSchema,
    SchemaNode,
    enter,
    parse,
)

_ANNOTATIONS = frozenset({"$schema", "$id", "id", "$comment", "title", "description", "default", "examples",
                          "definitions", "$defs", "readOnly", "writeOnly", "deprecated", "$anchor"})
_MAX_REF_CHAIN = 64


def _reason(code: str, path: str, explanation: str) -> str:
    return f"{code} at '{path}': {explanation}"


def _is_constraint_free(value: Any) -> bool:
    return value is True or (isinstance(value, dict) and not (set(value) - _ANNOTATIONS))


def _kind(value: dict[str, Any]) -> str:
    kind = value.get("type")
    if isinstance(kind, str):
        return kind
    if isinstance(kind, list) and len(kind) == 1:
        return str(kind[0])
    for name, keywords in KIND_KEYWORDS.items():
        if any(keyword in value for keyword in keywords):
            return name
    return "any"


class SchemaDiff:
    """Compares subschemas of one original and one update document."""

    def __init__(self, original: ParsedJsonSchema, update: ParsedJsonSchema) -> None:
        self.original = original
        self.update = update
        self.active: set[tuple[int, int]] = set()

    # -- plumbing ---------------------------------------------------------------------------------------
    def _deref(self, parsed: ParsedJsonSchema, node: SchemaNode) -> SchemaNode:
        for _ in range(_MAX_REF_CHAIN):
            node = enter(parsed, node.value, node.resolver)
            if not (isinstance(node.value, dict) and isinstance(node.value.get("$ref"), str)):
                return node
            resolved = node.resolver.lookup(node.value["$ref"])
            node = SchemaNode(resolved.contents, resolved.resolver)
        return node

    @staticmethod
    def _child(node: SchemaNode, value: Any) -> SchemaNode:
        return SchemaNode(value, node.resolver)

    def _split(self, node: SchemaNode) -> tuple[str, list[SchemaNode]] | None:
        """A combined view of the node: (criterion, subschemas), or None when it is not combined.

        Several combinators, or a combinator beside other constraints, are an allOf of the parts;
        a list of types is an anyOf of one schema per type.
        """
        value = node.value
        if not isinstance(value, dict):
            return None
        combinators = [key for key in COMBINATORS if isinstance(value.get(key), list)]
        rest = {key: v for key, v in value.items() if key not in COMBINATORS and key != "not"}
        parts: list[SchemaNode] = []
        if not _is_constraint_free(rest) and (combinators or "not" in value):
            parts.append(self._child(node, rest))
        if len(combinators) + ("not" in value) + len(parts) > 1:
            parts.extend(self._child(node, {key: value[key]}) for key in combinators)
            if "not" in value:
                parts.append(self._child(node, {"not": value["not"]}))
            return "allOf", parts
        if combinators:
            return combinators[0], [self._child(node, sub) for sub in value[combinators[0]]]
        types = value.get("type")
        if isinstance(types, list) and len(types) > 1 and "enum" not in value and "const" not in value:
            return "anyOf", [self._child(node, {**value, "type": one}) for one in types]
        return None

    def _accepts(self, node: SchemaNode, instance: Any) -> bool:
        # evolve() keeps the root's resolver, so references inside the subschema resolve against the document
        root = self.update.validator_cls(self.update.root, registry=self.update.registry)
        validator = root.evolve(schema=node.value)
        try:
            return bool(validator.is_valid(instance))
        except Exception:  # a reference the validator cannot follow from this subschema: count it as refused
            return False

    # -- the comparison -----------------------------------------------------------------------------------
    def compare(self, original: SchemaNode, update: SchemaNode, path: str) -> list[str]:
        """Why ``update`` may refuse data ``original`` accepts, at ``path``."""
        original = self._deref(self.original, original)
        update = self._deref(self.update, update)
        key = (id(original.value), id(update.value))
        if key in self.active:
            return []
        self.active.add(key)
        try:
            return self._compare(original, update, path)
        finally:
            self.active.discard(key)

    def _compare(self, original: SchemaNode, update: SchemaNode, path: str) -> list[str]:
        o, u = original.value, update.value
        if o is False or _is_constraint_free(u) or _same_leaf(o, u):
            return []
        if u is False:
            return [_reason("TYPE_CHANGED", path, "the update accepts nothing")]
        if isinstance(o, dict) and ("enum" in o or "const" in o):
            return self._values(o, update, path)
        if "enum" in u or "const" in u:
            allowed = u["enum"] if "enum" in u else [u["const"]]
            return [_reason("ENUM_ARRAY_NARROWED", path, f"the update only accepts the values {allowed}")]
        combined = self._combined(original, update, path)
        if combined is not None:
            return combined
        if _is_constraint_free(o):
            return [_reason("TYPE_CHANGED", path, f"the original accepts any value, the update only {_kind(u)}")]
        if "not" in o or "not" in u:
            if "not" in o and "not" in u:
                # the update's excluded set must lie within the original's
                if self.compare(self._child(update, u["not"]), self._child(original, o["not"]), f"{path}/not"):
                    return [_reason("NOT_TYPE_EXTENDED", path, "the update's 'not' excludes values the original "
                                    "accepted")]
                return []
            return [_reason("TYPE_CHANGED", path, "a 'not' schema was added or removed")]
        return self._typed(original, update, path)

    def _values(self, o: dict[str, Any], update: SchemaNode, path: str) -> list[str]:
        values = o["enum"] if "enum" in o else [o["const"]]
        refused = [value for value in values if not self._accepts(update, value)]
        if not refused:
            return []
        u = update.value
        narrowed = isinstance(u, dict) and "enum" in u and all(v in values for v in u["enum"])
        return [_reason("ENUM_ARRAY_NARROWED" if narrowed else "ENUM_ARRAY_CHANGED", path,
                        f"the original allows {refused}, which the update refuses")]

    def _combined(self, original: SchemaNode, update: SchemaNode, path: str) -> list[str] | None:
        split_original, split_update = self._split(original), self._split(update)
        if split_original is None and split_update is None:
            return None
        if split_original is None:
            assert split_update is not None
            criterion, branches = split_update
            if len(branches) == 1:
                return self.compare(original, branches[0], f"{path}/{criterion}/0")
            if criterion == "allOf":
                return [r for i, b in enumerate(branches) for r in self.compare(original, b, f"{path}/allOf/{i}")]
            if any(not self.compare(original, branch, path) for branch in branches):
                return []  # SUM_TYPE_EXTENDED
            return [_reason("TYPE_CHANGED", path, f"no branch of the update's {criterion} accepts the original")]
        if split_update is None:
            criterion, branches = split_original
            if len(branches) == 1:
                return self.compare(branches[0], update, path)
            if criterion == "allOf":
                if any(not self.compare(branch, update, path) for branch in branches):
                    return []
                return [_reason("TYPE_CHANGED", path, "the update accepts no part of the original's allOf")]
            return [r for i, b in enumerate(branches) for r in self.compare(b, update, f"{path}/{criterion}/{i}")]
        return self._both_combined(split_original, split_update, path)

    def _both_combined(self, original: tuple[str, list[SchemaNode]], update: tuple[str, list[SchemaNode]],
                       path: str) -> list[str]:
        (o_criterion, o_branches), (u_criterion, u_branches) = original, update
        reasons: list[str] = []
        if o_criterion != u_criterion:
            extended = (u_criterion == "anyOf"
                        or (u_criterion == "oneOf" and len(o_branches) == 1)
                        or (u_criterion == "allOf" and len(o_branches) == 1 and len(u_branches) == 1))
            if not extended:
                return [_reason("COMBINED_TYPE_CHANGED", path, f"{o_criterion} became {u_criterion}")]
        if len(o_branches) > len(u_branches) and u_criterion != "allOf":
            reasons.append(_reason("SUM_TYPE_NARROWED", path, f"the update's {u_criterion} has fewer branches"))
        if len(o_branches) < len(u_branches) and u_criterion == "allOf":
            reasons.append(_reason("PRODUCT_TYPE_EXTENDED", path, "the update's allOf has more parts"))
        edges = {i: [j for j, u in enumerate(u_branches)
                     if not self.compare(o, u, f"{path}/{o_criterion}/{i}")] for i, o in enumerate(o_branches)}
        if _maximum_matching(edges) < min(len(o_branches), len(u_branches)):
            reasons.append(_reason("COMBINED_TYPE_SUBSCHEMAS_CHANGED", path,
                                   f"the branches of the original's {o_criterion} do not each match a branch "
                                   f"of the update's {u_criterion}"))
        return reasons

    def _typed(self, original: SchemaNode, update: SchemaNode, path: str) -> list[str]:
        o, u = original.value, update.value
        o_kind, u_kind = _kind(o), _kind(u)
        if o_kind != u_kind:
            if (o_kind, u_kind) == ("number", "integer"):
                return [_reason("TYPE_NARROWED", path, "number became integer")]
            if (o_kind, u_kind) != ("integer", "number"):  # integer -> number: TYPE_EXTENDED
                return [_reason("TYPE_CHANGED", path, f"{o_kind} became {u_kind}")]
        if u_kind == "string":
            return self._string(o, u, path)
        if u_kind in ("number", "integer"):
            return self._number(o, u, path)
        if u_kind == "object":
            return self._object(original, update, path)
        if u_kind == "array":
            return self._array(original, update, path)
        return []

    # -- objects and arrays ---------------------------------------------------------------------------------
    def _object(self, original: SchemaNode, update: SchemaNode, path: str) -> list[str]:
        o, u = original.value, update.value
        o_props, u_props = o.get("properties", {}), u.get("properties", {})
        o_required, u_required = set(o.get("required", [])), set(u.get("required", []))
        reasons: list[str] = []
        for name in sorted(u_required - o_required):
            if name not in u_props or (name in o_props and not _has_default(u_props[name])):
                reasons.append(_reason("REQUIRED_ATTRIBUTE_ADDED", f"{path}/required/{name}",
                                       f"the update requires {name!r}, which the original did not"))
        for name in sorted(set(o_props) | set(u_props)):
            where = f"{path}/properties/{name}"
            if name not in u_props:
                reasons += self._property_removed(original, update, name, where)
            elif name not in o_props:
                reasons += self._property_added(original, update, name, where)
            else:
                reasons += self.compare(self._child(original, o_props[name]), self._child(update, u_props[name]), where)
        o_rest, u_rest = o.get("additionalProperties", True), u.get("additionalProperties", True)
        reasons += self._rest(original, update, o_rest, u_rest, "ADDITIONAL_PROPERTIES", f"{path}/additionalProperties")
        reasons += _limits(o, u, path, ("maxProperties", True), ("minProperties", False))
        return reasons + self._dependencies(original, update, path)

    def _property_removed(self, original: SchemaNode, update: SchemaNode, name: str, where: str) -> list[str]:
        removed = original.value["properties"][name]
        if _is_open(update.value):
            return []  # PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL
        covering = _covering(update, name)
        if covering is not None:
            sub = self.compare(self._child(original, removed), covering, where)
            return sub + [_reason("PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", where,
                                  f"values of {name!r} the original accepted are refused by the schema covering it")
                          ] if sub else []
        if removed is False:
            return []  # PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL
        return [_reason("PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL", where,
                        f"the update's closed content model no longer allows {name!r}")]

    def _property_added(self, original: SchemaNode, update: SchemaNode, name: str, where: str) -> list[str]:
        added = update.value["properties"][name]
        required = name in update.value.get("required", []) and not _has_default(added)
        if _is_open(original.value):
            if not _is_constraint_free(added):
                return [_reason("PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL", where, f"the original's open content model "
                                f"accepted any value under {name!r}; the update constrains it")]
            if required:
                return [_reason("REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL", where,
                                f"the update requires {name!r} without a default")]
            return []  # PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL
        reasons: list[str] = []
        covering = _covering(original, name)
        if covering is not None:
            sub = self.compare(covering, self._child(update, added), where)
            if sub:
                reasons += [*sub, _reason("PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", where,
                                          f"values of {name!r} the original accepted are refused by the update")]
        if required:
            reasons.append(_reason("REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL", where,
                                   f"the update requires the new property {name!r} without a default"))
        return reasons

    def _rest(self, original: SchemaNode, update: SchemaNode, o_rest: Any, u_rest: Any, code: str,
              path: str) -> list[str]:
        """``additionalProperties`` / the items past a tuple: may open or widen, not close or narrow."""
        if o_rest is False or _is_constraint_free(u_rest):
            return []  # ADDED / EXTENDED
        if u_rest is False:
            return [_reason(f"{code}_REMOVED", path, "the update no longer allows what the original left open")]
        if _is_constraint_free(o_rest):
            return [_reason(f"{code}_NARROWED", path, "the update constrains what the original left open")]
        return self.compare(self._child(original, o_rest), self._child(update, u_rest), path)

    def _dependencies(self, original: SchemaNode, update: SchemaNode, path: str) -> list[str]:
        o_deps, u_deps = _dependencies(original.value), _dependencies(update.value)
        reasons: list[str] = []
        for name, u_dep in sorted(u_deps.items()):
            o_dep = o_deps.get(name)
            where = f"{path}/dependencies/{name}"
            if isinstance(u_dep, list):
                if o_dep is None:
                    reasons.append(_reason("DEPENDENCY_ARRAY_ADDED", where, f"{name!r} now requires {u_dep}"))
                elif not isinstance(o_dep, list) or not set(u_dep) <= set(o_dep):
                    code = ("DEPENDENCY_ARRAY_EXTENDED" if isinstance(o_dep, list) and set(o_dep) <= set(u_dep)
                            else "DEPENDENCY_ARRAY_CHANGED")
                    reasons.append(_reason(code, where, f"{name!r} now requires {u_dep}"))
            elif o_dep is None or isinstance(o_dep, list):
                reasons.append(_reason("DEPENDENCY_SCHEMA_ADDED", where, f"{name!r} now brings a schema to satisfy"))
            else:
                reasons += self.compare(self._child(original, o_dep), self._child(update, u_dep), where)
        return reasons

    def _array(self, original: SchemaNode, update: SchemaNode, path: str) -> list[str]:
        o, u = original.value, update.value
        (o_tuple, o_rest), (u_tuple, u_rest) = _items(o), _items(u)
        reasons: list[str] = []
        for i in range(max(len(o_tuple), len(u_tuple))):
            where = f"{path}/items/{i}"
            if i < len(o_tuple) and i < len(u_tuple):
                reasons += self.compare(self._child(original, o_tuple[i]), self._child(update, u_tuple[i]), where)
            elif i < len(o_tuple):  # the update's tuple is shorter: its rest covers this position
                if _is_constraint_free(u_rest) or o_tuple[i] is False:
                    continue
                if u_rest is False:
                    reasons.append(_reason("ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL", where,
                                           "the update's closed tuple no longer allows this item"))
                elif self.compare(self._child(original, o_tuple[i]), self._child(update, u_rest), where):
                    reasons.append(_reason("ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", where,
                                           "the update's additional items refuse this item"))
            elif _is_constraint_free(o_rest):
                if not _is_constraint_free(u_tuple[i]):
                    reasons.append(_reason("ITEM_ADDED_TO_OPEN_CONTENT_MODEL", where,
                                           "the original's open tuple accepted any item here"))
            elif o_rest is not False and self.compare(self._child(original, o_rest), self._child(update, u_tuple[i]),
                                                      where):
                reasons.append(_reason("ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", where,
                                       "items the original accepted here are refused by the update"))
        rest_path = f"{path}/{'additionalItems' if o_tuple or u_tuple else 'items'}"
        reasons += self._rest(original, update, o_rest, u_rest, "ADDITIONAL_ITEMS" if o_tuple or u_tuple else "ITEMS",
                              rest_path)
        reasons += _limits(o, u, path, ("maxItems", True), ("minItems", False))
        if u.get("uniqueItems") is True and o.get("uniqueItems") is not True:
            reasons.append(_reason("UNIQUE_ITEMS_ADDED", f"{path}/uniqueItems", "the update requires unique items"))
        return reasons

    @staticmethod
    def _string(o: dict[str, Any], u: dict[str, Any], path: str) -> list[str]:
        reasons = _limits(o, u, path, ("maxLength", True), ("minLength", False))
        if "pattern" in u and "pattern" not in o:
            reasons.append(_reason("PATTERN_ADDED", f"{path}/pattern", f"the update requires {u['pattern']!r}"))
        elif "pattern" in u and o["pattern"] != u["pattern"]:
            reasons.append(_reason("PATTERN_CHANGED", f"{path}/pattern", f"{o['pattern']!r} became {u['pattern']!r}"))
        return reasons

    @staticmethod
    def _number(o: dict[str, Any], u: dict[str, Any], path: str) -> list[str]:
        reasons: list[str] = []
        for bound, upper in (("maximum", True), ("exclusiveMaximum", True), ("minimum", False),
                             ("exclusiveMinimum", False)):
            reasons += _limit(_bound(o, bound), _bound(u, bound), bound, f"{path}/{bound}", upper)
        o_multiple, u_multiple = o.get("multipleOf"), u.get("multipleOf")
        if u_multiple is not None:
            if o_multiple is None:
                reasons.append(_reason("MULTIPLE_OF_ADDED", f"{path}/multipleOf", f"the update requires multiples "
                                       f"of {u_multiple}"))
            elif o_multiple != u_multiple and not _divides(u_multiple, o_multiple):
                code = "MULTIPLE_OF_EXPANDED" if _divides(o_multiple, u_multiple) else "MULTIPLE_OF_CHANGED"
                reasons.append(_reason(code, f"{path}/multipleOf", f"{o_multiple} became {u_multiple}"))
        return reasons


def _same_leaf(o: Any, u: Any) -> bool:
    """Equal schemas without subschemas, lists or references accept the same documents."""
    return (isinstance(o, dict) and o == u and "$ref" not in o
            and not any(isinstance(value, dict | list) for value in o.values()))


def _has_default(schema: Any) -> bool:
    return isinstance(schema, dict) and "default" in schema


def _is_open(value: dict[str, Any]) -> bool:
    """An open content model: any property name may appear with any value."""
    return not value.get("patternProperties") and _is_constraint_free(value.get("additionalProperties", True))


def _covering(node: SchemaNode, name: str) -> SchemaNode | None:
    """The schema of a partially open content model that covers the property ``name``, if any."""
    for pattern, schema in node.value.get("patternProperties", {}).items():
        if re.search(pattern, name):
            return SchemaNode(schema, node.resolver)
    rest = node.value.get("additionalProperties", True)
    return None if isinstance(rest, bool) or _is_constraint_free(rest) else SchemaNode(rest, node.resolver)


def _dependencies(value: dict[str, Any]) -> dict[str, Any]:
    found = dict(value.get("dependencies", {}))
    found.update(value.get("dependentRequired", {}))
    found.update(value.get("dependentSchemas", {}))
    return found


def _items(value: dict[str, Any]) -> tuple[list[Any], Any]:
    """(the tuple's item schemas, the schema of every further item): ``prefixItems``/``items`` in 2020-12,
    ``items`` (list)/``additionalItems`` before, or a single ``items`` schema for all."""
    if isinstance(value.get("prefixItems"), list):
        return value["prefixItems"], value.get("items", True)
    if isinstance(value.get("items"), list):
        return value["items"], value.get("additionalItems", True)
    return [], value.get("items", True)


def _code(keyword: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", keyword).upper()


def _bound(value: dict[str, Any], keyword: str) -> Any:
    """A numeric bound; Draft-04's ``exclusiveMaximum: true`` makes ``maximum`` the exclusive bound."""
    inclusive_key = keyword.removeprefix("exclusive").lower()
    exclusive_key = "exclusive" + inclusive_key.capitalize()
    draft4_exclusive = value.get(exclusive_key) is True
    if keyword == inclusive_key:
        return None if draft4_exclusive else value.get(inclusive_key)
    bound = value.get(exclusive_key)
    if isinstance(bound, bool):
        return value.get(inclusive_key) if bound else None
    return bound


def _limits(o: dict[str, Any], u: dict[str, Any], path: str, *bounds: tuple[str, bool]) -> list[str]:
    return [r for keyword, upper in bounds for r in _limit(o.get(keyword), u.get(keyword), keyword, f"{path}/{keyword}",
                                                           upper)]


def _limit(original: Any, update: Any, keyword: str, path: str, upper: bool) -> list[str]:
    """A bound may be removed or relaxed, not added or tightened (``upper``: a maximum, else a minimum)."""
    if update is None:
        return []
    if original is None:
        return [_reason(f"{_code(keyword)}_ADDED", path, f"the update adds the bound {update}")]
    if (update < original) if upper else (update > original):
        return [_reason(f"{_code(keyword)}_{'DECREASED' if upper else 'INCREASED'}", path,
                        f"{original} became {update}")]
    return []


def _divides(divisor: float, value: float) -> bool:
    quotient = value / divisor
    return abs(quotient - round(quotient)) < 1e-9


def _maximum_matching(edges: dict[int, list[int]]) -> int:
    """The size of a maximum matching of a bipartite graph (augmenting paths)."""
    matched: dict[int, int] = {}

    def augment(left: int, seen: set[int]) -> bool:
        for right in edges[left]:
            if right in seen:
                continue
            seen.add(right)
            if right not in matched or augment(matched[right], seen):
                matched[right] = left
                return True
        return False

    return sum(augment(left, set()) for left in edges)


@lru_cache(maxsize=4096)
def _incompatibilities(writer: str, reader: str) -> tuple[str, ...]:
    original, update = parse(writer), parse(reader)
    return tuple(SchemaDiff(original, update).compare(
        SchemaNode(original.root, original.registry.resolver()), SchemaNode(update.root, update.registry.resolver()),
        "#"))


def incompatibilities(writer: str, reader: str) -> list[str]:
    """Why data valid under ``writer`` may be invalid under ``reader`` (empty when it may not)."""
    return list(_incompatibilities(writer, reader))
