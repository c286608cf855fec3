"""Data quality runs with their real drivers on Spark, through boto3 against a server (SQLite only).

Two Spark driver runs in all: a ruleset evaluation run over a tiny catalog table (passing and
failing rules, a dynamic rule reading the metric history of earlier results, a reference table of
AdditionalDataSources, results written under ResultsS3Prefix), and a rule recommendation run that
creates the recommended ruleset.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import ServerProcess, send, unique

pytestmark = pytest.mark.spark

ENDED = ("STOPPED", "SUCCEEDED", "FAILED", "TIMEOUT")
ORDERS = [{"id": 1, "email": "a@x.org", "amount": 10.0}, {"id": 2, "email": None, "amount": 20.0},
          {"id": 3, "email": "c@x.org", "amount": 150.0}, {"id": 4, "email": "d@x.org", "amount": 40.0},
          {"id": 5, "email": "e@x.org", "amount": 50.0}]
CUSTOMERS = [{"id": i} for i in range(1, 6)]


@pytest.fixture(scope="module")
def spark_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(tmp_path_factory.mktemp("dq-spark")).start()
    yield proc
    proc.stop()


@pytest.fixture(scope="module")
def tables(spark_server: ServerProcess) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """A database with the JSON tables ``orders`` and ``customers`` in the server's object store."""
    glue = spark_server.client()
    database = unique("dqspark")
    glue.create_database(DatabaseInput={"Name": database})
    sources = []
    for name, rows, columns in (("orders", ORDERS, [("id", "bigint"), ("email", "string"), ("amount", "double")]),
                                ("customers", CUSTOMERS, [("id", "bigint")])):
        folder = spark_server.home / "s3" / "dq-data" / database / name
        folder.mkdir(parents=True)
        (folder / "part-0.json").write_text("".join(json.dumps(row) + "\n" for row in rows))
        glue.create_table(DatabaseName=database, TableInput={
            "Name": name, "TableType": "EXTERNAL_TABLE", "Parameters": {"classification": "json"},
            "StorageDescriptor": {
                "Columns": [{"Name": c, "Type": t} for c, t in columns],
                "Location": f"s3://dq-data/{database}/{name}/",
                "InputFormat": "org.apache.hadoop.mapred.TextInputFormat",
                "OutputFormat": "org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat",
                "SerdeInfo": {"SerializationLibrary": "org.openx.data.jsonserde.JsonSerDe"}}})
        sources.append({"GlueTable": {"DatabaseName": database, "TableName": name}})
    return database, sources[0], sources[1]


def wait_run(get: Any, run_id: str, timeout: float = 600.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run: dict[str, Any] = get(RunId=run_id)
        if run["Status"] in ENDED:
            return run
        time.sleep(0.5)
    raise AssertionError(f"run {run_id} did not end in {timeout} s")


def publish_earlier(server: ServerProcess, context: str, row_count: float, started: float) -> None:
    """A result of an earlier evaluation of the same ruleset, as a previous run would have published it."""
    status, answer = send(server, "Glueball.PublishDataQualityResult", {"Result": {
        "EvaluationContext": context, "RulesetName": context, "StartedOn": started,
        "RuleResults": [{"Name": "Rule_1", "Result": "PASS", "EvaluatedMetrics": {"Dataset.*.RowCount": row_count}}]}})
    assert status == 200, answer


def test_an_evaluation_run_on_spark(spark_server: ServerProcess,
                                    tables: tuple[str, dict[str, Any], dict[str, Any]]) -> None:
    glue = spark_server.client()
    _, orders, customers = tables
    name = unique("orders_checks")
    rules = [
        "RowCount > avg(last(3))",
        'IsComplete "email"',
        'ColumnValues "amount" between 0 and 100',
        'IsUnique "id"',
        'ReferentialIntegrity "id" "reference.id" = 1.0',
    ]
    glue.create_data_quality_ruleset(Name=name, Ruleset="Rules = [\n    " + ",\n    ".join(rules) + "\n]",
                                     TargetTable={"DatabaseName": orders["GlueTable"]["DatabaseName"],
                                                  "TableName": "orders"})
    # the history: an old result of 100 rows, then 2, 3 and 4 rows; avg(last(3)) = 3 reads only the newest three
    now = time.time()
    for age, count in ((400, 100.0), (300, 2.0), (200, 3.0), (100, 4.0)):
        publish_earlier(spark_server, name, count, now - age)

    run_id = glue.start_data_quality_ruleset_evaluation_run(
        DataSource=orders, Role="arn:aws:iam::123456789012:role/dq", RulesetNames=[name], NumberOfWorkers=2,
        AdditionalDataSources={"reference": customers},
        AdditionalRunOptions={"ResultsS3Prefix": "s3://dq-results/runs"})["RunId"]
    run = wait_run(glue.get_data_quality_ruleset_evaluation_run, run_id)
    assert run["Status"] == "SUCCEEDED", (run, (spark_server.home / "logs" / "data-quality" / run_id / "error.log")
                                          .read_text()[-3000:])
    assert len(run["ResultIds"]) == 1 and run["ExecutionTime"] >= 1
    result = glue.get_data_quality_result(ResultId=run["ResultIds"][0])
    assert (result["RulesetName"], result["EvaluationContext"], result["RulesetEvaluationRunId"]) == (name, name,
                                                                                                       run_id)
    assert result["DataSource"] == orders
    outcomes = [(r["Description"], r["Result"]) for r in result["RuleResults"]]
    assert outcomes == [(rules[0], "PASS"), (rules[1], "FAIL"), (rules[2], "FAIL"), (rules[3], "PASS"),
                        (rules[4], "PASS")]
    assert result["Score"] == pytest.approx(3 / 5)
    assert [r["Name"] for r in result["RuleResults"]] == [f"Rule_{n}" for n in range(1, 6)]
    # the dynamic rule as evaluated: avg(last(3)) of the newest three earlier row counts, (2 + 3 + 4) / 3
    assert result["RuleResults"][0]["EvaluatedRule"].startswith("RowCount > 3")
    assert result["AggregatedMetrics"]["TotalRulesFailed"] == 2.0
    by_rule = {r["Description"]: r for r in result["RuleResults"]}
    assert by_rule[rules[0]]["EvaluatedMetrics"]["Dataset.*.RowCount"] == 5.0
    assert by_rule[rules[1]]["EvaluatedMetrics"]["Column.email.Completeness"] == pytest.approx(0.8)
    assert by_rule[rules[2]]["EvaluationMessage"]

    # this run's metrics are history for the next one
    status, answer = send(spark_server, "Glueball.GetDataQualityMetricHistory",
                          {"EvaluationContext": name, "MetricNames": ["Dataset.*.RowCount"], "Limit": 3})
    assert status == 200 and answer["History"]["Dataset.*.RowCount"] == [5.0, 4.0, 3.0]
    written = spark_server.home / "s3" / "dq-results" / "runs" / run_id / f"{run['ResultIds'][0]}.json"
    assert json.loads(written.read_text())["Score"] == pytest.approx(3 / 5)


def test_a_recommendation_run_on_spark(spark_server: ServerProcess,
                                       tables: tuple[str, dict[str, Any], dict[str, Any]]) -> None:
    glue = spark_server.client()
    _, orders, _ = tables
    created = unique("recommended")
    run_id = glue.start_data_quality_rule_recommendation_run(DataSource=orders, Role="r", NumberOfWorkers=2,
                                                             CreatedRulesetName=created)["RunId"]
    run = wait_run(glue.get_data_quality_rule_recommendation_run, run_id)
    log = Path(spark_server.home / "logs" / "data-quality" / run_id / "error.log")
    assert run["Status"] == "SUCCEEDED", (run, log.read_text()[-3000:])
    text = run["RecommendedRuleset"]
    assert text.startswith("Rules = [\n") and "RowCount" in text and '"id"' in text
    ruleset = glue.get_data_quality_ruleset(Name=created)
    assert ruleset["Ruleset"] == text and ruleset["RecommendationRunId"] == run_id
    assert glue.list_data_quality_rulesets(Filter={"Name": created})["Rulesets"][0]["RuleCount"] == \
        text.count("\n") - 2
