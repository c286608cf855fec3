"""JSON Schema compatibility, written from the rules of Confluent's JSON Schema compatibility (the
difference types its documentation lists, each named in a case's id) and JSON Schema's semantics.

BACKWARD: the new schema (update) must accept every document the latest (original) accepted;
FORWARD: the reverse; FULL: both; ``_ALL``: against every earlier version.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from glueball.registry.compat import InvalidSchemaDefinition, canonical, check, validate

DRAFT4 = "http://json-schema.org/draft-04/schema#"
DRAFT7 = "http://json-schema.org/draft-07/schema#"
CLOSED: dict[str, Any] = {"additionalProperties": False}


def obj(properties: dict[str, Any], required: list[str] | None = None, **extra: Any) -> str:
    schema: dict[str, Any] = {"$schema": DRAFT7, "type": "object", "properties": properties, **extra}
    if required:
        schema["required"] = required
    return json.dumps(schema)


def prop(schema: dict[str, Any] | bool) -> str:
    """An object with one property ``p`` of ``schema``: to compare two property schemas."""
    return obj({"p": schema}, **CLOSED)


def raw(schema: Any) -> str:
    return json.dumps(schema)


STR = {"type": "string"}
INT = {"type": "integer"}

# (mode, earlier definitions oldest first, new definition, compatible, a difference type the reasons must name)
CASES = [
    # -- content models --------------------------------------------------------------------------------------
    pytest.param("BACKWARD", [obj({"a": STR})], obj({"a": STR, "b": INT}), False,
                 "PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL", id="open-model-property-added"),
    pytest.param("BACKWARD", [obj({"a": STR})], obj({"a": STR, "b": {}}), True, None,
                 id="open-model-property-with-empty-schema-added"),
    pytest.param("BACKWARD", [obj({"a": STR, "b": INT})], obj({"a": STR}), True, None,
                 id="open-model-property-removed"),
    pytest.param("BACKWARD", [obj({"a": STR}, **CLOSED)], obj({"a": STR, "b": INT}, **CLOSED), True, None,
                 id="closed-model-optional-property-added"),
    pytest.param("BACKWARD", [obj({"a": STR}, **CLOSED)], obj({"a": STR, "b": INT}, ["b"], **CLOSED), False,
                 "REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL", id="closed-model-required-property-added"),
    pytest.param("BACKWARD", [obj({"a": STR}, **CLOSED)], obj({"a": STR, "b": dict(INT, default=0)}, ["b"], **CLOSED),
                 True, None, id="closed-model-required-property-with-default-added"),
    pytest.param("BACKWARD", [obj({"a": STR, "b": INT}, **CLOSED)], obj({"a": STR}, **CLOSED), False,
                 "PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL", id="closed-model-property-removed"),
    pytest.param("BACKWARD", [obj({"a": STR, "b": False}, **CLOSED)], obj({"a": STR}, **CLOSED), True, None,
                 id="closed-model-property-with-false-removed"),
    pytest.param("BACKWARD", [obj({"x_a": STR}, patternProperties={"^x_": STR})],
                 obj({}, patternProperties={"^x_": STR}), True, None,
                 id="partially-open-property-removed-is-covered"),
    pytest.param("BACKWARD", [obj({"x_a": INT}, patternProperties={"^x_": STR})],
                 obj({}, patternProperties={"^x_": STR}), False,
                 "PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL",
                 id="partially-open-property-removed-not-covered"),
    pytest.param("BACKWARD", [obj({"a": STR}, additionalProperties=STR)], obj({"a": STR, "b": STR},
                 additionalProperties=STR), True, None, id="partially-open-property-added-is-covered"),
    pytest.param("BACKWARD", [obj({"a": STR}, additionalProperties=STR)], obj({"a": STR, "b": INT},
                 additionalProperties=STR), False, "PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL",
                 id="partially-open-property-added-not-covered"),
    # -- required --------------------------------------------------------------------------------------------
    pytest.param("BACKWARD", [obj({"a": STR}, ["a"])], obj({"a": STR}), True, None, id="required-attribute-removed"),
    pytest.param("BACKWARD", [obj({"a": STR})], obj({"a": STR}, ["a"]), False, "REQUIRED_ATTRIBUTE_ADDED",
                 id="required-attribute-added"),
    pytest.param("BACKWARD", [obj({"a": STR})], obj({"a": dict(STR, default="")}, ["a"]), True, None,
                 id="required-attribute-with-default-added"),
    pytest.param("FORWARD", [obj({"a": STR}, ["a"])], obj({"a": STR}), False, "REQUIRED_ATTRIBUTE_ADDED",
                 id="forward-required-attribute-removed"),
    # -- additionalProperties --------------------------------------------------------------------------------
    pytest.param("BACKWARD", [obj({"a": STR}, **CLOSED)], obj({"a": STR}), True, None,
                 id="additional-properties-added"),
    pytest.param("BACKWARD", [obj({"a": STR})], obj({"a": STR}, **CLOSED), False, "ADDITIONAL_PROPERTIES_REMOVED",
                 id="additional-properties-removed"),
    pytest.param("BACKWARD", [obj({"a": STR})], obj({"a": STR}, additionalProperties=STR), False,
                 "ADDITIONAL_PROPERTIES_NARROWED", id="additional-properties-narrowed"),
    pytest.param("BACKWARD", [obj({"a": STR}, additionalProperties=STR)], obj({"a": STR}), True, None,
                 id="additional-properties-extended"),
    pytest.param("BACKWARD", [obj({"a": STR})], obj({"a": STR}, maxProperties=3), False, "MAX_PROPERTIES_ADDED",
                 id="max-properties-added"),
    pytest.param("BACKWARD", [obj({"a": STR}, minProperties=2)], obj({"a": STR}, minProperties=1), True, None,
                 id="min-properties-decreased"),
    pytest.param("BACKWARD", [obj({"a": STR, "b": STR})], obj({"a": STR, "b": STR}, dependencies={"a": ["b"]}),
                 False, "DEPENDENCY_ARRAY_ADDED", id="dependency-array-added"),
    pytest.param("BACKWARD", [obj({"a": STR, "b": STR}, dependencies={"a": ["b"]})], obj({"a": STR, "b": STR}),
                 True, None, id="dependency-array-removed"),
    # -- types -----------------------------------------------------------------------------------------------
    pytest.param("BACKWARD", [prop(INT)], prop({"type": "number"}), True, None, id="type-extended-integer-to-number"),
    pytest.param("FORWARD", [prop(INT)], prop({"type": "number"}), False, "TYPE_NARROWED",
                 id="forward-type-narrowed-number-to-integer"),
    pytest.param("BACKWARD", [prop(STR)], prop(INT), False, "TYPE_CHANGED", id="type-changed"),
    pytest.param("BACKWARD", [prop(STR)], prop({"type": ["string", "null"]}), True, None,
                 id="type-list-gains-null-sum-type-extended"),
    pytest.param("FULL", [prop(STR)], prop({"type": ["string", "null"]}), False, "TYPE_CHANGED",
                 id="full-type-list-gains-null"),
    pytest.param("BACKWARD", [prop({"type": ["string", "null"]})], prop(STR), False, "TYPE_CHANGED",
                 id="type-list-loses-null"),
    pytest.param("BACKWARD", [prop({})], prop(STR), False, "TYPE_CHANGED", id="empty-schema-becomes-typed"),
    pytest.param("BACKWARD", [prop(STR)], prop({}), True, None, id="typed-becomes-empty-schema"),
    pytest.param("BACKWARD", [prop(STR)], prop(True), True, None, id="typed-becomes-true-schema"),
    # -- enums -----------------------------------------------------------------------------------------------
    pytest.param("BACKWARD", [prop({"enum": ["a", "b"]})], prop({"enum": ["a", "b", "c"]}), True, None,
                 id="enum-array-extended"),
    pytest.param("BACKWARD", [prop({"enum": ["a", "b", "c"]})], prop({"enum": ["a", "b"]}), False,
                 "ENUM_ARRAY_NARROWED", id="enum-array-narrowed"),
    pytest.param("BACKWARD", [prop({"enum": ["a", "b"]})], prop({"enum": ["a", "c"]}), False, "ENUM_ARRAY_CHANGED",
                 id="enum-array-changed"),
    pytest.param("BACKWARD", [prop({"const": "a"})], prop({"enum": ["a", "b"]}), True, None,
                 id="const-becomes-enum-containing-it"),
    pytest.param("BACKWARD", [prop(STR)], prop(dict(STR, enum=["a"])), False, "ENUM_ARRAY_NARROWED",
                 id="enum-added-to-string"),
    pytest.param("BACKWARD", [prop(dict(STR, enum=["a", "b"]))], prop(STR), True, None, id="enum-removed"),
    pytest.param("FULL", [prop({"enum": ["a", "b"]})], prop({"enum": ["a", "b", "c"]}), False,
                 "FORWARD (earlier definition 1 of 1 reads data of new): ENUM_ARRAY_NARROWED", id="full-enum-extended"),
    # -- string and number constraints ----------------------------------------------------------------------
    pytest.param("BACKWARD", [prop(dict(STR, maxLength=5))], prop(dict(STR, maxLength=10)), True, None,
                 id="max-length-increased"),
    pytest.param("BACKWARD", [prop(dict(STR, maxLength=10))], prop(dict(STR, maxLength=5)), False,
                 "MAX_LENGTH_DECREASED", id="max-length-decreased"),
    pytest.param("BACKWARD", [prop(STR)], prop(dict(STR, maxLength=5)), False, "MAX_LENGTH_ADDED",
                 id="max-length-added"),
    pytest.param("BACKWARD", [prop(dict(STR, maxLength=5))], prop(STR), True, None, id="max-length-removed"),
    pytest.param("BACKWARD", [prop(dict(STR, minLength=1))], prop(dict(STR, minLength=2)), False,
                 "MIN_LENGTH_INCREASED", id="min-length-increased"),
    pytest.param("BACKWARD", [prop(STR)], prop(dict(STR, pattern="^[a-z]+$")), False, "PATTERN_ADDED",
                 id="pattern-added"),
    pytest.param("BACKWARD", [prop(dict(STR, pattern="^[a-z]+$"))], prop(STR), True, None, id="pattern-removed"),
    pytest.param("BACKWARD", [prop(dict(STR, pattern="^[a-z]+$"))], prop(dict(STR, pattern="^[a-z0-9]+$")), False,
                 "PATTERN_CHANGED", id="pattern-changed"),
    pytest.param("BACKWARD", [prop(dict(INT, maximum=100))], prop(dict(INT, maximum=50)), False, "MAXIMUM_DECREASED",
                 id="maximum-decreased"),
    pytest.param("BACKWARD", [prop(dict(INT, maximum=50))], prop(dict(INT, maximum=100)), True, None,
                 id="maximum-increased"),
    pytest.param("BACKWARD", [prop(dict(INT, minimum=0))], prop(dict(INT, minimum=1)), False, "MINIMUM_INCREASED",
                 id="minimum-increased"),
    pytest.param("BACKWARD", [prop(INT)], prop(dict(INT, exclusiveMinimum=0)), False, "EXCLUSIVE_MINIMUM_ADDED",
                 id="exclusive-minimum-added"),
    pytest.param("BACKWARD", [prop(dict(INT, multipleOf=10))], prop(dict(INT, multipleOf=5)), True, None,
                 id="multiple-of-reduced"),
    pytest.param("BACKWARD", [prop(dict(INT, multipleOf=5))], prop(dict(INT, multipleOf=10)), False,
                 "MULTIPLE_OF_EXPANDED", id="multiple-of-expanded"),
    pytest.param("BACKWARD", [prop(dict(INT, multipleOf=4))], prop(dict(INT, multipleOf=6)), False,
                 "MULTIPLE_OF_CHANGED", id="multiple-of-changed"),
    pytest.param("BACKWARD", [raw({"$schema": DRAFT4, "type": "number", "maximum": 10})],
                 raw({"$schema": DRAFT4, "type": "number", "maximum": 10, "exclusiveMaximum": True}), False,
                 "EXCLUSIVE_MAXIMUM_ADDED", id="draft4-boolean-exclusive-maximum-added"),
    # -- arrays ----------------------------------------------------------------------------------------------
    pytest.param("BACKWARD", [prop({"type": "array", "items": STR})], prop({"type": "array", "items": INT}), False,
                 "TYPE_CHANGED at '#/properties/p/items'", id="array-items-type-changed"),
    pytest.param("BACKWARD", [prop({"type": "array", "items": INT})],
                 prop({"type": "array", "items": {"type": "number"}}), True, None, id="array-items-type-extended"),
    pytest.param("BACKWARD", [prop({"type": "array"})], prop({"type": "array", "maxItems": 3}), False,
                 "MAX_ITEMS_ADDED", id="max-items-added"),
    pytest.param("BACKWARD", [prop({"type": "array", "minItems": 2})], prop({"type": "array", "minItems": 1}), True,
                 None, id="min-items-decreased"),
    pytest.param("BACKWARD", [prop({"type": "array"})], prop({"type": "array", "uniqueItems": True}), False,
                 "UNIQUE_ITEMS_ADDED", id="unique-items-added"),
    pytest.param("BACKWARD", [prop({"type": "array", "uniqueItems": True})], prop({"type": "array"}), True, None,
                 id="unique-items-removed"),
    pytest.param("BACKWARD", [prop({"type": "array", "items": [STR], "additionalItems": False})],
                 prop({"type": "array", "items": [STR, INT], "additionalItems": False}), True, None,
                 id="item-added-to-closed-content-model"),
    pytest.param("BACKWARD", [prop({"type": "array", "items": [STR]})], prop({"type": "array", "items": [STR, INT]}),
                 False, "ITEM_ADDED_TO_OPEN_CONTENT_MODEL", id="item-added-to-open-content-model"),
    pytest.param("BACKWARD", [prop({"type": "array", "items": [STR, INT]})], prop({"type": "array", "items": [STR]}),
                 True, None, id="item-removed-from-open-content-model"),
    pytest.param("BACKWARD", [prop({"type": "array", "items": [STR, INT], "additionalItems": False})],
                 prop({"type": "array", "items": [STR], "additionalItems": False}), False,
                 "ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL", id="item-removed-from-closed-content-model"),
    # -- references ------------------------------------------------------------------------------------------
    pytest.param("BACKWARD", [obj({"a": {"$ref": "#/definitions/code"}}, definitions={"code": STR}, **CLOSED)],
                 obj({"a": {"$ref": "#/definitions/code"}}, definitions={"code": INT}, **CLOSED), False,
                 "TYPE_CHANGED at '#/properties/a'", id="ref-target-type-changed"),
    pytest.param("FULL", [obj({"a": {"$ref": "#/definitions/code"}}, definitions={"code": STR}, **CLOSED)],
                 obj({"a": STR}, **CLOSED), True, None, id="ref-replaced-by-its-target"),
    pytest.param("FULL", [obj({"v": INT, "kids": {"type": "array", "items": {"$ref": "#"}}}, **CLOSED)],
                 obj({"v": INT, "kids": {"type": "array", "items": {"$ref": "#"}}, "tag": STR}, **CLOSED), False,
                 "PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL", id="recursive-ref-full-check-terminates"),
    pytest.param("BACKWARD", [obj({"v": INT, "kids": {"type": "array", "items": {"$ref": "#"}}}, **CLOSED)],
                 obj({"v": INT, "kids": {"type": "array", "items": {"$ref": "#"}}, "tag": STR}, **CLOSED), True, None,
                 id="recursive-ref-optional-property-added-to-closed"),
    pytest.param("BACKWARD", [prop({"enum": ["a"]})],
                 obj({"p": {"anyOf": [{"$ref": "#/definitions/code"}]}}, definitions={"code": {"enum": ["a", "b"]}},
                     **CLOSED), True, None, id="enum-values-checked-through-a-nested-ref"),
    # -- combined schemas ------------------------------------------------------------------------------------
    pytest.param("BACKWARD", [prop({"oneOf": [STR, INT]})], prop({"oneOf": [STR, INT, {"type": "boolean"}]}), True,
                 None, id="sum-type-extended"),
    pytest.param("BACKWARD", [prop({"oneOf": [STR, INT, {"type": "boolean"}]})], prop({"oneOf": [STR, INT]}), False,
                 "SUM_TYPE_NARROWED", id="sum-type-narrowed"),
    pytest.param("BACKWARD", [prop({"oneOf": [STR, INT]})], prop({"anyOf": [STR, INT]}), True, None,
                 id="combined-type-extended-oneof-to-anyof"),
    pytest.param("BACKWARD", [prop({"anyOf": [STR, INT]})], prop({"oneOf": [STR, INT]}), False,
                 "COMBINED_TYPE_CHANGED", id="combined-type-changed-anyof-to-oneof"),
    pytest.param("BACKWARD", [prop({"allOf": [STR, {"maxLength": 5}]})], prop({"allOf": [STR]}), True, None,
                 id="product-type-narrowed"),
    pytest.param("BACKWARD", [prop({"allOf": [STR]})], prop({"allOf": [STR, {"maxLength": 5}]}), False,
                 "PRODUCT_TYPE_EXTENDED", id="product-type-extended"),
    pytest.param("BACKWARD", [prop(STR)], prop({"anyOf": [STR, INT]}), True, None, id="type-becomes-union-with-it"),
    pytest.param("BACKWARD", [prop({"anyOf": [STR, INT]})], prop({"anyOf": [STR, {"type": "boolean"}]}), False,
                 "COMBINED_TYPE_SUBSCHEMAS_CHANGED", id="combined-subschemas-changed"),
    pytest.param("BACKWARD", [prop({"not": STR})], prop({"not": {"type": ["string", "integer"]}}), False,
                 "NOT_TYPE_EXTENDED", id="not-type-extended"),
    pytest.param("BACKWARD", [prop({"not": {"type": ["string", "integer"]}})], prop({"not": STR}), True, None,
                 id="not-type-narrowed"),
    # -- the modes -------------------------------------------------------------------------------------------
    pytest.param("BACKWARD", [prop(INT), prop(STR)], prop(STR), True, None, id="backward-checks-latest-only"),
    pytest.param("BACKWARD_ALL", [prop(INT), prop(STR)], prop(STR), False, "earlier definition 1 of 2",
                 id="backward-all-checks-every-version"),
    pytest.param("FORWARD", [prop(INT), prop(STR)], prop(STR), True, None, id="forward-checks-latest-only"),
    pytest.param("FORWARD_ALL", [prop(INT), prop(STR)], prop(STR), False, "FORWARD (earlier definition 1 of 2",
                 id="forward-all-checks-every-version"),
    pytest.param("FULL", [prop(INT), prop(STR)], prop(STR), True, None, id="full-checks-latest-only"),
    pytest.param("FULL_ALL", [prop(INT), prop(STR)], prop(STR), False, "earlier definition 1 of 2",
                 id="full-all-checks-every-version"),
    pytest.param("NONE", [prop(INT)], raw({"type": "array"}), True, None, id="none-accepts-anything"),
    pytest.param("DISABLED", [prop(INT)], prop(INT), False, "DISABLED", id="disabled-refuses-any-new-version"),
]


@pytest.mark.parametrize(("mode", "previous", "new", "compatible", "reason"), CASES)
def test_compatibility(mode: str, previous: list[str], new: str, compatible: bool, reason: str | None) -> None:
    verdict = check("JSON", mode, new, previous)
    assert verdict.compatible is compatible, verdict.reasons
    if compatible:
        assert verdict.reasons == ()
    else:
        assert verdict.reasons and any(reason in r for r in verdict.reasons), verdict.reasons


@pytest.mark.parametrize("mode", ["BACKWARD", "BACKWARD_ALL", "FORWARD", "FORWARD_ALL", "FULL", "FULL_ALL", "NONE",
                                  "DISABLED"])
def test_a_first_version_passes_every_mode(mode: str) -> None:
    verdict = check("JSON", mode, obj({"a": STR}), [])
    assert verdict.compatible and verdict.reasons == ()


def test_reason_names_the_difference_the_path_and_the_direction() -> None:
    verdict = check("JSON", "BACKWARD", obj({"a": STR}, ["a"]), [obj({"a": STR})])
    assert verdict.reasons == ("BACKWARD (new reads data of earlier definition 1 of 1): REQUIRED_ATTRIBUTE_ADDED at "
                               "'#/required/a': the update requires 'a', which the original did not",)


# -- canonical form -----------------------------------------------------------------------------------------------

def test_canonical_form_ignores_whitespace_key_order_and_set_like_lists() -> None:
    one = raw({"type": "object", "required": ["b", "a"], "properties": {"a": {"type": ["null", "string"]},
               "b": {"enum": ["y", "x"]}}})
    two = json.dumps({"properties": {"b": {"enum": ["x", "y"]}, "a": {"type": ["string", "null"]}},
                      "required": ["a", "b"], "type": "object"}, indent=2)
    assert canonical("JSON", one) == canonical("JSON", two)
    assert canonical("JSON", one) != canonical("JSON", raw({"type": "object", "required": ["a"]}))


def test_canonical_form_leaves_values_alone() -> None:
    # "default" and "const" are values, not schema lists: their order is data
    assert canonical("JSON", raw({"default": ["b", "a"]})) != canonical("JSON", raw({"default": ["a", "b"]}))


# -- invalid definitions are refused with the validator's message --------------------------------------------------

INVALID = [
    pytest.param(raw({"type": "strin"}), "'strin' is not valid under any of the given schemas at $.type",
                 id="unknown-type"),
    pytest.param(raw({"properties": {"a": {"minimum": "x"}}}), "'x' is not of type 'number' at $.properties.a.minimum",
                 id="minimum-not-a-number"),
    pytest.param(raw({"required": "a"}), "'a' is not of type 'array'", id="required-not-an-array"),
    # Draft-04's exclusiveMaximum is a boolean
    pytest.param(raw({"$schema": DRAFT4, "exclusiveMaximum": 5}), "5 is not of type 'boolean'",
                 id="draft4-meta-schema-applies"),
    pytest.param(raw({"$schema": "http://example.com/my-draft", "type": "string"}),
                 "unknown $schema 'http://example.com/my-draft'", id="unknown-dialect"),
    pytest.param(raw({"$ref": "#/definitions/missing"}), "the $ref '#/definitions/missing' at # does not resolve",
                 id="unresolvable-ref"),
    pytest.param(raw({"properties": {"a": {"$ref": "https://example.com/other.json"}}}),
                 "the $ref 'https://example.com/other.json' at #/properties/a does not resolve",
                 id="remote-ref-not-fetched"),
    pytest.param(raw([{"type": "string"}]), "a schema is an object or a boolean, not list", id="not-a-schema"),
    pytest.param('{"type": "string"', "not JSON", id="not-json"),
]


@pytest.mark.parametrize(("definition", "message"), INVALID)
def test_invalid_definitions_are_refused_with_the_validators_message(definition: str, message: str) -> None:
    with pytest.raises(InvalidSchemaDefinition, match="^Invalid JSON schema: ") as caught:
        validate("JSON", definition)
    assert message in str(caught.value)
    with pytest.raises(InvalidSchemaDefinition):
        check("JSON", "BACKWARD", definition, [obj({"a": STR})])


def test_later_drafts_are_accepted() -> None:
    schema = raw({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "array",
                  "prefixItems": [STR], "items": False})
    validate("JSON", schema)
    wider = raw({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "array",
                 "prefixItems": [STR, INT], "items": False})
    assert check("JSON", "BACKWARD", wider, [schema]).compatible
    assert not check("JSON", "FORWARD", wider, [schema]).compatible
