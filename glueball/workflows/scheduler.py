"""The scheduler: one thread of ``glueball server`` that fires what is due and drives workflow runs.

Every ``interval`` seconds (``GLUEBALL_SCHEDULER_INTERVAL``, default 1), and at once when a job
run or crawl of this process ends, :meth:`Scheduler.tick`:

1. fires ACTIVATED SCHEDULED triggers whose next fire time has come, and crawlers' own schedules;
2. starts the workflow runs of EVENT triggers whose BatchWindow has expired;
3. fires CONDITIONAL triggers outside workflows whose predicate holds over newly ended runs;
4. evaluates every RUNNING or STOPPING workflow run (:meth:`Engine.evaluate_run`);
5. finishes fires another process left unfinished.

**Durability.** A schedule's next fire time is a column. Firing moves it forward by
compare-and-swap in the same transaction that records the fire, so a restart neither loses a
fire (the time is still due, or the fire row is there to finish) nor doubles one (the time has
moved on), and of two servers sharing a PostgreSQL store exactly one wins each fire.

**Missed fires.** When no server ran at a schedule's due time (the server was down), the schedule
fires *once* when a server is back, provided its latest missed time is less than
``GLUEBALL_MISFIRE_GRACE_SECONDS`` (default 86400, a day) ago; older misses are skipped and logged.
Missed fires are never replayed one by one. The next fire is then the first due time after now.

**Time.** Schedules are decided on :class:`glueball.clock.SchedulerClock`, which tests replace with
a clock file (``GLUEBALL_CLOCK_FILE``) to move time without waiting.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from typing import TYPE_CHECKING

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from glueball.crawlers.models import ScheduleState
from glueball.cron import CronError, parse_cron
from glueball.errors import ConcurrentRunsExceededException, InvalidInputException
from glueball.jobs.store import to_run
from glueball.store.schema import CrawlerRow, CrawlRow, JobRow, JobRunRow, TriggerRow
from glueball.store.scoped import Scope
from glueball.workflows.models import CRAWLER_SCHEDULE_PREFIX, Spec, TriggerState, TriggerType
from glueball.workflows.orchestrator import CRAWL_STATES, Engine, add_fire, fire_actions, job_run_settled, open_run
from glueball.workflows.store import bump_trigger, find_workflow_row, to_trigger

if TYPE_CHECKING:
    from glueball.workflows.area import WorkflowNeeds

log = logging.getLogger("glueball.scheduler")

DEFAULT_INTERVAL = 1.0
DEFAULT_MISFIRE_GRACE = 86400.0
_MAX_MISSED_STEPS = 100_000


def _float_env(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, "") or default)
    except ValueError:
        return default


def due_decision(expression: str, due: float, clock_now: float, grace: float) -> tuple[bool, float | None]:
    """For a schedule due at ``due`` (<= now): whether to fire now, and its next fire time after now.

    Fires once for all missed times when the latest of them is within ``grace`` seconds of now.
    """
    cron = parse_cron(expression)
    latest = due
    following = cron.next_fire_epoch(due)
    steps = 0
    while following is not None and following <= clock_now and steps < _MAX_MISSED_STEPS:
        latest, following = following, cron.next_fire_epoch(following)
        steps += 1
    if following is not None and following <= clock_now:  # too many missed times to walk: start afresh
        following = cron.next_fire_epoch(clock_now)
    return clock_now - latest <= grace, following


class Scheduler:
    """The scheduler thread of one process."""

    def __init__(self, needs: WorkflowNeeds, interval: float | None = None) -> None:
        self.needs = needs
        self.engine = Engine(needs)
        self.interval = interval if interval is not None else _float_env("GLUEBALL_SCHEDULER_INTERVAL",
                                                                         DEFAULT_INTERVAL)
        self.grace = _float_env("GLUEBALL_MISFIRE_GRACE_SECONDS", DEFAULT_MISFIRE_GRACE)
        self._wake = threading.Event()
        self._closed = threading.Event()
        self._thread: threading.Thread | None = None
        self._tick_lock = threading.Lock()

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="glueball-scheduler", daemon=True)
            self._thread.start()

    def poke(self) -> None:
        """Tick soon (a job run or crawl ended, a run was started)."""
        self._wake.set()

    def close(self) -> None:
        self._closed.set()
        self._wake.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=10)

    def _loop(self) -> None:
        while not self._closed.is_set():
            self._wake.wait(self.interval)
            self._wake.clear()
            if self._closed.is_set():
                return
            try:
                self.tick()
            except Exception:  # the store may be briefly unreachable; the next tick retries
                log.exception("scheduler tick failed")

    def tick(self) -> None:
        """One pass over everything due (see the module's description)."""
        with self._tick_lock:
            clock_now = self.needs.clock.now()
            self.fire_schedules(clock_now)
            self.fire_crawler_schedules(clock_now)
            self.expire_event_batches(clock_now)
            self.fire_standalone_conditionals()
            self.engine.evaluate_active_runs()
            self.engine.recover_fires()

    # -- SCHEDULED triggers

    def fire_schedules(self, clock_now: float) -> list[int]:
        """Fire ACTIVATED SCHEDULED triggers that are due; the fires recorded."""
        with self.needs.store.read() as session:
            due = [(r.id, r.version) for r in session.scalars(select(TriggerRow).where(
                TriggerRow.type == TriggerType.SCHEDULED.value, TriggerRow.state == TriggerState.ACTIVATED.value,
                TriggerRow.next_fire.is_not(None), TriggerRow.next_fire <= clock_now))]
        fires: list[int] = []
        for row_id, version in due:
            fire_id = self._fire_schedule(row_id, version, clock_now)
            if fire_id is not None:
                fires.append(fire_id)
                self.engine.execute_fire(fire_id)
        return fires

    def _fire_schedule(self, row_id: int, version: int, clock_now: float) -> int | None:
        with self.needs.store.write() as session:
            row = session.get(TriggerRow, row_id)
            if row is None or row.version != version or row.next_fire is None:
                return None
            trigger = to_trigger(row)
            scope = Scope(row.account_id, row.region)
            fire, following = due_decision(row.spec["Schedule"], row.next_fire, clock_now, self.grace)
            if not bump_trigger(session, row_id, version, next_fire=following):
                return None  # another server fired it
            if not fire:
                log.warning("trigger %s missed its fire at %s (more than %.0f s ago); skipped", trigger.name,
                            row.next_fire, self.grace)
                return None
            if trigger.workflow_name:
                workflow = find_workflow_row(session, scope, trigger.workflow_name)
                if workflow is None:
                    return None
                try:
                    with session.begin_nested():
                        _, fire_id = open_run(session, scope, workflow, None, self.engine.identity, row.access_key)
                except (ConcurrentRunsExceededException, InvalidInputException) as err:
                    log.warning("scheduled trigger %s did not start workflow %s: %s", trigger.name,
                                trigger.workflow_name, err.message)
                    return None
                log.info("scheduled trigger %s started a run of workflow %s", trigger.name, trigger.workflow_name)
                return fire_id
            fire_row = add_fire(session, scope, trigger.name, fire_actions(trigger.actions, None, None), None,
                                self.engine.identity, row.access_key)
            log.info("scheduled trigger %s fired", trigger.name)
            return fire_row.id

    # -- crawlers' own schedules (CreateCrawler Schedule / UpdateCrawlerSchedule)

    def fire_crawler_schedules(self, clock_now: float) -> list[int]:
        with self.needs.store.read() as session:
            rows = [(r.id, r.next_fire) for r in session.scalars(select(CrawlerRow).where(
                CrawlerRow.schedule_state == ScheduleState.SCHEDULED.value, CrawlerRow.schedule.is_not(None)))
                if r.next_fire is None or r.next_fire <= clock_now]
        fires: list[int] = []
        for row_id, due in rows:
            fire_id = self._fire_crawler_schedule(row_id, due, clock_now)
            if fire_id is not None:
                fires.append(fire_id)
                self.engine.execute_fire(fire_id)
        return fires

    def _fire_crawler_schedule(self, row_id: int, due: float | None, clock_now: float) -> int | None:
        with self.needs.store.write() as session:
            row = session.get(CrawlerRow, row_id)
            if row is None or row.schedule is None or row.next_fire != due:
                return None
            try:
                cron = parse_cron(row.schedule)
            except CronError:
                return None
            same = CrawlerRow.next_fire.is_(None) if due is None else CrawlerRow.next_fire == due
            if due is None:  # just scheduled: the first fire is the next due time from now
                following, fire = cron.next_fire_epoch(clock_now), False
            else:
                fire, following = due_decision(row.schedule, due, clock_now, self.grace)
            moved = session.execute(update(CrawlerRow).where(CrawlerRow.id == row_id, same)
                                    .values(next_fire=following).execution_options(synchronize_session=False))
            if not moved.rowcount or not fire:  # type: ignore[attr-defined]
                return None
            access_key = session.scalars(select(CrawlRow.access_key).where(CrawlRow.crawler_id == row_id)
                                         .order_by(CrawlRow.start_time.desc())).first()
            fire_row = add_fire(session, Scope(row.account_id, row.region), CRAWLER_SCHEDULE_PREFIX + row.name,
                                [{"CrawlerName": row.name}], None, self.engine.identity, access_key)
            log.info("crawler %s: scheduled crawl due", row.name)
            return fire_row.id

    # -- EVENT triggers' batch windows

    def expire_event_batches(self, clock_now: float) -> list[str]:
        """Start the workflow runs of EVENT triggers whose batch window has passed; their run ids."""
        with self.needs.store.read() as session:
            rows = [(r.id, r.version) for r in session.scalars(select(TriggerRow).where(
                TriggerRow.type == TriggerType.EVENT.value, TriggerRow.state == TriggerState.ACTIVATED.value,
                TriggerRow.event_batch.is_not(None)))]
        started: list[str] = []
        for row_id, version in rows:
            fire_id = None
            with self.needs.store.write() as session:
                row = session.get(TriggerRow, row_id)
                if row is None or row.version != version or not row.event_batch:
                    continue
                window = int(row.spec.get("EventBatchingCondition", {}).get("BatchWindow") or 900)
                batch: Spec = dict(row.event_batch)
                if float(batch["first"]) + window > clock_now:
                    continue
                if not bump_trigger(session, row_id, version, event_batch=None):
                    continue
                workflow = find_workflow_row(session, Scope(row.account_id, row.region), row.workflow_name or "")
                if workflow is None:
                    continue
                try:
                    with session.begin_nested():
                        run_id, fire_id = open_run(
                            session, Scope(row.account_id, row.region), workflow,
                            {"aws:eventIds": json.dumps(batch["ids"])}, self.engine.identity, row.access_key,
                            {"BatchWindow": window})
                    started.append(run_id)
                except (ConcurrentRunsExceededException, InvalidInputException) as err:
                    log.warning("EVENT trigger %s: batch dropped: %s", row.name, err.message)
            if fire_id is not None:
                self.engine.execute_fire(fire_id)
        return started

    # -- CONDITIONAL triggers outside workflows

    def fire_standalone_conditionals(self) -> list[int]:
        """Fire CONDITIONAL triggers (no workflow) whose predicate holds over runs ended since they last fired.

        Each condition looks at the latest settled run of its job (or crawl of its crawler) that ended
        after the trigger's watermark; AND needs all to match, ANY one. Firing moves the watermark
        past the runs it looked at, so the same runs never fire the trigger twice.
        """
        with self.needs.store.read() as session:
            rows = [(r.id, r.version) for r in session.scalars(select(TriggerRow).where(
                TriggerRow.type == TriggerType.CONDITIONAL.value, TriggerRow.state == TriggerState.ACTIVATED.value,
                TriggerRow.workflow_name.is_(None)))]
        fires: list[int] = []
        for row_id, version in rows:
            fire_id = None
            with self.needs.store.write() as session:
                row = session.get(TriggerRow, row_id)
                if row is None or row.version != version:
                    continue
                trigger = to_trigger(row)
                watermark = row.watermark or 0.0
                matched: list[bool] = []
                latest_end = watermark
                for condition in trigger.conditions:
                    state, ended = self._latest_after(session, row.account_id, row.region, condition.job_name,
                                                      condition.crawler_name, watermark)
                    expected = condition.state if condition.job_name else condition.crawl_state
                    matched.append(state is not None and state == expected)
                    if ended is not None:
                        latest_end = max(latest_end, ended)
                holds = bool(matched) and (any(matched) if trigger.logical == "ANY" else all(matched))
                if not holds or not bump_trigger(session, row_id, version, watermark=latest_end):
                    continue
                fire = add_fire(session, Scope(row.account_id, row.region), trigger.name,
                                fire_actions(trigger.actions, None, None), None, self.engine.identity,
                                row.access_key)
                fire_id = fire.id
                log.info("conditional trigger %s fired", trigger.name)
            if fire_id is not None:
                fires.append(fire_id)
                self.engine.execute_fire(fire_id)
        return fires

    @staticmethod
    def _latest_after(session: Session, account: str, region: str, job: str | None, crawler: str | None,
                      watermark: float) -> tuple[str | None, float | None]:
        """The final state and end time of the latest run of ``job`` (or crawl of ``crawler``) ended after
        ``watermark``; (None, None) when there is none yet."""
        if job:
            found = session.execute(
                select(JobRunRow, JobRow.name).join(JobRow, JobRow.id == JobRunRow.job_id).where(
                    JobRow.account_id == account, JobRow.region == region, JobRow.name == job,
                    JobRunRow.completed_on.is_not(None), JobRunRow.completed_on > watermark)
                .order_by(JobRunRow.completed_on.desc())).first()
            if found is None:
                return None, None
            run = to_run(found[0], found[1])
            if not job_run_settled(run):
                return None, None
            return run.state.value, run.completed_on
        latest = session.execute(
            select(CrawlRow.state, func.coalesce(CrawlRow.end_time, 0.0)).join(
                CrawlerRow, CrawlerRow.id == CrawlRow.crawler_id).where(
                CrawlerRow.account_id == account, CrawlerRow.region == region, CrawlerRow.name == crawler,
                CrawlRow.end_time.is_not(None), CrawlRow.end_time > watermark)
            .order_by(CrawlRow.end_time.desc())).first()
        if latest is None:
            return None, None
        return CRAWL_STATES.get(latest[0], latest[0]), float(latest[1])

