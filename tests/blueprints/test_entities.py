"""The blueprint layout library (``awsglue.blueprint``): fields checked as they are set, required fields by
``validate()``, and the workflow, jobs, crawlers and triggers ``Workflow.to_json()`` declares."""

from __future__ import annotations

import pytest

from awsglue.blueprint.crawler import Crawler
from awsglue.blueprint.job import Job
from awsglue.blueprint.workflow import Entities, Workflow

COMMAND = {"Name": "glueetl", "ScriptLocation": "s3://b/s.py"}


def test_fields_are_checked_as_they_are_set() -> None:
    with pytest.raises(TypeError, match="NumberOfWorkers"):
        Job(Name="j", Role="r", Command=COMMAND, NumberOfWorkers="two")
    with pytest.raises(TypeError, match="not a valid value for key Name in Command"):
        Job(Name="j", Role="r", Command={"Name": "spark", "ScriptLocation": "s3://b/s.py"})
    with pytest.raises(TypeError, match="has no field Colour"):
        Job(Name="j", Colour="red")
    with pytest.raises(TypeError, match="Dependencies must be of type Job or Crawler"):
        Job(Name="j", Role="r", Command=COMMAND, DependsOn={"other": "SUCCEEDED"})
    with pytest.raises(TypeError, match="WaitForDependencies"):
        Crawler(Name="c", Role="r", Targets={"S3Targets": []}, WaitForDependencies="SOME")
    with pytest.raises(TypeError, match="has no Bucket"):
        Crawler(Name="c", Role="r", Targets={"Bucket": "b"})


def test_validate_names_the_missing_required_fields() -> None:
    with pytest.raises(TypeError, match=r"Required Fields for Job were missing: \['Role', 'Command'\]"):
        Job(Name="j").validate()
    with pytest.raises(TypeError, match="Entity names must be unique"):
        Workflow(Name="w", Entities=Entities(Jobs=[Job(Name="x", Role="r", Command=COMMAND)],
                                             Crawlers=[Crawler(Name="x", Role="r", Targets={})])).validate()
    assert Job(Name="j").Description is None  # a field never set reads as None


def test_to_json_declares_triggers_from_dependencies() -> None:
    first = Job(Name="extract", Role="r", Command=COMMAND)
    crawl = Crawler(Name="crawl", Role="r", Targets={"JDBCTargets": [{"ConnectionName": "pg", "Path": "db/%"}]},
                    DependsOn={first: "SUCCEEDED"})
    last = Job(Name="load", Role="r", Command=COMMAND, DependsOn={first: "SUCCEEDED", crawl: "SUCCEEDED"},
               WaitForDependencies="ANY")
    layout = Workflow(Name="w", Description="d", OnSchedule="cron(0 3 * * ? *)",
                      Entities=Entities(Jobs=[first, last], Crawlers=[crawl])).to_json()
    assert layout["Workflow"] == {"Name": "w", "Description": "d"}
    assert [j["Name"] for j in layout["Jobs"]] == ["extract", "load"]
    assert "DependsOn" not in layout["Jobs"][1] and "WaitForDependencies" not in layout["Jobs"][1]
    triggers = {t["Name"]: t for t in layout["Triggers"]}
    assert triggers["w_starting_trigger"] == {"Name": "w_starting_trigger", "WorkflowName": "w", "Type": "SCHEDULED",
                                              "Schedule": "cron(0 3 * * ? *)", "StartOnCreation": True,
                                              "Actions": [{"JobName": "extract"}]}
    assert triggers["w_load_trigger"]["Predicate"] == {"Logical": "ANY", "Conditions": [
        {"LogicalOperator": "EQUALS", "JobName": "extract", "State": "SUCCEEDED"},
        {"LogicalOperator": "EQUALS", "CrawlerName": "crawl", "CrawlState": "SUCCEEDED"}]}
    assert triggers["w_crawl_trigger"]["Actions"] == [{"CrawlerName": "crawl"}]
    suffixed = Workflow(Name="w", Entities=Entities(Jobs=[first])).to_json(name_suffix="v2")
    assert suffixed["Jobs"][0]["Name"] == "extract_v2"
    assert suffixed["Triggers"][0]["Type"] == "ON_DEMAND"
