"""One test per Sengoku Jidai rules decision in docs/rules-decisions.md (SJ-*)."""

from __future__ import annotations

import random

import pytest

from arena.games.base import IllegalActionError
from arena.games.general_orders.core import DRAW, REASON_HQ, REASON_TIE, ROLL
from arena.games.general_orders.core import ACCEPT, DECLINE, DEFEND, DONE, MOVE, OVER, PASS, PLACE, REROLL, TARGET, TURN, WITHDRAW
from arena.games.general_orders.sengoku.rules import FOLLOW_UP, LOSS, SengokuGame
from arena.games.general_orders.sengoku.board import CARD_IDS
from tests.games.general_orders.sengoku.helpers import (
    BLACK,
    BLACK_CASTLE,
    BLACK_HOME,
    FORTRESS,
    RED,
    RED_CASTLE,
    RED_HOME,
    RIVERS,
    area,
    build_position,
    counter,
    deploy,
    deploys,
    describe,
    is_chance,
    lose_siege,
    move_in,
    names,
    pips,
    play,
    reroll,
    run,
    siege_at,
    space_index,
    target,
    targets,
    unit_options,
    units_at,
)


# --- ambiguities 1..16 ------------------------------------------------------------------------

def test_sj1_caps_hold_at_the_end_of_every_action_and_the_owner_chooses_which_land_units_go():
    state = build_position(RIVERS, troops={**RED_HOME, "1": (5, 0), "6": (4, 0), **BLACK_HOME})
    move_in(state, deploy(RIVERS, "advance", "2"), units_at(RIVERS, "1", 4), units_at(RIVERS, "6", 3))
    assert state.troops[RED][area(RIVERS, "2")] == 5 and state.res_troops[RED] == 25 - 14 + 2
    # Water areas hold 3: a Sail with River Assault ends with 3 ships, the rest back to the reserve.
    state = build_position(RIVERS, troops={**RED_HOME, **BLACK_HOME}, ships={"14": (3, 0)},
                           hands=({"river_assault": 1}, {}))
    move_in(state, deploy(RIVERS, "sail", "15"), units_at(RIVERS, "14", 2), play(RIVERS, "river_assault"))
    assert state.ships[RED][area(RIVERS, "15")] == 3 and state.res_ships[RED] == 10 - 4
    # Mixed land units over the cap: their owner chooses which go back.
    state = build_position(FORTRESS, troops={**RED_CASTLE, "6": (4, 0), "1": (3, 0), **BLACK_CASTLE},
                           siege={"6": (1, 0)}, ships={"5": (1, 0)})
    move_in(state, deploy(FORTRESS, "advance", "9"), units_at(FORTRESS, "6", 3), siege_at(FORTRESS, "6", 1),
            units_at(FORTRESS, "1", 2))
    assert state.phase == LOSS and state.current_player() == RED and state.loss_count == 1
    run(state, lose_siege(FORTRESS, 0))
    nine = area(FORTRESS, "9")
    assert (state.troops[RED][nine], state.siege[RED][nine]) == (4, 1) and state.phase == TURN


def test_sj2_equal_attrition_empties_the_area_and_an_empty_hq_loses_at_once():
    state = build_position(RIVERS, troops={**RED_HOME, "12": (4, 0), "13": (0, 3), "5": (0, 2)},
                           ships={"11": (1, 0)})
    move_in(state, deploy(RIVERS, "advance", "13"), units_at(RIVERS, "12", 3))
    run(state, pips(0))
    hq = area(RIVERS, "13")
    assert state.units(RED, hq) == 0 and state.units(BLACK, hq) == 0
    assert state.phase == OVER and state.reason == REASON_HQ and state.outcome().winners == (RED,)


def test_sj3_each_side_chooses_its_own_losses():
    # Defence hits: the attacker picks among its own units; attrition: the side left over picks.
    state = build_position(FORTRESS, troops={**RED_CASTLE, "6": (4, 0), **BLACK_CASTLE, "14": (0, 1)},
                           siege={"6": (1, 0), "14": (0, 1)}, ships={"10": (1, 0)})
    move_in(state, deploy(FORTRESS, "advance", "14"), units_at(FORTRESS, "6", 3), siege_at(FORTRESS, "6", 1))
    run(state, pips(1))
    assert state.phase == LOSS and state.current_player() == RED and state.loss_count == 1
    run(state, lose_siege(FORTRESS, 0))
    assert state.phase == LOSS and state.current_player() == RED and state.loss_count == 2  # attrition 2 for 2
    run(state, lose_siege(FORTRESS, 1))
    fourteen = area(FORTRESS, "14")
    assert (state.troops[RED][fourteen], state.siege[RED][fourteen], state.units(BLACK, fourteen)) == (1, 0, 0)
    # Shell removes ships only: there is nothing to choose.
    state = build_position(RIVERS, troops={**RED_HOME, **BLACK_HOME}, ships={"11": (3, 0)}, active=BLACK)
    run(state, deploy(RIVERS, "shell", "12"), pips(2))
    assert state.ships[RED][area(RIVERS, "11")] == 1 and state.phase == TURN


def test_sj4_control_and_supply_are_read_when_the_commander_is_placed():
    state = build_position(RIVERS, troops={**RED_HOME, "19": (3, 0), **BLACK_HOME, "16": (0, 1)},
                           ships={"14": (1, 0)})
    supplied = state.supplied(RED)
    run(state, deploy(RIVERS, "advance", "16"))
    assert state.snap[RED] == supplied and state.to_json()["action"]["supplied_at_start"][RED] == \
        sorted(names(RIVERS, supplied), key=int)
    assert names(RIVERS, state.src) == {"19"}
    move_in(state, units_at(RIVERS, "19", 2))
    run(state, pips(0))  # Red takes 16: it is controlled and supplied once the action is over
    assert state.supplied(RED) >> area(RIVERS, "16") & 1


def test_sj5_bombard_may_empty_an_hq_and_win_at_once():
    state = build_position(RIVERS, troops={**RED_HOME, "16": (2, 0), "13": (0, 1), "5": (0, 2)},
                           ships={"15": (1, 0), "17": (2, 0)})
    run(state, deploy(RIVERS, "bombard", "17"))
    assert state.target == area(RIVERS, "13") and is_chance(state)  # the only target: taken at once
    run(state, pips(2))
    assert state.phase == OVER and state.reason == REASON_HQ and state.outcome().winners == (RED,)


def test_sj5_an_hq_holding_only_a_siege_weapon_is_not_lost():
    state = build_position(FORTRESS, troops={"2": (1, 0), "1": (2, 0), **BLACK_CASTLE, "15": (0, 2), "7": (0, 1),
                                             "3": (0, 1)},
                           siege={"2": (1, 0), "3": (0, 2)}, ships={"11": (0, 1)}, active=BLACK)
    run(state, deploy(FORTRESS, "siege", "3"))
    assert state.target == area(FORTRESS, "2") and state.dice == 2  # Red's HQ, the only target
    run(state, pips(1))
    assert state.phase == LOSS and state.current_player() == RED
    run(state, lose_siege(FORTRESS, 0))  # Red gives up the troop: a siege weapon still holds the HQ
    hq = area(FORTRESS, "2")
    assert (state.troops[RED][hq], state.siege[RED][hq]) == (0, 1) and state.phase == TURN


def test_sj9_an_effect_resolves_once_a_turn_but_rerolls_are_unlimited_and_only_the_roller_rerolls():
    state = build_position(RIVERS, troops={**RED_HOME, **BLACK_HOME, "16": (0, 2), "19": (0, 1)},
                           ships={"15": (2, 0)}, hands=({"shore_strike": 2, "mobilise": 1}, {"ambush": 2}))
    run(state, deploy(RIVERS, "bombard", "15"), play(RIVERS, "shore_strike"))
    assert play(RIVERS, "shore_strike") not in state.legal_actions()  # not twice in one turn
    run(state, target(RIVERS, "16"), pips(0))
    assert state.phase == REROLL and state.current_player() == RED  # the roller, not Black
    run(state, reroll(RIVERS, "shore_strike"), pips(0), reroll(RIVERS, "mobilise"), pips(1))
    assert state.phase == TURN and state.troops[BLACK][area(RIVERS, "16")] == 1


def test_sj10_an_empty_deck_is_refilled_from_the_discard_pile():
    everything = {card: 3 for card in ("ambush", "counterattack", "ground_assault", "mobilise", "commandeer",
                                       "river_assault", "ship_strike")}
    state = build_position(RIVERS, troops={**RED_HOME, **BLACK_HOME}, hands=({"shore_strike": 3}, {}),
                           discard=everything)
    assert sum(state.deck) == 0
    run(state, deploy(RIVERS, "plan", value=1, initiative=True))
    assert state.phase == DRAW and sum(state.deck) == 21 and sum(state.discard) == 0


def test_sj11_defence_dice_stack_fortification_and_ambush():
    state = build_position(FORTRESS, troops={**RED_CASTLE, "6": (5, 0), **BLACK_CASTLE, "9": (0, 1)},
                           hands=({}, {"ambush": 1}))
    move_in(state, deploy(FORTRESS, "advance", "9"), units_at(FORTRESS, "6", 4))
    run(state, play(FORTRESS, "ambush"))
    assert state.dice == 4 and state.roller == BLACK  # 2 for the fortification + 2 Ambush


def test_sj12_insufficient_units_withdraws_from_controlled_areas_never_the_last():
    troops = {"9": (5, 0), "10": (5, 0), "1": (5, 0), "6": (5, 0), "2": (1, 0), "4": (3, 0), **BLACK_HOME}
    state = build_position(RIVERS, troops=troops)
    assert state.res_troops[RED] == 1
    run(state, deploy(RIVERS, "reinforce", value=6))
    assert state.phase == WITHDRAW
    offered = unit_options(state)
    assert ("4", 2) in offered and ("4", 3) not in offered and not any(w == "2" for w, _ in offered)
    run(state, units_at(RIVERS, "4", 2), DONE)  # 4 is cut off: controlled, not supplied, still a source
    assert state.phase == PLACE and state.res_troops[RED] == 3
    run(state, units_at(RIVERS, "2", 3))
    assert state.troops[RED][area(RIVERS, "2")] == 4 and state.phase == TURN
    # Ships the same way for an Embark.
    state = build_position(RIVERS, troops={**RED_HOME, **BLACK_HOME},
                           ships={"14": (3, 0), "15": (3, 0), "11": (3, 0), "7": (1, 0)})
    assert state.res_ships[RED] == 0
    run(state, deploy(RIVERS, "embark", value=2))
    assert state.phase == WITHDRAW and ("7", 1) not in unit_options(state)


def test_sj13_a_round_four_plan_flip_decides_a_tie():
    spaces = [space_index(RIVERS, "advance", w) for w in ("1", "2", "4", "5")]
    state = build_position(RIVERS, troops={**RED_HOME, **BLACK_HOME}, occupied={s: RED for s in spaces},
                           commanders_standby=(0, 4), round=4, initiative=RED, active=BLACK)
    assert state.victory_points() == [0, 0] and state.cmd_reserve == [1, 1]
    run(state, deploy(RIVERS, "plan", value=1, initiative=True))
    assert is_chance(state) and state.initiative == BLACK
    run(state, state.chance_outcomes()[0][0])
    run(state, PASS)
    assert state.phase == OVER and state.reason == REASON_TIE and state.outcome().winners == (BLACK,)


def test_sj14_a_pass_sends_one_commander_to_standby_and_play_goes_on():
    state = build_position(RIVERS, troops={**RED_HOME, **BLACK_HOME})
    run(state, PASS)
    assert state.cmd_reserve == [4, 5] and state.cmd_standby == [1, 0] and state.active == BLACK
    run(state, PASS)
    assert state.active == RED and "Reinforce 6" in deploys(state)  # Red may still deploy after passing
    for _ in range(8):
        run(state, PASS)
    assert state.round == 2 and state.cmd_reserve == [5, 5] and state.cmd_standby == [0, 0]
    # A side that has used all its commanders waits while the other plays on alone.
    state = build_position(RIVERS, troops={**RED_HOME, **BLACK_HOME}, commanders_standby=(5, 2), active=BLACK)
    run(state, PASS)
    assert state.active == BLACK


def test_sj16_hidden_base_adds_a_troop_but_not_on_the_advance_that_takes_it():
    state = build_position(RIVERS, troops={**RED_HOME, "1": (3, 0), **BLACK_HOME}, bonuses={"2": "hidden_base"})
    move_in(state, deploy(RIVERS, "advance", "2"), units_at(RIVERS, "1", 2))
    assert state.troops[RED][area(RIVERS, "2")] == 2  # no troop on the Advance that takes the token
    state = build_position(RIVERS, troops={**RED_HOME, "1": (3, 0), "2": (1, 0), **BLACK_HOME},
                           bonuses={"2": "hidden_base"})
    move_in(state, deploy(RIVERS, "advance", "6"), units_at(RIVERS, "1", 2))
    assert state.troops[RED][area(RIVERS, "6")] == 3 and state.res_troops[RED] == 25 - 9 - 1


# --- actions and board rules -----------------------------------------------------------------

def test_sjb1_advance_needs_a_source_with_two_land_units_next_to_the_area_or_across_supplied_water():
    state = build_position(RIVERS, troops={"9": (3, 0), "10": (1, 0), **BLACK_HOME}, ships={"15": (1, 0)})
    assert {"Advance 1", "Advance 16", "Advance 19"} <= deploys(state)  # 16 and 19 across water 15
    assert "Advance 6" not in deploys(state)  # 10 holds one unit only
    state = build_position(RIVERS, troops={"9": (3, 0), "10": (1, 0), **BLACK_HOME})
    assert "Advance 16" not in deploys(state)  # without the ships in 15 there is no way across


def test_sjb2_sail_needs_a_chain_of_supplied_water_areas():
    state = build_position(RIVERS, troops={**RED_HOME, **BLACK_HOME}, ships={"14": (2, 0), "15": (1, 0)})
    assert {"Sail 11", "Sail 22"} <= deploys(state)
    state = build_position(RIVERS, troops={**RED_HOME, **BLACK_HOME}, ships={"14": (1, 0), "15": (1, 0)})
    assert not any(name.startswith("Sail") for name in deploys(state))  # no water area can spare a ship


def test_sjb3_strike_targets_hold_opponent_units_bombard_never_a_fortified_area_and_no_target_means_no_effect():
    state = build_position(FORTRESS, troops={**RED_CASTLE, "7": (1, 0), **BLACK_CASTLE, "12": (0, 2)},
                           ships={"8": (2, 0), "11": (2, 0)})
    run(state, deploy(FORTRESS, "bombard", "11"))
    assert state.phase == TURN and state.active == BLACK  # 12 is fortified and 7, 15, 10 hold no Black unit
    assert state.units(BLACK, area(FORTRESS, "12")) == 2


def test_sjb4_reinforce_places_into_supplied_land_areas_with_room_and_at_most_the_spaces_siege_weapons():
    state = build_position(FORTRESS, troops={"2": (3, 0), "3": (5, 0), "7": (1, 0), **BLACK_CASTLE, "12": (0, 1)},
                           siege={"2": (1, 0)})
    run(state, deploy(FORTRESS, "reinforce", value=5))
    places = {w for w, _ in unit_options(state)}
    assert places == {"2", "7"}  # 3 is full; 12 is Black's
    run(state, siege_at(FORTRESS, "7", 1))
    assert siege_at(FORTRESS, "2", 1) not in state.legal_actions()  # "1 of 5" siege weapon
    assert DONE not in state.legal_actions()  # all five must be placed
    run(state, units_at(FORTRESS, "7", 3))  # 7 is full: the last troop can only go to the HQ
    assert state.phase == TURN and state.units(RED, area(FORTRESS, "7")) == 5
    assert state.troops[RED][area(FORTRESS, "2")] == 4


def test_sjb5_each_support_action_once_a_round_and_reinforce_must_place_all_it_can():
    state = build_position(RIVERS, troops={**RED_HOME, **BLACK_HOME})
    run(state, deploy(RIVERS, "reinforce", value=6))
    assert state.phase == PLACE and DONE not in state.legal_actions()
    run(state, units_at(RIVERS, "9", 2), units_at(RIVERS, "10", 3))
    assert state.phase == TURN and state.active == BLACK  # no room left for the sixth troop: it stays
    run(state, PASS)
    assert not any(name.startswith("Reinforce") for name in deploys(state))


def test_sjb6_embark_never_into_water_the_opponent_holds():
    state = build_position(RIVERS, troops={**RED_HOME, **BLACK_HOME}, ships={"15": (0, 1)})
    run(state, deploy(RIVERS, "embark", value=2))
    assert {w for w, _ in unit_options(state)} == {"14"}  # 9's ports: 14 and 15, but 15 is Black's


def test_sjb8_the_initiative_changes_only_by_the_plan_initiative_space():
    state = build_position(RIVERS, troops={**RED_HOME, **BLACK_HOME}, initiative=RED, active=BLACK)
    run(state, deploy(RIVERS, "plan", value=1, initiative=False))
    run(state, state.chance_outcomes()[0][0])
    assert state.initiative == RED
    run(state, deploy(RIVERS, "plan", value=1, initiative=True))
    assert state.initiative == RED
    state = build_position(RIVERS, troops={**RED_HOME, **BLACK_HOME}, initiative=RED, active=BLACK)
    run(state, deploy(RIVERS, "plan", value=1, initiative=True))
    assert state.initiative == BLACK


def test_sjb10_a_conflict_is_fought_even_when_the_defender_does_not_supply_the_area():
    state = build_position(RIVERS, troops={**RED_HOME, "1": (4, 0), **BLACK_HOME, "2": (0, 1)})
    assert not state.supplied(BLACK) >> area(RIVERS, "2") & 1
    move_in(state, deploy(RIVERS, "advance", "2"), units_at(RIVERS, "1", 3))
    assert state.phase == ROLL and state.roller == BLACK and state.dice == 1


def test_sjb11_siege_needs_a_siege_weapon_in_a_supplied_linked_area():
    state = build_position(FORTRESS, troops={**RED_CASTLE, "6": (2, 0), **BLACK_CASTLE}, siege={"2": (1, 0)})
    assert "Siege 6" not in deploys(state)
    state = build_position(FORTRESS, troops={**RED_CASTLE, "6": (2, 0), **BLACK_CASTLE}, siege={"6": (1, 0)})
    assert "Siege 6" in deploys(state)


def test_sjb12_barracks_adds_two_troops_to_a_reinforce():
    state = build_position(RIVERS, troops={**RED_HOME, "2": (1, 0), "1": (1, 0), "6": (1, 0), **BLACK_HOME},
                           bonuses={"2": "barracks"})
    run(state, deploy(RIVERS, "reinforce", value=5))
    assert state.left == 7


def test_sjb12_war_room_draws_one_more_card():
    state = build_position(RIVERS, troops={**RED_HOME, "2": (1, 0), "1": (1, 0), "6": (1, 0), **BLACK_HOME},
                           bonuses={"2": "war_room"})
    run(state, deploy(RIVERS, "plan", value=1, initiative=False))
    assert state.phase == DRAW and state.draws == 2


def test_sjb12_pirate_haven_adds_a_die_to_a_bombard():
    state = build_position(RIVERS, troops={**RED_HOME, "1": (1, 0), "2": (1, 0), "6": (1, 0), **BLACK_HOME,
                                           "16": (0, 1)},
                           ships={"15": (1, 0)}, bonuses={"2": "pirate_haven"})
    run(state, deploy(RIVERS, "bombard", "15"))
    assert state.dice == 2  # one ship + Pirate Haven


def test_sjb12_shipyard_adds_a_ship_after_a_sail():
    state = build_position(RIVERS, troops={**RED_HOME, "1": (1, 0), "2": (1, 0), "6": (1, 0), **BLACK_HOME},
                           ships={"14": (3, 0)}, bonuses={"2": "shipyard"})
    move_in(state, deploy(RIVERS, "sail", "15"), units_at(RIVERS, "14", 1))
    assert state.ships[RED][area(RIVERS, "15")] == 2


def test_sjb12_armoury_adds_a_die_to_a_siege():
    state = build_position(FORTRESS, troops={**RED_CASTLE, "6": (1, 0), "9": (1, 0), **BLACK_CASTLE, "14": (0, 1)},
                           siege={"6": (1, 0)}, bonuses={"9": "armoury"})
    assert "Siege 9" not in deploys(state)  # 9 holds no siege weapon
    state = build_position(FORTRESS, troops={**RED_CASTLE, "6": (1, 0), "9": (1, 0), **BLACK_CASTLE, "14": (0, 1)},
                           siege={"9": (1, 0)}, bonuses={"9": "armoury"})
    run(state, deploy(FORTRESS, "siege", "9"))
    assert state.target == area(FORTRESS, "14") and state.dice == 2  # one siege weapon + Armoury


# --- operation cards ---------------------------------------------------------------------------

def test_sjc2_ambush_is_offered_only_when_defending_a_land_advance():
    state = build_position(RIVERS, troops={**RED_HOME, **BLACK_HOME}, ships={"14": (3, 0), "15": (0, 1)},
                           hands=({}, {"ambush": 1}))
    move_in(state, deploy(RIVERS, "sail", "15"), units_at(RIVERS, "14", 2))
    assert state.phase == ROLL and state.dice == 1  # a water conflict: no Ambush window


def test_sjc3_counterattack_deploys_onto_an_opponent_held_advance_space_and_both_return_at_recall():
    # Red has just taken 2 with the Advance space of 2; Black, next to it in 6, holds Counterattack.
    position = dict(troops={**RED_HOME, "1": (1, 0), "2": (2, 0), **BLACK_HOME, "6": (0, 3)}, ships={"7": (0, 1)},
                    occupied={space_index(RIVERS, "advance", "2"): RED}, active=BLACK)
    without = build_position(RIVERS, **position)
    assert counter(RIVERS, "2") not in without.legal_actions() and "Advance 2" not in deploys(without)
    state = build_position(RIVERS, hands=({}, {"counterattack": 1}), **position)
    assert counter(RIVERS, "2") in state.legal_actions()
    move_in(state, counter(RIVERS, "2"), units_at(RIVERS, "6", 2))
    space = space_index(RIVERS, "advance", "2")
    assert (state.occ[space], state.occ2[space]) == (1 + RED, 1 + BLACK)
    assert state.discard[CARD_IDS.index("counterattack")] == 1
    assert state.phase == ROLL and state.roller == RED  # Red defends 2
    run(state, pips(0))  # two against two: attrition empties 2
    while state.round == 1:  # both commanders go back to their reserves at the recall
        run(state, PASS)
    assert (state.occ[space], state.occ2[space]) == (0, 0) and state.cmd_reserve == [5, 5]


def test_sjc4_mobilise_places_up_to_two_more_troops():
    state = build_position(RIVERS, troops={**RED_HOME, "1": (1, 0), "6": (1, 0), **BLACK_HOME},
                           hands=({"mobilise": 1}, {}))
    run(state, deploy(RIVERS, "reinforce", value=5), play(RIVERS, "mobilise"), units_at(RIVERS, "9", 2),
        units_at(RIVERS, "10", 3))
    assert state.phase == PLACE and state.left == 2 and DONE in state.legal_actions()
    run(state, units_at(RIVERS, "1", 1), DONE)
    assert state.phase == TURN and describe(state)["troops"]["1"] == (2, 0) and state.res_troops[RED] == 25 - 7 - 6


def test_sjc5_commandeer_adds_a_ship_and_opens_enemy_held_port_waters_with_a_conflict():
    state = build_position(RIVERS, troops={**RED_HOME, **BLACK_HOME}, ships={"15": (0, 1)},
                           hands=({"commandeer": 1}, {}))
    run(state, deploy(RIVERS, "embark", value=2), play(RIVERS, "commandeer"))
    assert {w for w, _ in unit_options(state)} == {"14", "15"} and state.left == 3
    run(state, units_at(RIVERS, "15", 3))
    assert state.phase == ROLL and state.roller == BLACK and state.target == area(RIVERS, "15")
    run(state, pips(1))
    assert state.ships[RED][area(RIVERS, "15")] == 1 and state.ships[BLACK][area(RIVERS, "15")] == 0


def test_sjc6_ground_assault_and_river_assault_add_up_to_two_from_the_reserve():
    state = build_position(RIVERS, troops={**RED_HOME, "1": (3, 0), **BLACK_HOME}, hands=({"ground_assault": 1}, {}))
    move_in(state, deploy(RIVERS, "advance", "2"), units_at(RIVERS, "1", 1), play(RIVERS, "ground_assault"))
    assert state.troops[RED][area(RIVERS, "2")] == 3
    state = build_position(RIVERS, troops={**RED_HOME, **BLACK_HOME}, ships={"14": (3, 0)},
                           hands=({"river_assault": 1}, {}))
    move_in(state, deploy(RIVERS, "sail", "22"), units_at(RIVERS, "14", 1), play(RIVERS, "river_assault"))
    assert state.ships[RED][area(RIVERS, "22")] == 3


def test_sjc7_ship_strike_takes_a_second_shell_from_the_same_space():
    state = build_position(RIVERS, troops={**RED_HOME, **BLACK_HOME}, ships={"11": (3, 0), "7": (1, 0)},
                           hands=({}, {"ship_strike": 1}), active=BLACK)
    run(state, deploy(RIVERS, "shell", "12"), target(RIVERS, "11"), pips(1), ACCEPT)
    assert state.phase == FOLLOW_UP and state.current_player() == BLACK
    run(state, play(RIVERS, "ship_strike"))
    assert state.phase == TARGET and targets(state) == {"7", "11"}
    run(state, target(RIVERS, "7"), pips(2))
    assert state.ships[RED][area(RIVERS, "7")] == 0 and state.ships[RED][area(RIVERS, "11")] == 2
    assert state.phase == TURN and state.active == RED


def test_sjc8_shore_strike_adds_two_dice_to_a_bombard():
    state = build_position(RIVERS, troops={**RED_HOME, **BLACK_HOME, "16": (0, 2), "19": (0, 1)},
                           ships={"15": (2, 0)}, hands=({"shore_strike": 1}, {}))
    run(state, deploy(RIVERS, "bombard", "15"), play(RIVERS, "shore_strike"), target(RIVERS, "16"))
    assert state.dice == 4


def test_sjc9_siege_train_adds_two_dice_to_a_siege():
    state = build_position(FORTRESS, troops={**RED_CASTLE, "6": (1, 0), **BLACK_CASTLE, "9": (0, 1)},
                           siege={"6": (1, 0)}, hands=({"siege_train": 1}, {}))
    run(state, deploy(FORTRESS, "siege", "6"), play(FORTRESS, "siege_train"))
    assert state.dice == 3 and state.target == area(FORTRESS, "9")


def test_sjc10_sappers_cancel_the_fortification_die():
    state = build_position(FORTRESS, troops={**RED_CASTLE, "6": (5, 0), **BLACK_CASTLE, "9": (0, 1)},
                           hands=({"sappers": 1}, {}))
    move_in(state, deploy(FORTRESS, "advance", "9"), units_at(FORTRESS, "6", 3), play(FORTRESS, "sappers"))
    assert state.dice == 1


def test_sjc11_hold_the_walls_takes_two_dice_from_a_siege():
    state = build_position(FORTRESS, troops={**RED_CASTLE, "6": (1, 0), **BLACK_CASTLE, "9": (0, 1)},
                           siege={"6": (3, 0)}, hands=({}, {"hold_the_walls": 1}))
    run(state, deploy(FORTRESS, "siege", "6"))
    assert state.phase == DEFEND and state.current_player() == BLACK
    run(state, play(FORTRESS, "hold_the_walls"))
    assert state.phase == ROLL and state.dice == 1


def test_sjc12_siege_workshop_places_one_siege_weapon_beyond_the_limit():
    state = build_position(FORTRESS, troops={**RED_CASTLE, "6": (1, 0), **BLACK_CASTLE}, hands=({"siege_workshop": 1}, {}))
    run(state, deploy(FORTRESS, "reinforce", value=5), play(FORTRESS, "siege_workshop"))
    assert state.left == 6 and state.siege_left == 2
    run(state, siege_at(FORTRESS, "6", 2))
    assert state.optional == 0 and state.left == 4  # the extra slot is filled: the rest must be placed
    run(state, units_at(FORTRESS, "6", 2), units_at(FORTRESS, "3", 2))
    assert state.phase == TURN and state.siege[RED][area(FORTRESS, "6")] == 2


def test_sjc13_a_reroll_spends_any_card_and_rerolls_all_the_dice():
    state = build_position(RIVERS, troops={**RED_HOME, **BLACK_HOME, "16": (0, 2)}, ships={"15": (2, 0)},
                           hands=({"ambush": 1}, {}))
    run(state, deploy(RIVERS, "bombard", "15"), target(RIVERS, "16"), pips(0))
    assert state.legal_actions() == [ACCEPT, reroll(RIVERS, "ambush")]
    run(state, reroll(RIVERS, "ambush"))
    assert is_chance(state) and state.dice == 2 and sum(state.hands[RED]) == 0


# --- engine ------------------------------------------------------------------------------------

def test_sjd2_setup_draws_the_tokens_then_flips_the_initiative():
    state = RIVERS.new_initial_state()
    assert is_chance(state) and len(state.chance_outcomes()) == 5
    rng = random.Random(3)
    while is_chance(state):
        state.apply_action(state.sample_chance(rng))
    placed = [state.bonus_at[a] for a in RIVERS.board.bonus_slots]
    assert len(set(placed)) == 3 and min(placed) >= 0 and state.active == state.initiative
    assert state.cmd_reserve == [5, 5] and state.res_troops == [15, 15] and state.res_ships == [7, 7]
    assert FORTRESS.new_initial_state().res_siege == [3, 3]


def test_sjd4_forced_steps_are_asked_when_a_card_could_be_offered_on_public_facts():
    # Red holds no Ground Assault, but holds a card and Ground Assault is not all discarded: asked.
    state = build_position(RIVERS, troops={**RED_HOME, "1": (2, 0), **BLACK_HOME}, hands=({"mobilise": 1}, {}))
    run(state, deploy(RIVERS, "advance", "2"))
    assert state.phase == MOVE and state.legal_actions() == [units_at(RIVERS, "1", 1)]
    run(state, units_at(RIVERS, "1", 1))
    assert state.legal_actions() == [DONE]
    # With every Ground Assault discarded, the same forced steps are taken at once.
    state = build_position(RIVERS, troops={**RED_HOME, "1": (2, 0), **BLACK_HOME}, hands=({"mobilise": 1}, {}),
                           discard={"ground_assault": 3})
    run(state, deploy(RIVERS, "advance", "2"))
    assert state.phase == TURN and state.active == BLACK


def test_sjd4_the_defender_window_opens_on_public_facts_only():
    state = build_position(RIVERS, troops={**RED_HOME, "1": (4, 0), **BLACK_HOME, "2": (0, 1)},
                           hands=({}, {"mobilise": 1}))
    move_in(state, deploy(RIVERS, "advance", "2"), units_at(RIVERS, "1", 3))
    assert state.phase == DEFEND and state.legal_actions() == [DECLINE]
    gone = build_position(RIVERS, troops={**RED_HOME, "1": (4, 0), **BLACK_HOME, "2": (0, 1)},
                          hands=({}, {"mobilise": 1}), discard={"ambush": 3})
    move_in(gone, deploy(RIVERS, "advance", "2"), units_at(RIVERS, "1", 3))
    assert gone.phase == ROLL


def test_sjd5_labels_are_english_and_other_languages_are_refused():
    assert RIVERS.action_label(deploy(RIVERS, "plan", value=1, initiative=True)) == \
        "deploy a commander to Plan 1 (initiative)"
    assert FORTRESS.action_label(deploy(FORTRESS, "reinforce", value=6)) == \
        "deploy a commander to Reinforce 6 (2 siege weapons)"
    assert RIVERS.action_label(units_at(RIVERS, "14", 2)) == "2 ships at 14"
    assert FORTRESS.action_label(lose_siege(FORTRESS, 1)) == "lose 1 siege weapons (the rest troops)"
    assert RIVERS.info.seat_names == ("Red", "Black")
    with pytest.raises(ValueError, match="en only"):
        SengokuGame("rivers", lang="pt-BR")


def test_sjd6_illegal_actions_are_refused_and_named():
    state = build_position(RIVERS, troops={**RED_HOME, **BLACK_HOME})
    before = state.to_json()
    with pytest.raises(IllegalActionError, match="action 1 "):
        state.apply_action(DONE)
    with pytest.raises(IllegalActionError, match="outside the action space"):
        state.apply_action(RIVERS.num_actions)
    assert state.to_json() == before


def test_sjd7_up_to_effects_take_what_the_reserve_holds():
    troops = {"9": (5, 0), "10": (5, 0), "1": (5, 0), "6": (5, 0), "19": (4, 0), **BLACK_HOME}
    state = build_position(RIVERS, troops=troops, ships={"14": (1, 0)}, hands=({"ground_assault": 1}, {}))
    assert state.res_troops[RED] == 1
    move_in(state, deploy(RIVERS, "advance", "2"), units_at(RIVERS, "1", 1), play(RIVERS, "ground_assault"))
    assert state.troops[RED][area(RIVERS, "2")] == 2 and state.res_troops[RED] == 0
