"""Rating pools: one per game mode; a game played with options other than its mode's is its own pool."""

from __future__ import annotations

import json

from arena.games.base import Game
from arena.games.registry import resolve


def pool_name(game: Game) -> str:
    """'major-general/hold-the-centre', or 'name{"option": value}' when options differ from the mode's."""
    defaults = resolve(game.name).load().options
    if game.options == defaults:
        return game.name
    changed = {key: value for key, value in sorted(game.options.items()) if defaults.get(key) != value}
    return f"{game.name}{json.dumps(changed, sort_keys=True, separators=(',', ':'))}"


def pool_for(name: str) -> str:
    """The pool a game or mode name refers to (a bare family name means its default mode)."""
    return resolve(name).name
