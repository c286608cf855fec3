"""The Glue Schema Registry wire format: a serializer and deserializer for producers, consumers and the runtime.

A framed record is::

    byte 0      3                    header version
    byte 1      0 or 5               compression: none, or zlib
    bytes 2-17  the schema version id (a UUID, 16 bytes, big-endian as the UUID's bytes)
    bytes 18-   the payload (zlib-compressed with compression 5)

and its payload, by the schema's data format: ``AVRO`` one binary Avro datum (no container, no schema);
``JSON`` the record as UTF-8 JSON text; ``PROTOBUF`` the index of the record's message type among the
file's message types (depth first, a varint) followed by the message's bytes.

:class:`Serializer` finds (or, with ``auto_register``, registers) the version of its definition once
and frames every record with its id; :class:`Deserializer` reads the id, fetches the version once
(versions never change) and decodes. Both talk to the registry through any Glue client (boto3 against
a server, or glueball's embedded client) and keep what they learnt in memory.
"""

from __future__ import annotations

import io
import json
import threading
import uuid
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

HEADER_VERSION = 3
COMPRESSION_NONE = 0
COMPRESSION_ZLIB = 5
HEADER_LENGTH = 18
FORMATS = ("AVRO", "JSON", "PROTOBUF")


class SerDeError(Exception):
    """A record that cannot be framed or unframed, or a schema the registry refused (the reason said)."""


class UnknownSchemaVersion(SerDeError):
    """The record names a schema version id the registry does not have."""


@dataclass(frozen=True)
class Frame:
    """An unframed record: its schema version id and its (decompressed) payload."""

    version_id: str
    payload: bytes


def frame(version_id: str, payload: bytes, compress: bool = False) -> bytes:
    """``payload`` framed with the version id, zlib-compressed when ``compress``."""
    body = zlib.compress(payload) if compress else payload
    return bytes((HEADER_VERSION, COMPRESSION_ZLIB if compress else COMPRESSION_NONE)) + uuid.UUID(
        version_id).bytes + body


def is_framed(data: bytes | bytearray | memoryview | None) -> bool:
    """Whether ``data`` starts like a registry-framed record (header 3, compression 0 or 5, a full header)."""
    return data is not None and len(data) >= HEADER_LENGTH and data[0] == HEADER_VERSION and data[1] in (
        COMPRESSION_NONE, COMPRESSION_ZLIB)


def unframe(data: bytes | bytearray | memoryview) -> Frame:
    """The version id and payload of a framed record.

    Raises:
        SerDeError: not a framed record, an unknown compression, or a payload that does not inflate.
    """
    if len(data) < HEADER_LENGTH:
        raise SerDeError(f"A registry-framed record has at least {HEADER_LENGTH} bytes; this one has {len(data)}")
    if data[0] != HEADER_VERSION:
        raise SerDeError(f"Header version byte {data[0]} is not {HEADER_VERSION}: not a schema registry record")
    version_id = str(uuid.UUID(bytes=bytes(data[2:HEADER_LENGTH])))
    body = bytes(data[HEADER_LENGTH:])
    if data[1] == COMPRESSION_ZLIB:
        try:
            body = zlib.decompress(body)
        except zlib.error as e:
            raise SerDeError(f"The zlib-compressed payload does not inflate: {e}") from None
    elif data[1] != COMPRESSION_NONE:
        raise SerDeError(f"Compression byte {data[1]} is neither 0 (none) nor 5 (zlib)")
    return Frame(version_id, body)


# -- payload codecs ---------------------------------------------------------------------------------

# a payload decoder: (the bytes, where the payload starts in them) -> the record
Decoder = Callable[[bytes, int], Any]


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        piece = value & 0x7F
        value >>= 7
        out.append(piece | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _read_varint(data: bytes) -> tuple[int, int]:
    value = shift = 0
    for index, byte in enumerate(data):
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, index + 1
        shift += 7
    raise SerDeError("The Protobuf payload ends inside its message index")


def message_types(definition: str) -> list[Any]:
    """The message classes of a .proto definition, depth first, map entries left out (the order of the
    payload's message index)."""
    from google.protobuf import descriptor_pool, message_factory

    from glueball.registry.compat.protobuf import file_descriptor_set

    pool = descriptor_pool.DescriptorPool()
    files = file_descriptor_set(definition).file
    for proto in files:  # imports first, the schema's own file last
        pool.Add(proto)
    descriptor = pool.FindFileByName(files[-1].name)
    found: list[Any] = []

    def walk(message: Any) -> None:
        found.append(message_factory.GetMessageClass(message))
        for nested in message.nested_types:
            if not nested.GetOptions().map_entry:  # a map field's entry type is no message of its own
                walk(nested)

    for message in descriptor.message_types_by_name.values():
        walk(message)
    return found


def message_values(message: Any) -> dict[str, Any]:
    """A Protobuf message as a dict of its fields by name: numbers stay numbers, enums are their names,
    nested messages dicts, repeated fields lists, map fields dicts; an unset message field is None."""
    values: dict[str, Any] = {}
    for field in message.DESCRIPTOR.fields:
        value = getattr(message, field.name)
        is_message = field.message_type is not None
        if is_message and field.message_type.GetOptions().map_entry:
            value_field = field.message_type.fields_by_name["value"]
            values[field.name] = {k: _field_value(value_field, v) for k, v in value.items()}
        elif _is_repeated(field):
            values[field.name] = [_field_value(field, v) for v in value]
        elif is_message and not message.HasField(field.name):
            values[field.name] = None
        else:
            values[field.name] = _field_value(field, value)
    return values


def _is_repeated(field: Any) -> bool:
    repeated = getattr(field, "is_repeated", None)
    return bool(repeated) if repeated is not None else field.label == field.LABEL_REPEATED


def _field_value(field: Any, value: Any) -> Any:
    if field.message_type is not None:
        return message_values(value)
    if field.enum_type is not None:
        known = field.enum_type.values_by_number.get(value)
        return known.name if known is not None else str(value)
    return value


def avro_decoder(writer: str, reader: str | None = None) -> Decoder:
    """A decoder of binary Avro datums written with ``writer``, resolved to ``reader`` (default: the writer)."""
    import fastavro

    writer_schema = fastavro.parse_schema(json.loads(writer))
    reader_schema = fastavro.parse_schema(json.loads(reader)) if reader is not None else None

    read = fastavro.schemaless_reader

    def decode(data: bytes, start: int = 0) -> Any:
        stream = io.BytesIO(data)
        if start:
            stream.seek(start)
        datum = read(stream, writer_schema, reader_schema)
        if stream.tell() != len(data):
            raise SerDeError(f"{len(data) - stream.tell()} byte(s) left after the Avro datum")
        return datum

    return decode


def payload_decoder(data_format: str, definition: str, reader: str | None = None) -> Decoder:
    """How a payload of ``data_format`` written with ``definition`` is decoded (Avro resolved to ``reader``).

    Avro gives the datum (dicts, lists, ...), JSON the parsed document, Protobuf the message as a dict
    (``preserving_proto_field_name``).
    """
    if data_format == "AVRO":
        return avro_decoder(definition, reader)
    if data_format == "JSON":
        def decode_json(data: bytes, start: int = 0) -> Any:
            return json.loads(data[start:].decode("utf-8"))

        return decode_json
    if data_format == "PROTOBUF":
        types = message_types(definition)

        def decode(data: bytes, start: int = 0) -> Any:
            payload = data[start:]
            index, used = _read_varint(payload)
            if index >= len(types):
                raise SerDeError(f"Message index {index} is beyond the {len(types)} message type(s) of the schema")
            message = types[index]()
            message.ParseFromString(payload[used:])
            return message_values(message)

        return decode
    raise SerDeError(f"Data format {data_format!r} is not one of {', '.join(FORMATS)}")


def payload_encoder(data_format: str, definition: str) -> Callable[[Any], bytes]:
    """How a record becomes the payload of ``data_format`` (Protobuf: a message object, or a dict for the
    file's first message type)."""
    if data_format == "AVRO":
        import fastavro

        schema = fastavro.parse_schema(json.loads(definition))

        def encode_avro(record: Any) -> bytes:
            out = io.BytesIO()
            fastavro.schemaless_writer(out, schema, record)
            return out.getvalue()

        return encode_avro
    if data_format == "JSON":
        return lambda record: json.dumps(record, separators=(",", ":")).encode()
    if data_format == "PROTOBUF":
        from google.protobuf.json_format import ParseDict

        types = message_types(definition)
        names = [t.DESCRIPTOR.full_name for t in types]

        def encode_proto(record: Any) -> bytes:
            if isinstance(record, dict):
                record = ParseDict(record, types[0]())
            name = record.DESCRIPTOR.full_name
            if name not in names:
                raise SerDeError(f"Message type {name} is not defined by the schema ({', '.join(names)})")
            return _varint(names.index(name)) + record.SerializeToString()

        return encode_proto
    raise SerDeError(f"Data format {data_format!r} is not one of {', '.join(FORMATS)}")


# -- the registry side ------------------------------------------------------------------------------

@dataclass(frozen=True)
class KnownVersion:
    """A schema version as the SerDe keeps it."""

    version_id: str
    data_format: str
    definition: str
    schema_arn: str
    number: int


def _error_code(exc: Exception) -> str | None:
    response = getattr(exc, "response", None)
    return response.get("Error", {}).get("Code") if isinstance(response, dict) else None


class VersionCache:
    """Schema versions by id, fetched once each through a Glue client (``GetSchemaVersion``)."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self._known: dict[str, KnownVersion] = {}
        self._lock = threading.Lock()

    def get(self, version_id: str) -> KnownVersion:
        """The version ``version_id``.

        Raises:
            UnknownSchemaVersion: the registry has no such version.
        """
        with self._lock:
            known = self._known.get(version_id)
        if known is not None:
            return known
        try:
            answer = self.client.get_schema_version(SchemaVersionId=version_id)
        except Exception as exc:
            if _error_code(exc) == "EntityNotFoundException":
                raise UnknownSchemaVersion(f"Schema version {version_id} is not in the registry") from None
            raise
        known = KnownVersion(answer["SchemaVersionId"], answer["DataFormat"], answer["SchemaDefinition"],
                             answer["SchemaArn"], answer["VersionNumber"])
        with self._lock:
            self._known[version_id] = known
        return known

    def remember(self, version: KnownVersion) -> None:
        with self._lock:
            self._known[version.version_id] = version


class Serializer:
    """Frames records of one schema definition with its version id.

    Args:
        client: a Glue client.
        schema_name / registry_name: the schema (in ``default-registry`` without a registry name).
        definition / data_format: what the records are written with.
        auto_register: register the definition when the schema lacks it (creating the schema with
            ``compatibility`` when it does not exist), as the AWS SerDe's ``schemaAutoRegistrationEnabled``.
        compress: zlib-compress payloads (compression byte 5).
    """

    def __init__(self, client: Any, schema_name: str, definition: str, data_format: str = "AVRO",
                 registry_name: str = "default-registry", auto_register: bool = False, compress: bool = False,
                 compatibility: str = "BACKWARD") -> None:
        if data_format not in FORMATS:
            raise SerDeError(f"Data format {data_format!r} is not one of {', '.join(FORMATS)}")
        self.client = client
        self.schema_id = {"RegistryName": registry_name, "SchemaName": schema_name}
        self.definition = definition
        self.data_format = data_format
        self.auto_register = auto_register
        self.compress = compress
        self.compatibility = compatibility
        self._encode = payload_encoder(data_format, definition)
        self._version_id: str | None = None

    @property
    def version_id(self) -> str:
        """The id of this definition's version (looked up, or registered, on first use)."""
        if self._version_id is None:
            self._version_id = self._find_or_register()
        return self._version_id

    def _find_or_register(self) -> str:
        try:
            found = self.client.get_schema_by_definition(SchemaId=self.schema_id, SchemaDefinition=self.definition)
            if found["Status"] == "AVAILABLE":
                return str(found["SchemaVersionId"])
        except Exception as exc:
            if _error_code(exc) != "EntityNotFoundException":
                raise
        if not self.auto_register:
            raise SerDeError(f"Schema {self.schema_id['RegistryName']}/{self.schema_id['SchemaName']} has no "
                             "AVAILABLE version of this definition (auto-registration is off)")
        try:
            answer = self.client.register_schema_version(SchemaId=self.schema_id, SchemaDefinition=self.definition)
        except Exception as exc:
            if _error_code(exc) != "EntityNotFoundException":
                raise
            created = self.client.create_schema(
                RegistryId={"RegistryName": self.schema_id["RegistryName"]}, SchemaName=self.schema_id["SchemaName"],
                DataFormat=self.data_format, Compatibility=self.compatibility, SchemaDefinition=self.definition)
            return str(created["SchemaVersionId"])
        if answer["Status"] != "AVAILABLE":
            raise SerDeError(f"Schema {self.schema_id['RegistryName']}/{self.schema_id['SchemaName']} refused the "
                             f"definition: version {answer['VersionNumber']} is {answer['Status']}: "
                             f"{self._why_refused(answer['VersionNumber'])}")
        return str(answer["SchemaVersionId"])

    def _why_refused(self, number: int) -> str:
        """The reasons a definition failed its check, worked out as the registry did: the schema's mode and
        its AVAILABLE versions since the checkpoint, through the same rules (:mod:`glueball.registry.compat`)."""
        from glueball.registry import compat

        schema = self.client.get_schema(SchemaId=self.schema_id)
        earlier: list[str] = []
        for page in self.client.get_paginator("list_schema_versions").paginate(SchemaId=self.schema_id):
            for item in page["Schemas"]:
                if item["Status"] == "AVAILABLE" and schema["SchemaCheckpoint"] <= item["VersionNumber"] < number:
                    earlier.append(self.client.get_schema_version(
                        SchemaVersionId=item["SchemaVersionId"])["SchemaDefinition"])
        verdict = compat.check(self.data_format, schema["Compatibility"], self.definition, earlier)
        reasons = "; ".join(verdict.reasons) or "not compatible with the earlier versions"
        return f"{reasons} (compatibility {schema['Compatibility']})"

    def serialize(self, record: Any) -> bytes:
        """``record`` encoded with the definition and framed."""
        return frame(self.version_id, self._encode(record), self.compress)


class Deserializer:
    """Decodes framed records of any schema version, fetching each version once.

    With ``reader`` (an Avro definition) Avro records are resolved to it (new fields get their
    defaults, removed ones are dropped), as a consumer reading with a newer or older version does.
    """

    def __init__(self, client: Any, reader: str | None = None, cache: VersionCache | None = None) -> None:
        self.cache = cache or VersionCache(client)
        self.reader = reader
        self._decoders: dict[str, Decoder] = {}
        self._by_header: dict[bytes, Decoder] = {}  # keyed by the frame's 16 id bytes: no UUID text per record
        # the last uncompressed header seen and its decoder: a stream of one version costs one startswith
        self._last: tuple[bytes, Decoder] | None = None

    def decoder_of(self, version_id: str) -> Decoder:
        decoder = self._decoders.get(version_id)
        if decoder is None:
            version = self.cache.get(version_id)
            decoder = payload_decoder(version.data_format, version.definition,
                                      self.reader if version.data_format == "AVRO" else None)
            self._decoders[version_id] = decoder
        return decoder

    def deserialize(self, data: bytes | bytearray | memoryview) -> Any:
        """The record in a framed ``data``.

        Raises:
            SerDeError: not a framed record, or a payload that does not decode.
            UnknownSchemaVersion: the record's version is not in the registry.
        """
        data = bytes(data)
        if self._last is not None and data.startswith(self._last[0]):
            return _decoded(self._last[1], data, HEADER_LENGTH, self._last[0][2:])
        key = data[2:HEADER_LENGTH]
        decoder = self._by_header.get(key)
        if decoder is not None and data[0] == HEADER_VERSION and data[1] == COMPRESSION_NONE:
            self._last = (data[:HEADER_LENGTH], decoder)
            return _decoded(decoder, data, HEADER_LENGTH, key)
        unframed = unframe(data)
        decoder = self._by_header[key] = self.decoder_of(unframed.version_id)
        return _decoded(decoder, unframed.payload, 0, key)


def _decoded(decoder: Decoder, data: bytes, start: int, version_key: bytes) -> Any:
    try:
        return decoder(data, start)
    except SerDeError:
        raise
    except Exception as e:  # noqa: BLE001 - each format's decoder raises its own kinds
        version_id = str(uuid.UUID(bytes=version_key))
        raise SerDeError(f"The payload does not decode with schema version {version_id}: {e}") from None
