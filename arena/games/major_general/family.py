"""Major General as a registered family: the rulebook's random scenario (the default), no scenario,
and each scenario card; its typed observation and its agents' knowledge."""

from __future__ import annotations

from arena.games.family import GameFamily, GameMode
from arena.games.major_general.data import SCENARIOS
from arena.games.major_general.rules import new_game

NAME = "major-general"
TITLE = "Major General: Duel of Time"

FAMILY = GameFamily(
    name=NAME,
    title=TITLE,
    modes=(
        GameMode(NAME, NAME, TITLE, "a scenario card drawn at random (the rulebook's setup)", new_game,
                 {"scenario": "random"}),
        GameMode(f"{NAME}/no-scenario", NAME, TITLE, "territory points only", new_game,
                 {"scenario": "none", "name": f"{NAME}/no-scenario"}),
        *(GameMode(f"{NAME}/{scenario.id}", NAME, TITLE, f"scenario {scenario.name}: {scenario.text}", new_game,
                   {"scenario": scenario.id}) for scenario in SCENARIOS),
    ),
    codec="arena.rpc.codecs.major_general",
    knowledge="arena.games.major_general.knowledge",
    view="arena.games.major_general.view",
    position=0,
)
