"""Job bookmarks end to end: a real Glue script run by `glueball run` against a running server.

One script reads bookmarked files (csv under s3://lake/in/), three bookmarked PostgreSQL
tables (primary key; two keys compared as a tuple; a descending key) and an unbookmarked
source, and writes what it read to a JSON file; the runs advance, fail, pause, rewind and
reset the job's bookmark. File selection rules without Spark are in the unit tests below.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from glueball.runtime import bookmarks
from glueball.runtime.io.files import InputFile, list_files
from tests.helpers import ServerProcess, run_script_in_process, unique
from tests.jobs.test_bookmarks import create_job
from tools import services

SCRIPT = '''
import json, sys
from pyspark.context import SparkContext
from awsglue.context import GlueContext
from awsglue.job import Job
from awsglue.utils import getResolvedOptions

args = getResolvedOptions(sys.argv, ["JOB_NAME", "out", "orders", "events", "countdown", "fail"])
glue = GlueContext(SparkContext.getOrCreate())
job = Job(glue)
job.init(args["JOB_NAME"], args)
conn = {"url": "%(url)s", "user": "%(user)s", "password": "%(password)s"}

def rows(frame, *columns):
    df = frame.toDF()
    if not all(c in df.columns for c in columns):
        return []
    return sorted(([r[c] for c in columns] for r in df.collect()), key=lambda v: [(x is None, x or 0) for x in v])

files = glue.create_dynamic_frame.from_options(
    "s3", {"paths": ["s3://lake/in/"]}, format="csv", format_options={"withHeader": True},
    transformation_ctx="files")
orders = glue.create_dynamic_frame.from_options(
    "postgresql", dict(conn, dbtable=args["orders"]), transformation_ctx="orders")
events = glue.create_dynamic_frame.from_options(
    "postgresql", dict(conn, dbtable=args["events"], jobBookmarkKeys=["batch", "seq"]),
    transformation_ctx="events")
countdown = glue.create_dynamic_frame.from_options(
    "postgresql", dict(conn, dbtable=args["countdown"], jobBookmarkKeys=["n"], jobBookmarkKeysSortOrder="desc",
                       hashfield="n", hashpartitions="3"),
    transformation_ctx="countdown")
untracked = glue.create_dynamic_frame.from_options(
    "s3", {"paths": ["s3://lake/in/"]}, format="csv", format_options={"withHeader": True})
summary = {
    "files": [int(r[0]) for r in rows(files, "id")],
    "orders": [r[0] for r in rows(orders, "id")],
    "events": rows(events, "batch", "seq"),
    "countdown": [r[0] for r in rows(countdown, "n")],
    "untracked": untracked.count(),
}
open(args["out"], "w").write(json.dumps(summary))
if args["fail"] == "yes":
    raise RuntimeError("the run fails before job.commit()")
job.commit()
job.commit()
'''


def _sql(*statements: str) -> None:
    import psycopg

    with psycopg.connect(services.postgres().url, autocommit=True) as conn:
        for statement in statements:
            conn.execute(statement)  # type: ignore[arg-type]


class Flow:
    """The server, the job, its input folder and tables, and how to run the script."""

    def __init__(self, server: ServerProcess, tmp: Path) -> None:
        self.server = server
        self.glue = server.client()
        self.tmp = tmp
        self.job = unique("orders_job")
        self.input = server.home / "s3" / "lake" / "in"
        self.input.mkdir(parents=True)
        suffix = unique("")
        self.orders, self.events, self.countdown = f"orders{suffix}", f"events{suffix}", f"countdown{suffix}"
        self.script = tmp / "orders_transform.py"
        pg = services.postgres()
        self.script.write_text(SCRIPT % {"url": pg.jdbc_url, "user": pg.user, "password": pg.password})
        create_job(self.glue, self.job, str(self.script))

    def write(self, name: str, ids: list[int]) -> None:
        path = self.input / name
        path.write_text("id,name\n" + "".join(f"{i},n{i}\n" for i in ids))

    def run(self, run_id: str, option: str = "job-bookmark-enable", *extra: str, fail: bool = False,
            env: dict[str, str] | None = None) -> tuple[int, dict[str, Any], str]:
        """The script as the server's run ``run_id`` of the job: in this process, reporting to the server
        through GLUEBALL_ENDPOINT as a launched driver would (the launch itself is tested in tests/jobs)."""
        out = self.tmp / f"{run_id}.json"
        args = ["--JOB_NAME", self.job, "--JOB_RUN_ID", run_id, "--job-bookmark-option", option, *extra,
                "--out", str(out), "--orders", self.orders, "--events", self.events,
                "--countdown", self.countdown, "--fail", "yes" if fail else "no"]
        contract: dict[str, str | None] = {
            "GLUEBALL_ENDPOINT": self.server.endpoint, "GLUEBALL_JOB_NAME": self.job, "GLUEBALL_JOB_RUN_ID": run_id,
            "GLUEBALL_JOB_ATTEMPT": None, "GLUEBALL_PREVIOUS_RUN_ID": None, "GLUEBALL_SQL_CATALOG": "off",
            "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret", "AWS_DEFAULT_REGION": "us-east-1",
            **(env or {})}
        started = time.monotonic()
        code, _, stderr = run_script_in_process(self.server.home, self.script, *args, env=contract)
        print(f"{run_id}: {time.monotonic() - started:.1f} s")
        summary = json.loads(out.read_text()) if out.exists() else {}
        return code, summary, stderr

    def entry(self, run_id: str | None = None) -> dict[str, Any]:
        params = {"JobName": self.job, **({"RunId": run_id} if run_id else {})}
        entry: dict[str, Any] = self.glue.get_job_bookmark(**params)["JobBookmarkEntry"]
        return entry


@pytest.fixture(scope="module")
def flow(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flow]:
    home = tmp_path_factory.mktemp("bookmarks-home")
    server = ServerProcess(home).start()
    made = Flow(server, tmp_path_factory.mktemp("bookmarks-run"))
    _sql(f"CREATE TABLE {made.orders} (id serial PRIMARY KEY, item text)",
         f"CREATE TABLE {made.events} (batch int, seq int, payload text)",
         f"CREATE TABLE {made.countdown} (n int PRIMARY KEY)")
    try:
        yield made
    finally:
        server.stop()
        _sql(*(f"DROP TABLE IF EXISTS {t}" for t in (made.orders, made.events, made.countdown)))


def _ok(result: tuple[int, dict[str, Any], str]) -> dict[str, Any]:
    code, summary, stderr = result
    assert code == 0, stderr[-4000:]
    return summary


def test_bookmarked_runs_read_only_new_input(flow: Flow) -> None:
    # run 1 reads everything and commits
    flow.write("a.csv", [1, 2])
    flow.write("b.csv", [3, 4])
    _sql(f"INSERT INTO {flow.orders} (item) VALUES ('x'), ('y'), ('z')",
         f"INSERT INTO {flow.events} VALUES (1, 1, 'p'), (1, 2, 'p'), (2, 1, 'p'), (NULL, 5, 'null key')",
         f"INSERT INTO {flow.countdown} VALUES (100), (99), (98)")
    first = _ok(flow.run("jr_1"))
    assert first["files"] == [1, 2, 3, 4]
    assert first["orders"] == [1, 2, 3]
    assert first["events"] == [[1, 1], [1, 2], [2, 1], [None, 5]]
    assert first["countdown"] == [98, 99, 100]
    entry = flow.entry()
    assert (entry["JobName"], entry["Run"], entry["RunId"], entry["Attempt"]) == (flow.job, 1, "jr_1", 0)
    states = json.loads(entry["JobBookmark"])
    assert sorted(states) == ["countdown", "events", "files", "orders"]
    assert states["orders"]["values"] == ["3"] and states["countdown"]["values"] == ["98"]
    assert sorted(states["files"]["files"]) == ["s3://lake/in/a.csv", "s3://lake/in/b.csv"]
    version_1 = entry["Version"]

    # new and changed input: run 2 reads only that
    flow.write("b.csv", [3, 4, 6])  # changed: a new size (and modification time)
    flow.write("c.csv", [5])
    _sql(f"INSERT INTO {flow.orders} (item) VALUES ('u'), ('v')",
         f"INSERT INTO {flow.events} VALUES (2, 2, 'p'), (3, 1, 'p')",
         f"INSERT INTO {flow.countdown} VALUES (97), (96)")
    second = _ok(flow.run("jr_2"))
    assert second["files"] == [3, 4, 5, 6]
    assert second["orders"] == [4, 5]
    assert second["events"] == [[2, 2], [3, 1]]
    assert second["countdown"] == [96, 97]
    assert second["untracked"] == 6  # no transformation_ctx: no bookmark, every file
    entry = flow.entry()
    assert (entry["Run"], entry["RunId"], entry["Version"]) == (2, "jr_2", version_1 + 1)

    # a run that fails before job.commit() leaves the bookmark where it was
    flow.write("d.csv", [7])
    _sql(f"INSERT INTO {flow.orders} (item) VALUES ('w')", f"INSERT INTO {flow.events} VALUES (3, 2, 'p')",
         f"INSERT INTO {flow.countdown} VALUES (95)")
    code, failed, stderr = flow.run("jr_3", fail=True)
    assert code == 1 and "the run fails before job.commit()" in stderr
    assert failed["files"] == [7] and failed["orders"] == [6]
    assert flow.entry()["RunId"] == "jr_2"

    # pause with a run range: exactly what the runs after jr_1 up to jr_2 processed; nothing advances
    paused = _ok(flow.run("jr_4", "job-bookmark-pause", "--job-bookmark-from", "jr_1", "--job-bookmark-to", "jr_2"))
    assert paused["files"] == [3, 4, 5, 6]
    assert paused["orders"] == [4, 5]
    assert paused["events"] == [[2, 2], [3, 1]]
    assert paused["countdown"] == [96, 97]
    assert flow.entry()["Version"] == version_1 + 1

    # the retry of the failed run reads its input again (at-least-once) and commits
    retry = _ok(flow.run("jr_5", env={"GLUEBALL_JOB_ATTEMPT": "1", "GLUEBALL_PREVIOUS_RUN_ID": "jr_3"}))
    assert retry["files"] == [7]
    assert retry["orders"] == [6]
    assert retry["events"] == [[3, 2]]
    assert retry["countdown"] == [95]
    entry = flow.entry()
    assert (entry["Run"], entry["RunId"], entry["Attempt"], entry["PreviousRunId"]) == (3, "jr_5", 1, "jr_3")

    # pause without a range reads what is new but does not advance
    flow.write("e.csv", [8])
    _sql(f"INSERT INTO {flow.orders} (item) VALUES ('t')")
    version_5 = entry["Version"]
    paused = _ok(flow.run("jr_6", "job-bookmark-pause"))
    assert paused["files"] == [8] and paused["orders"] == [7]
    assert paused["events"] == [] and paused["countdown"] == []
    assert flow.entry()["Version"] == version_5

    # reset: the next run reads everything again
    reset = flow.glue.reset_job_bookmark(JobName=flow.job)["JobBookmarkEntry"]
    assert reset["Run"] == 0 and json.loads(reset["JobBookmark"]) == {} and reset["Version"] == version_5 + 1
    everything = _ok(flow.run("jr_7"))
    assert everything["files"] == [1, 2, 3, 4, 5, 6, 7, 8]
    assert everything["orders"] == [1, 2, 3, 4, 5, 6, 7]
    assert len(everything["events"]) == 7 and [None, 5] in everything["events"]
    assert everything["countdown"] == [95, 96, 97, 98, 99, 100]

    # rewinding to a run: the bookmark is what that run committed
    rewound = flow.glue.reset_job_bookmark(JobName=flow.job, RunId="jr_2")["JobBookmarkEntry"]
    assert (rewound["Run"], rewound["RunId"]) == (2, "jr_2")
    assert json.loads(rewound["JobBookmark"]) == json.loads(flow.entry("jr_2")["JobBookmark"])


@pytest.mark.driver
def test_a_run_started_by_the_server_commits_under_its_run_id(flow: Flow) -> None:
    """StartJobRun: the driver the server launches loads and commits the bookmark of its own run."""
    flow.glue.reset_job_bookmark(JobName=flow.job)
    flow.write("f.csv", [9])
    out = flow.tmp / "started.json"
    run_id = flow.glue.start_job_run(JobName=flow.job, Arguments={
        "--out": str(out), "--orders": flow.orders, "--events": flow.events, "--countdown": flow.countdown,
        "--fail": "no"})["JobRunId"]
    deadline = time.monotonic() + 300
    state = "STARTING"
    while time.monotonic() < deadline:
        run = flow.glue.get_job_run(JobName=flow.job, RunId=run_id)["JobRun"]
        state = run["JobRunState"]
        if state not in ("STARTING", "RUNNING", "WAITING", "STOPPING"):
            break
        time.sleep(0.5)
    assert state == "SUCCEEDED", run.get("ErrorMessage")
    on_disk = sorted(int(line.split(",")[0]) for f in flow.input.iterdir()
                     for line in f.read_text().splitlines()[1:])
    assert json.loads(out.read_text())["files"] == on_disk
    entry = flow.entry()
    assert (entry["RunId"], entry["Run"], entry["Attempt"]) == (run_id, 1, 0)
    assert sorted(json.loads(entry["JobBookmark"])["files"]["files"]) == sorted(
        f"s3://lake/in/{f.name}" for f in flow.input.iterdir())


# ---------------------------------------------------------------- file selection, without Spark

def _files(folder: Path) -> list[InputFile]:
    return list_files([str(folder)])


def _use(option: str, **extra: Any) -> bookmarks.JobBookmarks:
    active = bookmarks.JobBookmarks("job", "jr_x", option, **extra)
    bookmarks._active = active
    return active


@pytest.fixture()
def folder(tmp_path: Path) -> Iterator[Path]:
    for name in ("a.csv", "b.csv"):
        (tmp_path / name).write_text("id\n1\n")
    yield tmp_path
    bookmarks.deactivate()


def test_disabled_and_ctx_less_reads_take_every_file_and_record_nothing(folder: Path) -> None:
    listed = _files(folder)
    active = _use(bookmarks.DISABLE)
    assert bookmarks.select_files("src", listed, {}) == listed
    active = _use(bookmarks.ENABLE)
    assert bookmarks.select_files("", listed, {}) == listed
    assert active.pending == {}


def test_enabled_read_skips_processed_files_and_reads_changed_ones(folder: Path) -> None:
    listed = _files(folder)
    first = _use(bookmarks.ENABLE)
    assert bookmarks.select_files("src", listed, {}) == listed
    state = first.pending["src"]
    _use(bookmarks.ENABLE, current={"src": state})
    assert bookmarks.select_files("src", _files(folder), {}) == []
    (folder / "b.csv").write_text("id\n1\n2\n")  # same path, new size (and mtime)
    (folder / "c.csv").write_text("id\n3\n")
    again = bookmarks.select_files("src", _files(folder), {})
    assert [f.uri.rsplit("/", 1)[1] for f in again] == ["b.csv", "c.csv"]


def test_files_older_than_the_band_are_compacted_into_the_floor(folder: Path) -> None:
    old = folder / "a.csv"
    os.utime(old, (time.time() - 3600, time.time() - 3600))
    active = _use(bookmarks.ENABLE)
    bookmarks.select_files("src", _files(folder), {"maxBand": "60000"})
    state = active.pending["src"]
    assert list(state["files"]) == [f"{folder}/b.csv"]  # a.csv is older than 60 s before the newest file
    assert state["floor"] >= os.stat(old).st_mtime
    assert bookmarks.processed(_files(folder)[0], state)
    with pytest.raises(Exception, match="maxBand"):
        bookmarks.select_files("other", _files(folder), {"maxBand": "soon"})


def test_pause_records_nothing(folder: Path) -> None:
    active = _use(bookmarks.PAUSE)
    assert len(bookmarks.select_files("src", _files(folder), {})) == 2
    assert active.pending == {} and active.commit() is None


def test_embedded_runs_keep_bookmarks_in_the_home_store(glue_home: Path, folder: Path) -> None:
    """Without GLUEBALL_ENDPOINT the driver calls the bookmark service in-process (same operations)."""
    job = unique("embedded")
    first = bookmarks.load(job, "jr_e1", {"job_bookmark_option": bookmarks.ENABLE})
    assert first.current == {} and first.version == 0
    assert len(bookmarks.select_files("src", _files(folder), {})) == 2
    entry = first.commit()
    assert entry is not None and (entry["Run"], entry["RunId"], entry["Version"]) == (1, "jr_e1", 1)
    assert first.commit() == entry  # committing again is harmless

    second = bookmarks.load(job, "jr_e2", {"job_bookmark_option": bookmarks.ENABLE})
    assert second.version == 1 and sorted(second.current["src"]["files"]) == [f"{folder}/a.csv", f"{folder}/b.csv"]
    assert bookmarks.select_files("src", _files(folder), {}) == []
    (folder / "c.csv").write_text("id\n3\n")
    assert [f.uri for f in bookmarks.select_files("src", _files(folder), {})] == [f"{folder}/c.csv"]
    assert second.commit() is not None

    # pause between the two runs: the files jr_e2 processed after jr_e1
    ranged = bookmarks.load(job, "jr_e3", {"job_bookmark_option": bookmarks.PAUSE,
                                           "job_bookmark_from": "jr_e1", "job_bookmark_to": "jr_e2"})
    assert [f.uri for f in bookmarks.select_files("src", _files(folder), {})] == [f"{folder}/c.csv"]
    assert ranged.commit() is None
    with pytest.raises(bookmarks.BookmarkError, match="EntityNotFoundException"):
        bookmarks.load(job, "jr_e4", {"job_bookmark_option": bookmarks.PAUSE,
                                      "job_bookmark_from": "jr_e1", "job_bookmark_to": "jr_never"})


def test_max_files_in_band_leaves_the_newest_files_to_the_next_run(folder: Path) -> None:
    now = time.time()
    for i, name in enumerate(("a.csv", "b.csv", "c.csv")):
        (folder / name).write_text("id\n1\n")
        os.utime(folder / name, (now - 30 + i, now - 30 + i))
    first = _use(bookmarks.ENABLE)
    taken = bookmarks.select_files("src", _files(folder), {"maxFilesInBand": "2"})
    assert [f.uri.rsplit("/", 1)[1] for f in taken] == ["a.csv", "b.csv"]
    _use(bookmarks.ENABLE, current={"src": first.pending["src"]})
    assert [f.uri.rsplit("/", 1)[1] for f in bookmarks.select_files("src", _files(folder), {"maxFilesInBand": 2})] \
        == ["c.csv"]
    with pytest.raises(Exception, match="maxFilesInBand"):
        bookmarks.select_files("src", _files(folder), {"maxFilesInBand": "0"})


def test_mariadb_source_in_process_with_its_primary_key(glue_context: Any) -> None:
    """The embedded flow on MariaDB: default keys from the metadata (a composite primary key)."""
    table = unique("bm")
    maria = services.mariadb()
    url = maria.jdbc_url
    jvm = glue_context.spark_session._jvm
    conn = jvm.java.sql.DriverManager.getConnection(url, maria.user, maria.password)

    def sql(text: str) -> None:
        conn.createStatement().execute(text)

    try:
        sql(f"CREATE TABLE {table} (region varchar(8), id int, note varchar(20), PRIMARY KEY (region, id))")
        sql(f"INSERT INTO {table} VALUES ('eu', 1, 'it''s'), ('eu', 2, 'b'), ('us', 1, 'c')")
        options = {"url": url, "user": maria.user, "password": maria.password, "dbtable": table}
        job = unique("maria")

        def read(run_id: str) -> list[tuple[str, int]]:
            run = bookmarks.load(job, run_id, {"job_bookmark_option": bookmarks.ENABLE})
            frame = glue_context.create_dynamic_frame.from_options("mysql", options, transformation_ctx="m")
            rows = sorted((r["region"], r["id"]) for r in frame.toDF().collect())
            run.commit()
            return rows

        assert read("jr_m1") == [("eu", 1), ("eu", 2), ("us", 1)]
        sql(f"INSERT INTO {table} VALUES ('us', 2, 'd'), ('zz', 0, 'e'), ('a', 9, 'older key')")
        assert read("jr_m2") == [("us", 2), ("zz", 0)]
        assert read("jr_m3") == []
    finally:
        sql(f"DROP TABLE IF EXISTS {table}")
        conn.close()
        bookmarks.deactivate()
