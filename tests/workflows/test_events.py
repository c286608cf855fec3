"""EVENT triggers fed through glueball's ``Glueball.NotifyEvent`` (SQLite and PostgreSQL): batches by size
and by window, under a clock file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.helpers import send, unique
from tests.jobs.test_runs import create_job, wait_for
from tests.workflows.helpers import NOOP, Clock, ClockedServer, MakeServer, at, settle, wait_workflow_run


def notify(server: ClockedServer, workflow: str, event_id: str | None = None, **extra: Any) -> tuple[int, Any]:
    body: dict[str, Any] = {"WorkflowName": workflow, **extra}
    if event_id is not None:
        body["EventId"] = event_id
    return send(server, "Glueball.NotifyEvent", body)


def runs_of(glue: Any, workflow: str) -> list[Any]:
    return list(glue.get_workflow_runs(Name=workflow)["Runs"])


def test_events_start_runs_by_batch_size_and_by_batch_window(make_server: MakeServer, tmp_path: Path) -> None:
    clock = Clock(tmp_path / "clock", at(10, 12, 0))
    server = make_server(clock=clock)
    glue = server.client()
    job, workflow, trigger = create_job(glue, server, NOOP), unique("wf"), unique("on_event")
    glue.create_workflow(Name=workflow)
    glue.create_trigger(Name=trigger, WorkflowName=workflow, Type="EVENT", Actions=[{"JobName": job}],
                        EventBatchingCondition={"BatchSize": 3, "BatchWindow": 60}, StartOnCreation=True)
    got = glue.get_trigger(Name=trigger)["Trigger"]
    assert (got["Type"], got["State"], got["EventBatchingCondition"]) == \
        ("EVENT", "ACTIVATED", {"BatchSize": 3, "BatchWindow": 60})

    assert notify(server, workflow, "ev-1") == (200, {"EventId": "ev-1", "Accepted": True, "BatchCount": 1})
    assert notify(server, workflow, "ev-2") == (200, {"EventId": "ev-2", "Accepted": True, "BatchCount": 2})
    assert runs_of(glue, workflow) == []
    status, third = notify(server, workflow, "ev-3")
    assert status == 200 and (third["Accepted"], third["BatchCount"]) == (True, 3)
    run = wait_workflow_run(glue, workflow, third["RunId"])
    assert run["Status"] == "COMPLETED"
    assert json.loads(run["WorkflowRunProperties"]["aws:eventIds"]) == ["ev-1", "ev-2", "ev-3"]
    assert run["StartingEventBatchCondition"] == {"BatchSize": 3}
    assert run["Statistics"]["SucceededActions"] == 1
    assert [r["WorkflowRunId"] for r in runs_of(glue, workflow)] == [third["RunId"]]

    # one event, then the window passes: a run of that one event
    status, alone = notify(server, workflow)  # no EventId: one is made up
    assert status == 200 and alone["BatchCount"] == 1 and alone["EventId"] and "RunId" not in alone
    clock.advance(59)
    settle()
    assert len(runs_of(glue, workflow)) == 1  # the window is not over yet
    clock.advance(2)
    newest = wait_for(lambda: (found := runs_of(glue, workflow)) and len(found) == 2 and found[0], 30,
                      "a run after the batch window")
    assert newest["StartingEventBatchCondition"] == {"BatchWindow": 60}
    assert json.loads(newest["WorkflowRunProperties"]["aws:eventIds"]) == [alone["EventId"]]
    assert wait_workflow_run(glue, workflow, newest["WorkflowRunId"])["Status"] == "COMPLETED"
    assert len(glue.get_job_runs(JobName=job)["JobRuns"]) == 2

    # a stopped trigger refuses events and drops the batch it had gathered
    assert notify(server, workflow, "ev-5")[1]["BatchCount"] == 1
    glue.stop_trigger(Name=trigger)
    status, refused = notify(server, workflow, "ev-6")
    assert status == 200 and refused["Accepted"] is False
    assert refused["Reason"] == f"trigger {trigger} is DEACTIVATED, not ACTIVATED"
    glue.start_trigger(Name=trigger)
    clock.advance(120)
    settle()
    assert len(runs_of(glue, workflow)) == 2
    assert notify(server, workflow, "ev-7")[1]["BatchCount"] == 1  # a fresh batch


def test_notify_event_errors(glue: Any, wf_server: ClockedServer) -> None:
    job = create_job(glue, wf_server, NOOP)
    missing = unique("gone")
    status, body = notify(wf_server, missing, "e")
    assert status == 400 and body["__type"] == "EntityNotFoundException"
    assert body["message"] == f"Workflow with name {missing} not found"
    plain = unique("wf")
    glue.create_workflow(Name=plain)
    glue.create_trigger(Name=unique("start"), WorkflowName=plain, Type="ON_DEMAND", Actions=[{"JobName": job}])
    assert notify(wf_server, plain, "e") == (400, {"__type": "EntityNotFoundException",
                                                   "message": f"Workflow {plain} has no EVENT trigger"})
    for body, message in (({}, "Glueball.NotifyEvent needs WorkflowName (a non-empty string)"),
                          ({"WorkflowName": plain, "EventId": ""}, "EventId must be a non-empty string"),
                          ({"WorkflowName": plain, "Detail": {}}, "Unknown parameter(s) Detail")):
        status, answer = send(wf_server, "Glueball.NotifyEvent", body)
        assert status == 400 and answer["__type"] == "InvalidInputException" and message in answer["message"]
    status, answer = send(wf_server, "Glueball.NotifyEvents", {"WorkflowName": plain})
    assert status == 400 and answer["__type"] == "UnknownOperationException"
    # the batching limits of Glue's model: BatchSize 1-100, BatchWindow 1-900
    events = unique("wf")
    glue.create_workflow(Name=events)
    for batching in ({"BatchSize": 0}, {"BatchSize": 101}, {"BatchSize": 1, "BatchWindow": 901}):
        status, answer = wf_server.raw("CreateTrigger", {"Name": unique("ev"), "WorkflowName": events,
                                                         "Type": "EVENT", "Actions": [{"JobName": job}],
                                                         "EventBatchingCondition": batching})
        assert status == 400 and answer["__type"] in ("ValidationException", "InvalidInputException"), answer
    # without EventBatchingCondition: batches of one, a 900 s window
    name = unique("ev")
    glue.create_trigger(Name=name, WorkflowName=events, Type="EVENT", Actions=[{"JobName": job}])
    got = glue.get_trigger(Name=name)["Trigger"]
    assert (got["State"], got["EventBatchingCondition"]) == ("CREATED", {"BatchSize": 1, "BatchWindow": 900})
    status, answer = notify(wf_server, events, "e")
    assert status == 200 and answer["Accepted"] is False  # not activated yet
    glue.start_trigger(Name=name)
    status, answer = notify(wf_server, events, "e1")
    assert status == 200 and answer["BatchCount"] == 1 and answer["RunId"].startswith("wr_")
    assert wait_workflow_run(glue, events, answer["RunId"])["Status"] == "COMPLETED"
