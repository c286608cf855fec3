"""Fuzzing the Glue API from its botocore model: model-shaped and mutated requests never get a 500.

Every operation glueball serves — Glue's, and glueball's own ``Glueball.*`` operations from their model
(whose handlers check their input themselves) — gets requests built from its input shape (names drawn
from a small pool so that some requests reach resources that exist; lists often empty, since the model
allows it where code may take a first item; integers past 32 and 64 bits), then mutated: explicit
``null`` members, values of the wrong type, lone surrogates, out-of-range numbers, forged and foreign
``NextToken`` values. Each answer must be a success or the protocol's client error (a 4xx with a
``__type``), and the server must still answer a plain request afterwards. The causes of 500s found when
the edge was rebuilt, and those the extended fuzz found later, each have a named test below as well, so
that a regression says which one came back.

Most requests are answered in-process (:meth:`Glueball.handle`, the same code the HTTP server
runs); a smaller set goes over HTTP to a real ``glueball server``.
"""

from __future__ import annotations

import base64
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import urllib3
from botocore.model import Shape

from glueball.app import Glueball
from glueball.config import Settings
from glueball.edge.model import service_model
from glueball.edge.wire import WireRequest
from tests.helpers import ServerProcess

MODEL = service_model("glue")
NAMES = ["fz_db", "fz_table", "fz_job", "fz_crawler", "fz_wf", "fz_trigger", "fz_conn", "fz_fn", "fz_ruleset"]
SURROGATE = "\ud800"


@pytest.fixture(scope="module")
def installation(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Glueball]:
    glue = Glueball(Settings(home=tmp_path_factory.mktemp("fuzz")))
    _seed(glue)
    yield glue
    glue.close()


def _seed(glue: Glueball) -> None:
    client = glue.client("glue")
    client.create_database(DatabaseInput={"Name": "fz_db"})
    client.create_table(DatabaseName="fz_db", TableInput={
        "Name": "fz_table", "PartitionKeys": [{"Name": "d", "Type": "string"}],
        "StorageDescriptor": {"Columns": [{"Name": "a", "Type": "int"}], "Location": "s3://fz/t/"}})
    client.create_partition(DatabaseName="fz_db", TableName="fz_table", PartitionInput={"Values": ["1"]})
    client.create_job(Name="fz_job", Role="r", Command={"Name": "glueetl", "ScriptLocation": "s3://fz/x.py"})
    client.create_crawler(Name="fz_crawler", Role="r", Targets={"S3Targets": [{"Path": "s3://fz/t/"}]})
    client.create_workflow(Name="fz_wf")
    client.create_user_defined_function(DatabaseName="fz_db", FunctionInput={
        "FunctionName": "fz_fn", "ClassName": "C", "OwnerName": "o", "OwnerType": "USER"})


def _call(glue: Glueball, operation: str, body: bytes, prefix: str = "AWSGlue") -> tuple[int, dict[str, Any]]:
    answer = glue.handle(WireRequest("POST", "/", headers={
        "x-amz-target": f"{prefix}.{operation}", "content-type": "application/x-amz-json-1.1"}, body=body))
    return answer.status, json.loads(answer.body or b"{}")


def _dumps(value: Any) -> bytes:
    # ensure_ascii keeps lone surrogates as \ud800 escapes, which is what a client would send
    return json.dumps(value).encode()


class Generator:
    """Values of a botocore shape: mostly plausible, sometimes hostile."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def value(self, shape: Shape, depth: int = 0) -> Any:
        kind = shape.type_name
        if kind == "structure":
            return self.structure(shape, depth)
        if kind == "list":
            if self.rng.random() < 0.3:  # empty: what code that takes a list's first item trips on
                return []
            return [self.value(shape.member, depth + 1) for _ in range(self.rng.randint(0, 2 if depth < 4 else 0))]
        if kind == "map":
            return {self.string(shape.key): self.value(shape.value, depth + 1)
                    for _ in range(self.rng.randint(0, 2 if depth < 4 else 0))}
        if kind == "string":
            return self.string(shape)
        if kind in ("integer", "long"):
            if self.rng.random() < 0.7:   # inside the member's own range, to get past validation
                low, high = shape.metadata.get("min", 0), shape.metadata.get("max", 100)
                return self.rng.randint(int(low), int(min(high, low + 1000)))
            return self.rng.choice([0, -1, 2**31, -(2**31) - 1, 2**63, -(2**63) - 1, 2**64, 10**30])
        if kind in ("double", "float"):
            return self.rng.choice([0.0, 1.5, -2.25, 1e308])
        if kind == "boolean":
            return self.rng.choice([True, False])
        if kind == "timestamp":
            return self.rng.choice([0, 1.7e9, "2026-01-01T00:00:00Z", -1e20, "yesterday"])
        if kind == "blob":
            return self.rng.choice([base64.b64encode(b"x").decode(), "not base64!"])
        return None

    def structure(self, shape: Shape, depth: int) -> dict[str, Any]:
        required = set(shape.required_members)
        found: dict[str, Any] = {}
        for name, member in shape.members.items():
            if name in required or (depth < 5 and self.rng.random() < 0.35):
                found[name] = self.value(member, depth + 1)
        return found

    def string(self, shape: Shape) -> str:
        enum = shape.enum
        roll = self.rng.random()
        if enum and roll < 0.7:
            return str(self.rng.choice(enum))
        if roll < 0.6:
            return self.rng.choice(NAMES)
        return self.rng.choice(["", "x" * 300, "a b/c", "名前", "s3://../../etc/", SURROGATE,
                                "a" + SURROGATE + "b", "*", "%", "'; DROP TABLE t; --", "\x00"])


def _mutate(rng: random.Random, request: dict[str, Any]) -> dict[str, Any]:
    """One hostile change to a member at any depth: null, a wrong type, a surrogate, a huge number."""
    paths: list[tuple[Any, Any]] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, child in node.items():
                paths.append((node, key))
                walk(child)
        elif isinstance(node, list):
            for index, child in enumerate(node):
                paths.append((node, index))
                walk(child)

    walk(request)
    if not paths:
        return request
    parent, key = rng.choice(paths)
    parent[key] = rng.choice([None, [], {}, "text", 7, True, SURROGATE, 10**40, -(2**64), 1.5])
    return request


def test_every_operation_answers_model_shaped_and_mutated_requests_without_a_500(tmp_path: Path) -> None:
    # an installation of its own: random requests delete and change the seeded resources
    installation = Glueball(Settings(home=tmp_path))
    _seed(installation)
    try:
        assert len(installation.edge.implemented("glue")) > 100
        _fuzz(installation)
    finally:
        installation.close()


def _fuzz(installation: Glueball, service: str = "glue", prefix: str = "AWSGlue", attempts: int = 24) -> None:
    rng = random.Random(20261124)
    generator = Generator(rng)
    failures: list[str] = []
    model = service_model(service)
    operations = sorted(installation.edge.implemented(service))
    for operation in operations:
        shape = model.operation_model(operation).input_shape
        for attempt in range(attempts):
            request = generator.value(shape) if shape is not None else {}
            if attempt % 2:
                request = _mutate(rng, request)
            status, answer = _call(installation, operation, _dumps(request), prefix)
            if status >= 500 or (status >= 400 and "__type" not in answer):
                failures.append(f"{operation} {json.dumps(request)[:300]} -> {status} {answer}")
    assert not failures, f"{len(failures)} bad answers:\n" + "\n".join(failures[:20])
    assert _call(installation, "GetDatabases", b"{}")[0] == 200


def test_glueballs_own_operations_answer_model_shaped_and_mutated_requests_without_a_500(tmp_path: Path) -> None:
    """The ``Glueball.*`` operations job drivers call, from glueball's own model (their handlers validate)."""
    installation = Glueball(Settings(home=tmp_path))
    _seed(installation)
    try:
        assert len(installation.edge.implemented("glueball")) >= 9
        _fuzz(installation, "glueball", "Glueball", attempts=300)
    finally:
        installation.close()


# --------------------------------------------------------------------- the six causes, one by one


def test_json_nested_deeper_than_the_parser_allows_is_a_serialization_error(installation: Glueball) -> None:
    body = b'{"DatabaseInput":' + b"[" * 5000 + b"]" * 5000 + b"}"
    status, answer = _call(installation, "CreateDatabase", body)
    assert status == 400 and answer["__type"] == "SerializationException"


def test_integers_of_thousands_of_digits_are_a_serialization_error(installation: Glueball) -> None:
    body = b'{"MaxResults": ' + b"9" * 5000 + b"}"
    status, answer = _call(installation, "GetDatabases", body)
    assert status == 400 and answer["__type"] == "SerializationException"


LISTINGS = [
    ("GetJobRuns", {"JobName": "fz_job"}),
    ("ListCrawls", {"CrawlerName": "fz_crawler"}),
    ("GetWorkflowRuns", {"Name": "fz_wf"}),
    ("GetTableVersions", {"DatabaseName": "fz_db", "TableName": "fz_table"}),
    ("SearchTables", {}),
    ("ListDataQualityResults", {}),
    ("ListDataQualityRulesets", {}),
    ("ListDataQualityRuleRecommendationRuns", {}),
    ("ListDataQualityRulesetEvaluationRuns", {}),
    ("GetTables", {"DatabaseName": "fz_db"}),
    ("GetJobs", {}),
    ("GetDatabases", {}),
    ("GetPartitions", {"DatabaseName": "fz_db", "TableName": "fz_table"}),
    ("GetCrawlers", {}),
    ("ListJobs", {}),
    ("GetTriggers", {}),
    ("GetConnections", {}),
    ("GetUserDefinedFunctions", {"Pattern": "*"}),
    ("GetClassifiers", {}),
]
FORGED = [
    "abc",
    base64.urlsafe_b64encode(b'"zz"').decode(),
    base64.urlsafe_b64encode(b"12").decode(),
    base64.urlsafe_b64encode(b'{"o": "GetJobRuns", "p": "x"}').decode(),
    base64.urlsafe_b64encode(b"[1, 2, 3]").decode(),
    base64.urlsafe_b64encode(b"-5").decode(),
    base64.urlsafe_b64encode(b"1e400").decode(),
]


@pytest.mark.parametrize(("operation", "params"), LISTINGS, ids=[op for op, _ in LISTINGS])
def test_forged_next_tokens_are_refused_not_trusted(installation: Glueball, operation: str,
                                                     params: dict[str, Any]) -> None:
    for token in FORGED:
        status, answer = _call(installation, operation, _dumps({**params, "NextToken": token}))
        assert status == 400, (operation, token, answer)
        assert answer["__type"] == "InvalidInputException"
        assert "NextToken" in answer["message"]


def test_a_token_from_one_listing_is_refused_by_another(installation: Glueball) -> None:
    client = installation.client("glue")
    for index in range(3):
        client.create_job(Name=f"fz_token_{index}", Role="r",
                          Command={"Name": "glueetl", "ScriptLocation": "s3://fz/x.py"})
    token = client.get_jobs(MaxResults=1)["NextToken"]
    assert client.get_jobs(MaxResults=1, NextToken=token)["Jobs"]   # its own listing accepts it
    for operation, params in LISTINGS:
        if operation == "GetJobs":
            continue
        status, answer = _call(installation, operation, _dumps({**params, "NextToken": token}))
        assert status == 400 and answer["__type"] == "InvalidInputException", (operation, answer)


@pytest.mark.parametrize(("operation", "params"), [
    ("GetJobBookmark", {"JobName": "fz" + SURROGATE}),
    ("ResetJobBookmark", {"JobName": "fz" + SURROGATE}),
    ("GetPartition", {"DatabaseName": "fz_db", "TableName": "fz_table", "PartitionValues": [SURROGATE]}),
    ("CreatePartition", {"DatabaseName": "fz_db", "TableName": "fz_table",
                         "PartitionInput": {"Values": ["a" + SURROGATE]}}),
    ("TagResource", {"ResourceArn": "arn:aws:glue:us-east-1:123456789012:job/fz_job",
                     "TagsToAdd": {"k": SURROGATE}}),
    ("CreateDatabase", {"DatabaseInput": {"Name": "x" + SURROGATE}}),
])
def test_lone_surrogates_are_a_validation_error(installation: Glueball, operation: str,
                                                params: dict[str, Any]) -> None:
    status, answer = _call(installation, operation, _dumps(params))
    assert status == 400, answer
    assert answer["__type"] in ("ValidationException", "InvalidInputException")
    assert "surrogate" in answer["message"].lower() or "unicode" in answer["message"].lower()


def test_explicit_nulls_are_absent_members(installation: Glueball) -> None:
    arn = "arn:aws:glue:us-east-1:123456789012:job/fz_job"
    status, answer = _call(installation, "TagResource", _dumps({"ResourceArn": arn, "TagsToAdd": None}))
    assert status == 400 and answer["__type"] == "ValidationException"   # a required member, missing
    assert "tagsToAdd" in answer["message"]
    status, _ = _call(installation, "CreateUserDefinedFunction", _dumps({
        "DatabaseName": "fz_db", "FunctionInput": {"FunctionName": "fz_null", "ClassName": "C",
                                                   "ResourceUris": None}}))
    assert status == 200
    function = installation.client("glue").get_user_defined_function(DatabaseName="fz_db",
                                                                     FunctionName="fz_null")
    assert function["UserDefinedFunction"].get("ResourceUris", []) == []
    status, answer = _call(installation, "UpdateColumnStatisticsForTable", _dumps({
        "DatabaseName": "fz_db", "TableName": "fz_table", "ColumnStatisticsList": [{
            "ColumnName": "a", "ColumnType": "int", "AnalyzedTime": 1.7e9,
            "StatisticsData": {"Type": "DATE", "DateColumnStatisticsData": {
                "MinimumValue": None, "MaximumValue": None, "NumberOfNulls": 0,
                "NumberOfDistinctValues": 1}}}]}))
    assert status == 200, answer


@pytest.mark.parametrize(("operation", "params", "member"), [
    ("CreateJob", {"Name": "fz_big", "Role": "r", "MaxRetries": 2**40,
                   "Command": {"Name": "glueetl", "ScriptLocation": "s3://fz/x.py"}}, "MaxRetries"),
    ("GetDatabases", {"MaxResults": -(2**33)}, "MaxResults"),
    ("CreateTable", {"DatabaseName": "fz_db", "TableInput": {"Name": "fz_big", "Retention": 2**31}},
     "Retention"),
])
def test_integers_outside_their_type_are_a_validation_error(installation: Glueball, operation: str,
                                                            params: dict[str, Any], member: str) -> None:
    status, answer = _call(installation, operation, _dumps(params))
    assert status == 400 and answer["__type"] == "ValidationException", answer
    assert member[:1].lower() + member[1:] in answer["message"]


@pytest.mark.parametrize(("target", "params", "code", "words"), [
    ("AWSGlue.CreateMLTransform", {"Name": "fz_ml", "Role": "r", "InputRecordTables": [],
                                   "Parameters": {"TransformType": "FIND_MATCHES"}},
     "InvalidInputException", "InputRecordTables must name at least one table"),
    ("Glueball.CommitJobBookmarkState", {"JobName": "fz_job", "RunId": "jr_1", "Attempt": 2**64, "States": {}},
     "ValidationException", "'attempt' failed to satisfy constraint: Member must be an integer from"),
    ("Glueball.CommitJobBookmarkState", {"JobName": "fz" + SURROGATE, "RunId": "jr_1", "States": {}},
     "ValidationException", "'jobName' failed to satisfy constraint: Member must be valid Unicode"),
    ("Glueball.CommitJobBookmarkState", {"JobName": "fz_job", "RunId": "jr_1", "States": {"k": {SURROGATE: 1}}},
     "ValidationException", "must be valid Unicode"),
    ("Glueball.GetUsage", {"Since": "yesterday"}, "InvalidInputException", "Since must be a time"),
    ("Glueball.GetUsage", {"GroupBy": 7}, "InvalidInputException", "GroupBy must be a list of strings"),
    ("Glueball.GetUsage", {"Kinds": ["JOB_RUN", "LUNCH"]}, "InvalidInputException", "Kinds ['LUNCH']"),
    ("Glueball.TakeStatement", {"SessionId": "s", "WaitSeconds": "soon"}, "InvalidInputException",
     "WaitSeconds must be a number from 0 to 30"),
    ("Glueball.TakeStatement", {"SessionId": 7}, "InvalidInputException", "SessionId must be a session's id"),
    ("Glueball.TakeStatement", {"SessionId": "s", "RunningId": "a"}, "InvalidInputException",
     "RunningId must be a statement's id"),
])
def test_the_500s_the_extended_fuzz_found_are_client_errors(installation: Glueball, target: str,
                                                             params: dict[str, Any], code: str, words: str) -> None:
    prefix, _, operation = target.partition(".")
    status, answer = _call(installation, operation, _dumps(params), prefix)
    assert (status, answer["__type"]) == (400, code), answer
    assert words in answer["message"]


# ------------------------------------------------------------------------------ over HTTP


@pytest.fixture(scope="module")
def http_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    home: Path = tmp_path_factory.mktemp("fuzz-http")
    proc = ServerProcess(home).start()
    yield proc
    proc.stop()


def test_a_real_server_answers_hostile_requests_with_client_errors(http_server: ServerProcess) -> None:
    http = urllib3.PoolManager()
    rng = random.Random(7)
    generator = Generator(rng)
    bodies: list[tuple[str, bytes]] = [
        ("AWSGlue.CreateDatabase", b'{"DatabaseInput":' + b"[" * 3000 + b"]" * 3000 + b"}"),
        ("AWSGlue.GetDatabases", b'{"MaxResults": ' + b"1" * 6000 + b"}"),
        ("AWSGlue.GetJobRuns", _dumps({"JobName": "x", "NextToken": "!!"})),
        ("AWSGlue.GetJobBookmark", _dumps({"JobName": SURROGATE})),
        ("AWSGlue.TagResource", _dumps({"ResourceArn": "arn:aws:glue:us-east-1:1:job/x", "TagsToAdd": None})),
        ("AWSGlue.GetDatabases", b"\xff\xfe not json"),
        ("AWSGlue.CreateMLTransform", _dumps({"Name": "m", "Role": "r", "InputRecordTables": [],
                                              "Parameters": {"TransformType": "FIND_MATCHES"}})),
        ("Glueball.CommitJobBookmarkState", _dumps({"JobName": "j", "RunId": "r", "Attempt": 2**64 + 1})),
        ("Glueball.GetUsage", _dumps({"Since": "yesterday", "GroupBy": 7})),
    ]
    for operation in ("CreateTable", "CreateJob", "StartJobRun", "BatchCreatePartition", "UpdateCrawler"):
        shape = MODEL.operation_model(operation).input_shape
        bodies += [(f"AWSGlue.{operation}", _dumps(_mutate(rng, generator.value(shape)))) for _ in range(10)]
    own = service_model("glueball")
    for operation in own.operation_names:
        shape = own.operation_model(operation).input_shape
        bodies += [(f"Glueball.{operation}", _dumps(_mutate(rng, generator.value(shape)))) for _ in range(4)]
    for target, body in bodies:
        answer = http.request("POST", http_server.endpoint + "/", body=body, headers={
            "X-Amz-Target": target, "Content-Type": "application/x-amz-json-1.1"})
        assert answer.status < 500, (target, body[:200], answer.data[:300])
        if answer.status >= 400:
            assert "__type" in json.loads(answer.data), answer.data
