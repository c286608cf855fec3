"""The catalog columns of a schema version: what ``GetTable`` answers for a table with a ``SchemaReference``.

Types are the Data Catalog's (Hive) type names, as Glue maps them:

- Avro: ``long`` bigint, ``int`` int, ``float``/``double``, ``boolean``, ``string``/``enum`` string,
  ``bytes``/``fixed`` binary, records ``struct<...>``, arrays ``array<...>``, maps ``map<string,...>``,
  a union of null and one type that type (other unions ``uniontype<...>``); logical types ``date``,
  ``timestamp-*`` timestamp, ``decimal`` decimal(p,s).
- JSON Schema: ``integer`` bigint, ``number`` double, ``boolean``, ``string``, ``object`` struct of its
  properties (a map of string without them), ``array`` array of its items; a type list with null is the
  other type.
- Protobuf: the first message's fields (``int32`` int, ``int64`` bigint, ``uint32`` bigint, ``uint64``
  decimal(20,0), ``bool``, ``float``, ``double``, ``string``/enums string, ``bytes`` binary, messages
  struct, repeated array, maps map).
"""

from __future__ import annotations

import json
from typing import Any

_AVRO_PRIMITIVES = {"null": "void", "boolean": "boolean", "int": "int", "long": "bigint", "float": "float",
                    "double": "double", "bytes": "binary", "string": "string"}
_JSON_TYPES = {"integer": "bigint", "number": "double", "boolean": "boolean", "string": "string"}


def _avro_type(schema: Any, named: dict[str, str]) -> str:
    if isinstance(schema, str):
        return _AVRO_PRIMITIVES.get(schema) or named.get(schema, "string")
    if isinstance(schema, list):
        members = [m for m in schema if m != "null"]
        if len(members) == 1:
            return _avro_type(members[0], named)
        return "uniontype<" + ",".join(_avro_type(m, named) for m in members) + ">"
    logical = schema.get("logicalType")
    if logical == "date":
        return "date"
    if logical in ("timestamp-millis", "timestamp-micros", "local-timestamp-millis", "local-timestamp-micros"):
        return "timestamp"
    if logical == "decimal":
        return f"decimal({schema.get('precision', 38)},{schema.get('scale', 0)})"
    kind = schema.get("type")
    if kind == "record":
        inner = ",".join(f"{f['name']}:{_avro_type(f['type'], named)}" for f in schema.get("fields", []))
        named[schema.get("name", "")] = f"struct<{inner}>"
        return named[schema.get("name", "")]
    if kind == "enum":
        named[schema.get("name", "")] = "string"
        return "string"
    if kind == "fixed":
        named[schema.get("name", "")] = "binary"
        return "binary"
    if kind == "array":
        return f"array<{_avro_type(schema['items'], named)}>"
    if kind == "map":
        return f"map<string,{_avro_type(schema['values'], named)}>"
    return _avro_type(kind, named)


def _json_type(schema: Any, root: dict[str, Any]) -> str:
    if not isinstance(schema, dict):
        return "string"
    if "$ref" in schema and str(schema["$ref"]).startswith("#/"):
        target: Any = root
        for part in str(schema["$ref"])[2:].split("/"):
            target = target.get(part, {}) if isinstance(target, dict) else {}
        return _json_type(target, root)
    kind = schema.get("type")
    if isinstance(kind, list):
        kinds = [k for k in kind if k != "null"]
        kind = kinds[0] if len(kinds) == 1 else None
    if kind == "object":
        properties = schema.get("properties") or {}
        if not properties:
            return "map<string,string>"
        return "struct<" + ",".join(f"{name}:{_json_type(sub, root)}" for name, sub in properties.items()) + ">"
    if kind == "array":
        return f"array<{_json_type(schema.get('items') or {}, root)}>"
    return _JSON_TYPES.get(str(kind), "string")


_PROTO_SCALARS = {"TYPE_INT32": "int", "TYPE_SINT32": "int", "TYPE_SFIXED32": "int", "TYPE_INT64": "bigint",
                  "TYPE_SINT64": "bigint", "TYPE_SFIXED64": "bigint", "TYPE_UINT32": "bigint",
                  "TYPE_FIXED32": "bigint", "TYPE_UINT64": "decimal(20,0)", "TYPE_FIXED64": "decimal(20,0)",
                  "TYPE_BOOL": "boolean", "TYPE_FLOAT": "float", "TYPE_DOUBLE": "double", "TYPE_STRING": "string",
                  "TYPE_BYTES": "binary", "TYPE_ENUM": "string"}


def _proto_type(field: Any, depth: int = 0) -> str:
    from google.protobuf.descriptor import FieldDescriptor

    names = {getattr(FieldDescriptor, n): n for n in _PROTO_SCALARS}
    if field.message_type is not None:
        if field.message_type.GetOptions().map_entry:
            key, value = field.message_type.fields_by_name["key"], field.message_type.fields_by_name["value"]
            return f"map<{_proto_type(key, depth)},{_proto_type(value, depth)}>"
        inner = "struct<" + ",".join(f"{f.name}:{_proto_type(f, depth + 1)}"
                                     for f in field.message_type.fields) + ">" if depth < 32 else "string"
        base = inner
    else:
        base = _PROTO_SCALARS[names[field.type]]
    repeated = getattr(field, "is_repeated", None)
    if repeated if repeated is not None else field.label == field.LABEL_REPEATED:
        return f"array<{base}>"
    return base


def columns_of(data_format: str, definition: str) -> list[dict[str, str]]:
    """The ``Columns`` (``Name``, ``Type``) of a schema version's record type.

    Raises:
        ValueError: the definition is not a record (an Avro primitive, a JSON Schema that is not an object).
    """
    if data_format == "AVRO":
        schema = json.loads(definition)
        if not isinstance(schema, dict) or schema.get("type") != "record":
            raise ValueError("The Avro schema is not a record: a table needs named fields")
        named: dict[str, str] = {}
        named[schema.get("name", "")] = "struct<>"  # a record that refers to itself
        return [{"Name": f["name"], "Type": _avro_type(f["type"], named)} for f in schema.get("fields", [])]
    if data_format == "JSON":
        schema = json.loads(definition)
        properties = schema.get("properties") if isinstance(schema, dict) else None
        if not properties:
            raise ValueError("The JSON Schema has no properties: a table needs named fields")
        return [{"Name": name, "Type": _json_type(sub, schema)} for name, sub in properties.items()]
    from glueball.registry.serde import message_types

    message = message_types(definition)[0].DESCRIPTOR
    return [{"Name": f.name, "Type": _proto_type(f)} for f in message.fields]
