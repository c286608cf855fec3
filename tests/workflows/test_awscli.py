"""The issue's AWS CLI flow (awscli from PyPI, --endpoint-url): a workflow with a SCHEDULED starting trigger
and two CONDITIONAL triggers chaining crawler -> job -> crawler, run, inspected and resumed (SQLite and
PostgreSQL). The failing middle job and its resume are in test_resume.py."""

from __future__ import annotations

import json
from typing import Any

from tests.api.test_awscli import aws, aws_json
from tests.api.test_crawlers import write_object
from tests.helpers import unique
from tests.jobs.test_runs import put_script
from tests.workflows.helpers import NOOP, ClockedServer, on_job, wait_workflow_run


def cli_pipeline(server: ClockedServer, script: str) -> dict[str, str]:
    """Crawler raw -> job -> crawler curated in a workflow whose triggers the CLI makes; the names.

    The database, crawlers and job are made with boto3: the issue's flow is about the workflow.
    """
    glue = server.client()
    names = {"workflow": unique("cliwf"), "database": unique("clidb"), "raw": unique("raw"),
             "job": unique("transform"), "curated": unique("curated"), "nightly": unique("nightly")}
    prefix = unique("lake")
    write_object(server, f"bucket/{prefix}/raw/orders/part-0.json", '{"id": 1, "amount": 3.5}\n')
    write_object(server, f"bucket/{prefix}/curated/totals/part-0.json", '{"total": 3.5}\n')
    glue.create_database(DatabaseInput={"Name": names["database"]})
    for crawler, path in ((names["raw"], "raw/orders/"), (names["curated"], "curated/totals/")):
        glue.create_crawler(Name=crawler, Role="GlueRole", DatabaseName=names["database"],
                            Targets={"S3Targets": [{"Path": f"s3://bucket/{prefix}/{path}"}]})
    glue.create_job(Name=names["job"], Role="GlueRole",
                    Command={"Name": "pythonshell", "ScriptLocation": put_script(server, script)})
    assert aws_json(server, "create-workflow", "--name", names["workflow"]) == {"Name": names["workflow"]}
    aws(server, "create-trigger", "--name", names["nightly"], "--workflow-name", names["workflow"],
        "--type", "SCHEDULED", "--schedule", "cron(0 3 * * ? *)", "--start-on-creation",
        "--actions", json.dumps([{"CrawlerName": names["raw"]}]))
    aws(server, "create-trigger", "--name", unique("after_raw"), "--workflow-name", names["workflow"],
        "--type", "CONDITIONAL", "--start-on-creation", "--actions", json.dumps([{"JobName": names["job"]}]),
        "--predicate", json.dumps({"Conditions": [{"LogicalOperator": "EQUALS", "CrawlerName": names["raw"],
                                                   "CrawlState": "SUCCEEDED"}]}))
    aws(server, "create-trigger", "--name", unique("after_job"), "--workflow-name", names["workflow"],
        "--type", "CONDITIONAL", "--start-on-creation", "--actions", json.dumps([{"CrawlerName": names["curated"]}]),
        "--predicate", json.dumps({"Logical": "ANY", "Conditions": [
            on_job(names["job"])]}))
    return names


def node_states(run: dict[str, Any]) -> dict[str, list[str]]:
    states: dict[str, list[str]] = {}
    for node in run["Graph"]["Nodes"]:
        if node["Type"] == "JOB":
            states[node["Name"]] = [r["JobRunState"] for r in node["JobDetails"]["JobRuns"]]
        elif node["Type"] == "CRAWLER":
            states[node["Name"]] = [c["State"] for c in node["CrawlerDetails"]["Crawls"]]
    return states


def edges_by_name(run: dict[str, Any]) -> set[tuple[str, str]]:
    names = {n["UniqueId"]: n["Name"] for n in run["Graph"]["Nodes"]}
    return {(names[e["SourceId"]], names[e["DestinationId"]]) for e in run["Graph"]["Edges"]}


def test_cli_scheduled_workflow_with_a_conditional_chain(wf_server: ClockedServer) -> None:
    names = cli_pipeline(wf_server, NOOP)
    glue = wf_server.client()
    trigger = glue.get_trigger(Name=names["nightly"])["Trigger"]
    assert (trigger["Type"], trigger["State"], trigger["Schedule"], trigger["WorkflowName"]) == \
        ("SCHEDULED", "ACTIVATED", "cron(0 3 * * ? *)", names["workflow"])
    run_id = aws_json(wf_server, "start-workflow-run", "--name", names["workflow"])["RunId"]
    wait_workflow_run(glue, names["workflow"], run_id)
    run = aws_json(wf_server, "get-workflow-run", "--name", names["workflow"], "--run-id", run_id,
                   "--include-graph")["Run"]
    assert run["Status"] == "COMPLETED"
    assert node_states(run) == {names["raw"]: ["SUCCEEDED"], names["job"]: ["SUCCEEDED"],
                                names["curated"]: ["SUCCEEDED"]}
    assert len(run["Graph"]["Nodes"]) == 6 and len(run["Graph"]["Edges"]) == 5
    edges = edges_by_name(run)
    assert (names["nightly"], names["raw"]) in edges
    assert any(source == names["raw"] for source, _ in edges) and any(dest == names["curated"] for _, dest in edges)
    assert run["Statistics"]["SucceededActions"] == 3 and run["Statistics"]["TotalActions"] == 3
    tables = glue.get_tables(DatabaseName=names["database"])["TableList"]
    assert sorted(t["Name"] for t in tables) == ["orders", "totals"]

    # resume-workflow-run from the job node: the job and the crawler after it run again, the first crawl stays
    job_node = next(n["UniqueId"] for n in run["Graph"]["Nodes"] if n["Name"] == names["job"])
    resumed = aws_json(wf_server, "resume-workflow-run", "--name", names["workflow"], "--run-id", run_id,
                       "--node-ids", job_node)
    assert resumed["NodeIds"] == [job_node]
    again = wait_workflow_run(glue, names["workflow"], resumed["RunId"])
    assert (again["Status"], again["PreviousRunId"]) == ("COMPLETED", run_id)
    assert node_states(again) == node_states(run)
    assert again["Statistics"]["TotalActions"] == 2
    assert len(glue.get_job_runs(JobName=names["job"])["JobRuns"]) == 2
    assert len(glue.list_crawls(CrawlerName=names["raw"])["Crawls"]) == 1
