"""Every chance node of a General Orders game is one the family shares: the setup's area-bonus
tokens and initiative (setup.py), Plan's card draws (cards.py) and the dice (dice.py). Here: the
outcomes of the node under way and their labels, which hide a card drawn from spectators."""

from __future__ import annotations

from arena.games.general_orders.cards import draw_outcomes
from arena.games.base import CHANCE
from arena.games.general_orders.core import DRAW, ROLL, SETUP_BONUS, SETUP_INITIATIVE, TOKEN_BASE, Core
from arena.games.general_orders.dice import roll_outcomes
from arena.games.general_orders.setup import bonus_label, bonus_outcomes, initiative_outcomes


def chance_outcomes(core: Core) -> list[tuple[int, float]]:
    """(outcome, probability) pairs of the chance node under way; empty at a decision."""
    phase = core.phase
    if phase == ROLL:
        return roll_outcomes(core)
    if phase == DRAW:
        return draw_outcomes(core)
    if phase == SETUP_BONUS:
        return bonus_outcomes(core)
    if phase == SETUP_INITIATIVE:
        return initiative_outcomes()
    return []


def chance_step_label(core: Core, action: int) -> str:
    """A chance outcome's label at this step: who rolls how many pips, who draws, where a token goes (a
    roll's and a draw's remembered by what they depend on)."""
    game = core._game
    phase = core.phase
    key = (CHANCE, phase, core.roller, core.dice, core.active, action)
    if phase != SETUP_BONUS:
        known = game.labels.get(key)
        return known if known is not None else game.remember_label(key, _chance_step_label(core, action))
    return _chance_step_label(core, action)


def _chance_step_label(core: Core, action: int) -> str:
    game = core._game
    label = game.chance_label(action)
    phase = core.phase
    if phase == ROLL and action >= game.DICE_BASE:
        return (f"{game.seat_name(core.roller)} {game.term('rolls')} {action - game.DICE_BASE} "
                f"{game.term('pips')} ({core.dice} {game.term('dice')})")
    if phase == DRAW and game.CARD_BASE <= action < game.DICE_BASE:
        return f"{game.seat_name(core.active)} {label}"
    if phase == SETUP_BONUS and TOKEN_BASE <= action < game.CARD_BASE:
        return bonus_label(core, label)
    return label


def spectator_label(core: Core, action: int) -> str | None:
    """A card drawn is hidden from spectators; the initiative, bonus tokens and dice are public."""
    game = core._game
    if core.phase == DRAW and game.CARD_BASE <= action < game.DICE_BASE:
        return f"{game.seat_name(core.active)} {game.term('draws_a_card')}"
    return None
