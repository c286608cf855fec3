"""The seed's stock-options visual job, end to end: created through boto3 with a graph that uses all ten
visual transforms, its generated script run by a real driver, and its two outputs (the history catalog
table and the CSV summary) checked row by row against the same pipeline written by hand in PySpark."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import boto3

from glueball.studio.codegen import generate
from tests.helpers import ServerProcess, shared_spark, unique, wait_for
from tests.studio import stock

ENDED = ("STOPPED", "SUCCEEDED", "FAILED", "TIMEOUT", "ERROR")


def _run(glue: Any, name: str) -> dict[str, Any]:
    run_id = glue.start_job_run(JobName=name)["JobRunId"]
    return wait_for(lambda: (r := glue.get_job_run(JobName=name, RunId=run_id)["JobRun"])["JobRunState"] in ENDED
                    and r, timeout=420, what=f"job run {run_id} to end", interval=1.0)


def _rows(df: Any, columns: list[str]) -> list[tuple[Any, ...]]:
    return sorted((tuple(r) for r in df.select(*columns).collect()), key=repr)


def test_stock_options_job_matches_hand_written_pyspark(studio_server: ServerProcess) -> None:
    glue = studio_server.client()
    root = studio_server.home / "s3"
    trades = stock.trades(300)
    stock.write_inputs(root, trades)
    glue.create_database(DatabaseInput={"Name": "stocks"})
    glue.create_table(DatabaseName="stocks", TableInput=stock.exchanges_table_input())
    name = unique("stock_options")
    graph = stock.graph()
    glue.create_job(Name=name, Role="arn:aws:iam::123456789012:role/glue", GlueVersion="4.0",
                    Command={"Name": "glueetl", "PythonVersion": "3"}, CodeGenConfigurationNodes=graph)

    job = glue.get_job(JobName=name)["Job"]
    assert job["CodeGenConfigurationNodes"] == graph
    location = job["Command"]["ScriptLocation"]
    assert location == f"s3://aws-glue-assets-123456789012-us-east-1/scripts/{name}.py"
    s3 = boto3.client("s3", endpoint_url=studio_server.endpoint, region_name="us-east-1",
                      aws_access_key_id="AKIDEXAMPLE", aws_secret_access_key="secret")
    bucket, key = location[len("s3://"):].split("/", 1)
    script = s3.get_object(Bucket=bucket, Key=key)["Body"].read().decode()
    assert script == generate(graph).text()
    for transform in ("gs_concat", "gs_split", "gs_array_to_cols", "gs_now", "gs_pivot", "gs_unpivot", "gs_lookup",
                      "gs_explode", "gs_derived", "gs_repartition"):
        assert f"import {transform}\n" in script and f".{transform}(" in script

    run = _run(glue, name)
    assert run["JobRunState"] == "SUCCEEDED", run.get("ErrorMessage")

    spark = shared_spark()
    inputs = spark.read.json(str(root / "stock-data" / "options"))
    venues = spark.read.json(str(root / "stock-data" / "exchanges"))
    expected_history, expected_summary = stock.hand_written(inputs, venues)
    history = spark.read.parquet(str(root / "stock-results" / "history"))
    columns = ["order_id", "symbol", "instrument", "currency", "price", "exchange", "month", "day", "year",
               "strike_price", "type", "expiration_date", "action", "contracts", "exchange_name", "total_amount"]
    got = _rows(history, columns)
    assert got == _rows(expected_history, columns)
    fills = sum(len(t["sold"]) + len(t["bought"]) for t in trades)
    assert len(got) == fills
    assert history.where("process_time IS NULL").count() == 0
    assert {r.exchange_name for r in history.where("exchange = 'MIAX'").collect()} == {None}

    summary = spark.read.csv(str(root / "stock-results" / "summary"), header=True, inferSchema=True)
    assert summary.columns == ["symbol", "bought", "sold"]
    assert len([p for p in (root / "stock-results" / "summary").iterdir() if p.name.startswith("run-")]) == 1
    assert _rows(summary, ["symbol", "bought", "sold"]) == _rows(expected_summary, ["symbol", "bought", "sold"])

    table = glue.get_table(DatabaseName="stocks", Name="option_history")["Table"]
    assert [k["Name"] for k in table["PartitionKeys"]] == ["action"]
    partitions = glue.get_partitions(DatabaseName="stocks", TableName="option_history")["Partitions"]
    assert sorted(p["Values"][0] for p in partitions) == ["bought", "sold"]


def test_update_job_regenerates_the_script(studio_server: ServerProcess, tmp_path: Path) -> None:
    glue = studio_server.client()
    name = unique("stock_update")
    graph = stock.graph()
    location = "s3://my-scripts/studio/stock.py"
    glue.create_job(Name=name, Role="r", Command={"Name": "glueetl", "ScriptLocation": location},
                    CodeGenConfigurationNodes=graph)
    path = studio_server.home / "s3" / "my-scripts" / "studio" / "stock.py"
    assert path.read_text() == generate(graph).text()
    graph[stock.NODE.format(11)]["DynamicTransform"]["Parameters"][0]["Value"] = ["5"]
    glue.update_job(JobName=name, JobUpdate={"Role": "r", "Command": {"Name": "glueetl", "ScriptLocation": location},
                                             "CodeGenConfigurationNodes": graph})
    assert 'gs_repartition(numPartitionsStr="5")' in path.read_text()
    found = glue.batch_get_jobs(JobNames=[name])["Jobs"][0]
    assert found["CodeGenConfigurationNodes"] == graph
