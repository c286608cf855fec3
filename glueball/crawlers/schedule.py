"""Crawler schedules: validation of the cron expression and the schedule's state rules.

Glue keeps a crawler's schedule as ``Schedule{ScheduleExpression, State}``;
``State`` is SCHEDULED or NOT_SCHEDULED (TRANSITIONING while Glue's scheduler
switches, which glueball does atomically). Firing schedules belongs to the
workflows scheduler; :func:`next_crawl_time` is what it asks.
"""

from __future__ import annotations

import datetime as dt

from glueball.crawlers.models import Schedule, ScheduleState
from glueball.cron import CronError, check_glue_schedule
from glueball.errors import (
    InvalidInputException,
    NoScheduleException,
    SchedulerNotRunningException,
    SchedulerRunningException,
    SchedulerTransitioningException,
)


def checked_schedule(expression: str) -> str:
    """Validate a crawler ``Schedule`` and return it as stored (``cron(...)`` with single spaces).

    Raises:
        InvalidInputException: the expression is not a valid Glue cron schedule, saying why.
    """
    try:
        return check_glue_schedule(expression).text
    except CronError as exc:
        raise InvalidInputException(f"Invalid schedule expression {expression!r}: {exc}") from exc


def check_can_start(name: str, schedule: Schedule | None) -> None:
    """StartCrawlerSchedule's preconditions.

    Raises:
        NoScheduleException: the crawler has no schedule.
        SchedulerRunningException: the schedule is already SCHEDULED.
        SchedulerTransitioningException: the schedule is switching state.
    """
    if schedule is None:
        raise NoScheduleException(f"Crawler with name {name} has no schedule")
    if schedule.state is ScheduleState.SCHEDULED:
        raise SchedulerRunningException(f"Schedule of crawler {name} is already SCHEDULED")
    if schedule.state is ScheduleState.TRANSITIONING:
        raise SchedulerTransitioningException(f"Schedule of crawler {name} is TRANSITIONING")


def check_can_stop(name: str, schedule: Schedule | None) -> None:
    """StopCrawlerSchedule's preconditions.

    Raises:
        SchedulerNotRunningException: the crawler has no schedule, or it is NOT_SCHEDULED.
        SchedulerTransitioningException: the schedule is switching state.
    """
    if schedule is None or schedule.state is ScheduleState.NOT_SCHEDULED:
        raise SchedulerNotRunningException(f"Schedule of crawler {name} is not running")
    if schedule.state is ScheduleState.TRANSITIONING:
        raise SchedulerTransitioningException(f"Schedule of crawler {name} is TRANSITIONING")


def next_crawl_time(schedule: Schedule | None, after: dt.datetime) -> dt.datetime | None:
    """When a SCHEDULED crawler's schedule next fires after ``after`` (UTC); None when it never will."""
    if schedule is None or schedule.state is not ScheduleState.SCHEDULED:
        return None
    return check_glue_schedule(schedule.expression).next_fire(after)
