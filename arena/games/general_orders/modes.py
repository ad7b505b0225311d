"""The registered names of the General Orders family: WWII (Alpine, the family default, and Island)
and Sengoku Jidai (Rivers, its default, and Fortress)."""

from __future__ import annotations

from arena.games.general_orders import rules, sengoku
from arena.games.registry import GameMode

FAMILY = "general-orders-wwii"
TITLE = "General Orders: WWII"
SENGOKU_FAMILY = "general-orders-sengoku"
SENGOKU_TITLE = "General Orders: Sengoku Jidai"


def registered_modes() -> list[tuple[GameMode, bool]]:
    """(mode, is_default) pairs for the registry."""
    return [
        (GameMode(f"{FAMILY}/alpine", FAMILY, TITLE,
                  "Alpine mode: symmetric mountain front, Paradrop and Barrage (reconstructed board)",
                  rules.new_game, {"mode": "alpine"}), True),
        (GameMode(f"{FAMILY}/island", FAMILY, TITLE,
                  "Island mode: asymmetric islands with air zones, Fly, Bomb and Take-off (reconstructed board)",
                  rules.new_game, {"mode": "island"}), False),
        (GameMode(f"{SENGOKU_FAMILY}/rivers", SENGOKU_FAMILY, SENGOKU_TITLE,
                  "Rivers mode: 22 land and water areas, ships, Sail, Bombard and Shell (reconstructed board)",
                  sengoku.new_game, {"mode": "rivers"}), True),
        (GameMode(f"{SENGOKU_FAMILY}/fortress", SENGOKU_FAMILY, SENGOKU_TITLE,
                  "Fortress mode: fortifications, siege weapons and Siege (reconstructed board and cards)",
                  sengoku.new_game, {"mode": "fortress"}), False),
    ]
