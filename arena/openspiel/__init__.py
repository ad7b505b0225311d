"""The OpenSpiel bridge (optional extra `openspiel`): Arena games as pyspiel games, OpenSpiel bots as agents."""

from arena.openspiel.bridge import (
    ArenaSpielGame,
    ArenaSpielState,
    load_openspiel_game,
    openspiel_game_for,
    openspiel_name,
    register_all,
)

register_all()

__all__ = [
    "ArenaSpielGame",
    "ArenaSpielState",
    "load_openspiel_game",
    "openspiel_game_for",
    "openspiel_name",
    "register_all",
]
