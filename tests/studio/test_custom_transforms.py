"""Custom visual transforms: the seed's two (synthetic data generator, improved partitioning) uploaded as
JSON + Python to the account's assets bucket through boto3's S3 client, used as DynamicTransform nodes in a
graph, run; and every way their files or a node's parameters are refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from glueball.studio.custom import TransformFileError, discover, parse_definition
from tests.helpers import ServerProcess, error_of, shared_spark, unique, wait_for

FILES = Path(__file__).parent / "transforms"
BUCKET = "aws-glue-assets-123456789012-us-east-1"
BASE = f"s3://{BUCKET}/transforms"
ROLE = "arn:aws:iam::123456789012:role/glue"
ENDED = ("STOPPED", "SUCCEEDED", "FAILED", "TIMEOUT", "ERROR")


def _s3(server: ServerProcess) -> Any:
    return boto3.client("s3", endpoint_url=server.endpoint, region_name="us-east-1",
                        aws_access_key_id="AKIDEXAMPLE", aws_secret_access_key="secret")


@pytest.fixture(scope="module")
def uploaded(studio_server: ServerProcess) -> ServerProcess:
    s3 = _s3(studio_server)
    try:
        s3.create_bucket(Bucket=BUCKET)
    except ClientError as exc:  # another module of the session made it
        assert exc.response["Error"]["Code"] == "BucketAlreadyOwnedByYou"
    for path in sorted(p for p in FILES.iterdir() if p.is_file()):  # not a __pycache__ Python may have written
        s3.put_object(Bucket=BUCKET, Key=f"transforms/{path.name}", Body=path.read_bytes())
    s3.put_object(Bucket=BUCKET, Key="transforms/broken.json", Body=b'{"name": "broken", "functionName": ')
    s3.put_object(Bucket=BUCKET, Key="transforms/broken.py", Body=b"def broken(self):\n    return self\n")
    s3.put_object(Bucket=BUCKET, Key="transforms/nofunction.json",
                  Body=json.dumps({"name": "nofunction", "functionName": "nofunction"}).encode())
    s3.put_object(Bucket=BUCKET, Key="transforms/nofunction.py", Body=b"def something_else(self):\n    pass\n")
    return studio_server


def _node(transform: str, parent: str, **values: Any) -> dict[str, Any]:
    parameters = [{"Name": k, "Type": "list" if isinstance(v, list) else "str",
                   "Value": v if isinstance(v, list) else [str(v)]} for k, v in values.items()]
    return {"DynamicTransform": {"Name": transform.replace("_", " ").title(), "TransformName": transform,
                                 "Inputs": [parent], "FunctionName": transform, "Path": f"{BASE}/{transform}.py",
                                 "Parameters": parameters}}


def _graph(**generator: Any) -> dict[str, Any]:
    return {
        "node-1": {"S3JsonSource": {"Name": "Seed", "Paths": ["s3://synthetic-in/"]}},
        "node-2": _node("synthetic_data_generator", "node-1", **generator),
        "node-3": _node("improved_partitioning", "node-2", partitionColumns="category", mode="hash"),
        "node-4": {"S3DirectTarget": {"Name": "Sales", "Inputs": ["node-3"], "Path": "s3://synthetic-out/sales/",
                                      "Format": "parquet", "PartitionKeys": [["category"]]}},
    }


def _refused(glue: Any, graph: dict[str, Any]) -> str:
    with pytest.raises(ClientError) as excinfo:
        glue.create_job(Name=unique("custom"), Role=ROLE, Command={"Name": "glueetl"}, CodeGenConfigurationNodes=graph)
    code, message = error_of(excinfo)
    assert code == "InvalidInputException"
    return message


def test_the_two_custom_transforms_run_in_a_graph(uploaded: ServerProcess) -> None:
    glue = uploaded.client()
    (uploaded.home / "s3" / "synthetic-in").mkdir(exist_ok=True)
    (uploaded.home / "s3" / "synthetic-in" / "seed.json").write_text('{"x": 1}\n')
    name = unique("synthetic")
    graph = _graph(numRows=2000, seed=7, categories=["books", "games", "music", "films"])
    glue.create_job(Name=name, Role=ROLE, Command={"Name": "glueetl"}, CodeGenConfigurationNodes=graph)
    job = glue.get_job(JobName=name)["Job"]
    assert job["CodeGenConfigurationNodes"] == graph
    assert job["DefaultArguments"]["--extra-py-files"] == (f"{BASE}/synthetic_data_generator.py,"
                                                          f"{BASE}/improved_partitioning.py")
    script = (uploaded.home / "s3" / BUCKET / "scripts" / f"{name}.py").read_text()
    assert "import synthetic_data_generator\nimport improved_partitioning\n" in script
    assert ('.synthetic_data_generator(numRows=2000, seed=7, categories=["books", "games", "music", "films"])'
            in script)

    run_id = glue.start_job_run(JobName=name)["JobRunId"]
    run = wait_for(lambda: (r := glue.get_job_run(JobName=name, RunId=run_id)["JobRun"])["JobRunState"] in ENDED
                   and r, timeout=300, what="the run to end", interval=1.0)
    assert run["JobRunState"] == "SUCCEEDED", run.get("ErrorMessage")
    out = uploaded.home / "s3" / "synthetic-out" / "sales"
    sales = shared_spark().read.parquet(str(out))
    rows = sales.collect()
    assert len(rows) == 2000 and sorted(r.id for r in rows) == list(range(2000))
    names = ["books", "games", "music", "films"]
    assert all(r.category == names[r.id % 4] for r in rows)
    for category in names:  # improved partitioning: one file per partition, not one per task
        files = [p for p in (out / f"category={category}").iterdir() if p.name.endswith(".parquet")]
        assert len(files) == 1, files


def test_bad_files_are_refused_with_the_file_and_reason(uploaded: ServerProcess) -> None:
    glue = uploaded.client()
    broken = _graph(numRows=10)
    broken["node-2"] = _node("broken", "node-1")
    message = _refused(glue, broken)
    assert f"{BASE}/broken.json: not valid JSON" in message and "(node-2)" in message
    no_function = _graph(numRows=10)
    no_function["node-2"] = _node("nofunction", "node-1")
    message = _refused(glue, no_function)
    assert f"{BASE}/nofunction.py: defines no function nofunction" in message and "something_else" in message
    missing = _graph(numRows=10)
    missing["node-2"] = _node("absent", "node-1")
    assert f"{BASE}/absent.py: no such file" in _refused(glue, missing)
    elsewhere = _graph(numRows=10)
    elsewhere["node-2"]["DynamicTransform"]["Path"] = "s3://other-bucket/transforms/synthetic_data_generator.py"
    assert f"custom visual transforms live under {BASE}/" in _refused(glue, elsewhere)


def test_parameters_are_checked_against_the_definition(uploaded: ServerProcess) -> None:
    glue = uploaded.client()
    message = _refused(glue, _graph(numRows="lots"))
    assert "parameter numRows: 'lots' fails its validation rule" in message
    assert "a whole number of rows, 1 or more" in message and "'Synthetic Data Generator' (node-2)" in message
    message = _refused(glue, _graph(seed=3))
    assert "synthetic_data_generator needs parameter(s) numRows" in message
    message = _refused(glue, _graph(numRows=5, colour="red"))
    assert "parameter colour: synthetic_data_generator has no such parameter" in message
    wrong_mode = _graph(numRows=5)
    wrong_mode["node-3"] = _node("improved_partitioning", "node-2", partitionColumns="category", mode="random")
    assert "parameter mode: 'random' is not one of hash, range" in _refused(glue, wrong_mode)
    wrong_function = _graph(numRows=5)
    wrong_function["node-2"]["DynamicTransform"]["FunctionName"] = "generate"
    assert "FunctionName generate is not the function of synthetic_data_generator" in _refused(glue, wrong_function)


def test_discover_lists_valid_transforms_and_why_others_are_not(uploaded: ServerProcess) -> None:
    found, problems = discover(uploaded.home / "s3" / BUCKET / "transforms", BASE)
    assert sorted(d.name for d in found) == ["improved_partitioning", "synthetic_data_generator"]
    generator = next(d for d in found if d.name == "synthetic_data_generator")
    assert [(p.name, p.type, p.optional) for p in generator.parameters] == [
        ("numRows", "int", False), ("seed", "int", True), ("categories", "list", True)]
    assert len(problems) == 2 and any("broken.json: not valid JSON" in p for p in problems)


@pytest.mark.parametrize(("text", "reason"), [
    ('["a"]', "must be a JSON object"),
    ('{"name": "x"}', "functionName is required"),
    ('{"name": "x", "functionName": "not-python"}', "is not a Python identifier"),
    ('{"name": "x", "functionName": "x", "parameters": [{"name": "a", "type": "text"}]}', "type must be one of"),
    ('{"name": "x", "functionName": "x", "parameters": [{"name": "a", "type": "str", "validationRule": "("}]}',
     "is not a regular expression"),
    ('{"name": "x", "functionName": "x", "parameters": [{"name": "a", "type": "str"}, {"name": "a", "type": "int"}]}',
     "defined twice"),
])
def test_definition_errors(text: str, reason: str) -> None:
    with pytest.raises(TransformFileError, match=reason) as excinfo:
        parse_definition(text, "s3://b/transforms/x.json")
    assert str(excinfo.value).startswith("s3://b/transforms/x.json: ")
