"""Workflow runs through boto3 (SQLite and PostgreSQL): a crawler -> job -> crawler chain, run properties,
statistics, paging, the concurrency limit and StopWorkflowRun.

Jobs are Python shell scripts in the server's object store; crawlers crawl a file or two.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.api.test_crawlers import create as create_crawler
from tests.api.test_crawlers import s3_targets, write_object
from tests.helpers import unique
from tests.jobs.test_runs import create_job, pid_of, wait_for, wait_run
from tests.workflows.helpers import (
    NOOP,
    ClockedServer,
    client_error,
    nodes_by_name,
    on_crawl,
    on_job,
    statistics,
    wait_workflow_run,
)

# writes its argv and the run's properties (read through the server) to --out, then adds a property
PROPERTIES = '''
import json, os, sys, boto3
args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
glue = boto3.client("glue", endpoint_url=os.environ["GLUEBALL_ENDPOINT"])
name, run_id = args["--WORKFLOW_NAME"], args["--WORKFLOW_RUN_ID"]
seen = glue.get_workflow_run_properties(Name=name, RunId=run_id)["RunProperties"]
glue.put_workflow_run_properties(Name=name, RunId=run_id, RunProperties={"rows": "42"})
json.dump({"argv": sys.argv[1:], "properties": seen}, open(args["--out"], "w"))
'''

# traps SIGTERM: a stop leaves its run STOPPING until --release appears; without a stop it ends at --go
STUBBORN = '''
import os, signal, sys, time
args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
def stop(*_):
    open(args["--termed"], "w").close()
    deadline = time.time() + 60
    while time.time() < deadline and not os.path.exists(args["--release"]):
        time.sleep(0.05)
    sys.exit(0)
signal.signal(signal.SIGTERM, stop)
open(args["--pidfile"] + ".tmp", "w").write(str(os.getpid()))
os.replace(args["--pidfile"] + ".tmp", args["--pidfile"])
deadline = time.time() + 120
while time.time() < deadline and not os.path.exists(args["--go"]):
    time.sleep(0.05)
'''


def one_job_workflow(glue: Any, server: ClockedServer, script: str = NOOP, **extra: Any) -> tuple[str, str]:
    """A workflow whose ON_DEMAND starting trigger runs one job; (workflow, job)."""
    workflow, job = unique("wf"), create_job(glue, server, script, **extra.pop("job", {}))
    glue.create_workflow(Name=workflow, **extra)
    glue.create_trigger(Name=unique("start"), WorkflowName=workflow, Type="ON_DEMAND", Actions=[{"JobName": job}])
    return workflow, job


def test_a_chain_crawler_job_crawler_completes_with_every_node_succeeded(glue: Any, wf_server: ClockedServer,
                                                                        tmp_path: Path) -> None:
    database, prefix = unique("wfdb"), unique("lake")
    glue.create_database(DatabaseInput={"Name": database})
    write_object(wf_server, f"bucket/{prefix}/raw/orders/part-0.json", '{"id": 1, "amount": 2.5}\n')
    write_object(wf_server, f"bucket/{prefix}/curated/totals/part-0.json", '{"day": "1", "total": 2.5}\n')
    raw = create_crawler(glue, DatabaseName=database, Targets=s3_targets(f"s3://bucket/{prefix}/raw/orders/"))
    curated = create_crawler(glue, DatabaseName=database, Targets=s3_targets(f"s3://bucket/{prefix}/curated/totals/"))
    out = tmp_path / "job.json"
    job = create_job(glue, wf_server, PROPERTIES, DefaultArguments={"--out": str(out)})
    workflow = unique("wf")
    glue.create_workflow(Name=workflow, DefaultRunProperties={"day": "1", "color": "blue"})
    start, after_raw, after_job = unique("start"), unique("after_raw"), unique("after_job")
    glue.create_trigger(Name=start, WorkflowName=workflow, Type="ON_DEMAND", Actions=[{"CrawlerName": raw}])
    glue.create_trigger(Name=after_raw, WorkflowName=workflow, Type="CONDITIONAL", StartOnCreation=True,
                        Predicate={"Conditions": [on_crawl(raw)]},
                        Actions=[{"JobName": job, "Arguments": {"--stage": "transform"}}])
    glue.create_trigger(Name=after_job, WorkflowName=workflow, Type="CONDITIONAL", StartOnCreation=True,
                        Predicate={"Conditions": [on_job(job)]},
                        Actions=[{"CrawlerName": curated}])

    run_id = glue.start_workflow_run(Name=workflow, RunProperties={"color": "red"})["RunId"]
    assert run_id.startswith("wr_")
    run = wait_workflow_run(glue, workflow, run_id)
    assert run["Status"] == "COMPLETED", run
    assert (run["Name"], run["WorkflowRunId"]) == (workflow, run_id)
    assert "PreviousRunId" not in run and run["CompletedOn"] >= run["StartedOn"]
    assert run["Statistics"] == statistics(TotalActions=3, SucceededActions=3)
    nodes = nodes_by_name(run)
    assert [n["Type"] for n in run["Graph"]["Nodes"]] == ["TRIGGER", "CRAWLER", "TRIGGER", "JOB", "TRIGGER",
                                                          "CRAWLER"]
    for crawler in (raw, curated):
        crawls = nodes[crawler]["CrawlerDetails"]["Crawls"]
        assert [c["State"] for c in crawls] == ["SUCCEEDED"], crawls
        assert (crawls[0]["LogGroup"], crawls[0]["LogStream"]) == ("/aws-glue/crawlers", crawler)
    job_runs = nodes[job]["JobDetails"]["JobRuns"]
    assert [r["JobRunState"] for r in job_runs] == ["SUCCEEDED"]
    assert job_runs[0]["TriggerName"] == after_raw
    assert job_runs[0]["Arguments"] == {"--stage": "transform", "--WORKFLOW_NAME": workflow,
                                        "--WORKFLOW_RUN_ID": run_id}
    # the job ran after the first crawl ended, the second crawl after the job
    raw_crawl, curated_crawl = nodes[raw]["CrawlerDetails"]["Crawls"][0], nodes[curated]["CrawlerDetails"]["Crawls"][0]
    assert raw_crawl["CompletedOn"] <= job_runs[0]["StartedOn"]
    assert job_runs[0]["CompletedOn"] <= curated_crawl["StartedOn"]
    ids = {n["Name"]: n["UniqueId"] for n in run["Graph"]["Nodes"]}
    assert {(e["SourceId"], e["DestinationId"]) for e in run["Graph"]["Edges"]} == {
        (ids[start], ids[raw]), (ids[raw], ids[after_raw]), (ids[after_raw], ids[job]), (ids[job], ids[after_job]),
        (ids[after_job], ids[curated])}
    assert sorted(t["Name"] for t in glue.get_tables(DatabaseName=database)["TableList"]) == ["orders", "totals"]

    report = json.loads(out.read_text())
    pairs = dict(zip(report["argv"][::2], report["argv"][1::2], strict=True))
    assert (pairs["--WORKFLOW_NAME"], pairs["--WORKFLOW_RUN_ID"]) == (workflow, run_id)
    assert (pairs["--JOB_NAME"], pairs["--JOB_RUN_ID"], pairs["--stage"]) == (job, job_runs[0]["Id"], "transform")
    assert report["properties"] == {"day": "1", "color": "red"}  # DefaultRunProperties, then RunProperties
    assert glue.get_workflow_run_properties(Name=workflow, RunId=run_id)["RunProperties"] == \
        {"day": "1", "color": "red", "rows": "42"}
    glue.put_workflow_run_properties(Name=workflow, RunId=run_id, RunProperties={"rows": "43", "note": "checked"})
    assert glue.get_workflow_run(Name=workflow, RunId=run_id)["Run"]["WorkflowRunProperties"] == \
        {"day": "1", "color": "red", "rows": "43", "note": "checked"}
    assert "Graph" not in glue.get_workflow_run(Name=workflow, RunId=run_id)["Run"]
    last = glue.get_workflow(Name=workflow)["Workflow"]["LastRun"]
    assert (last["WorkflowRunId"], last["Status"]) == (run_id, "COMPLETED")
    assert client_error(lambda: glue.stop_workflow_run(Name=workflow, RunId=run_id)) == (
        "IllegalWorkflowStateException",
        f"Workflow run {run_id} is COMPLETED; only a RUNNING workflow run can be stopped")


def test_run_errors(glue: Any, wf_server: ClockedServer) -> None:
    workflow = unique("wf")
    glue.create_workflow(Name=workflow)
    # no starting trigger: the run is recorded and ends in ERROR saying why (docs/fidelity.md)
    empty_run = glue.start_workflow_run(Name=workflow)["RunId"]
    run = glue.get_workflow_run(Name=workflow, RunId=empty_run)["Run"]
    assert run["Status"] == "ERROR" and "has no starting trigger" in run["ErrorMessage"]
    assert "CompletedOn" in run
    missing = unique("gone")
    assert client_error(lambda: glue.start_workflow_run(Name=missing)) == \
        ("EntityNotFoundException", f"Workflow with name {missing} not found")
    assert client_error(lambda: glue.get_workflow_run(Name=workflow, RunId="wr_nothing")) == \
        ("EntityNotFoundException", f"Workflow run wr_nothing of workflow {workflow} not found")
    for call in (lambda: glue.get_workflow_run_properties(Name=workflow, RunId="wr_nothing"),
                 lambda: glue.put_workflow_run_properties(Name=workflow, RunId="wr_nothing", RunProperties={"a": "b"}),
                 lambda: glue.stop_workflow_run(Name=workflow, RunId="wr_nothing"),
                 lambda: glue.get_workflow_runs(Name=missing)):
        assert client_error(call)[0] == "EntityNotFoundException"
    # a run id of another workflow is not found in this one
    other, _ = one_job_workflow(glue, wf_server)
    other_run = glue.start_workflow_run(Name=other)["RunId"]
    assert client_error(lambda: glue.get_workflow_run(Name=workflow, RunId=other_run))[0] == "EntityNotFoundException"
    wait_workflow_run(glue, other, other_run)
    # an action that cannot start is an errored action; the run still completes
    broken, job = one_job_workflow(glue, wf_server)
    glue.delete_job(JobName=job)
    run = wait_workflow_run(glue, broken, glue.start_workflow_run(Name=broken)["RunId"])
    assert run["Status"] == "COMPLETED"
    assert run["Statistics"] == statistics(TotalActions=1, ErroredActions=1)
    assert run["Graph"]["Nodes"][1]["JobDetails"] == {"JobRuns": []}


def test_get_workflow_runs_pages_newest_first(glue: Any, wf_server: ClockedServer) -> None:
    workflow, job = one_job_workflow(glue, wf_server)
    run_ids = []
    for _ in range(3):
        run_ids.append(glue.start_workflow_run(Name=workflow)["RunId"])
        assert wait_workflow_run(glue, workflow, run_ids[-1])["Status"] == "COMPLETED"
    first = glue.get_workflow_runs(Name=workflow, MaxResults=2)
    assert [r["WorkflowRunId"] for r in first["Runs"]] == run_ids[:0:-1]
    assert all("Graph" not in r for r in first["Runs"])
    second = glue.get_workflow_runs(Name=workflow, MaxResults=2, NextToken=first["NextToken"], IncludeGraph=True)
    assert [r["WorkflowRunId"] for r in second["Runs"]] == run_ids[:1]
    assert "NextToken" not in second
    assert second["Runs"][0]["Statistics"] == statistics(TotalActions=1, SucceededActions=1)
    assert nodes_by_name(second["Runs"][0])[job]["JobDetails"]["JobRuns"][0]["Arguments"]["--WORKFLOW_RUN_ID"] == \
        run_ids[0]
    assert len(glue.get_job_runs(JobName=job)["JobRuns"]) == 3


def test_concurrency_limit_and_stop_goes_stopping_then_stopped(glue: Any, wf_server: ClockedServer,
                                                               tmp_path: Path) -> None:
    files = {key: str(tmp_path / key) for key in ("pidfile", "termed", "release", "go")}
    workflow, job = one_job_workflow(glue, wf_server, STUBBORN, MaxConcurrentRuns=1,
                                     job={"DefaultArguments": {f"--{k}": v for k, v in files.items()}})
    run_id = glue.start_workflow_run(Name=workflow)["RunId"]
    pid_of(tmp_path / "pidfile")
    assert client_error(lambda: glue.start_workflow_run(Name=workflow)) == \
        ("ConcurrentRunsExceededException", f"Concurrent runs exceeded for workflow: {workflow}")
    assert client_error(lambda: glue.resume_workflow_run(Name=workflow, RunId=run_id, NodeIds=["wnode_x"])) == (
        "IllegalWorkflowStateException",
        f"Workflow run {run_id} is RUNNING; only a COMPLETED or STOPPED workflow run can be resumed")
    running = glue.get_workflow_run(Name=workflow, RunId=run_id)["Run"]
    assert running["Status"] == "RUNNING" and "CompletedOn" not in running
    assert running["Statistics"] == statistics(TotalActions=1, RunningActions=1)

    assert glue.stop_workflow_run(Name=workflow, RunId=run_id)["ResponseMetadata"]["HTTPStatusCode"] == 200
    wait_for(lambda: Path(files["termed"]).exists(), 30, "the job to get SIGTERM")
    stopping = glue.get_workflow_run(Name=workflow, RunId=run_id, IncludeGraph=True)["Run"]
    assert stopping["Status"] == "STOPPING"
    assert nodes_by_name(stopping)[job]["JobDetails"]["JobRuns"][0]["JobRunState"] == "STOPPING"
    assert client_error(lambda: glue.stop_workflow_run(Name=workflow, RunId=run_id))[0] == \
        "IllegalWorkflowStateException"
    assert client_error(lambda: glue.start_workflow_run(Name=workflow))[0] == "ConcurrentRunsExceededException"
    Path(files["release"]).write_text("")
    stopped = wait_workflow_run(glue, workflow, run_id)
    assert stopped["Status"] == "STOPPED"
    job_run = nodes_by_name(stopped)[job]["JobDetails"]["JobRuns"][0]
    assert job_run["JobRunState"] == "STOPPED"
    assert wait_run(glue, job, job_run["Id"])["JobRunState"] == "STOPPED"
    assert stopped["Statistics"] == statistics(TotalActions=1, StoppedActions=1)
    assert client_error(lambda: glue.stop_workflow_run(Name=workflow, RunId=run_id)) == (
        "IllegalWorkflowStateException",
        f"Workflow run {run_id} is STOPPED; only a RUNNING workflow run can be stopped")

    # the limit counts running runs only: a new run may start now, and runs to its end
    Path(files["go"]).write_text("")
    (tmp_path / "pidfile").unlink()
    second = glue.start_workflow_run(Name=workflow)["RunId"]
    assert wait_workflow_run(glue, workflow, second)["Status"] == "COMPLETED"
