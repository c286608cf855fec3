"""Workflows through boto3 (SQLite and PostgreSQL): definitions, graphs, listing, updates and deletion."""

from __future__ import annotations

from typing import Any

from glueball.config import DEFAULT_ACCOUNT_ID
from glueball.workflows.graph import node_id
from tests.api.test_crawlers import create as create_crawler
from tests.helpers import unique
from tests.jobs.test_runs import create_job
from tests.workflows.helpers import NOOP, ClockedServer, client_error, on_job

WORKFLOW_ARN = f"arn:aws:glue:us-east-1:{DEFAULT_ACCOUNT_ID}:workflow/"


def chain(glue: Any, server: ClockedServer, workflow: str) -> dict[str, str]:
    """ON_DEMAND start -> crawler, then CONDITIONAL crawler SUCCEEDED -> job, job SUCCEEDED -> crawler."""
    names = {"first": create_crawler(glue), "job": create_job(glue, server, NOOP), "last": create_crawler(glue),
             "start": unique("start"), "after_crawl": unique("after_crawl"), "after_job": unique("after_job")}
    glue.create_trigger(Name=names["start"], WorkflowName=workflow, Type="ON_DEMAND",
                        Actions=[{"CrawlerName": names["first"]}])
    glue.create_trigger(Name=names["after_crawl"], WorkflowName=workflow, Type="CONDITIONAL", StartOnCreation=True,
                        Predicate={"Conditions": [{"CrawlerName": names["first"], "CrawlState": "SUCCEEDED",
                                                   "LogicalOperator": "EQUALS"}]},
                        Actions=[{"JobName": names["job"]}])
    glue.create_trigger(Name=names["after_job"], WorkflowName=workflow, Type="CONDITIONAL", StartOnCreation=True,
                        Predicate={"Conditions": [on_job(names["job"])]},
                        Actions=[{"CrawlerName": names["last"]}])
    return names


def test_create_get_and_the_graph(glue: Any, wf_server: ClockedServer) -> None:
    name = unique("wf")
    assert glue.create_workflow(Name=name, Description="daily", DefaultRunProperties={"day": "1"},
                                MaxConcurrentRuns=2, Tags={"team": "data"})["Name"] == name
    assert client_error(lambda: glue.create_workflow(Name=name)) == \
        ("AlreadyExistsException", f"Workflow with name {name} already exists")
    bare = glue.get_workflow(Name=name)["Workflow"]
    assert bare["CreatedOn"] <= bare["LastModifiedOn"]
    assert {k: v for k, v in bare.items() if k not in ("CreatedOn", "LastModifiedOn")} == {
        "Name": name, "Description": "daily", "DefaultRunProperties": {"day": "1"}, "MaxConcurrentRuns": 2}
    assert glue.get_tags(ResourceArn=WORKFLOW_ARN + name)["Tags"] == {"team": "data"}
    assert glue.get_workflow(Name=name, IncludeGraph=True)["Workflow"]["Graph"] == {"Nodes": [], "Edges": []}

    names = chain(glue, wf_server, name)
    workflow = glue.get_workflow(Name=name, IncludeGraph=True)["Workflow"]
    assert "LastRun" not in workflow
    nodes = workflow["Graph"]["Nodes"]
    ids = {(n["Type"], n["Name"]): n["UniqueId"] for n in nodes}
    assert ids == {(t, n): node_id(name, t, n) for t, n in [
        ("TRIGGER", names["start"]), ("CRAWLER", names["first"]), ("TRIGGER", names["after_crawl"]),
        ("JOB", names["job"]), ("TRIGGER", names["after_job"]), ("CRAWLER", names["last"])]}
    # the nodes come in the order the edges run
    assert [(n["Type"], n["Name"]) for n in nodes] == [
        ("TRIGGER", names["start"]), ("CRAWLER", names["first"]), ("TRIGGER", names["after_crawl"]),
        ("JOB", names["job"]), ("TRIGGER", names["after_job"]), ("CRAWLER", names["last"])]
    edges = {(e["SourceId"], e["DestinationId"]) for e in workflow["Graph"]["Edges"]}
    assert edges == {
        (ids["TRIGGER", names["start"]], ids["CRAWLER", names["first"]]),
        (ids["CRAWLER", names["first"]], ids["TRIGGER", names["after_crawl"]]),
        (ids["TRIGGER", names["after_crawl"]], ids["JOB", names["job"]]),
        (ids["JOB", names["job"]], ids["TRIGGER", names["after_job"]]),
        (ids["TRIGGER", names["after_job"]], ids["CRAWLER", names["last"]])}
    assert len(workflow["Graph"]["Edges"]) == 5
    trigger_node = nodes[2]["TriggerDetails"]["Trigger"]
    assert (trigger_node["Name"], trigger_node["WorkflowName"], trigger_node["Type"], trigger_node["State"]) == \
        (names["after_crawl"], name, "CONDITIONAL", "ACTIVATED")
    assert trigger_node == glue.get_trigger(Name=names["after_crawl"])["Trigger"]
    assert glue.get_trigger(Name=names["start"])["Trigger"]["WorkflowName"] == name
    assert "Graph" not in glue.get_workflow(Name=name)["Workflow"]


def test_batch_get_and_list(glue: Any) -> None:
    names = sorted(unique("wf") for _ in range(3))
    for name in names:
        glue.create_workflow(Name=name)
    missing = unique("gone")
    batch = glue.batch_get_workflows(Names=[names[1], missing, names[0]], IncludeGraph=True)
    assert [w["Name"] for w in batch["Workflows"]] == [names[1], names[0]]
    assert batch["Workflows"][0]["Graph"] == {"Nodes": [], "Edges": []}
    assert batch["MissingWorkflows"] == [missing]
    assert "Graph" not in glue.batch_get_workflows(Names=[names[2]])["Workflows"][0]

    listed: list[str] = []
    kwargs: dict[str, Any] = {"MaxResults": 2}
    while True:
        page = glue.list_workflows(**kwargs)
        assert len(page["Workflows"]) <= 2
        listed += page["Workflows"]
        if "NextToken" not in page:
            break
        kwargs["NextToken"] = page["NextToken"]
    assert listed == sorted(listed) and len(set(listed)) == len(listed)
    assert set(names) <= set(listed)


def test_update_replaces_given_members(glue: Any) -> None:
    name = unique("wf")
    glue.create_workflow(Name=name, Description="first", DefaultRunProperties={"a": "1"})
    before = glue.get_workflow(Name=name)["Workflow"]
    assert glue.update_workflow(Name=name, MaxConcurrentRuns=3)["Name"] == name
    after = glue.get_workflow(Name=name)["Workflow"]
    assert (after["Description"], after["DefaultRunProperties"], after["MaxConcurrentRuns"]) == \
        ("first", {"a": "1"}, 3)
    assert after["LastModifiedOn"] >= before["LastModifiedOn"] and after["CreatedOn"] == before["CreatedOn"]
    glue.update_workflow(Name=name, Description="second", DefaultRunProperties={"b": "2"})
    after = glue.get_workflow(Name=name)["Workflow"]
    assert (after["Description"], after["DefaultRunProperties"], after["MaxConcurrentRuns"]) == \
        ("second", {"b": "2"}, 3)
    for limit in (0, -1):
        assert client_error(lambda limit=limit: glue.update_workflow(Name=name, MaxConcurrentRuns=limit)) == \
            ("InvalidInputException", f"MaxConcurrentRuns must be at least 1, got {limit}")
    assert glue.get_workflow(Name=name)["Workflow"]["MaxConcurrentRuns"] == 3
    other = unique("wf")
    assert client_error(lambda: glue.create_workflow(Name=other, MaxConcurrentRuns=0))[0] == "InvalidInputException"
    assert client_error(lambda: glue.get_workflow(Name=other))[0] == "EntityNotFoundException"
    assert client_error(lambda: glue.update_workflow(Name=other, Description="x")) == \
        ("EntityNotFoundException", f"Workflow with name {other} not found")


def test_delete_takes_its_triggers_and_tags_but_not_jobs(glue: Any, wf_server: ClockedServer) -> None:
    name = unique("wf")
    glue.create_workflow(Name=name, Tags={"k": "v"})
    names = chain(glue, wf_server, name)
    outside = unique("outside")
    glue.create_trigger(Name=outside, Type="ON_DEMAND", Actions=[{"JobName": names["job"]}])
    assert glue.delete_workflow(Name=name)["Name"] == name
    assert client_error(lambda: glue.get_workflow(Name=name)) == \
        ("EntityNotFoundException", f"Workflow with name {name} not found")
    found = glue.batch_get_triggers(TriggerNames=[names["start"], names["after_crawl"], names["after_job"], outside])
    assert [t["Name"] for t in found["Triggers"]] == [outside]
    assert sorted(found["TriggersNotFound"]) == sorted([names["start"], names["after_crawl"], names["after_job"]])
    assert client_error(lambda: glue.get_tags(ResourceArn=WORKFLOW_ARN + name))[0] == "EntityNotFoundException"
    assert glue.get_job(JobName=names["job"])["Job"]["Name"] == names["job"]
    assert glue.get_crawler(Name=names["first"])["Crawler"]["Name"] == names["first"]
    assert glue.delete_workflow(Name=name)["Name"] == name  # a missing workflow is no error
    # the name is free again, with no triggers
    glue.create_workflow(Name=name)
    assert glue.get_workflow(Name=name, IncludeGraph=True)["Workflow"]["Graph"]["Nodes"] == []
