"""The Confluent Schema Registry REST API over the same registry (served under ``/_confluent``).

A *subject* is a schema of a Glue registry: ``default-registry`` (made on first use), or the one a path
starting ``/registries/{name}`` names. A subject's versions are the schema's AVAILABLE versions; a
Confluent *schema id* is the version's numeric id, unique in the account and region. ``schemaType``
is Glue's ``DataFormat`` (``AVRO`` when absent). Compatibility levels map to Glue's modes
(``*_TRANSITIVE`` is ``*_ALL``); a subject's level is its schema's ``Compatibility``. What this surface
does not keep: schema references (refused), soft deletion (deletes are permanent), a global level
other than each subject's own (``GET /config`` answers ``BACKWARD``, the default of new subjects).

Errors are Confluent's: ``{"error_code": 40401, "message": ...}`` (subject not found), 40402 (version
not found), 40403 (schema not found), 409 (incompatible), 42201 (invalid schema), 42202 (invalid
version), 42203 (invalid compatibility level), 404 (a route this surface does not have, as Confluent answers
an unknown path: clients such as confluent-kafka's serializers probe optional routes and fall back on 404).
"""

from __future__ import annotations

import json
from typing import Any

from glueball.api.identity import Caller
from glueball.api.operations import RAW_BODY, STATUS, Operations, Request, Response
from glueball.errors import EntityNotFoundException, GlueError, InvalidInputException, ServiceError
from glueball.registry.area import RegistryNeeds
from glueball.registry.models import (
    DEFAULT_REGISTRY,
    Compatibility,
    DataFormat,
    RegistryRef,
    SchemaRef,
    SchemaVersion,
    VersionRef,
    VersionStatus,
)
from glueball.registry.service import RegistryService
from glueball.registry.versions import IncompatibleSchemaVersion, VersionService
from glueball.store.scoped import Scope

OPERATIONS = Operations("confluent")
PREFIX = "/_confluent"
CONTENT_TYPE = "application/vnd.schemaregistry.v1+json"
_LEVELS = {"BACKWARD_TRANSITIVE": "BACKWARD_ALL", "FORWARD_TRANSITIVE": "FORWARD_ALL", "FULL_TRANSITIVE": "FULL_ALL"}
_MODES = {mode: level for level, mode in _LEVELS.items()}
_MAX_ID = 2**31 - 1  # versions and ids are 32-bit integers in the store


class ConfluentError(ServiceError):
    """An error of the Confluent API: its numeric ``error_code`` and HTTP status."""

    def __init__(self, error_code: int, status: int, message: str) -> None:
        super().__init__(message)
        self.code = str(error_code)
        self.status = status


def _answer(value: Any, status: int = 200) -> Response:
    return {STATUS: status, RAW_BODY: json.dumps(value).encode()}


class _Subjects:
    """One request's view: the registry the path names, in the caller's account and region."""

    def __init__(self, needs: RegistryNeeds, caller: Caller, registry: str) -> None:
        scope = Scope(caller.account_id, caller.region)
        self.registries = RegistryService(needs.store, scope)
        self.versions = VersionService(needs.store, scope)
        self.registry = registry

    def ref(self, subject: str) -> SchemaRef:
        return SchemaRef(None, self.registry, subject)

    def schema(self, subject: str) -> Any:
        try:
            return self.registries.get_schema(self.ref(subject))
        except EntityNotFoundException:
            raise ConfluentError(40401, 404, f"Subject '{subject}' not found.") from None

    def available(self, subject: str) -> list[int]:
        self.schema(subject)
        numbers: list[int] = []
        token = None
        while True:
            page, token = self.versions.page(self.ref(subject), 100, token)
            numbers += [v.number for v in page if v.status is VersionStatus.AVAILABLE]
            if token is None:
                return numbers

    def version(self, subject: str, number: str) -> SchemaVersion:
        schema = self.schema(subject)
        if number in ("latest", "-1"):
            wanted = VersionRef(self.ref(subject), None, None, True)
        elif number.isdigit() and 0 < int(number) <= _MAX_ID:
            wanted = VersionRef(self.ref(subject), None, int(number))
        else:
            raise ConfluentError(42202, 422, f"The specified version '{number}' is not a valid version id. "
                                             "Allowed values are between [1, 2^31-1] and the string \"latest\"")
        try:
            found = self.versions.get(wanted)
        except EntityNotFoundException:
            found = None
        if found is None or found.status is not VersionStatus.AVAILABLE or not schema.latest_version:
            raise ConfluentError(40402, 404, f"Version {number} not found.")
        return found

    def names(self) -> list[str]:
        names: list[str] = []
        token = None
        try:
            while True:
                page, token = self.registries.list_schemas(RegistryRef(self.registry), 100, token)
                names += [s.name for s in page]
                if token is None:
                    return names
        except EntityNotFoundException:
            return []


def _version_wire(subject: str, version: SchemaVersion) -> dict[str, Any]:
    wire: dict[str, Any] = {"subject": subject, "id": version.schema_id, "version": version.number,
                            "schema": version.definition}
    if version.schema.data_format is not DataFormat.AVRO:
        wire["schemaType"] = version.schema.data_format.value
    return wire


def _schema_body(body: Any) -> tuple[str, DataFormat]:
    if not isinstance(body, dict) or not isinstance(body.get("schema"), str):
        raise ConfluentError(42201, 422, "The request body must be an object with the schema text in 'schema'")
    if body.get("references"):
        raise ConfluentError(42201, 422, "Schema references are not supported by glueball's registry")
    kind = body.get("schemaType") or "AVRO"
    if kind not in DataFormat.__members__:
        raise ConfluentError(42201, 422, f"Unknown schemaType {kind!r}: AVRO, JSON or PROTOBUF")
    if kind == "PROTOBUF":
        return _proto_definition(body["schema"]), DataFormat.PROTOBUF
    return body["schema"], DataFormat(kind)


def _proto_definition(text: str) -> str:
    """``.proto`` text as given, or the text of a base64 file descriptor (how Confluent's Protobuf
    serializers send a schema)."""
    import base64
    import binascii

    from google.protobuf import descriptor_pb2
    from google.protobuf.message import DecodeError

    from glueball.registry.proto_text import proto_text

    if "{" in text or ";" in text:
        return text
    try:
        descriptor = descriptor_pb2.FileDescriptorProto.FromString(base64.b64decode(text, validate=True))
    except (binascii.Error, ValueError, DecodeError):
        return text  # not a descriptor: the parser names what is wrong with it as text
    return proto_text(descriptor)


def _invalid(err: GlueError) -> ConfluentError:
    return ConfluentError(42201, 422, err.message)


def _mode(level: Any) -> Compatibility:
    text = str(level or "").upper()
    mode = _LEVELS.get(text, text)
    if mode not in Compatibility.__members__ or mode == "DISABLED":
        raise ConfluentError(42203, 422, f"Invalid compatibility level {level!r}: one of BACKWARD, BACKWARD_TRANSITIVE"
                                         ", FORWARD, FORWARD_TRANSITIVE, FULL, FULL_TRANSITIVE, NONE")
    return Compatibility(mode)


def _level(mode: Compatibility) -> str:
    return _MODES.get(mode.value, mode.value)


# -- the routes -------------------------------------------------------------------------------------

def _register(subjects: _Subjects, subject: str, body: Any) -> Response:
    definition, data_format = _schema_body(body)
    try:
        schema = subjects.registries.get_schema(subjects.ref(subject))
    except EntityNotFoundException:
        schema = None
    try:
        if schema is None:
            registry = None if subjects.registry == DEFAULT_REGISTRY else RegistryRef(subjects.registry)
            version = subjects.registries.create_schema(registry, subject, data_format, Compatibility.BACKWARD, None,
                                                        definition, None)
        else:
            if schema.data_format is not data_format:
                raise ConfluentError(409, 409, f"Subject '{subject}' holds {schema.data_format.value} schemas, "
                                               f"not {data_format.value}")
            version = subjects.versions.register(subjects.ref(subject), definition, keep_failed=False)
    except IncompatibleSchemaVersion as err:
        raise ConfluentError(409, 409, err.message) from None
    except InvalidInputException as err:
        raise _invalid(err) from None
    if version.status is not VersionStatus.AVAILABLE:
        raise ConfluentError(409, 409, f"The schema is version {version.number} of subject '{subject}', which "
                                       f"is {version.status.value}")
    return _answer(_version_wire(subject, version))


def _lookup(subjects: _Subjects, subject: str, body: Any) -> Response:
    definition, _ = _schema_body(body)
    subjects.schema(subject)
    try:
        version = subjects.versions.by_definition(subjects.ref(subject), definition)
    except EntityNotFoundException:
        raise ConfluentError(40403, 404, "Schema not found") from None
    except InvalidInputException as err:
        raise _invalid(err) from None
    if version.status is not VersionStatus.AVAILABLE:
        raise ConfluentError(40403, 404, "Schema not found")
    return _answer(_version_wire(subject, version))


def _by_id(subjects: _Subjects, schema_id: str, rest: list[str]) -> Response:
    try:
        version = subjects.versions.by_schema_id(int(schema_id)) if schema_id.isdigit() and int(
            schema_id) <= _MAX_ID else None
    except EntityNotFoundException:
        version = None
    if version is None or version.status is not VersionStatus.AVAILABLE:
        raise ConfluentError(40403, 404, f"Schema {schema_id} not found")
    if rest == ["versions"]:
        return _answer([{"subject": version.schema.name, "version": version.number}])
    if rest == ["subjects"]:
        return _answer([version.schema.name])
    if rest == ["schema"]:
        return {STATUS: 200, RAW_BODY: version.definition.encode()}
    wire: dict[str, Any] = {"schema": version.definition}
    if version.schema.data_format is not DataFormat.AVRO:
        wire["schemaType"] = version.schema.data_format.value
    return _answer(wire)


def _delete_subject(subjects: _Subjects, subject: str) -> Response:
    numbers = subjects.available(subject)
    subjects.registries.delete_schema(subjects.ref(subject))
    return _answer(numbers)


def _delete_version(subjects: _Subjects, subject: str, number: str) -> Response:
    version = subjects.version(subject, number)
    if subjects.available(subject) == [version.number]:  # the last one: the subject goes with it
        subjects.registries.delete_schema(subjects.ref(subject))
        return _answer(version.number)
    if version.schema.checkpoint == version.number:  # Glue keeps its checkpoint: move it to the next version
        later = [n for n in subjects.available(subject) if n > version.number]
        earlier = [n for n in subjects.available(subject) if n < version.number]
        subjects.registries.update_schema(subjects.ref(subject), VersionRef(None, None, (later or earlier)[0]),
                                          None, None)
    errors = subjects.versions.delete(subjects.ref(subject), str(version.number))
    if errors:
        raise ConfluentError(40402, 404, errors[0][1].message)
    return _answer(version.number)


def _config(subjects: _Subjects, method: str, subject: str | None, body: Any) -> Response:
    if subject is None:
        if method == "GET":
            return _answer({"compatibilityLevel": _level(Compatibility.BACKWARD)})
        raise ConfluentError(42203, 422, "glueball keeps a compatibility level per subject (PUT /config/{subject}); "
                                         "new subjects start at BACKWARD")
    schema = subjects.schema(subject)
    if method == "GET":
        return _answer({"compatibilityLevel": _level(schema.compatibility)})
    if method == "PUT":
        mode = _mode((body or {}).get("compatibility") if isinstance(body, dict) else None)
        subjects.registries.update_schema(subjects.ref(subject), VersionRef(None, None, schema.checkpoint), mode, None)
        return _answer({"compatibility": _level(mode)})
    raise ConfluentError(404, 404, f"HTTP 404 Not Found: {method} /config/{subject}")


def _compatibility(subjects: _Subjects, subject: str, number: str | None, body: Any, verbose: bool) -> Response:
    definition, _ = _schema_body(body)
    against = None if number in (None, "latest", "-1") else subjects.version(subject, str(number)).number
    subjects.schema(subject)
    try:
        verdict = subjects.versions.check(subjects.ref(subject), definition, against)
    except InvalidInputException as err:
        raise _invalid(err) from None
    answer: dict[str, Any] = {"is_compatible": verdict.compatible}
    if verbose:
        answer["messages"] = list(verdict.reasons)
    return _answer(answer)


def route(subjects: _Subjects, method: str, path: list[str], query: dict[str, str], body: Any) -> Response:
    """Answer one Confluent API request (``path``: the segments below the prefix and registry)."""
    head, rest = (path[0], path[1:]) if path else ("", [])
    if method == "GET" and path == ["schemas", "types"]:
        return _answer([f.value for f in DataFormat])
    if method == "GET" and head == "schemas" and len(rest) >= 2 and rest[0] == "ids":
        return _by_id(subjects, rest[1], rest[2:])
    if head == "subjects":
        if method == "GET" and not rest:
            return _answer(subjects.names())
        if len(rest) == 1:
            if method == "POST":
                return _lookup(subjects, rest[0], body)
            if method == "DELETE":
                return _delete_subject(subjects, rest[0])
        if len(rest) == 2 and rest[1] == "versions":
            if method == "GET":
                return _answer(subjects.available(rest[0]))
            if method == "POST":
                return _register(subjects, rest[0], body)
        if len(rest) >= 3 and rest[1] == "versions":
            if method == "GET" and len(rest) == 3:
                return _answer(_version_wire(rest[0], subjects.version(rest[0], rest[2])))
            if method == "GET" and rest[3:] == ["schema"]:
                return {STATUS: 200, RAW_BODY: subjects.version(rest[0], rest[2]).definition.encode()}
            if method == "DELETE" and len(rest) == 3:
                return _delete_version(subjects, rest[0], rest[2])
    if head == "config" and len(rest) <= 1:
        return _config(subjects, method, rest[0] if rest else None, body)
    if method == "POST" and head == "compatibility" and len(rest) >= 3 and rest[0] == "subjects" \
            and rest[2] == "versions" and len(rest) <= 4:
        return _compatibility(subjects, rest[1], rest[3] if len(rest) == 4 else None, body,
                              query.get("verbose", "").lower() == "true")
    raise ConfluentError(404, 404, f"HTTP 404 Not Found: {method} /{'/'.join(path)} is not a route of glueball's "
                                   "Schema Registry API")


def _registry_of(path: list[str]) -> tuple[str, list[str]]:
    if len(path) >= 2 and path[0] == "registries":
        return path[1], path[2:]
    return DEFAULT_REGISTRY, path


def glue_equivalent(request: Request) -> tuple[str, dict[str, Any]]:
    """The Glue operation and request a Confluent request amounts to, for authorization with ``--auth iam``
    (``glue:RegisterSchemaVersion`` on ``schema/REGISTRY/SUBJECT`` to register, ``glue:GetSchemaVersion`` to
    read a version, ...). Registering a new subject creates its schema under ``glue:RegisterSchemaVersion``."""
    registry, path = _registry_of(request["path"])
    method = request["method"]
    registry_only = {"RegistryId": {"RegistryName": registry}}
    if path[:1] == ["compatibility"] and len(path) >= 2:
        path = path[1:]
    if path[:1] == ["subjects"] and len(path) >= 2:
        schema = {"SchemaId": {"RegistryName": registry, "SchemaName": path[1]}}
        if len(path) == 2:
            return ("DeleteSchema" if method == "DELETE" else "GetSchemaByDefinition"), schema
        if len(path) == 3:
            return ("RegisterSchemaVersion" if method == "POST" else "ListSchemaVersions"), schema
        if method == "POST":  # a compatibility test
            return "GetSchemaVersion", schema
        return ("DeleteSchemaVersions" if method == "DELETE" else "GetSchemaVersion"), schema
    if path[:1] == ["config"] and len(path) == 2:
        schema = {"SchemaId": {"RegistryName": registry, "SchemaName": path[1]}}
        return ("UpdateSchema" if method == "PUT" else "GetSchema"), schema
    if path[:1] == ["subjects"]:
        return "ListSchemas", registry_only
    if path[:1] == ["schemas"]:
        return "GetSchemaVersion", registry_only
    return "GetRegistry", registry_only


@OPERATIONS.operation("Request")
def request(needs: RegistryNeeds, caller: Caller, request: Request) -> Response:
    """Every request under the prefix: ``/registries/{name}/...`` picks a registry, then :func:`route`."""
    registry, path = _registry_of(request["path"])
    subjects = _Subjects(needs, caller, registry)
    try:
        return route(subjects, request["method"], path, request["query"], request["body"])
    except EntityNotFoundException as err:  # the registry the path names
        raise ConfluentError(40401, 404, err.message) from None
