"""Cards and scenarios of Major General: Duel of Time, loaded from the JSON files beside this module.

Both are reconstructions (the printed cards are not public); the files say so and
docs/rules-decisions.md records each assumption.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

COMMANDS: tuple[str, ...] = ("deploy", "push", "charge", "sabotage", "move", "rally")
DEPLOY, PUSH, CHARGE, SABOTAGE, MOVE, RALLY = range(6)

TRIGGERS = ("end_of_turn", "on_destroy_enemy")
WHO = ("each", "active", "inactive", "destroyer")
CONDITIONS = ("controls_space", "has_units_on_space", "more_units_on_board", "always")


@dataclass(frozen=True)
class Scenario:
    """A scenario card: when it pays a cube, to whom, and on what condition."""

    index: int
    id: str
    name: str
    text: str
    trigger: str
    who: str
    condition: str
    space_from_own_base: int  # 1..5, or 0 when the condition names no space


def _read(name: str) -> dict[str, Any]:
    return json.loads(resources.files(__package__).joinpath("data", name).read_text("utf-8"))


def load_cards() -> tuple[tuple[int, int], ...]:
    """The 8 cards as (first command, second command) pairs, validated."""
    data = _read("cards.json")
    if tuple(data["commands"]) != COMMANDS:
        raise ValueError("cards.json: commands must be " + ", ".join(COMMANDS))
    cards = tuple((COMMANDS.index(a), COMMANDS.index(b)) for a, b in data["cards"])
    _check_deck(cards)
    return cards


def _check_deck(cards: tuple[tuple[int, int], ...]) -> None:
    """ValueError unless the deck is 8 cards of two different commands, no pair repeated, each command on two."""
    if len(cards) != 8:
        raise ValueError("cards.json: a command deck holds 8 cards")
    if any(a == b for a, b in cards) or len({frozenset(card) for card in cards}) != 8:
        raise ValueError("cards.json: each card carries two different commands, no pair repeated")
    for command in range(len(COMMANDS)):
        if sum(command in card for card in cards) < 2:
            raise ValueError(f"cards.json: command {COMMANDS[command]} must appear on two cards")


def load_scenarios() -> tuple[tuple[Scenario, ...], int]:
    """The scenario cards, validated, and the size of the shared scenario-cube pool."""
    data = _read("scenarios.json")
    scenarios = []
    for index, raw in enumerate(data["scenarios"]):
        condition = raw["condition"]
        scenario = Scenario(
            index=index,
            id=raw["id"],
            name=raw["name"],
            text=raw["text"],
            trigger=raw["trigger"],
            who=raw["who"],
            condition=condition["kind"],
            space_from_own_base=int(condition.get("space_from_own_base", 0)),
        )
        if scenario.trigger not in TRIGGERS or scenario.who not in WHO:
            raise ValueError(f"scenarios.json: {scenario.id}: bad trigger or who")
        if scenario.condition not in CONDITIONS:
            raise ValueError(f"scenarios.json: {scenario.id}: unknown condition {scenario.condition}")
        needs_space = scenario.condition in ("controls_space", "has_units_on_space")
        if needs_space != (1 <= scenario.space_from_own_base <= 5):
            raise ValueError(f"scenarios.json: {scenario.id}: space_from_own_base must be 1..5")
        scenarios.append(scenario)
    if len(scenarios) != 5 or len({s.id for s in scenarios}) != 5:
        raise ValueError("scenarios.json: five scenario cards with distinct ids")
    return tuple(scenarios), int(data["cube_pool"])


CARDS = load_cards()
SCENARIOS, CUBE_POOL = load_scenarios()
SCENARIO_IDS = tuple(s.id for s in SCENARIOS)
