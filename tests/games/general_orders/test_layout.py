"""The layout of the General Orders family: each game's rules.py owns its turn and calls a library of
plain functions (core, commanders, cards, dice, setup, chance, state_json, supply, masks) that never
calls back into a game; checked in the source and while whole games are played."""

from __future__ import annotations

import ast
import random
import sys
from pathlib import Path
from types import FrameType
from typing import Any, cast

import pytest

from arena.games.general_orders.core import DEPLOY_BASE, TURN, Core, FamilyGame
from arena.games.general_orders.sengoku.rules import SengokuGame
from arena.games.general_orders.wwii.rules import WWIIGame

FAMILY = Path(__file__).resolve().parents[3] / "arena" / "games" / "general_orders"
LIBRARY = ("core", "commanders", "cards", "dice", "setup", "chance", "state_json", "supply", "masks")
GAMES = ("wwii/rules.py", "sengoku/rules.py")


def defined_names(path: Path) -> set[str]:
    """The functions and methods a module defines."""
    tree = ast.parse(path.read_text())
    return {node.name for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}


def called_attributes(path: Path) -> set[str]:
    """The names called as attributes (`x.name(...)`) in a module."""
    tree = ast.parse(path.read_text())
    return {node.func.attr for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)}


def test_the_library_calls_no_method_only_a_game_defines() -> None:
    library = {name: FAMILY / f"{name}.py" for name in LIBRARY}
    interface = defined_names(FAMILY.parent / "base.py")  # the Game / State interface (Outcome.to_json...)
    library_defined = set().union(interface, *(defined_names(path) for path in library.values()))
    game_only = set().union(*(defined_names(FAMILY / game) for game in GAMES)) - library_defined
    for name, path in library.items():
        assert not called_attributes(path) & game_only, f"{name}.py calls back into a game"


def test_the_library_imports_no_game() -> None:
    for name in LIBRARY:
        source = (FAMILY / f"{name}.py").read_text()
        assert ".wwii" not in source and ".sengoku" not in source, name


class CallWatch:
    """Records every call made from a library frame into a game's rules.py while it is on."""

    def __init__(self) -> None:
        self.library = {str(FAMILY / f"{name}.py") for name in LIBRARY}
        self.games = {str(FAMILY / game) for game in GAMES}
        self.back_calls: list[str] = []
        self.game_frames = 0

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if event != "call":
            return
        callee = frame.f_code.co_filename
        if callee in self.games:
            self.game_frames += 1
            caller = frame.f_back
            if caller is not None and caller.f_code.co_filename in self.library:
                self.back_calls.append(f"{caller.f_code.co_name} -> {frame.f_code.co_name}")

    def __enter__(self) -> CallWatch:
        sys.setprofile(self)
        return self

    def __exit__(self, *exc: object) -> None:
        sys.setprofile(None)


def first_deploy(game: FamilyGame, action_name: str, seed: int = 0) -> tuple[Core, int]:
    """A position from random play where the seat to decide may deploy to a space of `action_name`."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    kind = game.action_names.index(action_name)
    while not state.is_terminal():
        if state.phase == TURN:
            for action in state.legal_actions():
                if DEPLOY_BASE <= action < game.COUNTER_BASE and game.space_action[action - DEPLOY_BASE] == kind:
                    return cast(Core, state), action
        legal = state.legal_actions()
        state.apply_action(state.sample_chance(rng) if state.is_chance_node() else rng.choice(legal))
    raise AssertionError(f"no {action_name} in that game")


@pytest.mark.parametrize("game, action_name", [(WWIIGame("alpine"), "advance"), (WWIIGame("island"), "fly"),
                                               (SengokuGame("rivers"), "sail"), (SengokuGame("fortress"), "siege")])
def test_one_action_from_decision_to_new_state_makes_no_call_back(game: FamilyGame, action_name: str) -> None:
    state, action = first_deploy(game, action_name)
    with CallWatch() as watch:
        state.apply_action(action)
    assert watch.game_frames and not watch.back_calls, watch.back_calls[:5]


@pytest.mark.parametrize("name", ["alpine", "island", "rivers", "fortress"])
def test_whole_random_games_make_no_call_from_the_library_into_a_game(name: str) -> None:
    game = WWIIGame(name) if name in ("alpine", "island") else SengokuGame(name)
    for seed in range(3):
        rng = random.Random(seed)
        state = game.new_initial_state()
        with CallWatch() as watch:
            while not state.is_terminal():
                legal = state.legal_actions()
                state.apply_action(state.sample_chance(rng) if state.is_chance_node() else rng.choice(legal))
                state.clone().to_json()
        assert watch.game_frames and not watch.back_calls, watch.back_calls[:5]
