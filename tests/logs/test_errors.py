"""Every error the logs area raises is a code of its service's botocore model, with the model's status."""

from __future__ import annotations

from glueball.edge.model import service_model
from glueball.errors import ServiceError
from glueball.iam.errors import CloudWatchAccessDenied, LogsAccessDenied
from glueball.logs import errors


def _subclasses(base: type[ServiceError]) -> list[type[ServiceError]]:
    return [cls for cls in vars(errors).values() if isinstance(cls, type) and issubclass(cls, base) and cls is not base]


def test_cloudwatch_logs_errors_are_shapes_of_its_model() -> None:
    shapes = {shape.name: shape for shape in service_model("logs").error_shapes}
    for error in [*_subclasses(errors.LogsError), LogsAccessDenied]:
        assert error.code in shapes, error.code
        assert error.status == shapes[error.code].metadata.get("error", {}).get("httpStatusCode", 400)


def test_cloudwatch_errors_are_query_codes_of_its_model() -> None:
    codes = {str(shape.error_code): shape for shape in service_model("cloudwatch").error_shapes}
    for error in _subclasses(errors.CloudWatchError):
        assert error.code in codes, error.code
        assert error.status == codes[error.code].metadata["error"]["httpStatusCode"]
    assert CloudWatchAccessDenied.code not in codes  # the query protocol's own code for a refusal
