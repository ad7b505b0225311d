"""Helpers for both games' tests: apply actions, areas by id, and random play."""

from __future__ import annotations

import random
from typing import Any, Callable, Iterable, Iterator

from arena.games.base import CHANCE
from arena.games.general_orders.core import DONE, MOVE, Core, FamilyGame


def run(state: Core, *actions: int) -> Core:
    """Apply the actions in order (decisions and chance outcomes alike); return the state."""
    for action in actions:
        state.apply_action(action)
    return state


def move_in(state: Core, *moves: int) -> Core:
    """Apply move-in choices (and cards played then), then 'done' unless the engine already took it
    as the only option left."""
    run(state, *moves)
    if state.phase == MOVE:
        state.apply_action(DONE)
    return state


def area(game: FamilyGame, name: str) -> int:
    """The index of an area by id."""
    return game.board.area_ids.index(name)


def mask(game: FamilyGame, *names: str) -> int:
    """A bitmask of areas by id."""
    return sum(1 << area(game, name) for name in names)


def names(game: FamilyGame, bits: int) -> set[str]:
    """The area ids in a bitmask."""
    return {game.board.area_ids[a] for a in range(game.NA) if bits >> a & 1}


def is_chance(state: Core) -> bool:
    """True at a chance node."""
    return state.current_player() == CHANCE


def random_game(game: FamilyGame, seed: int) -> Iterator[Core]:
    """The state of one random game after each step, from the start to the end: chance outcomes
    sampled by their probabilities, decisions uniform over the legal ones."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    yield state
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            state.apply_action(state.sample_chance(rng))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
        yield state


def check_random_play(game: FamilyGame, seed: int, check: Callable[[Any], None]) -> None:
    """Play one random game, calling `check` on every state; it ends within the game's length."""
    for steps, state in enumerate(random_game(game, seed)):
        check(state)
        assert steps < game.info.max_game_length
    assert state.outcome() is not None


def phases_and_endings(game: FamilyGame, seeds: Iterable[int]) -> tuple[set[str], set[str]]:
    """The phases random games pass through, and the reasons they end for."""
    seen: set[str] = set()
    reasons: set[str] = set()
    for seed in seeds:
        for state in random_game(game, seed):
            seen.add(state.PHASE_NAMES[state.phase])
        reasons.add(state.reason)
    return seen, reasons
