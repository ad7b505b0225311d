"""The authoritative match loop, match records and replay."""

from arena.referee.local import play_match
from arena.referee.record import MatchRecord, MatchResult, PlayerInfo, RecordError, Step, Termination
from arena.referee.replay import ReplayDivergence, replay

__all__ = ["MatchRecord", "MatchResult", "PlayerInfo", "RecordError", "ReplayDivergence", "Step", "Termination",
           "play_match", "replay"]
