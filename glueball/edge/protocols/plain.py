"""Plain JSON over HTTP paths, for services with no botocore model (the Confluent-compatible schema registry).

Every request under the service's path prefix is the one operation ``Request``; its parameters are the
HTTP method, the path below the prefix split into decoded segments, the query (last value per name) and
the body read as JSON (None when empty). The handler routes by path itself and answers
``{STATUS: ..., RAW_BODY: <JSON bytes>}`` (or members written as a JSON object). Errors are
``{"error_code": <the code, a number when it is one>, "message": ...}`` with the error's status.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import unquote

from glueball.api.operations import RAW_BODY, STATUS
from glueball.edge.protocols.base import CodedError, Protocol
from glueball.edge.protocols.json import read_json
from glueball.edge.wire import WireRequest, WireResponse
from glueball.errors import ServiceError

OPERATION = "Request"


class PlainJsonProtocol(Protocol):
    """The protocol of a path-routed JSON service under ``prefix`` (``/_confluent``)."""

    AUTH_CODES = {**dict.fromkeys(Protocol.AUTH_CODES, ("40101", 401)), "denied": ("40301", 403)}

    def __init__(self, prefix: str, content_type: str = "application/json") -> None:
        super().__init__(None)
        self.prefix = prefix.rstrip("/")
        self.content_type = content_type

    def serves(self, path: str) -> bool:
        return path == self.prefix or path.startswith(self.prefix + "/")

    def operation(self, request: WireRequest) -> str:
        return OPERATION

    def parameters(self, request: WireRequest, operation: str) -> Any:
        rest = request.path[len(self.prefix):]
        body = read_json(request.body) if request.body.strip() else None
        return {"method": request.method, "path": [unquote(part) for part in rest.split("/") if part],
                "query": dict(request.query_pairs()), "body": body}

    def answer(self, operation: str, result: dict[str, Any], request_id: str) -> WireResponse:
        raw = result.get(RAW_BODY)
        body = raw if isinstance(raw, bytes) else json.dumps(
            {k: v for k, v in result.items() if k != STATUS}).encode()
        return WireResponse(int(result.get(STATUS, 200)), body, request_id, self.content_type)

    def error(self, error: ServiceError, request_id: str) -> WireResponse:
        code: Any = int(error.code) if error.code.isdigit() else error.code
        return WireResponse(error.status, json.dumps({"error_code": code, "message": error.message}).encode(),
                            request_id, self.content_type)

    def validation_error(self, error: ServiceError) -> ServiceError:
        """An unreadable body: its status as the code (``{"error_code": 400, ...}``), as such services answer."""
        return CodedError(str(error.status), error.message, error.status)

    LIMIT_CODES = {"throttled": ("429", 429), "too large": ("413", 413)}

    def unknown_operation(self, message: str) -> ServiceError:
        return CodedError("404", message, 404)

    def internal_error(self, message: str) -> ServiceError:
        return CodedError("50001", message, 500)
