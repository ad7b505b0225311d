"""General Orders: one engine family for WWII (rules.py) and Sengoku Jidai (sengoku.py)."""

from arena.games.general_orders.rules import GeneralOrdersGame, GeneralOrdersState
from arena.games.general_orders.sengoku import SengokuGame, SengokuState

__all__ = ["GeneralOrdersGame", "GeneralOrdersState", "SengokuGame", "SengokuState"]
