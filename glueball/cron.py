"""AWS cron expressions, as Glue uses them for crawler and trigger schedules.

``cron(Minutes Hours Day-of-month Month Day-of-week Year)``, evaluated in UTC:

==============  ===============  ======================
Field           Values           Wildcards
==============  ===============  ======================
Minutes         0-59             ``, - * /``
Hours           0-23             ``, - * /``
Day-of-month    1-31             ``, - * ? / L W``
Month           1-12 or JAN-DEC  ``, - * /``
Day-of-week     1-7 or SUN-SAT   ``, - * ? / L #``
Year            1970-2199        ``, - * /``
==============  ===============  ======================

Exactly one of Day-of-month and Day-of-week is ``?`` (AWS does not combine
them). ``L`` is the last day of the month (Day-of-month) or, alone in
Day-of-week, Saturday; ``5L`` is the last Thursday of the month; ``3W`` is the
weekday nearest the 3rd (never crossing into another month) and ``LW`` the
last weekday; ``2#1`` is the first Monday. Ranges of cyclic fields may wrap
(``FRI-MON``, ``22-2``). Glue additionally documents a minimum precision of 5
minutes for schedules: :func:`check_glue_schedule`.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from dataclasses import dataclass, field

__all__ = ["CronError", "CronExpression", "check_glue_schedule", "next_fire", "parse_cron"]

MIN_YEAR, MAX_YEAR = 1970, 2199
GLUE_MIN_INTERVAL_MINUTES = 5

_MONTHS = {name: number for number, name in enumerate(
    ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"], start=1)}
_WEEKDAYS = {name: number for number, name in enumerate(["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"], start=1)}
_WRAPPER = re.compile(r"\s*cron\((?P<body>.*)\)\s*", re.DOTALL | re.IGNORECASE)


class CronError(ValueError):
    """A cron expression AWS would reject; the message says which field and why."""


@dataclass(frozen=True)
class _Field:
    name: str
    low: int
    high: int
    names: dict[str, int] = field(default_factory=dict)
    cyclic: bool = True


_MINUTES = _Field("Minutes", 0, 59)
_HOURS = _Field("Hours", 0, 23)
_DAY_OF_MONTH = _Field("Day-of-month", 1, 31)
_MONTH = _Field("Month", 1, 12, _MONTHS)
_DAY_OF_WEEK = _Field("Day-of-week", 1, 7, _WEEKDAYS)
_YEAR = _Field("Year", MIN_YEAR, MAX_YEAR, cyclic=False)


def _value(spec: _Field, text: str) -> int:
    token = text.strip().upper()
    if token in spec.names:
        return spec.names[token]
    if not token.isdigit():
        ordered = sorted(spec.names, key=spec.names.__getitem__)
        allowed = f"{spec.low}-{spec.high}" + (f" or {ordered[0]}-{ordered[-1]}" if ordered else "")
        raise CronError(f"{spec.name} field: {text!r} is not a value ({allowed})")
    number = int(token)
    if not spec.low <= number <= spec.high:
        raise CronError(f"{spec.name} field: {number} is out of range {spec.low}-{spec.high}")
    return number


def _span(spec: _Field, start: int, end: int) -> list[int]:
    if start <= end:
        return list(range(start, end + 1))
    if not spec.cyclic:
        raise CronError(f"{spec.name} field: range {start}-{end} runs backwards")
    return list(range(start, spec.high + 1)) + list(range(spec.low, end + 1))


def _values(spec: _Field, text: str) -> set[int]:
    """The values of a plain field: ``*``, values, ranges, steps and lists of them."""
    if not text:
        raise CronError(f"{spec.name} field is empty")
    found: set[int] = set()
    for item in text.split(","):
        base, slash, step_text = item.partition("/")
        if slash:
            if not step_text.isdigit() or int(step_text) == 0:
                raise CronError(f"{spec.name} field: increment {step_text!r} in {item!r} is not a positive number")
            step = int(step_text)
        else:
            step = 1
        if base == "*":
            candidates = list(range(spec.low, spec.high + 1))
        elif "-" in base:
            start_text, _, end_text = base.partition("-")
            candidates = _span(spec, _value(spec, start_text), _value(spec, end_text))
        elif base:
            start = _value(spec, base)
            # "a/n" runs from a to the end of the field; a lone "a" is just a
            candidates = list(range(start, spec.high + 1)) if slash else [start]
        else:
            raise CronError(f"{spec.name} field: {item!r} is missing a value")
        found.update(candidates[::step])
    return found


@dataclass(frozen=True)
class _DayOfMonth:
    days: frozenset[int] = frozenset()
    last: bool = False
    nearest_weekday: int | None = None   # nW
    last_weekday: bool = False            # LW

    def matches(self, year: int, month: int) -> set[int]:
        length = calendar.monthrange(year, month)[1]
        chosen = {d for d in self.days if d <= length}
        if self.last:
            chosen.add(length)
        if self.last_weekday:
            chosen.add(_nearest_weekday(year, month, length))
        if self.nearest_weekday is not None and self.nearest_weekday <= length:
            chosen.add(_nearest_weekday(year, month, self.nearest_weekday))
        return chosen


@dataclass(frozen=True)
class _DayOfWeek:
    weekdays: frozenset[int] = frozenset()    # 1 = SUN ... 7 = SAT
    last_of_month: int | None = None          # nL
    nth: tuple[int, int] | None = None        # d#n

    def matches(self, year: int, month: int) -> set[int]:
        length = calendar.monthrange(year, month)[1]
        chosen = {d for d in range(1, length + 1) if _aws_weekday(year, month, d) in self.weekdays}
        if self.last_of_month is not None:
            chosen.add(max(d for d in range(length - 6, length + 1)
                           if _aws_weekday(year, month, d) == self.last_of_month))
        if self.nth is not None:
            weekday, occurrence = self.nth
            days = [d for d in range(1, length + 1) if _aws_weekday(year, month, d) == weekday]
            if occurrence <= len(days):
                chosen.add(days[occurrence - 1])
        return chosen


def _aws_weekday(year: int, month: int, day: int) -> int:
    """1 = Sunday ... 7 = Saturday, as AWS numbers days of the week."""
    return (dt.date(year, month, day).weekday() + 1) % 7 + 1


def _nearest_weekday(year: int, month: int, day: int) -> int:
    """The weekday (Mon-Fri) nearest ``day`` without leaving the month (the ``W`` rule)."""
    length = calendar.monthrange(year, month)[1]
    weekday = dt.date(year, month, day).weekday()  # 5 = Saturday, 6 = Sunday
    if weekday == 5:
        return day - 1 if day > 1 else day + 2
    if weekday == 6:
        return day + 1 if day < length else day - 2
    return day


def _day_of_month(text: str) -> _DayOfMonth:
    token = text.upper()
    if token == "L":
        return _DayOfMonth(last=True)
    if token == "LW":
        return _DayOfMonth(last_weekday=True)
    if token.endswith("W"):
        day = _value(_DAY_OF_MONTH, token[:-1])
        return _DayOfMonth(nearest_weekday=day)
    if "L" in token or "W" in token:
        raise CronError(f"Day-of-month field: {text!r} cannot combine L or W with other values")
    return _DayOfMonth(days=frozenset(_values(_DAY_OF_MONTH, token)))


def _day_of_week(text: str) -> _DayOfWeek:
    token = text.upper()
    if token == "L":
        return _DayOfWeek(weekdays=frozenset({7}))
    if "#" in token:
        if "," in token:
            raise CronError(f"Day-of-week field: {text!r} may hold only one # expression")
        day_text, _, nth_text = token.partition("#")
        if not nth_text.isdigit() or not 1 <= int(nth_text) <= 5:
            raise CronError(f"Day-of-week field: occurrence in {text!r} must be 1-5")
        return _DayOfWeek(nth=(_value(_DAY_OF_WEEK, day_text), int(nth_text)))
    if token.endswith("L"):
        return _DayOfWeek(last_of_month=_value(_DAY_OF_WEEK, token[:-1]))
    if "L" in token:
        raise CronError(f"Day-of-week field: {text!r} cannot combine L with other values")
    return _DayOfWeek(weekdays=frozenset(_values(_DAY_OF_WEEK, token)))


@dataclass(frozen=True)
class CronExpression:
    """A parsed AWS cron expression; :meth:`next_fire` gives its next firing time (UTC)."""

    text: str
    minutes: tuple[int, ...]
    hours: tuple[int, ...]
    months: tuple[int, ...]
    years: tuple[int, ...]
    day_of_month: _DayOfMonth | None
    day_of_week: _DayOfWeek | None

    def days(self, year: int, month: int) -> list[int]:
        """The days of ``month`` on which the expression fires, in order."""
        if self.day_of_month is not None:
            return sorted(self.day_of_month.matches(year, month))
        assert self.day_of_week is not None
        return sorted(self.day_of_week.matches(year, month))

    def next_fire(self, after: dt.datetime) -> dt.datetime | None:
        """The first firing time strictly after ``after`` (naive datetimes are UTC), or None if there is none."""
        if after.tzinfo is not None:
            after = after.astimezone(dt.UTC).replace(tzinfo=None)
        start = after.replace(second=0, microsecond=0) + dt.timedelta(minutes=1)
        for year in self.years:
            if year < start.year:
                continue
            for month in self.months:
                if (year, month) < (start.year, start.month):
                    continue
                for day in self.days(year, month):
                    date = (year, month, day)
                    if date < (start.year, start.month, start.day):
                        continue
                    same_day = date == (start.year, start.month, start.day)
                    for hour in self.hours:
                        if same_day and hour < start.hour:
                            continue
                        same_hour = same_day and hour == start.hour
                        for minute in self.minutes:
                            if same_hour and minute < start.minute:
                                continue
                            return dt.datetime(year, month, day, hour, minute, tzinfo=dt.UTC)
        return None

    def next_fire_epoch(self, after: float) -> float | None:
        """:meth:`next_fire` in epoch seconds: the first firing strictly after the epoch time ``after``."""
        fire = self.next_fire(dt.datetime.fromtimestamp(after, dt.UTC))
        return fire.timestamp() if fire is not None else None

    def min_interval_minutes(self) -> int:
        """The shortest gap between two firings, from the minute and hour fields alone.

        The gap from a day's last firing to the next day's first counts too (``23:58`` and ``00:02``
        are four minutes apart), whether or not the day fields fire on consecutive days.
        """
        firings = [h * 60 + m for h in self.hours for m in self.minutes]
        gaps = [b - a for a, b in zip(firings, firings[1:], strict=False)]
        gaps.append(firings[0] + 24 * 60 - firings[-1])
        return min(gaps)


def parse_cron(expression: str) -> CronExpression:
    """Parse ``cron(...)`` (or its six fields alone) the way AWS validates it.

    Raises:
        CronError: the expression is malformed, naming the field and the offending value.
    """
    match = _WRAPPER.fullmatch(expression)
    body = match.group("body") if match else expression
    fields = body.split()
    if len(fields) != 6:
        raise CronError(f"a cron expression has 6 fields (Minutes Hours Day-of-month Month Day-of-week Year), "
                        f"got {len(fields)}")
    minutes, hours, dom, month, dow, year = fields
    if (dom == "?") == (dow == "?"):
        raise CronError("exactly one of the Day-of-month and Day-of-week fields must be '?', "
                        f"got {dom!r} and {dow!r}")
    for name, text in (("Minutes", minutes), ("Hours", hours), ("Month", month), ("Year", year)):
        if "?" in text or "L" in text.upper().replace("JUL", "") or "W" in text.upper() or "#" in text:
            raise CronError(f"{name} field: {text!r} uses a wildcard only Day-of-month or Day-of-week allows")
    if "?" in dom and dom != "?" or "?" in dow and dow != "?":
        raise CronError("'?' must stand alone in its field")
    if "#" in dom:
        raise CronError(f"Day-of-month field: {dom!r} cannot use '#'")
    if "W" in dow.upper().replace("WED", ""):
        raise CronError(f"Day-of-week field: {dow!r} cannot use 'W'")
    return CronExpression(
        text=f"cron({' '.join(fields)})",
        minutes=tuple(sorted(_values(_MINUTES, minutes))),
        hours=tuple(sorted(_values(_HOURS, hours))),
        months=tuple(sorted(_values(_MONTH, month))),
        years=tuple(sorted(_values(_YEAR, year))),
        day_of_month=None if dom == "?" else _day_of_month(dom),
        day_of_week=None if dow == "?" else _day_of_week(dow),
    )


def next_fire(expression: str, after: dt.datetime) -> dt.datetime | None:
    """The first time ``expression`` fires strictly after ``after`` (UTC), or None if it never does again."""
    return parse_cron(expression).next_fire(after)


def check_glue_schedule(expression: str) -> CronExpression:
    """Validate a Glue schedule: ``cron(...)`` only, firing at most every 5 minutes.

    Glue documents that schedules are cron expressions in UTC and that "the
    minimum precision for a schedule is 5 minutes".

    Raises:
        CronError: not ``cron(...)``, malformed, or firing more often than every 5 minutes.
    """
    if _WRAPPER.fullmatch(expression) is None:
        raise CronError("a schedule must be written cron(Minutes Hours Day-of-month Month Day-of-week Year)")
    parsed = parse_cron(expression)
    if parsed.min_interval_minutes() < GLUE_MIN_INTERVAL_MINUTES:
        raise CronError(f"it fires every {parsed.min_interval_minutes()} minute(s); the minimum precision "
                        f"of a schedule is {GLUE_MIN_INTERVAL_MINUTES} minutes")
    return parsed
