"""What the viewer is given of General Orders: the order board's spaces and, in every position, the
commanders on each of them per side, as the engine counts them."""

from __future__ import annotations

import random

import pytest

from arena.games import views
from arena.games.registry import load_game

MODES = ("general-orders-wwii/alpine", "general-orders-wwii/island", "general-orders-sengoku/rivers",
         "general-orders-sengoku/fortress")


@pytest.mark.parametrize("mode", MODES)
def test_the_order_board_holds_each_sides_commanders_where_the_engine_has_them(mode: str) -> None:
    game = load_game(mode)
    board = views.board(game)
    spaces = board["orders"]
    assert len(spaces) == len(game.board.spaces)  # type: ignore[attr-defined]
    assert all(space["area"] is None or space["area"] in {a["id"] for a in board["areas"]} for space in spaces)
    deploys = 0
    for seed in range(3):
        state, rng = game.new_initial_state(), random.Random(seed)
        while not state.is_terminal():
            player = state.current_player()
            action = rng.choice(state.legal_actions())
            label = state.action_to_string(action)
            state.apply_action(action)
            orders = views.position(state, True)["orders"]
            for seat in (0, 1):
                assert sum(placed[seat] for placed in orders) == state.commanders_deployed(seat)  # type: ignore
            if player >= 0 and "deploy a commander to " in label and any(map(any, orders)):  # (not the round's last)
                deploys += 1
                target = label.split("deploy a commander to ", 1)[1]
                [index] = [space["index"] for space in spaces if space["label"] == target]
                assert orders[index][player] >= 1, (label, orders[index])
    assert deploys > 0
