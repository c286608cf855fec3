"""The Iceberg REST catalog protocol: plain JSON over paths (:mod:`.plain`), with the REST spec's error model:
``{"error": {"message", "type", "code"}}`` (``type`` the exception's name, ``code`` the HTTP status)."""

from __future__ import annotations

import json

from glueball.edge.protocols.base import CodedError
from glueball.edge.protocols.plain import PlainJsonProtocol
from glueball.edge.wire import WireResponse
from glueball.errors import ServiceError


class IcebergRestProtocol(PlainJsonProtocol):
    """Paths under the prefix; errors as the Iceberg REST spec's ``ErrorModel``."""

    AUTH_CODES = {**dict.fromkeys(PlainJsonProtocol.AUTH_CODES, ("NotAuthorizedException", 401)),
                  "denied": ("ForbiddenException", 403)}
    LIMIT_CODES = {"throttled": ("SlowDownException", 429), "too large": ("BadRequestException", 413)}

    def error(self, error: ServiceError, request_id: str) -> WireResponse:
        body = {"error": {"message": error.message, "type": error.code, "code": error.status}}
        return WireResponse(error.status, json.dumps(body).encode(), request_id, self.content_type)

    def validation_error(self, error: ServiceError) -> ServiceError:
        return CodedError("BadRequestException", error.message, 400)

    def unknown_operation(self, message: str) -> ServiceError:
        return CodedError("NoSuchEndpointException", message, 404)

    def internal_error(self, message: str) -> ServiceError:
        return CodedError("InternalServerError", message, 500)
