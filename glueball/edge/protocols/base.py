"""What every protocol does for the edge."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import botocore.model

from glueball.edge.wire import WireRequest, WireResponse
from glueball.errors import ServiceError


class Protocol(ABC):
    """The wire form of one service: how its requests are read and its answers and errors written.

    Args:
        model: the service's botocore model (None for an unmodelled service, whose handlers
            validate their own input).
    """

    def __init__(self, model: botocore.model.ServiceModel | None) -> None:
        self.model = model

    @abstractmethod
    def operation(self, request: WireRequest) -> str:
        """The operation ``request`` asks for.

        Raises:
            ServiceError: the request names no operation, or one the service does not have,
                with the protocol's code.
        """

    @abstractmethod
    def parameters(self, request: WireRequest, operation: str) -> Any:
        """The operation's input as plain values (before model validation).

        Raises:
            ServiceError: the request cannot be read (the protocol's serialization error).
        """

    @abstractmethod
    def answer(self, operation: str, result: dict[str, Any], request_id: str) -> WireResponse:
        """The wire response of a handler's result."""

    @abstractmethod
    def error(self, error: ServiceError, request_id: str) -> WireResponse:
        """The wire response of an error, in this protocol's form."""

    def unknown_operation(self, message: str) -> ServiceError:
        """The error for an operation this service does not have (or glueball does not implement)."""
        return _Unknown(message)

    def internal_error(self, message: str) -> ServiceError:
        """The error answered for a bug of glueball's (a 500 that names the request)."""
        return _Internal(message)

    # how this protocol's services name each kind of refused signature: (code, HTTP status)
    AUTH_CODES: dict[str, tuple[str, int]] = {
        "missing": ("MissingAuthenticationTokenException", 403),
        "malformed": ("InvalidSignatureException", 400),
        "unknown key": ("UnrecognizedClientException", 400),
        "bad signature": ("InvalidSignatureException", 400),
        "skewed": ("InvalidSignatureException", 400),
        "expired url": ("InvalidSignatureException", 400),
        "expired token": ("ExpiredTokenException", 400),
        "invalid token": ("UnrecognizedClientException", 400),
        "content hash": ("InvalidSignatureException", 400),
        "denied": ("AccessDeniedException", 400),
    }

    def auth_error(self, kind: str, message: str) -> ServiceError:
        """A refused signature (``kind`` of :class:`glueball.edge.signing.FailureKind`) or a refused
        authorization (``denied``), with this protocol's code for it."""
        code, status = self.AUTH_CODES[kind]
        return AuthError(code, message, status)

    def validation_error(self, error: ServiceError) -> ServiceError:
        """An error reading or validating the input, as this protocol names it (JSON keeps Glue's codes)."""
        return error

    # how this protocol's services refuse a request for what reading it would take: (code, HTTP status).
    # "throttled": the server is reading other large bodies (retry later: every AWS SDK retries these
    # codes); "too large": the body is bigger than the server reads at all
    LIMIT_CODES: dict[str, tuple[str, int]] = {
        "throttled": ("ThrottlingException", 400),
        "too large": ("SerializationException", 413),
    }

    def holds_body(self, request: WireRequest) -> bool:
        """Whether serving ``request`` reads its body whole into memory (all but streamed uploads)."""
        return True

    def limit_error(self, kind: str, message: str) -> ServiceError:
        """A request refused for its body's size (``kind``: ``throttled`` or ``too large``)."""
        code, status = self.LIMIT_CODES[kind]
        return CodedError(code, message, status)


class CodedError(ServiceError):
    """An error whose code and HTTP status are given when it is raised (protocol-level codes)."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.status = status


class AuthError(CodedError):
    """A request refused by authentication or authorization, with the protocol's code."""


class _Unknown(ServiceError):
    code = "UnknownOperationException"


class _Internal(ServiceError):
    code = "InternalFailure"
    status = 500
