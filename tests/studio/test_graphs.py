"""Job graphs through boto3 against a server: round trips, the generated script (a golden file for a
12-node graph, run by a real driver), and every way a graph is refused, naming the node."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError

from glueball.studio.codegen import generate
from tests.helpers import ServerProcess, error_of, shared_spark, unique, wait_for
from tests.studio import twelve

GOLDEN = Path(__file__).parent / "golden" / "twelve_nodes.golden"
ROLE = "arn:aws:iam::123456789012:role/glue"
ENDED = ("STOPPED", "SUCCEEDED", "FAILED", "TIMEOUT", "ERROR")
SOURCE = {"S3JsonSource": {"Name": "Source", "Paths": ["s3://in/data/"],
                           "OutputSchemas": [{"Columns": [{"Name": "id"}, {"Name": "name"}]}]}}


def _create(glue: Any, nodes: dict[str, Any], name: str | None = None, **command: str) -> str:
    name = name or unique("visual")
    glue.create_job(Name=name, Role=ROLE, Command={"Name": "glueetl", **command}, CodeGenConfigurationNodes=nodes)
    return name


def _refused(glue: Any, nodes: dict[str, Any]) -> tuple[str, str, str]:
    name = unique("refused")
    with pytest.raises(ClientError) as excinfo:
        _create(glue, nodes, name)
    code, message = error_of(excinfo)
    with pytest.raises(ClientError) as missing:
        glue.get_job(JobName=name)
    assert error_of(missing)[0] == "EntityNotFoundException"  # nothing stored
    return code, message, name


def test_the_twelve_node_script_matches_the_golden_file() -> None:
    assert generate(twelve.graph()).text() == GOLDEN.read_text()
    shuffled = dict(reversed(list(twelve.graph().items())))
    assert generate(shuffled).text() == GOLDEN.read_text()  # the order of the map does not matter


def test_twelve_node_job_round_trips_and_runs(studio_server: ServerProcess) -> None:
    glue = studio_server.client()
    root = studio_server.home / "s3"
    twelve.write_inputs(root)
    graph = twelve.graph()
    name = _create(glue, graph)
    job = glue.get_job(JobName=name)["Job"]
    assert job["CodeGenConfigurationNodes"] == graph
    listed = {j["Name"]: j for j in glue.get_jobs()["Jobs"]}
    assert listed[name]["CodeGenConfigurationNodes"] == graph
    script = (root / f"aws-glue-assets-123456789012-us-east-1/scripts/{name}.py").read_text()
    assert script == GOLDEN.read_text()

    run_id = glue.start_job_run(JobName=name)["JobRunId"]
    run = wait_for(lambda: (r := glue.get_job_run(JobName=name, RunId=run_id)["JobRun"])["JobRunState"] in ENDED
                   and r, timeout=300, what="the run to end", interval=1.0)
    assert run["JobRunState"] == "SUCCEEDED", run.get("ErrorMessage")
    spark = shared_spark()
    totals = {r.customer_name: (r["sum(amount_cents)"], r["count(order_id)"])
              for r in spark.read.json(str(root / "shop-out" / "totals")).collect()}
    assert totals == {"Ada": (5090, 3), "Linus": (1975, 1), "Grace": (500, 1), "unknown": (310, 1)}
    orders = spark.read.parquet(str(root / "shop-out" / "orders"))
    assert sorted((r.order_id, r.customer_name, r.country, r.amount_cents) for r in orders.collect()) == [
        (1, "Ada", "UK", 1250), (3, "Ada", "UK", 3000), (4, "Grace", "US", 500), (5, "Linus", "FI", 1975),
        (6, "unknown", None, 310), (7, "Ada", "UK", 840)]
    assert {p.name for p in (root / "shop-out" / "orders").iterdir() if p.is_dir()} >= {
        "country=UK", "country=US", "country=FI"}


def test_a_job_without_a_graph_is_unchanged(studio_server: ServerProcess) -> None:
    glue = studio_server.client()
    name = unique("plain")
    glue.create_job(Name=name, Role=ROLE, Command={"Name": "glueetl", "ScriptLocation": "s3://s/plain.py"})
    job = glue.get_job(JobName=name)["Job"]
    assert "CodeGenConfigurationNodes" not in job and job["Command"]["ScriptLocation"] == "s3://s/plain.py"
    assert not (studio_server.home / "s3" / "s" / "plain.py").exists()


def test_a_cycle_is_refused(studio_server: ServerProcess) -> None:
    nodes = {"node-1": SOURCE,
             "node-2": {"SelectFields": {"Name": "A", "Inputs": ["node-3"], "Paths": [["id"]]}},
             "node-3": {"SelectFields": {"Name": "B", "Inputs": ["node-2"], "Paths": [["id"]]}}}
    code, message, _ = _refused(studio_server.client(), nodes)
    assert code == "InvalidInputException"
    assert "cycle" in message and "'A' (node-2)" in message and "'B' (node-3)" in message


def test_a_dangling_input_is_refused(studio_server: ServerProcess) -> None:
    nodes = {"node-1": SOURCE, "node-2": {"SelectFields": {"Name": "Pick", "Inputs": ["node-9"], "Paths": [["id"]]}}}
    assert _refused(studio_server.client(), nodes)[:2] == (
        "InvalidInputException", "CodeGenConfigurationNodes: node 'Pick' (node-2): input node-9 is not a node of "
                                 "the graph")


def test_wrong_arity_is_refused(studio_server: ServerProcess) -> None:
    glue = studio_server.client()
    into_target = {"node-1": SOURCE,
                   "node-2": {"S3DirectTarget": {"Name": "Out", "Inputs": ["node-1"], "Path": "s3://o/",
                                                 "Format": "json"}},
                   "node-3": {"SelectFields": {"Name": "After", "Inputs": ["node-2"], "Paths": [["id"]]}}}
    code, message, _ = _refused(glue, into_target)
    assert code == "InvalidInputException" and "'After' (node-3)" in message and "gives no data" in message
    collection = {"node-1": SOURCE,
                  "node-2": {"SplitFields": {"Name": "Split", "Inputs": ["node-1"], "Paths": [["id"]]}},
                  "node-3": {"SelectFields": {"Name": "Pick", "Inputs": ["node-2"], "Paths": [["id"]]}}}
    code, message, _ = _refused(glue, collection)
    assert code == "InvalidInputException" and "'Pick' (node-3)" in message and "SelectFromCollection" in message
    single = {"node-1": SOURCE,
              "node-2": {"SelectFromCollection": {"Name": "Choose", "Inputs": ["node-1"], "Index": 0}}}
    code, message, _ = _refused(glue, single)
    assert code == "InvalidInputException" and "'Choose' (node-2)" in message and "needs a collection" in message
    multi = {"node-1": SOURCE,
             "node-2": {"EvaluateDataQualityMultiFrame": {"Name": "DQ", "Inputs": ["node-1", "node-1"],
                                                          "Ruleset": "Rules = [ RowCount > 0 ]"}}}
    code, message, _ = _refused(glue, multi)
    assert code == "InvalidInputException" and "'DQ' (node-2)" in message and "named twice" in message
    # the model's own bounds (a Join takes exactly two inputs) are checked before the graph is
    join = {"node-1": SOURCE, "node-2": {"Join": {"Name": "J", "Inputs": ["node-1"], "JoinType": "left",
                                                  "Columns": [{"From": "node-1", "Keys": [["id"]]},
                                                              {"From": "node-1", "Keys": [["id"]]}]}}}
    status, body = studio_server.raw("CreateJob", {"Name": unique("join"), "Role": ROLE,
                                                   "Command": {"Name": "glueetl"}, "CodeGenConfigurationNodes": join})
    assert status == 400 and body["__type"] == "ValidationException" and "node-2.join.inputs" in body["message"]


def test_unknown_columns_are_refused_where_known(studio_server: ServerProcess) -> None:
    glue = studio_server.client()
    select = {"node-1": SOURCE, "node-2": {"SelectFields": {"Name": "Pick", "Inputs": ["node-1"],
                                                            "Paths": [["id"], ["email"]]}}}
    assert _refused(glue, select)[:2] == (
        "InvalidInputException", "CodeGenConfigurationNodes: node 'Pick' (node-2): Paths names column 'email', "
                                 "which its input does not have (columns: id, name)")
    renamed = {"node-1": SOURCE,
               "node-2": {"RenameField": {"Name": "Rename", "Inputs": ["node-1"], "SourcePath": ["name"],
                                          "TargetPath": ["full_name"]}},
               "node-3": {"DynamicTransform": {
                   "Name": "Concat", "TransformName": "gs_concat", "Inputs": ["node-2"], "FunctionName": "gs_concat",
                   "Path": "s3://aws-glue-studio-transforms-510798373988-prod-us-east-1/gs_concat.py",
                   "Parameters": [{"Name": "colName", "Type": "str", "Value": ["x"]},
                                  {"Name": "colList", "Type": "list", "ListType": "str", "Value": ["id", "name"]}]}}}
    code, message, _ = _refused(glue, renamed)
    assert code == "InvalidInputException" and "'Concat' (node-3)" in message and "'name'" in message
    assert "(columns: id, full_name)" in message
    # without a declared schema nothing is known, so nothing is refused
    unknown = copy.deepcopy(select)
    del unknown["node-1"]["S3JsonSource"]["OutputSchemas"]
    glue.get_job(JobName=_create(glue, unknown))


def test_bad_nodes_are_refused(studio_server: ServerProcess) -> None:
    glue = studio_server.client()
    unsupported = {"node-1": {"RedshiftSource": {"Name": "Warehouse", "Database": "d", "Table": "t"}}}
    code, message, _ = _refused(glue, unsupported)
    assert code == "InvalidInputException" and "'Warehouse' (node-1)" in message and "not supported" in message
    bad_sql = {"node-1": SOURCE, "node-2": {"SparkSQL": {"Name": "Q", "Inputs": ["node-1"], "SqlQuery": "select 1",
                                                         "SqlAliases": [{"From": "node-7", "Alias": "t"}]}}}
    code, message, _ = _refused(glue, bad_sql)
    assert code == "InvalidInputException" and "'Q' (node-2)" in message and "node-1" in message
    bad_code = {"node-1": SOURCE, "node-2": {"CustomCode": {"Name": "Mine", "Inputs": ["node-1"],
                                                            "ClassName": "MyTransform", "Code": "def Other(:"}}}
    code, message, _ = _refused(glue, bad_code)
    assert code == "InvalidInputException" and "'Mine' (node-2)" in message and "not Python" in message
    bad_parameter = {"node-1": SOURCE, "node-2": {"DynamicTransform": {
        "Name": "Balance", "TransformName": "gs_repartition", "Inputs": ["node-1"], "FunctionName": "gs_repartition",
        "Path": "s3://aws-glue-studio-transforms-510798373988-prod-us-east-1/gs_repartition.py",
        "Parameters": [{"Name": "numPartitionsStr", "Type": "str", "Value": ["zero"]}]}}}
    code, message, _ = _refused(glue, bad_parameter)
    assert code == "InvalidInputException" and "'Balance' (node-2)" in message and "'zero'" in message
    missing = json.loads(json.dumps(bad_parameter).replace('"numPartitionsStr"', '"partitions"'))
    code, message, _ = _refused(glue, missing)
    assert "has no such parameter" in message and "numPartitionsStr" in message
    pii = {"node-1": SOURCE, "node-2": {"PIIDetection": {"Name": "PII", "Inputs": ["node-1"], "PiiType": "RowAudit",
                                                         "EntityTypesToDetect": ["PASSPORT"]}}}
    code, message, _ = _refused(glue, pii)
    assert "'PII' (node-2)" in message and "entity type PASSPORT is not one glueball detects" in message
    pii["node-2"]["PIIDetection"].update(EntityTypesToDetect=["EMAIL"], RedactChar="#")
    assert "RedactChar of PIIDetection are not supported" in _refused(glue, pii)[1]
    pii["node-2"]["PIIDetection"].pop("RedactChar")
    pii["node-2"]["PIIDetection"]["PiiType"] = "ColumnAudit"
    assert "PiiType ColumnAudit is not supported" in _refused(glue, pii)[1]
    assert _refused(glue, {"node-1": {}})[:2] == (
        "InvalidInputException", "CodeGenConfigurationNodes: node node-1 must set exactly one node type, got none")


def test_update_to_a_bad_graph_keeps_the_job(studio_server: ServerProcess) -> None:
    glue = studio_server.client()
    graph = {"node-1": SOURCE, "node-2": {"S3DirectTarget": {"Name": "Out", "Inputs": ["node-1"],
                                                             "Path": "s3://o/", "Format": "json"}}}
    name = _create(glue, graph, ScriptLocation="s3://kept/job.py")
    before = (studio_server.home / "s3" / "kept" / "job.py").read_text()
    broken = copy.deepcopy(graph)
    broken["node-2"]["S3DirectTarget"]["Inputs"] = ["node-5"]
    with pytest.raises(ClientError) as excinfo:
        glue.update_job(JobName=name, JobUpdate={"Role": ROLE, "CodeGenConfigurationNodes": broken,
                                                 "Command": {"Name": "glueetl", "ScriptLocation": "s3://kept/job.py"}})
    assert error_of(excinfo)[0] == "InvalidInputException"
    assert glue.get_job(JobName=name)["Job"]["CodeGenConfigurationNodes"] == graph
    assert (studio_server.home / "s3" / "kept" / "job.py").read_text() == before


def test_the_aws_cli_creates_a_visual_job(studio_server: ServerProcess, tmp_path: Path) -> None:
    from tests.api.test_awscli import aws, aws_json

    graph_file = tmp_path / "graph.json"
    graph_file.write_text(json.dumps(twelve.graph()))
    name = unique("cli_visual")
    aws(studio_server, "create-job", "--name", name, "--role", ROLE, "--command", "Name=glueetl",
        "--code-gen-configuration-nodes", f"file://{graph_file}")
    job = aws_json(studio_server, "get-job", "--job-name", name)["Job"]
    assert job["CodeGenConfigurationNodes"] == twelve.graph()
    bucket_key = job["Command"]["ScriptLocation"].removeprefix("s3://")
    assert (studio_server.home / "s3" / bucket_key).read_text() == GOLDEN.read_text()
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"node-1": SOURCE, "node-2": {"SelectFields": {
        "Name": "Pick", "Inputs": ["node-3"], "Paths": [["id"]]}}}))
    failed = aws(studio_server, "create-job", "--name", unique("cli_bad"), "--role", ROLE, "--command",
                 "Name=glueetl", "--code-gen-configuration-nodes", f"file://{bad}", check=False)
    assert failed.returncode != 0
    assert "InvalidInputException" in failed.stderr and "'Pick' (node-2)" in failed.stderr
