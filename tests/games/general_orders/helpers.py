"""Helpers for the General Orders: WWII tests: games, set positions and action ids by name."""

from __future__ import annotations

from arena.games.general_orders.wwii.positions import (  # noqa: F401  (re-exported for the tests)
    aircraft_at,
    build_position,
    counter,
    deploy,
    describe,
    payload,
    pips,
    play,
    reroll,
    return_from,
    space_index,
    target,
    troops_at,
)
from arena.games.general_orders.wwii.rules import WWIIGame
from tests.games.general_orders.family import area, is_chance, mask, move_in, names, run  # noqa: F401

ALPINE = WWIIGame("alpine")
ISLAND = WWIIGame("island")
BLUE, YELLOW = 0, 1


def zone(game: WWIIGame, name: str) -> int:
    """The index of an air zone by id."""
    return game.board.zone_ids.index(name)
