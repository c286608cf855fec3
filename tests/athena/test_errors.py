"""Every error the athena area raises is a shape of botocore's ``athena`` model, with the model's status and the
members it declares (``AthenaErrorCode``, ``Reason``, ``ResourceName``)."""

from __future__ import annotations

from glueball.athena import errors
from glueball.edge.model import service_model


def test_athena_errors_are_shapes_of_its_model() -> None:
    shapes = {shape.name: shape for shape in service_model("athena").error_shapes}
    classes = [c for c in vars(errors).values() if isinstance(c, type) and issubclass(c, errors.AthenaServiceError)
               and c not in (errors.AthenaServiceError, errors.AccessDeniedException)]
    assert len(classes) >= 5
    for error in classes:
        assert error.code in shapes, error.code
        # the model gives no status for InternalServerException: a server's fault is a 500, as Athena answers it
        default = 500 if error.code == "InternalServerException" else 400
        assert error.status == shapes[error.code].metadata.get("error", {}).get("httpStatusCode", default), error.code
    assert errors.AccessDeniedException.code not in shapes  # the JSON protocol's own code for a refusal (IAM)


def test_wire_members_are_the_models() -> None:
    shapes = {shape.name: shape for shape in service_model("athena").error_shapes}
    samples = [errors.InvalidRequestException("bad", "INVALID_INPUT"), errors.TooManyRequestsException(
        "busy", "CONCURRENT_QUERY_LIMIT_EXCEEDED"), errors.ResourceNotFoundException("gone", "wg")]
    for error in samples:
        wire = error.to_wire()
        members = set(shapes[error.code].members)
        assert set(wire) - {"__type"} <= members, (error.code, wire)
    assert "CONCURRENT_QUERY_LIMIT_EXCEEDED" in shapes["TooManyRequestsException"].members["Reason"].enum
