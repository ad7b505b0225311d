"""Set-position building blocks and action ids by name, for both games of the family.

wwii/positions.py and sengoku/positions.py build a state from a compact description with these
pieces: the cards (hands, discard pile, and the deck as what is left of the mode's deck), the area
bonuses, the commanders standing on spaces, and the start of `active`'s turn. The ids of the
family's shared decisions (Counter Attack, play or re-roll with a card, target) are here too.
"""

from __future__ import annotations

from arena.games.general_orders.core import MAX_N, TURN, Core, FamilyGame


def card_counts(game: FamilyGame, named: dict[str, int]) -> list[int]:
    """Counts per card kind from {card id: count}."""
    counts = [0] * len(game.card_ids)
    for key, n in named.items():
        counts[game.card_ids.index(key)] = n
    return counts


def place_cards_and_bonuses(state: Core, bonuses: dict[str, str] | None,
                            hands: tuple[dict[str, int], dict[str, int]], discard: dict[str, int] | None) -> None:
    """Area-bonus tokens by area id; the hands and discard pile; the deck holds the rest."""
    game = state.game
    board = game.board
    bonus_at = [-1] * game.NA
    for name, token in (bonuses or {}).items():
        bonus_at[board.area_ids.index(name)] = game.token_names.index(token)
    state.bonus_at = bonus_at
    state.hands = [card_counts(game, hands[0]), card_counts(game, hands[1])]
    state.discard = card_counts(game, discard or {})
    state.deck = [board.deck[k] - state.hands[0][k] - state.hands[1][k] - state.discard[k]
                  for k in range(len(game.card_ids))]


def place_commanders(state: Core, occupied: dict[int, int] | None) -> list[int]:
    """Put a commander of the given seat on each space index; how many per seat."""
    deployed = [0, 0]
    for space, seat in (occupied or {}).items():
        state.occ[space] = 1 + seat
        deployed[seat] += 1
    return deployed


def begin_turn_of(state: Core, initiative: int, active: int, round: int) -> None:
    """The position stands at the deploy step of `active`'s turn (the game recomputes its derived
    masks next: `refresh_control`)."""
    state.initiative = initiative
    state.active = active
    state.round = round
    state.phase = TURN


def check_count(n: int) -> None:
    """A units id counts 1..5 units."""
    if not 1 <= n <= MAX_N:
        raise ValueError(f"n must be 1..{MAX_N}")


def advance_space(game: FamilyGame, where: str) -> int:
    """The index of the Advance space linked to area `where`."""
    kind = game.action_names.index("advance")
    for space in game.board.spaces:
        if space.action == kind and space.link >= 0 and game.board.area_ids[space.link] == where:
            return int(space.index)
    raise KeyError(f"no advance space {where} on the {game.mode} board")


def counter(game: FamilyGame, where: str) -> int:
    """The id of 'play Counter Attack and deploy to' the Advance space of `where`."""
    return game.COUNTER_BASE + advance_space(game, where)


def play(game: FamilyGame, card: str) -> int:
    """The id of playing `card` for its special effect."""
    return game.PLAY_BASE + game.card_ids.index(card)


def reroll(game: FamilyGame, card: str) -> int:
    """The id of spending `card` to re-roll."""
    return game.REROLL_BASE + game.card_ids.index(card)


def target(game: FamilyGame, area: str) -> int:
    """The id of choosing `area` as a target."""
    return game.TARGET_BASE + game.board.area_ids.index(area)
