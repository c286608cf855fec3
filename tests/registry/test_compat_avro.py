"""Avro compatibility, written from the Avro specification ("Schema Resolution", "Parsing Canonical
Form", "Names", "Aliases", "Unions") and Glue's mode definitions (CreateSchema ``Compatibility``).

BACKWARD: the new version (reader) reads data of the latest (writer); FORWARD: the latest reads the
new one's data; FULL: both; ``_ALL``: against every earlier version.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from glueball.registry.compat import InvalidSchemaDefinition, canonical, check, validate


def record(*fields: dict[str, Any], name: str = "User", namespace: str | None = "shop", **extra: Any) -> str:
    schema: dict[str, Any] = {"type": "record", "name": name, "fields": list(fields), **extra}
    if namespace:
        schema["namespace"] = namespace
    return json.dumps(schema)


def f(name: str, type_: Any, **extra: Any) -> dict[str, Any]:
    return {"name": name, "type": type_, **extra}


def single(type_: Any, **extra: Any) -> str:
    """A record with one field ``v`` of ``type_``, to test how two field types resolve."""
    return record(f("v", type_, **extra))


def enum(*symbols: str, **extra: Any) -> dict[str, Any]:
    return {"type": "enum", "name": "Colour", "symbols": list(symbols), **extra}


ID = f("id", "long")
ADDRESS = {"type": "record", "name": "Address", "fields": [f("city", "string")]}
LINKED = {"type": "record", "name": "Node", "fields": [f("value", "int"), f("next", ["null", "Node"], default=None)]}
LINKED_WITH_LABEL = {"type": "record", "name": "Node", "fields": [
    f("value", "int"), f("label", "string", default=""), f("next", ["null", "Node"], default=None)]}
LINKED_WITH_REQUIRED_LABEL = {"type": "record", "name": "Node", "fields": [
    f("value", "int"), f("label", "string"), f("next", ["null", "Node"], default=None)]}

# (mode, earlier definitions oldest first, new definition, compatible, a rule the reasons must name)
CASES = [
    # "if the reader's record schema has a field with a default value, and writer's schema does not have a field
    # with the same name, then the reader should use the default value from its field"
    pytest.param("BACKWARD", [record(ID)], record(ID, f("email", "string", default="")), True, None,
                 id="backward-add-field-with-default"),
    # "... if the reader's record schema has a field with no default value, and writer's schema does not have a
    # field with the same name, an error is signalled"
    pytest.param("BACKWARD", [record(ID)], record(ID, f("email", "string")), False,
                 "READER_FIELD_MISSING_DEFAULT_VALUE", id="backward-add-field-without-default"),
    # "if the writer's record contains a field with a name not present in the reader's record, the writer's value
    # for that field is ignored"
    pytest.param("BACKWARD", [record(ID, f("email", "string"))], record(ID), True, None,
                 id="backward-remove-field"),
    pytest.param("FORWARD", [record(ID, f("email", "string"))], record(ID), False,
                 "READER_FIELD_MISSING_DEFAULT_VALUE", id="forward-remove-field-old-reader-has-no-default"),
    pytest.param("FORWARD", [record(ID, f("email", "string", default=""))], record(ID), True, None,
                 id="forward-remove-field-old-reader-has-default"),
    pytest.param("FORWARD", [record(ID)], record(ID, f("email", "string")), True, None,
                 id="forward-add-field-ignored-by-old-reader"),
    pytest.param("FULL", [record(ID)], record(ID, f("email", "string", default="")), True, None,
                 id="full-add-field-with-default"),
    pytest.param("FULL", [record(ID)], record(ID, f("email", "string")), False,
                 "READER_FIELD_MISSING_DEFAULT_VALUE", id="full-add-field-without-default"),
    pytest.param("FULL", [record(ID, f("email", "string"))], record(ID), False,
                 "READER_FIELD_MISSING_DEFAULT_VALUE", id="full-remove-field-without-default"),
    # promotions: "int is promotable to long, float, or double; long ... to float or double; float ... to double;
    # string is promotable to bytes; bytes is promotable to string"
    *(pytest.param("BACKWARD", [single(writer)], single(reader), True, None, id=f"promote-{writer}-to-{reader}")
      for writer, reader in [("int", "long"), ("int", "float"), ("int", "double"), ("long", "float"),
                             ("long", "double"), ("float", "double"), ("string", "bytes"), ("bytes", "string")]),
    *(pytest.param("BACKWARD", [single(writer)], single(reader), False, "TYPE_MISMATCH",
                   id=f"no-promotion-{writer}-to-{reader}")
      for writer, reader in [("long", "int"), ("double", "float"), ("float", "long"), ("int", "string"),
                             ("boolean", "int"), ("null", "string")]),
    pytest.param("FULL", [single("int")], single("long"), False, "TYPE_MISMATCH",
                 id="full-promotion-is-one-way"),
    # unions: "if reader's is a union, but writer's is not: the first schema in the reader's union that matches
    # the writer's schema is recursively resolved against it. If none match, an error is signalled."
    pytest.param("BACKWARD", [single("int")], single(["null", "int"], default=None), True, None,
                 id="union-reader-gains-null-branch"),
    pytest.param("BACKWARD", [single("int")], single(["null", "long"], default=None), True, None,
                 id="union-reader-branch-by-promotion"),
    pytest.param("BACKWARD", [single("int")], single(["null", "string"], default=None), False,
                 "MISSING_UNION_BRANCH", id="union-reader-no-branch-matches"),
    # "if writer's is a union, but reader's is not: if the reader's schema matches the selected writer's schema, it
    # is recursively resolved against it. If they do not match, an error is signalled." (every branch may be chosen)
    pytest.param("BACKWARD", [single(["null", "int"], default=None)], single("int"), False, "TYPE_MISMATCH",
                 id="union-writer-null-branch-unreadable"),
    pytest.param("BACKWARD", [single(["int", "long"])], single("long"), True, None,
                 id="union-writer-all-branches-promote"),
    # "if both are unions: the first schema in the reader's union that matches the selected writer's union schema
    # is recursively resolved against it"
    pytest.param("BACKWARD", [single(["null", "string", "int"], default=None)], single(["null", "string"],
                 default=None), False, "MISSING_UNION_BRANCH", id="union-both-reader-drops-branch"),
    pytest.param("BACKWARD", [single(["null", "string"], default=None)], single(["null", "int", "string"],
                 default=None), True, None, id="union-both-reader-adds-branch"),
    pytest.param("FULL", [single(["null", "string"], default=None)], single(["string", "null"], default=""), True,
                 None, id="union-both-reordered"),
    # names: "both schemas are records with the same (unqualified) name"; aliases: "the reader's aliases may match
    # the writer's name" (full names)
    pytest.param("BACKWARD", [record(ID, name="User")], record(ID, name="Customer"), False, "NAME_MISMATCH",
                 id="record-renamed"),
    pytest.param("BACKWARD", [record(ID, name="User")], record(ID, name="Customer", aliases=["shop.User"]), True,
                 None, id="record-renamed-with-alias"),
    pytest.param("BACKWARD", [record(ID, namespace="shop")], record(ID, namespace="store"), True, None,
                 id="record-same-unqualified-name-other-namespace"),
    pytest.param("BACKWARD", [record(f("mail", "string"))], record(f("email", "string", aliases=["mail"])), True,
                 None, id="field-renamed-with-alias"),
    pytest.param("BACKWARD", [record(f("mail", "string"))], record(f("email", "string")), False,
                 "READER_FIELD_MISSING_DEFAULT_VALUE", id="field-renamed-without-alias"),
    # enums: "if the writer's symbol is not present in the reader's enum and the reader has a default value, then
    # that value is used, otherwise an error is signalled"
    pytest.param("BACKWARD", [single(enum("RED", "GREEN"))], single(enum("RED", "GREEN", "BLUE")), True, None,
                 id="enum-reader-adds-symbol"),
    pytest.param("BACKWARD", [single(enum("RED", "GREEN", "BLUE"))], single(enum("RED", "GREEN")), False,
                 "MISSING_ENUM_SYMBOLS", id="enum-reader-drops-symbol"),
    pytest.param("BACKWARD", [single(enum("RED", "GREEN", "BLUE"))], single(enum("RED", "GREEN", default="RED")),
                 True, None, id="enum-reader-drops-symbol-with-enum-default"),
    pytest.param("FORWARD", [single(enum("RED", "GREEN"))], single(enum("RED", "GREEN", "BLUE")), False,
                 "MISSING_ENUM_SYMBOLS", id="forward-enum-adds-symbol-old-reader-lacks-it"),
    pytest.param("BACKWARD", [single(enum("RED"))], single(dict(enum("RED"), name="Hue")), False, "NAME_MISMATCH",
                 id="enum-renamed"),
    # fixed: "both schemas are fixed with the same name and size"
    pytest.param("BACKWARD", [single({"type": "fixed", "name": "Hash", "size": 16})],
                 single({"type": "fixed", "name": "Hash", "size": 32}), False, "FIXED_SIZE_MISMATCH",
                 id="fixed-size-changed"),
    pytest.param("FULL", [single({"type": "fixed", "name": "Hash", "size": 16})],
                 single({"type": "fixed", "name": "Hash", "size": 16, "doc": "md5"}), True, None,
                 id="fixed-same-name-and-size"),
    # arrays / maps: "the item types / value types match according to these rules, recursively"
    pytest.param("BACKWARD", [single({"type": "array", "items": "int"})], single({"type": "array", "items": "long"}),
                 True, None, id="array-items-promoted"),
    pytest.param("BACKWARD", [single({"type": "array", "items": "string"})],
                 single({"type": "array", "items": "int"}), False, "TYPE_MISMATCH", id="array-items-changed"),
    pytest.param("BACKWARD", [single({"type": "map", "values": "float"})], single({"type": "map", "values": "double"}),
                 True, None, id="map-values-promoted"),
    pytest.param("BACKWARD", [single({"type": "map", "values": "string"})],
                 single({"type": "map", "values": "boolean"}), False, "TYPE_MISMATCH", id="map-values-changed"),
    pytest.param("BACKWARD", [single({"type": "array", "items": "string"})],
                 single({"type": "map", "values": "string"}), False, "TYPE_MISMATCH", id="array-became-map"),
    # nested records resolve recursively
    pytest.param("BACKWARD", [record(f("address", ADDRESS))],
                 record(f("address", dict(ADDRESS, fields=[f("city", "string"), f("zip", "string")]))), False,
                 "/fields/address/fields/zip",
                 id="nested-record-field-without-default"),
    pytest.param("BACKWARD", [record(f("address", ADDRESS))],
                 record(f("address", dict(ADDRESS, fields=[f("city", "string"), f("zip", "string", default="")]))),
                 True, None,
                 id="nested-record-field-with-default"),
    # recursive types ("a name ... may be referenced"): a linked list evolving
    pytest.param("FULL", [single(LINKED)], single(LINKED_WITH_LABEL), True, None,
                 id="recursive-add-field-with-default"),
    pytest.param("BACKWARD", [single(LINKED)], single(LINKED_WITH_REQUIRED_LABEL), False,
                 "READER_FIELD_MISSING_DEFAULT_VALUE", id="recursive-add-field-without-default"),
    # logical types annotate a primitive; resolution uses the underlying type
    pytest.param("FULL", [single("long")], single({"type": "long", "logicalType": "timestamp-millis"}), True, None,
                 id="logical-type-added"),
    # the transitive modes
    pytest.param("BACKWARD", [record(ID), record(ID, f("b", "string", default="x"))], record(ID, f("b", "string")),
                 True, None, id="backward-checks-latest-only"),
    pytest.param("BACKWARD_ALL", [record(ID), record(ID, f("b", "string", default="x"))],
                 record(ID, f("b", "string")), False, "earlier definition 1 of 2",
                 id="backward-all-checks-every-version"),
    pytest.param("FORWARD", [record(ID, f("b", "string")), record(ID, f("b", "string", default="x"))], record(ID),
                 True, None, id="forward-checks-latest-only"),
    pytest.param("FORWARD_ALL", [record(ID, f("b", "string")), record(ID, f("b", "string", default="x"))],
                 record(ID), False, "earlier definition 1 of 2", id="forward-all-checks-every-version"),
    pytest.param("FULL_ALL", [record(ID), record(ID, f("b", "string", default="x"))],
                 record(ID, f("b", "string", default="x"), f("c", "int", default=0)), True, None,
                 id="full-all-defaults-everywhere"),
    pytest.param("FULL", [record(ID, f("b", "string")), record(ID, f("b", "string", default="x"))],
                 record(ID), True, None, id="full-checks-latest-only"),
    pytest.param("FULL_ALL", [record(ID, f("b", "string")), record(ID, f("b", "string", default="x"))],
                 record(ID), False, "FORWARD (earlier definition 1 of 2", id="full-all-forward-against-first"),
    # NONE: "any new version added will be accepted without undergoing a compatibility check"
    pytest.param("NONE", [record(ID)], record(f("id", "string"), name="Other"), True, None, id="none-accepts-anything"),
    # DISABLED: "prevents versioning for a particular schema"
    pytest.param("DISABLED", [record(ID)], record(ID, f("email", "string", default="")), False, "DISABLED",
                 id="disabled-refuses-any-new-version"),
]


@pytest.mark.parametrize(("mode", "previous", "new", "compatible", "reason"), CASES)
def test_compatibility(mode: str, previous: list[str], new: str, compatible: bool, reason: str | None) -> None:
    verdict = check("AVRO", mode, new, previous)
    assert verdict.compatible is compatible, verdict.reasons
    if compatible:
        assert verdict.reasons == ()
    else:
        assert verdict.reasons and any(reason in r for r in verdict.reasons), verdict.reasons


@pytest.mark.parametrize("mode", ["NONE", "DISABLED", "BACKWARD", "BACKWARD_ALL", "FORWARD", "FORWARD_ALL", "FULL",
                                  "FULL_ALL"])
def test_a_first_version_passes_every_mode(mode: str) -> None:
    assert check("AVRO", mode, record(ID), []).compatible


@pytest.mark.parametrize("mode", ["BACKWARD", "BACKWARD_ALL", "FORWARD", "FORWARD_ALL", "FULL", "FULL_ALL"])
def test_the_same_schema_again_passes_every_checking_mode(mode: str) -> None:
    schema = record(ID, f("tags", {"type": "array", "items": "string"}), f("next", ["null", "User"], default=None))
    assert check("AVRO", mode, schema, [schema, schema]).compatible


def test_reasons_name_the_field_path_and_direction() -> None:
    verdict = check("AVRO", "FULL", record(ID, f("email", "string")), [record(ID)])
    assert verdict.reasons == (
        "BACKWARD (new reads data of earlier definition 1 of 1): READER_FIELD_MISSING_DEFAULT_VALUE at "
        "/fields/email: the reader's field 'email' of shop.User is not written by the writer and has no default",)


def test_unknown_mode_and_format_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown compatibility mode 'SIDEWAYS'"):
        check("AVRO", "SIDEWAYS", record(ID), [])
    with pytest.raises(ValueError, match="unknown data format 'XML'"):
        check("XML", "NONE", "<a/>", [])


# -- Parsing Canonical Form (kept: defaults, aliases, logical types; see the module's docstring) --------------

def test_canonical_form_ignores_whitespace_key_order_doc_and_namespace_spelling() -> None:
    compact = '{"type":"record","name":"shop.User","fields":[{"name":"id","type":"long"}]}'
    spread = json.dumps({"fields": [{"type": {"type": "long"}, "doc": "key", "name": "id"}], "doc": "a user",
                         "namespace": "shop", "name": "User", "type": "record"}, indent=4)
    assert canonical("AVRO", compact) == canonical("AVRO", spread)
    # PCF [FULLNAMES], [STRIP], [ORDER], [WHITESPACE]
    assert canonical("AVRO", spread) == '{"name":"shop.User","type":"record","fields":[{"name":"id","type":"long"}]}'


def test_canonical_form_keeps_what_changes_reading() -> None:
    plain = record(ID)
    assert canonical("AVRO", plain) != canonical("AVRO", record(f("id", "long", default=0)))
    timestamp = {"type": "long", "logicalType": "timestamp-millis"}
    assert canonical("AVRO", plain) != canonical("AVRO", record(f("id", timestamp)))
    assert canonical("AVRO", plain) != canonical("AVRO", record(ID, aliases=["shop.Person"]))


def test_canonical_form_writes_a_named_type_once_then_by_name() -> None:
    schema = single(LINKED)
    assert canonical("AVRO", schema).count('"name":"shop.Node"') == 1
    assert '"type":["null","shop.Node"]' in canonical("AVRO", schema)


# -- invalid definitions are refused with the parser's message ---------------------------------------------------

INVALID = [
    pytest.param('{"type": "record", "name": "User", "fields": [{"name": "id", "type": "strng"}]}',
                 "unknown type 'strng'", id="unknown-type"),
    pytest.param('{"type": "record", "fields": []}', '"name" is a required field', id="record-without-name"),
    pytest.param('{"type": "enum", "name": "E", "symbols": ["A", "A"]}', "All symbols in an enum must be unique",
                 id="enum-duplicate-symbol"),
    pytest.param(single("int", default="zero"), "Default value <zero> must match schema type: int",
                 id="default-of-wrong-type"),
    # "Default values for union fields correspond to the first schema in the union"
    pytest.param(single(["null", "int"], default=1), "does not match the first branch of its union (null)",
                 id="union-default-not-first-branch"),
    # "Unions may not contain more than one schema with the same type, except for the named types"
    pytest.param('["int", "string", "int"]', "the union contains 'int' twice", id="union-duplicate-branch"),
    # "Unions may not immediately contain other unions"
    pytest.param('["null", ["int", "string"]]', "may not immediately contain another union", id="nested-union"),
    pytest.param('{"type": "fixed", "name": "Hash"}', "fixed Hash needs a non-negative integer 'size'",
                 id="fixed-without-size"),
    pytest.param('{"type": "array"}', "array needs 'items'", id="array-without-items"),
    # Names: "start with [A-Za-z_] subsequently contain only [A-Za-z0-9_]"
    pytest.param('{"type": "record", "name": "9Lives", "fields": []}', "illegal name '9Lives'", id="illegal-name"),
    pytest.param(record(ID, ID), "record shop.User has two fields named 'id'", id="duplicate-field"),
    pytest.param(single(enum("RED", default="BLUE")), "Default value for enum must be in symbols list",
                 id="enum-default-not-a-symbol"),
    pytest.param('{"type": "record", "name": "User", "fields": [', "not JSON", id="not-json"),
]


@pytest.mark.parametrize(("definition", "message"), INVALID)
def test_invalid_definitions_are_refused_with_the_parsers_message(definition: str, message: str) -> None:
    with pytest.raises(InvalidSchemaDefinition, match="^Invalid Avro schema: ") as caught:
        validate("AVRO", definition)
    assert message in str(caught.value)
    with pytest.raises(InvalidSchemaDefinition):  # check() validates the new definition first, in every mode
        check("AVRO", "NONE", definition, [record(ID)])
