"""The field `make demo` plays (`--bots builtin`): every built-in bot at a demo-sized budget."""

from __future__ import annotations

import pytest

from arena.agents import make_agent
from arena.games.registry import game_modes, load_game
from arena.tournament.bots import builtin_bots


@pytest.mark.parametrize("mode", ["major-general", "general-orders-wwii/alpine", "general-orders-sengoku/rivers"])
def test_the_demo_field_is_every_built_in_bot_at_a_demo_budget(mode: str) -> None:
    specs = {bot.name: bot.spec for bot in builtin_bots(load_game(mode))}
    assert specs["random"] == "random" and specs["scripted"] == "scripted" and specs["greedy"] == "greedy"
    assert specs["mcts(30)"] == "mcts:iterations=30"
    pytest.importorskip("pyspiel", reason="the openspiel extra is not installed")
    assert specs["openspiel-mcts(20,arena)"] == "openspiel-mcts:simulations=20:evaluator=arena"
    assert specs["openspiel-ismcts(20,arena)"] == "openspiel-ismcts:simulations=20:evaluator=arena"
    assert len(specs) == 6
    for spec in specs.values():
        make_agent(spec).close()


def test_every_registered_mode_has_a_demo_field() -> None:
    for mode in game_modes():
        assert len(builtin_bots(load_game(mode.name))) >= 4, mode.name  # scripted claims every family
