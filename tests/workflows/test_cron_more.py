"""More AWS cron edge cases (pure Python): day-of-week numbering, ``L``, ``LW``, ``W``, ``#``, ``?`` and
wrapping ranges, beyond tests/unit/test_cron.py.

Calendar facts used: 2024-06-02 is a Sunday; 2024 is a leap year.
"""

from __future__ import annotations

import datetime as dt

import pytest

from glueball.cron import CronError, check_glue_schedule, next_fire, parse_cron
from tests.unit.test_cron import firings, utc

SUNDAY = utc(2024, 6, 2)


@pytest.mark.parametrize(("number", "name", "day"), [
    (1, "SUN", 2), (2, "MON", 3), (3, "TUE", 4), (4, "WED", 5), (5, "THU", 6), (6, "FRI", 7), (7, "SAT", 8)])
def test_day_of_week_one_to_seven_is_sunday_to_saturday(number: int, name: str, day: int) -> None:
    expected = utc(2024, 6, day, 9, 0)
    assert next_fire(f"cron(0 9 ? * {number} *)", SUNDAY) == expected
    assert next_fire(f"cron(0 9 ? * {name} *)", SUNDAY) == expected
    assert next_fire(f"cron(0 9 ? * {name.lower()} *)", SUNDAY) == expected
    assert expected.isoweekday() % 7 + 1 == number  # Python: Monday 1 ... Sunday 7


def test_day_of_week_numbers_zero_and_eight_do_not_exist() -> None:
    for bad in ("0", "8", "0-6", "8L", "8#1"):
        with pytest.raises(CronError) as excinfo:
            parse_cron(f"cron(0 9 ? * {bad} *)")
        assert "Day-of-week field" in str(excinfo.value) and "out of range 1-7" in str(excinfo.value)


def test_l_alone_in_day_of_week_is_every_saturday_and_nl_the_last_one() -> None:
    assert firings("cron(0 9 ? * L *)", SUNDAY, 4) == [utc(2024, 6, d, 9, 0) for d in (8, 15, 22, 29)]
    assert firings("cron(0 9 ? * SATL *)", SUNDAY, 3) == [utc(2024, 6, 29, 9, 0), utc(2024, 7, 27, 9, 0),
                                                         utc(2024, 8, 31, 9, 0)]
    # 2L: the last Monday of the month
    assert firings("cron(0 9 ? * 2L *)", SUNDAY, 2) == [utc(2024, 6, 24, 9, 0), utc(2024, 7, 29, 9, 0)]
    with pytest.raises(CronError, match="cannot combine L"):
        parse_cron("cron(0 9 ? * L,2 *)")


def test_lw_is_the_last_weekday_of_each_month() -> None:
    # 2024: Jan 31 Wed, Feb 29 Thu, Mar 31 Sun -> Fri 29, Apr 30 Tue, Jun 30 Sun -> Fri 28, Aug 31 Sat -> Fri 30
    got = firings("cron(0 9 LW * ? *)", utc(2024, 1, 1), 8)
    assert [moment.day for moment in got] == [31, 29, 29, 30, 31, 28, 31, 30]
    assert all(moment.isoweekday() <= 5 for moment in got)
    # February 2026 ends on a Saturday: Friday the 27th
    assert next_fire("cron(0 9 LW * ? *)", utc(2026, 2, 1)) == utc(2026, 2, 27, 9, 0)
    for bad in ("LW,1", "L-2", "1LW"):
        with pytest.raises(CronError):
            parse_cron(f"cron(0 9 {bad} * ? *)")


def test_nearest_weekday_moves_either_way_and_skips_months_without_the_day() -> None:
    # 2024-06-15 is a Saturday -> Friday 14th; 2024-09-15 a Sunday -> Monday 16th
    assert firings("cron(0 9 15W * ? *)", utc(2024, 6, 1), 4) == [
        utc(2024, 6, 14, 9, 0), utc(2024, 7, 15, 9, 0), utc(2024, 8, 15, 9, 0), utc(2024, 9, 16, 9, 0)]
    # 31W never fires in a 30-day month or February; 2024-03-31 is a Sunday -> Friday 29th
    assert firings("cron(0 9 31W * ? *)", utc(2024, 2, 1), 3) == [
        utc(2024, 3, 29, 9, 0), utc(2024, 5, 31, 9, 0), utc(2024, 7, 31, 9, 0)]
    with pytest.raises(CronError, match="Day-of-month field: 32 is out of range"):
        parse_cron("cron(0 9 32W * ? *)")


def test_a_fifth_occurrence_fires_only_in_months_that_have_one() -> None:
    # Mondays of 2024 come five times in January, April, July, September and December
    assert firings("cron(0 9 ? * MON#5 *)", utc(2024, 1, 1), 5) == [
        utc(2024, 1, 29, 9, 0), utc(2024, 4, 29, 9, 0), utc(2024, 7, 29, 9, 0), utc(2024, 9, 30, 9, 0),
        utc(2024, 12, 30, 9, 0)]
    # a fifth Thursday of February only in a leap year starting on a Thursday (2024: Feb 1 is a Thursday)
    assert next_fire("cron(0 9 ? 2 5#5 *)", utc(2024, 1, 1)) == utc(2024, 2, 29, 9, 0)
    assert next_fire("cron(0 9 ? 2 5#5 2025-2030)", utc(2024, 3, 1)) is None
    assert firings("cron(0 9 ? * 1#1 *)", SUNDAY, 2) == [utc(2024, 6, 2, 9, 0), utc(2024, 7, 7, 9, 0)]
    for bad, message in (("2#0", "must be 1-5"), ("2#6", "must be 1-5"), ("#2", "is not a value"),
                         ("2#1,3", "only one # expression"), ("2-3#1", "is not a value")):
        with pytest.raises(CronError, match=message):
            parse_cron(f"cron(0 9 ? * {bad} *)")


@pytest.mark.parametrize(("expression", "message"), [
    ("cron(0 9 ? * ? *)", "exactly one of the Day-of-month and Day-of-week fields must be '?'"),
    ("cron(0 9 * * * *)", "exactly one of the Day-of-month and Day-of-week fields must be '?'"),
    ("cron(0 9 * * 2 *)", "exactly one of the Day-of-month and Day-of-week fields must be '?'"),
    ("cron(0 9 1,? * ? *)", "'?' must stand alone in its field"),
    ("cron(0 9 ? * ?,2 *)", "'?' must stand alone in its field"),
    ("cron(? 9 1 * ? *)", "Minutes field: '?' uses a wildcard only Day-of-month or Day-of-week allows"),
    ("cron(0 ? 1 * ? *)", "Hours field"),
    ("cron(0 9 1 ? ? *)", "Month field"),
    ("cron(0 9 1 * ? ?)", "Year field"),
])
def test_question_mark_rules(expression: str, message: str) -> None:
    with pytest.raises(CronError) as excinfo:
        parse_cron(expression)
    assert message in str(excinfo.value)


def test_question_mark_in_either_day_field_leaves_the_other_in_charge() -> None:
    assert next_fire("cron(0 9 ? * * *)", SUNDAY) == utc(2024, 6, 2, 9, 0)  # every day
    assert next_fire("cron(0 9 * * ? *)", SUNDAY) == utc(2024, 6, 2, 9, 0)
    assert next_fire("cron(0 9 3 * ? *)", SUNDAY) == utc(2024, 6, 3, 9, 0)
    assert next_fire("cron(0 9 ? * 3 *)", SUNDAY) == utc(2024, 6, 4, 9, 0)


def test_ranges_wrap_around_in_cyclic_fields() -> None:
    # FRI-MON: Friday, Saturday, Sunday, Monday; numerically 6-2 is the same
    expected = [utc(2024, 6, d, 9, 0) for d in (7, 8, 9, 10, 14)]
    assert firings("cron(0 9 ? * FRI-MON *)", utc(2024, 6, 4), 5) == expected
    assert firings("cron(0 9 ? * 6-2 *)", utc(2024, 6, 4), 5) == expected
    # hours 22-2 span midnight
    assert firings("cron(0 22-2 * * ? *)", utc(2024, 6, 5, 3, 0), 5) == [
        utc(2024, 6, 5, 22, 0), utc(2024, 6, 5, 23, 0), utc(2024, 6, 6, 0, 0), utc(2024, 6, 6, 1, 0),
        utc(2024, 6, 6, 2, 0)]
    # months NOV-FEB span the new year; day-of-month 30-2 spans the month's end (February has no 30th)
    assert firings("cron(0 9 1 NOV-FEB ? *)", utc(2024, 6, 1), 5) == [
        utc(2024, 11, 1, 9, 0), utc(2024, 12, 1, 9, 0), utc(2025, 1, 1, 9, 0), utc(2025, 2, 1, 9, 0),
        utc(2025, 11, 1, 9, 0)]
    assert [m.day for m in firings("cron(0 9 30-2 * ? *)", utc(2024, 2, 1), 6)] == [1, 2, 1, 2, 30, 31]
    # a step over a wrapped range counts along the wrapped order: 50, 0, 10
    assert parse_cron("cron(50-10/10 9 * * ? *)").minutes == (0, 10, 50)
    assert parse_cron("cron(0 9 ? * SAT-MON/2 *)").day_of_week.weekdays == frozenset({7, 2})  # type: ignore
    # years do not wrap
    with pytest.raises(CronError, match="runs backwards"):
        parse_cron("cron(0 9 * * ? 2031-2030)")


def test_unknown_names_list_the_names_a_field_takes() -> None:
    with pytest.raises(CronError) as excinfo:
        parse_cron("cron(0 9 ? * MON-FUN *)")
    assert str(excinfo.value) == "Day-of-week field: 'FUN' is not a value (1-7 or SUN-SAT)"
    with pytest.raises(CronError) as excinfo:
        parse_cron("cron(0 9 1 JAN-DEX ? *)")
    assert str(excinfo.value) == "Month field: 'DEX' is not a value (1-12 or JAN-DEC)"


def test_the_five_minute_precision_counts_the_gap_across_midnight() -> None:
    # 23:58 and the next day's 00:02 are four minutes apart
    assert firings("cron(2,58 0,23 * * ? *)", utc(2024, 6, 5, 23, 30), 2) == [
        utc(2024, 6, 5, 23, 58), utc(2024, 6, 6, 0, 2)]
    with pytest.raises(CronError, match="fires every 4 minute"):
        check_glue_schedule("cron(2,58 0,23 * * ? *)")
    assert check_glue_schedule("cron(0,55 0,23 * * ? *)").min_interval_minutes() == 5
    assert check_glue_schedule("cron(0 0,23 * * ? *)").min_interval_minutes() == 60


def test_next_fire_is_strictly_after_and_ignores_seconds() -> None:
    expression = "cron(0/5 * * * ? *)"
    assert next_fire(expression, utc(2024, 6, 2, 9, 5)) == utc(2024, 6, 2, 9, 10)
    assert next_fire(expression, utc(2024, 6, 2, 9, 4, 59)) == utc(2024, 6, 2, 9, 5)
    assert next_fire(expression, dt.datetime(2024, 12, 31, 23, 59, 30)) == utc(2025, 1, 1, 0, 0)
    assert parse_cron(expression).next_fire_epoch(utc(2024, 6, 2, 9, 5, 0).timestamp()) == \
        utc(2024, 6, 2, 9, 10).timestamp()
