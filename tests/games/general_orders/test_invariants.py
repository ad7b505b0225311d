"""Invariants over random play (hypothesis): units, caps, commanders and cards are conserved, and the
memoised supply always equals a search from scratch (the hidden hand: test_family.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from arena.games.general_orders.supply import supplied_from_scratch
from arena.games.general_orders.core import MOVE, OVER, PLACE, TURN, WITHDRAW
from arena.games.general_orders.wwii.rules import WWIIGame, WWIIState
from tests.games.general_orders.family import check_random_play, phases_and_endings

GAMES = {mode: WWIIGame(mode) for mode in ("alpine", "island")}


def check_invariants(state: WWIIState) -> None:
    game = state.game
    board = game.board
    for seat in (0, 1):
        assert sum(state.troops[seat]) + state.res_troops[seat] == board.troops
        if game.NZ:
            assert sum(state.aircraft[seat]) + state.res_air[seat] == board.aircraft
        assert min(state.troops[seat]) >= 0 and min(state.aircraft[seat], default=0) >= 0
        assert state.res_troops[seat] >= 0 and state.res_air[seat] >= 0
        commanders = state.cmd_reserve[seat] + state.cmd_standby[seat] + state.commanders_deployed(seat)
        assert commanders == board.commanders_reserve + board.commanders_standby
        assert min(state.cmd_reserve[seat], state.cmd_standby[seat]) >= 0
        # Derived control masks and memoised supply equal a search from the unit counts.
        assert state.ctrl[seat] == sum(1 << a for a, n in enumerate(state.troops[seat]) if n)
        assert state.supplied(seat) == supplied_from_scratch(board.area_adj, board.hq[seat], state.troops[seat])
        if game.NZ:
            assert state.actrl[seat] == sum(1 << z for z, n in enumerate(state.aircraft[seat]) if n)
            assert state.air_supplied(seat) == supplied_from_scratch(board.zone_adj, board.hq_zone[seat],
                                                                     state.aircraft[seat])
    for kind in range(len(board.deck)):
        held = state.deck[kind] + state.discard[kind] + state.hands[0][kind] + state.hands[1][kind]
        assert held == board.deck[kind]
    if state.phase in (TURN, OVER):  # between actions: every cap holds, one side per area
        for a in range(game.NA):
            assert max(state.troops[0][a], state.troops[1][a]) <= board.land_cap
            assert not (state.troops[0][a] and state.troops[1][a])
        for z in range(game.NZ):
            assert max(state.aircraft[0][z], state.aircraft[1][z]) <= board.air_cap
            assert not (state.aircraft[0][z] and state.aircraft[1][z])
    if state.phase in (MOVE, PLACE, WITHDRAW):
        assert state.active in (0, 1)


@pytest.mark.parametrize("mode", ["alpine", "island"])
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_invariants_hold_at_every_step_of_random_play(mode: str, seed: int) -> None:
    check_random_play(GAMES[mode], seed, check_invariants)


@pytest.mark.parametrize("mode", ["alpine", "island"])
def test_every_kind_of_step_happens_in_random_play(mode: str) -> None:
    """Random play reaches every phase of the mode (a coverage check on the engine's paths)."""
    game = GAMES[mode]
    seen, reasons = phases_and_endings(game, range(300))
    expected = {"setup-bonus", "setup-initiative", "turn", "blitz-deploy", "move-in", "target", "withdraw",
                "place", "defend", "roll", "reroll", "draw"}
    if mode == "island":
        expected.add("payload")
    assert expected <= seen, expected - seen
    assert {"victory_points", "hq_lost"} <= reasons
