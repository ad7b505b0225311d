"""The match loop (one, for agents and bot programs alike), match records and replay."""

from arena.referee.authority import play_match, referee_match, seat_seed
from arena.referee.record import MatchRecord, MatchResult, PlayerInfo, RecordError, Step, Termination
from arena.referee.replay import ReplayDivergence, replay

__all__ = ["MatchRecord", "MatchResult", "PlayerInfo", "RecordError", "ReplayDivergence", "Step", "Termination",
           "play_match", "referee_match", "replay", "seat_seed"]
