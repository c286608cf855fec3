"""CloudWatch Logs' and CloudWatch's error codes, one class per code of their botocore models (a test checks
each code and status against the model).

CloudWatch Logs (AWS JSON 1.1) sends ``{"__type": code, "message": ...}``. CloudWatch is a former query
service: over the query protocol its code is the query code (``InvalidParameterValue``); over JSON its
``__type`` is the error shape's name with the query code in ``x-amzn-query-error`` (the edge writes both
from the model), so every client reads the same code.
"""

from __future__ import annotations

from glueball.errors import ServiceError


class LogsError(ServiceError):
    """Base of the errors CloudWatch Logs clients receive."""


class InvalidParameterException(LogsError):
    code = "InvalidParameterException"


class ResourceNotFoundException(LogsError):
    code = "ResourceNotFoundException"


class ResourceAlreadyExistsException(LogsError):
    code = "ResourceAlreadyExistsException"


class InvalidSequenceTokenException(LogsError):
    code = "InvalidSequenceTokenException"


class DataAlreadyAcceptedException(LogsError):
    code = "DataAlreadyAcceptedException"


class LimitExceededException(LogsError):
    code = "LimitExceededException"


class TooManyTagsException(LogsError):
    code = "TooManyTagsException"


class LogsValidationException(LogsError):
    code = "ValidationException"


class CloudWatchError(ServiceError):
    """Base of the errors CloudWatch (metrics) clients receive, by their query codes."""


class InvalidParameterValue(CloudWatchError):
    code = "InvalidParameterValue"


class MissingParameter(CloudWatchError):
    code = "MissingParameter"


class InvalidParameterCombination(CloudWatchError):
    code = "InvalidParameterCombination"


class InvalidNextToken(CloudWatchError):
    code = "InvalidNextToken"
