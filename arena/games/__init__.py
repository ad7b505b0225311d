"""Pure game rules: standard library only, no IO, no global random state."""

from arena.games.base import CHANCE, TERMINAL, Game, IllegalActionError, Outcome, State
from arena.games.registry import game_modes, load_game

__all__ = ["CHANCE", "TERMINAL", "Game", "IllegalActionError", "Outcome", "State", "game_modes", "load_game"]
