"""Triggers outside workflows (SQLite and PostgreSQL): a CONDITIONAL trigger watching a job, and
StartTrigger of ON_DEMAND triggers."""

from __future__ import annotations

from typing import Any

from tests.helpers import unique
from tests.jobs.test_runs import create_job, wait_run
from tests.workflows.helpers import (
    NOOP,
    ClockedServer,
    client_error,
    job_runs,
    on_job,
    settle,
    wait_runs,
    wait_workflow_run,
)

# succeeds, or fails when run with --fail yes
MAYBE_FAIL = '''
import sys
args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
if args.get("--fail") == "yes":
    raise RuntimeError("asked to fail")
'''


def test_a_standalone_conditional_trigger_fires_once_per_matching_run(glue: Any, wf_server: ClockedServer) -> None:
    watched, action, idle = (create_job(glue, wf_server, MAYBE_FAIL), create_job(glue, wf_server, NOOP),
                             create_job(glue, wf_server, NOOP))
    trigger, inactive = unique("on_success"), unique("inactive")
    glue.create_trigger(Name=trigger, Type="CONDITIONAL", StartOnCreation=True,
                        Predicate={"Conditions": [on_job(watched)]},
                        Actions=[{"JobName": action, "Arguments": {"--from": "trigger"}}])
    glue.create_trigger(Name=inactive, Type="CONDITIONAL",  # CREATED, never started: never fires
                        Predicate={"Conditions": [on_job(watched)]},
                        Actions=[{"JobName": idle}])

    failed = glue.start_job_run(JobName=watched, Arguments={"--fail": "yes"})["JobRunId"]
    assert wait_run(glue, watched, failed)["JobRunState"] == "FAILED"
    settle()
    assert job_runs(glue, action) == []  # the predicate wants SUCCEEDED

    first = glue.start_job_run(JobName=watched)["JobRunId"]
    assert wait_run(glue, watched, first)["JobRunState"] == "SUCCEEDED"
    runs = wait_runs(glue, action, 1)
    assert (runs[0]["TriggerName"], runs[0]["JobRunState"]) == (trigger, "SUCCEEDED")
    assert runs[0]["Arguments"] == {"--from": "trigger"}  # no workflow arguments outside a workflow
    settle()
    assert len(job_runs(glue, action)) == 1  # the same ended run never fires the trigger twice

    second = glue.start_job_run(JobName=watched)["JobRunId"]
    wait_run(glue, watched, second)
    wait_runs(glue, action, 2)
    assert job_runs(glue, idle) == []
    assert len(job_runs(glue, watched)) == 3  # the trigger's action is not the watched job

    glue.stop_trigger(Name=trigger)
    wait_run(glue, watched, glue.start_job_run(JobName=watched)["JobRunId"])
    settle()
    assert len(job_runs(glue, action)) == 2


def test_start_trigger_of_on_demand_triggers(glue: Any, wf_server: ClockedServer) -> None:
    first, second = create_job(glue, wf_server, NOOP), create_job(glue, wf_server, NOOP)
    trigger = unique("by_hand")
    glue.create_trigger(Name=trigger, Type="ON_DEMAND",
                        Actions=[{"JobName": first, "Arguments": {"--day": "2"}, "Timeout": 7},
                                 {"JobName": second}])
    assert glue.start_trigger(Name=trigger)["Name"] == trigger
    run = wait_runs(glue, first, 1)[0]
    assert (run["TriggerName"], run["Arguments"], run["Timeout"], run["JobRunState"]) == \
        (trigger, {"--day": "2"}, 7, "SUCCEEDED")
    assert wait_runs(glue, second, 1)[0]["TriggerName"] == trigger
    assert glue.get_trigger(Name=trigger)["Trigger"]["State"] == "CREATED"  # ON_DEMAND stays CREATED
    glue.start_trigger(Name=trigger)
    wait_runs(glue, first, 2)
    wait_runs(glue, second, 2)

    # inside a workflow, StartTrigger of its ON_DEMAND trigger starts a workflow run
    workflow, starter = unique("wf"), unique("start")
    glue.create_workflow(Name=workflow)
    glue.create_trigger(Name=starter, WorkflowName=workflow, Type="ON_DEMAND", Actions=[{"JobName": second}])
    glue.start_trigger(Name=starter)
    runs = glue.get_workflow_runs(Name=workflow)["Runs"]
    assert len(runs) == 1
    assert wait_workflow_run(glue, workflow, runs[0]["WorkflowRunId"])["Status"] == "COMPLETED"
    assert wait_runs(glue, second, 3)[0]["Arguments"]["--WORKFLOW_RUN_ID"] == runs[0]["WorkflowRunId"]

    # an action that cannot start answers with its error
    gone = create_job(glue, wf_server, NOOP)
    lost = unique("lost")
    glue.create_trigger(Name=lost, Type="ON_DEMAND", Actions=[{"JobName": gone}])
    glue.delete_job(JobName=gone)
    code, message = client_error(lambda: glue.start_trigger(Name=lost))
    assert code == "EntityNotFoundException" and gone in message
