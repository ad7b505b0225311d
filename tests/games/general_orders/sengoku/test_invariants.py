"""Invariants over random Sengoku play (hypothesis): troops, ships, siege weapons, caps, commanders
and cards are conserved, units stay on their kind of area, and the memoised supply always equals a
search from scratch over land and water areas alike."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from arena.games.general_orders.supply import supplied_from_scratch
from arena.games.general_orders.core import OVER, TURN
from arena.games.general_orders.sengoku.rules import SengokuGame, SengokuState
from tests.games.general_orders.family import check_random_play, phases_and_endings

GAMES = {mode: SengokuGame(mode) for mode in ("rivers", "fortress")}


def check_invariants(state: SengokuState) -> None:
    game = state.game
    board = game.board
    for seat in (0, 1):
        assert sum(state.troops[seat]) + state.res_troops[seat] == board.troops
        assert sum(state.ships[seat]) + state.res_ships[seat] == board.ships
        assert sum(state.siege[seat]) + state.res_siege[seat] == board.siege_weapons
        assert min(state.troops[seat] + state.ships[seat] + state.siege[seat]) >= 0
        assert min(state.res_troops[seat], state.res_ships[seat], state.res_siege[seat]) >= 0
        for a in range(game.NA):
            if board.is_water[a]:
                assert not state.troops[seat][a] and not state.siege[seat][a]
            else:
                assert not state.ships[seat][a]
        commanders = state.cmd_reserve[seat] + state.cmd_standby[seat] + state.commanders_deployed(seat)
        assert commanders == board.commanders and min(state.cmd_reserve[seat], state.cmd_standby[seat]) >= 0
        occupied = [state.units(seat, a) for a in range(game.NA)]
        assert state.ctrl[seat] == sum(1 << a for a, n in enumerate(occupied) if n)
        assert state.supplied(seat) == supplied_from_scratch(board.area_adj, board.hq[seat], occupied)
    for kind in range(len(board.deck)):
        held = state.deck[kind] + state.discard[kind] + state.hands[0][kind] + state.hands[1][kind]
        assert held == board.deck[kind]
    if state.phase in (TURN, OVER):  # between actions: every cap holds, one side per area
        for a in range(game.NA):
            cap = board.water_cap if board.is_water[a] else board.land_cap
            assert max(state.units(0, a), state.units(1, a)) <= cap
            assert not (state.units(0, a) and state.units(1, a))
    if state.phase == TURN:
        assert state.cmd_reserve[state.active] > 0
        for seat in (0, 1):
            assert state.land_units(seat, board.hq[seat]) > 0  # an empty HQ has ended the game


@pytest.mark.parametrize("mode", ["rivers", "fortress"])
@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_invariants_hold_at_every_step_of_random_play(mode: str, seed: int) -> None:
    check_random_play(GAMES[mode], seed, check_invariants)


@pytest.mark.parametrize("mode", ["rivers", "fortress"])
def test_every_kind_of_step_happens_in_random_play(mode: str) -> None:
    """Random play reaches every phase of the mode (a coverage check on the engine's paths)."""
    game = GAMES[mode]
    seen, reasons = phases_and_endings(game, range(200))
    expected = {"setup-bonus", "setup-initiative", "turn", "move-in", "target", "place", "withdraw", "defend",
                "roll", "reroll", "draw"}
    expected.add("loss" if game.board.has_siege else "follow-up")
    assert expected <= seen, expected - seen
    assert "victory_points" in reasons
    if mode == "rivers":  # random play seldom storms a fortified Fortress HQ; Rivers HQs do fall
        assert "hq_lost" in reasons
