"""The viewer's positions (arena.games.views) of every mode: a spectator's position (reveal=False) says
nothing hidden, however the hands and the deck are dealt as far as any seat can tell, and a revealed
one shows the hands; every area a position names is on the board; positions are plain JSON."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.games.base import CHANCE
from arena.games.registry import game_modes, load_game
from arena.games.views import board, position

MODES = [mode.name for mode in game_modes() if mode.family in ("major-general", "general-orders-wwii",
                                                                "general-orders-sengoku")]


def test_every_shipped_mode_is_drawn() -> None:
    assert len(MODES) == 11
    for name in MODES:
        drawn = board(load_game(name))
        assert drawn["kind"] == "areas" and drawn["areas"] and drawn["edges"]
        ids = [area["id"] for area in drawn["areas"]]
        assert len(set(ids)) == len(ids)
        assert all(0 <= area["x"] <= 1 and 0 <= area["y"] <= 1 for area in drawn["areas"])
        assert all(0 <= i < len(ids) and 0 <= j < len(ids) for i, j in drawn["edges"])


@pytest.mark.parametrize("name", MODES)
@given(seed=st.integers(0, 2**32 - 1))
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_a_spectators_position_hides_every_hand_and_the_deck(name: str, seed: int) -> None:
    game = load_game(name)
    rng = random.Random(seed)
    drawn = board(game)
    areas = {area["id"] for area in drawn["areas"]}
    groups = {group["id"] for group in drawn["groups"]}
    state = game.new_initial_state()
    checked = 0
    while not state.is_terminal():
        public = position(state, reveal=False)
        assert json.loads(json.dumps(public)) == public
        assert set(public["units"]) <= areas and set(public["marks"]) <= areas and set(public["groups"]) <= groups
        assert all(side["hand"] is None for side in public["sides"])
        if state.current_player() != CHANCE and rng.random() < 0.3:
            checked += 1
            for seat in range(game.num_seats):
                dealt = game.determinize(state.observation(seat), rng)
                assert position(dealt, reveal=False) == public, f"{name}: the public position depends on hidden cards"
        revealed = position(state, reveal=True)
        assert [side["hand_count"] for side in revealed["sides"]] == [side["hand_count"] for side in public["sides"]]
        assert all(side["hand"] is not None and len(side["hand"]) == side["hand_count"]
                   for side in revealed["sides"])
        action = state.sample_chance(rng) if state.current_player() == CHANCE else rng.choice(state.legal_actions())
        state.apply_action(action)
    assert checked > 0


@pytest.mark.parametrize("name", ["major-general", "general-orders-wwii/island", "general-orders-sengoku/fortress"])
def test_the_check_has_teeth(name: str) -> None:
    """A revealed position would fail the check: it does depend on how the hidden cards are dealt."""
    game = load_game(name)
    rng = random.Random(5)
    state = game.new_initial_state()
    differs = 0
    while not state.is_terminal() and not differs:
        if state.current_player() != CHANCE:
            shown = position(state, reveal=True)
            differs += sum(position(game.determinize(state.observation(seat), rng), reveal=True) != shown
                           for seat in range(game.num_seats) for _ in range(4))
            state.apply_action(rng.choice(state.legal_actions()))
        else:
            state.apply_action(state.sample_chance(rng))
    assert differs
