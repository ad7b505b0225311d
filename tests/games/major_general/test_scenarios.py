"""Major General scenario cards (reconstructed, MG-S1..MG-S6): each one from a set position."""

from __future__ import annotations

import random

from hypothesis import given, settings, strategies as st

from arena.games.base import CHANCE
from arena.games.major_general.data import CUBE_POOL, SCENARIO_IDS
from arena.games.major_general.rules import SCENARIO_BASE, TARGET_RED, MajorGeneralGame
from tests.games.major_general.position import RED, YELLOW, card_with, play_action, position

DEPLOY_PUSH = card_with("deploy", "push")
CHARGE_RALLY = card_with("charge", "rally")
SABOTAGE_MOVE = card_with("sabotage", "move")


def end_turn(state, play: int) -> None:
    """Play a card and make every choice with the lowest action id until the turn ends."""
    state.apply_action(play)
    while state.current_player() not in (CHANCE,) and not state.is_terminal() and state.phase == 4:
        state.apply_action(state.legal_actions()[0])


def test_random_scenario_is_drawn_from_the_five_cards():
    state = MajorGeneralGame(scenario="random").new_initial_state()
    outcomes = state.chance_outcomes()
    assert [o for o, _ in outcomes] == list(range(SCENARIO_BASE, SCENARIO_BASE + 5))
    assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-12
    state.apply_action(SCENARIO_BASE + 2)
    assert state.observation(YELLOW)["scenario"] == SCENARIO_IDS[2]


def test_hold_the_centre_pays_the_controller_of_the_middle_each_turn():
    state = position(yellow=(1, 0, 3, 0, 0), red=(0, 0, 1, 0, 1), scenario="hold-the-centre",
                     hands=((DEPLOY_PUSH,), (0,)))
    end_turn(state, play_action(DEPLOY_PUSH, 1, mine="deploy"))  # Yellow deploys on 1; Red push on 2: none there
    assert state.cubes == [1, 0]


def test_breakthrough_pays_the_active_player_with_a_unit_on_the_enemy_base():
    state = position(yellow=(1, 0, 0, 0, 1), red=(1, 0, 0, 0, 1), scenario="breakthrough",
                     hands=((DEPLOY_PUSH,), (0,)))
    end_turn(state, play_action(DEPLOY_PUSH, 2, mine="deploy"))
    assert state.cubes == [1, 0]  # Red also has a unit on Yellow's base, but it is Yellow's turn


def test_war_of_attrition_pays_for_destroying_enemy_units_only():
    state = position(yellow=(1, 2, 1, 0, 0), red=(0, 0, 1, 0, 1), scenario="war-of-attrition",
                     hands=((CHARGE_RALLY,), (0,)))
    state.apply_action(play_action(CHARGE_RALLY, 2, mine="charge"))  # Yellow charge on 2, Red rally on 3
    state.apply_action(TARGET_RED)
    assert state.cubes == [1, 0]
    state = position(yellow=(1, 2, 1, 0, 0), red=(0, 0, 1, 0, 1), scenario="war-of-attrition",
                     hands=((CHARGE_RALLY,), (0,)))
    state.apply_action(play_action(CHARGE_RALLY, 2, mine="charge"))
    state.apply_action(TARGET_RED - 1)  # destroys a Yellow unit: no cube
    assert state.cubes == [0, 0]


def test_home_guard_pays_the_waiting_player_who_holds_their_base():
    state = position(yellow=(1, 0, 0, 0, 0), red=(0, 0, 0, 0, 2), scenario="home-guard",
                     hands=((DEPLOY_PUSH,), (0,)))
    end_turn(state, play_action(DEPLOY_PUSH, 2, mine="deploy"))
    assert state.cubes == [0, 1]  # Yellow's turn: Red, the waiting player, holds its base


def test_superior_numbers_pays_the_side_with_more_units_on_the_board():
    state = position(yellow=(1, 0, 0, 0, 0), red=(0, 0, 0, 0, 3), scenario="superior-numbers",
                     hands=((SABOTAGE_MOVE,), (0,)))
    end_turn(state, play_action(SABOTAGE_MOVE, 2, mine="sabotage"))  # nothing to sabotage on 2 or move on 3
    assert state.cubes == [0, 1]


def test_scenario_points_stop_when_the_ten_cubes_are_gone():
    state = position(yellow=(1, 0, 3, 0, 0), red=(0, 0, 1, 0, 1), scenario="hold-the-centre",
                     cubes=(6, 4), hands=((DEPLOY_PUSH,), (0,)))
    assert state.cubes_left == 0
    end_turn(state, play_action(DEPLOY_PUSH, 1, mine="deploy"))
    assert state.cubes == [6, 4]


def test_scenario_cubes_count_toward_the_final_score():
    state = position(yellow=(1, 0, 0, 0, 0), red=(0, 0, 0, 0, 1), scenario="hold-the-centre",
                     cubes=(0, 3), hands=((), (7,)), decks=((), ()), active=RED, turn=15)
    state.apply_action(play_action(7, 2, mine="sabotage"))
    assert state.is_terminal()
    assert state.outcome().scores == (1.0, 1.0 + 3)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), scenario=st.sampled_from(("random", "none") + SCENARIO_IDS))
def test_units_and_cubes_are_conserved_after_every_action(seed, scenario):
    """Invariants over random play: 10 units a side (board + supply), 10 cubes, no negative count."""
    rng = random.Random(seed)
    state = MajorGeneralGame(scenario=scenario).new_initial_state()
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            state.apply_action(state.sample_chance(rng))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
        assert min(state.units) >= 0 and min(state.supply) >= 0
        for seat in (YELLOW, RED):
            assert sum(state.units[seat::2]) + state.supply[seat] == 10
        assert sum(state.cubes) + state.cubes_left == CUBE_POOL
        hands = [bin(h).count("1") for h in state.hands]
        assert max(hands) <= 3
