"""The Iceberg REST spec's errors: the exception names its clients know, each with its HTTP status."""

from __future__ import annotations

from glueball.errors import ServiceError


class IcebergRestError(ServiceError):
    """Base of the REST catalog's errors (``code`` the spec's exception type)."""

    code = "BadRequestException"
    status = 400


class BadRequestException(IcebergRestError):
    code, status = "BadRequestException", 400


class NoSuchNamespaceException(IcebergRestError):
    code, status = "NoSuchNamespaceException", 404


class NoSuchTableException(IcebergRestError):
    code, status = "NoSuchTableException", 404


class AlreadyExistsException(IcebergRestError):
    code, status = "AlreadyExistsException", 409


class NamespaceNotEmptyException(IcebergRestError):
    code, status = "NamespaceNotEmptyException", 409


class CommitFailedException(IcebergRestError):
    code, status = "CommitFailedException", 409


class NotSupportedException(IcebergRestError):
    """What this catalog does not do (the spec's 406 UnsupportedOperationException)."""

    code, status = "UnsupportedOperationException", 406


class ForbiddenException(IcebergRestError):
    code, status = "ForbiddenException", 403


class SlowDownException(IcebergRestError):
    code, status = "SlowDownException", 429


class ServiceUnavailableException(IcebergRestError):
    code, status = "ServiceUnavailableException", 503
