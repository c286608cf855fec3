"""One exception class per Glue error code.

Every ``code`` here is either a shape of botocore's Glue service model or a
protocol-level code of AWS JSON 1.1 (``PROTOCOL_CODES``); a test checks that.
Messages say what was wrong and with which value.
"""

from __future__ import annotations

PROTOCOL_CODES = frozenset({"UnknownOperationException", "SerializationException"})


class ServiceError(Exception):
    """Base of every error a client of any service glueball serves can receive.

    ``code`` is the error code of the service's model (or of its protocol), ``status`` the HTTP
    status it is sent with. Each protocol of the edge turns it into its own wire form (JSON's
    ``{"__type", "message"}``, the query protocol's ``<ErrorResponse>``, S3's ``<Error>``);
    areas raise it and never build error bodies.
    """

    code: str = "InternalFailure"
    status: int = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    @property
    def sender_fault(self) -> bool:
        """The client's mistake (``Sender``) rather than the service's (``Receiver``)."""
        return self.status < 500


class GlueError(ServiceError):
    """Base of all errors a Glue client can receive."""

    code: str = "InternalServiceException"

    def to_wire(self) -> dict[str, str]:
        return {"__type": self.code, "message": self.message}


class EntityNotFoundException(GlueError):
    code = "EntityNotFoundException"


class AlreadyExistsException(GlueError):
    code = "AlreadyExistsException"


class InvalidInputException(GlueError):
    code = "InvalidInputException"


class ValidationException(GlueError):
    code = "ValidationException"


class ConcurrentModificationException(GlueError):
    code = "ConcurrentModificationException"


class ResourceNumberLimitExceededException(GlueError):
    code = "ResourceNumberLimitExceededException"


class InvalidStateException(GlueError):
    code = "InvalidStateException"


class AccessDeniedException(GlueError):
    code = "AccessDeniedException"


class OperationTimeoutException(GlueError):
    code = "OperationTimeoutException"


class InternalServiceException(GlueError):
    code = "InternalServiceException"
    status = 500


class UnknownOperationException(GlueError):
    code = "UnknownOperationException"


class SerializationException(GlueError):
    code = "SerializationException"


class CrawlerRunningException(GlueError):
    code = "CrawlerRunningException"


class CrawlerNotRunningException(GlueError):
    code = "CrawlerNotRunningException"


class CrawlerStoppingException(GlueError):
    code = "CrawlerStoppingException"


class SchedulerRunningException(GlueError):
    code = "SchedulerRunningException"


class SchedulerNotRunningException(GlueError):
    code = "SchedulerNotRunningException"


class SchedulerTransitioningException(GlueError):
    code = "SchedulerTransitioningException"


class NoScheduleException(GlueError):
    code = "NoScheduleException"


class ConcurrentRunsExceededException(GlueError):
    code = "ConcurrentRunsExceededException"


class IllegalSessionStateException(GlueError):
    code = "IllegalSessionStateException"


class IllegalWorkflowStateException(GlueError):
    code = "IllegalWorkflowStateException"


class ConditionCheckFailureException(GlueError):
    code = "ConditionCheckFailureException"


class IdempotentParameterMismatchException(GlueError):
    code = "IdempotentParameterMismatchException"


class MLTransformNotReadyException(GlueError):
    code = "MLTransformNotReadyException"


class IllegalBlueprintStateException(GlueError):
    code = "IllegalBlueprintStateException"


class ColumnStatisticsTaskRunningException(GlueError):
    code = "ColumnStatisticsTaskRunningException"


class ColumnStatisticsTaskNotRunningException(GlueError):
    code = "ColumnStatisticsTaskNotRunningException"


class ColumnStatisticsTaskStoppingException(GlueError):
    code = "ColumnStatisticsTaskStoppingException"


ALL_ERRORS: tuple[type[GlueError], ...] = (
    ConditionCheckFailureException,
    EntityNotFoundException,
    AlreadyExistsException,
    InvalidInputException,
    ValidationException,
    ConcurrentModificationException,
    ResourceNumberLimitExceededException,
    InvalidStateException,
    AccessDeniedException,
    OperationTimeoutException,
    InternalServiceException,
    UnknownOperationException,
    SerializationException,
    CrawlerRunningException,
    CrawlerNotRunningException,
    CrawlerStoppingException,
    SchedulerRunningException,
    SchedulerNotRunningException,
    SchedulerTransitioningException,
    NoScheduleException,
    ConcurrentRunsExceededException,
    IllegalWorkflowStateException,
    IdempotentParameterMismatchException,
    MLTransformNotReadyException,
    IllegalBlueprintStateException,
    ColumnStatisticsTaskRunningException,
    ColumnStatisticsTaskNotRunningException,
    ColumnStatisticsTaskStoppingException,
)
