"""IAM's and STS's error codes, with the HTTP statuses of their models (a test checks both)."""

from __future__ import annotations

from glueball.errors import ServiceError


class IamError(ServiceError):
    """Base of the errors IAM and STS clients receive."""


class NoSuchEntity(IamError):
    code, status = "NoSuchEntity", 404


class EntityAlreadyExists(IamError):
    code, status = "EntityAlreadyExists", 409


class MalformedPolicyDocument(IamError):
    code, status = "MalformedPolicyDocument", 400


class DeleteConflict(IamError):
    code, status = "DeleteConflict", 409


class LimitExceeded(IamError):
    code, status = "LimitExceeded", 409


class InvalidInput(IamError):
    code, status = "InvalidInput", 400


class StsAccessDenied(IamError):
    """STS's ``AccessDenied`` (AssumeRole refused): a protocol-level code, not a modelled shape."""

    code, status = "AccessDenied", 403


class S3AccessDenied(IamError):
    """S3's ``AccessDenied`` (403), for requests the policies refuse."""

    code, status = "AccessDenied", 403


class DataBrewAccessDenied(IamError):
    """DataBrew's ``AccessDeniedException`` (403 in DataBrew's model), for requests the policies refuse."""

    code, status = "AccessDeniedException", 403


class LogsAccessDenied(IamError):
    """CloudWatch Logs' ``AccessDeniedException`` (a shape of its model, HTTP 400), for requests the policies
    refuse."""

    code, status = "AccessDeniedException", 400


class CloudWatchAccessDenied(IamError):
    """CloudWatch's ``AccessDenied`` (a protocol-level code of the query protocol, 403)."""

    code, status = "AccessDenied", 403


class IamAccessDenied(IamError):
    """IAM's ``AccessDenied``: a protocol-level code, not a modelled shape."""

    code, status = "AccessDenied", 403


# (service, code) -> (shape name in the model or None for protocol-level codes)
MODELLED = {"iam": (NoSuchEntity, EntityAlreadyExists, MalformedPolicyDocument, DeleteConflict, LimitExceeded,
                    InvalidInput),
            "sts": (MalformedPolicyDocument,)}
