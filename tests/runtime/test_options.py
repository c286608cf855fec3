"""getResolvedOptions and Job: pure Python, no Spark."""

from __future__ import annotations

import pytest

from glueball.runtime import options as opts
from glueball.runtime.job import Job
from glueball.runtime.options import GlueArgumentError, getResolvedOptions


def test_resolves_requested_arguments_and_ignores_the_rest() -> None:
    argv = ["script.py", "--JOB_NAME", "orders", "--day", "2026-06-08", "--extra", "x", "--JOB_RUN_ID", "jr_1"]
    args = getResolvedOptions(argv, ["JOB_NAME", "day"])
    assert args["JOB_NAME"] == "orders"
    assert args["day"] == "2026-06-08"
    assert args["JOB_RUN_ID"] == "jr_1"
    assert args["job_bookmark_option"] == "job-bookmark-disable"
    assert "extra" not in args
    assert opts._global_args["day"] == "2026-06-08"


def test_missing_required_argument_raises() -> None:
    with pytest.raises(GlueArgumentError) as excinfo:
        getResolvedOptions(["script.py", "--JOB_NAME", "j"], ["JOB_NAME", "day"])
    assert "--day" in str(excinfo.value)


@pytest.mark.parametrize("name", ["JOB_ID", "JOB_RUN_ID", "SECURITY_CONFIGURATION", "job-bookmark-option",
                                  "continuation-option", "job-bookmark-from", "encryption-type"])
def test_reserved_names_cannot_be_requested(name: str) -> None:
    with pytest.raises(RuntimeError) as excinfo:
        getResolvedOptions(["script.py"], [name])
    assert str(excinfo.value).startswith("Using reserved arguments")


def test_temp_dirs_mirror_each_other_and_are_optional() -> None:
    args = getResolvedOptions(["s.py", "--TempDir", "s3://tmp/x"], ["TempDir"])
    assert args["TempDir"] == args["RedshiftTempDir"] == "s3://tmp/x"
    args = getResolvedOptions(["s.py", "--RedshiftTempDir", "s3://tmp/y"], [])
    assert args["TempDir"] == "s3://tmp/y"
    assert getResolvedOptions(["s.py"], ["TempDir"])["TempDir"] is None


def test_bookmark_options_and_legacy_continuation() -> None:
    assert getResolvedOptions(["s.py", "--job-bookmark-option", "job-bookmark-enable"], [])[
        "job_bookmark_option"] == "job-bookmark-enable"
    legacy = getResolvedOptions(["s.py", "--continuation-option", "continuation-readonly"], [])
    assert legacy["job_bookmark_option"] == "job-bookmark-pause"
    assert "continuation_option" not in legacy
    with pytest.raises(GlueArgumentError):
        getResolvedOptions(["s.py", "--job-bookmark-option", "sometimes"], [])


def test_bookmark_range_rules() -> None:
    paused = getResolvedOptions(["s.py", "--job-bookmark-option", "job-bookmark-pause",
                                 "--job-bookmark-from", "jr_1", "--job-bookmark-to", "jr_2"], [])
    assert (paused["job_bookmark_from"], paused["job_bookmark_to"]) == ("jr_1", "jr_2")
    with pytest.raises(RuntimeError, match="Missing option or value for --job-bookmark-to"):
        getResolvedOptions(["s.py", "--job-bookmark-option", "job-bookmark-pause", "--job-bookmark-from", "a"], [])
    with pytest.raises(RuntimeError, match="Invalid option"):
        getResolvedOptions(["s.py", "--job-bookmark-from", "a", "--job-bookmark-to", "b"], [])


def test_job_init_and_commit() -> None:
    job = Job(glue_context=None)
    assert not job.isInitialized()
    with pytest.raises(RuntimeError):
        job.commit()
    job.init("orders", {"JOB_NAME": "orders", "JOB_RUN_ID": "jr_42"})
    assert job.isInitialized() and job.run_id == "jr_42"
    job.commit()
    assert job.committed
    assert Job.job_bookmark_options()[1:] == ["job-bookmark-enable", "job-bookmark-pause", "job-bookmark-disable"]
