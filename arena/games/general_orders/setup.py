"""The setup of both General Orders games, two kinds of chance node: the area-bonus tokens drawn
one per bonus slot (in the board's slot order), then who takes the initiative (a coin flip).

Plain functions over a position's `Core`; none calls back into a game."""

from __future__ import annotations

from arena.games.general_orders.core import INITIATIVE_BASE, SETUP_BONUS, SETUP_INITIATIVE, TOKEN_BASE, Core, place_tokens

INITIATIVE_OUTCOMES = ((INITIATIVE_BASE, 0.5), (INITIATIVE_BASE + 1, 0.5))


def first_phase(core: Core) -> int:
    """Where a new game starts: drawing bonus tokens when the board has slots, else the initiative."""
    return SETUP_BONUS if core._game.board.bonus_slots else SETUP_INITIATIVE


def slots_filled(core: Core) -> int:
    """How many of the board's bonus slots hold a token."""
    return sum(1 for area in core._game.board.bonus_slots if core.bonus_at[area] >= 0)


def bonus_outcomes(core: Core) -> list[tuple[int, float]]:
    """The chance of each token still in the pool being drawn for the next slot."""
    left = [t for t in core._game.board.bonus_pool if core.token_area[t] < 0]
    return [(TOKEN_BASE + t, 1.0 / len(left)) for t in sorted(left)]


def place_bonus(core: Core, outcome: int) -> None:
    """The token of a chance outcome goes to the next slot; after the last, the initiative."""
    slots = core._game.board.bonus_slots
    bonus_at = core.bonus_at[:]
    bonus_at[slots[slots_filled(core)]] = outcome - TOKEN_BASE
    core.bonus_at = bonus_at
    place_tokens(core)
    if slots_filled(core) == len(slots):
        core.phase = SETUP_INITIATIVE


def initiative_outcomes() -> list[tuple[int, float]]:
    """Either seat takes the initiative, evens."""
    return list(INITIATIVE_OUTCOMES)


def take_initiative(core: Core, outcome: int) -> None:
    """The seat of a chance outcome holds the initiative; the first round begins (its first turn
    is the game's to begin)."""
    core.initiative = outcome - INITIATIVE_BASE
    core.round = 1


def bonus_label(core: Core, label: str) -> str:
    """A token draw's label names the slot it goes to."""
    game = core._game
    return f"{label} -> {game.area_name(game.board.bonus_slots[slots_filled(core)])}"
