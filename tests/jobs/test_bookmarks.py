"""GetJobBookmark / ResetJobBookmark and glueball's own bookmark operations, through a real server on both stores."""

from __future__ import annotations

import json
from typing import Any

import pytest
import urllib3
from botocore.exceptions import ClientError

from tests.helpers import ServerProcess, error_of, unique


def create_job(glue: Any, name: str, script: str = "s3://scripts/job.py") -> None:
    """A glueetl job with bookmarks enabled by default."""
    glue.create_job(Name=name, Role="arn:aws:iam::123456789012:role/Glue",
                    Command={"Name": "glueetl", "ScriptLocation": script},
                    DefaultArguments={"--job-bookmark-option": "job-bookmark-enable"})


def internal(server: ServerProcess, operation: str, body: Any) -> tuple[int, dict[str, Any]]:
    """POST one of glueball's own operations (``X-Amz-Target: Glueball.<operation>``)."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    response = urllib3.PoolManager().request("POST", server.endpoint + "/", body=data, headers={
        "X-Amz-Target": f"Glueball.{operation}", "Content-Type": "application/x-amz-json-1.1"})
    return response.status, json.loads(response.data or b"{}")


def commit(server: ServerProcess, job: str, run_id: str, states: dict[str, Any], **extra: Any) -> dict[str, Any]:
    status, body = internal(server, "CommitJobBookmarkState",
                            {"JobName": job, "RunId": run_id, "States": states, **extra})
    assert status == 200, body
    entry: dict[str, Any] = body["JobBookmarkEntry"]
    return entry


@pytest.fixture()
def job(server: ServerProcess, glue: Any) -> str:
    name = unique("bookmarked")
    create_job(glue, name)
    return name


def test_get_job_bookmark_of_a_missing_job_or_bookmark(glue: Any, job: str) -> None:
    with pytest.raises(ClientError) as missing_job:
        glue.get_job_bookmark(JobName="no_such_job")
    assert error_of(missing_job) == ("EntityNotFoundException", "Job with name: no_such_job not found")
    with pytest.raises(ClientError) as no_bookmark:
        glue.get_job_bookmark(JobName=job)
    assert error_of(no_bookmark) == ("EntityNotFoundException", f"Continuation for job {job} not found")
    with pytest.raises(ClientError) as reset_missing:
        glue.reset_job_bookmark(JobName="no_such_job")
    assert error_of(reset_missing)[0] == "EntityNotFoundException"


def test_committed_runs_make_versions_of_the_entry(server: ServerProcess, glue: Any, job: str) -> None:
    first = commit(server, job, "jr_a", {"src": {"n": 1}})
    assert first == {"JobName": job, "Version": 1, "Run": 1, "Attempt": 0, "RunId": "jr_a",
                     "JobBookmark": json.dumps({"src": {"n": 1}})}
    # a second commit of the same run changes nothing
    assert commit(server, job, "jr_a", {"src": {"n": 99}}) == first
    second = commit(server, job, "jr_b", {"other": {"n": 2}}, Attempt=1, PreviousRunId="jr_x")
    entry = glue.get_job_bookmark(JobName=job)["JobBookmarkEntry"]
    assert entry == second
    assert (entry["Version"], entry["Run"], entry["Attempt"], entry["RunId"], entry["PreviousRunId"]) == (
        2, 2, 1, "jr_b", "jr_x")
    # contexts the run did not read keep their state
    assert json.loads(entry["JobBookmark"]) == {"src": {"n": 1}, "other": {"n": 2}}
    # the entry as a given run left it
    assert glue.get_job_bookmark(JobName=job, RunId="jr_a")["JobBookmarkEntry"] == first
    with pytest.raises(ClientError) as unknown_run:
        glue.get_job_bookmark(JobName=job, RunId="jr_never")
    assert error_of(unknown_run) == ("EntityNotFoundException",
                                     f"Continuation for job {job} and run jr_never not found")


def test_reset_empties_or_rewinds_the_bookmark(server: ServerProcess, glue: Any, job: str) -> None:
    commit(server, job, "jr_1", {"src": {"n": 1}})
    commit(server, job, "jr_2", {"src": {"n": 2}})
    rewound = glue.reset_job_bookmark(JobName=job, RunId="jr_1")["JobBookmarkEntry"]
    assert (rewound["Version"], rewound["Run"], rewound["RunId"]) == (3, 1, "jr_1")
    assert json.loads(rewound["JobBookmark"]) == {"src": {"n": 1}}
    assert glue.get_job_bookmark(JobName=job)["JobBookmarkEntry"] == rewound
    with pytest.raises(ClientError) as unknown_run:
        glue.reset_job_bookmark(JobName=job, RunId="jr_never")
    assert error_of(unknown_run)[0] == "EntityNotFoundException"
    reset = glue.reset_job_bookmark(JobName=job)["JobBookmarkEntry"]
    assert reset == {"JobName": job, "Version": 4, "Run": 0, "Attempt": 0, "JobBookmark": "{}"}
    # the state a driver starts from is empty again; earlier runs stay addressable (--job-bookmark-from/to)
    status, state = internal(server, "GetJobBookmarkState", {"JobName": job})
    assert status == 200 and state == {"JobName": job, "Version": 4, "Run": 0, "States": {}}
    status, state = internal(server, "GetJobBookmarkState", {"JobName": job, "RunId": "jr_2"})
    assert status == 200 and state["States"] == {"src": {"n": 2}} and state["RunId"] == "jr_2"
    # the next commit starts from the reset state
    after = commit(server, job, "jr_3", {"other": {"n": 3}})
    assert (after["Run"], json.loads(after["JobBookmark"])) == (1, {"other": {"n": 3}})


def test_deleting_the_job_deletes_its_bookmark(server: ServerProcess, glue: Any, job: str) -> None:
    commit(server, job, "jr_1", {"src": {"n": 1}})
    glue.delete_job(JobName=job)
    create_job(glue, job)
    with pytest.raises(ClientError) as gone:
        glue.get_job_bookmark(JobName=job)
    assert error_of(gone) == ("EntityNotFoundException", f"Continuation for job {job} not found")


def test_reset_of_a_job_without_bookmark_answers_an_empty_entry(glue: Any, job: str) -> None:
    entry = glue.reset_job_bookmark(JobName=job)["JobBookmarkEntry"]
    assert entry == {"JobName": job, "Version": 1, "Run": 0, "Attempt": 0, "JobBookmark": "{}"}


def test_internal_operations_validate_their_input(server: ServerProcess) -> None:
    status, body = internal(server, "GetJobBookmarkState", {"JobName": "never_ran"})
    assert status == 200 and body == {"JobName": "never_ran", "Version": 0, "Run": 0, "States": {}}
    cases = [
        ("GetJobBookmarkState", {}, "JobName is required"),
        ("GetJobBookmarkState", {"JobName": "j", "Extra": 1}, "does not take Extra"),
        ("GetJobBookmarkState", {"JobName": 7}, "JobName must be a string"),
        ("CommitJobBookmarkState", {"JobName": "j", "States": {}}, "RunId is required"),
        ("CommitJobBookmarkState", {"JobName": "j", "RunId": "r", "States": []}, "States must be an object"),
        ("CommitJobBookmarkState", {"JobName": "j", "RunId": "r", "States": {"c": 1}}, "must be an object"),
        ("CommitJobBookmarkState", {"JobName": "j", "RunId": "r", "States": {}, "Attempt": -1}, "Attempt"),
    ]
    for operation, request, message in cases:
        status, body = internal(server, operation, request)
        assert (status, body["__type"]) == (400, "InvalidInputException"), (request, body)
        assert message in body["message"]
    status, body = internal(server, "GetJobBookmarkState", b"[1]")
    assert (status, body["__type"]) == (400, "SerializationException")


def test_unknown_operations_under_both_prefixes(server: ServerProcess) -> None:
    status, body = internal(server, "DeleteEverything", {})
    assert (status, body["__type"]) == (400, "UnknownOperationException")
    assert body["message"] == "Unknown operation Glueball.DeleteEverything"
    # AWSGlue behaviour is unchanged: internal names are not Glue operations
    status, body = server.raw("GetJobBookmarkState", {"JobName": "j"})
    assert (status, body["__type"]) == (400, "UnknownOperationException")
    status, body = server.raw("GetJobBookmark", {})
    assert (status, body["__type"]) == (400, "ValidationException")


def test_a_commit_withdrawn_when_its_run_fails_afterwards(server: ServerProcess, glue: Any, job: str) -> None:
    from glueball.catalog.models import Scope
    from glueball.config import DEFAULT_ACCOUNT_ID
    from glueball.jobs.bookmarks import BookmarkService
    from glueball.store.engine import Store

    commit(server, job, "jr_ok", {"src": {"n": 1}})
    commit(server, job, "jr_bad", {"src": {"n": 2}})
    store = Store(server.store_url or f"sqlite:///{server.home / 'glueball.db'}", migrate=False)
    try:
        service = BookmarkService(store, Scope(DEFAULT_ACCOUNT_ID, "us-east-1"))
        assert service.discard_uncommitted(job, "jr_ok") is False  # not the latest change: kept
        assert service.discard_uncommitted(job, "jr_bad") is True
        assert service.discard_uncommitted(job, "jr_bad") is False
        assert service.discard_uncommitted(job, "jr_never") is False
    finally:
        store.dispose()
    entry = glue.get_job_bookmark(JobName=job)["JobBookmarkEntry"]
    assert (entry["Version"], entry["Run"], entry["RunId"]) == (3, 1, "jr_ok")
    assert json.loads(entry["JobBookmark"]) == {"src": {"n": 1}}
    # a withdrawn run's id stays spent: committing it again changes nothing
    assert commit(server, job, "jr_bad", {"src": {"n": 5}})["Version"] == 2
