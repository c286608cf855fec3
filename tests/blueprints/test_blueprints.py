"""Blueprints through boto3 against `glueball server` (SQLite and PostgreSQL): a ZIP with blueprint.cfg and a
layout script is created from the object store; a run executes the layout, creates the workflow, two Python shell
jobs, a crawler and their triggers, and the workflow then runs them; failures roll back; every error path."""

from __future__ import annotations

import io
import json
import textwrap
import zipfile
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from tests.helpers import ServerProcess, error_of, unique, wait_for

ROLE = "arn:aws:iam::123456789012:role/blueprint-runner"

CONFIG = {
    "layoutGenerator": "demo.layout.generate_layout",
    "parameterSpec": {
        "WorkflowName": {"type": "String", "collection": False, "description": "the workflow to create"},
        "IAMRole": {"type": "IAMRoleName", "collection": False},
        "Bucket": {"type": "S3Bucket", "collection": False},
        "DatabaseName": {"type": "String", "collection": False, "defaultValue": "blueprinted"},
        "Parts": {"type": "Integer", "collection": False, "defaultValue": 2, "allowedValues": [1, 2, 3]},
    },
}

# the layout: AWS's library's classes; boto3 (reaching glueball) uploads the job script and creates the database
LAYOUT = '''
import boto3
from awsglue.blueprint.workflow import Workflow, Entities
from awsglue.blueprint.job import Job
from awsglue.blueprint.crawler import Crawler


def generate_layout(user_params, system_params):
    workflow, bucket = user_params["WorkflowName"], user_params["Bucket"]
    glue = boto3.Session(region_name=system_params["region"]).client("glue")
    try:
        glue.create_database(DatabaseInput={"Name": user_params["DatabaseName"]})
    except glue.exceptions.AlreadyExistsException:
        pass
    with open("demo/write_part.py", "rb") as source:
        boto3.client("s3").put_object(Bucket=bucket, Key=f"scripts/{workflow}/write_part.py", Body=source.read())
    command = {"Name": "pythonshell", "ScriptLocation": f"s3://{bucket}/scripts/{workflow}/write_part.py"}
    arguments = {"--bucket": bucket, "--prefix": f"data/{workflow}/events", "--rows": str(user_params["Parts"])}
    first = Job(Name=f"{workflow}_first", Role=user_params["IAMRole"], Command=command,
                DefaultArguments={**arguments, "--part": "1"})
    second = Job(Name=f"{workflow}_second", Role=user_params["IAMRole"], Command=command,
                 DefaultArguments={**arguments, "--part": "2"}, DependsOn={first: "SUCCEEDED"})
    crawler = Crawler(Name=f"{workflow}_crawler", Role=user_params["IAMRole"],
                      DatabaseName=user_params["DatabaseName"],
                      Targets={"S3Targets": [{"Path": f"s3://{bucket}/data/{workflow}/events/"}]},
                      DependsOn={second: "SUCCEEDED"})
    return Workflow(Name=workflow, Description=f"made by {system_params['blueprintName']}",
                    Entities=Entities(Jobs=[first, second], Crawlers=[crawler]))
'''

# each job writes one JSON part of the crawled folder
WRITE_PART = '''
import json, sys, boto3
args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
part = int(args["--part"])
rows = [json.dumps({"id": part * 100 + i, "part": part}) for i in range(int(args["--rows"]))]
boto3.client("s3").put_object(Bucket=args["--bucket"], Key=f"{args['--prefix']}/part-{part}.json",
                              Body="\\n".join(rows).encode())
'''


def archive(files: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as out:
        for name, text in files.items():
            out.writestr(name, text)
    return buffer.getvalue()


def demo_archive(layout: str = LAYOUT, config: dict[str, Any] | None = None) -> bytes:
    return archive({"demo/blueprint.cfg": json.dumps(config or CONFIG), "demo/layout.py": textwrap.dedent(layout),
                    "demo/write_part.py": WRITE_PART, "demo/__init__.py": ""})


def s3(server: ServerProcess) -> Any:
    return boto3.client("s3", endpoint_url=server.endpoint, region_name="us-east-1",
                        aws_access_key_id="AKIDEXAMPLE", aws_secret_access_key="secret")


@pytest.fixture()
def bucket(server: ServerProcess) -> str:
    name = unique("bp").replace("_", "-")
    s3(server).create_bucket(Bucket=name)
    return name


def upload(server: ServerProcess, bucket: str, data: bytes) -> str:
    key = f"blueprints/{unique('bp')}.zip"
    s3(server).put_object(Bucket=bucket, Key=key, Body=data)
    return f"s3://{bucket}/{key}"


def wait_blueprint_run(glue: Any, name: str, run_id: str) -> dict[str, Any]:
    def ended() -> Any:
        run = glue.get_blueprint_run(BlueprintName=name, RunId=run_id)["BlueprintRun"]
        return run if run["State"] in ("SUCCEEDED", "FAILED") else None

    found: dict[str, Any] = wait_for(ended, 120, f"blueprint run {run_id} to end")
    return found


def expect_error(call: Any, code: str) -> str:
    with pytest.raises(ClientError) as excinfo:
        call()
    got, message = error_of(excinfo)
    assert got == code, message
    return message


def test_a_blueprint_run_creates_the_workflow_and_the_workflow_runs(glue: Any, server: ServerProcess,
                                                                   bucket: str) -> None:
    name, workflow, database = unique("demo"), unique("wf"), unique("bpdb")
    location = upload(server, bucket, demo_archive())
    assert glue.create_blueprint(Name=name, Description="two jobs and a crawler", BlueprintLocation=location,
                                 Tags={"team": "data"})["Name"] == name
    blueprint = glue.get_blueprint(Name=name, IncludeParameterSpec=True, IncludeBlueprint=True)["Blueprint"]
    assert blueprint["Status"] == "ACTIVE" and blueprint["BlueprintLocation"] == location
    assert json.loads(blueprint["ParameterSpec"]) == CONFIG["parameterSpec"]
    assert blueprint["BlueprintServiceLocation"].endswith(".zip")
    assert "ParameterSpec" not in glue.get_blueprint(Name=name)["Blueprint"]

    run_id = glue.start_blueprint_run(BlueprintName=name, RoleArn=ROLE, Parameters=json.dumps(
        {"WorkflowName": workflow, "IAMRole": "GlueRole", "Bucket": bucket, "DatabaseName": database}))["RunId"]
    run = wait_blueprint_run(glue, name, run_id)
    assert run["State"] == "SUCCEEDED", run.get("ErrorMessage")
    assert run["WorkflowName"] == workflow and run["RoleArn"] == ROLE and "CompletedOn" in run
    assert [r["RunId"] for r in glue.get_blueprint_runs(BlueprintName=name)["BlueprintRuns"]] == [run_id]

    created = glue.get_workflow(Name=workflow, IncludeGraph=True)["Workflow"]
    assert created["Description"] == f"made by {name}"
    nodes = {n["Name"]: n["Type"] for n in created["Graph"]["Nodes"]}
    assert nodes == {f"{workflow}_first": "JOB", f"{workflow}_second": "JOB", f"{workflow}_crawler": "CRAWLER",
                     f"{workflow}_starting_trigger": "TRIGGER", f"{workflow}_{workflow}_second_trigger": "TRIGGER",
                     f"{workflow}_{workflow}_crawler_trigger": "TRIGGER"}
    second = glue.get_trigger(Name=f"{workflow}_{workflow}_second_trigger")["Trigger"]
    assert second["Type"] == "CONDITIONAL" and second["State"] == "ACTIVATED"
    assert second["Predicate"]["Conditions"] == [{"LogicalOperator": "EQUALS", "JobName": f"{workflow}_first",
                                                  "State": "SUCCEEDED"}]
    assert glue.get_trigger(Name=f"{workflow}_starting_trigger")["Trigger"]["Type"] == "ON_DEMAND"

    workflow_run = glue.start_workflow_run(Name=workflow)["RunId"]

    def completed() -> Any:
        found = glue.get_workflow_run(Name=workflow, RunId=workflow_run)["Run"]
        return found if found["Status"] == "COMPLETED" else None

    finished = wait_for(completed, 180, "the blueprint's workflow run to complete")
    assert finished["Statistics"]["SucceededActions"] == 3 and finished["Statistics"]["FailedActions"] == 0
    assert [t["Name"] for t in glue.get_tables(DatabaseName=database)["TableList"]] == ["events"]
    table = glue.get_table(DatabaseName=database, Name="events")["Table"]
    assert {c["Name"] for c in table["StorageDescriptor"]["Columns"]} == {"id", "part"}
    listed = s3(server).list_objects_v2(Bucket=bucket, Prefix=f"data/{workflow}/events/")["Contents"]
    assert sorted(o["Key"].rsplit("/", 1)[1] for o in listed) == ["part-1.json", "part-2.json"]


def test_a_failing_layout_fails_the_run_with_its_exception(glue: Any, server: ServerProcess, bucket: str) -> None:
    failing = LAYOUT.replace('    workflow, bucket = user_params["WorkflowName"], user_params["Bucket"]',
                             '    raise ValueError("no such source: " + user_params["Bucket"])')
    name = unique("broken")
    glue.create_blueprint(Name=name, BlueprintLocation=upload(server, bucket, demo_archive(failing)))
    run_id = glue.start_blueprint_run(BlueprintName=name, RoleArn=ROLE, Parameters=json.dumps(
        {"WorkflowName": unique("wf"), "IAMRole": "GlueRole", "Bucket": bucket}))["RunId"]
    run = wait_blueprint_run(glue, name, run_id)
    assert run["State"] == "FAILED"
    assert f"ValueError: no such source: {bucket}" in run["ErrorMessage"]
    assert "RollbackErrorMessage" not in run


def test_an_entity_that_cannot_be_created_rolls_back_what_the_run_created(glue: Any, server: ServerProcess,
                                                                         bucket: str) -> None:
    name, workflow = unique("clash"), unique("wf")
    glue.create_crawler(Name=f"{workflow}_crawler", Role="GlueRole", DatabaseName="db",
                        Targets={"S3Targets": [{"Path": "s3://elsewhere/"}]})  # the layout's crawler name is taken
    glue.create_blueprint(Name=name, BlueprintLocation=upload(server, bucket, demo_archive()))
    run_id = glue.start_blueprint_run(BlueprintName=name, RoleArn=ROLE, Parameters=json.dumps(
        {"WorkflowName": workflow, "IAMRole": "GlueRole", "Bucket": bucket}))["RunId"]
    run = wait_blueprint_run(glue, name, run_id)
    assert run["State"] == "FAILED"
    assert f"Creating crawler {workflow}_crawler failed: AlreadyExistsException" in run["ErrorMessage"]
    for call in (lambda: glue.get_workflow(Name=workflow), lambda: glue.get_job(JobName=f"{workflow}_first"),
                 lambda: glue.get_job(JobName=f"{workflow}_second")):
        expect_error(call, "EntityNotFoundException")  # rolled back
    assert glue.get_crawler(Name=f"{workflow}_crawler")["Crawler"]["Targets"]["S3Targets"][0]["Path"] == \
        "s3://elsewhere/"  # what was there before is left alone


def test_blueprint_crud_and_its_error_paths(glue: Any, server: ServerProcess, bucket: str) -> None:
    name = unique("crud")
    location = upload(server, bucket, demo_archive())
    glue.create_blueprint(Name=name, BlueprintLocation=location, Tags={"k": "v"})
    message = expect_error(lambda: glue.create_blueprint(Name=name, BlueprintLocation=location),
                           "AlreadyExistsException")
    assert name in message
    expect_error(lambda: glue.get_blueprint(Name=unique("none")), "EntityNotFoundException")
    expect_error(lambda: glue.update_blueprint(Name=unique("none"), BlueprintLocation=location),
                 "EntityNotFoundException")
    expect_error(lambda: glue.get_blueprint_runs(BlueprintName=unique("none")), "EntityNotFoundException")
    expect_error(lambda: glue.get_blueprint_run(BlueprintName=name, RunId="nope"), "EntityNotFoundException")
    expect_error(lambda: glue.start_blueprint_run(BlueprintName=unique("none"), RoleArn=ROLE),
                 "EntityNotFoundException")

    assert name in glue.list_blueprints(Tags={"k": "v"})["Blueprints"]
    assert name not in glue.list_blueprints(Tags={"k": "other"})["Blueprints"]
    got = glue.batch_get_blueprints(Names=[name, "missing-one"])
    assert [b["Name"] for b in got["Blueprints"]] == [name] and got["MissingBlueprints"] == ["missing-one"]

    for parameters, why in ((json.dumps({"IAMRole": "r", "Bucket": bucket}), "required parameter WorkflowName"),
                            (json.dumps({"WorkflowName": "w", "IAMRole": "r", "Bucket": bucket, "Extra": 1}),
                             "no parameter Extra"),
                            (json.dumps({"WorkflowName": "w", "IAMRole": "r", "Bucket": bucket, "Parts": 7}),
                             "7 is not one of"),
                            (json.dumps({"WorkflowName": 5, "IAMRole": "r", "Bucket": bucket}), "expected String"),
                            ("[1, 2]", "must be a JSON object")):
        message = expect_error(lambda p=parameters: glue.start_blueprint_run(BlueprintName=name, RoleArn=ROLE,
                                                                              Parameters=p), "InvalidInputException")
        assert why in message
    assert glue.get_blueprint_runs(BlueprintName=name)["BlueprintRuns"] == []  # refused runs leave nothing

    # a bad archive: the blueprint is FAILED (the last good definition kept), and cannot run
    bad = upload(server, bucket, archive({"demo/layout.py": LAYOUT}))
    glue.update_blueprint(Name=name, BlueprintLocation=bad)
    failed = glue.get_blueprint(Name=name)["Blueprint"]
    assert failed["Status"] == "FAILED" and "blueprint.cfg" in failed["ErrorMessage"]
    assert failed["LastActiveDefinition"]["BlueprintLocation"] == location
    message = expect_error(lambda: glue.start_blueprint_run(BlueprintName=name, RoleArn=ROLE),
                           "IllegalBlueprintStateException")
    assert "FAILED" in message
    glue.update_blueprint(Name=name, BlueprintLocation=location, Description="again")
    assert glue.get_blueprint(Name=name)["Blueprint"]["Status"] == "ACTIVE"

    assert glue.delete_blueprint(Name=name)["Name"] == name
    expect_error(lambda: glue.get_blueprint(Name=name), "EntityNotFoundException")
    assert glue.delete_blueprint(Name=name)["Name"] == name  # deleting a missing blueprint succeeds, as on AWS


@pytest.mark.parametrize(("files", "why"), [
    ({"x.txt": "no config"}, "one blueprint.cfg"),
    ({"blueprint.cfg": "{not json"}, "not valid JSON"),
    ({"blueprint.cfg": json.dumps({"layoutGenerator": "layout.generate"})}, "does not hold"),
    ({"blueprint.cfg": json.dumps({"layoutGenerator": "generate"}), "layout.py": ""}, "dotted path"),
    ({"blueprint.cfg": json.dumps({"layoutGenerator": "layout.generate", "parameterSpec": {"P": {"type": "Date"}}}),
      "layout.py": ""}, "parameterSpec.P.type"),
])
def test_an_invalid_archive_leaves_the_blueprint_failed_with_the_reason(glue: Any, server: ServerProcess,
                                                                       bucket: str, files: dict[str, str],
                                                                       why: str) -> None:
    name = unique("bad")
    glue.create_blueprint(Name=name, BlueprintLocation=upload(server, bucket, archive(files)))
    blueprint = glue.get_blueprint(Name=name)["Blueprint"]
    assert blueprint["Status"] == "FAILED" and why in blueprint["ErrorMessage"]


def test_a_missing_archive_or_a_non_zip_leaves_the_blueprint_failed(glue: Any, server: ServerProcess,
                                                                   bucket: str) -> None:
    name = unique("gone")
    glue.create_blueprint(Name=name, BlueprintLocation=f"s3://{bucket}/nothing/here.zip")
    assert "could not be read" in glue.get_blueprint(Name=name)["Blueprint"]["ErrorMessage"]
    other = unique("text")
    glue.create_blueprint(Name=other, BlueprintLocation=upload(server, bucket, b"plain text"))
    assert "not a ZIP file" in glue.get_blueprint(Name=other)["Blueprint"]["ErrorMessage"]


# a layout that waits for a gate: it writes its pid into the gate folder and waits for "release" there
WAITING_LAYOUT = '''
import os, time
from awsglue.blueprint.job import Job
from awsglue.blueprint.workflow import Workflow, Entities


def generate_layout(user_params, system_params):
    gate = user_params["Gate"]
    open(os.path.join(gate, "pid"), "w").write(str(os.getpid()))
    deadline = time.time() + 120
    while not os.path.exists(os.path.join(gate, "release")) and time.time() < deadline:
        time.sleep(0.05)
    job = Job(Name=user_params["WorkflowName"] + "_job", Role="r",
              Command={"Name": "pythonshell", "ScriptLocation": "s3://scripts/none.py"})
    return Workflow(Name=user_params["WorkflowName"], Entities=Entities(Jobs=[job], Crawlers=[]))
'''
WAITING_CONFIG = {"layoutGenerator": "demo.layout.generate_layout",
                  "parameterSpec": {"WorkflowName": {"type": "String"}, "Gate": {"type": "String"}}}


def test_runs_a_killed_server_left_are_taken_over_as_far_as_they_got(tmp_path: Path) -> None:
    """kill -9 of the server while three layouts run: one is adopted and its run completes, one ends while no
    server watches and is settled from its keeper's record, and one whose server had begun creating its entities
    (the store says so) is rolled back and fails saying why."""
    import sqlite3

    (tmp_path / "home").mkdir()
    server = ServerProcess(tmp_path / "home").start()
    try:
        glue = server.client()
        bucket = unique("bp").replace("_", "-")
        s3(server).create_bucket(Bucket=bucket)
        name = unique("waits")
        glue.create_blueprint(Name=name, BlueprintLocation=upload(server, bucket, demo_archive(
            WAITING_LAYOUT, WAITING_CONFIG)))
        runs: dict[str, tuple[str, str, Path]] = {}
        for moment in ("adopted", "unwatched", "creating"):
            gate, workflow = tmp_path / moment, unique(moment)
            gate.mkdir()
            run_id = glue.start_blueprint_run(BlueprintName=name, RoleArn=ROLE, Parameters=json.dumps(
                {"WorkflowName": workflow, "Gate": str(gate)}))["RunId"]
            runs[moment] = (run_id, workflow, gate)
        for run_id, _, gate in runs.values():
            wait_for(lambda g=gate: (g / "pid").exists(), 60, "the layout's pid")  # type: ignore[misc]
            assert glue.get_blueprint_run(BlueprintName=name, RunId=run_id)["BlueprintRun"]["State"] == "RUNNING"
        server.kill()
        for moment in ("unwatched", "creating"):
            run_id, _, gate = runs[moment]
            (gate / "release").write_text("")
            wait_for((server.home / "logs" / "blueprints" / run_id / "outcome.json").exists, 60,
                     f"the {moment} layout's outcome record")
        with sqlite3.connect(server.home / "glueball.db") as db:  # as if the server had begun creating entities
            db.execute("UPDATE glue_task_run SET spec = json_set(spec, '$.WorkflowName', ?) WHERE run_id = ?",
                       (runs["creating"][1], runs["creating"][0]))
        server.start()
        glue = server.client()
        run_id, workflow, gate = runs["unwatched"]
        assert wait_blueprint_run(glue, name, run_id)["State"] == "SUCCEEDED"
        assert glue.get_workflow(Name=workflow)["Workflow"]["Name"] == workflow
        run_id, workflow, gate = runs["adopted"]
        assert glue.get_blueprint_run(BlueprintName=name, RunId=run_id)["BlueprintRun"]["State"] == "RUNNING"
        (gate / "release").write_text("")
        assert wait_blueprint_run(glue, name, run_id)["State"] == "SUCCEEDED"
        assert glue.get_workflow(Name=workflow)["Workflow"]["Name"] == workflow
        run = wait_blueprint_run(glue, name, runs["creating"][0])
        assert (run["State"], run["ErrorMessage"]) == (
            "FAILED", "the server stopped while the run was creating the workflow's entities")
    finally:
        server.stop()


def test_a_layout_that_never_started_fails_its_run_after_a_restart(tmp_path: Path) -> None:
    import os

    (tmp_path / "home").mkdir()
    gate_file = tmp_path / "launches-held"
    gate_file.write_text("")
    server = ServerProcess(tmp_path / "home")
    os.environ["GLUEBALL_LAUNCH_GATE"] = str(gate_file)
    try:
        server.start()
    finally:
        os.environ.pop("GLUEBALL_LAUNCH_GATE")
    try:
        glue = server.client()
        bucket = unique("bp").replace("_", "-")
        s3(server).create_bucket(Bucket=bucket)
        name, gate = unique("held"), tmp_path / "gate"
        gate.mkdir()
        glue.create_blueprint(Name=name, BlueprintLocation=upload(server, bucket, demo_archive(
            WAITING_LAYOUT, WAITING_CONFIG)))
        run_id = glue.start_blueprint_run(BlueprintName=name, RoleArn=ROLE, Parameters=json.dumps(
            {"WorkflowName": unique("wf"), "Gate": str(gate)}))["RunId"]
        server.kill()
        gate_file.unlink()
        server.start()
        run = wait_blueprint_run(server.client(), name, run_id)
        assert (run["State"], run["ErrorMessage"]) == ("FAILED", "the server stopped before the run's driver started")
        assert not (gate / "pid").exists(), "its layout never ran"
    finally:
        server.stop()
