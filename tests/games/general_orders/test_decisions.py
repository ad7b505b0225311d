"""One test per General Orders (WWII) rules decision in docs/rules-decisions.md (GO-*)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from arena.games.base import IllegalActionError
from arena.games.general_orders.wwii.board import BOARDS, CARD_IDS, CARDS
from arena.games.general_orders.core import DRAW, REASON_HQ, REASON_TIE, ROLL
from arena.games.general_orders.core import ACCEPT, DECLINE, DEFEND, DONE, MOVE, OVER, PASS, PLACE, REROLL, TARGET, TURN, WITHDRAW
from arena.games.general_orders.wwii.rules import BLITZ_DEPLOY, DICE_BASE, PAYLOAD, PHASE_NAMES, WWIIGame, WWIIState
from tests.games.general_orders.helpers import (
    ALPINE,
    BLUE,
    ISLAND,
    YELLOW,
    aircraft_at,
    area,
    build_position,
    counter,
    deploy,
    is_chance,
    move_in,
    names,
    payload,
    pips,
    play,
    reroll,
    run,
    space_index,
    target,
    troops_at,
    zone,
)

BLUE_HOME = {"B-HQ": (3, 0), "B-W1": (2, 0), "B-C1": (2, 0), "B-E1": (2, 0)}
YELLOW_HOME = {"Y-HQ": (0, 3), "Y-W1": (0, 2), "Y-C1": (0, 2), "Y-E1": (0, 2)}


# --- ambiguities 1..15 ------------------------------------------------------------------------

def test_go1_caps_hold_at_the_end_of_every_action():
    state = build_position(ALPINE, troops={"B-HQ": (3, 0), "B-W1": (2, 0), "B-W2": (5, 0), "M-CW": (5, 0),
                                           **YELLOW_HOME})
    move_in(state, deploy(ALPINE, "advance", "M-W"), troops_at(ALPINE, "B-W2", 4), troops_at(ALPINE, "M-CW", 4))
    assert state.troops[BLUE][area(ALPINE, "M-W")] == 5  # 8 moved in, 3 back to the reserve
    assert state.res_troops[BLUE] == 25 - 15 + 3


def test_go2_equal_attrition_empties_the_area_and_an_empty_hq_ends_the_game():
    state = build_position(ALPINE, troops={"B-HQ": (2, 0), "B-W1": (2, 0), "B-W2": (2, 0), "M-W": (2, 0),
                                           "Y-W2": (2, 0), "Y-W1": (5, 0), "Y-HQ": (0, 2), "Y-C1": (0, 2)})
    move_in(state, deploy(ALPINE, "advance", "Y-HQ"), troops_at(ALPINE, "Y-W1", 4))
    run(state, pips(2))
    hq = area(ALPINE, "Y-HQ")
    assert state.troops[BLUE][hq] == 0 and state.troops[YELLOW][hq] == 0
    assert state.phase == OVER and state.outcome().winners == (BLUE,) and state.reason == REASON_HQ


def test_go3_losses_need_no_choice_the_turn_passes_right_after_the_roll():
    state = build_position(ALPINE, troops={**BLUE_HOME, "B-C2": (4, 0), "M-CE": (0, 3), **YELLOW_HOME})
    move_in(state, deploy(ALPINE, "advance", "M-CE"), troops_at(ALPINE, "B-C2", 3))
    assert state.phase == ROLL
    run(state, pips(1))
    assert state.phase == TURN and state.active == YELLOW
    assert state.troops[BLUE][area(ALPINE, "M-CE")] == 0 and state.troops[YELLOW][area(ALPINE, "M-CE")] == 1


def test_go4_advance_sources_are_those_supplied_when_the_action_starts():
    state = build_position(ALPINE, troops={"B-HQ": (3, 0), "B-C1": (2, 0), "B-C2": (3, 0), "M-E": (3, 0),
                                           **YELLOW_HOME})
    run(state, deploy(ALPINE, "advance", "B-E2"))
    assert state.phase == MOVE
    assert state.legal_actions() == [troops_at(ALPINE, "B-C2", 1), troops_at(ALPINE, "B-C2", 2)]
    run(state, troops_at(ALPINE, "B-C2", 1))
    assert state.supplied(BLUE) >> area(ALPINE, "M-E") & 1  # now in supply, yet still no source
    assert state.legal_actions() == [DONE, troops_at(ALPINE, "B-C2", 1)]


def test_go5_barrage_may_empty_an_hq_and_win_at_once():
    state = build_position(ALPINE, troops={"B-HQ": (3, 0), "B-C1": (2, 0), "B-C2": (2, 0), "M-CW": (2, 0),
                                           "Y-HQ": (0, 1), "Y-C1": (0, 2)})
    run(state, deploy(ALPINE, "barrage", "M-CW"), target(ALPINE, "Y-HQ"), pips(1))
    assert state.phase == OVER and state.outcome().winners == (BLUE,) and state.reason == REASON_HQ


def test_go6_barrage_range_counts_steps_over_land_areas_whoever_holds_them():
    board = ALPINE.board
    m_cw = area(ALPINE, "M-CW")
    assert names(ALPINE, board.within3[m_cw]) >= {"Y-HQ", "B-HQ"}  # through either side's areas
    assert "Y-HQ" not in names(ALPINE, board.within3[area(ALPINE, "B-E1")])


def test_go7_signal_unit_is_lost_when_a_supply_line_is_cut_elsewhere():
    state = build_position(ALPINE, troops={"B-HQ": (2, 0), "B-C1": (2, 0), "B-C2": (1, 0), "M-CW": (2, 0),
                                           "Y-HQ": (0, 2), "Y-E1": (0, 2)},
                           bonuses={"M-CW": "signal_unit"}, commanders_reserve=(6, 5),
                           commanders_standby=(3, 4), active=YELLOW)
    assert state.signal == [2, 0]
    run(state, deploy(ALPINE, "barrage", "Y-E1"), target(ALPINE, "B-C2"), pips(2))
    assert state.troops[BLUE][area(ALPINE, "M-CW")] == 2  # still controlled, no longer supplied
    assert state.signal == [0, 0] and state.cmd_reserve[BLUE] == 5 and state.cmd_standby[BLUE] == 4


def test_go7_signal_unit_gives_back_only_a_commander_it_gained():
    state = build_position(ALPINE, troops={"B-HQ": (2, 0), "B-C1": (2, 0), "B-C2": (1, 0), "M-CW": (2, 0),
                                           "Y-HQ": (0, 2), "Y-E1": (0, 2)},
                           bonuses={"M-CW": "signal_unit"}, commanders_reserve=(9, 5),
                           commanders_standby=(0, 4), signal=(1, 0), active=YELLOW)
    run(state, deploy(ALPINE, "barrage", "Y-E1"), target(ALPINE, "B-C2"), pips(2))
    assert state.signal == [0, 0] and state.cmd_reserve[BLUE] == 9 and state.cmd_standby[BLUE] == 0


def test_go8_blitz_deploys_a_standby_commander_first_then_the_turn_goes_on():
    state = build_position(ALPINE, troops={**BLUE_HOME, **YELLOW_HOME}, hands=({"blitz": 1}, {}))
    assert play(ALPINE, "blitz") in state.legal_actions()
    run(state, play(ALPINE, "blitz"))
    assert state.phase == BLITZ_DEPLOY and PASS not in state.legal_actions()
    run(state, deploy(ALPINE, "plan", value=2), DICE_BASE and 8 + CARD_IDS.index("ambush"),
        8 + CARD_IDS.index("mobilize"))
    plan = space_index(ALPINE, "plan", value=2)
    assert state.occ[plan] == 1 + BLUE + 2  # a Blitz commander
    assert state.phase == TURN and state.active == BLUE  # the normal turn follows
    assert (state.cmd_reserve[BLUE], state.cmd_standby[BLUE]) == (5, 3)
    assert play(ALPINE, "blitz") not in state.legal_actions()
    run(state, PASS, PASS)  # both pass: recall
    assert (state.cmd_reserve[BLUE], state.cmd_standby[BLUE]) == (5, 4) and state.round == 2


def test_go9_an_effect_resolves_once_a_turn_but_rerolls_are_unlimited():
    state = build_position(ALPINE, troops={"B-HQ": (3, 0), "B-W1": (4, 0), "B-E1": (4, 0), **YELLOW_HOME},
                           hands=({"blitz": 1, "ground_assault": 2}, {}))
    move_in(state, play(ALPINE, "blitz"), deploy(ALPINE, "advance", "B-W2"), troops_at(ALPINE, "B-W1", 1),
            play(ALPINE, "ground_assault"))
    assert state.phase == TURN and state.active == BLUE
    run(state, deploy(ALPINE, "advance", "B-E2"), troops_at(ALPINE, "B-E1", 1))
    assert play(ALPINE, "ground_assault") not in state.legal_actions()  # once this turn
    assert state.hands[BLUE][CARD_IDS.index("ground_assault")] == 1


def test_go9_only_the_roller_rerolls_and_may_do_so_again_and_again():
    state = build_position(ALPINE, troops={**BLUE_HOME, "Y-E2": (0, 3), "Y-C2": (0, 1), "Y-HQ": (0, 3)},
                           hands=({"ambush": 1, "mobilize": 1}, {"ambush": 2}))
    run(state, deploy(ALPINE, "barrage", "B-E1"), target(ALPINE, "Y-E2"), pips(0))
    assert state.phase == REROLL and state.current_player() == BLUE
    assert state.legal_actions() == [ACCEPT, reroll(ALPINE, "ambush"), reroll(ALPINE, "mobilize")]
    run(state, reroll(ALPINE, "ambush"), pips(1), reroll(ALPINE, "mobilize"), pips(3))
    assert state.troops[YELLOW][area(ALPINE, "Y-E2")] == 0 and state.phase == TURN
    assert state.discard[CARD_IDS.index("ambush")] == 1 and state.hands[YELLOW][CARD_IDS.index("ambush")] == 2


def test_go10_an_empty_deck_is_refilled_from_the_discard_pile():
    discard = {card: n for card, n in zip(CARD_IDS, BOARDS["alpine"].deck) if n}
    discard["ambush"] -= 1
    state = build_position(ALPINE, troops={**BLUE_HOME, **YELLOW_HOME}, hands=({"ambush": 1}, {}),
                           discard=discard)
    assert sum(state.deck) == 0
    run(state, deploy(ALPINE, "plan", value=2))
    assert state.phase == DRAW and sum(state.deck) == 23 and sum(state.discard) == 0


def test_go11_defence_bonuses_stack():
    state = build_position(ISLAND, troops={"W1": (3, 0), "W2": (1, 0), "W4": (4, 0), "C1": (0, 2), "C2": (0, 1), "E2": (0, 1),
                                           "E1": (0, 3)},
                           aircraft={"west": (1, 0), "east": (0, 1), "centre": (0, 1)},
                           hands=({}, {"ambush": 1}))
    move_in(state, deploy(ISLAND, "advance", "C1"), troops_at(ISLAND, "W4", 3))
    assert state.phase == DEFEND and state.current_player() == YELLOW
    run(state, play(ISLAND, "ambush"))
    assert state.phase == ROLL and state.dice == 1 + 1 + 1 + 2  # base, air zone, Town Centre, Ambush


def test_go12_not_enough_troops_withdraws_from_controlled_areas_never_the_last():
    state = build_position(ALPINE, troops={"B-HQ": (5, 0), "B-W1": (5, 0), "B-C1": (5, 0), "B-E1": (3, 0),
                                           "B-W2": (2, 0), "M-E": (3, 0), **YELLOW_HOME})
    assert state.res_troops[BLUE] == 2
    run(state, deploy(ALPINE, "reinforce", value=4))
    assert state.phase == WITHDRAW
    legal = state.legal_actions()
    assert troops_at(ALPINE, "M-E", 2) in legal  # controlled, not supplied: allowed
    assert troops_at(ALPINE, "B-W2", 2) not in legal and troops_at(ALPINE, "B-W2", 1) in legal  # never the last
    run(state, troops_at(ALPINE, "M-E", 2))
    assert state.phase == PLACE and state.res_troops[BLUE] == 4


def test_go13_a_round_four_plan_flip_decides_a_tie():
    state = build_position(ALPINE, troops={**BLUE_HOME, **YELLOW_HOME}, round=4, initiative=BLUE)
    run(state, PASS, deploy(ALPINE, "plan", value=1))
    assert state.initiative == YELLOW
    run(state, 8 + CARD_IDS.index("ambush"), PASS)
    assert state.phase == OVER and state.reason == REASON_TIE and state.outcome().winners == (YELLOW,)
    assert state.outcome().scores == (4.0, 4.0)


def test_go14_a_pass_is_final_and_the_other_side_plays_on_alone():
    state = build_position(ALPINE, troops={**BLUE_HOME, **YELLOW_HOME})
    run(state, PASS)
    run(state, deploy(ALPINE, "plan", value=2), 8, 9)
    assert state.active == YELLOW and state.phase == TURN
    run(state, deploy(ALPINE, "reinforce", value=5))
    while state.phase == PLACE:
        run(state, state.legal_actions()[-1])
    assert state.active == YELLOW and state.passed == [True, False]


def test_go15_a_paradrop_space_with_a_faction_icon_is_that_faction_s_only():
    state = build_position(ALPINE, troops={"B-HQ": (3, 0), "Y-HQ": (0, 2), "Y-W1": (0, 2), "Y-W2": (0, 2),
                                           "M-W": (0, 2), "B-W2": (0, 2), "B-W1": (0, 2), "Y-C1": (0, 2),
                                           "Y-C2": (0, 2), "M-CE": (0, 2)}, active=YELLOW)
    legal = state.legal_actions()
    assert deploy(ALPINE, "paradrop", "B-W1") not in legal  # Blue's icon, though Yellow supplies B-W1
    assert deploy(ALPINE, "paradrop", "Y-W1") in legal
    assert deploy(ALPINE, "paradrop", "M-CE") in legal  # no icon: either side


# --- WWII board and action readings -----------------------------------------------------------

def test_gob1_barrage_targets_hold_opponent_troops_and_none_means_no_effect():
    state = build_position(ALPINE, troops={**BLUE_HOME, "Y-HQ": (0, 3), "Y-W1": (0, 2)})
    before = state.to_json()
    run(state, deploy(ALPINE, "barrage", "B-E1"))
    assert state.phase == TURN and state.active == YELLOW
    assert state.to_json()["troops"] == before["troops"]
    assert state.occ[space_index(ALPINE, "barrage", "B-E1")] == 1 + BLUE


def test_gob2_bomb_needs_two_aircraft_in_the_linked_zone():
    one = build_position(ISLAND, troops={"W1": (3, 0), "W2": (0, 1), "E1": (0, 3)}, aircraft={"west": (1, 0)})
    assert deploy(ISLAND, "bomb", "west") not in one.legal_actions()
    two = build_position(ISLAND, troops={"W1": (3, 0), "W2": (0, 1), "E1": (0, 3)}, aircraft={"west": (2, 0)})
    assert deploy(ISLAND, "bomb", "west") in two.legal_actions()
    run(two, deploy(ISLAND, "bomb", "west"))  # the only target and payload are forced
    assert two.phase == ROLL and two.dice == 1 and two.aircraft[BLUE][zone(ISLAND, "west")] == 1


def test_gob3_paradrop_targets_any_area_but_the_opponent_hq_and_barred_areas():
    state = build_position(ALPINE, troops={**BLUE_HOME, **YELLOW_HOME})
    run(state, deploy(ALPINE, "paradrop", "B-W1"))
    assert state.phase == TARGET
    targets = {ALPINE.board.area_ids[a - ALPINE.TARGET_BASE] for a in state.legal_actions()}
    assert targets == set(ALPINE.board.area_ids) - {"Y-HQ", "M-W", "M-E"}
    run(state, target(ALPINE, "Y-C1"))  # a land conflict follows
    assert state.phase == ROLL and state.troops[BLUE][area(ALPINE, "Y-C1")] == 2


def test_gob4_reinforce_places_all_it_can_and_mobilize_is_optional():
    state = build_position(ALPINE, troops={**BLUE_HOME, "B-C2": (1, 0), **YELLOW_HOME},
                           bonuses={"B-C2": "depot"}, hands=({"mobilize": 1}, {}))
    run(state, deploy(ALPINE, "reinforce", value=4))
    assert state.left == 6 and DONE not in state.legal_actions()  # 4 + Depot 2, all compulsory
    run(state, play(ALPINE, "mobilize"))
    assert state.left == 8 and state.optional == 2
    run(state, troops_at(ALPINE, "B-C2", 4))
    assert DONE not in state.legal_actions()
    run(state, troops_at(ALPINE, "B-HQ", 2))
    assert DONE in state.legal_actions()
    run(state, DONE)
    assert state.phase == TURN and state.active == YELLOW


def test_gob5_town_centre_needs_the_defender_to_supply_it():
    supplied = build_position(ALPINE, troops={"B-HQ": (3, 0), "B-C1": (2, 0), "B-E1": (2, 0), "Y-HQ": (0, 3),
                                              "B-W1": (0, 3)}, active=YELLOW)
    unsupplied = build_position(ALPINE, troops={"B-HQ": (4, 0), "B-C1": (0, 2), "Y-HQ": (0, 3)})
    move_in(unsupplied, deploy(ALPINE, "advance", "B-C1"), troops_at(ALPINE, "B-HQ", 3))
    assert unsupplied.dice == 1
    state = build_position(ALPINE, troops={"B-HQ": (3, 0), "B-C1": (2, 0), "B-W1": (0, 3), "Y-HQ": (0, 3),
                                           "M-W": (0, 1), "B-W2": (0, 1), "Y-W2": (0, 1), "Y-W1": (0, 1)},
                           active=YELLOW)
    move_in(state, deploy(ALPINE, "advance", "B-C1"), troops_at(ALPINE, "B-W1", 2))
    assert state.dice == 2 and supplied.phase == TURN


def test_gob6_forward_base_adds_a_troop_from_the_start_of_action_supply():
    state = build_position(ALPINE, troops={**BLUE_HOME, "B-C2": (2, 0), **YELLOW_HOME},
                           bonuses={"B-C2": "forward_base"})
    move_in(state, deploy(ALPINE, "advance", "B-W2"), troops_at(ALPINE, "B-W1", 1))
    assert state.troops[BLUE][area(ALPINE, "B-W2")] == 2
    fresh = build_position(ALPINE, troops={**BLUE_HOME, "B-W2": (3, 0), **YELLOW_HOME},
                           bonuses={"M-CW": "forward_base"})
    move_in(fresh, deploy(ALPINE, "advance", "M-CW"), troops_at(ALPINE, "B-W2", 1))
    assert fresh.troops[BLUE][area(ALPINE, "M-CW")] == 1  # not held when the Advance began


def test_gob7_take_off_may_always_use_the_hq_zone_and_fights_for_it():
    state = build_position(ISLAND, troops={"W1": (3, 0), "E1": (0, 3)}, aircraft={"west": (0, 2), "east": (0, 1)})
    run(state, deploy(ISLAND, "take_off", value=4))
    assert state.phase == PLACE and state.legal_actions()[-1] == aircraft_at(ISLAND, "west", 4)
    run(state, aircraft_at(ISLAND, "west", 4))
    assert state.phase == ROLL and state.roller == YELLOW and state.dice == 1
    run(state, pips(1))  # 3 attackers left, attrition 2:2
    assert state.aircraft[BLUE][zone(ISLAND, "west")] == 1 and state.aircraft[YELLOW][zone(ISLAND, "west")] == 0


def test_gob8_the_air_die_needs_the_defender_to_supply_the_zone():
    state = build_position(ISLAND, troops={"W1": (3, 0), "W2": (3, 0), "N1": (0, 2), "E1": (0, 3)},
                           aircraft={"north": (0, 2)})  # Yellow controls north but its HQ zone is empty
    move_in(state, deploy(ISLAND, "advance", "N1"), troops_at(ISLAND, "W2", 2))
    assert state.dice == 1


def test_gob10_without_commanders_a_player_passes_automatically():
    spaces = {space_index(ALPINE, "advance", name): BLUE for name in ("B-W1", "B-C1", "B-E1", "B-W2", "B-C2")}
    state = build_position(ALPINE, troops={**BLUE_HOME, **YELLOW_HOME}, commanders_reserve=(0, 5),
                           occupied=spaces)
    assert state.active == YELLOW and state.passed == [True, False]


# --- operation cards --------------------------------------------------------------------------

def test_goc1_each_mode_deck_holds_24_of_the_30_cards():
    alpine = {CARD_IDS[k]: n for k, n in enumerate(BOARDS["alpine"].deck) if n}
    island = {CARD_IDS[k]: n for k, n in enumerate(BOARDS["island"].deck) if n}
    assert sum(alpine.values()) == sum(island.values()) == 24 and sum(c.copies for c in CARDS) == 30
    assert set(alpine) - set(island) == {"airborne_assault", "anti_air"}
    assert set(island) - set(alpine) == {"airstrike", "intercept", "wingman"}


def test_goc2_ground_assault_adds_up_to_two_from_the_reserve_after_forward_base():
    state = build_position(ALPINE, troops={"B-HQ": (5, 0), "B-W1": (5, 0), "B-C1": (5, 0), "B-E1": (5, 0),
                                           "B-C2": (4, 0), **YELLOW_HOME},
                           bonuses={"B-C2": "forward_base"}, hands=({"ground_assault": 1}, {}))
    assert state.res_troops[BLUE] == 1
    move_in(state, deploy(ALPINE, "advance", "B-W2"), troops_at(ALPINE, "B-W1", 1), play(ALPINE, "ground_assault"))
    assert state.troops[BLUE][area(ALPINE, "B-W2")] == 2 and state.res_troops[BLUE] == 0


def test_goc3_counter_attack_deploys_onto_an_opponent_held_advance_space():
    state = build_position(ALPINE, troops={**BLUE_HOME, "B-C2": (3, 0), "M-CE": (0, 2), **YELLOW_HOME},
                           hands=({"counter_attack": 1}, {}),
                           occupied={space_index(ALPINE, "advance", "M-CE"): YELLOW},
                           commanders_reserve=(5, 4))
    assert counter(ALPINE, "M-CE") in state.legal_actions()
    assert deploy(ALPINE, "advance", "M-CE") not in state.legal_actions()
    run(state, counter(ALPINE, "M-CE"))
    s = space_index(ALPINE, "advance", "M-CE")
    assert state.occ[s] == 1 + YELLOW and state.occ2[s] == 1 + BLUE and state.phase == MOVE


def test_goc4_ambush_adds_two_defence_dice_to_a_land_conflict_the_opponent_started():
    state = build_position(ALPINE, troops={**BLUE_HOME, "B-C2": (4, 0), "M-CE": (0, 2), **YELLOW_HOME},
                           hands=({}, {"ambush": 1}))
    move_in(state, deploy(ALPINE, "advance", "M-CE"), troops_at(ALPINE, "B-C2", 3))
    assert state.phase == DEFEND and state.legal_actions() == [DECLINE, play(ALPINE, "ambush")]
    run(state, play(ALPINE, "ambush"))
    assert state.dice == 3


def test_goc5_mobilize_places_up_to_two_more():
    test_gob4_reinforce_places_all_it_can_and_mobilize_is_optional()


def test_goc6_artillery_strike_adds_two_dice_to_a_barrage():
    state = build_position(ALPINE, troops={**BLUE_HOME, "Y-E2": (0, 3), "Y-C2": (0, 1), "Y-HQ": (0, 3)},
                           hands=({"artillery_strike": 1}, {}))
    run(state, deploy(ALPINE, "barrage", "B-E1"), play(ALPINE, "artillery_strike"), target(ALPINE, "Y-E2"))
    assert state.dice == 4


def test_goc7_airborne_assault_drops_two_more_and_the_air_control_post_one_more():
    state = build_position(ALPINE, troops={**BLUE_HOME, "B-C2": (1, 0), **YELLOW_HOME},
                           bonuses={"B-C2": "air_control_post"}, hands=({"airborne_assault": 1}, {}))
    run(state, deploy(ALPINE, "paradrop", "B-W1"), play(ALPINE, "airborne_assault"), target(ALPINE, "M-CW"))
    assert state.troops[BLUE][area(ALPINE, "M-CW")] == 5


def test_goc8_anti_air_shoots_dropped_troops_before_the_defence():
    state = build_position(ALPINE, troops={**BLUE_HOME, **YELLOW_HOME}, hands=({}, {"anti_air": 1}))
    run(state, deploy(ALPINE, "paradrop", "B-W1"), target(ALPINE, "Y-C1"))
    assert state.phase == DEFEND and play(ALPINE, "anti_air") in state.legal_actions()
    run(state, play(ALPINE, "anti_air"))
    assert state.phase == ROLL and state.roller == YELLOW and state.dice == 2
    run(state, pips(2))
    assert state.troops[BLUE][area(ALPINE, "Y-C1")] == 0 and state.phase == TURN and state.active == YELLOW


def test_goc9_intercept_adds_two_defence_dice_to_an_air_defence():
    state = build_position(ISLAND, troops={"W1": (3, 0), "E1": (0, 3)},
                           aircraft={"west": (4, 0), "north": (0, 1), "east": (0, 1)}, hands=({}, {"intercept": 1}))
    move_in(state, deploy(ISLAND, "fly", "north"), aircraft_at(ISLAND, "west", 3))
    run(state, play(ISLAND, "intercept"))
    assert state.dice == 3


def test_goc10_the_defender_window_opens_on_public_facts_only():
    # Yellow holds a card but no Ambush: still asked (DECLINE only), so nothing is revealed.
    state = build_position(ALPINE, troops={**BLUE_HOME, "B-C2": (4, 0), "M-CE": (0, 2), **YELLOW_HOME},
                           hands=({}, {"mobilize": 1}))
    move_in(state, deploy(ALPINE, "advance", "M-CE"), troops_at(ALPINE, "B-C2", 3))
    assert state.phase == DEFEND and state.legal_actions() == [DECLINE]
    # With every Ambush in the discard pile the window does not open.
    gone = build_position(ALPINE, troops={**BLUE_HOME, "B-C2": (4, 0), "M-CE": (0, 2), **YELLOW_HOME},
                          hands=({}, {"mobilize": 1}), discard={"ambush": 3})
    move_in(gone, deploy(ALPINE, "advance", "M-CE"), troops_at(ALPINE, "B-C2", 3))
    assert gone.phase == ROLL


def test_goc12_wingman_adds_two_aircraft_after_a_fly():
    state = build_position(ISLAND, troops={"W1": (3, 0), "E1": (0, 3)}, aircraft={"west": (3, 0)},
                           hands=({"wingman": 1}, {}))
    move_in(state, deploy(ISLAND, "fly", "north"), aircraft_at(ISLAND, "west", 1), play(ISLAND, "wingman"))
    assert state.aircraft[BLUE][zone(ISLAND, "north")] == 3 and state.phase == TURN


def test_goc13_airstrike_adds_two_dice_to_a_bomb():
    state = build_position(ISLAND, troops={"W1": (3, 0), "W2": (0, 3), "E1": (0, 3)}, aircraft={"west": (4, 0)},
                           hands=({"airstrike": 1}, {}))
    run(state, deploy(ISLAND, "bomb", "west"))
    assert state.phase == PAYLOAD
    run(state, play(ISLAND, "airstrike"), payload(ISLAND, 2))
    assert state.dice == 4 and state.res_air[BLUE] == 6 + 2


def test_goc14_a_reroll_spends_any_card_and_rerolls_all_the_dice():
    test_go9_only_the_roller_rerolls_and_may_do_so_again_and_again()


# --- engine -----------------------------------------------------------------------------------

def test_god2_setup_places_tokens_and_flips_initiative_as_chance_nodes():
    state = ALPINE.new_initial_state()
    assert is_chance(state) and len(state.chance_outcomes()) == 6
    rng = random.Random(5)
    while is_chance(state):
        state.apply_action(state.sample_chance(rng))
    placed = [state.bonus_at[a] for a in ALPINE.board.bonus_slots]
    assert len(set(placed)) == 4 and state.phase == TURN and state.active == state.initiative
    assert state.res_troops == [10, 10] and state.cmd_reserve == [5, 5] and state.cmd_standby == [4, 4]


def test_god5_labels_follow_the_lang_option():
    game = WWIIGame("alpine", lang="pt-BR")
    assert game.action_label(deploy(game, "barrage", "B-E1")) == "enviar um Comandante para Convocar Barragem B-E1 (Azul)"
    assert game.chance_label(8 + CARD_IDS.index("blitz")) == "compra Ataque Relâmpago"
    assert ALPINE.action_label(play(ALPINE, "blitz")) == "play Blitz"
    assert game.options == {"mode": "alpine", "lang": "pt-BR"}


def test_god6_illegal_actions_are_refused_and_named():
    state = build_position(ALPINE, troops={**BLUE_HOME, **YELLOW_HOME})
    before = state.to_json()
    with pytest.raises(IllegalActionError, match="action 1 "):
        state.apply_action(DONE)
    assert state.to_json() == before


def _hand_free_options(state: WWIIState) -> tuple[int, ...]:
    """The legal ids that do not depend on the hand (no card play, Counter Attack or re-roll card)."""
    game = state.game
    return tuple(a for a in state.legal_actions() if not game.COUNTER_BASE <= a < game.TARGET_BASE)


def _decision_trace(state: WWIIState, script: list[int]) -> list[tuple[int, str, tuple[int, ...]]]:
    """Apply `script`; record who is asked at which step with which hand-free options, and the end."""
    trace = []
    for action in script:
        seat = state.current_player()
        if seat >= 0:
            trace.append((seat, PHASE_NAMES[state.phase], _hand_free_options(state)))
        state.apply_action(action)
    trace.append((state.current_player(), PHASE_NAMES[state.phase], ()))
    return trace


_SUPPORT_AND_FRONT_HELD = {space_index(ALPINE, "reinforce", value=5): YELLOW,
                           space_index(ALPINE, "reinforce", value=4): YELLOW,
                           space_index(ALPINE, "plan", value=2): YELLOW, space_index(ALPINE, "plan", value=1): YELLOW,
                           space_index(ALPINE, "advance", "B-C2"): YELLOW,
                           space_index(ALPINE, "paradrop", "B-W1"): YELLOW,
                           space_index(ALPINE, "barrage", "B-E1"): YELLOW}
# name: (game, position, the card usable at a forced step, the script with that step forced)
_FORCED_STEPS: dict[str, tuple[WWIIGame, dict[str, Any], str, list[int]]] = {
    "advance-single-source": (
        ALPINE, {"troops": {"B-HQ": (3, 0), "B-C1": (1, 0), "B-C2": (2, 0), **YELLOW_HOME}}, "ground_assault",
        [deploy(ALPINE, "advance", "M-CE"), troops_at(ALPINE, "B-C2", 1), DONE]),
    "reinforce-single-room": (
        ALPINE, {"troops": {"B-HQ": (5, 0), "B-W1": (5, 0), "B-C1": (5, 0), "B-E1": (4, 0), **YELLOW_HOME}},
        "mobilize", [deploy(ALPINE, "reinforce", value=5), troops_at(ALPINE, "B-E1", 1)]),
    "barrage-single-target": (
        ALPINE, {"troops": {**BLUE_HOME, "M-E": (0, 2), "Y-HQ": (0, 3)}}, "artillery_strike",
        [deploy(ALPINE, "barrage", "B-E1"), target(ALPINE, "M-E"), pips(0), ACCEPT]),
    "no-commander-but-blitz": (
        ALPINE, {"troops": {**BLUE_HOME, **YELLOW_HOME}, "commanders_reserve": (0, 5),
                 "occupied": {space_index(ALPINE, "advance", name): BLUE
                              for name in ("B-W1", "B-C1", "B-E1", "B-W2", "B-C2")}},
        "blitz", [PASS]),
    "no-deployment-but-counter-attack": (
        ALPINE, {"troops": {"B-HQ": (1, 0), "B-W1": (1, 0), "B-C1": (2, 0), "B-E1": (1, 0), **YELLOW_HOME},
                 "commanders_reserve": (5, 2), "commanders_standby": (4, 0), "occupied": _SUPPORT_AND_FRONT_HELD},
        "counter_attack", [PASS]),
    "bomb-single-payload": (
        ISLAND, {"troops": {"W1": (3, 0), "W2": (0, 1), "E1": (0, 3)}, "aircraft": {"west": (2, 0)}}, "airstrike",
        [deploy(ISLAND, "bomb", "west"), payload(ISLAND, 1), pips(0), ACCEPT]),
}


@pytest.mark.parametrize("name", sorted(_FORCED_STEPS))
def test_god7_forced_steps_are_asked_when_a_card_could_be_offered_on_public_facts(name: str):
    game, position, card, script = _FORCED_STEPS[name]
    unusable = "ambush" if card == "mobilize" else "mobilize"
    traces = []
    for hand in ({card: 1}, {unusable: 1}):  # same hand size; only the hidden contents differ
        state = build_position(game, hands=(hand, {}), **position)
        traces.append((_decision_trace(state, script), state.observation(YELLOW)))
    assert traces[0] == traces[1]
    steps = traces[0][0]
    assert all(seat == BLUE for seat, _, _ in steps[:-1]) and steps[-1][:2] == (YELLOW, "turn")
    assert any(len(options) == 1 for _, phase, options in steps[:-1] if phase != "reroll")  # a forced step, asked
    # Where public facts rule the card out (an empty hand, every copy discarded) the step is forced.
    empty = build_position(game, **position)
    spent = build_position(game, hands=({unusable: 1}, {}), discard={card: game.board.deck[CARD_IDS.index(card)]},
                           **position)
    for state in (empty, spent):
        if state.current_player() == BLUE:
            state.apply_action(script[0])  # the deployment itself is a real choice
        assert state.current_player() != BLUE
