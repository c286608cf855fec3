"""Protobuf compatibility, compared on protoc's descriptors.

The rules are those of Confluent's Protobuf compatibility (its ``SchemaDiff``), built on the
Protocol Buffers guide's "Updating A Message Type". ``original`` is the schema data was written with,
``update`` the one reading it; each reason is ``CODE at 'path': explanation`` with Confluent's
difference type as ``CODE``. Incompatible:

- ``PACKAGE_CHANGED``; ``MESSAGE_REMOVED`` (a message of the file, at any nesting level);
- ``REQUIRED_FIELD_ADDED`` / ``REQUIRED_FIELD_REMOVED`` (proto2), also by changing a field's label;
- ``FIELD_KIND_CHANGED`` (scalar / message / map); ``FIELD_SCALAR_KIND_CHANGED`` outside one
  wire-compatible group (int32, uint32, int64, uint64, bool and enums; sint32, sint64; string,
  bytes; fixed32, sfixed32; fixed64, sfixed64; float; double); ``FIELD_NAMED_TYPE_CHANGED`` (another
  message type, or the same one changed incompatibly);
- ``FIELD_NUMERIC_LABEL_CHANGED``: a numeric field becoming repeated or singular (packed encoding);
  string, bytes and message fields may (the guide: they are compatible with repeated);
- ``ONEOF_FIELD_REMOVED``; ``MULTIPLE_FIELDS_MOVED_TO_ONEOF``; ``FIELD_MOVED_TO_EXISTING_ONEOF``.

Besides the reader/writer comparison, :func:`reserved_reuse` checks the evolution itself: a new
version may not give a field a number an earlier version reserved (the guide: reserved numbers must
never be reused, since data of a still older version may carry the old field under it).

Compatible: adding or removing optional fields, messages, enums, enum values and oneofs; renaming
fields (the wire carries numbers); moving a field into a new oneof; moving messages.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from google.protobuf.descriptor_pb2 import DescriptorProto, FieldDescriptorProto, FileDescriptorSet

from glueball.registry.compat.protobuf import file_descriptor_set

_F = FieldDescriptorProto
_SCALAR_GROUPS = {
    _F.TYPE_INT32: "int32/uint32/int64/uint64/bool/enum", _F.TYPE_UINT32: "int32/uint32/int64/uint64/bool/enum",
    _F.TYPE_INT64: "int32/uint32/int64/uint64/bool/enum", _F.TYPE_UINT64: "int32/uint32/int64/uint64/bool/enum",
    _F.TYPE_BOOL: "int32/uint32/int64/uint64/bool/enum", _F.TYPE_ENUM: "int32/uint32/int64/uint64/bool/enum",
    _F.TYPE_SINT32: "sint32/sint64", _F.TYPE_SINT64: "sint32/sint64",
    _F.TYPE_STRING: "string/bytes", _F.TYPE_BYTES: "string/bytes",
    _F.TYPE_FIXED32: "fixed32/sfixed32", _F.TYPE_SFIXED32: "fixed32/sfixed32",
    _F.TYPE_FIXED64: "fixed64/sfixed64", _F.TYPE_SFIXED64: "fixed64/sfixed64",
    _F.TYPE_FLOAT: "float", _F.TYPE_DOUBLE: "double",
}


@dataclass
class _Schema:
    """One compiled definition: its own file's package and every message of it and its imports by full name."""

    package: str
    top_level: list[DescriptorProto]
    messages: dict[str, tuple[DescriptorProto, str]] = field(default_factory=dict)  # '.pkg.Msg' -> (message, package)

    @classmethod
    def of(cls, files: FileDescriptorSet) -> _Schema:
        own = files.file[-1]
        schema = cls(own.package, list(own.message_type))
        for file in files.file:
            prefix = f".{file.package}." if file.package else "."
            for message in file.message_type:
                schema._index(message, prefix, file.package)
        return schema

    def _index(self, message: DescriptorProto, prefix: str, package: str) -> None:
        self.messages[f"{prefix}{message.name}"] = (message, package)
        for nested in message.nested_type:
            self._index(nested, f"{prefix}{message.name}.", package)

    def local_name(self, full_name: str) -> str:
        package = self.messages[full_name][1] if full_name in self.messages else ""
        return full_name.removeprefix(f".{package}.") if package else full_name.lstrip(".")

    def is_map(self, field_: FieldDescriptorProto) -> bool:
        entry = self.messages.get(field_.type_name)
        return field_.type == _F.TYPE_MESSAGE and entry is not None and entry[0].options.map_entry


def _reason(code: str, path: str, explanation: str) -> str:
    return f"{code} at '{path}': {explanation}"


def _in_oneof(field_: FieldDescriptorProto) -> bool:
    """Whether the field is in a real oneof (proto3 ``optional`` makes a synthetic one, which is not)."""
    return field_.HasField("oneof_index") and not field_.proto3_optional


def _type_name(field_: FieldDescriptorProto) -> str:
    return field_.type_name.lstrip(".") or _F.Type.Name(field_.type).removeprefix("TYPE_").lower()


class _Diff:
    def __init__(self, original: _Schema, update: _Schema) -> None:
        self.original = original
        self.update = update
        self.active: set[tuple[str, str]] = set()

    def compare(self) -> list[str]:
        reasons: list[str] = []
        if self.original.package != self.update.package:
            reasons.append(_reason("PACKAGE_CHANGED", "", f"package {self.original.package!r} became "
                                   f"{self.update.package!r}"))
        return reasons + self._messages(self.original.top_level, self.update.top_level, "")

    def _messages(self, original: list[DescriptorProto], update: list[DescriptorProto], scope: str) -> list[str]:
        by_name = {message.name: message for message in update}
        reasons: list[str] = []
        for message in original:
            path = f"{scope}{message.name}"
            if message.name not in by_name:
                if not message.options.map_entry:
                    reasons.append(_reason("MESSAGE_REMOVED", path, f"message {path} is gone"))
                continue
            reasons += self._message(message, by_name[message.name], path)
        return reasons

    def _message(self, original: DescriptorProto, update: DescriptorProto, path: str) -> list[str]:
        key = (f"{id(original)}", f"{id(update)}")
        if key in self.active:
            return []
        self.active.add(key)
        try:
            reasons = self._oneofs(original, update, path) + self._fields(original, update, path)
            return reasons + self._messages(list(original.nested_type), list(update.nested_type), f"{path}.")
        finally:
            self.active.discard(key)

    def _oneofs(self, original: DescriptorProto, update: DescriptorProto, path: str) -> list[str]:
        o_fields = {f.number: f for f in original.field}
        u_numbers = {f.number for f in update.field}
        reasons: list[str] = []
        for index, decl in enumerate(update.oneof_decl):
            members = [f for f in update.field if _in_oneof(f) and f.oneof_index == index]
            moved = [f for f in members if f.number in o_fields and not _in_oneof(o_fields[f.number])]
            existing = [f for f in members if f.number in o_fields and _in_oneof(o_fields[f.number])]
            if len(moved) > 1:
                reasons.append(_reason("MULTIPLE_FIELDS_MOVED_TO_ONEOF", f"{path}.{decl.name}",
                                       f"fields {[f.name for f in moved]} moved into one oneof"))
            elif moved and existing:
                reasons.append(_reason("FIELD_MOVED_TO_EXISTING_ONEOF", f"{path}.{decl.name}",
                                       f"field {moved[0].name} moved into a oneof that existed"))
        kept_oneofs = {decl.name for decl in update.oneof_decl}  # a oneof removed as a whole is ONEOF_REMOVED
        for field_ in original.field:
            if not _in_oneof(field_):
                continue
            name = original.oneof_decl[field_.oneof_index].name
            if name in kept_oneofs and field_.number not in u_numbers:
                reasons.append(_reason("ONEOF_FIELD_REMOVED", f"{path}.{name}",
                                       f"field {field_.name} = {field_.number} left oneof {name}"))
        return reasons

    def _fields(self, original: DescriptorProto, update: DescriptorProto, path: str) -> list[str]:
        o_fields = {f.number: f for f in original.field}
        u_fields = {f.number: f for f in update.field}
        reasons: list[str] = []
        for number in sorted(set(o_fields) | set(u_fields)):
            o_field, u_field = o_fields.get(number), u_fields.get(number)
            if u_field is None:
                assert o_field is not None
                if o_field.label == _F.LABEL_REQUIRED:
                    reasons.append(_reason("REQUIRED_FIELD_REMOVED", f"{path}.{o_field.name}({number})",
                                           f"required field {o_field.name} was removed"))
            elif o_field is None:
                where = f"{path}.{u_field.name}({number})"
                if u_field.label == _F.LABEL_REQUIRED:
                    reasons.append(_reason("REQUIRED_FIELD_ADDED", where, f"required field {u_field.name} was added"))
            else:
                reasons += self._field(o_field, u_field, f"{path}.{u_field.name}({number})")
        return reasons

    def _field(self, original: FieldDescriptorProto, update: FieldDescriptorProto, path: str) -> list[str]:
        reasons: list[str] = []
        if (original.label == _F.LABEL_REQUIRED) != (update.label == _F.LABEL_REQUIRED):
            code = "REQUIRED_FIELD_ADDED" if update.label == _F.LABEL_REQUIRED else "REQUIRED_FIELD_REMOVED"
            reasons.append(_reason(code, path, "the field's label changed to or from required"))
        is_map = self.original.is_map(original) or self.update.is_map(update)
        if (original.label == _F.LABEL_REPEATED) != (update.label == _F.LABEL_REPEATED) and not is_map:
            if original.type in (_F.TYPE_STRING, _F.TYPE_BYTES, _F.TYPE_MESSAGE) and original.type == update.type:
                pass  # FIELD_STRING_OR_BYTES_LABEL_CHANGED: singular and repeated share the wire format
            elif original.type not in (_F.TYPE_STRING, _F.TYPE_BYTES, _F.TYPE_MESSAGE):
                reasons.append(_reason("FIELD_NUMERIC_LABEL_CHANGED", path, "a numeric field changed between "
                                       "singular and repeated"))
        return reasons + self._types(original, update, path)

    def _kind(self, schema: _Schema, field_: FieldDescriptorProto) -> str:
        if schema.is_map(field_):
            return "map"
        return "message" if field_.type == _F.TYPE_MESSAGE else "scalar"

    def _types(self, original: FieldDescriptorProto, update: FieldDescriptorProto, path: str) -> list[str]:
        o_kind, u_kind = self._kind(self.original, original), self._kind(self.update, update)
        if o_kind != u_kind:
            return [_reason("FIELD_KIND_CHANGED", path, f"{o_kind} {_type_name(original)} became {u_kind} "
                            f"{_type_name(update)}")]
        if o_kind == "scalar":
            if _SCALAR_GROUPS[original.type] != _SCALAR_GROUPS[update.type]:
                return [_reason("FIELD_SCALAR_KIND_CHANGED", path, f"{_type_name(original)} became "
                                f"{_type_name(update)}, which is not wire-compatible")]
            return []
        o_message = self.original.messages[original.type_name][0]
        u_message = self.update.messages[update.type_name][0]
        if o_kind == "map":
            o_entry = {f.name: f for f in o_message.field}
            u_entry = {f.name: f for f in u_message.field}
            return (self._types(o_entry["key"], u_entry["key"], f"{path}.key")
                    + self._types(o_entry["value"], u_entry["value"], f"{path}.value"))
        o_name, u_name = self.original.local_name(original.type_name), self.update.local_name(update.type_name)
        if o_name != u_name:
            return [_reason("FIELD_NAMED_TYPE_CHANGED", path, f"message {o_name} became {u_name}")]
        inner = self._message(o_message, u_message, path)
        if inner:  # the details are reported where the message is declared
            codes = sorted({reason.partition(" ")[0] for reason in inner})
            explanation = f"message {o_name} changed incompatibly ({', '.join(codes)})"
            return [_reason("FIELD_NAMED_TYPE_CHANGED", path, explanation)]
        return []


@lru_cache(maxsize=1024)
def _schema(definition: str) -> _Schema:
    """The indexed descriptors of a definition, shared between checks (never modified)."""
    return _Schema.of(file_descriptor_set(definition))


@lru_cache(maxsize=4096)
def _incompatibilities(writer: str, reader: str) -> tuple[str, ...]:
    return tuple(_Diff(_schema(writer), _schema(reader)).compare())


def incompatibilities(writer: str, reader: str) -> list[str]:
    """Why data written with ``writer`` cannot be read with ``reader`` (empty when it can)."""
    return list(_incompatibilities(writer, reader))


def reserved_reuse(earlier: str, new: str) -> list[str]:
    """Fields of ``new`` that use a number ``earlier`` reserved in the same message (by full name)."""
    old, current = _schema(earlier), _schema(new)
    reasons: list[str] = []
    for name, (message, _package) in current.messages.items():
        if name not in old.messages:
            continue
        reserved = [(r.start, r.end) for r in old.messages[name][0].reserved_range]  # end exclusive
        reasons.extend(
            _reason("RESERVED_FIELD_REUSED", f"{name.lstrip('.')}.{f.name}({f.number})",
                    f"number {f.number} is reserved in the earlier version")
            for f in message.field if any(start <= f.number < end for start, end in reserved))
    return reasons
