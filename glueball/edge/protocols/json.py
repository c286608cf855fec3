"""AWS JSON 1.1 (Glue, and glueball's own ``Glueball.*`` operations).

``POST /`` with ``X-Amz-Target: <prefix>.<Operation>`` and a JSON object body; answers are JSON
objects, errors ``{"__type": <code>, "message": ...}`` with the error's status.
"""

from __future__ import annotations

import json
from typing import Any

from glueball.edge.protocols.base import Protocol
from glueball.edge.wire import WireRequest, WireResponse
from glueball.errors import (
    GlueError,
    InternalServiceException,
    SerializationException,
    ServiceError,
    UnknownOperationException,
)

CONTENT_TYPE = "application/x-amz-json-1.1"


def _default(value: Any) -> Any:
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def read_json(body: bytes) -> Any:
    """A request body as JSON (empty means ``{}``).

    Raises:
        SerializationException: not JSON, nested too deeply, or a number too long to read.
    """
    if not body.strip():
        return {}
    try:
        return json.loads(body, parse_constant=_refuse_constant)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SerializationException(f"Request body is not valid JSON: {exc}") from exc
    except RecursionError as exc:  # the parser recurses once per nesting level
        raise SerializationException("Request body is nested too deeply") from exc
    except ValueError as exc:  # integers past Python's digit limit
        raise SerializationException(f"Request body has an unreadable number: {exc}") from exc


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


class JsonProtocol(Protocol):
    """AWS JSON 1.1 for one target prefix (``AWSGlue``, ``Glueball``)."""

    def __init__(self, model: Any, target_prefix: str) -> None:
        super().__init__(model)
        self.target_prefix = target_prefix

    def operation(self, request: WireRequest) -> str:
        target = request.header("x-amz-target")
        if not target:
            raise UnknownOperationException("Missing X-Amz-Target header")
        prefix, _, name = target.partition(".")
        if prefix != self.target_prefix or not name:
            raise UnknownOperationException(f"Unknown operation {target}")
        return name

    def parameters(self, request: WireRequest, operation: str) -> Any:
        return read_json(request.body)

    def answer(self, operation: str, result: dict[str, Any], request_id: str) -> WireResponse:
        return WireResponse(200, json.dumps(result, default=_default).encode(), request_id, CONTENT_TYPE)

    def error(self, error: ServiceError, request_id: str) -> WireResponse:
        wire = error.to_wire() if isinstance(error, GlueError) else {"__type": error.code, "message": error.message}
        return WireResponse(error.status, json.dumps(wire).encode(), request_id, CONTENT_TYPE)

    def unknown_operation(self, message: str) -> ServiceError:
        return UnknownOperationException(message)

    def internal_error(self, message: str) -> ServiceError:
        return InternalServiceException(message)
