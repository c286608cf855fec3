"""Protobuf compatibility, written from the Protocol Buffers guide ("Updating A Message Type",
"Reserved Fields", "Oneof") and the difference types of Confluent's Protobuf compatibility, each named
in a case's id. Definitions are compiled by protoc (grpcio-tools).
"""

from __future__ import annotations

import pytest
from google.protobuf import message_factory

from glueball.registry.compat import InvalidSchemaDefinition, canonical, check, validate
from glueball.registry.compat.protobuf import FILE_NAME, file_descriptor_set


def proto3(body: str, package: str = "shop", imports: str = "") -> str:
    return f'syntax = "proto3";\npackage {package};\n{imports}\n{body}\n'


def order(fields: str, extra: str = "") -> str:
    return proto3(f"message Order {{\n{fields}\n}}\n{extra}")


def proto2(fields: str) -> str:
    return f'syntax = "proto2";\npackage shop;\nmessage Order {{\n{fields}\n}}\n'


BASE = order("int64 id = 1; string note = 2;")
ITEM = "message Item { string sku = 1; int32 qty = 2; }"
TIMESTAMP = 'import "google/protobuf/timestamp.proto";\nimport "google/protobuf/duration.proto";'

# (mode, earlier definitions oldest first, new definition, compatible, a difference the reasons must name)
CASES = [
    # "If you add new fields, any messages serialized by code using your 'old' message format can still be parsed"
    pytest.param("FULL", [BASE], order("int64 id = 1; string note = 2; bool paid = 3;"), True, None,
                 id="field-added"),
    # "Fields can be removed, as long as the field number is not used again"
    pytest.param("FULL", [BASE], order("int64 id = 1;"), True, None, id="field-removed"),
    pytest.param("FULL", [BASE], order("int64 id = 1; string comment = 2;"), True, None, id="field-name-changed"),
    # "int32, uint32, int64, uint64, and bool are all compatible"; enums with them
    *(pytest.param("FULL", [order(f"{old} v = 1;")], order(f"{new} v = 1;"), True, None,
                   id=f"wire-compatible-{old}-{new}")
      for old, new in [("int32", "int64"), ("int32", "uint64"), ("bool", "int32"), ("sint32", "sint64"),
                       ("string", "bytes"), ("fixed32", "sfixed32"), ("fixed64", "sfixed64")]),
    pytest.param("FULL", [order("int32 v = 1;", "enum Colour { RED = 0; }")],
                 order("Colour v = 1;", "enum Colour { RED = 0; }"), True, None, id="wire-compatible-int32-enum"),
    # "sint32 and sint64 are compatible with each other but are not compatible with the other integer types"
    *(pytest.param("BACKWARD", [order(f"{old} v = 1;")], order(f"{new} v = 1;"), False, "FIELD_SCALAR_KIND_CHANGED",
                   id=f"scalar-kind-changed-{old}-{new}")
      for old, new in [("int32", "sint32"), ("fixed32", "fixed64"), ("float", "double"), ("string", "int32"),
                       ("int64", "fixed64")]),
    pytest.param("BACKWARD", [order("int32 v = 1;", ITEM)], order("Item v = 1;", ITEM), False, "FIELD_KIND_CHANGED",
                 id="field-kind-changed-scalar-to-message"),
    pytest.param("BACKWARD", [order("Item v = 1;", ITEM)], order("map<string, Item> v = 1;", ITEM), False,
                 "FIELD_KIND_CHANGED", id="field-kind-changed-message-to-map"),
    pytest.param("BACKWARD", [order("Item v = 1;", ITEM + " message Other { string sku = 1; }")],
                 order("Other v = 1;", ITEM + " message Other { string sku = 1; }"), False,
                 "FIELD_NAMED_TYPE_CHANGED", id="field-named-type-changed"),
    pytest.param("BACKWARD", [order("repeated Item items = 1;", ITEM)],
                 order("repeated Item items = 1;", "message Item { string sku = 1; string qty = 2; }"), False,
                 "FIELD_SCALAR_KIND_CHANGED at 'Item.qty(2)'", id="nested-message-field-changed"),
    pytest.param("BACKWARD", [order("map<string, int32> counts = 1;")], order("map<string, string> counts = 1;"),
                 False, "FIELD_SCALAR_KIND_CHANGED at 'Order.counts(1).value'", id="map-value-type-changed"),
    pytest.param("FULL", [order("map<string, int32> counts = 1;")], order("map<string, int64> counts = 1;"), True,
                 None, id="map-value-wire-compatible"),
    # "For string, bytes, and message fields, singular is compatible with repeated"; numeric fields are packed
    pytest.param("FULL", [order("string tag = 1;")], order("repeated string tag = 1;"), True, None,
                 id="string-label-changed"),
    pytest.param("BACKWARD", [order("repeated int32 codes = 1;")], order("int32 codes = 1;"), False,
                 "FIELD_NUMERIC_LABEL_CHANGED", id="numeric-label-changed"),
    pytest.param("BACKWARD", [BASE], BASE.replace("package shop", "package store"), False, "PACKAGE_CHANGED",
                 id="package-changed"),
    pytest.param("BACKWARD", [order("int64 id = 1;", ITEM)], order("int64 id = 1;"), False, "MESSAGE_REMOVED",
                 id="message-removed"),
    pytest.param("FULL", [order("int64 id = 1;")], order("int64 id = 1;", ITEM), False, "MESSAGE_REMOVED",
                 id="full-message-added-is-removed-the-other-way"),
    pytest.param("BACKWARD", [order("int64 id = 1;")], order("int64 id = 1;", ITEM), True, None, id="message-added"),
    pytest.param("FULL", [order("int64 id = 1;", ITEM)], proto3(f"{ITEM}\nmessage Order {{ int64 id = 1; }}"), True,
                 None, id="message-moved"),
    pytest.param("FULL", [order("int64 id = 1;", "enum Colour { RED = 0; }")],
                 order("int64 id = 1;", "enum Colour { RED = 0; BLUE = 1; }"), True, None, id="enum-const-added"),
    pytest.param("FULL", [order("int64 id = 1;", "enum Colour { RED = 0; }")], order("int64 id = 1;"), True, None,
                 id="enum-removed"),
    # oneof: "move fields into a single new oneof" is safe; moving several existing fields into one is not
    pytest.param("FULL", [BASE],
                 order("int64 id = 1; string note = 2; oneof pay { string card = 3; string iban = 4; }"),
                 True, None, id="oneof-added"),
    pytest.param("BACKWARD", [BASE], order("int64 id = 1; oneof text { string note = 2; }"), True, None,
                 id="one-field-moved-to-new-oneof"),
    pytest.param("BACKWARD", [BASE], order("oneof key { int64 id = 1; string note = 2; }"), False,
                 "MULTIPLE_FIELDS_MOVED_TO_ONEOF", id="multiple-fields-moved-to-oneof"),
    pytest.param("BACKWARD", [order("int64 id = 1; oneof pay { string card = 3; }")],
                 order("oneof pay { string card = 3; int64 id = 1; }"), False, "FIELD_MOVED_TO_EXISTING_ONEOF",
                 id="field-moved-to-existing-oneof"),
    pytest.param("BACKWARD", [order("oneof pay { string card = 3; string iban = 4; }")],
                 order("oneof pay { string card = 3; }"), False, "ONEOF_FIELD_REMOVED", id="oneof-field-removed"),
    pytest.param("FULL", [order("oneof pay { string card = 3; }")],
                 order("oneof pay { string card = 3; string iban = 4; }"),
                 False, "ONEOF_FIELD_REMOVED", id="full-oneof-field-added-is-removed-the-other-way"),
    # proto3 'optional' is a synthetic oneof, not a oneof
    pytest.param("FULL", [BASE], order("int64 id = 1; optional string note = 2;"), True, None,
                 id="proto3-optional-is-not-a-oneof"),
    # proto2: "any new fields that you add should be optional or repeated"; required fields never change
    pytest.param("BACKWARD", [proto2("optional int64 id = 1;")],
                 proto2("optional int64 id = 1; required string n = 2;"),
                 False, "REQUIRED_FIELD_ADDED", id="proto2-required-field-added"),
    pytest.param("BACKWARD", [proto2("optional int64 id = 1; required string n = 2;")],
                 proto2("optional int64 id = 1;"),
                 False, "REQUIRED_FIELD_REMOVED", id="proto2-required-field-removed"),
    pytest.param("BACKWARD", [proto2("optional int64 id = 1;")], proto2("required int64 id = 1;"), False,
                 "REQUIRED_FIELD_ADDED", id="proto2-label-changed-to-required"),
    pytest.param("FULL", [proto2("optional int64 id = 1;")], proto2("optional int64 id = 1; optional string n = 2;"),
                 True, None, id="proto2-optional-field-added"),
    # "Reserved Fields": reserve removed numbers, and never reuse them
    pytest.param("FULL", [BASE], order("int64 id = 1; reserved 2; reserved \"note\";"), True, None,
                 id="removed-field-reserved"),
    pytest.param("BACKWARD", [BASE, order("int64 id = 1; reserved 2;")], order("int64 id = 1; int64 total = 2;"),
                 False, "RESERVED_FIELD_REUSED", id="reserved-number-reused"),
    pytest.param("FORWARD", [order("int64 id = 1; reserved 2 to 5;")], order("int64 id = 1; int64 total = 4;"),
                 False, "RESERVED_FIELD_REUSED", id="reserved-range-reused-forward"),
    # imports of the well-known types
    pytest.param("FULL", [proto3("message Order { google.protobuf.Timestamp at = 1; }", imports=TIMESTAMP)],
                 proto3("message Order { google.protobuf.Timestamp at = 1; string note = 2; }", imports=TIMESTAMP),
                 True, None, id="import-well-known-type"),
    pytest.param("BACKWARD", [proto3("message Order { google.protobuf.Timestamp at = 1; }", imports=TIMESTAMP)],
                 proto3("message Order { google.protobuf.Duration at = 1; }", imports=TIMESTAMP), False,
                 "FIELD_NAMED_TYPE_CHANGED", id="imported-type-changed"),
    # the modes
    pytest.param("BACKWARD", [order("int32 v = 1;"), order("string v = 1;")], order("bytes v = 1;"), True, None,
                 id="backward-checks-latest-only"),
    pytest.param("BACKWARD_ALL", [order("int32 v = 1;"), order("string v = 1;")], order("bytes v = 1;"), False,
                 "earlier definition 1 of 2", id="backward-all-checks-every-version"),
    pytest.param("FORWARD_ALL", [order("int32 v = 1;"), order("string v = 1;")], order("bytes v = 1;"), False,
                 "FORWARD (earlier definition 1 of 2", id="forward-all-checks-every-version"),
    pytest.param("FULL_ALL", [order("int32 v = 1;"), order("int64 v = 1;")], order("uint64 v = 1;"), True, None,
                 id="full-all-wire-compatible-history"),
    pytest.param("NONE", [BASE], order("string id = 1;"), True, None, id="none-accepts-anything"),
    pytest.param("DISABLED", [BASE], BASE, False, "DISABLED", id="disabled-refuses-any-new-version"),
]


@pytest.mark.parametrize(("mode", "previous", "new", "compatible", "reason"), CASES)
def test_compatibility(mode: str, previous: list[str], new: str, compatible: bool, reason: str | None) -> None:
    verdict = check("PROTOBUF", mode, new, previous)
    assert verdict.compatible is compatible, verdict.reasons
    if compatible:
        assert verdict.reasons == ()
    else:
        assert verdict.reasons and any(reason in r for r in verdict.reasons), verdict.reasons


@pytest.mark.parametrize("mode", ["NONE", "DISABLED", "BACKWARD", "BACKWARD_ALL", "FORWARD", "FORWARD_ALL", "FULL",
                                  "FULL_ALL"])
def test_a_first_version_passes_every_mode(mode: str) -> None:
    verdict = check("PROTOBUF", mode, BASE, [])
    assert verdict.compatible and verdict.reasons == ()


def test_canonical_form_ignores_comments_layout_and_declaration_order() -> None:
    spread = proto3("// an order\nmessage Order {\n  string note = 2;   // free text\n\n  int64 id = 1;\n}\n" + ITEM)
    compact = proto3(ITEM + " message Order { int64 id = 1; string note = 2; }")
    assert canonical("PROTOBUF", spread) == canonical("PROTOBUF", compact)
    assert canonical("PROTOBUF", compact) != canonical("PROTOBUF", compact.replace("note = 2", "note = 3"))


def test_file_descriptor_set_decodes_messages_dynamically() -> None:
    definition = proto3("message Order { int64 id = 1; google.protobuf.Timestamp at = 2; }", imports=TIMESTAMP)
    files = file_descriptor_set(definition)
    assert files.file[-1].name == FILE_NAME
    assert {"google/protobuf/timestamp.proto", "google/protobuf/duration.proto"} <= {f.name for f in files.file}
    order_class = message_factory.GetMessages(list(files.file))["shop.Order"]
    payload = order_class(id=7, at={"seconds": 1700000000}).SerializeToString()
    decoded = order_class.FromString(payload)
    assert (decoded.id, decoded.at.seconds) == (7, 1700000000)
    files.file[-1].package = "changed"  # each call answers a fresh message
    assert file_descriptor_set(definition).file[-1].package == "shop"


INVALID = [
    pytest.param(order("strin v = 1;"), f'{FILE_NAME}:5:1: "strin" is not defined.', id="undefined-type"),
    pytest.param(order("int64 id = 1"), f'{FILE_NAME}:6:1: Expected ";".', id="syntax-error"),
    pytest.param(order("int64 id = 1; string note = 1;"), 'Field number 1 has already been used in "shop.Order"',
                 id="duplicate-field-number"),
    pytest.param(order("int64 id = 1; reserved 2; string note = 2;"), "Field \"note\" uses reserved number 2",
                 id="reserved-number-used"),
    pytest.param(proto3("message Order { other.Thing t = 1; }", imports='import "other/thing.proto";'),
                 "other/thing.proto: File not found.", id="import-not-found"),
    # "Protocol Buffers ... without support for extensions or groups" (AWS Glue Schema registry)
    pytest.param('syntax = "proto2"; message Order { optional group Line = 1 { optional int32 qty = 2; } }',
                 "groups are not supported (field line of message Order)", id="group-refused"),
    pytest.param('syntax = "proto2"; message Order { extensions 100 to 199; }',
                 "extensions are not supported (message Order)", id="extension-range-refused"),
]


@pytest.mark.parametrize(("definition", "message"), INVALID)
def test_invalid_definitions_are_refused_with_protocs_message(definition: str, message: str) -> None:
    with pytest.raises(InvalidSchemaDefinition, match="^Invalid Protobuf schema: ") as caught:
        validate("PROTOBUF", definition)
    assert message in str(caught.value)
    with pytest.raises(InvalidSchemaDefinition):
        check("PROTOBUF", "BACKWARD", definition, [BASE])
