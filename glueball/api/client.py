"""The in-process Glue client: the same call surface and answers as boto3's.

Requests are serialized with botocore's JSON serializer, served by the same
dispatcher as the HTTP server, and parsed with botocore's parser, so a
response dict (timestamps as ``datetime``) or a ``ClientError`` is exactly
what a boto3 client pointed at ``glueball server`` would give.
"""

from __future__ import annotations

import re
from typing import Any

from botocore.exceptions import ClientError
from botocore.parsers import create_parser
from botocore.serialize import create_serializer
from botocore.validate import ParamValidationDecorator, ParamValidator

from glueball.api.model import TARGET_PREFIX, service_model
from glueball.app import Glueball

_FIRST_CAP = re.compile(r"(.)([A-Z][a-z]+)")
_ALL_CAP = re.compile(r"([a-z0-9])([A-Z])")


def _snake(name: str) -> str:
    return _ALL_CAP.sub(r"\1_\2", _FIRST_CAP.sub(r"\1_\2", name)).lower()


class GlueClient:
    """Call Glue operations in-process: ``client.call("GetTable", {...})`` or ``client.get_table(...)``."""

    def __init__(self, glue: Glueball, access_key: str | None = None, region: str | None = None) -> None:
        self.glue = glue
        self.region = region or glue.settings.region
        self._authorization = (
            f"AWS4-HMAC-SHA256 Credential={access_key or 'embedded'}/20260101/{self.region}/glue/aws4_request"
        )
        self._serializer = ParamValidationDecorator(ParamValidator(), create_serializer("json"))
        self._parser = create_parser("json")
        self._methods = {_snake(name): name for name in service_model().operation_names}

    def call(self, operation: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Run ``operation`` with ``params``; return the parsed response or raise ``ClientError``."""
        op_model = service_model().operation_model(operation)
        request = self._serializer.serialize_to_request(params or {}, op_model)
        wire = self.glue.handle(f"{TARGET_PREFIX}.{operation}", request["body"], self._authorization)
        http = {"status_code": wire.status, "headers": {"x-amzn-requestid": wire.request_id}, "body": wire.body}
        parsed: dict[str, Any] = self._parser.parse(http, op_model.output_shape)
        if wire.status >= 300:
            raise ClientError(parsed, operation)
        parsed.setdefault("ResponseMetadata", {})["HTTPStatusCode"] = wire.status
        return parsed

    def __getattr__(self, name: str) -> Any:
        operation = self.__dict__.get("_methods", {}).get(name)
        if operation is None:
            raise AttributeError(name)

        def method(**params: Any) -> dict[str, Any]:
            return self.call(operation, params)

        method.__name__ = name
        return method
