"""The registered names of Major General: the rulebook's random scenario, no scenario, and each card."""

from __future__ import annotations

from arena.games.major_general.data import SCENARIOS
from arena.games.major_general.rules import new_game
from arena.games.registry import GameMode

FAMILY = "major-general"
TITLE = "Major General: Duel of Time"


def registered_modes() -> list[tuple[GameMode, bool]]:
    """(mode, is_default) pairs for the registry."""
    modes = [
        (
            GameMode(FAMILY, FAMILY, TITLE, "a scenario card drawn at random (the rulebook's setup)",
                     new_game, {"scenario": "random"}),
            True,
        ),
        (
            GameMode(f"{FAMILY}/no-scenario", FAMILY, TITLE, "territory points only",
                     new_game, {"scenario": "none", "name": f"{FAMILY}/no-scenario"}),
            False,
        ),
    ]
    for scenario in SCENARIOS:
        modes.append(
            (GameMode(f"{FAMILY}/{scenario.id}", FAMILY, TITLE, f"scenario {scenario.name}: {scenario.text}",
                      new_game, {"scenario": scenario.id}),
             False)
        )
    return modes
