"""DataBrew's error codes for the recipe operations, with the HTTP statuses of DataBrew's model (a test
checks both against botocore's ``databrew`` model)."""

from __future__ import annotations

from glueball.errors import ServiceError


class DataBrewError(ServiceError):
    """Base of the errors a DataBrew client receives."""


class ValidationException(DataBrewError):
    code, status = "ValidationException", 400


class ResourceNotFoundException(DataBrewError):
    code, status = "ResourceNotFoundException", 404


class ConflictException(DataBrewError):
    code, status = "ConflictException", 409


class ServiceQuotaExceededException(DataBrewError):
    code, status = "ServiceQuotaExceededException", 402


class AccessDeniedException(DataBrewError):
    code, status = "AccessDeniedException", 403


MODELLED = (ValidationException, ResourceNotFoundException, ConflictException, ServiceQuotaExceededException,
            AccessDeniedException)
