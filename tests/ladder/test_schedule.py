"""Ladder schedules: intervals and cron expressions, and the errors that say what would parse."""

from __future__ import annotations

from datetime import datetime

import pytest

from arena.ladder.schedule import Schedule, ScheduleError, parse_duration


def test_intervals() -> None:
    assert parse_duration("1h30m") == 5400 and parse_duration("90s") == 90 and parse_duration("250ms") == 0.25
    with pytest.raises(ScheduleError, match="has no unit: say 90s"):
        parse_duration("90")  # seconds? minutes? a user must say
    schedule = Schedule.parse("10m")
    assert schedule.interval_s == 600 and schedule.describe() == "every 10m"
    assert schedule.next_after(datetime(2026, 1, 1, 12, 0, 5)) == datetime(2026, 1, 1, 12, 10, 5)


@pytest.mark.parametrize("expression, moment, expected", [
    ("*/10 * * * *", datetime(2026, 1, 1, 12, 3, 7), datetime(2026, 1, 1, 12, 10)),
    ("*/10 * * * *", datetime(2026, 1, 1, 12, 10, 0), datetime(2026, 1, 1, 12, 20)),  # strictly after
    ("0 * * * *", datetime(2026, 1, 1, 23, 30), datetime(2026, 1, 2, 0, 0)),
    ("30 2 * * *", datetime(2026, 12, 31, 3, 0), datetime(2027, 1, 1, 2, 30)),
    ("0 9 * * 1-5", datetime(2026, 11, 27, 10, 0), datetime(2026, 11, 30, 9, 0)),  # Friday -> Monday
    ("0 0 * * 7", datetime(2026, 11, 25, 0, 0), datetime(2026, 11, 29, 0, 0)),  # 7 is Sunday too
    ("0 0 13 * 5", datetime(2026, 11, 25, 0, 0), datetime(2026, 11, 27, 0, 0)),  # the 13th or a Friday
    ("15,45 8-9 1 */3 *", datetime(2026, 2, 1, 0, 0), datetime(2026, 4, 1, 8, 15)),
    ("0 0 29 2 *", datetime(2026, 3, 1), datetime(2028, 2, 29)),
])
def test_cron_expressions(expression: str, moment: datetime, expected: datetime) -> None:
    assert Schedule.parse(expression).next_after(moment) == expected


@pytest.mark.parametrize("text, words", [
    ("soon", "give an interval"), ("0s", "give an interval"), ("61 * * * *", "minute field"),
    ("* * 0 * *", "day of month field"), ("*/0 * * * *", "minute field"), ("a b c d e", "minute field"),
])
def test_bad_schedules_say_what_would_parse(text: str, words: str) -> None:
    with pytest.raises(ScheduleError, match=words):
        Schedule.parse(text)


def test_a_date_that_never_comes_is_an_error() -> None:
    with pytest.raises(ScheduleError, match="never comes round"):
        Schedule.parse("0 0 31 2 *").next_after(datetime(2026, 1, 1))
