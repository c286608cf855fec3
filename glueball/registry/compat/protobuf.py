"""Protobuf definitions: compiled by protoc (the one bundled in ``grpcio-tools``), refused with its messages.

A definition is one ``.proto`` file (proto2 or proto3). It may import the well-known types
(``google/protobuf/*.proto``, from grpcio-tools' include path) and nothing else, since a registry
schema stands alone. As the Glue documentation says, ``extensions`` and ``groups`` are not supported.
"""

from __future__ import annotations

import json
import tempfile
import threading
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from google.protobuf import descriptor_pb2
from google.protobuf.json_format import MessageToDict
from grpc_tools import _protoc_compiler, protoc

from glueball.registry.compat.verdicts import InvalidSchemaDefinition

FILE_NAME = "schema.proto"  # the name the definition's file has in its FileDescriptorSet
_INCLUDE = str(resources.files("grpc_tools") / "_proto")
_PROTOC_LOCK = threading.Lock()  # protoc's command line keeps process-wide state while it runs


def _refuse(message: str) -> InvalidSchemaDefinition:
    return InvalidSchemaDefinition(f"Invalid Protobuf schema: {message}")


@lru_cache(maxsize=1024)
def _compiled(definition: str) -> bytes:
    with tempfile.TemporaryDirectory(prefix="glueball-proto-") as folder:
        Path(folder, FILE_NAME).write_text(definition, encoding="utf-8")
        output = Path(folder, "schema.pb")
        with _PROTOC_LOCK:
            try:
                # the generator entry point reports protoc's errors as values instead of printing them
                _protoc_compiler.get_protos(FILE_NAME.encode(), [folder.encode(), _INCLUDE.encode()])
            except _protoc_compiler.ProtocErrors as e:
                raise _refuse("; ".join(_describe(error) for error in e.errors())) from e
            status = protoc.main(["protoc", f"-I{folder}", f"-I{_INCLUDE}", "--include_imports",
                                  f"--descriptor_set_out={output}", FILE_NAME])
        if status != 0:
            raise _refuse(f"protoc exited with status {status}")
        compiled = output.read_bytes()
    files = descriptor_pb2.FileDescriptorSet.FromString(compiled)
    _check_supported(files.file[-1])
    return compiled


def _describe(error: Any) -> str:
    where = f"{error.filename.decode() if isinstance(error.filename, bytes) else error.filename}"
    if error.line >= 0:
        where += f":{error.line + 1}:{error.column + 1}"
    message = error.message.decode() if isinstance(error.message, bytes) else error.message
    return f"{where}: {message}"


def _check_supported(file: descriptor_pb2.FileDescriptorProto) -> None:
    if file.extension:
        raise _refuse(f"extensions are not supported (extend {file.extension[0].extendee.lstrip('.')})")

    def visit(message: descriptor_pb2.DescriptorProto, scope: str) -> None:
        name = f"{scope}{message.name}"
        if message.extension or message.extension_range:
            raise _refuse(f"extensions are not supported (message {name})")
        for field in message.field:
            if field.type == descriptor_pb2.FieldDescriptorProto.TYPE_GROUP:
                raise _refuse(f"groups are not supported (field {field.name} of message {name})")
        for nested in message.nested_type:
            visit(nested, f"{name}.")

    for message in file.message_type:
        visit(message, f"{file.package}." if file.package else "")


def file_descriptor_set(definition: str) -> descriptor_pb2.FileDescriptorSet:
    """The compiled definition: its imports first, the definition's own file (``schema.proto``) last.

    Raises :class:`InvalidSchemaDefinition` with protoc's messages (``file:line:column: message``).
    The result is a fresh message each call; the caller may change it.
    """
    return descriptor_pb2.FileDescriptorSet.FromString(_compiled(definition))


def validate(definition: str) -> None:
    """Raise :class:`InvalidSchemaDefinition` unless protoc compiles ``definition``."""
    _compiled(definition)


def canonical(definition: str) -> str:
    """The definition's file descriptor as sorted JSON: declaration order and formatting do not count.

    Messages, enums and services are sorted by name, fields and enum values by number, imports by
    path; a field names its oneof instead of pointing to it by position.
    """
    file = file_descriptor_set(definition).file[-1]
    document = MessageToDict(file, preserving_proto_field_name=True)
    document.pop("name", None)
    document.pop("source_code_info", None)
    document["dependency"] = sorted(document.get("dependency", []))
    return json.dumps(_sorted(document), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _sorted(document: dict[str, Any]) -> dict[str, Any]:
    for key in ("message_type", "nested_type", "enum_type", "service"):
        if key in document:
            document[key] = sorted((_sorted(child) for child in document[key]), key=lambda c: c["name"])
    if "field" in document:
        oneofs = [decl["name"] for decl in document.pop("oneof_decl", [])]
        for field in document["field"]:
            if "oneof_index" in field:
                field["oneof"] = oneofs[field.pop("oneof_index")]
        document["field"] = sorted(document["field"], key=lambda f: f["number"])
    if "value" in document:
        document["value"] = sorted(document["value"], key=lambda v: (v["number"] if "number" in v else 0, v["name"]))
    for key in ("reserved_range", "reserved_name"):
        if key in document:
            document[key] = sorted(document[key], key=lambda r: json.dumps(r, sort_keys=True))
    return document
