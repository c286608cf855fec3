"""Athena's error codes, one class per error shape of botocore's ``athena`` model (a test checks each).

Athena answers over AWS JSON 1.1 with ``{"__type": code, "Message": ...}``; ``InvalidRequestException`` also
names an ``AthenaErrorCode`` and ``TooManyRequestsException`` a ``Reason``, as the model's shapes have them.
A query that fails while it runs is not an error of the API: it is a FAILED query execution whose
``Status.AthenaError`` says why (:class:`glueball.athena.models.Failure`).
"""

from __future__ import annotations

from glueball.errors import ServiceError


class AthenaServiceError(ServiceError):
    """Base of the errors Athena clients receive."""

    def to_wire(self) -> dict[str, str]:
        return {"__type": self.code, "Message": self.message}


class InvalidRequestException(AthenaServiceError):
    """A request Athena refuses; ``athena_code`` is its ``AthenaErrorCode`` when it has one."""

    code = "InvalidRequestException"

    def __init__(self, message: str, athena_code: str | None = None) -> None:
        super().__init__(message)
        self.athena_code = athena_code

    def to_wire(self) -> dict[str, str]:
        wire = super().to_wire()
        if self.athena_code:
            wire["AthenaErrorCode"] = self.athena_code
        return wire


class ResourceNotFoundException(AthenaServiceError):
    code = "ResourceNotFoundException"

    def __init__(self, message: str, resource: str | None = None) -> None:
        super().__init__(message)
        self.resource = resource

    def to_wire(self) -> dict[str, str]:
        wire = super().to_wire()
        if self.resource:
            wire["ResourceName"] = self.resource
        return wire


class TooManyRequestsException(AthenaServiceError):
    code = "TooManyRequestsException"

    def __init__(self, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        self.reason = reason

    def to_wire(self) -> dict[str, str]:
        wire = super().to_wire()
        if self.reason:
            wire["Reason"] = self.reason
        return wire


class InternalServerException(AthenaServiceError):
    code = "InternalServerException"
    status = 500


class MetadataException(AthenaServiceError):
    code = "MetadataException"


class AccessDeniedException(AthenaServiceError):
    """Authorization refused (``--auth iam``): Athena's protocol-level code for it."""

    code = "AccessDeniedException"
