"""The names of each family's value features: what a value model's weights are for (arena/luck/models/*.json
name them). Each name stands where its feature stands in the list the family's knowledge module gives
(`value_features`: arena/games/major_general/knowledge.py, arena/games/general_orders/knowledge.py), each feature
being seat 0's side less seat 1's."""

from __future__ import annotations

from typing import Callable, cast

from arena.agents.knowledge import knowledge_for
from arena.games.base import Game, State
from arena.games.major_general.data import CARDS, COMMANDS, SCENARIOS
from arena.games.major_general.rules import NUM_CARDS, RED, YELLOW, MajorGeneralState
from arena.games.registry import family_of

#: Major General: the evaluation's lead (squashed), the share of the game played, their product, the scenario
#: cubes taken; then each card in hand, named by its two commands.
MAJOR_GENERAL = ("lead", "progress", "lead_by_progress", "cubes",
                 *(f"hand_{COMMANDS[first]}_{COMMANDS[second]}" for first, second in CARDS))
#: General Orders (both games): the evaluation's lead, the share of the game played, their product, the VP supplied,
#: the troops on the board and in reserve, the initiative; then each kind of card in hand (`hand_<card id>`).
GENERAL_ORDERS = ("lead", "progress", "lead_by_progress", "vp_supplied", "troops", "reserve_troops", "initiative")


class UnnamedFeatures(LookupError):
    """A family whose value features have no names here."""


def feature_names(game: Game) -> tuple[str, ...]:
    """The names of `game`'s value features, in their order."""
    family = family_of(game.name).name
    if family == "major-general":
        return MAJOR_GENERAL
    if family.startswith("general-orders-"):
        return GENERAL_ORDERS + tuple(f"hand_{card}" for card in getattr(game, "card_ids"))
    raise UnnamedFeatures(f"the value features of {family} have no names (arena/luck/features.py)")


#: Major General's hand-and-deck inputs (a value model's `"inputs": "hand_deck"`): its value features, then what
#: is left in each deck (each card, Yellow's less Red's), who moved first (+1 Yellow, -1 Red), the scenario drawn
#: (one per scenario), each card in hand (Yellow's less Red's) times the share played and times the lead, each
#: card left in the decks times the share played, each card in hand per scenario, and who moved first per scenario.
#: Fitted to the scripted players' own rollout values (bench/luck_rollouts.py's), not to results.
MAJOR_GENERAL_HAND_DECK = (
    *MAJOR_GENERAL,
    *(f"deck_{COMMANDS[a]}_{COMMANDS[b]}" for a, b in CARDS), "first",
    *(f"scenario_{scenario.id.replace('-', '_')}" for scenario in SCENARIOS),
    *(f"hand_{COMMANDS[a]}_{COMMANDS[b]}_by_progress" for a, b in CARDS),
    *(f"hand_{COMMANDS[a]}_{COMMANDS[b]}_by_lead" for a, b in CARDS),
    *(f"deck_{COMMANDS[a]}_{COMMANDS[b]}_by_progress" for a, b in CARDS),
    *(f"hand_{COMMANDS[a]}_{COMMANDS[b]}_in_{scenario.id.replace('-', '_')}" for scenario in SCENARIOS
      for a, b in CARDS),
    *(f"first_in_{scenario.id.replace('-', '_')}" for scenario in SCENARIOS))


def major_general_hand_deck(state: State) -> list[float]:
    """MAJOR_GENERAL_HAND_DECK's values of a Major General position (the full state: hands, decks, who moved first,
    the scenario), each for Yellow less Red."""
    generic = knowledge_for(state.game).value_features
    assert generic is not None
    base = generic(state)
    position = cast(MajorGeneralState, state)
    lead, progress = base[0], base[1]
    hand = base[4:]
    deck = _deck_balance(position)
    first = _first_mover_sign(position)
    drawn = [float(position.scenario == index) for index in range(len(SCENARIOS))]
    return [*base, *deck, first, *drawn, *(h * progress for h in hand), *(h * lead for h in hand),
            *(d * progress for d in deck), *(h * s for s in drawn for h in hand), *(first * s for s in drawn)]


def _deck_balance(position: MajorGeneralState) -> list[float]:
    """Each card's presence in Yellow's deck less in Red's (no decks: all zero)."""
    decks = position.decks or [0, 0]
    return [float((decks[YELLOW] >> card & 1) - (decks[RED] >> card & 1)) for card in range(NUM_CARDS)]


def _first_mover_sign(position: MajorGeneralState) -> float:
    """Who moved first: +1 Yellow, -1 Red, 0 not yet decided."""
    return 0.0 if position.first < 0 else 1.0 if position.first == YELLOW else -1.0


#: What a value model may read (its file's `inputs`), by name: "value" (the default) is its family's value features.
INPUTS: dict[str, tuple[tuple[str, ...], Callable[[State], list[float]]]] = {
    "hand_deck": (MAJOR_GENERAL_HAND_DECK, major_general_hand_deck)}
