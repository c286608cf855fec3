"""Column statistics task runs through boto3 against a server (SQLite and PostgreSQL): Start, Get, GetRuns,
List and Stop, their states and every error path.

These servers run the drivers with the testing knob ``GLUEBALL_COLUMN_STATISTICS_DRIVER`` set to
:func:`fake_drive` (below): glueball's own driver entry point (outcome recording, storing through
UpdateColumnStatisticsForTable) with the Spark aggregation replaced by what the table's name asks for, so the
run machinery is tested without a JVM. The real computation on Spark is tested in
``test_column_statistics_spark.py``.
"""

from __future__ import annotations

import os
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

ENDED = ("SUCCEEDED", "FAILED", "STOPPED")
REPO = Path(__file__).resolve().parents[2]
ENV = {"GLUEBALL_COLUMN_STATISTICS_DRIVER": "tests.catalog.test_column_statistics_tasks:fake_drive",
       "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}


# ---------------------------------------------------------------- the fake driver (runs in the driver process)

def _fake_compute(info: dict[str, Any]) -> list[dict[str, Any]]:
    import datetime as dt

    table = info["TableName"]
    if table.startswith("fails"):
        raise ValueError("the table is unreadable")
    if table.startswith("waits"):
        Path("pid").write_text(str(os.getpid()))
        deadline = time.time() + 120
        while not Path("release").exists() and time.time() < deadline:
            time.sleep(0.05)
    return [{"ColumnName": name, "ColumnType": kind, "AnalyzedTime": dt.datetime.now(dt.UTC),
             "StatisticsData": {"Type": "LONG", "LongColumnStatisticsData": {
                 "MinimumValue": 1, "MaximumValue": 9, "NumberOfNulls": 0, "NumberOfDistinctValues": 9}}}
            for name, kind in info["Columns"].items() if kind == "bigint"]


def fake_drive() -> int:
    """glueball's driver with the Spark work replaced (the GLUEBALL_COLUMN_STATISTICS_DRIVER knob points here)."""
    from glueball.catalog import statistics_driver

    statistics_driver.compute = _fake_compute  # type: ignore[assignment]
    return statistics_driver.drive()


# ---------------------------------------------------------------- fixtures and helpers

@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def stats_server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    home: Path = tmp_path_factory.mktemp(f"stats-runs-{request.param}")
    store_url = create_postgres_database() if request.param == "postgres" else ""
    with ScopedEnviron(ENV):
        proc = ServerProcess(home, store_url).start()
    yield proc
    proc.stop()
    if store_url:
        drop_postgres_database(store_url)


@pytest.fixture()
def glue(stats_server: ServerProcess) -> Any:
    return stats_server.client()


@pytest.fixture()
def database(glue: Any) -> str:
    name = unique("statsdb")
    glue.create_database(DatabaseInput={"Name": name})
    return name


def table(glue: Any, database: str, behaviour: str = "ok") -> str:
    """A new table (id bigint, amount double) whose name tells the fake driver what to do."""
    name = unique(behaviour)
    glue.create_table(DatabaseName=database, TableInput=table_input(name))
    return name


def wait_run(glue: Any, run_id: str, states: tuple[str, ...] = ENDED, timeout: float = 60.0) -> Any:
    def reached() -> Any:
        run = glue.get_column_statistics_task_run(ColumnStatisticsTaskRunId=run_id)["ColumnStatisticsTaskRun"]
        return run if run["Status"] in states else None

    return wait_for(reached, timeout, f"column statistics task run {run_id} in {states}")


def run_folder(server: ServerProcess, run_id: str) -> Path:
    return server.home / "logs" / "column-statistics" / run_id


def expect_error(call: Any, code: str) -> str:
    with pytest.raises(ClientError) as excinfo:
        call()
    got, message = error_of(excinfo)
    assert got == code, message
    return message


# ---------------------------------------------------------------- tests

def test_a_run_stores_the_statistics_it_computed(glue: Any, database: str) -> None:
    name = table(glue, database)
    run_id = glue.start_column_statistics_task_run(DatabaseName=database, TableName=name, Role="GlueRole",
                                                   SampleSize=50.0)["ColumnStatisticsTaskRunId"]
    run = wait_run(glue, run_id)
    assert run["Status"] == "SUCCEEDED", run.get("ErrorMessage")
    assert run["DatabaseName"] == database and run["TableName"] == name and run["Role"] == "GlueRole"
    assert run["ColumnNameList"] == ["id", "amount"] and run["SampleSize"] == 50.0
    assert run["ComputationType"] == "FULL" and run["WorkerType"] == "G.1X" and run["NumberOfWorkers"] == 2
    assert run["StartTime"] <= run["EndTime"] and run["DPUSeconds"] >= 0
    stored = glue.get_column_statistics_for_table(DatabaseName=database, TableName=name, ColumnNames=["id"])
    assert stored["ColumnStatisticsList"][0]["StatisticsData"]["LongColumnStatisticsData"]["MaximumValue"] == 9

    runs = glue.get_column_statistics_task_runs(DatabaseName=database, TableName=name)["ColumnStatisticsTaskRuns"]
    assert [r["ColumnStatisticsTaskRunId"] for r in runs] == [run_id]
    assert run_id in glue.list_column_statistics_task_runs()["ColumnStatisticsTaskRunIds"]


def test_named_columns_only_are_computed(glue: Any, database: str) -> None:
    name = table(glue, database)
    run_id = glue.start_column_statistics_task_run(DatabaseName=database, TableName=name, Role="r",
                                                   ColumnNameList=["AMOUNT"])["ColumnStatisticsTaskRunId"]
    run = wait_run(glue, run_id)
    assert run["ColumnNameList"] == ["amount"]  # the table's spelling


def test_a_failing_driver_fails_the_run_with_its_exception(glue: Any, database: str) -> None:
    name = table(glue, database, "fails")
    run_id = glue.start_column_statistics_task_run(DatabaseName=database, TableName=name,
                                                   Role="r")["ColumnStatisticsTaskRunId"]
    run = wait_run(glue, run_id)
    assert run["Status"] == "FAILED"
    assert run["ErrorMessage"] == "ValueError: the table is unreadable"


def test_one_run_per_table_and_stop(glue: Any, database: str, stats_server: ServerProcess) -> None:
    name = table(glue, database, "waits")
    expect_error(lambda: glue.stop_column_statistics_task_run(DatabaseName=database, TableName=name),
                 "ColumnStatisticsTaskNotRunningException")
    run_id = glue.start_column_statistics_task_run(DatabaseName=database, TableName=name,
                                                   Role="r")["ColumnStatisticsTaskRunId"]
    wait_for(lambda: (run_folder(stats_server, run_id) / "pid").exists(), 60, "the driver to start")
    assert wait_run(glue, run_id, ("RUNNING",))["Status"] == "RUNNING"
    message = expect_error(lambda: glue.start_column_statistics_task_run(DatabaseName=database, TableName=name,
                                                                         Role="r"),
                           "ColumnStatisticsTaskRunningException")
    assert run_id in message
    glue.stop_column_statistics_task_run(DatabaseName=database, TableName=name)
    run = wait_run(glue, run_id)
    assert run["Status"] == "STOPPED" and "ErrorMessage" not in run
    pid = int((run_folder(stats_server, run_id) / "pid").read_text())
    wait_for(lambda: not os.path.exists(f"/proc/{pid}"), 30, "the driver to be gone")
    again = glue.start_column_statistics_task_run(DatabaseName=database, TableName=name,
                                                  Role="r")["ColumnStatisticsTaskRunId"]  # a new run may start now
    (run_folder(stats_server, again) / "release").parent.mkdir(parents=True, exist_ok=True)
    (run_folder(stats_server, again) / "release").write_text("")
    assert wait_run(glue, again)["Status"] == "SUCCEEDED"


def test_stopping_twice_is_refused(glue: Any, database: str, stats_server: ServerProcess) -> None:
    name = table(glue, database, "waits")
    run_id = glue.start_column_statistics_task_run(DatabaseName=database, TableName=name,
                                                   Role="r")["ColumnStatisticsTaskRunId"]
    wait_for(lambda: (run_folder(stats_server, run_id) / "pid").exists(), 60, "the driver to start")
    glue.stop_column_statistics_task_run(DatabaseName=database, TableName=name)
    try:
        expect_error(lambda: glue.stop_column_statistics_task_run(DatabaseName=database, TableName=name),
                     "ColumnStatisticsTaskStoppingException")
    except AssertionError:  # the run may already have STOPPED: then nothing is running
        assert wait_run(glue, run_id)["Status"] == "STOPPED"
    assert wait_run(glue, run_id)["Status"] == "STOPPED"


def test_error_paths(glue: Any, database: str) -> None:
    name = table(glue, database)
    expect_error(lambda: glue.start_column_statistics_task_run(DatabaseName=database, TableName="nope", Role="r"),
                 "EntityNotFoundException")
    expect_error(lambda: glue.start_column_statistics_task_run(DatabaseName=unique("nodb"), TableName=name,
                                                               Role="r"), "EntityNotFoundException")
    message = expect_error(lambda: glue.start_column_statistics_task_run(
        DatabaseName=database, TableName=name, Role="r", ColumnNameList=["id", "ghost"]), "InvalidInputException")
    assert "ghost" in message
    message = expect_error(lambda: glue.start_column_statistics_task_run(
        DatabaseName=database, TableName=name, Role="r", SecurityConfiguration="no-such-config"),
        "EntityNotFoundException")
    assert "no-such-config" in message
    glue.create_table(DatabaseName=database, TableInput=table_input(
        "nested", StorageDescriptor={"Columns": [{"Name": "tags", "Type": "array<string>"}], "Location": "s3://b/n/"}))
    message = expect_error(lambda: glue.start_column_statistics_task_run(
        DatabaseName=database, TableName="nested", Role="r"), "InvalidInputException")
    assert "no column whose type has column statistics" in message
    expect_error(lambda: glue.start_column_statistics_task_run(
        DatabaseName=database, TableName="nested", Role="r", ColumnNameList=["tags"]), "InvalidInputException")
    expect_error(lambda: glue.start_column_statistics_task_run(DatabaseName=database, TableName=name, Role="r",
                                                               CatalogID="999999999999"), "AccessDeniedException")
    expect_error(lambda: glue.get_column_statistics_task_run(ColumnStatisticsTaskRunId="nope"),
                 "EntityNotFoundException")
    expect_error(lambda: glue.stop_column_statistics_task_run(DatabaseName=database, TableName="nope"),
                 "EntityNotFoundException")
    assert glue.get_column_statistics_task_runs(DatabaseName=database, TableName=name)[
        "ColumnStatisticsTaskRuns"] == []  # refused starts leave no run


# ---------------------------------------------------------------- reconciliation after a restart

def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").exists() and Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"


def test_runs_survive_a_server_crash(tmp_path: Path) -> None:
    import signal

    with ScopedEnviron(ENV):
        server = ServerProcess(tmp_path).start()
    try:
        glue = server.client()
        database = unique("statsrestart")
        glue.create_database(DatabaseInput={"Name": database})
        tables = [table(glue, database, "waits") for _ in range(2)]
        runs = [glue.start_column_statistics_task_run(DatabaseName=database, TableName=t, Role="r")[
            "ColumnStatisticsTaskRunId"] for t in tables]
        pids = [int(wait_for(lambda r=r: (run_folder(server, r) / "pid").exists()  # type: ignore[misc]
                             and (run_folder(server, r) / "pid").read_text(), 60, "a driver's pid")) for r in runs]
        for run_id in runs:
            wait_run(glue, run_id, ("RUNNING",))
        server.kill()
        os.kill(pids[1], signal.SIGKILL)  # while no server watches, the second driver dies; the first goes on
        wait_for(lambda: not _alive(pids[1]), 30, "the second driver gone")
        with ScopedEnviron(ENV):
            server.start()
        glue = server.client()
        second = wait_run(glue, runs[1])
        assert (second["Status"], second["ErrorMessage"]) == ("FAILED", f"The driver (pid {pids[1]}) was killed "
                                                                        "(signal 9)")
        assert wait_run(glue, runs[0], ("RUNNING",))["Status"] == "RUNNING"  # watched again
        (run_folder(server, runs[0]) / "release").write_text("")
        assert wait_run(glue, runs[0])["Status"] == "SUCCEEDED"
    finally:
        server.stop()
