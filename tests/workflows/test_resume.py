"""A failing middle job, ResumeWorkflowRun, and AND / ANY predicates (SQLite and PostgreSQL)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.api.test_crawlers import create as create_crawler
from tests.api.test_crawlers import s3_targets, write_object
from tests.helpers import unique
from tests.jobs.test_runs import FAIL, REPORT, WAIT, create_job, pid_of, put_script, wait_for
from tests.workflows.helpers import (
    NOOP,
    ClockedServer,
    client_error,
    nodes_by_name,
    on_job,
    statistics,
    wait_workflow_run,
)


def test_a_failed_middle_job_stops_the_chain_and_resume_reruns_it_and_what_follows(
        glue: Any, wf_server: ClockedServer, tmp_path: Path) -> None:
    database, prefix = unique("wfdb"), unique("lake")
    glue.create_database(DatabaseInput={"Name": database})
    write_object(wf_server, f"bucket/{prefix}/curated/part-0.json", '{"id": 1}\n')
    extract = create_job(glue, wf_server, NOOP)
    transform = create_job(glue, wf_server, FAIL, DefaultArguments={"--out": str(tmp_path / "transform.json")})
    crawler = create_crawler(glue, DatabaseName=database, Targets=s3_targets(f"s3://bucket/{prefix}/curated/"))
    on_failure = create_job(glue, wf_server, NOOP)
    workflow, after_extract = unique("wf"), unique("after_extract")
    glue.create_workflow(Name=workflow)
    glue.create_trigger(Name=unique("start"), WorkflowName=workflow, Type="ON_DEMAND",
                        Actions=[{"JobName": extract}])
    glue.create_trigger(Name=after_extract, WorkflowName=workflow, Type="CONDITIONAL", StartOnCreation=True,
                        Predicate={"Conditions": [on_job(extract)]},
                        Actions=[{"JobName": transform, "Arguments": {"--mode": "full"}}])
    glue.create_trigger(Name=unique("after_transform"), WorkflowName=workflow, Type="CONDITIONAL",
                        StartOnCreation=True, Predicate={"Conditions": [on_job(transform)]},
                        Actions=[{"CrawlerName": crawler}])
    glue.create_trigger(Name=unique("alert"), WorkflowName=workflow, Type="CONDITIONAL", StartOnCreation=True,
                        Predicate={"Conditions": [on_job(transform, "FAILED")]},
                        Actions=[{"JobName": on_failure}])

    first_id = glue.start_workflow_run(Name=workflow)["RunId"]
    first = wait_workflow_run(glue, workflow, first_id)
    assert first["Status"] == "COMPLETED"  # as in Glue: failed actions do not fail the run
    assert first["Statistics"] == statistics(TotalActions=3, SucceededActions=2, FailedActions=1)
    nodes = nodes_by_name(first)
    extract_runs = nodes[extract]["JobDetails"]["JobRuns"]
    assert [r["JobRunState"] for r in extract_runs] == ["SUCCEEDED"]
    failed = nodes[transform]["JobDetails"]["JobRuns"]
    assert [(r["JobRunState"], r["ErrorMessage"]) for r in failed] == \
        [("FAILED", "ValueError: the input bucket is empty")]
    assert nodes[crawler]["CrawlerDetails"]["Crawls"] == []  # downstream never started
    assert [r["JobRunState"] for r in nodes[on_failure]["JobDetails"]["JobRuns"]] == ["SUCCEEDED"]  # the alert ran
    assert glue.list_crawls(CrawlerName=crawler)["Crawls"] == []
    unique_ids = {n["Name"]: n["UniqueId"] for n in first["Graph"]["Nodes"]}

    code, message = client_error(lambda: glue.resume_workflow_run(Name=workflow, RunId=first_id,
                                                                  NodeIds=["wnode_bogus"]))
    assert (code, message) == ("InvalidInputException",
                               f"Node wnode_bogus is not a job or crawler node of workflow {workflow}")
    assert client_error(lambda: glue.resume_workflow_run(Name=workflow, RunId=first_id,
                                                         NodeIds=[unique_ids[after_extract]]))[0] == \
        "InvalidInputException"
    code, message = client_error(lambda: glue.resume_workflow_run(Name=workflow, RunId=first_id,
                                                                  NodeIds=[unique_ids[crawler]]))
    assert code == "InvalidInputException" and "has no run attempt" in message
    assert client_error(lambda: glue.resume_workflow_run(Name=workflow, RunId="wr_none",
                                                         NodeIds=[unique_ids[transform]]))[0] == \
        "EntityNotFoundException"
    assert len(glue.get_workflow_runs(Name=workflow)["Runs"]) == 1  # refused resumes made no run

    # fix the script, then resume the failed node
    job = glue.get_job(JobName=transform)["Job"]
    glue.update_job(JobName=transform, JobUpdate={
        "Role": job["Role"], "DefaultArguments": job["DefaultArguments"],
        "Command": {**job["Command"], "ScriptLocation": put_script(wf_server, REPORT)}})
    resumed = glue.resume_workflow_run(Name=workflow, RunId=first_id, NodeIds=[unique_ids[transform]])
    second_id = resumed["RunId"]
    assert second_id != first_id and resumed["NodeIds"] == [unique_ids[transform]]
    second = wait_workflow_run(glue, workflow, second_id)
    assert (second["Status"], second["PreviousRunId"]) == ("COMPLETED", first_id)
    assert second["Statistics"] == statistics(TotalActions=2, SucceededActions=2)
    nodes = nodes_by_name(second)
    # the upstream node keeps its run of the first workflow run: extract did not run again
    assert nodes[extract]["JobDetails"]["JobRuns"] == extract_runs
    assert [r["Id"] for r in glue.get_job_runs(JobName=extract)["JobRuns"]] == [extract_runs[0]["Id"]]
    rerun = nodes[transform]["JobDetails"]["JobRuns"]
    assert [r["JobRunState"] for r in rerun] == ["SUCCEEDED"] and rerun[0]["Id"] != failed[0]["Id"]
    assert rerun[0]["TriggerName"] == after_extract
    assert rerun[0]["Arguments"] == {"--mode": "full", "--WORKFLOW_NAME": workflow, "--WORKFLOW_RUN_ID": second_id}
    argv = json.loads((tmp_path / "transform.json").read_text())["argv"]
    pairs = dict(zip(argv[::2], argv[1::2], strict=True))
    assert (pairs["--WORKFLOW_RUN_ID"], pairs["--mode"]) == (second_id, "full")
    assert [c["State"] for c in nodes[crawler]["CrawlerDetails"]["Crawls"]] == ["SUCCEEDED"]
    assert len(glue.list_crawls(CrawlerName=crawler)["Crawls"]) == 1
    # the alert hangs off the restarted node: not kept from the first run, and not fired this time
    assert nodes[on_failure]["JobDetails"]["JobRuns"] == []
    assert len(glue.get_job_runs(JobName=on_failure)["JobRuns"]) == 1
    assert [t["Name"] for t in glue.get_tables(DatabaseName=database)["TableList"]] == ["curated"]

    # the resumed run is history: unchanged
    again = glue.get_workflow_run(Name=workflow, RunId=first_id, IncludeGraph=True)["Run"]
    assert again["Statistics"] == first["Statistics"]
    assert nodes_by_name(again)[crawler]["CrawlerDetails"]["Crawls"] == []
    assert [r["WorkflowRunId"] for r in glue.get_workflow_runs(Name=workflow)["Runs"]] == [second_id, first_id]


def test_and_waits_for_every_condition_any_fires_once(glue: Any, wf_server: ClockedServer, tmp_path: Path) -> None:
    fast = create_job(glue, wf_server, NOOP)
    slow = create_job(glue, wf_server, WAIT, DefaultArguments={"--pidfile": str(tmp_path / "pid"),
                                                               "--release": str(tmp_path / "go")})
    after_both, after_either = create_job(glue, wf_server, NOOP), create_job(glue, wf_server, NOOP)
    workflow = unique("wf")
    glue.create_workflow(Name=workflow)
    glue.create_trigger(Name=unique("start"), WorkflowName=workflow, Type="ON_DEMAND",
                        Actions=[{"JobName": fast}, {"JobName": slow}])
    both = [on_job(fast), on_job(slow)]
    glue.create_trigger(Name=unique("and"), WorkflowName=workflow, Type="CONDITIONAL", StartOnCreation=True,
                        Predicate={"Logical": "AND", "Conditions": both}, Actions=[{"JobName": after_both}])
    glue.create_trigger(Name=unique("any"), WorkflowName=workflow, Type="CONDITIONAL", StartOnCreation=True,
                        Predicate={"Logical": "ANY", "Conditions": both}, Actions=[{"JobName": after_either}])
    run_id = glue.start_workflow_run(Name=workflow)["RunId"]
    pid_of(tmp_path / "pid")

    def either_done() -> Any:
        run = glue.get_workflow_run(Name=workflow, RunId=run_id, IncludeGraph=True)["Run"]
        runs = nodes_by_name(run)[after_either]["JobDetails"]["JobRuns"]
        return run if runs and runs[0]["JobRunState"] == "SUCCEEDED" else None

    run = wait_for(either_done, 60, "the ANY trigger's job to succeed")
    nodes = nodes_by_name(run)
    assert run["Status"] == "RUNNING"
    assert [r["JobRunState"] for r in nodes[slow]["JobDetails"]["JobRuns"]] == ["RUNNING"]
    assert nodes[after_both]["JobDetails"]["JobRuns"] == []  # AND still waits for slow
    (tmp_path / "go").write_text("")
    run = wait_workflow_run(glue, workflow, run_id)
    assert run["Status"] == "COMPLETED"
    nodes = nodes_by_name(run)
    assert [r["JobRunState"] for r in nodes[after_both]["JobDetails"]["JobRuns"]] == ["SUCCEEDED"]
    # ANY held again when slow succeeded, but a trigger fires once per workflow run
    assert len(nodes[after_either]["JobDetails"]["JobRuns"]) == 1
    assert len(glue.get_job_runs(JobName=after_either)["JobRuns"]) == 1
    assert run["Statistics"] == statistics(TotalActions=4, SucceededActions=4)
