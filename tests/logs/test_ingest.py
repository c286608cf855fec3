"""Reading runs' files into the store: chunk by chunk, each line once when two readers race while the file
grows, the last line without a newline when the run is over; the groups and streams of sessions and data
quality runs."""

from __future__ import annotations

import threading
import time
from functools import partial
from pathlib import Path

from sqlalchemy import select, update

from glueball.jobs.eventlog import timeline
from glueball.logs.events import LogEvents
from glueball.logs.ingest import Ingester
from glueball.logs.models import LogFile, RunLogs
from glueball.logs.run_sources import run_logs
from glueball.store.engine import Store
from glueball.store.log_tables import LogSourceRow
from glueball.store.schema import CrawlRow, DataQualityRunRow
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


def test_a_source_on_another_host_is_left_to_that_host(tmp_path: Path) -> None:
    """Two servers on two machines share the store: the one without the run's file neither reads it nor seals it
    when the run ends (it would lose the lines); the run's own host reads them all."""
    store = Store(f"sqlite:///{tmp_path / 'hosts.db'}")
    path = tmp_path / "driver-host" / "output.log"

    def listing(since: float) -> list[RunLogs]:
        return [RunLogs(SCOPE.account_id, SCOPE.region, (LogFile("/hosts/output", "run", path),), True,
                        host="driver-host")]

    elsewhere = Ingester(store, listing, timeline, host="server-host")
    elsewhere.sync()  # the run is over and this host has no such file
    path.parent.mkdir()
    path.write_text("first\nsecond\n")  # what the driver wrote, on its own host's disk
    elsewhere.sync()
    with store.read() as session:  # not its file: neither read nor sealed here
        [source] = session.scalars(select(LogSourceRow)).all()
        assert (source.sealed, source.position, source.host) == (False, 0, "driver-host")
    Ingester(store, listing, timeline, host="driver-host").sync()
    assert all_messages(store, "/hosts/output", "run") == ["first", "second"]
    store.dispose()


def test_a_crawls_log_is_read_on_the_host_of_the_server_that_ran_it(tmp_path: Path) -> None:
    """A crawl runs in a server process; its log is on that server's host, which alone reads it: a server of
    another host neither reads nor seals it, even once the crawl is over."""
    from glueball.crawlers.service import CrawlerService, crawler_spec

    store = Store(f"sqlite:///{tmp_path / 'crawl-hosts.db'}")
    crawlers = CrawlerService(store, SCOPE)
    crawlers.create("raw", crawler_spec({"Role": "r", "Targets": {"S3Targets": [{"Path": "s3://b/raw/"}]}}),
                    None, None)
    begun = crawlers.begin_crawl("raw", "crawl-host:4242:boot", None)
    path = tmp_path / "raw" / begun.crawl_id
    listing = partial(run_logs, store, lambda crawler, crawl: tmp_path / crawler / crawl, "m")
    assert [(run.host, run.files[0].path) for run in listing(0)] == [("crawl-host", path)]
    with store.write() as session:  # the crawl is over
        session.execute(update(CrawlRow).values(end_time=time.time(), state="SUCCEEDED"))
    Ingester(store, listing, timeline, host="server-host").sync()  # no such file on this host
    path.parent.mkdir()
    path.write_text("Crawler started\nCrawler finished\n")
    Ingester(store, listing, timeline, host="server-host").sync()
    with store.read() as session:
        [source] = session.scalars(select(LogSourceRow)).all()
        assert (source.sealed, source.position, source.host) == (False, 0, "crawl-host")
    Ingester(store, listing, timeline, host="crawl-host").sync()
    assert all_messages(store, "/aws-glue/crawlers", "raw") == ["Crawler started", "Crawler finished"]
    store.dispose()
