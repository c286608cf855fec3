"""Fuzzing IAM, STS and Glue's policy operations from their models: never a 500.

Requests are built from each operation's input shape (names drawn from a small pool so that some
reach entities that exist), sometimes mutated, serialized by botocore's own query serializer without
client-side validation, and answered in-process by the edge (the code the server runs).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any
from urllib.parse import urlencode
from xml.etree import ElementTree

from botocore.serialize import create_serializer

from glueball.app import Glueball
from glueball.config import Settings
from glueball.edge.model import service_model
from glueball.edge.wire import WireRequest
from tests.api.test_fuzz import Generator, _mutate


def _query(glue: Glueball, service: str, operation: str, params: dict[str, Any]) -> tuple[int, bytes]:
    model = service_model(service)
    serialized = create_serializer("query", include_validation=False).serialize_to_request(
        params, model.operation_model(operation))
    body = serialized["body"]
    data = urlencode(body) if isinstance(body, dict) else body
    answer = glue.handle(WireRequest("POST", "/", headers={
        "content-type": "application/x-www-form-urlencoded; charset=utf-8",
        "authorization": f"AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/{service}/aws4_request, "
                         f"SignedHeaders=host, Signature=00"}, body=data.encode("utf-8", "surrogatepass")))
    return answer.status, answer.body


def test_iam_and_sts_answer_model_shaped_and_mutated_requests_without_a_500(tmp_path: Path) -> None:
    glue = Glueball(Settings(home=tmp_path))
    iam = glue.client("iam")
    iam.create_user(UserName="fz_db")
    iam.create_role(RoleName="fz_table", AssumeRolePolicyDocument=json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "sts:AssumeRole"}]}))
    rng = random.Random(20261125)
    generator = Generator(rng)
    failures: list[str] = []
    try:
        for service in ("iam", "sts"):
            model = service_model(service)
            for operation in sorted(glue.edge.implemented(service)):
                shape = model.operation_model(operation).input_shape
                for attempt in range(16):
                    request = generator.value(shape) if shape is not None else {}
                    if attempt % 2:
                        request = _mutate(rng, request)
                    try:
                        status, body = _query(glue, service, operation, request)
                    except (TypeError, ValueError, AttributeError, UnicodeError):
                        continue  # botocore cannot even serialize it: no client could send it
                    if status >= 500:
                        failures.append(f"{service}:{operation} {str(request)[:200]} -> {status} {body[:300]!r}")
                    elif status >= 400:
                        ElementTree.fromstring(body)  # an <ErrorResponse>, well-formed
        assert not failures, f"{len(failures)} 500s:\n" + "\n".join(failures[:15])
    finally:
        glue.close()
