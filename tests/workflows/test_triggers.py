"""Triggers through boto3 (SQLite and PostgreSQL): shapes, states, listing, updates, tags and errors."""

from __future__ import annotations

from typing import Any

from glueball.config import DEFAULT_ACCOUNT_ID
from tests.api.test_crawlers import create as create_crawler
from tests.helpers import unique
from tests.jobs.test_runs import create_job
from tests.workflows.helpers import NOOP, ClockedServer, client_error, on_crawl, on_job

TRIGGER_ARN = f"arn:aws:glue:us-east-1:{DEFAULT_ACCOUNT_ID}:trigger/"


def test_create_and_get_show_glue_shapes_and_states(glue: Any, wf_server: ClockedServer) -> None:
    job = create_job(glue, wf_server, NOOP)
    on_demand, scheduled, conditional = unique("od"), unique("sched"), unique("cond")
    assert glue.create_trigger(Name=on_demand, Type="ON_DEMAND", Description="by hand",
                               Actions=[{"JobName": job, "Arguments": {"--day": "1"}, "Timeout": 5}],
                               )["Name"] == on_demand
    got = glue.get_trigger(Name=on_demand)["Trigger"]
    assert got.pop("Id").startswith("t_")
    assert got == {"Name": on_demand, "Type": "ON_DEMAND", "State": "CREATED", "Description": "by hand",
                   "Actions": [{"JobName": job, "Arguments": {"--day": "1"}, "Timeout": 5}]}

    glue.create_trigger(Name=scheduled, Type="SCHEDULED", Schedule="cron(0 3 * * ? *)",
                        Actions=[{"JobName": job}], StartOnCreation=True)
    got = glue.get_trigger(Name=scheduled)["Trigger"]
    assert (got["Type"], got["State"], got["Schedule"]) == ("SCHEDULED", "ACTIVATED", "cron(0 3 * * ? *)")
    assert "Predicate" not in got
    assert glue.stop_trigger(Name=scheduled)["Name"] == scheduled
    assert glue.get_trigger(Name=scheduled)["Trigger"]["State"] == "DEACTIVATED"
    assert glue.start_trigger(Name=scheduled)["Name"] == scheduled
    assert glue.get_trigger(Name=scheduled)["Trigger"]["State"] == "ACTIVATED"
    glue.start_trigger(Name=scheduled)  # starting an ACTIVATED trigger again is no error
    assert glue.get_trigger(Name=scheduled)["Trigger"]["State"] == "ACTIVATED"

    glue.create_trigger(Name=conditional, Type="CONDITIONAL", Actions=[{"JobName": job}],
                        Predicate={"Conditions": [on_job(job, "FAILED")]})
    got = glue.get_trigger(Name=conditional)["Trigger"]
    assert got["State"] == "CREATED"
    assert got["Predicate"] == {"Logical": "AND", "Conditions": [
        on_job(job, "FAILED")]}
    glue.start_trigger(Name=conditional)
    assert glue.get_trigger(Name=conditional)["Trigger"]["State"] == "ACTIVATED"
    assert client_error(lambda: glue.stop_trigger(Name=on_demand))[0] == "InvalidInputException"
    assert glue.get_trigger(Name=on_demand)["Trigger"]["State"] == "CREATED"


def test_get_triggers_list_triggers_and_batch_get(glue: Any, wf_server: ClockedServer) -> None:
    job, other = create_job(glue, wf_server, NOOP), create_job(glue, wf_server, NOOP)
    team = unique("team")
    names = sorted(unique("t") for _ in range(3))
    glue.create_trigger(Name=names[0], Type="ON_DEMAND", Actions=[{"JobName": job}], Tags={"team": team})
    glue.create_trigger(Name=names[1], Type="ON_DEMAND", Actions=[{"JobName": other}, {"JobName": job}],
                        Tags={"team": team, "tier": "gold"})
    # watches job but starts other: it does not depend on job
    glue.create_trigger(Name=names[2], Type="CONDITIONAL", Actions=[{"JobName": other}],
                        Predicate={"Conditions": [on_job(job)]}, Tags={"team": "x"})

    dependent = glue.get_triggers(DependentJobName=job)["Triggers"]
    assert [t["Name"] for t in dependent] == names[:2]
    assert dependent[1]["Actions"] == [{"JobName": other}, {"JobName": job}]
    assert [t["Name"] for t in glue.get_triggers(DependentJobName=other)["Triggers"]] == names[1:]
    first = glue.get_triggers(DependentJobName=job, MaxResults=1)
    assert [t["Name"] for t in first["Triggers"]] == names[:1]
    second = glue.get_triggers(DependentJobName=job, MaxResults=1, NextToken=first["NextToken"])
    assert [t["Name"] for t in second["Triggers"]] == names[1:2] and "NextToken" not in second
    missing = unique("nojob")
    assert client_error(lambda: glue.get_triggers(DependentJobName=missing)) == \
        ("EntityNotFoundException", f"Job with name: {missing} not found")

    assert glue.list_triggers(Tags={"team": team})["TriggerNames"] == names[:2]
    assert glue.list_triggers(Tags={"team": team, "tier": "gold"})["TriggerNames"] == names[1:2]
    assert glue.list_triggers(DependentJobName=other)["TriggerNames"] == names[1:]
    assert glue.list_triggers(DependentJobName=other, Tags={"team": team})["TriggerNames"] == names[1:2]
    page = glue.list_triggers(Tags={"team": team}, MaxResults=1)
    assert page["TriggerNames"] == names[:1]
    assert glue.list_triggers(Tags={"team": team}, NextToken=page["NextToken"])["TriggerNames"] == names[1:2]

    gone = unique("gone")
    batch = glue.batch_get_triggers(TriggerNames=[names[2], gone, names[0]])
    assert [t["Name"] for t in batch["Triggers"]] == [names[2], names[0]]
    assert batch["Triggers"][0]["Type"] == "CONDITIONAL"
    assert batch["TriggersNotFound"] == [gone]


def test_update_replaces_given_members_and_delete_is_idempotent(glue: Any, wf_server: ClockedServer) -> None:
    job, other = create_job(glue, wf_server, NOOP), create_job(glue, wf_server, NOOP)
    name = unique("sched")
    glue.create_trigger(Name=name, Type="SCHEDULED", Schedule="cron(0 3 * * ? *)", Description="nightly",
                        Actions=[{"JobName": job}], StartOnCreation=True)
    updated = glue.update_trigger(Name=name, TriggerUpdate={"Schedule": "cron(30 4 ? * MON-FRI *)",
                                                             "Actions": [{"JobName": other}]})["Trigger"]
    assert (updated["Schedule"], updated["Actions"]) == ("cron(30 4 ? * MON-FRI *)", [{"JobName": other}])
    assert (updated["Description"], updated["State"], updated["Type"]) == ("nightly", "ACTIVATED", "SCHEDULED")
    assert glue.get_trigger(Name=name)["Trigger"] == updated
    code, message = client_error(lambda: glue.update_trigger(Name=name, TriggerUpdate={"Schedule": "cron(0 3 * *)"}))
    assert code == "InvalidInputException" and "6 fields" in message
    code, message = client_error(lambda: glue.update_trigger(Name=name, TriggerUpdate={"Name": unique("other")}))
    assert code == "InvalidInputException" and "cannot be renamed" in message
    assert client_error(lambda: glue.update_trigger(Name=name, TriggerUpdate={
        "Actions": [{"JobName": unique("nojob")}]}))[0] == "EntityNotFoundException"
    assert glue.get_trigger(Name=name)["Trigger"] == updated  # failed updates changed nothing
    missing = unique("gone")
    assert client_error(lambda: glue.update_trigger(Name=missing, TriggerUpdate={"Description": "x"})) == \
        ("EntityNotFoundException", f"Trigger with name {missing} not found")

    assert glue.delete_trigger(Name=name)["Name"] == name
    assert client_error(lambda: glue.get_trigger(Name=name)) == \
        ("EntityNotFoundException", f"Trigger with name {name} not found")
    assert glue.delete_trigger(Name=name)["Name"] == name  # deleting a missing trigger is no error
    for call in (lambda: glue.start_trigger(Name=name), lambda: glue.stop_trigger(Name=name)):
        assert client_error(call)[0] == "EntityNotFoundException"


def test_create_is_idempotent_for_the_same_definition(glue: Any, wf_server: ClockedServer) -> None:
    job = create_job(glue, wf_server, NOOP)
    name = unique("idem")
    spec: dict[str, Any] = {"Name": name, "Type": "CONDITIONAL", "Actions": [{"JobName": job}],
                            "Predicate": {"Conditions": [on_job(job)]}}
    glue.create_trigger(**spec)
    first = glue.get_trigger(Name=name)["Trigger"]
    assert glue.create_trigger(**spec)["Name"] == name
    assert glue.get_trigger(Name=name)["Trigger"] == first  # same Id: not recreated
    code, message = client_error(lambda: glue.create_trigger(**{**spec, "Actions": [{"JobName": job,
                                                                                     "Timeout": 9}]}))
    assert (code, message) == ("IdempotentParameterMismatchException",
                               f"Trigger with name {name} already submitted with different configuration")
    assert client_error(lambda: glue.create_trigger(Name=name, Type="ON_DEMAND", Actions=[{"JobName": job}]))[0] == \
        "IdempotentParameterMismatchException"


def test_tags_on_trigger_arns(glue: Any, wf_server: ClockedServer) -> None:
    job = create_job(glue, wf_server, NOOP)
    name = unique("tagged")
    glue.create_trigger(Name=name, Type="ON_DEMAND", Actions=[{"JobName": job}], Tags={"env": "test"})
    arn = TRIGGER_ARN + name
    assert glue.get_tags(ResourceArn=arn)["Tags"] == {"env": "test"}
    glue.tag_resource(ResourceArn=arn, TagsToAdd={"owner": "data", "env": "prod"})
    assert glue.get_tags(ResourceArn=arn)["Tags"] == {"env": "prod", "owner": "data"}
    assert glue.list_triggers(Tags={"owner": "data"})["TriggerNames"] == [name]
    glue.untag_resource(ResourceArn=arn, TagsToRemove=["env"])
    assert glue.get_tags(ResourceArn=arn)["Tags"] == {"owner": "data"}
    glue.delete_trigger(Name=name)
    assert client_error(lambda: glue.get_tags(ResourceArn=arn))[0] == "EntityNotFoundException"
    glue.create_trigger(Name=name, Type="ON_DEMAND", Actions=[{"JobName": job}])
    assert glue.get_tags(ResourceArn=arn)["Tags"] == {}  # the old trigger's tags went with it


EQ = {"LogicalOperator": "EQUALS"}


def _bad_definitions(job: str, crawler: str, workflow: str) -> list[tuple[dict[str, Any], str, str]]:
    act = [{"JobName": job}]
    return [
        ({"Type": "ON_DEMAND", "Actions": act, "StartOnCreation": True}, "InvalidInputException",
         "StartOnCreation is not supported for ON_DEMAND triggers"),
        ({"Type": "ON_DEMAND", "Actions": act, "Schedule": "cron(0 3 * * ? *)"}, "InvalidInputException",
         "Schedule is only for SCHEDULED triggers, not ON_DEMAND"),
        ({"Type": "CONDITIONAL", "Actions": act, "Schedule": "cron(0 3 * * ? *)",
          "Predicate": {"Conditions": [{**EQ, "JobName": job, "State": "SUCCEEDED"}]}}, "InvalidInputException",
         "Schedule is only for SCHEDULED triggers, not CONDITIONAL"),
        ({"Type": "SCHEDULED", "Actions": act}, "InvalidInputException", "A SCHEDULED trigger needs a Schedule"),
        ({"Type": "SCHEDULED", "Actions": act, "Schedule": "cron(0 25 * * ? *)"}, "InvalidInputException",
         "Invalid schedule expression 'cron(0 25 * * ? *)': Hours field: 25 is out of range 0-23"),
        ({"Type": "SCHEDULED", "Actions": act, "Schedule": "cron(0 3 * * MON *)"}, "InvalidInputException",
         "exactly one of the Day-of-month and Day-of-week fields must be '?'"),
        ({"Type": "SCHEDULED", "Actions": act, "Schedule": "cron(* * * * ? *)"}, "InvalidInputException",
         "fires every 1 minute(s); the minimum precision of a schedule is 5 minutes"),
        ({"Type": "SCHEDULED", "Actions": act, "Schedule": "rate(1 day)"}, "InvalidInputException",
         "a schedule must be written cron("),
        ({"Type": "CONDITIONAL", "Actions": act}, "InvalidInputException", "Predicate cannot be null or empty"),
        # Glue checks the predicate before the existence of what the actions name
        ({"Type": "CONDITIONAL", "Actions": [{"JobName": "no_such_job"}]}, "InvalidInputException",
         "Predicate cannot be null or empty"),
        ({"Type": "CONDITIONAL", "Actions": [{"JobName": "no_such_job"}], "Predicate": {"Conditions": [
            {"JobName": "no_such_job", "State": "SUCCEEDED"}]}}, "InvalidInputException",
         "Logical operator cannot be null or empty"),
        ({"Type": "CONDITIONAL", "Actions": [{"JobName": "no_such_job"}], "Predicate": {"Conditions": [
            {**EQ, "JobName": "no_such_job"}]}}, "InvalidInputException",
         "State cannot be null or empty, choose from one of the following job state: "
         "[SUCCEEDED, STOPPED, FAILED, TIMEOUT]"),
        ({"Type": "CONDITIONAL", "Actions": act, "Predicate": {"Logical": "ANY", "Conditions": []}},
         "InvalidInputException", "Predicate.Conditions must hold at least one condition"),
        ({"Type": "CONDITIONAL", "Actions": act, "Predicate": {"Conditions": [on_job(job, "RUNNING")]}},
         "InvalidInputException",
         "State cannot be null or empty, choose from one of the following job state: "
         "[SUCCEEDED, STOPPED, FAILED, TIMEOUT]"),
        ({"Type": "CONDITIONAL", "Actions": act, "Predicate": {"Conditions": [
            on_job(job), on_crawl(crawler, "RUNNING")]}},
         "InvalidInputException",
         "State cannot be null or empty, choose from one of the following crawler state: "
         "[SUCCEEDED, FAILED, CANCELLED]"),
        ({"Type": "CONDITIONAL", "Actions": act, "Predicate": {"Conditions": [
            {**EQ, "CrawlerName": crawler, "State": "SUCCEEDED"}]}}, "InvalidInputException",
         "Predicate.Conditions[0]: a crawler condition takes CrawlState, not State"),
        ({"Type": "CONDITIONAL", "Actions": act, "Predicate": {"Conditions": [{"State": "SUCCEEDED"}]}},
         "InvalidInputException", "JobName or CrawlerName in condition cannot be null or empty"),
        ({"Type": "CONDITIONAL", "Actions": act, "Predicate": {"Conditions": [
            {**EQ, "JobName": "no_such_job", "State": "SUCCEEDED"}]}}, "EntityNotFoundException",
         "Predicate.Conditions[0]: job no_such_job not found"),
        ({"Type": "ON_DEMAND", "Actions": [{"JobName": job}, {"JobName": "no_such_job"}]},
         "EntityNotFoundException", "Actions[1]: job no_such_job not found"),
        ({"Type": "ON_DEMAND", "Actions": [{"CrawlerName": "no_such_crawler"}]},
         "EntityNotFoundException", "Actions[0]: crawler no_such_crawler not found"),
        ({"Type": "ON_DEMAND", "Actions": [{"JobName": job, "CrawlerName": crawler}]},
         "InvalidInputException", "Both JobName and CrawlerName cannot be set together in an action"),
        ({"Type": "ON_DEMAND", "Actions": [{"CrawlerName": crawler, "Timeout": 5}]},
         "InvalidInputException", "Actions[0]: a crawler action takes no Timeout"),
        ({"Type": "ON_DEMAND", "Actions": []}, "InvalidInputException",
         "Actions must name at least one job or crawler"),
        ({"Type": "EVENT", "Actions": act}, "InvalidInputException",
         "An EVENT trigger must belong to a workflow (WorkflowName)"),
        ({"Type": "ON_DEMAND", "Actions": act, "EventBatchingCondition": {"BatchSize": 2}},
         "InvalidInputException", "EventBatchingCondition is only for EVENT triggers, not ON_DEMAND"),
        ({"Type": "ON_DEMAND", "Actions": act, "WorkflowName": "no_such_workflow"}, "EntityNotFoundException",
         "Workflow with name no_such_workflow not found"),
        # the workflow already has an ON_DEMAND starting trigger
        ({"Type": "SCHEDULED", "Actions": act, "Schedule": "cron(0 3 * * ? *)", "WorkflowName": workflow},
         "InvalidInputException", f"Workflow {workflow} already has a starting trigger"),
        ({"Type": "ON_DEMAND", "Actions": act, "WorkflowName": workflow}, "InvalidInputException",
         "a workflow has one starting trigger"),
    ]


def test_invalid_definitions_are_refused_with_the_reason(glue: Any, wf_server: ClockedServer) -> None:
    job = create_job(glue, wf_server, NOOP)
    crawler = create_crawler(glue)
    workflow = unique("wf")
    glue.create_workflow(Name=workflow)
    starter = unique("start")
    glue.create_trigger(Name=starter, Type="ON_DEMAND", WorkflowName=workflow, Actions=[{"JobName": job}])
    for definition, code, message in _bad_definitions(job, crawler, workflow):
        name = unique("bad")
        got_code, got_message = client_error(lambda name=name, definition=definition:
                                             glue.create_trigger(Name=name, **definition))
        assert got_code == code, (definition, got_message)
        assert message in got_message, (definition, got_message)
        assert client_error(lambda name=name: glue.get_trigger(Name=name))[0] == "EntityNotFoundException"
    # a CONDITIONAL trigger is not a starting trigger: a workflow holds many
    for index in range(2):
        glue.create_trigger(Name=unique(f"next{index}"), Type="CONDITIONAL", WorkflowName=workflow,
                            Actions=[{"JobName": job}],
                            Predicate={"Conditions": [on_job(job)]})
    graph = glue.get_workflow(Name=workflow, IncludeGraph=True)["Workflow"]["Graph"]
    assert sorted(n["Type"] for n in graph["Nodes"]) == ["JOB", "TRIGGER", "TRIGGER", "TRIGGER"]
