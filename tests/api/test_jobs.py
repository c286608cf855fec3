"""Job definitions and job-run operations through boto3 (SQLite and PostgreSQL): shapes, rules, errors.

Runs with real driver processes are in tests/jobs/test_runs.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from glueball.config import DEFAULT_ACCOUNT_ID
from tests.helpers import error_of, unique

SCRIPT = "s3://scripts/etl.py"


def create(glue: Any, name: str | None = None, **extra: Any) -> str:
    name = name or unique("job")
    params: dict[str, Any] = {"Name": name, "Role": "GlueRole",
                              "Command": {"Name": "glueetl", "ScriptLocation": SCRIPT}}
    params.update(extra)
    assert glue.create_job(**params)["Name"] == name
    return name


def client_error(call: Any) -> tuple[str, str]:
    with pytest.raises(ClientError) as excinfo:
        call()
    return error_of(excinfo)


def test_create_get_round_trips_with_glue_defaults(glue: Any) -> None:
    name = unique("job")
    answer = glue.create_job(Name=name, Role="GlueRole", Command={"Name": "glueetl", "ScriptLocation": SCRIPT},
                             Description="nightly", DefaultArguments={"--job-bookmark-option": "job-bookmark-enable"},
                             Connections={"Connections": ["pg"]}, Tags={"team": "data"})
    assert answer["Name"] == name
    job = glue.get_job(JobName=name)["Job"]
    assert job["Name"] == name and job["Role"] == "GlueRole" and job["Description"] == "nightly"
    assert job["Command"] == {"Name": "glueetl", "ScriptLocation": SCRIPT, "PythonVersion": "3"}
    assert job["DefaultArguments"] == {"--job-bookmark-option": "job-bookmark-enable"}
    assert job["Connections"] == {"Connections": ["pg"]}
    assert job["ExecutionProperty"] == {"MaxConcurrentRuns": 1}
    assert job["MaxRetries"] == 0
    assert job["GlueVersion"] == "6.0" and job["Timeout"] == 480
    assert job["MaxCapacity"] == 10.0 and job["AllocatedCapacity"] == 10
    assert "WorkerType" not in job and job["ExecutionClass"] == "STANDARD"
    assert job["CreatedOn"] == job["LastModifiedOn"]
    shell = create(glue, Command={"Name": "pythonshell", "ScriptLocation": "/opt/jobs/x.py"})
    shell_job = glue.get_job(JobName=shell)["Job"]
    assert shell_job["MaxCapacity"] == 0.0625 and shell_job["GlueVersion"] == "3.0" and shell_job["Timeout"] == 2880
    workers = create(glue, WorkerType="G.2X", NumberOfWorkers=5, GlueVersion="4.0")
    worker_job = glue.get_job(JobName=workers)["Job"]
    assert (worker_job["WorkerType"], worker_job["NumberOfWorkers"], worker_job["MaxCapacity"]) == ("G.2X", 5, 10.0)
    assert worker_job["Timeout"] == 2880
    assert client_error(lambda: glue.create_job(Name=name, Role="r", Command={"Name": "glueetl",
                                                                               "ScriptLocation": SCRIPT})) == \
        ("AlreadyExistsException", f"Job with name: {name} already exists")
    assert client_error(lambda: glue.get_job(JobName=name + "_x")) == \
        ("EntityNotFoundException", "Job not found.")


@pytest.mark.parametrize(("extra", "message"), [
    ({"Command": {"ScriptLocation": SCRIPT}}, "Command name should not be null or empty"),
    ({"Command": {"Name": "gluestreaming"}}, "Script location cannot be null or empty for gluestreaming command"),
    ({"Command": {"Name": "glueetl", "Runtime": "Ray2.4", "ScriptLocation": SCRIPT}},
     "Command.Runtime applies to Ray jobs (glueray) only"),
    ({"Command": {"Name": "glueray", "Runtime": "Ray2.4", "ScriptLocation": SCRIPT}, "WorkerType": "G.1X",
      "NumberOfWorkers": 2},
     "Ray jobs (glueray) use WorkerType Z.2X, got G.1X"),
    ({"Command": {"Name": "glueetl", "ScriptLocation": "relative/x.py"}},
     "Command.ScriptLocation must be an s3:// path or an absolute local path, got 'relative/x.py'"),
    ({"Command": {"Name": "glueetl", "ScriptLocation": "s3://scripts/../../../etc/x.py"}},
     "Command.ScriptLocation: 's3://scripts/../../../etc/x.py': a key with '.' or '..' segments would leave "
     "the object store"),
    ({"Command": {"Name": "glueetl", "ScriptLocation": "s3://../x.py"}},
     "Command.ScriptLocation: 's3://../x.py': '..' is not a bucket name"),
    ({"Command": {"Name": "glueetl", "ScriptLocation": "s3://scripts/folder/"}},
     "Command.ScriptLocation must name a script, s3://bucket/key.py, got 's3://scripts/folder/'"),
    ({"MaxCapacity": 5.0, "WorkerType": "G.1X", "NumberOfWorkers": 2},
     "Please do not set Max Capacity if using Worker Type and Number of Workers."),
    ({"WorkerType": "G.1X"}, "Please set both Worker Type and Number of Workers."),
    ({"MaxCapacity": 2.5}, "Spark jobs (glueetl) accept MaxCapacity of 2 to 100 whole DPUs, got 2.5"),
    ({"Command": {"Name": "pythonshell", "ScriptLocation": SCRIPT}, "MaxCapacity": 2.0},
     "Python shell jobs accept MaxCapacity 0.0625 or 1 DPU, got 2.0"),
    ({"Command": {"Name": "pythonshell", "ScriptLocation": SCRIPT}, "WorkerType": "G.1X", "NumberOfWorkers": 2},
     "Worker Type and Number of Workers are not supported for Python shell jobs; set MaxCapacity to 0.0625 or 1"),
    ({"Timeout": 10081}, "Timeout must be between 1 and 10080 minutes (less than 7 days), got 10081"),
    ({"DefaultArguments": {"--job-language": "scala"}},
     "DefaultArguments: --job-language scala is not supported by glueball; glueball runs Python scripts "
     "(--job-language python)"),
    ({"DefaultArguments": {"--job-bookmark-option": "on"}},
     "DefaultArguments: --job-bookmark-option must be one of job-bookmark-enable, job-bookmark-disable, "
     "job-bookmark-pause, got 'on'"),
    ({"SecurityConfiguration": "kms"}, "Security configuration kms does not exist"),
    ({"JobRunQueuingEnabled": True}, "Job run queuing (JobRunQueuingEnabled) is not supported by glueball; runs over "
                                     "MaxConcurrentRuns are refused"),
    ({"ExecutionClass": "FLEX", "Command": {"Name": "gluestreaming", "ScriptLocation": SCRIPT}},
     "Only jobs with Glue version 3.0 and above and command type glueetl can use ExecutionClass FLEX"),
    ({"ExecutionProperty": {"MaxConcurrentRuns": 0}}, "ExecutionProperty.MaxConcurrentRuns must be at least 1, got 0"),
    ({"AllocatedCapacity": 2, "MaxCapacity": 5.0}, "Please set only Allocated Capacity or Max Capacity"),
])
def test_invalid_definitions_are_refused_with_the_reason(glue: Any, extra: dict[str, Any], message: str) -> None:
    name = unique("bad")
    params: dict[str, Any] = {"Name": name, "Role": "r", "Command": {"Name": "glueetl", "ScriptLocation": SCRIPT}}
    params.update(extra)
    assert client_error(lambda: glue.create_job(**params)) == ("InvalidInputException", message)
    assert client_error(lambda: glue.get_job(JobName=name))[0] == "EntityNotFoundException"


def test_update_replaces_the_definition(glue: Any) -> None:
    name = create(glue, Description="old", MaxRetries=3, DefaultArguments={"--a": "1"}, Timeout=60)
    before = glue.get_job(JobName=name)["Job"]
    assert glue.update_job(JobName=name, JobUpdate={"Role": "Other", "Command": {
        "Name": "pythonshell", "ScriptLocation": "s3://scripts/new.py"}, "MaxCapacity": 1.0})["JobName"] == name
    job = glue.get_job(JobName=name)["Job"]
    assert job["Role"] == "Other" and job["Command"]["Name"] == "pythonshell" and job["MaxCapacity"] == 1.0
    assert "Description" not in job and "DefaultArguments" not in job
    assert job["MaxRetries"] == 0 and job["Timeout"] == 2880
    assert job["CreatedOn"] == before["CreatedOn"] and job["LastModifiedOn"] >= before["LastModifiedOn"]
    assert client_error(lambda: glue.update_job(JobName=name, JobUpdate={"Command": {"Name": "glueetl"}})) == \
        ("InvalidInputException", "Role is required")
    assert client_error(lambda: glue.update_job(JobName=name, JobUpdate={"Role": "r", "Command": {
        "Name": "glueetl"}})) == ("InvalidInputException",
                                  "Script location cannot be null or empty for glueetl command")
    assert client_error(lambda: glue.update_job(JobName=name + "_x", JobUpdate={
        "Role": "r", "Command": {"Name": "glueetl", "ScriptLocation": SCRIPT}})) == \
        ("EntityNotFoundException", "Job not found.")


def test_get_jobs_batch_get_list_with_tags_and_delete(glue: Any) -> None:
    prefix = unique("many")
    names = [create(glue, f"{prefix}_{i}", Tags={"team": "a" if i % 2 else "b"}) for i in range(5)]
    pages = list(glue.get_paginator("get_jobs").paginate(PaginationConfig={"PageSize": 2}))
    listed = [j["Name"] for p in pages for j in p["Jobs"]]
    assert [n for n in listed if n.startswith(prefix)] == names and listed == sorted(listed)
    batch = glue.batch_get_jobs(JobNames=[names[3], "missing_job", names[0]])
    assert [j["Name"] for j in batch["Jobs"]] == [names[3], names[0]]
    assert batch["JobsNotFound"] == ["missing_job"]
    tagged = glue.list_jobs(Tags={"team": "a"})["JobNames"]
    assert [n for n in tagged if n.startswith(prefix)] == [names[1], names[3]]
    first = glue.list_jobs(MaxResults=1)
    assert len(first["JobNames"]) == 1 and "NextToken" in first
    assert glue.list_jobs(MaxResults=1, NextToken=first["NextToken"])["JobNames"] != first["JobNames"]
    arn = f"arn:aws:glue:us-east-1:{DEFAULT_ACCOUNT_ID}:job/{names[0]}"
    glue.tag_resource(ResourceArn=arn, TagsToAdd={"env": "test"})
    assert glue.get_tags(ResourceArn=arn)["Tags"] == {"team": "b", "env": "test"}
    assert glue.delete_job(JobName=names[0])["JobName"] == names[0]
    assert glue.delete_job(JobName=names[0])["JobName"] == names[0]  # a missing job is no error
    assert client_error(lambda: glue.get_tags(ResourceArn=arn))[0] == "EntityNotFoundException"
    create(glue, names[0])
    assert glue.get_tags(ResourceArn=arn)["Tags"] == {}


def test_run_operations_refuse_unknown_jobs_runs_and_overrides(glue: Any) -> None:
    name = create(glue)
    assert client_error(lambda: glue.start_job_run(JobName=name + "_x")) == (
        "EntityNotFoundException", f"Failed to start job run due to missing metadata: job {name}_x does not exist")
    assert client_error(lambda: glue.get_job_run(JobName=name, RunId="jr_nope")) == (
        "EntityNotFoundException", f"Job run jr_nope of job {name} not found")
    assert client_error(lambda: glue.get_job_runs(JobName=name + "_x")) == (
        "EntityNotFoundException", "Job not found.")
    assert glue.get_job_runs(JobName=name)["JobRuns"] == []
    assert client_error(lambda: glue.start_job_run(JobName=name, JobRunId="jr_nope")) == (
        "EntityNotFoundException", f"Job run jr_nope of job {name} not found")
    assert client_error(lambda: glue.start_job_run(JobName=name, Arguments={"--job-language": "scala"})) == (
        "InvalidInputException", "Arguments: --job-language scala is not supported by glueball; glueball runs "
                                 "Python scripts (--job-language python)")
    assert client_error(lambda: glue.start_job_run(JobName=name, MaxCapacity=1.5)) == (
        "InvalidInputException", "Spark jobs (glueetl) accept MaxCapacity of 2 to 100 whole DPUs, got 1.5")
    assert client_error(lambda: glue.start_job_run(JobName=name, Timeout=20000)) == (
        "InvalidInputException", "Timeout must be between 1 and 10080 minutes (less than 7 days), got 20000")
    assert client_error(lambda: glue.start_job_run(JobName=name, AllocatedCapacity=2, MaxCapacity=5.0)) == (
        "InvalidInputException", "Please set only Allocated Capacity or Max Capacity")
    assert glue.get_job_runs(JobName=name)["JobRuns"] == []
    stopped = glue.batch_stop_job_run(JobName=name + "_x", JobRunIds=["jr_1"])
    assert stopped["SuccessfulSubmissions"] == []
    assert stopped["Errors"][0]["ErrorDetail"]["ErrorCode"] == "EntityNotFoundException"


def test_a_run_of_a_job_without_its_script_fails_and_keeps_the_overrides(glue: Any) -> None:
    name = create(glue, Command={"Name": "glueetl", "ScriptLocation": "s3://scripts/absent.py"})
    run_id = glue.start_job_run(JobName=name, WorkerType="G.1X", NumberOfWorkers=3, Timeout=5,
                                Arguments={"--x": "1"})["JobRunId"]
    import time

    deadline = time.monotonic() + 30
    run: dict[str, Any] = {}
    while time.monotonic() < deadline:
        run = glue.get_job_run(JobName=name, RunId=run_id, PredecessorsIncluded=True)["JobRun"]
        if run["JobRunState"] == "FAILED":
            break
        time.sleep(0.05)
    assert run["JobRunState"] == "FAILED"
    assert run["ErrorMessage"].startswith("Script s3://scripts/absent.py does not exist")
    assert (run["WorkerType"], run["NumberOfWorkers"], run["MaxCapacity"], run["Timeout"]) == ("G.1X", 3, 3.0, 5)
    assert run["Arguments"] == {"--x": "1"} and run["PredecessorRuns"] == []
    retry = glue.start_job_run(JobName=name, JobRunId=run_id)["JobRunId"]
    again = glue.get_job_run(JobName=name, RunId=retry)["JobRun"]
    assert again["PreviousRunId"] == run_id and again["Attempt"] == 1 and again["Arguments"] == {"--x": "1"}


def test_a_server_runs_local_scripts_only_when_told(tmp_path: Any) -> None:
    from tests.helpers import ServerProcess

    server = ServerProcess(tmp_path, local_scripts=False).start()
    try:
        glue = server.client()
        for command, arguments in (({"Name": "pythonshell", "ScriptLocation": "/etc/passwd"}, {}),
                                   ({"Name": "pythonshell", "ScriptLocation": "file:///tmp/x.py"}, {}),
                                   ({"Name": "glueetl", "ScriptLocation": SCRIPT},
                                    {"--extra-py-files": "s3://libs/a.py,/opt/evil.py"})):
            with pytest.raises(ClientError) as refused:
                glue.create_job(Name=unique("job"), Role="r", Command=command, DefaultArguments=arguments)
            code, message = error_of(refused)
            assert code == "InvalidInputException" and "--allow-local-scripts" in message
        name = unique("job")
        glue.create_job(Name=name, Role="r", Command={"Name": "pythonshell", "ScriptLocation": SCRIPT})
        with pytest.raises(ClientError) as refused:
            glue.update_job(JobName=name, JobUpdate={"Role": "r", "Command": {"Name": "pythonshell",
                                                                              "ScriptLocation": "/bin/sh"}})
        code, message = error_of(refused)
        assert code == "InvalidInputException" and "'/bin/sh' is a file of the server's machine" in message
        assert glue.get_job(JobName=name)["Job"]["Command"]["ScriptLocation"] == SCRIPT  # nothing changed
    finally:
        server.stop()


def _wait_ended(glue: Any, name: str, run_id: str) -> dict[str, Any]:
    import time

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        run = glue.get_job_run(JobName=name, RunId=run_id)["JobRun"]
        if run["JobRunState"] in ("SUCCEEDED", "FAILED", "STOPPED", "TIMEOUT", "ERROR"):
            return dict(run)
        time.sleep(0.1)
    raise AssertionError(f"run {run_id} did not end")


def test_any_command_name_is_stored_as_aws_does_and_its_runs_fail_saying_why(glue: Any) -> None:
    custom = create(glue, Command={"Name": "test_command", "ScriptLocation": SCRIPT})
    assert glue.get_job(JobName=custom)["Job"]["Command"]["Name"] == "test_command"
    ray = create(glue, Command={"Name": "glueray", "Runtime": "Ray2.4", "PythonVersion": "3.9",
                                "ScriptLocation": SCRIPT}, WorkerType="Z.2X", NumberOfWorkers=2)
    job = glue.get_job(JobName=ray)["Job"]
    assert (job["Command"]["Runtime"], job["WorkerType"], job["GlueVersion"]) == ("Ray2.4", "Z.2X", "4.0")
    run = _wait_ended(glue, custom, glue.start_job_run(JobName=custom)["JobRunId"])
    assert run["JobRunState"] == "FAILED"
    assert run["ErrorMessage"].startswith("Command.Name 'test_command' is not a job type glueball can run")
    run = _wait_ended(glue, ray, glue.start_job_run(JobName=ray)["JobRunId"])
    assert (run["JobRunState"], run["ErrorMessage"]) == (
        "FAILED", "Ray jobs (Command.Name glueray) cannot run on glueball: it runs Spark (glueetl, gluestreaming) "
                  "and Python shell (pythonshell) jobs")
