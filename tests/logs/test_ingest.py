"""Reading runs' files into the store: chunk by chunk, each line once when two readers race while the file
grows, the last line without a newline when the run is over; the groups and streams of sessions and data
quality runs."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from glueball.jobs.eventlog import timeline
from glueball.logs.events import LogEvents
from glueball.logs.ingest import Ingester
from glueball.logs.models import LogFile, RunLogs
from glueball.logs.run_sources import run_logs
from glueball.store.engine import Store
from glueball.store.schema import DataQualityRunRow
from glueball.store.scoped import Scope
from glueball.store.session_tables import GlueSessionRow

SCOPE = Scope("123456789012", "us-east-1")


def all_messages(store: Store, group: str, stream: str) -> list[str]:
    events = LogEvents(store, SCOPE)
    found: list[str] = []
    token = None
    while True:
        page = events.get(group, stream, token=token, limit=500, from_head=True)
        found += [event.message for event in page.events]
        if page.forward == token:
            return found
        token = page.forward


def test_two_readers_racing_a_growing_file_store_each_line_once(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'race.db'}")
    path = tmp_path / "output.log"
    path.write_bytes(b"")
    ended = threading.Event()

    def listing(since: float) -> list[RunLogs]:
        return [RunLogs(SCOPE.account_id, SCOPE.region, (LogFile("/race/output", "run", path),), ended.is_set())]

    readers = [Ingester(store, listing, timeline, chunk=256) for _ in range(2)]
    expected = [f"line {i} " + "y" * (i % 97) for i in range(1500)]

    def write() -> None:
        with path.open("ab") as out:
            for index, line in enumerate(expected):
                # lines cut in two writes: a reader often sees half a line, which must wait for its newline
                half = len(line) // 2
                out.write(line[:half].encode())
                out.flush()
                out.write(line[half:].encode() + b"\n")
                if index % 50 == 0:
                    out.flush()
                    time.sleep(0.002)

    def read(reader: Ingester) -> None:
        while not ended.is_set():
            reader.sync()

    writer = threading.Thread(target=write)
    threads = [threading.Thread(target=read, args=(reader,)) for reader in readers]
    for thread in (writer, *threads):
        thread.start()
    writer.join()
    with path.open("ab") as out:
        out.write(b"last words")  # no newline: the last line once the run is over
    ended.set()
    for thread in threads:
        thread.join()
    for reader in readers:
        reader.sync()
    assert all_messages(store, "/race/output", "run") == [*expected, "last words"]
    store.dispose()


def test_a_restart_goes_on_from_the_stored_position(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'restart.db'}")
    path = tmp_path / "error.log"
    path.write_text("one\ntwo\nthr")
    running = True

    def listing(since: float) -> list[RunLogs]:
        return [RunLogs(SCOPE.account_id, SCOPE.region, (LogFile("/g", "s", path),), not running)]

    Ingester(store, listing, timeline, chunk=4).sync()
    assert all_messages(store, "/g", "s") == ["one", "two"]
    with path.open("a") as out:
        out.write("ee\n\nfour\r\n")  # an empty line is no event; CRLF ends a line like LF
    running = False
    Ingester(store, listing, timeline).sync()  # a new process: the position is the store's
    assert all_messages(store, "/g", "s") == ["one", "two", "three", "four"]
    store.dispose()


def test_sessions_and_data_quality_runs_write_to_their_groups(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'kinds.db'}")
    with store.write() as session:
        session.add(GlueSessionRow(account_id=SCOPE.account_id, region=SCOPE.region, session_id="my-session",
                                   state="READY", created_on=time.time(), last_activity=time.time(), spec={},
                                   next_statement=0, log_dir=str(tmp_path / "session")))
        for run_id, options in (("dqrun-1", {}), ("dqrun-2", {"CustomLogGroupPrefix": "/quality/team"})):
            session.add(DataQualityRunRow(account_id=SCOPE.account_id, region=SCOPE.region, run_id=run_id,
                                          kind="evaluation", status="SUCCEEDED", database_name="d", table_name="t",
                                          spec={"AdditionalRunOptions": options}, started_on=time.time(),
                                          last_modified_on=time.time(), completed_on=time.time(), execution_time=1,
                                          log_dir=str(tmp_path / run_id)))
    found = {(f.group, f.stream, f.path.name) for run in run_logs(store, lambda c, i: tmp_path / c / i, "m", 0)
             for f in run.files}
    assert found == {("/aws-glue/sessions/output", "my-session", "output.log"),
                     ("/aws-glue/sessions/error", "my-session", "error.log"),
                     ("/aws-glue/data-quality/output", "dqrun-1", "output.log"),
                     ("/aws-glue/data-quality/error", "dqrun-1", "error.log"),
                     ("/quality/team/output", "dqrun-2", "output.log"),
                     ("/quality/team/error", "dqrun-2", "error.log")}
    store.dispose()
