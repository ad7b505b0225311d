"""General Orders: one engine (engine.py) for the family's games, WWII (rules.py) and Sengoku Jidai
(sengoku.py); shared pieces: common.py (bit masks, dice, supply, cards), loader.py (data files),
builder.py (set positions); each game's data in data.py / sengoku_data.py."""

from arena.games.general_orders.rules import GeneralOrdersGame, GeneralOrdersState
from arena.games.general_orders.sengoku import SengokuGame, SengokuState

__all__ = ["GeneralOrdersGame", "GeneralOrdersState", "SengokuGame", "SengokuState"]
