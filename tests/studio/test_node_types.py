"""A 20-node visual job exercising the node types the other graphs do not: a catalog source, Merge,
Spigot, FillMissingValues, DropNullFields, PIIDetection, SplitFields and SelectFromCollection, CustomCode,
Union, EvaluateDataQuality (both outputs), catalog targets (one partitioned, updating the catalog) —
created through boto3, run, outputs checked; bookmarks per source node; a failing rule stopping a run."""

from __future__ import annotations

import json
from typing import Any

import pytest
from botocore.exceptions import ClientError

from glueball.studio.codegen import generate
from tests.helpers import ServerProcess, error_of, shared_spark, unique, wait_for

ROLE = "arn:aws:iam::123456789012:role/glue"
ENDED = ("STOPPED", "SUCCEEDED", "FAILED", "TIMEOUT", "ERROR")
PEOPLE = [
    {"id": 1, "name": "Ada", "email": "ada@example.com", "phone": "415 555 0199", "city": "london", "score": 10,
     "note": "null"},
    {"id": 2, "name": "Linus", "email": "linus@kernel.org", "phone": "none", "city": "helsinki", "score": None,
     "note": "null"},
    {"id": 3, "name": "Grace", "email": "grace@navy.mil", "phone": "202-555-0143", "city": "arlington", "score": 30,
     "note": "null"},
    {"id": 4, "name": "Alan", "email": "no email", "phone": "n/a", "city": "wilmslow", "score": 20, "note": None},
]
UPDATES = [
    {"id": 2, "name": "Linus", "email": "linus@linux.dev", "phone": "none", "city": "helsinki", "score": 50,
     "note": "null"},
    {"id": 5, "name": "Tim", "email": "tim@w3.org", "phone": "617-555-0100", "city": "boston", "score": None,
     "note": "null"},
]
COLUMNS = [("id", "bigint"), ("name", "string"), ("email", "string"), ("phone", "string"), ("city", "string"),
           ("score", "bigint"), ("note", "string")]
UPPER = '''def Upper(glueContext, dfc) -> DynamicFrameCollection:
    from pyspark.sql import functions as F
    df = dfc.select(list(dfc.keys())[0]).toDF()
    upper = DynamicFrame.fromDF(df.withColumn("city", F.upper("city")), glueContext, "upper")
    return DynamicFrameCollection({"upper": upper}, glueContext)
'''


def _table(name: str, location: str, fmt: str) -> dict[str, Any]:
    serde = ("org.openx.data.jsonserde.JsonSerDe" if fmt == "json"
             else "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe")
    return {"Name": name, "TableType": "EXTERNAL_TABLE", "Parameters": {"classification": fmt},
            "StorageDescriptor": {"Location": location, "Columns": [{"Name": c, "Type": t} for c, t in COLUMNS],
                                  "SerdeInfo": {"SerializationLibrary": serde}}}


def graph() -> dict[str, Any]:
    def n(i: int) -> str:
        return f"node-17100000000{i:02d}"
    return {
        n(1): {"S3JsonSource": {"Name": "People", "Paths": ["s3://sink-in/people/"]}},
        n(2): {"CatalogSource": {"Name": "Updates", "Database": "sink", "Table": "updates"}},
        n(3): {"Merge": {"Name": "Merge", "Inputs": [n(1), n(2)], "Source": n(1), "PrimaryKeys": [["id"]]}},
        n(4): {"Spigot": {"Name": "Sample", "Inputs": [n(3)], "Path": "s3://sink-out/spigot/", "Topk": 3}},
        n(5): {"FillMissingValues": {"Name": "Fill score", "Inputs": [n(4)], "ImputedPath": "score",
                                     "FilledPath": "score_filled"}},
        n(6): {"DropNullFields": {"Name": "Drop null fields", "Inputs": [n(5)],
                                  "NullCheckBoxList": {"IsNullString": True}}},
        n(7): {"PIIDetection": {"Name": "Mask PII", "Inputs": [n(6)], "PiiType": "RowMasking",
                                "EntityTypesToDetect": ["EMAIL", "PHONE_NUMBER"], "MaskValue": "XXXX"}},
        n(8): {"SplitFields": {"Name": "Split", "Inputs": [n(7)], "Paths": [["id"], ["name"]]}},
        n(9): {"SelectFromCollection": {"Name": "Names", "Inputs": [n(8)], "Index": 0}},
        n(10): {"SelectFromCollection": {"Name": "Details", "Inputs": [n(8)], "Index": 1}},
        n(11): {"CustomCode": {"Name": "Upper city", "Inputs": [n(10)], "ClassName": "Upper", "Code": UPPER}},
        n(12): {"SelectFromCollection": {"Name": "Upper", "Inputs": [n(11)], "Index": 0}},
        n(13): {"Union": {"Name": "Union", "Inputs": [n(1), n(2)], "UnionType": "DISTINCT"}},
        n(14): {"EvaluateDataQuality": {"Name": "Check details", "Inputs": [n(12)], "Output": "EvaluationResults",
                                        "Ruleset": 'Rules = [ RowCount = 5, IsComplete "city" ]',
                                        "PublishingOptions": {"ResultsPublishingEnabled": False}}},
        n(15): {"EvaluateDataQuality": {"Name": "Check names", "Inputs": [n(9)],
                                        "Ruleset": 'Rules = [ IsUnique "id" ]',
                                        "PublishingOptions": {"ResultsPublishingEnabled": False}}},
        n(16): {"CatalogTarget": {"Name": "Details table", "Inputs": [n(12)], "Database": "sink",
                                  "Table": "details"}},
        n(17): {"S3DirectTarget": {"Name": "Union out", "Inputs": [n(13)], "Path": "s3://sink-out/union/",
                                   "Format": "json"}},
        n(18): {"S3DirectTarget": {"Name": "DQ out", "Inputs": [n(14)], "Path": "s3://sink-out/dq/",
                                   "Format": "json"}},
        n(19): {"S3DirectTarget": {"Name": "Names out", "Inputs": [n(15)], "Path": "s3://sink-out/names/",
                                   "Format": "json"}},
        n(20): {"S3CatalogTarget": {"Name": "Names table", "Inputs": [n(9)], "Database": "sink", "Table": "names",
                                    "PartitionKeys": [["name"]],
                                    "SchemaChangePolicy": {"EnableUpdateCatalog": True,
                                                           "UpdateBehavior": "UPDATE_IN_DATABASE"}}},
    }


def test_a_graph_of_many_node_types_runs(studio_server: ServerProcess) -> None:
    glue = studio_server.client()
    root = studio_server.home / "s3"
    for folder, rows in (("people", PEOPLE), ("updates", UPDATES)):
        (root / "sink-in" / folder).mkdir(parents=True, exist_ok=True)
        (root / "sink-in" / folder / "part.json").write_text("".join(json.dumps(r) + "\n" for r in rows))
    glue.create_database(DatabaseInput={"Name": "sink"})
    glue.create_table(DatabaseName="sink", TableInput=_table("updates", "s3://sink-in/updates/", "json"))
    details = _table("details", "s3://sink-out/details/", "parquet")
    details["StorageDescriptor"]["Columns"] = [{"Name": c, "Type": t} for c, t in (
        ("email", "string"), ("phone", "string"), ("city", "string"), ("score", "bigint"), ("score_filled", "bigint"))]
    glue.create_table(DatabaseName="sink", TableInput=details)
    names_table = _table("names", "s3://sink-out/names_table/", "parquet")
    names_table["StorageDescriptor"]["Columns"] = [{"Name": "id", "Type": "bigint"}]
    names_table["PartitionKeys"] = [{"Name": "name", "Type": "string"}]
    glue.create_table(DatabaseName="sink", TableInput=names_table)
    name = unique("many_nodes")
    nodes = graph()
    glue.create_job(Name=name, Role=ROLE, Command={"Name": "glueetl"}, CodeGenConfigurationNodes=nodes)
    script = generate(nodes).text()
    assert "def Upper(glueContext, dfc) -> DynamicFrameCollection:" in script
    assert "from glueball.runtime.visual.pii import detect_pii" in script

    run_id = glue.start_job_run(JobName=name)["JobRunId"]
    run = wait_for(lambda: (r := glue.get_job_run(JobName=name, RunId=run_id)["JobRun"])["JobRunState"] in ENDED
                   and r, timeout=420, what="the run to end", interval=1.0)
    assert run["JobRunState"] == "SUCCEEDED", run.get("ErrorMessage")

    spark = shared_spark()
    out = root / "sink-out"
    written = spark.read.parquet(str(out / "details")).collect()
    rows = sorted((r.email, r.phone, r.city, r.score, r.score_filled) for r in written)
    assert rows == sorted([
        ("XXXX", "XXXX", "LONDON", 10, 10), ("XXXX", "none", "HELSINKI", 50, 50), ("XXXX", "XXXX", "ARLINGTON", 30, 30),
        ("no email", "n/a", "WILMSLOW", 20, 20), ("XXXX", "XXXX", "BOSTON", None, 28)])
    assert "note" not in spark.read.parquet(str(out / "details")).columns
    names = sorted((r.id, r.name) for r in spark.read.json(str(out / "names")).collect())
    assert names == [(1, "Ada"), (2, "Linus"), (3, "Grace"), (4, "Alan"), (5, "Tim")]
    assert spark.read.json(str(out / "union")).count() == 6
    outcomes = {r.Rule: r.Outcome for r in spark.read.json(str(out / "dq")).collect()}
    assert outcomes == {"RowCount = 5": "Passed", 'IsComplete "city"': "Passed"}
    assert any("part-" in p.name for p in (out / "spigot").rglob("*"))
    partitions = glue.get_partitions(DatabaseName="sink", TableName="names")["Partitions"]
    assert sorted(p["Values"][0] for p in partitions) == ["Ada", "Alan", "Grace", "Linus", "Tim"]
    assert sorted(r.id for r in spark.read.parquet(str(out / "names_table")).collect()) == [1, 2, 3, 4, 5]


def test_bookmarks_follow_each_source_node(studio_server: ServerProcess) -> None:
    """transformation_ctx per node: with bookmarks on, a second run reads only the files that arrived since."""
    glue = studio_server.client()
    root = studio_server.home / "s3"
    inbox = root / "sink-in" / "inbox"
    inbox.mkdir(parents=True, exist_ok=True)
    (inbox / "one.json").write_text('{"id": 1}\n{"id": 2}\n')
    nodes = {"node-1": {"S3JsonSource": {"Name": "Inbox", "Paths": ["s3://sink-in/inbox/"]}},
             "node-2": {"S3DirectTarget": {"Name": "Copy", "Inputs": ["node-1"], "Path": "s3://sink-out/inbox/",
                                           "Format": "json"}}}
    name = unique("bookmarked")
    glue.create_job(Name=name, Role=ROLE, Command={"Name": "glueetl"}, CodeGenConfigurationNodes=nodes,
                    DefaultArguments={"--job-bookmark-option": "job-bookmark-enable"})

    def run() -> None:
        run_id = glue.start_job_run(JobName=name)["JobRunId"]
        ended = wait_for(lambda: (r := glue.get_job_run(JobName=name, RunId=run_id)["JobRun"])["JobRunState"]
                         in ENDED and r, timeout=300, what="the run to end", interval=1.0)
        assert ended["JobRunState"] == "SUCCEEDED", ended.get("ErrorMessage")

    run()
    (inbox / "two.json").write_text('{"id": 3}\n')
    run()
    ids = sorted(r.id for r in shared_spark().read.json(str(root / "sink-out" / "inbox")).collect())
    assert ids == [1, 2, 3]  # each file copied once
    entry = glue.get_job_bookmark(JobName=name)["JobBookmarkEntry"]
    assert "Inbox_node1" in entry["JobBookmark"]


def test_a_failing_rule_stops_the_job(studio_server: ServerProcess) -> None:
    glue = studio_server.client()
    root = studio_server.home / "s3"
    (root / "sink-in" / "few").mkdir(parents=True, exist_ok=True)
    (root / "sink-in" / "few" / "part.json").write_text('{"id": 1}\n{"id": 2}\n')
    nodes = {"node-1": {"S3JsonSource": {"Name": "Few", "Paths": ["s3://sink-in/few/"]}},
             "node-2": {"EvaluateDataQuality": {
                 "Name": "Enough rows", "Inputs": ["node-1"], "Ruleset": "Rules = [ RowCount > 5 ]",
                 "PublishingOptions": {"ResultsPublishingEnabled": False},
                 "StopJobOnFailureOptions": {"StopJobOnFailureTiming": "Immediate"}}},
             "node-3": {"S3DirectTarget": {"Name": "Out", "Inputs": ["node-2"], "Path": "s3://sink-out/few/",
                                           "Format": "json"}}}
    name = unique("dq_stop")
    glue.create_job(Name=name, Role=ROLE, Command={"Name": "glueetl"}, CodeGenConfigurationNodes=nodes)
    run_id = glue.start_job_run(JobName=name)["JobRunId"]
    run = wait_for(lambda: (r := glue.get_job_run(JobName=name, RunId=run_id)["JobRun"])["JobRunState"] in ENDED
                   and r, timeout=300, what="the run to end", interval=1.0)
    assert run["JobRunState"] == "FAILED"
    assert "Data quality rules failed in node Enough rows: RowCount > 5" in run["ErrorMessage"]
    assert not (root / "sink-out" / "few").exists()
    later = dict(nodes)
    later["node-2"] = {"EvaluateDataQuality": {**nodes["node-2"]["EvaluateDataQuality"],
                                               "StopJobOnFailureOptions": {"StopJobOnFailureTiming": "AfterDataLoad"}}}
    with pytest.raises(ClientError) as excinfo:
        glue.update_job(JobName=name, JobUpdate={"Role": ROLE, "Command": {"Name": "glueetl"},
                                                 "CodeGenConfigurationNodes": later})
    assert error_of(excinfo) == ("InvalidInputException", "CodeGenConfigurationNodes: node 'Enough rows' (node-2): "
                                 "StopJobOnFailureTiming AfterDataLoad is not supported by glueball (Immediate is)")
