"""Build Major General positions from a compact description, for rulebook-style scenario tests."""

from __future__ import annotations

from typing import Sequence

from arena.games.major_general.data import CARDS, COMMANDS, CUBE_POOL, SCENARIO_IDS
from arena.games.major_general.rules import (
    ALL_CARDS,
    MajorGeneralGame,
    MajorGeneralState,
    UNITS_PER_SIDE,
)

YELLOW, RED = 0, 1


def card_with(first: str, second: str) -> int:
    """The card id carrying these two commands (in either order)."""
    wanted = {COMMANDS.index(first), COMMANDS.index(second)}
    for card, pair in enumerate(CARDS):
        if set(pair) == wanted:
            return card
    raise LookupError(f"no card carries {first}/{second}")


def play_action(card: int, position: int, mine: str) -> int:
    """The play action for `card` on spaces position+1..position+2 (1-based) with `mine` facing the player."""
    orientation = 0 if CARDS[card][0] == COMMANDS.index(mine) else 1
    assert CARDS[card][orientation] == COMMANDS.index(mine), f"{mine} is not on card {card}"
    return card * 8 + (position - 1) * 2 + orientation


def position(
    yellow: Sequence[int] = (3, 3, 2, 0, 0),
    red: Sequence[int] = (0, 0, 2, 3, 3),
    top: Sequence[tuple[str, int] | None] = (None,) * 5,
    active: int = YELLOW,
    hands: Sequence[Sequence[int]] = ((0, 1, 2), (3, 4, 5)),
    decks: Sequence[Sequence[int]] | None = None,
    scenario: str | None = None,
    cubes: Sequence[int] = (0, 0),
    turn: int = 4,
) -> MajorGeneralState:
    """A play-phase position: units per space (space 1 = Yellow's base), top commands as (command, owner)."""
    game = MajorGeneralGame(scenario=scenario or "none")
    if decks is None:  # by default every card not in a hand is still in its owner's deck
        decks = [[c for c in range(8) if c not in hands[s]] for s in (YELLOW, RED)]
    data = {
        "game": game.name,
        "phase": "play",
        "current_player": active,
        "first": YELLOW,
        "active": active,
        "turn": turn,
        "units": [[yellow[s], red[s]] for s in range(5)],
        "supply": [UNITS_PER_SIDE - sum(yellow), UNITS_PER_SIDE - sum(red)],
        "top": [None if t is None else {"command": t[0], "owner": t[1]} for t in top],
        "played": [],
        "scenario": scenario,
        "scenario_points": list(cubes),
        "cubes_left": CUBE_POOL - sum(cubes),
        "cursor": 0,
        "pending": None,
        "hands": [list(h) for h in hands],
        "decks": [list(d) for d in decks],
    }
    assert scenario is None or scenario in SCENARIO_IDS
    return game.state_from_json(data)


def board(state: MajorGeneralState) -> tuple[list[int], list[int]]:
    """(Yellow units per space, Red units per space)."""
    return state.units[0::2], state.units[1::2]


__all__ = ["ALL_CARDS", "RED", "YELLOW", "board", "card_with", "play_action", "position"]
