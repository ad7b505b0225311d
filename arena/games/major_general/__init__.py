"""Major General: Duel of Time."""

from arena.games.major_general.rules import MajorGeneralGame, MajorGeneralState

__all__ = ["MajorGeneralGame", "MajorGeneralState"]
