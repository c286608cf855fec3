"""Large request bodies: what they cost a real server in memory, and how each protocol refuses them.

A body the server reads whole (JSON, query, REST-JSON, an S3 document) above 1 MiB is kept in a file
as it arrives and admitted by what parsing it costs (glueball.edge.memory): those that do not fit beside
the large requests in flight get the protocol's throttling error, which every AWS SDK retries; a body
that would not fit even alone is refused as too large. Uploads stream to a file and are never limited.
The memory is measured from outside, on the server process (/proc/<pid>/status).
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import boto3
import botocore.config
import pytest

from tests.helpers import ScopedEnviron, ServerProcess, wait_for

MIB = 1024 * 1024
GLUE = {"X-Amz-Target": "AWSGlue.CreateDatabase", "Content-Type": "application/x-amz-json-1.1"}


def _rss_mib(pid: int, field: str = "VmRSS") -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) // 1024
    raise AssertionError(f"no {field} for process {pid}")


def _post(port: int, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        connection.request("POST", path, body=body, headers=headers)
        answer = connection.getresponse()
        return answer.status, {k.lower(): v for k, v in answer.getheaders()}, answer.read()
    finally:
        connection.close()


def _description_body(size: int) -> bytes:
    """A CreateDatabase request of ``size`` bytes (its Description far over the model's 2048)."""
    head = b'{"DatabaseInput": {"Name": "big", "Description": "'
    return head + b"d" * (size - len(head) - 3) + b'"}}'


def test_sixteen_concurrent_31_mb_bodies_stay_under_500_mb_and_the_memory_comes_back(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path).start()
    try:
        assert server.proc is not None
        pid = server.proc.pid
        baseline = _rss_mib(pid)
        body = _description_body(31 * MIB)
        answers: list[tuple[int, str]] = []

        def send() -> None:
            status, _, data = _post(server.port, "/", body, GLUE)
            answers.append((status, json.loads(data)["__type"]))

        threads = [threading.Thread(target=send) for _ in range(16)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        peak = _rss_mib(pid, "VmHWM")
        settled = wait_for(lambda: (rss := _rss_mib(pid)) < 300 and rss, timeout=20,
                           what="the server's RSS back under 300 MB", interval=0.2)
        print(f"RSS MiB: baseline {baseline}, peak {peak}, after {settled}; answers {Counter(answers)}")
        kinds = Counter(kind for _, kind in answers)
        assert set(kinds) <= {"ValidationException", "ThrottlingException"}, answers
        assert kinds["ValidationException"] >= 1 and kinds["ThrottlingException"] >= 1, answers
        assert all(status == 400 for status, _ in answers)
        assert peak < 500, f"peak RSS {peak} MiB (baseline {baseline})"
        # the server still serves, and still admits a large request once the others are done
        status, _, data = _post(server.port, "/", _description_body(31 * MIB), GLUE)
        assert status == 400 and json.loads(data)["__type"] == "ValidationException"
    finally:
        server.stop()


# ---------------------------------------------------------------- each protocol's refusals, deterministically

class _HeldRequest:
    """A large request whose headers are sent (so the server reserved its body's cost) and whose body is
    not yet: it holds the budget until :meth:`finish`."""

    def __init__(self, port: int, size: int) -> None:
        self.size = size
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=60)
        self.sock.sendall(f"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Amz-Target: AWSGlue.CreateDatabase\r\n"
                          f"Content-Type: application/x-amz-json-1.1\r\nContent-Length: {size}\r\n\r\n".encode())

    def finish(self) -> bytes:
        self.sock.sendall(_description_body(self.size))
        answer = b""
        while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
            piece = self.sock.recv(65536)
            if not piece:
                break
            answer += piece
        self.sock.close()
        return answer


@pytest.fixture(scope="module")
def small_budget(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server whose large bodies may cost 8 MiB at once: one 2 MiB body (6 MiB) holds most of it."""
    with ScopedEnviron({"GLUEBALL_REQUEST_MEMORY_MB": "8"}):
        server = ServerProcess(tmp_path_factory.mktemp("small-budget")).start()
    boto3.client("s3", endpoint_url=server.endpoint, region_name="us-east-1", aws_access_key_id="AKID",
                 aws_secret_access_key="secret").create_bucket(Bucket="held")
    yield server
    server.stop()


Answer = tuple[int, dict[str, str], bytes]
_THROTTLED = (b'"ThrottlingException"', b"<Code>Throttling</Code>", b"<Code>SlowDown</Code>", b'"error_code": 429')


def _throttled(answer: Answer) -> bool:
    _, headers, data = answer
    return headers.get("x-amzn-errortype") == "ThrottlingException" or any(mark in data for mark in _THROTTLED)


def _throttled_now(server: ServerProcess) -> bool:
    """Whether a large Glue request is refused now (another large request holds the budget)."""
    return _throttled(_post(server.port, "/", _description_body(2 * MIB), GLUE))


def _if_throttled(answer: Answer) -> Answer | None:
    return answer if _throttled(answer) else None


def _while_held(server: ServerProcess, send: Callable[[], Answer]) -> Answer:
    """``send()``'s answer once the server refuses it for a held large request's sake (sent before the server
    read the held request's headers, it is admitted: then it is sent again)."""
    held = _HeldRequest(server.port, 2 * MIB)
    try:
        return wait_for(lambda: _if_throttled(send()), timeout=20, what="a refusal while a large request is held")
    finally:
        assert b'"ValidationException"' in held.finish()  # the held request itself is served in full


def test_glue_is_throttled_with_throttling_exception(small_budget: ServerProcess) -> None:
    status, headers, data = _while_held(small_budget, lambda: _post(small_budget.port, "/", _description_body(
        2 * MIB), GLUE))
    answer = json.loads(data)
    assert (status, answer["__type"]) == (400, "ThrottlingException")
    assert "Rate exceeded" in answer["message"] and "MiB" in answer["message"]
    assert headers["x-amzn-requestid"]


def test_iam_is_throttled_with_the_query_protocols_throttling(small_budget: ServerProcess) -> None:
    form = ("Action=CreatePolicy&Version=2010-05-08&PolicyName=big&PolicyDocument=" + "x" * (2 * MIB)).encode()
    status, _, data = _while_held(small_budget, lambda: _post(small_budget.port, "/", form, {
        "Content-Type": "application/x-www-form-urlencoded"}))
    assert status == 400
    assert b"<ErrorResponse" in data and b"<Code>Throttling</Code>" in data and b"<RequestId>" in data


def test_an_s3_document_is_throttled_with_slow_down_and_uploads_are_not(small_budget: ServerProcess) -> None:
    keys = "".join(f"<Object><Key>k{i:07d}</Key></Object>" for i in range(2 * MIB // 34))
    document = f"<Delete>{keys}</Delete>".encode()
    status, _, data = _while_held(small_budget, lambda: _post(small_budget.port, "/held?delete", document, {
        "Content-Type": "application/xml"}))
    assert status == 503
    assert b"<Code>SlowDown</Code>" in data and b"<RequestId>" in data
    # an upload streams to a file: never held back by the budget
    s3 = boto3.client("s3", endpoint_url=small_budget.endpoint, region_name="us-east-1", aws_access_key_id="AKID",
                      aws_secret_access_key="secret")
    held = _HeldRequest(small_budget.port, 2 * MIB)
    try:
        wait_for(lambda: _throttled_now(small_budget), timeout=20, what="the held request holding the budget")
        s3.put_object(Bucket="held", Key="upload", Body=b"u" * (3 * MIB))
    finally:
        held.finish()
    assert s3.head_object(Bucket="held", Key="upload")["ContentLength"] == 3 * MIB


def test_databrew_and_the_confluent_surface_are_throttled_in_their_forms(small_budget: ServerProcess) -> None:
    signed = "AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/databrew/aws4_request, SignedHeaders=host, " \
             "Signature=00"
    recipe = json.dumps({"Name": "big", "Steps": [{"Action": {"Operation": "UPPER_CASE",
                                                              "Parameters": {"sourceColumn": "c" * (2 * MIB)}}}]})
    status, headers, _ = _while_held(small_budget, lambda: _post(small_budget.port, "/recipes", recipe.encode(), {
        "Content-Type": "application/json", "Authorization": signed}))
    assert (status, headers["x-amzn-errortype"]) == (429, "ThrottlingException")
    schema = json.dumps({"schema": json.dumps({"type": "string", "doc": "d" * (2 * MIB)})}).encode()
    status, _, data = _while_held(small_budget, lambda: _post(small_budget.port, "/_confluent/subjects/s/versions",
                                                              schema, {"Content-Type": "application/json"}))
    assert status == 429 and json.loads(data)["error_code"] == 429


def test_boto3_retries_a_throttled_request_until_it_is_served(small_budget: ServerProcess) -> None:
    glue = boto3.client("glue", endpoint_url=small_budget.endpoint, region_name="us-east-1",
                        aws_access_key_id="AKID", aws_secret_access_key="secret",
                        config=botocore.config.Config(retries={"mode": "standard", "max_attempts": 10}))
    glue.create_database(DatabaseInput={"Name": "retried"})
    throttled = threading.Event()

    def seen(response: Any = None, **_: Any) -> None:
        if response is not None and response[1].get("Error", {}).get("Code") == "ThrottlingException":
            throttled.set()

    glue.meta.events.register("needs-retry.glue.CreateTable", seen)
    parameters = {f"p{i}": "v" * 500_000 for i in range(4)}  # a 2 MB request Glue's model allows
    outcome: dict[str, Any] = {}
    caller = threading.Thread(target=lambda: outcome.update(glue.create_table(DatabaseName="retried", TableInput={
        "Name": "wide", "Parameters": parameters})))
    held = _HeldRequest(small_budget.port, 2 * MIB)
    try:
        wait_for(lambda: _throttled_now(small_budget), timeout=20, what="the held request holding the budget")
        caller.start()
        assert throttled.wait(30), "boto3's request was never throttled"
    finally:
        held.finish()
    caller.join(60)
    assert outcome["ResponseMetadata"]["HTTPStatusCode"] == 200
    assert outcome["ResponseMetadata"]["RetryAttempts"] >= 1
    assert glue.get_table(DatabaseName="retried", Name="wide")["Table"]["Parameters"] == parameters


def test_a_body_too_large_to_read_is_refused_in_each_protocols_form(small_budget: ServerProcess) -> None:
    # 1.5 MiB (4.5 MiB by its length alone) of tiny objects would take ~18 MiB to parse: more than the budget
    columns = json.dumps([{"Name": "c", "Type": "int"}] * (3 * MIB // 56))
    body = ('{"DatabaseName": "d", "TableInput": {"Name": "t", "StorageDescriptor": {"Columns": ' + columns
            + "}}}").encode()
    status, _, data = _post(small_budget.port, "/", body, {"X-Amz-Target": "AWSGlue.CreateTable",
                                                            "Content-Type": "application/x-amz-json-1.1"})
    answer = json.loads(data)
    assert (status, answer["__type"]) == (413, "SerializationException")
    assert "MiB" in answer["message"] and "smaller" in answer["message"]
    # over 32 MiB is refused from its Content-Length, before the body is read
    status, _, data = _post(small_budget.port, "/", b"{" + b" " * (33 * MIB) + b"}", GLUE)
    assert (status, json.loads(data)["__type"]) == (413, "SerializationException")
    keys = "".join("<Object><Key>k</Key></Object>" for _ in range(3 * MIB // 29))
    status, _, data = _post(small_budget.port, "/held?delete", f"<Delete>{keys}</Delete>".encode(),
                            {"Content-Type": "application/xml"})
    assert status == 400 and b"<Code>MaxMessageLengthExceeded</Code>" in data
    form = ("Action=CreatePolicy&Version=2010-05-08&" + "&".join(f"a{i}=b" for i in range(300_000))).encode()
    status, _, data = _post(small_budget.port, "/", form, {"Content-Type": "application/x-www-form-urlencoded"})
    assert status == 413 and b"<Code>ValidationError</Code>" in data
