"""Ruleset evaluation and rule recommendation runs: Glue's run operations, states, cancel, timeout and
reconciliation, through boto3 against a real server (SQLite and PostgreSQL).

These servers run their drivers with the testing knob ``GLUEBALL_DQ_DRIVER`` set to :func:`fake_drive`
(below): glueball's own driver entry point (outcome recording, ``ErrorString``) with the Spark work
replaced by what the table's name asks for, so the run machinery is tested without a JVM. The real
drivers on Spark are tested in ``test_service_spark.py``. Timeouts count seconds here
(``GLUEBALL_JOB_TIMEOUT_UNIT_SECONDS=1``).
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.helpers import (
    ScopedEnviron,
    ServerProcess,
    create_postgres_database,
    drop_postgres_database,
    error_of,
    table_input,
    unique,
    wait_for,
)

ENDED = ("STOPPED", "SUCCEEDED", "FAILED", "TIMEOUT")
REPO = Path(__file__).resolve().parents[2]
ENV = {"GLUEBALL_DQ_DRIVER": "tests.dataquality.test_service_runs:fake_drive",
       "GLUEBALL_JOB_TIMEOUT_UNIT_SECONDS": "1",
       "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
RECOMMENDED = ["RowCount > 0", 'IsComplete "id"']


# ---------------------------------------------------------------- the fake driver (runs in the driver process)

def _fake_evaluate(info: dict[str, Any]) -> list[str]:
    from glueball.dataquality.publish import publish

    table = info["Spec"]["DataSource"]["GlueTable"]["TableName"]
    if table.startswith("fails"):
        raise ValueError("the table is unreadable")
    if table.startswith("exits"):
        os._exit(3)
    if table.startswith("waits"):
        Path("pid").write_text(str(os.getpid()))
        deadline = time.time() + 120
        while not Path("release").exists() and time.time() < deadline:
            time.sleep(0.05)
    ids = []
    for number, name in enumerate(info["Spec"]["RulesetNames"], start=1):
        ids.append(publish({"RulesetName": name, "EvaluationContext": name, "RulesetEvaluationRunId": info["RunId"],
                            "DataSource": info["Spec"]["DataSource"],
                            "RuleResults": [{"Name": "Rule_1", "Description": info["Rulesets"][name][:100],
                                             "Result": "PASS" if number == 1 else "FAIL",
                                             "EvaluatedMetrics": {"Dataset.*.RowCount": 7.0}}]}))
    return ids


def _fake_recommend(info: dict[str, Any]) -> str:
    from glueball.dataquality.recommend import ruleset_text

    table = info["Spec"]["DataSource"]["GlueTable"]["TableName"]
    if table.startswith("waits"):
        Path("pid").write_text(str(os.getpid()))
        while not Path("release").exists():
            time.sleep(0.05)
    return ruleset_text(RECOMMENDED)


def fake_drive() -> int:
    """glueball's driver with the Spark work replaced (the GLUEBALL_DQ_DRIVER knob points here)."""
    from glueball.dataquality import driver as runs
    from glueball.dataquality import recommend

    runs.evaluate_run = _fake_evaluate  # type: ignore[assignment]
    recommend.recommend_run = _fake_recommend  # type: ignore[assignment]
    return runs.drive()


# ---------------------------------------------------------------- fixtures and helpers

def start_server(home: Path, store_url: str = "") -> ServerProcess:
    with ScopedEnviron(ENV):
        return ServerProcess(home, store_url).start()


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def dq_server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    home: Path = tmp_path_factory.mktemp(f"dq-runs-{request.param}")
    store_url = create_postgres_database() if request.param == "postgres" else ""
    proc = start_server(home, store_url)
    yield proc
    proc.stop()
    if store_url:
        drop_postgres_database(store_url)


@pytest.fixture()
def glue(dq_server: ServerProcess) -> Any:
    return dq_server.client()


@pytest.fixture()
def database(glue: Any) -> str:
    name = unique("dqruns")
    glue.create_database(DatabaseInput={"Name": name})
    return name


def source(glue: Any, database: str, behaviour: str = "ok") -> dict[str, Any]:
    """A DataSource of a new table whose name tells the fake driver what to do."""
    name = unique(behaviour)
    glue.create_table(DatabaseName=database, TableInput=table_input(name))
    return {"GlueTable": {"DatabaseName": database, "TableName": name}}


def ruleset(glue: Any, text: str = "Rules = [ RowCount > 0 ]") -> str:
    name = unique("rs")
    glue.create_data_quality_ruleset(Name=name, Ruleset=text)
    return name


def wait_evaluation(glue: Any, run_id: str, states: tuple[str, ...] = ENDED, timeout: float = 60.0) -> Any:
    def reached() -> Any:
        run = glue.get_data_quality_ruleset_evaluation_run(RunId=run_id)
        return run if run["Status"] in states else None

    return wait_for(reached, timeout, f"evaluation run {run_id} in {states}")


def wait_recommendation(glue: Any, run_id: str, states: tuple[str, ...] = ENDED, timeout: float = 60.0) -> Any:
    def reached() -> Any:
        run = glue.get_data_quality_rule_recommendation_run(RunId=run_id)
        return run if run["Status"] in states else None

    return wait_for(reached, timeout, f"recommendation run {run_id} in {states}")


def run_dir(server: ServerProcess, run_id: str) -> Path:
    return server.home / "logs" / "data-quality" / run_id


def client_error(call: Any, **kwargs: Any) -> tuple[str, str]:
    with pytest.raises(ClientError) as excinfo:
        call(**kwargs)
    return error_of(excinfo)


# ---------------------------------------------------------------- evaluation runs

def test_an_evaluation_run_publishes_one_result_per_ruleset(glue: Any, dq_server: ServerProcess,
                                                            database: str) -> None:
    data = source(glue, database)
    first, second = ruleset(glue), ruleset(glue, 'Rules = [ IsComplete "id" ]')
    run_id = glue.start_data_quality_ruleset_evaluation_run(
        DataSource=data, Role="arn:aws:iam::123456789012:role/dq", RulesetNames=[first, second],
        AdditionalRunOptions={"CloudWatchMetricsEnabled": False, "ResultsS3Prefix": "s3://dq-results/out/"})["RunId"]
    assert run_id.startswith("dqrun-")
    run = wait_evaluation(glue, run_id)
    assert run["Status"] == "SUCCEEDED", run
    assert run["RunId"] == run_id and run["DataSource"] == data and run["RulesetNames"] == [first, second]
    assert (run["Role"], run["NumberOfWorkers"], run["Timeout"]) == ("arn:aws:iam::123456789012:role/dq", 5, 2880)
    assert run["AdditionalRunOptions"] == {"CloudWatchMetricsEnabled": False, "ResultsS3Prefix": "s3://dq-results/out/"}
    assert run["CompletedOn"] >= run["StartedOn"] and run["ExecutionTime"] >= 0 and "ErrorString" not in run
    assert len(run["ResultIds"]) == 2
    results = glue.batch_get_data_quality_result(ResultIds=run["ResultIds"])["Results"]
    assert sorted((r["RulesetName"], r["Score"]) for r in results) == sorted([(first, 1.0), (second, 0.0)])
    assert {r["RulesetEvaluationRunId"] for r in results} == {run_id}
    # the driver got the rulesets' DQDL as they were when the run started
    info = json.loads((run_dir(dq_server, run_id) / "run.json").read_text())
    assert info["Rulesets"] == {first: "Rules = [ RowCount > 0 ]", second: 'Rules = [ IsComplete "id" ]'}
    record = json.loads((run_dir(dq_server, run_id) / "outcome.json").read_text())  # its keeper's record
    assert (record["Status"], record["Message"], record["ExitCode"], record["Signal"]) == ("SUCCEEDED", None, 0, None)

    batch = glue.batch_get_data_quality_ruleset_evaluation_run(RunIds=[run_id, "dqrun-missing"])
    assert [r["RunId"] for r in batch["Runs"]] == [run_id] and batch["RunsNotFound"] == ["dqrun-missing"]
    assert batch["Runs"][0]["ResultIds"] == run["ResultIds"]
    listed = glue.list_data_quality_ruleset_evaluation_runs(Filter={"DataSource": data})["Runs"]
    assert [(r["RunId"], r["Status"], r["DataSource"]) for r in listed] == [(run_id, "SUCCEEDED", data)]
    assert glue.list_data_quality_ruleset_evaluation_runs(
        Filter={"DataSource": data, "RulesetName": second})["Runs"][0]["RunId"] == run_id
    assert glue.list_data_quality_ruleset_evaluation_runs(
        Filter={"DataSource": data, "RulesetName": "other"})["Runs"] == []
    assert glue.list_data_quality_ruleset_evaluation_runs(
        Filter={"DataSource": data, "StartedAfter": run["StartedOn"].timestamp() + 1})["Runs"] == []


def test_start_checks_the_request(glue: Any, database: str) -> None:
    data, name = source(glue, database), ruleset(glue)
    start = glue.start_data_quality_ruleset_evaluation_run

    def refused(**changes: Any) -> tuple[str, str]:
        request: dict[str, Any] = {"DataSource": data, "Role": "r", "RulesetNames": [name], **changes}
        return client_error(start, **request)

    missing_table = {"GlueTable": {"DatabaseName": database, "TableName": "nope"}}
    assert refused(DataSource=missing_table) == ("EntityNotFoundException", "Table nope not found.")
    assert refused(RulesetNames=[name, "nope"]) == (
        "EntityNotFoundException", "Cannot find Data Quality Ruleset(s) in account 123456789012 with name nope")
    assert refused(DataSource={"DataQualityGlueTable": data["GlueTable"]})[0] == "InvalidInputException"
    assert refused(AdditionalRunOptions={"RowLevelResults": {"ResultType": "ALL"}}) == (
        "InvalidInputException", "AdditionalRunOptions RowLevelResults not supported by glueball (no CloudWatch log "
                                 "groups or result tables)")
    assert refused(AdditionalRunOptions={"ResultsS3Prefix": "/tmp/x"})[0] == "InvalidInputException"
    assert refused(NumberOfWorkers=1) == ("InvalidInputException", "NumberOfWorkers must be at least 2, got 1")
    assert refused(AdditionalDataSources={"ref": missing_table})[0] == "EntityNotFoundException"
    assert refused(DataSource={"GlueTable": {**data["GlueTable"], "AdditionalOptions": {"x": "y"}}}) == (
        "InvalidInputException", "DataSource.GlueTable.AdditionalOptions x not supported; glueball honours "
                                 "pushDownPredicate, catalogPartitionPredicate")
    assert client_error(glue.get_data_quality_ruleset_evaluation_run, RunId="dqrun-none") == (
        "EntityNotFoundException", "Cannot find ruleset evaluation run with id dqrun-none")
    assert client_error(glue.cancel_data_quality_ruleset_evaluation_run, RunId="dqrun-none")[0] == \
        "EntityNotFoundException"


def test_client_token_starts_one_run(glue: Any, database: str) -> None:
    data, name = source(glue, database), ruleset(glue)
    token = unique("token")
    first = glue.start_data_quality_ruleset_evaluation_run(DataSource=data, Role="r", RulesetNames=[name],
                                                           ClientToken=token)["RunId"]
    again = glue.start_data_quality_ruleset_evaluation_run(DataSource=data, Role="r", RulesetNames=[name],
                                                           ClientToken=token)["RunId"]
    assert again == first
    code, message = client_error(glue.start_data_quality_ruleset_evaluation_run, DataSource=data, Role="r",
                                 RulesetNames=[name], NumberOfWorkers=3, ClientToken=token)
    assert (code, message) == ("InvalidInputException", f"ClientToken {token} was used by another request "
                                                        f"(run {first})")
    assert wait_evaluation(glue, first)["Status"] == "SUCCEEDED"


def test_a_failing_driver_fails_the_run_with_its_exception(glue: Any, dq_server: ServerProcess,
                                                           database: str) -> None:
    run_id = glue.start_data_quality_ruleset_evaluation_run(DataSource=source(glue, database, "fails"), Role="r",
                                                            RulesetNames=[ruleset(glue)])["RunId"]
    run = wait_evaluation(glue, run_id)
    assert (run["Status"], run["ErrorString"]) == ("FAILED", "ValueError: the table is unreadable")
    assert "ResultIds" not in run
    assert "Traceback" in (run_dir(dq_server, run_id) / "error.log").read_text()


def test_a_driver_that_exits_without_an_outcome_fails_the_run(glue: Any, database: str) -> None:
    run_id = glue.start_data_quality_ruleset_evaluation_run(DataSource=source(glue, database, "exits"), Role="r",
                                                            RulesetNames=[ruleset(glue)])["RunId"]
    run = wait_evaluation(glue, run_id)
    assert (run["Status"], run["ErrorString"]) == ("FAILED", "Command failed with exit code 3")


def test_cancel_stops_the_driver(glue: Any, dq_server: ServerProcess, database: str) -> None:
    run_id = glue.start_data_quality_ruleset_evaluation_run(DataSource=source(glue, database, "waits"), Role="r",
                                                            RulesetNames=[ruleset(glue)])["RunId"]
    pid = int(wait_for(lambda: (run_dir(dq_server, run_id) / "pid").exists()
                       and (run_dir(dq_server, run_id) / "pid").read_text(), what="the driver's pid"))
    assert wait_evaluation(glue, run_id, ("RUNNING",))["Status"] == "RUNNING"
    glue.cancel_data_quality_ruleset_evaluation_run(RunId=run_id)
    run = wait_evaluation(glue, run_id)
    assert run["Status"] == "STOPPED" and "ErrorString" not in run and "ResultIds" not in run
    wait_for(lambda: not _alive(pid), 15, "the driver gone")
    assert client_error(glue.cancel_data_quality_ruleset_evaluation_run, RunId=run_id) == (
        "InvalidInputException", f"The ruleset evaluation run {run_id} cannot be cancelled in its current state "
                                 "STOPPED")


def test_a_run_past_its_timeout_ends_timeout(glue: Any, database: str) -> None:
    run_id = glue.start_data_quality_ruleset_evaluation_run(DataSource=source(glue, database, "waits"), Role="r",
                                                            RulesetNames=[ruleset(glue)], Timeout=2)["RunId"]
    run = wait_evaluation(glue, run_id, timeout=30)
    assert run["Status"] == "TIMEOUT" and run["Timeout"] == 2
    assert run["ErrorString"] == f"The ruleset evaluation run {run_id} exceeded its Timeout of 2 minute(s) and " \
                                 "was stopped"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().rpartition(")")[2].split()[:1] != ["Z"]


# ---------------------------------------------------------------- recommendation runs

def test_a_recommendation_run_creates_the_ruleset(glue: Any, database: str) -> None:
    data = source(glue, database)
    created = unique("recommended")
    run_id = glue.start_data_quality_rule_recommendation_run(DataSource=data, Role="r", CreatedRulesetName=created,
                                                             NumberOfWorkers=2)["RunId"]
    run = wait_recommendation(glue, run_id)
    assert run["Status"] == "SUCCEEDED", run
    assert run["RecommendedRuleset"] == 'Rules = [\n    RowCount > 0,\n    IsComplete "id"\n]\n'
    assert (run["CreatedRulesetName"], run["NumberOfWorkers"], run["DataSource"]) == (created, 2, data)
    made = glue.get_data_quality_ruleset(Name=created)
    assert made["Ruleset"] == run["RecommendedRuleset"] and made["RecommendationRunId"] == run_id
    assert made["TargetTable"] == {"DatabaseName": database, "TableName": data["GlueTable"]["TableName"]}
    listed = glue.list_data_quality_rule_recommendation_runs(Filter={"DataSource": data})["Runs"]
    assert [(r["RunId"], r["Status"], r["CreatedRulesetName"]) for r in listed] == [(run_id, "SUCCEEDED", created)]
    assert glue.list_data_quality_rule_recommendation_runs(Filter={"DataSource": data}, Tags={"k": "v"})["Runs"] == []
    assert client_error(glue.start_data_quality_rule_recommendation_run, DataSource=data, Role="r",
                        CreatedRulesetName=created) == (
        "InvalidInputException", f"Data Quality Ruleset with name {created} already exists (CreatedRulesetName)")
    # an evaluation run id is no recommendation run
    assert client_error(glue.get_data_quality_rule_recommendation_run, RunId="dqrun-none")[0] == \
        "EntityNotFoundException"


def test_recommendation_start_checks_and_cancel(glue: Any, dq_server: ServerProcess, database: str) -> None:
    data = source(glue, database, "waits")
    start = glue.start_data_quality_rule_recommendation_run
    assert client_error(start, DataSource=data, Role="r", DataQualitySecurityConfiguration="sec")[0] == \
        "InvalidInputException"
    assert client_error(start, DataSource=data, Role="r", RecommendationMode="ADVANCED") == (
        "InvalidInputException", "RecommendationMode ADVANCED is not supported by glueball; recommendations are BASIC")
    run_id = start(DataSource=data, Role="r")["RunId"]
    wait_for(lambda: (run_dir(dq_server, run_id) / "pid").exists(), what="the driver started")
    glue.cancel_data_quality_rule_recommendation_run(RunId=run_id)
    run = wait_recommendation(glue, run_id)
    assert run["Status"] == "STOPPED" and "RecommendedRuleset" not in run
    with pytest.raises(ClientError):
        glue.get_data_quality_ruleset_evaluation_run(RunId=run_id)  # runs of each kind are apart


# ---------------------------------------------------------------- reconciliation after a restart

@pytest.fixture()
def own_server(tmp_path: Path) -> Iterator[ServerProcess]:
    proc = start_server(tmp_path)
    yield proc
    proc.stop()


def test_runs_survive_a_server_crash(own_server: ServerProcess) -> None:
    glue = own_server.client()
    database = unique("dqrestart")
    glue.create_database(DatabaseInput={"Name": database})
    runs = [glue.start_data_quality_ruleset_evaluation_run(DataSource=source(glue, database, "waits"), Role="r",
                                                           RulesetNames=[ruleset(glue)])["RunId"] for _ in range(3)]
    pids = [int(wait_for(lambda r=r: (run_dir(own_server, r) / "pid").exists()  # type: ignore[misc]
                         and (run_dir(own_server, r) / "pid").read_text(), what="a driver's pid")) for r in runs]
    for run_id in runs:
        wait_evaluation(glue, run_id, ("RUNNING",))
    own_server.kill()
    # while no server watches: the first driver ends by itself, the second is killed, the third goes on
    (run_dir(own_server, runs[0]) / "release").write_text("")
    wait_for(lambda: (run_dir(own_server, runs[0]) / "outcome.json").exists(), 30, "the first driver's outcome")
    wait_for(lambda: not _alive(pids[0]), 30, "the first driver gone")
    os.kill(pids[1], signal.SIGKILL)
    wait_for(lambda: not _alive(pids[1]), 30, "the second driver gone")
    with ScopedEnviron(ENV):
        own_server.start()
    glue = own_server.client()
    # results can be published only while a server answers; the first driver published nothing
    first = wait_evaluation(glue, runs[0])
    assert first["Status"] == "FAILED" and first["ErrorString"].startswith("PublishError")
    second = wait_evaluation(glue, runs[1])
    assert (second["Status"], second["ErrorString"]) == ("FAILED", f"The driver (pid {pids[1]}) was killed (signal 9)")
    assert wait_evaluation(glue, runs[2], ("RUNNING",))["Status"] == "RUNNING"  # watched again
    (run_dir(own_server, runs[2]) / "release").write_text("")
    third = wait_evaluation(glue, runs[2])
    assert third["Status"] == "SUCCEEDED" and len(third["ResultIds"]) == 1
