"""Bringing what runs write into CloudWatch Logs and metrics: each line once, in order, whatever happens.

Runs write plain files (a driver's stdout and stderr, a crawl's log, a streaming run's batch metrics, Spark's
event log). Each file is a *source* row with the byte position up to which it has been read. A pass reads
what was appended since (a megabyte at a time, up to the last complete line), and in **one transaction**
moves the position by compare-and-swap (``UPDATE ... WHERE position = :read_from``) and inserts the events:
a line is never lost (the position moves only with its event) nor doubled (a second reader's swap fails),
across threads, server processes and restarts. A line still being written waits for its newline; when the
run is over, what is left is the last line, and the source is sealed. Memory is one chunk, however big the
log. An event's timestamp is when it was read, bounded by the file's modification time (a line is never
newer than that); passes run every second in a server and before every read, so ``aws logs tail --follow``
sees a running job's lines as they come.

A run's Spark event log becomes its job metrics once the run is over (:mod:`glueball.logs.run_metrics`);
its streaming batch metrics are read like lines, while it runs.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError, OperationalError

from glueball.logs.datapoints import insert_data
from glueball.logs.events import insert_events
from glueball.logs.groups import LogGroups, purge_expired
from glueball.logs.models import RunLogs
from glueball.logs.run_metrics import SPARK_FIGURES, batch_data, spark_data
from glueball.logs.store import changed
from glueball.store.engine import Store
from glueball.store.log_tables import LogSourceRow
from glueball.store.scoped import Scope

log = logging.getLogger("glueball.logs")

LINES, BATCHES, EVENTS = "lines", "batches", "events"
CHUNK = 1 << 20
PASS_BUDGET = 8 << 20  # bytes read from one source per pass, so one busy log does not hold up the others
RECENT_SECONDS = 600  # after the first pass, runs started this recently (and every run not over) are listed
Listing = Callable[[float], list[RunLogs]]
Timeline = Callable[[Path], SPARK_FIGURES]


class Ingester:
    """Reads the runs' files into the store: :meth:`sync` on demand, :meth:`start` every ``interval`` seconds.

    Args:
        listing: the runs started since a time, and those not over (:func:`glueball.logs.run_sources.run_logs`).
        timeline: a Spark event log's figures per interval (``glueball.jobs.eventlog.timeline``).
    """

    def __init__(self, store: Store, listing: Listing, timeline: Timeline, clock: Callable[[], float] = time.time,
                 chunk: int = CHUNK) -> None:
        self.store = store
        self.listing = listing
        self.timeline = timeline
        self.clock = clock
        self.chunk = chunk
        self._since = 0.0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._last_purge = 0.0

    def sync(self, scope: Scope | None = None) -> None:
        """Read everything runs have written so far (of ``scope``'s runs, or all)."""
        with self._lock:
            try:
                active = self._discover()
                self._read(scope, active)
            except OperationalError:  # the store is busy or gone (shutting down): the next pass reads it
                log.warning("reading run logs failed; the next pass retries", exc_info=True)

    def start(self, interval: float = 1.0) -> None:
        """Sync every ``interval`` seconds in a thread, and apply retention every minute."""
        if self._thread is not None:
            return

        def loop() -> None:
            while not self._stop.wait(interval):
                self.sync()
                if self.clock() - self._last_purge >= 60:
                    self._last_purge = self.clock()
                    try:
                        purge_expired(self.store, self.clock)
                    except OperationalError:
                        log.warning("applying log retention failed; retried in a minute", exc_info=True)

        self._thread = threading.Thread(target=loop, name="glueball-logs", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None

    # -- discovery

    def _discover(self) -> set[tuple[str, str, str]]:
        """Record the sources of recent and running runs; the (path, kind, group) of the runs not over."""
        started = self.clock()
        runs = self.listing(self._since)
        self._since = started - RECENT_SECONDS
        wanted: dict[tuple[str, str, str], LogSourceRow] = {}
        active: set[tuple[str, str, str]] = set()
        for run in runs:
            for row in _sources_of(run):
                key = (row.path, row.kind, row.group_name)
                wanted[key] = row
                if not run.ended:
                    active.add(key)
        if wanted:
            with self.store.read() as session:
                known = {(str(path), str(kind), str(group)) for path, kind, group in session.execute(
                    select(LogSourceRow.path, LogSourceRow.kind, LogSourceRow.group_name).where(
                        LogSourceRow.path.in_({key[0] for key in wanted})))}
            for key, row in wanted.items():
                if key not in known:
                    try:
                        with self.store.write() as session:
                            session.add(row)
                    except IntegrityError:  # another process recorded it first
                        pass
        return active

    # -- reading

    def _read(self, scope: Scope | None, active: set[tuple[str, str, str]]) -> None:
        query = select(LogSourceRow).where(LogSourceRow.sealed.is_(False))
        if scope is not None:
            query = query.where(LogSourceRow.account_id == scope.account_id, LogSourceRow.region == scope.region)
        with self.store.read() as session:
            sources = list(session.scalars(query.order_by(LogSourceRow.id)))
        for source in sources:
            ended = (source.path, source.kind, source.group_name) not in active
            try:
                if source.kind == EVENTS:
                    if ended:
                        self._read_event_log(source)
                else:
                    self._read_lines(source, ended)
            except IntegrityError:  # a group or stream created by another process meanwhile: next pass
                log.debug("source %s raced another reader", source.path)

    def _read_event_log(self, source: LogSourceRow) -> None:
        try:
            figures = list(self.timeline(Path(source.path)))
        except Exception:  # no event log (a Python shell job), or one this host cannot read: no job metrics
            log.debug("no metrics from %s", source.path, exc_info=True)
            figures = []
        data = spark_data(source.subject, source.stream_name, figures)
        with self.store.write() as session:
            swapped = changed(session.execute(update(LogSourceRow).where(
                LogSourceRow.id == source.id, LogSourceRow.sealed.is_(False)).values(sealed=True)))
            if swapped == 1:
                insert_data(session, Scope(source.account_id, source.region), data)

    def _read_lines(self, source: LogSourceRow, ended: bool) -> None:
        path = Path(source.path)
        try:
            stat = path.stat()
        except OSError:
            if ended:
                self._seal(source.id, source.position)
            return
        position, budget = source.position, PASS_BUDGET
        stamp = int(min(self.clock(), stat.st_mtime) * 1000)
        while position < stat.st_size and budget > 0:
            with path.open("rb") as handle:
                handle.seek(position)
                data = handle.read(min(self.chunk, stat.st_size - position))
            cut = data.rfind(b"\n") + 1
            if cut == 0:
                if len(data) < self.chunk and not ended:
                    break  # a line still being written
                cut = len(data)  # a line longer than a chunk, or the last line of a run that is over
            lines = [piece.decode("utf-8", "replace").removesuffix("\r") for piece in data[:cut].split(b"\n")]
            if data[:cut].endswith(b"\n"):
                lines.pop()
            if not self._commit(source, position, position + cut, [line for line in lines if line], stamp):
                return  # another reader moved it first: the next pass goes on from where it stopped
            position += cut
            budget -= cut
        if ended and position >= stat.st_size:
            self._seal(source.id, position)

    def _commit(self, source: LogSourceRow, start: int, end: int, lines: list[str], stamp: int) -> bool:
        now = int(self.clock() * 1000)
        with self.store.write() as session:
            swapped = changed(session.execute(update(LogSourceRow).where(
                LogSourceRow.id == source.id, LogSourceRow.position == start).values(position=end)))
            if swapped != 1:
                return False
            if source.kind == BATCHES:
                insert_data(session, Scope(source.account_id, source.region),
                            [d for line in lines for d in batch_data(source.subject, source.stream_name, line)])
            elif lines:
                groups = LogGroups(self.store, Scope(source.account_id, source.region), self.clock)
                group, stream = groups.ensure_stream(session, source.group_name, source.stream_name)
                insert_events(session, group, stream, [(stamp, line) for line in lines], now)
        return True

    def _seal(self, source_id: int, position: int) -> None:
        with self.store.write() as session:
            session.execute(update(LogSourceRow).where(LogSourceRow.id == source_id, LogSourceRow.position == position)
                            .values(sealed=True))


def _sources_of(run: RunLogs) -> list[LogSourceRow]:
    def row(kind: str, path: Path, group: str = "", stream: str = "") -> LogSourceRow:
        return LogSourceRow(account_id=run.account_id, region=run.region, kind=kind, group_name=group,
                            stream_name=stream or run.run_id, path=str(path), subject=run.job_name, position=0,
                            sealed=False)

    rows = [row(LINES, file.path, file.group, file.stream) for file in run.files]
    rows += [row(EVENTS, folder) for folder in run.event_logs]
    if run.batch_metrics is not None:
        rows.append(row(BATCHES, run.batch_metrics))
    return rows
