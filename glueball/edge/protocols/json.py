"""AWS JSON 1.0 and 1.1 (Glue, glueball's own ``Glueball.*`` operations, CloudWatch Logs, CloudWatch).

``POST /`` with ``X-Amz-Target: <prefix>.<Operation>`` and a JSON object body; answers are JSON
objects, errors ``{"__type": <code>, "message": ...}`` with the error's status. A former query service
(the model's ``awsQueryCompatible``, CloudWatch) names an error by its shape in ``__type`` and by its
query code in ``x-amzn-query-error: <code>;Sender|Receiver``, which clients read as the code.
"""

from __future__ import annotations

import json
from typing import Any

from glueball.edge.protocols.base import CodedError, Protocol
from glueball.edge.wire import WireRequest, WireResponse
from glueball.errors import (
    GlueError,
    InternalServiceException,
    SerializationException,
    ServiceError,
    UnknownOperationException,
    ValidationException,
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
    """AWS JSON for one target prefix (``AWSGlue``, ``Glueball``, ``Logs_20140328`` ...).

    Args:
        content_type: the answers' content type (``application/x-amz-json-1.0`` for JSON 1.0 services).
        validation_code: the code of input the model refuses, when the service does not say
            ``ValidationException`` (CloudWatch Logs says ``InvalidParameterException``).
    """

    def __init__(self, model: Any, target_prefix: str, content_type: str = CONTENT_TYPE,
                 validation_code: str | None = None) -> None:
        super().__init__(model)
        self.target_prefix = target_prefix
        self.content_type = content_type
        self.validation_code = validation_code
        self._query_shapes = {str(shape.error_code): str(shape.name) for shape in model.error_shapes} \
            if model is not None and "awsQueryCompatible" in model.metadata else None

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
        return WireResponse(200, json.dumps(result, default=_default).encode(), request_id, self.content_type)

    def error(self, error: ServiceError, request_id: str) -> WireResponse:
        wire = error.to_wire() if isinstance(error, GlueError) else {"__type": error.code, "message": error.message}
        headers = []
        if self._query_shapes is not None:
            wire["__type"] = self._query_shapes.get(error.code, error.code)
            headers.append(("x-amzn-query-error", f"{error.code};{'Sender' if error.sender_fault else 'Receiver'}"))
        return WireResponse(error.status, json.dumps(wire).encode(), request_id, self.content_type, headers)

    def validation_error(self, error: ServiceError) -> ServiceError:
        if self.validation_code is not None and isinstance(error, ValidationException):
            return CodedError(self.validation_code, error.message)
        return error

    def unknown_operation(self, message: str) -> ServiceError:
        return UnknownOperationException(message)

    def internal_error(self, message: str) -> ServiceError:
        return InternalServiceException(message)
