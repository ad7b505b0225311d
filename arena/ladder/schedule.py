"""When a ladder service plays its rounds: every fixed interval (`10m`) or on a cron expression.

Cron expressions have the usual five fields, minute hour day-of-month month day-of-week, each `*`,
a number, a range `a-b`, a list `a,b`, or a step `*/n` / `a-b/n`; day-of-week 0 or 7 is Sunday. As
in cron, when both day fields are restricted a day matching either one counts. Times are UTC.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

_DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*(ms|h|m|s)?", re.IGNORECASE)
_UNIT_SECONDS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001, None: 1.0}
_FIELDS = (("minute", 0, 59), ("hour", 0, 23), ("day of month", 1, 31), ("month", 1, 12), ("day of week", 0, 7))


class ScheduleError(ValueError):
    """A schedule that does not parse; the message shows what would."""


def parse_duration(text: str) -> float:
    """'90s', '10m', '1h', '1h30m' -> seconds; ScheduleError otherwise (a bare number too: which unit?)."""
    position, total = 0, 0.0
    text = text.strip()
    if not text:
        raise ScheduleError("empty duration: use e.g. 90s, 10m, 1h or 1h30m")
    if text.replace(".", "", 1).isdigit():
        raise ScheduleError(f"{text!r} has no unit: say {text}s (seconds), {text}m (minutes) or {text}h (hours)")
    while position < len(text):
        match = _DURATION.match(text, position)
        if not match or match.end() == position:
            raise ScheduleError(f"bad duration {text!r}: use e.g. 90s, 10m, 1h or 1h30m")
        unit = match.group(2).lower() if match.group(2) else None
        total += float(match.group(1)) * _UNIT_SECONDS[unit]
        position = match.end()
    if total <= 0:
        raise ScheduleError(f"bad duration {text!r}: must be more than zero")
    return total


@dataclass(frozen=True)
class Schedule:
    """A round every `interval_s` seconds, or at each minute a cron expression matches."""

    text: str
    interval_s: float | None = None
    cron: tuple[frozenset[int], ...] | None = None
    days_either: bool = False  # both day fields restricted: a day matching either counts

    @classmethod
    def parse(cls, text: str) -> Schedule:
        """'10m', '1h30m', '45s' or a five-field cron expression such as '*/10 * * * *'."""
        text = " ".join(text.split())
        if len(text.split(" ")) == 5:
            fields = tuple(_cron_field(part, *bounds) for part, bounds in zip(text.split(" "), _FIELDS))
            dow = fields[4]
            if 7 in dow:
                dow = frozenset((dow - {7}) | {0})
            fields = (*fields[:4], dow)
            restricted = [part != "*" for part in text.split(" ")[2:5:2]]
            return cls(text, cron=fields, days_either=all(restricted))
        try:
            return cls(text, interval_s=parse_duration(text))
        except ScheduleError as error:
            if "has no unit" in str(error):
                raise
            raise ScheduleError(f"bad schedule {text!r}: give an interval (10m, 1h30m) or a cron expression "
                                "of five fields (e.g. '*/10 * * * *': every ten minutes)") from None

    def next_after(self, moment: datetime) -> datetime:
        """The first time after `moment` a round is due (naive UTC)."""
        if self.interval_s is not None:
            return moment + timedelta(seconds=self.interval_s)
        assert self.cron is not None
        minutes, hours, days, months, weekdays = self.cron
        candidate = moment.replace(second=0, microsecond=0) + timedelta(minutes=1)
        limit = candidate + timedelta(days=366 * 5)
        while candidate < limit:
            if candidate.month not in months:
                candidate = (candidate.replace(day=1, hour=0, minute=0) + timedelta(days=32)).replace(day=1)
                continue
            if not self._day_matches(candidate, days, weekdays):
                candidate = candidate.replace(hour=0, minute=0) + timedelta(days=1)
                continue
            if candidate.hour not in hours:
                candidate = candidate.replace(minute=0) + timedelta(hours=1)
                continue
            if candidate.minute not in minutes:
                candidate += timedelta(minutes=1)
                continue
            return candidate
        raise ScheduleError(f"the schedule {self.text!r} never comes round (no such date)")

    def _day_matches(self, moment: datetime, days: frozenset[int], weekdays: frozenset[int]) -> bool:
        weekday = (moment.weekday() + 1) % 7  # cron: 0 is Sunday
        if self.days_either:
            return moment.day in days or weekday in weekdays
        return moment.day in days and weekday in weekdays

    def describe(self) -> str:
        """'every 10m' or 'cron */10 * * * *'."""
        return f"every {self.text}" if self.interval_s is not None else f"cron {self.text} (UTC)"


def _cron_field(text: str, name: str, low: int, high: int) -> frozenset[int]:
    values: set[int] = set()
    for part in text.split(","):
        body, _, step_text = part.partition("/")
        try:
            step = int(step_text) if step_text else 1
            if body == "*":
                start, end = low, high
            elif "-" in body:
                first, last = body.split("-", 1)
                start, end = int(first), int(last)
            else:
                start = end = int(body)
                if step_text:
                    end = high
        except ValueError:
            raise ScheduleError(f"bad cron {name} field {text!r}: use *, N, A-B, A,B or */N") from None
        if step < 1 or not low <= start <= end <= high:
            raise ScheduleError(f"bad cron {name} field {text!r}: values run from {low} to {high}")
        values.update(range(start, end + 1, step))
    return frozenset(values)
