"""A ``FileDescriptorProto`` written back as ``.proto`` text.

Confluent's Protobuf serializers register a schema as the base64 of its compiled file descriptor; the
registry keeps definitions as ``.proto`` text (what Glue's API, the parsers and the compatibility rules
read), so the Confluent surface turns such a descriptor into text first. Written: syntax, package,
imports, messages (fields with labels, proto3 ``optional``, maps, oneofs, nested messages and enums,
reserved numbers and names, proto2 defaults) and enums. Options other than the default are not kept.
"""

from __future__ import annotations

from typing import Any

_SCALARS = {1: "double", 2: "float", 3: "int64", 4: "uint64", 5: "int32", 6: "fixed64", 7: "fixed32", 8: "bool",
            9: "string", 12: "bytes", 13: "uint32", 15: "sfixed32", 16: "sfixed64", 17: "sint32", 18: "sint64"}
_MESSAGE, _ENUM, _GROUP = 11, 14, 10
_OPTIONAL, _REQUIRED, _REPEATED = 1, 2, 3


def _type_name(field: Any) -> str:
    if field.type in (_MESSAGE, _ENUM, _GROUP):
        return str(field.type_name)  # fully qualified (".shop.Order.Line"): resolves from any scope
    return _SCALARS[field.type]


def _reserved(ranges: Any, names: Any, pad: str, exclusive_end: bool) -> list[str]:
    lines: list[str] = []
    parts = []
    for span in ranges:
        end = span.end - 1 if exclusive_end else span.end
        parts.append(str(span.start) if end == span.start else f"{span.start} to {'max' if end >= 536870911 else end}")
    if parts:
        lines.append(f"{pad}reserved {', '.join(parts)};")
    if names:
        lines.append(f"{pad}reserved {', '.join(repr(str(n)).replace(chr(39), chr(34)) for n in names)};")
    return lines


def _field(field: Any, syntax: str, entries: dict[str, Any]) -> str:
    entry = entries.get(str(field.type_name).rsplit(".", 1)[-1]) if field.type == _MESSAGE else None
    if entry is not None and field.label == _REPEATED:
        key, value = entry.field[0], entry.field[1]
        kind = f"map<{_type_name(key)}, {_type_name(value)}>"
        label = ""
    else:
        kind = _type_name(field)
        label = {_REPEATED: "repeated ", _REQUIRED: "required "}.get(field.label, "")
        if field.label == _OPTIONAL and (syntax == "proto2" or field.proto3_optional):
            label = "optional "
    options = f" [default = {field.default_value}]" if field.HasField("default_value") else ""
    if options and field.type == 9:
        options = f' [default = "{field.default_value}"]'
    return f"{label}{kind} {field.name} = {field.number}{options};"


def _enum(enum: Any, pad: str) -> list[str]:
    lines = [f"{pad}enum {enum.name} {{"]
    lines += [f"{pad}  {value.name} = {value.number};" for value in enum.value]
    lines += _reserved(enum.reserved_range, enum.reserved_name, pad + "  ", exclusive_end=False)
    return [*lines, f"{pad}}}"]


def _message(message: Any, syntax: str, pad: str) -> list[str]:
    entries = {nested.name: nested for nested in message.nested_type if nested.options.map_entry}
    lines = [f"{pad}message {message.name} {{"]
    inner = pad + "  "
    real_oneofs = {index for index, _ in enumerate(message.oneof_decl)} - {
        f.oneof_index for f in message.field if f.HasField("oneof_index") and f.proto3_optional}
    written_oneofs: set[int] = set()
    for field in message.field:
        if field.HasField("oneof_index") and field.oneof_index in real_oneofs:
            if field.oneof_index in written_oneofs:
                continue
            written_oneofs.add(field.oneof_index)
            lines.append(f"{inner}oneof {message.oneof_decl[field.oneof_index].name} {{")
            lines += [f"{inner}  {_field(f, syntax, entries)}" for f in message.field
                      if f.HasField("oneof_index") and f.oneof_index == field.oneof_index]
            lines.append(f"{inner}}}")
        else:
            lines.append(f"{inner}{_field(field, syntax, entries)}")
    for nested in message.nested_type:
        if not nested.options.map_entry:
            lines += _message(nested, syntax, inner)
    for enum in message.enum_type:
        lines += _enum(enum, inner)
    lines += _reserved(message.reserved_range, message.reserved_name, inner, exclusive_end=True)
    return [*lines, f"{pad}}}"]


def proto_text(descriptor: Any) -> str:
    """``.proto`` text of a ``google.protobuf.descriptor_pb2.FileDescriptorProto``."""
    syntax = descriptor.syntax or "proto2"
    lines = [f'syntax = "{syntax}";']
    if descriptor.package:
        lines.append(f"package {descriptor.package};")
    lines += [f'import "{name}";' for name in descriptor.dependency]
    for message in descriptor.message_type:
        lines += _message(message, syntax, "")
    for enum in descriptor.enum_type:
        lines += _enum(enum, "")
    return "\n".join(lines) + "\n"
