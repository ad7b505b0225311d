"""Shared helpers for the General Orders tests: games, set positions and action ids by name."""

from __future__ import annotations

from arena.games.base import CHANCE
from arena.games.general_orders.positions import (  # noqa: F401  (re-exported for the tests)
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
from arena.games.general_orders.rules import GeneralOrdersGame, GeneralOrdersState

ALPINE = GeneralOrdersGame("alpine")
ISLAND = GeneralOrdersGame("island")
BLUE, YELLOW = 0, 1


def run(state: GeneralOrdersState, *actions: int) -> GeneralOrdersState:
    """Apply the actions in order (decisions and chance outcomes alike); return the state."""
    for action in actions:
        state.apply_action(action)
    return state


def area(game: GeneralOrdersGame, name: str) -> int:
    """The index of a land area by id."""
    return game.board.area_ids.index(name)


def zone(game: GeneralOrdersGame, name: str) -> int:
    """The index of an air zone by id."""
    return game.board.zone_ids.index(name)


def mask(game: GeneralOrdersGame, *names: str) -> int:
    """A bitmask of land areas by id."""
    return sum(1 << area(game, name) for name in names)


def names(game: GeneralOrdersGame, bits: int) -> set[str]:
    """The land-area ids in a bitmask."""
    return {game.board.area_ids[a] for a in range(game.NA) if bits >> a & 1}


def is_chance(state: GeneralOrdersState) -> bool:
    """True at a chance node."""
    return state.current_player() == CHANCE


def move_in(state: GeneralOrdersState, *moves: int) -> GeneralOrdersState:
    """Apply Advance/Fly move-in choices (and cards played then), then 'done' unless the engine
    already took it as the only option left."""
    from arena.games.general_orders.rules import DONE, MOVE

    run(state, *moves)
    if state.phase == MOVE:
        state.apply_action(DONE)
    return state
