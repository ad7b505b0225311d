"""The names of each family's value features: what a value model's weights are for (arena/luck/models/*.json
name them). Each name stands where its feature stands in the list the family's knowledge module gives
(`value_features`: arena/games/major_general/knowledge.py, arena/games/general_orders/knowledge.py), each feature
being seat 0's side less seat 1's."""

from __future__ import annotations

from arena.games.base import Game
from arena.games.major_general.data import CARDS, COMMANDS
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
