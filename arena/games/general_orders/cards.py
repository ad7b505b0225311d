"""Operation cards for both General Orders games: the hand, the deck and the discard pile as
card-count multisets (no order to store or leak), each card's effect at most once per turn, Plan's
draws (an empty deck is refilled from the discard pile, GO-10, SJ-10), and card windows judged on
public facts only, so that no decision ever reveals the hand (GO-D7, GO-C10, SJ-D4).

Plain functions over a position's `Core`; none calls back into a game: where a game's step follows
(its action ends, its window closes), the function says so by what it returns."""

from __future__ import annotations

import random
from typing import Any, Sequence

from arena.games.general_orders.core import DECLINE, DEFEND, DRAW, Core
from arena.games.general_orders.masks import BIT, bits


def can_play(core: Core, seat: int, kind: int) -> bool:
    """`seat` holds `kind` and its effect is unused this turn (and in this action)."""
    return bool(core.hands[seat][kind]) and not (core.used[seat] | core.fx) >> kind & 1


def could_play(core: Core, seat: int, kind: int) -> bool:
    """Could `seat` hold and play `kind` now, judging by public facts only (GO-D7, SJ-D4)? True
    whenever `can_play` is, so asking on it hides whether the card is held."""
    return (not (core.used[seat] | core.fx) >> kind & 1 and core._game.deck_total[kind] > core.discard[kind]
            and any(core.hands[seat]))


def spend(core: Core, seat: int, kind: int, effect: bool) -> None:
    """Move a card from `seat`'s hand to the discard pile; mark its effect as resolved."""
    core.hands[seat][kind] -= 1
    core.discard[kind] += 1
    if effect:
        core.used[seat] |= BIT[kind]
        core.fx |= BIT[kind]


# --- Plan: draws ------------------------------------------------------------------------------

def plan(core: Core, initiative: bool, draws: int) -> bool:
    """Plan: take the initiative (on the space with its symbol) and draw cards. False when no card
    is left to draw: the action is over."""
    if initiative:
        core.initiative = core.active
    core.draws = draws
    return continue_draws(core)


def continue_draws(core: Core) -> bool:
    """The next draw of the action under way, refilling an empty deck from the discard pile. False
    when the draws are done (or no card is left anywhere): the action is over."""
    deck_size = sum(core.deck)
    if core.draws > 0 and deck_size == 0:
        # GO-10, SJ-10: an empty deck is refilled from the discard pile (a multiset: no order).
        core.deck = [a + b for a, b in zip(core.deck, core.discard)]
        core.discard = [0] * len(core.discard)
        deck_size = sum(core.deck)
    if core.draws > 0 and deck_size > 0:
        core.phase = DRAW
        return True
    core.draws = 0
    return False


def draw_outcomes(core: Core) -> list[tuple[int, float]]:
    """The chance of drawing each card kind the deck holds."""
    deck = core.deck
    total = sum(deck)
    card_base = core._game.CARD_BASE
    return [(card_base + k, n / total) for k, n in enumerate(deck) if n]


def draw(core: Core, outcome: int) -> bool:
    """The active seat draws the card of a chance outcome; False when its draws are done."""
    kind = outcome - core._game.CARD_BASE
    core.deck[kind] -= 1
    core.hands[core.active][kind] += 1
    core.draws -= 1
    return continue_draws(core)


# --- card windows -----------------------------------------------------------------------------

def open_window(core: Core, window: int, cards: Sequence[int]) -> bool:
    """Open the defender's card window for `cards`; it opens on public facts only (GO-C10, SJ-D4).
    False when it stays shut: the game closes it at once."""
    core.window = window
    defender = 1 - core.active
    for kind in cards:
        if could_play(core, defender, kind):
            core.phase = DEFEND
            return True
    return False


def defend_options(core: Core, cards: Sequence[int]) -> list[int]:
    """Decline, or play a card that answers the open window."""
    play_base = core._game.PLAY_BASE
    defender = 1 - core.active
    return [DECLINE] + [play_base + k for k in cards if can_play(core, defender, k)]


def target_options(core: Core, card: int, targets: int) -> list[int]:
    """A card that strengthens the action under way (`card`, -1 for none), or a target area."""
    game = core._game
    actions = []
    if card >= 0 and can_play(core, core.active, card):
        actions.append(game.PLAY_BASE + card)
    base = game.TARGET_BASE
    actions.extend(base + a for a in bits(targets))
    return actions


# --- the multisets ----------------------------------------------------------------------------

def counts_of(named: Any, ids: Sequence[str]) -> list[int]:
    """Card counts per kind (in `ids` order) from {card id: count}; raises ValueError on bad input."""
    if not isinstance(named, dict):
        raise ValueError("card counts must be an object of card id -> count")
    counts = [0] * len(ids)
    for key, value in named.items():
        if key not in ids:
            raise ValueError(f"unknown card {key!r}")
        counts[ids.index(key)] = int(value)
        if counts[ids.index(key)] < 0:
            raise ValueError("negative card count")
    return counts


def named_counts(counts: Sequence[int], ids: Sequence[str]) -> dict[str, int]:
    """{card id: count} for the kinds held (the JSON form of a hand, deck or discard pile)."""
    return {ids[k]: n for k, n in enumerate(counts) if n}


def sample_hidden_cards(deck_total: Sequence[int], own: Sequence[int], discard: Sequence[int],
                        other_size: int, deck_size: int, rng: random.Random,
                        ids: Sequence[str]) -> tuple[list[int], list[int]]:
    """Deal the cards a seat has not seen (deck total - discard - own hand) at random into the
    opponent's hand (`other_size` cards) and the deck; returns (other hand, deck) as counts."""
    unseen: list[int] = []
    for kind, total in enumerate(deck_total):
        left = total - discard[kind] - own[kind]
        if left < 0:
            raise ValueError(f"more {ids[kind]} seen than the deck holds")
        unseen.extend([kind] * left)
    if len(unseen) != other_size + deck_size:
        raise ValueError("the observation's card counts do not add up")
    rng.shuffle(unseen)
    other = [0] * len(deck_total)
    for kind in unseen[:other_size]:
        other[kind] += 1
    deck = [0] * len(deck_total)
    for kind in unseen[other_size:]:
        deck[kind] += 1
    return other, deck
