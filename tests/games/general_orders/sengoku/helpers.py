"""Helpers for the Sengoku Jidai tests: games, set positions and action ids by name."""

from __future__ import annotations

from arena.games.general_orders.sengoku.rules import SengokuGame, SengokuState
from arena.games.general_orders.sengoku.positions import (  # noqa: F401  (re-exported for the tests)
    build_position,
    counter,
    deploy,
    describe,
    lose_siege,
    pips,
    play,
    reroll,
    siege_at,
    space_index,
    target,
    units_at,
)
from tests.games.general_orders.family import area, is_chance, mask, move_in, names, run  # noqa: F401

RIVERS = SengokuGame("rivers")
FORTRESS = SengokuGame("fortress")
RED, BLACK = 0, 1

# Home positions away from the action: each side's HQ and a line of supply.
RED_HOME = {"9": (3, 0), "10": (2, 0)}
BLACK_HOME = {"13": (0, 3), "12": (0, 2)}
RED_CASTLE = {"2": (3, 0), "3": (2, 0)}
BLACK_CASTLE = {"19": (0, 3), "18": (0, 2)}


def deploys(state: SengokuState) -> set[str]:
    """The spaces the current player may deploy to now, by name (e.g. 'Advance 16')."""
    game = state.game
    return {game.space_name(a - 4) for a in state.legal_actions() if 4 <= a < game.COUNTER_BASE}


def targets(state: SengokuState) -> set[str]:
    """The areas offered as targets now."""
    game = state.game
    return {game.board.area_ids[a - game.TARGET_BASE] for a in state.legal_actions()
            if game.TARGET_BASE <= a < game.UNIT_BASE}


def unit_options(state: SengokuState) -> set[tuple[str, int]]:
    """(area, n) of the troop/ship options offered now."""
    game = state.game
    out = set()
    for a in state.legal_actions():
        if game.UNIT_BASE <= a < game.SIEGE_BASE:
            where, n = divmod(a - game.UNIT_BASE, 5)
            out.add((game.board.area_ids[where], n + 1))
    return out
