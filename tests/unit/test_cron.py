"""AWS cron expressions: parsing, validation and next firing times (documented AWS examples)."""

from __future__ import annotations

import datetime as dt

import pytest

from glueball.cron import CronError, check_glue_schedule, next_fire, parse_cron


def utc(*parts: int) -> dt.datetime:
    return dt.datetime(*parts, tzinfo=dt.UTC)


def firings(expression: str, after: dt.datetime, count: int) -> list[dt.datetime]:
    parsed = parse_cron(expression)
    found: list[dt.datetime] = []
    moment: dt.datetime | None = after
    while len(found) < count and moment is not None:
        moment = parsed.next_fire(moment)
        if moment is not None:
            found.append(moment)
    return found


def test_daily_at_noon_fires_strictly_after_the_given_time() -> None:
    assert next_fire("cron(0 12 * * ? *)", utc(2024, 1, 1, 11, 59, 59)) == utc(2024, 1, 1, 12, 0)
    assert next_fire("cron(0 12 * * ? *)", utc(2024, 1, 1, 12, 0)) == utc(2024, 1, 2, 12, 0)
    assert next_fire("cron(0 12 * * ? *)", utc(2024, 12, 31, 13, 0)) == utc(2025, 1, 1, 12, 0)


def test_naive_datetimes_are_utc_and_other_zones_are_converted() -> None:
    assert next_fire("cron(15 12 * * ? *)", dt.datetime(2024, 3, 1, 12, 0)) == utc(2024, 3, 1, 12, 15)
    plus_two = dt.timezone(dt.timedelta(hours=2))
    # 13:00+02:00 is 11:00 UTC, so 12:15 UTC the same day is next
    assert next_fire("cron(15 12 * * ? *)", dt.datetime(2024, 3, 1, 13, 0, tzinfo=plus_two)) == \
        utc(2024, 3, 1, 12, 15)


def test_last_friday_of_each_month_in_a_year_range() -> None:
    expression = "cron(15 10 ? * 6L 2002-2005)"
    assert firings(expression, utc(2002, 1, 1), 3) == [utc(2002, 1, 25, 10, 15), utc(2002, 2, 22, 10, 15),
                                                      utc(2002, 3, 29, 10, 15)]
    assert next_fire(expression, utc(1999, 6, 1)) == utc(2002, 1, 25, 10, 15)
    assert next_fire(expression, utc(2005, 12, 30, 10, 15)) is None


def test_nearest_weekday_never_leaves_the_month() -> None:
    expression = "cron(0 8 1W * ? *)"
    # 2024-06-01 is a Saturday: the nearest weekday inside June is Monday the 3rd
    assert next_fire(expression, utc(2024, 5, 31)) == utc(2024, 6, 3, 8, 0)
    # 2024-09-01 is a Sunday -> Monday the 2nd; 2024-10-01 is a Tuesday -> itself
    assert next_fire(expression, utc(2024, 8, 31)) == utc(2024, 9, 2, 8, 0)
    assert next_fire(expression, utc(2024, 9, 30)) == utc(2024, 10, 1, 8, 0)
    # 2024-03-31 is a Sunday and the last day: Friday the 29th
    assert next_fire("cron(0 8 31W * ? *)", utc(2024, 3, 1)) == utc(2024, 3, 29, 8, 0)
    # 2024-11-30 is a Saturday: LW is Friday the 29th
    assert next_fire("cron(0 8 LW * ? *)", utc(2024, 11, 1)) == utc(2024, 11, 29, 8, 0)


def test_nth_weekday_of_the_month() -> None:
    assert firings("cron(0 10 ? * 2#1 *)", utc(2024, 6, 1), 3) == [
        utc(2024, 6, 3, 10, 0), utc(2024, 7, 1, 10, 0), utc(2024, 8, 5, 10, 0)]
    # the fifth Friday exists only in some months
    assert firings("cron(0 10 ? * FRI#5 *)", utc(2024, 1, 1), 2) == [utc(2024, 3, 29, 10, 0),
                                                                     utc(2024, 5, 31, 10, 0)]


def test_every_fifteen_minutes_and_steps() -> None:
    assert firings("cron(0/15 * * * ? *)", utc(2024, 6, 1, 0, 50), 3) == [
        utc(2024, 6, 1, 1, 0), utc(2024, 6, 1, 1, 15), utc(2024, 6, 1, 1, 30)]
    assert firings("cron(5/20 8-9 * * ? *)", utc(2024, 6, 1), 4) == [
        utc(2024, 6, 1, 8, 5), utc(2024, 6, 1, 8, 25), utc(2024, 6, 1, 8, 45), utc(2024, 6, 1, 9, 5)]
    assert parse_cron("cron(*/10 * * * ? *)").minutes == (0, 10, 20, 30, 40, 50)


def test_weekday_names_ranges_lists_and_sunday_is_one() -> None:
    # 2024-06-07 is a Friday
    assert next_fire("cron(0 18 ? * MON-FRI *)", utc(2024, 6, 7, 18, 0)) == utc(2024, 6, 10, 18, 0)
    assert next_fire("cron(0 9 ? * 1 *)", utc(2024, 6, 3)) == utc(2024, 6, 9, 9, 0)  # Sunday
    assert next_fire("cron(0 9 ? * 7 *)", utc(2024, 6, 3)) == utc(2024, 6, 8, 9, 0)  # Saturday
    assert next_fire("cron(0 9 ? * L *)", utc(2024, 6, 3)) == utc(2024, 6, 8, 9, 0)  # L alone: Saturday
    assert next_fire("cron(0 9 ? * sun,wed *)", utc(2024, 6, 3)) == utc(2024, 6, 5, 9, 0)
    # a range may wrap around the week: FRI-MON is Fri, Sat, Sun, Mon
    assert parse_cron("cron(0 9 ? * FRI-MON *)").day_of_week.weekdays == frozenset({6, 7, 1, 2})  # type: ignore


def test_month_names_last_day_and_impossible_days() -> None:
    assert next_fire("cron(0 0 L FEB ? *)", utc(2024, 1, 1)) == utc(2024, 2, 29, 0, 0)
    assert next_fire("cron(0 0 L FEB ? *)", utc(2025, 1, 1)) == utc(2025, 2, 28, 0, 0)
    assert next_fire("cron(30 6 31 JAN,MAR-APR ? *)", utc(2024, 2, 1)) == utc(2024, 3, 31, 6, 30)
    # February never has a 30th: there is no next firing at all
    assert next_fire("cron(0 0 30 2 ? *)", utc(2024, 1, 1)) is None


@pytest.mark.parametrize(("expression", "message"), [
    ("cron(0 12 * * * *)", "exactly one of the Day-of-month and Day-of-week fields must be '?'"),
    ("cron(0 12 ? * ? *)", "exactly one of the Day-of-month and Day-of-week fields must be '?'"),
    ("cron(0 12 1 * MON *)", "exactly one of the Day-of-month and Day-of-week fields must be '?'"),
    ("cron(0 12 * * ?)", "has 6 fields"),
    ("cron(0 12 * * ? * *)", "has 6 fields"),
    ("cron(60 12 * * ? *)", "Minutes field: 60 is out of range 0-59"),
    ("cron(0 24 * * ? *)", "Hours field: 24 is out of range 0-23"),
    ("cron(0 12 32 * ? *)", "Day-of-month field: 32 is out of range 1-31"),
    ("cron(0 12 0 * ? *)", "Day-of-month field: 0 is out of range 1-31"),
    ("cron(0 12 * 13 ? *)", "Month field: 13 is out of range 1-12"),
    ("cron(0 12 ? * 8 *)", "Day-of-week field: 8 is out of range 1-7"),
    ("cron(0 12 * * ? 1969)", "Year field: 1969 is out of range 1970-2199"),
    ("cron(0 12 * * ? 2200)", "Year field: 2200 is out of range 1970-2199"),
    ("cron(0 12 * * ? 2030-2020)", "Year field: range 2030-2020 runs backwards"),
    ("cron(0 12 * FOO ? *)", "Month field: 'FOO' is not a value"),
    ("cron(0/0 12 * * ? *)", "increment '0'"),
    ("cron(0 12 ? * 2#6 *)", "occurrence in '2#6' must be 1-5"),
    ("cron(0 12 ? * 2#1,3#2 *)", "only one # expression"),
    ("cron(0 L * * ? *)", "Hours field"),
    ("cron(0 12 1#2 * ? *)", "cannot use '#'"),
    ("cron(0 12 ? * 2W *)", "cannot use 'W'"),
    ("cron(0 12 1,L * ? *)", "cannot combine L or W"),
])
def test_invalid_expressions_say_what_is_wrong(expression: str, message: str) -> None:
    with pytest.raises(CronError) as excinfo:
        parse_cron(expression)
    assert message in str(excinfo.value)


def test_glue_schedules_are_cron_with_a_five_minute_precision() -> None:
    assert check_glue_schedule("cron(0/5 * * * ? *)").text == "cron(0/5 * * * ? *)"
    assert check_glue_schedule("cron(15   10 ? * 6L 2002-2005)").text == "cron(15 10 ? * 6L 2002-2005)"
    for too_often in ("cron(0/1 * * * ? *)", "cron(0,3 * * * ? *)", "cron(1,58 * * * ? *)"):
        with pytest.raises(CronError) as excinfo:
            check_glue_schedule(too_often)
        assert "minimum precision of a schedule is 5 minutes" in str(excinfo.value)
    # within one hour 1 and 58 are far apart, but xx:58 and the next hour's :01 are not
    assert parse_cron("cron(1,58 9 * * ? *)").min_interval_minutes() == 57
    assert parse_cron("cron(1,58 9-10 * * ? *)").min_interval_minutes() == 3
    assert check_glue_schedule("cron(58 23 * * ? *)").min_interval_minutes() == 24 * 60
    with pytest.raises(CronError) as excinfo:
        check_glue_schedule("rate(5 minutes)")
    assert "cron(Minutes Hours Day-of-month Month Day-of-week Year)" in str(excinfo.value)
