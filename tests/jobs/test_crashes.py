"""Job runs across crashes, with real servers and drivers: kill -9 of the server (SQLite and PostgreSQL), and of
one ``--workers`` process (PostgreSQL), at every moment of a run - before its driver starts, while it runs, after
it ended with no server watching, during adoption - leaves each run in the state its driver reached: SUCCEEDED
only with its output, FAILED saying why. A streaming run lives on across a server crash too.

Each run of the Python shell job below works in a folder of its own: it notes its pid, waits for ``go``, then
fails (``--fail``) or writes ``output``. The moment a driver ended while no server watched is known by its
keeper's record (``outcome.json`` in the run's log folder), not by sleeping.
"""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy

from tests.helpers import (
    ScopedEnviron,
    ServerProcess,
    create_postgres_database,
    drop_postgres_database,
    unique,
    wait_for,
)

ENDED = ("STOPPED", "SUCCEEDED", "FAILED", "TIMEOUT", "ERROR")
NEVER_STARTED = "the server stopped before the run's driver started"

STEP = '''
import os, pathlib, sys, time
args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
work = pathlib.Path(args["--work"])
with open(work / "starts", "a") as starts:  # one line per start of the driver: a run's driver starts once
    starts.write(f"{os.getpid()}\\n")
(work / "pid.tmp").write_text(str(os.getpid()))
os.replace(work / "pid.tmp", work / "pid")
deadline = time.time() + 300  # a test that failed leaves no driver waiting for ever
while not (work / "go").exists() and time.time() < deadline:
    time.sleep(0.05)
if args.get("--fail"):
    raise ValueError("failed as asked in " + work.name)
(work / "output").write_text("done")
print("done")
'''


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store(request: pytest.FixtureRequest) -> Iterator[str]:
    """The store the servers of a test share: "" (SQLite under the home) or a fresh PostgreSQL database."""
    url = create_postgres_database() if request.param == "postgres" else ""
    yield url
    if url:
        drop_postgres_database(url)


class Runs:
    """The runs of one job on a server that is killed and started again."""

    def __init__(self, server: ServerProcess, tmp_path: Path) -> None:
        self.server = server
        self.tmp_path = tmp_path
        self.job = unique("crash")
        script = server.home / "s3" / "scripts" / f"{self.job}.py"
        script.parent.mkdir(parents=True, exist_ok=True)
        script.write_text(STEP)
        self.glue.create_job(Name=self.job, Role="GlueRole", ExecutionProperty={"MaxConcurrentRuns": 20},
                             Command={"Name": "pythonshell", "ScriptLocation": f"s3://scripts/{self.job}.py"})

    @property
    def glue(self) -> Any:
        return self.server.client()

    def work(self, name: str) -> Path:
        return self.tmp_path / name

    def start(self, name: str, fail: bool = False) -> str:
        self.work(name).mkdir()
        arguments = {"--work": str(self.work(name)), **({"--fail": "yes"} if fail else {})}
        return str(self.glue.start_job_run(JobName=self.job, Arguments=arguments)["JobRunId"])

    def pid(self, name: str) -> int:
        path = self.work(name) / "pid"
        return int(wait_for(lambda: path.exists() and path.read_text(), 60, f"the pid of {name}"))

    def run(self, run_id: str) -> dict[str, Any]:
        return dict(self.glue.get_job_run(JobName=self.job, RunId=run_id)["JobRun"])

    def wait(self, run_id: str, states: tuple[str, ...] = ENDED, timeout: float = 60) -> dict[str, Any]:
        return dict(wait_for(lambda: (found := self.run(run_id))["JobRunState"] in states and found, timeout,
                             f"run {run_id} in {states}"))

    def folder(self, run_id: str) -> Path:
        return self.server.home / "logs" / "jobs" / self.job / run_id

    def recorded(self, run_id: str) -> dict[str, Any]:
        """Wait for the keeper's record of a run's driver (it ended): what it says."""
        record = self.folder(run_id) / "outcome.json"
        wait_for(record.exists, 60, f"the outcome record of {run_id}")
        return dict(json.loads(record.read_text()))

    def starts(self, name: str) -> int:
        path = self.work(name) / "starts"
        return len(path.read_text().splitlines()) if path.exists() else 0

    def go(self, name: str) -> None:
        (self.work(name) / "go").write_text("")

    def succeeded_with_output(self, name: str, run_id: str) -> None:
        run = self.wait(run_id)  # settled by the watcher a restarted server gives each run it takes over
        assert run["JobRunState"] == "SUCCEEDED", run
        assert (self.work(name) / "output").read_text() == "done"

    def killed(self, name: str, run_id: str, pid: int) -> None:
        run = self.wait(run_id)
        assert (run["JobRunState"], run.get("ErrorMessage")) == (
            "FAILED", f"Job run driver (pid {pid}) was killed (signal 9)"), run
        assert not (self.work(name) / "output").exists()


def runner_of(server: ServerProcess, run_id: str) -> str | None:
    """The process watching a run, as the store has it (``host:pid:boot``)."""
    url = server.store_url or f"sqlite:///{server.home / 'glueball.db'}"
    engine = sqlalchemy.create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
    try:
        with engine.connect() as db:
            value = db.execute(sqlalchemy.text("SELECT runner FROM glue_job_run WHERE run_id = :r"),
                               {"r": run_id}).scalar()
    finally:
        engine.dispose()
    return str(value) if value is not None else None


def watcher_pid(server: ServerProcess, run_id: str) -> int:
    runner = runner_of(server, run_id)
    assert runner is not None
    return int(runner.split(":")[1])


def test_kill_9_of_the_server_at_every_moment_of_a_run(store: str, tmp_path: Path) -> None:
    (tmp_path / "home").mkdir()
    server = ServerProcess(tmp_path / "home", store)
    gate = tmp_path / "gate"
    gate.write_text("")
    with ScopedEnviron({"GLUEBALL_LAUNCH_GATE": str(gate)}):  # this server holds every launch: STARTING stays
        server.start()
    try:
        runs = Runs(server, tmp_path)
        # before start: the server dies while the run is STARTING, its driver not launched; the next server
        # abandons that launch (it can never start now) and launches the run itself: it runs, once
        before = runs.start("before")
        assert runs.run(before)["JobRunState"] == "STARTING"
        server.kill()
        gate.unlink()
        server.start()
        runs.pid("before")
        runs.go("before")
        runs.succeeded_with_output("before", before)
        assert runs.starts("before") == 1

        names = ("ok", "fails", "killed_unwatched", "killed_adopted", "live")
        ids = {name: runs.start(name, fail=name == "fails") for name in names}
        pids = {name: runs.pid(name) for name in names}
        for run_id in ids.values():
            runs.wait(run_id, ("RUNNING",))
        server.kill()
        # after exit with no server: drivers end (well, badly, killed) while nobody watches
        runs.go("ok")
        runs.go("fails")
        os.kill(pids["killed_unwatched"], signal.SIGKILL)
        ok_record = runs.recorded(ids["ok"])
        assert ok_record["ExitCode"] == 0
        assert runs.recorded(ids["fails"])["ExitCode"] == 1
        assert runs.recorded(ids["killed_unwatched"])["Signal"] == signal.SIGKILL
        server.start()
        runs.succeeded_with_output("ok", ids["ok"])
        # it completed when its driver ended, not when a server came back to see it
        assert runs.run(ids["ok"])["CompletedOn"].timestamp() == pytest.approx(ok_record["EndedAt"], abs=0.01)
        failed = runs.wait(ids["fails"])
        assert (failed["JobRunState"], failed["ErrorMessage"]) == ("FAILED", "ValueError: failed as asked in fails")
        runs.killed("killed_unwatched", ids["killed_unwatched"], pids["killed_unwatched"])
        # while running: adopted, and a SIGKILL of an adopted driver is a failure, not a success
        assert runs.run(ids["killed_adopted"])["JobRunState"] == "RUNNING"
        os.kill(pids["killed_adopted"], signal.SIGKILL)
        runs.killed("killed_adopted", ids["killed_adopted"], pids["killed_adopted"])

        # during adoption: the next server is killed as soon as it has claimed the live run
        assert runs.run(ids["live"])["JobRunState"] == "RUNNING"
        claimed_by = runner_of(server, ids["live"])
        server.kill()
        server.launch()
        assert server.proc is not None
        adopter = server.proc.pid
        wait_for(lambda: runner_of(server, ids["live"]) != claimed_by, 60, "the live run claimed again")
        assert watcher_pid(server, ids["live"]) == adopter
        server.kill()
        runs.go("live")  # and it ends while nobody watches again
        assert runs.recorded(ids["live"])["ExitCode"] == 0
        server.start()
        runs.succeeded_with_output("live", ids["live"])
        every = {r["Id"]: r["JobRunState"] for r in runs.glue.get_job_runs(JobName=runs.job)["JobRuns"]}
        assert every == {before: "SUCCEEDED", ids["ok"]: "SUCCEEDED", ids["fails"]: "FAILED",
                         ids["killed_unwatched"]: "FAILED", ids["killed_adopted"]: "FAILED",
                         ids["live"]: "SUCCEEDED"}
    finally:
        server.stop()


def test_kill_9_of_the_server_between_launching_a_driver_and_recording_it(store: str, tmp_path: Path) -> None:
    """The run is STARTING, its driver runs (noted in the run's folder only): the next server adopts it, records
    it RUNNING, and settles it as its driver ended - one that ended meanwhile, one still running."""
    (tmp_path / "home").mkdir()
    server = ServerProcess(tmp_path / "home", store)
    gate = tmp_path / "launched-gate"
    gate.write_text("")
    with ScopedEnviron({"GLUEBALL_LAUNCHED_GATE": str(gate)}):  # the server holds just after each launch
        server.start()
    try:
        runs = Runs(server, tmp_path)
        ids = {name: runs.start(name) for name in ("ended", "live")}
        pids = {name: runs.pid(name) for name in ids}  # both drivers run
        assert {runs.run(run_id)["JobRunState"] for run_id in ids.values()} == {"STARTING"}
        server.kill()
        gate.unlink()
        runs.go("ended")
        assert runs.recorded(ids["ended"])["ExitCode"] == 0
        server.start()
        runs.succeeded_with_output("ended", ids["ended"])
        assert runs.wait(ids["live"], ("RUNNING",))["JobRunState"] == "RUNNING"
        assert watcher_pid(server, ids["live"]) == (server.proc.pid if server.proc else None)
        assert os.path.exists(f"/proc/{pids['live']}")
        runs.go("live")
        runs.succeeded_with_output("live", ids["live"])
    finally:
        server.stop()


def keepers_of(folder: Path) -> dict[int, str]:
    """The keepers running for a run's folder: pid -> the launch (generation) each was started for."""
    found: dict[int, str] = {}
    for proc in Path("/proc").iterdir():
        try:
            words = (proc / "cmdline").read_bytes().decode().split("\0")
        except (OSError, ValueError):
            continue
        if "glueball.supervise.keeper" in words and str(folder) in words and "--generation" in words:
            found[int(proc.name)] = words[words.index("--generation") + 1]
    return found


def test_kill_9_of_the_server_between_starting_a_keeper_and_noting_it(store: str, tmp_path: Path) -> None:
    """The server started a driver's keeper and died before noting it anywhere. The next server decides, once,
    whether that launch runs: a keeper that had claimed it is adopted (its driver runs on, watched); one that had
    not gets its launch abandoned - it ends without starting the driver - and the run is launched anew. Either
    way the driver starts exactly once."""
    (tmp_path / "home").mkdir()
    server = ServerProcess(tmp_path / "home", store)
    spawned, claim = tmp_path / "spawned-gate", tmp_path / "claim-gate"
    spawned.write_text("")
    with ScopedEnviron({"GLUEBALL_SPAWNED_GATE": str(spawned)}):  # the server holds after starting each keeper
        server.start()
    try:
        runs = Runs(server, tmp_path)
        claimed = runs.start("claimed")
        runs.pid("claimed")  # its keeper claimed the launch and started the driver
        assert runs.run(claimed)["JobRunState"] == "STARTING"
        assert not (runs.folder(claimed) / "driver.json").exists()
        server.kill()
        spawned.unlink()
        server.start()
        assert runs.wait(claimed, ("RUNNING",))["JobRunState"] == "RUNNING"  # adopted, not launched again
        runs.go("claimed")
        runs.succeeded_with_output("claimed", claimed)
        assert runs.starts("claimed") == 1
        server.stop()

        spawned.write_text("")
        claim.write_text("")
        with ScopedEnviron({"GLUEBALL_SPAWNED_GATE": str(spawned), "GLUEBALL_CLAIM_GATE": str(claim)}):
            server.start()  # its keepers wait before they claim their launch
        held = runs.start("held")
        folder = runs.folder(held)
        first = wait_for(lambda: keepers_of(folder), 60, "the keeper of the held run")
        assert list(first.values()) == ["1"] and runs.starts("held") == 0
        server.kill()
        spawned.unlink()
        server.start()  # without gates: it abandons launch 1 and launches 2, which runs
        runs.pid("held")
        assert json.loads((folder / "launch.1.json").read_text())["Abandoned"] is True
        claim.unlink()  # the first keeper goes on: it finds its launch abandoned and ends, starting nothing
        wait_for(lambda: not set(first) & set(keepers_of(folder)), 60, "the abandoned keeper gone")
        runs.go("held")
        runs.succeeded_with_output("held", held)
        assert runs.starts("held") == 1
        assert "abandoned this launch" in (folder / "error.log").read_text()
    finally:
        server.stop()


def test_runs_of_every_kind_whose_driver_never_started_fail_saying_so(tmp_path: Path) -> None:
    """A data quality run, a column statistics task run and a session accepted by a server killed before it
    launched their drivers: the next server fails each, saying so (job runs and blueprint runs: above and in
    their own modules)."""
    from tests.helpers import table_input

    (tmp_path / "home").mkdir()
    server = ServerProcess(tmp_path / "home")
    gate = tmp_path / "gate"
    gate.write_text("")
    with ScopedEnviron({"GLUEBALL_LAUNCH_GATE": str(gate)}):
        server.start()
    try:
        glue = server.client()
        glue.create_database(DatabaseInput={"Name": "held"})
        glue.create_table(DatabaseName="held", TableInput=table_input("orders"))
        glue.create_data_quality_ruleset(Name="held-rules", Ruleset="Rules = [ RowCount > 0 ]")
        quality = glue.start_data_quality_ruleset_evaluation_run(
            DataSource={"GlueTable": {"DatabaseName": "held", "TableName": "orders"}}, Role="r",
            RulesetNames=["held-rules"])["RunId"]
        statistics = glue.start_column_statistics_task_run(DatabaseName="held", TableName="orders",
                                                           Role="r")["ColumnStatisticsTaskRunId"]
        glue.create_session(Id="held", Role="arn:aws:iam::123456789012:role/GlueRole",
                            Command={"Name": "glueetl", "PythonVersion": "3"})
        server.kill()
        gate.unlink()
        server.start()
        glue = server.client()
        run = glue.get_data_quality_ruleset_evaluation_run(RunId=quality)
        assert (run["Status"], run["ErrorString"]) == ("FAILED", NEVER_STARTED)
        task = glue.get_column_statistics_task_run(ColumnStatisticsTaskRunId=statistics)["ColumnStatisticsTaskRun"]
        assert (task["Status"], task["ErrorMessage"]) == ("FAILED", NEVER_STARTED)
        session = glue.get_session(Id="held")["Session"]
        assert (session["Status"], session["ErrorMessage"]) == ("FAILED", NEVER_STARTED)
    finally:
        server.stop()


@pytest.mark.postgres
def test_kill_9_of_one_worker_process(tmp_path: Path) -> None:
    url = create_postgres_database()
    (tmp_path / "home").mkdir()
    server = ServerProcess(tmp_path / "home", url, extra_args=("--workers", "2"))
    try:
        server.start()
        runs = Runs(server, tmp_path)
        ids = {name: runs.start(name) for name in ("adopted", "killed")}
        pids = {name: runs.pid(name) for name in ids}
        for run_id in ids.values():
            runs.wait(run_id, ("RUNNING",))
        watchers = {name: runner_of(server, run_id) for name, run_id in ids.items()}
        assert server.proc is not None and all(w and int(w.split(":")[1]) != server.proc.pid
                                               for w in watchers.values())
        for worker in {int(str(w).split(":")[1]) for w in watchers.values()}:
            os.kill(worker, signal.SIGKILL)  # the server lives on and starts a worker in its place
        os.kill(pids["killed"], signal.SIGKILL)
        for name, run_id in ids.items():  # the replacement reconciles: takes each run over
            wait_for(lambda r=run_id, n=name: runner_of(server, r) != watchers[n], 90,  # type: ignore[misc]
                     f"the {name} run taken over by another worker")
        runs.killed("killed", ids["killed"], pids["killed"])
        assert runs.run(ids["adopted"])["JobRunState"] == "RUNNING"
        runs.go("adopted")
        runs.succeeded_with_output("adopted", ids["adopted"])
    finally:
        server.stop()
        drop_postgres_database(url)


def test_a_workflow_counts_what_its_job_did_while_no_server_watched(tmp_path: Path) -> None:
    """The first job of a workflow ends while its server is dead: the restarted server settles it SUCCEEDED from
    its record, the conditional trigger fires the second job, and the workflow run completes with no failure."""
    from tests.workflows.helpers import statistics, wait_workflow_run

    (tmp_path / "home").mkdir()
    server = ServerProcess(tmp_path / "home").start()
    try:
        first = Runs(server, tmp_path)
        second = Runs(server, tmp_path)
        for name in ("first", "second"):
            first.work(name).mkdir()
        glue = server.client()
        workflow = unique("wf")
        glue.create_workflow(Name=workflow)
        glue.create_trigger(Name=unique("start"), WorkflowName=workflow, Type="ON_DEMAND",
                            Actions=[{"JobName": first.job, "Arguments": {"--work": str(first.work("first"))}}])
        glue.create_trigger(Name=unique("then"), WorkflowName=workflow, Type="CONDITIONAL", StartOnCreation=True,
                            Predicate={"Conditions": [{"LogicalOperator": "EQUALS", "JobName": first.job,
                                                       "State": "SUCCEEDED"}]},
                            Actions=[{"JobName": second.job, "Arguments": {"--work": str(second.work("second"))}}])
        run_id = glue.start_workflow_run(Name=workflow)["RunId"]
        first.pid("first")
        server.kill()
        first.go("first")
        record = wait_for(lambda: next(iter((server.home / "logs" / "jobs" / first.job).glob("*/outcome.json")),
                                       None), 60, "the first job's outcome record")
        assert json.loads(record.read_text())["ExitCode"] == 0
        server.start()
        second.pid("second")
        second.go("second")
        ended = wait_workflow_run(server.client(), workflow, run_id, timeout=90)
        assert ended["Status"] == "COMPLETED"
        assert ended["Statistics"] == statistics(TotalActions=2, SucceededActions=2)
        assert (second.work("second") / "output").read_text() == "done"
    finally:
        server.stop()


def builders(cache: Path) -> set[int]:
    """The processes building a class-data-sharing archive into ``cache`` (glueball.runtime.jvmshare)."""
    found = set()
    for entry in Path("/proc").iterdir():
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"glueball.runtime.jvmshare" in command and any(part.startswith(str(cache).encode()) for part in command):
            found.add(int(entry.name))
    return found


def test_a_class_archive_build_outlives_a_short_lived_server_and_the_next_server_reuses_it(tmp_path: Path) -> None:
    cache = tmp_path / "jvm-cache"
    env = {k: v for k, v in os.environ.items() if k != "GLUEBALL_JVM_SHARE"}
    env["GLUEBALL_JVM_CACHE"] = str(cache)

    def submit_job(server: ServerProcess) -> Any:
        """A Spark job whose script prints how its driver would start Spark (it does not start it)."""
        script = server.home / "s3" / "scripts" / "submit.py"
        script.parent.mkdir(parents=True)
        script.write_text("import os\nprint('submit', os.environ.get('PYSPARK_SUBMIT_ARGS', ''))\n")
        glue = server.client()
        glue.create_job(Name="submit", Role="r", Command={"Name": "glueetl",
                                                          "ScriptLocation": "s3://scripts/submit.py"})
        return glue

    def run_submit(glue: Any) -> str:
        run_id = str(glue.start_job_run(JobName="submit")["JobRunId"])
        run = wait_for(lambda: (r := glue.get_job_run(JobName="submit", RunId=run_id)["JobRun"])[
            "JobRunState"] in ENDED and r, 120, f"run {run_id} ended")
        assert run["JobRunState"] == "SUCCEEDED", run
        return run_id

    (tmp_path / "one").mkdir()
    first = ServerProcess(tmp_path / "one").start(env)
    try:
        submit_job(first).start_job_run(JobName="submit")  # the first Spark launch with no archive starts its build
        building = wait_for(lambda: builders(cache), 60, "the archive's build under way")
    finally:
        first.kill()  # a short-lived server
    (tmp_path / "two").mkdir()
    second = ServerProcess(tmp_path / "two").start(env)
    try:
        glue = submit_job(second)
        run_submit(glue)
        assert builders(cache) <= building, "no second build while the first is under way"
        archive = wait_for(lambda: next(iter(cache.glob("spark-*.jsa")), None), 600, "the archive in place")
        wait_for(lambda: not builders(cache), 60, "the build ended")
        assert not list(cache.glob(".building-*")), "its scratch file was renamed into place"
        built = archive.stat().st_mtime
        later = run_submit(glue)
        printed = (second.home / "logs" / "jobs" / "submit" / later / "output.log").read_text()
        assert f"-XX:SharedArchiveFile={archive}" in printed, printed
        assert not builders(cache) and archive.stat().st_mtime == built, "reused, not built again"
    finally:
        second.stop()


STREAMING = '''
import sys
from awsglue.context import GlueContext
from awsglue.utils import getResolvedOptions
from pyspark.context import SparkContext

args = getResolvedOptions(sys.argv, ["JOB_NAME", "output", "checkpoint"])
spark = GlueContext(SparkContext.getOrCreate()).spark_session
rows = spark.readStream.format("rate").option("rowsPerSecond", 20).load()
query = (rows.writeStream.format("json").option("path", args["output"])
         .option("checkpointLocation", args["checkpoint"]).trigger(processingTime="1 second").start())
query.awaitTermination()
'''


@pytest.mark.spark
def test_a_streaming_run_lives_on_across_a_server_crash(tmp_path: Path) -> None:
    (tmp_path / "home").mkdir()
    server = ServerProcess(tmp_path / "home").start()
    try:
        glue = server.client()
        script = server.home / "s3" / "scripts" / "stream.py"
        script.parent.mkdir(parents=True)
        script.write_text(STREAMING)
        output = tmp_path / "out"
        glue.create_job(Name="stream", Role="GlueRole", Command={"Name": "gluestreaming",
                                                                  "ScriptLocation": "s3://scripts/stream.py"},
                        DefaultArguments={"--output": str(output), "--checkpoint": str(tmp_path / "checkpoint")})
        run_id = glue.start_job_run(JobName="stream")["JobRunId"]

        def batches() -> int:
            return len(list(output.glob("part-*.json"))) if output.exists() else 0

        wait_for(lambda: batches() >= 1, 240, "a first micro-batch written")
        server.kill()
        before = batches()
        wait_for(lambda: batches() > before, 60, "micro-batches written while no server watches")
        server.start()
        glue = server.client()
        assert glue.get_job_run(JobName="stream", RunId=run_id)["JobRun"]["JobRunState"] == "RUNNING"
        glue.batch_stop_job_run(JobName="stream", JobRunIds=[run_id])
        stopped = wait_for(lambda: (r := glue.get_job_run(JobName="stream", RunId=run_id)["JobRun"])[
            "JobRunState"] in ENDED and r, 90, "the adopted streaming run stopped")
        assert stopped["JobRunState"] == "STOPPED", stopped
    finally:
        server.stop()
