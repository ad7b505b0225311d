"""The General Orders games as registered families: WWII (Alpine, its default, and Island) and
Sengoku Jidai (Rivers, its default, and Fortress); each with its typed observation and its agents'
knowledge."""

from __future__ import annotations

from arena.games.family import GameFamily, GameMode
from arena.games.general_orders.sengoku import rules as sengoku
from arena.games.general_orders.wwii import rules

WWII_NAME = "general-orders-wwii"
WWII_TITLE = "General Orders: WWII"
SENGOKU_NAME = "general-orders-sengoku"
SENGOKU_TITLE = "General Orders: Sengoku Jidai"

WWII = GameFamily(
    name=WWII_NAME,
    title=WWII_TITLE,
    modes=(
        GameMode(f"{WWII_NAME}/alpine", WWII_NAME, WWII_TITLE,
                 "Alpine mode: symmetric mountain front, Paradrop and Barrage (reconstructed board)",
                 rules.new_game, {"mode": "alpine"}, rules.MODE_OPTIONS["alpine"]),
        GameMode(f"{WWII_NAME}/island", WWII_NAME, WWII_TITLE,
                 "Island mode: asymmetric islands with air zones, Fly, Bomb and Take-off (reconstructed board)",
                 rules.new_game, {"mode": "island"}, rules.MODE_OPTIONS["island"]),
    ),
    codec="arena.rpc.codecs.general_orders_wwii",
    knowledge="arena.games.general_orders.wwii.knowledge",
    view="arena.games.general_orders.view",
    position=1,
)

SENGOKU = GameFamily(
    name=SENGOKU_NAME,
    title=SENGOKU_TITLE,
    modes=(
        GameMode(f"{SENGOKU_NAME}/rivers", SENGOKU_NAME, SENGOKU_TITLE,
                 "Rivers mode: 22 land and water areas, ships, Sail, Bombard and Shell (reconstructed board)",
                 sengoku.new_game, {"mode": "rivers"}),
        GameMode(f"{SENGOKU_NAME}/fortress", SENGOKU_NAME, SENGOKU_TITLE,
                 "Fortress mode: fortifications, siege weapons and Siege (reconstructed board and cards)",
                 sengoku.new_game, {"mode": "fortress"}),
    ),
    codec="arena.rpc.codecs.general_orders_sengoku",
    knowledge="arena.games.general_orders.sengoku.knowledge",
    view="arena.games.general_orders.view",
    position=2,
)
