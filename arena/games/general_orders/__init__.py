"""General Orders: one engine family (WWII now; Sengoku Jidai's boards and rules to join it)."""

from arena.games.general_orders.rules import GeneralOrdersGame, GeneralOrdersState

__all__ = ["GeneralOrdersGame", "GeneralOrdersState"]
