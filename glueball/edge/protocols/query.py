"""The AWS query protocol (IAM, STS): form-encoded ``Action=...&Version=...`` in, XML out.

Parameters are flattened names (``Tags.member.1.Key``, ``Attributes.entry.1.value``) read back
into the operation's input shape; answers are ``<OpResponse><OpResult>...</OpResult>
<ResponseMetadata><RequestId/></ResponseMetadata></OpResponse>`` in the service's XML
namespace, errors ``<ErrorResponse><Error><Type/><Code/><Message/></Error><RequestId/>
</ErrorResponse>``.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl

import botocore.model
from botocore.model import ListShape, MapShape, Shape, StructureShape

from glueball.edge.protocols.base import Protocol
from glueball.edge.protocols.xmlshapes import escape, members_xml
from glueball.edge.wire import WireRequest, WireResponse
from glueball.errors import SerializationException, ServiceError, ValidationException

CONTENT_TYPE = "text/xml"
FORM = "application/x-www-form-urlencoded"


class QueryError(ServiceError):
    """A query-protocol error (the common codes every query service shares)."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.status = status


def form_pairs(request: WireRequest) -> list[tuple[str, str]]:
    """The request's parameters: the query string, then a form-encoded body.

    Raises:
        QueryError: ``MalformedQueryString`` for a body that is not form-encoded text.
    """
    pairs = request.query_pairs()
    if request.body.strip():
        try:
            text = request.body.decode("utf-8")
            pairs += parse_qsl(text, keep_blank_values=True, strict_parsing=True)
        except (UnicodeDecodeError, ValueError) as exc:
            raise QueryError("MalformedQueryString", f"The request body is not form-encoded: {exc}") from exc
    return pairs


class QueryProtocol(Protocol):
    """The query protocol of one service model (``sts``, ``iam``)."""

    model: botocore.model.ServiceModel

    def __init__(self, model: botocore.model.ServiceModel) -> None:
        super().__init__(model)
        self.namespace = str(model.metadata.get("xmlNamespace", ""))

    def operation(self, request: WireRequest) -> str:
        actions = [value for name, value in form_pairs(request) if name == "Action"]
        if not actions or not actions[0]:
            raise QueryError("MissingAction", "The request must contain the parameter Action")
        if len(actions) > 1:
            raise QueryError("MalformedQueryString", "The parameter Action is given more than once")
        return actions[0]

    def unknown_operation(self, message: str) -> ServiceError:
        return QueryError("InvalidAction", message)

    def internal_error(self, message: str) -> ServiceError:
        return QueryError("InternalFailure", message, status=500)

    def validation_error(self, error: ServiceError) -> ServiceError:
        if isinstance(error, ValidationException):
            return QueryError("ValidationError", error.message)
        if isinstance(error, SerializationException):
            return QueryError("MalformedInput", error.message)
        return error

    def parameters(self, request: WireRequest, operation: str) -> Any:
        flat: dict[str, str] = {}
        for name, value in form_pairs(request):
            if name in ("Action", "Version"):
                continue
            if name in flat:
                raise QueryError("MalformedQueryString", f"The parameter {name} is given more than once")
            flat[name] = value
        shape = self.model.operation_model(operation).input_shape
        if shape is None:
            if flat:
                raise QueryError("InvalidParameterCombination",
                                 f"{operation} takes no parameters, got {', '.join(sorted(flat))}")
            return {}
        reader = _FormReader(flat)
        params = reader.structure(shape, "")
        if reader.unused:
            raise QueryError("InvalidParameterValue",
                             f"Unknown parameter(s) for {operation}: {', '.join(sorted(reader.unused))}")
        return params

    def answer(self, operation: str, result: dict[str, Any], request_id: str) -> WireResponse:
        op_model = self.model.operation_model(operation)
        parts = [f'<{operation}Response xmlns="{self.namespace}">']
        output = op_model.output_shape
        if output is not None:
            wrapper = output.serialization.get("resultWrapper") or f"{operation}Result"
            parts.append(f"<{wrapper}>")
            parts.append(members_xml(output, result))
            parts.append(f"</{wrapper}>")
        parts.append(f"<ResponseMetadata><RequestId>{request_id}</RequestId></ResponseMetadata>")
        parts.append(f"</{operation}Response>")
        return WireResponse(200, "".join(parts).encode("utf-8", "backslashreplace"), request_id, CONTENT_TYPE)

    AUTH_CODES = {
        "missing": ("MissingAuthenticationToken", 403),
        "malformed": ("IncompleteSignature", 400),
        "unknown key": ("InvalidClientTokenId", 403),
        "bad signature": ("SignatureDoesNotMatch", 403),
        "skewed": ("SignatureDoesNotMatch", 403),
        "expired url": ("SignatureDoesNotMatch", 403),
        "expired token": ("ExpiredToken", 403),
        "invalid token": ("InvalidClientTokenId", 403),
        "content hash": ("SignatureDoesNotMatch", 403),
        "denied": ("AccessDenied", 403),
    }

    # IAM and STS answer throttling with "Throttling" ("Rate exceeded"); the common errors of query
    # services name no code for an oversized request, so it is their input error with HTTP's status
    LIMIT_CODES = {"throttled": ("Throttling", 400), "too large": ("ValidationError", 413)}

    def error(self, error: ServiceError, request_id: str) -> WireResponse:
        kind = "Sender" if error.sender_fault else "Receiver"
        body = (f'<ErrorResponse xmlns="{self.namespace}"><Error><Type>{kind}</Type>'
                f"<Code>{escape(error.code)}</Code><Message>{escape(error.message)}</Message></Error>"
                f"<RequestId>{request_id}</RequestId></ErrorResponse>")
        return WireResponse(error.status, body.encode("utf-8", "backslashreplace"), request_id, CONTENT_TYPE)


class _FormReader:
    """Reads flattened query parameters back into nested values, by the input shape."""

    def __init__(self, flat: dict[str, str]) -> None:
        self.flat = flat
        self.unused = set(flat)

    def take(self, key: str) -> str | None:
        if key in self.flat:
            self.unused.discard(key)
            return self.flat[key]
        return None

    def has_prefix(self, prefix: str) -> bool:
        return any(key.startswith(prefix) for key in self.flat)

    def value(self, shape: Shape, key: str) -> Any:
        kind = shape.type_name
        if kind == "structure":
            assert isinstance(shape, StructureShape)
            return self.structure(shape, key + ".") if self.has_prefix(key + ".") else None
        if kind == "list":
            assert isinstance(shape, ListShape)
            return self.sequence(shape, key)
        if kind == "map":
            assert isinstance(shape, MapShape)
            return self.mapping(shape, key)
        text = self.take(key)
        return None if text is None else _scalar(shape, text, key)

    def structure(self, shape: StructureShape, prefix: str) -> dict[str, Any]:
        found: dict[str, Any] = {}
        for name, member in shape.members.items():
            wire_name = member.serialization.get("name", name)
            value = self.value(member, prefix + wire_name)
            if value is not None:
                found[name] = value
        return found

    def sequence(self, shape: ListShape, key: str) -> list[Any] | None:
        flattened = shape.serialization.get("flattened", False)
        base = key if flattened else f"{key}.{shape.member.serialization.get('name', 'member')}"
        if self.take(key) == "" and not self.has_prefix(base + "."):
            return []  # ``Name=`` is the query protocol's empty list
        items: list[Any] = []
        index = 1
        while self.has_prefix(f"{base}.{index}"):
            items.append(self.value(shape.member, f"{base}.{index}"))
            index += 1
        return items if items else None

    def mapping(self, shape: MapShape, key: str) -> dict[str, Any] | None:
        flattened = shape.serialization.get("flattened", False)
        base = key if flattened else f"{key}.entry"
        key_name = shape.key.serialization.get("name", "key")
        value_name = shape.value.serialization.get("name", "value")
        found: dict[str, Any] = {}
        index = 1
        while self.has_prefix(f"{base}.{index}."):
            entry_key = self.take(f"{base}.{index}.{key_name}")
            if entry_key is None:
                raise QueryError("MissingParameter", f"{base}.{index}.{key_name} is missing")
            found[entry_key] = self.value(shape.value, f"{base}.{index}.{value_name}")
            index += 1
        return found or None


def _scalar(shape: Shape, text: str, key: str) -> Any:
    kind = shape.type_name
    try:
        if kind in ("integer", "long"):
            return int(text)
        if kind in ("double", "float"):
            return float(text)
    except ValueError as exc:
        raise QueryError("InvalidParameterValue", f"Value {text!r} for parameter {key} is not a number") from exc
    if kind == "boolean":
        if text.lower() not in ("true", "false"):
            raise QueryError("InvalidParameterValue", f"Value {text!r} for parameter {key} is not true or false")
        return text.lower() == "true"
    return text  # strings; timestamps and blobs are checked by the model validator as text
