"""The registered names of General Orders: WWII: the Alpine mode (the family default) and the Island mode."""

from __future__ import annotations

from arena.games.general_orders.rules import new_game
from arena.games.registry import GameMode

FAMILY = "general-orders-wwii"
TITLE = "General Orders: WWII"


def registered_modes() -> list[tuple[GameMode, bool]]:
    """(mode, is_default) pairs for the registry."""
    return [
        (GameMode(f"{FAMILY}/alpine", FAMILY, TITLE,
                  "Alpine mode: symmetric mountain front, Paradrop and Barrage (reconstructed board)",
                  new_game, {"mode": "alpine"}), True),
        (GameMode(f"{FAMILY}/island", FAMILY, TITLE,
                  "Island mode: asymmetric islands with air zones, Fly, Bomb and Take-off (reconstructed board)",
                  new_game, {"mode": "island"}), False),
    ]
