"""Dice for both General Orders games: custom dice with faces 0,1,1,1,1,2, one chance node per
roll over the total pips (exact multinomial probabilities), then a re-roll decision while the
roller holds cards (any card spent re-rolls all the dice, its effect unused).

Plain functions over a position's `Core`; none calls back into a game: where the game resolves
the roll, the function says so by what it returns."""

from __future__ import annotations

from fractions import Fraction

from arena.games.general_orders.cards import spend
from arena.games.general_orders.core import ACCEPT, REROLL, ROLL, Core

MAX_DICE = 12  # the most dice one roll may use (more would be re-rolled in the box: same total)
DIE_FACES = (Fraction(1, 6), Fraction(4, 6), Fraction(1, 6))  # P(0), P(1), P(2) pips


def dice_table(base: int) -> tuple[tuple[tuple[int, float], ...], ...]:
    """Per number of dice k (0..MAX_DICE): ((base + total, probability), ...), exact multinomials."""
    table: list[tuple[tuple[int, float], ...]] = [((base, 1.0),)]
    dist = [Fraction(1)]
    for _ in range(MAX_DICE):
        new = [Fraction(0)] * (len(dist) + 2)
        for total, p in enumerate(dist):
            for face, q in enumerate(DIE_FACES):
                new[total + face] += p * q
        dist = new
        table.append(tuple((base + total, float(p)) for total, p in enumerate(dist)))
    return tuple(table)


def start_roll(core: Core, dice: int, roller: int, purpose: int) -> None:
    """`roller` rolls `dice` dice (at most MAX_DICE) for `purpose`: the next step is chance."""
    core.dice = min(dice, MAX_DICE)
    core.roller = roller
    core.purpose = purpose
    core.roll = -1
    core.phase = ROLL


def roll_outcomes(core: Core) -> list[tuple[int, float]]:
    """The chance of each total of the roll under way."""
    return list(core._game.dice[core.dice])


def roll(core: Core, outcome: int) -> bool:
    """The dice show the total of a chance outcome. True when the roller may re-roll (it holds a
    card); False when the game resolves the roll now."""
    core.roll = outcome - core._game.DICE_BASE
    if any(core.hands[core.roller]):
        core.phase = REROLL
        return True
    return False


def reroll_options(core: Core) -> list[int]:
    """Keep the roll, or spend any card held to roll again."""
    reroll_base = core._game.REROLL_BASE
    hand = core.hands[core.roller]
    return [ACCEPT] + [reroll_base + k for k in range(len(hand)) if hand[k]]


def reroll(core: Core, action: int) -> None:
    """Spend the card of a re-roll id (its effect unused) and roll the same dice again."""
    spend(core, core.roller, action - core._game.REROLL_BASE, effect=False)
    core.phase = ROLL


def finish_roll(core: Core) -> tuple[int, int]:
    """The roll is kept: (its purpose, its total); the roller's turn to roll is over."""
    purpose = core.purpose
    core.purpose = 0
    core.roller = -1
    return purpose, core.roll
