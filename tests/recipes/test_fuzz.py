"""Fuzzing DataBrew's recipe operations from the model: never a 500.

Requests are built from each operation's input shape (names from a small pool so that some reach
recipes that exist; steps sometimes made of real operations with random parameters), sometimes
mutated, serialized by botocore's own REST-JSON serializer without client-side validation, and
answered in-process by the edge (the code the server runs).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from botocore.serialize import create_serializer

from glueball.app import Glueball
from glueball.config import Settings
from glueball.edge.model import service_model
from glueball.edge.wire import WireRequest
from glueball.recipes.steps import SPECS
from tests.api.test_fuzz import Generator, _mutate

NAMES = ["fz-a", "fz-b", "fz c"]


def _send(glue: Glueball, operation: str, params: dict[str, Any]) -> tuple[int, bytes]:
    model = service_model("databrew")
    serialized = create_serializer("rest-json", include_validation=False).serialize_to_request(
        params, model.operation_model(operation))
    body = serialized["body"]
    data = body if isinstance(body, bytes) else str(body).encode()
    query = urlencode(serialized["query_string"], doseq=True) if isinstance(serialized["query_string"], dict) \
        else str(serialized["query_string"])
    headers = {k.lower(): str(v) for k, v in serialized["headers"].items()}
    headers["authorization"] = ("AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/databrew/aws4_request, "
                                "SignedHeaders=host, Signature=00")
    answer = glue.handle(WireRequest(serialized["method"], serialized["url_path"], query, headers, data))
    return answer.status, answer.body


def _steps(rng: random.Random) -> list[dict[str, Any]]:
    steps = []
    for _ in range(rng.randint(0, 3)):
        spec = SPECS[rng.choice(sorted(SPECS))]
        params = {p.name: rng.choice(["a", "1", "true", "[\"a\"]", "{}", "x" * 3, "-5", "DAYS"])
                  for p in spec.params if p.required or rng.random() < 0.3}
        steps.append({"Action": {"Operation": spec.operation, "Parameters": params}})
    return steps


def test_recipe_operations_answer_model_shaped_and_mutated_requests_without_a_500(tmp_path: Path) -> None:
    glue = Glueball(Settings(home=tmp_path))
    brew = glue.client("databrew")
    brew.create_recipe(Name="fz-a", Steps=[{"Action": {"Operation": "UPPER_CASE",
                                                       "Parameters": {"sourceColumn": "a"}}}])
    brew.publish_recipe(Name="fz-a")
    rng = random.Random(20261125)
    generator = Generator(rng)
    failures: list[str] = []
    try:
        model = service_model("databrew")
        for operation in sorted(glue.edge.implemented("databrew")):
            shape = model.operation_model(operation).input_shape
            for attempt in range(24):
                request = generator.value(shape) if shape is not None else {}
                if isinstance(request, dict):
                    if "Name" in request and rng.random() < 0.6:
                        request["Name"] = rng.choice(NAMES)
                    if "Steps" in request and rng.random() < 0.6:
                        request["Steps"] = _steps(rng)
                if attempt % 2:
                    request = _mutate(rng, request)
                try:
                    status, body = _send(glue, operation, request)
                except (TypeError, ValueError, AttributeError, UnicodeError, KeyError):
                    continue  # botocore cannot even serialize it: no client could send it
                if status >= 500:
                    failures.append(f"{operation} {str(request)[:200]} -> {status} {body[:300]!r}")
                elif status >= 400:
                    assert "message" in json.loads(body), body
        assert not failures, f"{len(failures)} 500s:\n" + "\n".join(failures[:15])
    finally:
        glue.close()
