"""The REST protocols: REST-JSON (DataBrew, the schema registry's REST surface) and REST-XML (S3).

An operation is found by HTTP method and the model's ``requestUri`` template
(``/{Bucket}/{Key+}``, ``/{Bucket}?list-type=2``, ``/recipes/{name}``): labels match one path
segment, greedy labels (``{Key+}``) the rest of the path, and literal query keys must be present;
the most specific template wins. Input members come from where the model places them — the
path (``uri``), the query string, headers, a header-prefix map (``x-amz-meta-*``), the payload
member (raw bytes or a document) or the body (the remaining members as JSON or XML). Output
members go back the same way: status code, headers, payload or body. Errors are
``{"message"}`` with ``x-amzn-ErrorType`` (REST-JSON) or S3's ``<Error><Code/><Message/>
<RequestId/></Error>`` (REST-XML).
"""

from __future__ import annotations

import base64
import datetime as dt
import email.utils
import json
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

import botocore.model
from botocore.model import ListShape, MapShape, Shape, StructureShape

from glueball.api.bodies import FileRange
from glueball.edge.protocols.base import CodedError, Protocol
from glueball.edge.protocols.json import read_json
from glueball.edge.protocols.xmlshapes import (
    element_xml,
    escape,
    member_name,
    parse_document,
    read_structure,
    scalar_text,
    scalar_value,
    timestamp_text,
)
from glueball.edge.wire import WireRequest, WireResponse
from glueball.errors import SerializationException, ServiceError

_MAX_DOCUMENT = 4 * 1024 * 1024  # a request document (not an upload) read from a spooled body


class RestError(CodedError):
    """A REST protocol error with its code and status."""


@dataclass(frozen=True)
class _Route:
    operation: str
    method: str
    pattern: re.Pattern[str]
    labels: tuple[str, ...]
    query: tuple[tuple[str, str | None], ...]
    headers: tuple[str, ...]
    specificity: tuple[int, int, int]


def _route(operation: botocore.model.OperationModel) -> _Route:
    template = str(operation.http.get("requestUri", "/"))
    path, _, query = template.partition("?")
    labels: list[str] = []
    regex = ""
    literal = 0
    for piece in re.split(r"(\{[^}]+\})", path):
        if piece.startswith("{"):
            name = piece[1:-1]
            greedy = name.endswith("+")
            labels.append(name.rstrip("+"))
            regex += "(.+)" if greedy else "([^/]+)"
        else:
            regex += re.escape(piece)
            literal += len(piece)
    if path.endswith("/") and path != "/":
        regex = regex[:-1] + "/?"
    required = [(key, value or None) for key, _, value in (p.partition("=") for p in query.split("&") if p)]
    # operations that share a template (S3's PutObject, CopyObject, UploadPart) differ by the query
    # keys and headers they require (CopyObject: x-amz-copy-source; UploadPart: partNumber, uploadId)
    headers: list[str] = []
    shape = operation.input_shape
    for name in shape.required_members if shape is not None else []:
        member = shape.members[name]
        location = member.serialization.get("location")
        if location == "querystring":
            required.append((member_name(member, name), None))
        elif location == "header":
            headers.append(member_name(member, name).lower())
    greedy_count = sum(1 for piece in re.findall(r"\{[^}]+\}", path) if piece.endswith("+}"))
    return _Route(operation.name, str(operation.http.get("method", "POST")).upper(), re.compile(f"^{regex}$"),
                  tuple(labels), tuple(required), tuple(headers),
                  (len(required) + len(headers), literal, -greedy_count))


class RestProtocol(Protocol):
    """REST-JSON or REST-XML for one service model."""

    model: botocore.model.ServiceModel

    def __init__(self, model: botocore.model.ServiceModel) -> None:
        super().__init__(model)
        self.xml = model.protocol == "rest-xml"
        self.routes = sorted((_route(model.operation_model(name)) for name in model.operation_names),
                             key=lambda r: r.specificity, reverse=True)

    # -- reading

    def path_of(self, request: WireRequest) -> str:
        """The path routes are matched against (S3 adds the bucket a virtual host names)."""
        return request.path

    def _match(self, request: WireRequest) -> tuple[_Route, dict[str, str]] | None:
        pairs = dict(request.query_pairs())
        path = self.path_of(request)
        for route in self.routes:
            if route.method != request.method.upper():
                continue
            found = route.pattern.match(path)
            if found is None:
                continue
            if any(key not in pairs or (value is not None and pairs[key] != value) for key, value in route.query):
                continue
            if any(request.header(name) is None for name in route.headers):
                continue
            return route, {label: unquote(value) for label, value in zip(route.labels, found.groups(), strict=True)}
        return None

    def operation(self, request: WireRequest) -> str:
        matched = self._match(request)
        if matched is None:
            raise self.unknown_operation(f"No operation of {self.model.service_name} answers "
                                         f"{request.method} {self.path_of(request)}")
        return matched[0].operation

    _S3_AUTH_CODES = {
        "missing": ("AccessDenied", 403),
        "malformed": ("AuthorizationHeaderMalformed", 400),
        "unknown key": ("InvalidAccessKeyId", 403),
        "bad signature": ("SignatureDoesNotMatch", 403),
        "skewed": ("RequestTimeTooSkewed", 403),
        "expired url": ("AccessDenied", 403),
        "expired token": ("ExpiredToken", 400),
        "invalid token": ("InvalidToken", 400),
        "content hash": ("XAmzContentSHA256Mismatch", 400),
        "denied": ("AccessDenied", 403),
    }

    def auth_error(self, kind: str, message: str) -> ServiceError:
        if self.xml:
            code, status = self._S3_AUTH_CODES[kind]
            return RestError(code, message, status)
        return super().auth_error(kind, message)

    def limit_error(self, kind: str, message: str) -> ServiceError:
        if self.xml:  # S3's codes: SlowDown (503, "Please reduce your request rate."), MaxMessageLengthExceeded
            code, status = {"throttled": ("SlowDown", 503), "too large": ("MaxMessageLengthExceeded", 400)}[kind]
            return RestError(code, message, status)
        code, status = {"throttled": ("ThrottlingException", 429), "too large": ("SerializationException", 413)}[kind]
        return RestError(code, message, status)

    def holds_body(self, request: WireRequest) -> bool:
        """Whether the operation ``request`` asks for reads its body whole (a document), rather than as
        a stream (an upload's blob payload)."""
        matched = self._match(request)
        if matched is None:
            return True
        shape = self.model.operation_model(matched[0].operation).input_shape
        payload = shape.serialization.get("payload") if shape is not None else None
        return not (payload and shape is not None and shape.members[payload].type_name == "blob")

    def unknown_operation(self, message: str) -> ServiceError:
        if self.xml:
            return RestError("NotImplemented", message, 501)
        return RestError("UnknownOperationException", message, 404)

    def internal_error(self, message: str) -> ServiceError:
        return RestError("InternalError" if self.xml else "InternalServerException", message, 500)

    def validation_error(self, error: ServiceError) -> ServiceError:
        if self.xml:  # S3 names a malformed request InvalidArgument, a malformed XML document MalformedXML
            code = "MalformedXML" if error.message.startswith("The XML") else "InvalidArgument"
            return RestError(code, error.message)
        return error

    def parameters(self, request: WireRequest, operation: str) -> Any:
        matched = self._match(request)
        assert matched is not None and matched[0].operation == operation
        labels = matched[1]
        shape = self.model.operation_model(operation).input_shape
        if shape is None:
            return {}
        params: dict[str, Any] = {}
        query = request.query_pairs()
        body_members: dict[str, Shape] = {}
        payload = shape.serialization.get("payload")
        streams = bool(payload) and shape.members[payload].type_name == "blob"
        body = request.body
        if request.spooled is not None and not streams:  # a document sent as an upload: read it (small)
            if request.spooled.size > _MAX_DOCUMENT:
                raise RestError("MaxMessageLengthExceeded" if self.xml else "SerializationException",
                                f"The request body is over {_MAX_DOCUMENT} bytes")
            body = request.spooled.read()
        for name, member in shape.members.items():
            location = member.serialization.get("location")
            wire = member_name(member, name)
            if location == "uri":
                if wire in labels:
                    params[name] = _from_text(member, labels[wire], wire)
            elif location == "querystring":
                value = _from_query(member, wire, query)
                if value is not None:
                    params[name] = value
            elif location == "header":
                text = request.header(wire)
                if text is not None:
                    params[name] = _from_header(member, text, wire)
            elif location == "headers":
                prefix = wire.lower()
                found = {key[len(prefix):]: value for key, value in request.headers.items() if key.startswith(prefix)}
                if found:
                    params[name] = found
            elif name == payload:
                value = request.spooled if request.spooled is not None and streams else self._payload(member, body)
                if value is not None:
                    params[name] = value
            elif not payload:
                body_members[name] = member
        if body_members and body.strip():
            params.update(self._body(shape, body_members, body))
        return params

    def _payload(self, shape: Shape, body: bytes) -> Any:
        if shape.type_name in ("blob", "string"):
            return body if shape.type_name == "blob" else body.decode("utf-8", errors="strict")
        if not body.strip():
            return None
        if self.xml:
            assert isinstance(shape, StructureShape)
            return read_structure(shape, parse_document(body))
        value = read_json(body)
        if not isinstance(value, dict):
            raise SerializationException("The request body must be a JSON object")
        return value

    def _body(self, shape: StructureShape, members: dict[str, Shape], body: bytes) -> dict[str, Any]:
        if self.xml:
            found = read_structure(shape, parse_document(body))
            return {k: v for k, v in found.items() if k in members}
        value = read_json(body)
        if not isinstance(value, dict):
            raise SerializationException("The request body must be a JSON object")
        unknown = sorted(set(value) - {member_name(m, n) for n, m in members.items()})
        if unknown:
            raise RestError("ValidationException", f"Unknown member(s) in the request body: {', '.join(unknown)}")
        by_wire = {member_name(m, n): n for n, m in members.items()}
        return {by_wire[key]: item for key, item in value.items()}

    # -- writing

    def answer(self, operation: str, result: dict[str, Any], request_id: str) -> WireResponse:
        shape = self.model.operation_model(operation).output_shape
        status, headers, body = 200, [], b""
        stream: FileRange | None = None
        content_type = "application/xml" if self.xml else "application/json"
        if shape is not None:
            payload = shape.serialization.get("payload")
            rest: dict[str, Any] = {}
            for name, member in shape.members.items():
                value = result.get(name)
                if value is None:
                    continue
                location = member.serialization.get("location")
                wire = member_name(member, name)
                if location == "statusCode":
                    status = int(value)
                elif location == "header":
                    headers.append((wire, _header_text(member, value)))
                elif location == "headers":
                    headers += [(wire + key, str(item)) for key, item in value.items()]
                elif name == payload and isinstance(value, FileRange):
                    stream, content_type = value, "application/octet-stream"
                elif name == payload:
                    body, payload_type = self._payload_bytes(operation, member, value)
                    content_type = payload_type or content_type
                elif not payload:
                    rest[name] = value
            if not payload and (rest or not self.xml):
                body = self._body_bytes(operation, shape, rest)
        if any(name.lower() == "content-type" for name, _ in headers):
            content_type = next(v for n, v in headers if n.lower() == "content-type")
            headers = [(n, v) for n, v in headers if n.lower() != "content-type"]
        return WireResponse(status, body, request_id, content_type, headers, stream)

    def _payload_bytes(self, operation: str, shape: Shape, value: Any) -> tuple[bytes, str | None]:
        if shape.type_name == "blob":
            return (value if isinstance(value, bytes) else bytes(value)), "application/octet-stream"
        if shape.type_name == "string":
            return str(value).encode(), "text/plain"
        if self.xml:
            root, namespace = self.body_root(operation, shape, payload=True)
            return element_xml(shape, root, value, namespace).encode(), None
        return json.dumps(_json_value(shape, value)).encode(), None

    def body_root(self, operation: str, shape: Shape, payload: bool) -> tuple[str, str]:
        """The root element (name, XML namespace) of ``operation``'s REST-XML answer, whose body is ``shape``
        (the output shape, or its ``payload`` member): the shape's ``locationName`` or name, as the model has
        it. S3's differ (:class:`glueball.edge.protocols.s3.S3Protocol`)."""
        return member_name(shape, shape.name), shape.serialization.get("xmlNamespace", {}).get("uri", "")

    def _body_bytes(self, operation: str, shape: StructureShape, values: dict[str, Any]) -> bytes:
        if self.xml:
            root, namespace = self.body_root(operation, shape, payload=False)
            return element_xml(shape, root, values, namespace).encode()
        return json.dumps({member_name(shape.members[n], n): _json_value(shape.members[n], v)
                           for n, v in values.items()}).encode()

    def error(self, error: ServiceError, request_id: str) -> WireResponse:
        if self.xml:  # S3 names the resource in its own elements (<Key>, <BucketName>, <Resource> ...)
            details = "".join(f"<{name}>{escape(str(value))}</{name}>"
                              for name, value in (getattr(error, "details", None) or {}).items())
            body = (f"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>{escape(error.code)}</Code>"
                    f"<Message>{escape(error.message)}</Message>{details}<RequestId>{request_id}</RequestId></Error>")
            return WireResponse(error.status, body.encode("utf-8", "backslashreplace"), request_id, "application/xml")
        return WireResponse(error.status, json.dumps({"message": error.message}).encode(), request_id,
                            "application/json", [("x-amzn-ErrorType", error.code)])


# ---------------------------------------------------------------- scalars in paths, queries and headers

def _from_text(shape: Shape, text: str, where: str) -> Any:
    if shape.type_name == "timestamp":
        return text
    enum = getattr(shape, "enum", None)
    if enum and text not in enum:  # SDKs differ in case (the AWS C++ SDK sends "enabled")
        text = next((value for value in enum if value.lower() == text.lower()), text)
    return scalar_value(shape, text, where)


def _from_query(shape: Shape, name: str, pairs: list[tuple[str, str]]) -> Any:
    if shape.type_name == "map":
        assert isinstance(shape, MapShape)
        return dict(pairs) or None
    values = [value for key, value in pairs if key == name]
    if not values:
        return None
    if shape.type_name == "list":
        assert isinstance(shape, ListShape)
        return [_from_text(shape.member, value, name) for value in values]
    return _from_text(shape, values[0], name)


def _from_header(shape: Shape, text: str, name: str) -> Any:
    kind = shape.type_name
    if kind == "list":
        assert isinstance(shape, ListShape)
        return [_from_text(shape.member, part.strip(), name) for part in text.split(",") if part.strip()]
    if kind == "timestamp":
        try:
            return email.utils.parsedate_to_datetime(text).timestamp()
        except (TypeError, ValueError):
            return text  # ISO 8601: the model validator reads it
    if shape.serialization.get("jsonvalue"):
        try:
            return json.loads(base64.b64decode(text))
        except ValueError as exc:
            raise SerializationException(f"Header {name} is not base64-encoded JSON") from exc
    return _from_text(shape, text, name)


def _header_text(shape: Shape, value: Any) -> str:
    if shape.type_name == "timestamp":
        return timestamp_text(value, str(shape.serialization.get("timestampFormat", "rfc822")))
    if shape.type_name == "list":
        assert isinstance(shape, ListShape)
        return ",".join(scalar_text(shape.member, item) for item in value)
    if shape.serialization.get("jsonvalue"):
        return base64.b64encode(json.dumps(value).encode()).decode()
    return scalar_text(shape, value)


def _json_value(shape: Shape, value: Any) -> Any:
    kind = shape.type_name
    if kind == "structure" and not getattr(shape, "is_document_type", False):
        assert isinstance(shape, StructureShape)
        return {member_name(shape.members[n], n): _json_value(shape.members[n], v)
                for n, v in value.items() if v is not None and n in shape.members}
    if kind == "list":
        assert isinstance(shape, ListShape)
        return [_json_value(shape.member, item) for item in value]
    if kind == "map":
        assert isinstance(shape, MapShape)
        return {k: _json_value(shape.value, v) for k, v in value.items()}
    if kind == "timestamp" and isinstance(value, dt.datetime):
        return value.timestamp()
    if kind == "blob" and isinstance(value, bytes | bytearray):
        return base64.b64encode(value).decode()
    return value

