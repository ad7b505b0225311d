"""The hosted ladder: `arena ladder serve` plays rounds on a schedule; `arena ladder status` shows them."""

from arena.ladder.schedule import Schedule, ScheduleError, parse_duration
from arena.ladder.service import LadderService, LadderSettings, PoolRound, RoundReport, ladder_name
from arena.ladder.status import ladder_status

__all__ = ["LadderService", "LadderSettings", "PoolRound", "RoundReport", "Schedule", "ScheduleError",
           "ladder_name", "ladder_status", "parse_duration"]
