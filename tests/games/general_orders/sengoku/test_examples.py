"""Every example of the Sengoku Jidai rulebook, as a set position on the Rivers or Fortress board.

The rulebook's pictures are lost, so each position is built to match the example's text: who
deploys where, which areas can or cannot send units, the dice rolled and the result.
"""

from __future__ import annotations

from arena.games.general_orders.core import REASON_HQ, REASON_VP, ROLL
from arena.games.general_orders.core import DEFEND, OVER, PASS, PLACE, REROLL, TURN
from arena.games.general_orders.sengoku.rules import LOSS
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
    deploy,
    deploys,
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


def test_example_control_and_supply_across_land_and_water():
    """'Red has control and supply; Black has control and supply; Black has control only': a supply
    line runs through land and water areas alike."""
    state = build_position(RIVERS, troops={"9": (3, 0), "19": (2, 0), "13": (0, 3), "12": (0, 2), "4": (0, 2)},
                           ships={"14": (1, 0), "17": (0, 1)})
    assert names(RIVERS, state.supplied(RED)) == {"9", "14", "19"}  # 19 through the ships in 14
    assert names(RIVERS, state.supplied(BLACK)) == {"13", "12", "17"}
    assert names(RIVERS, state.ctrl[BLACK]) == {"13", "12", "17", "4"}  # 4: control only


def test_example_advance_takes_units_across_a_supplied_water_area():
    """Mali moves in from A and B (supplied, adjacent) and from C (next to a supplied water area next
    to the linked area); not from D (neither supplied nor adjacent) nor E (its water is not next to
    the linked area). The linked area is Bo's, so a conflict follows."""
    state = build_position(
        RIVERS,
        troops={"9": (3, 0), "19": (3, 0), "20": (2, 0), "10": (3, 0), "6": (2, 0), "4": (2, 0),
                "13": (0, 3), "12": (0, 2), "16": (0, 2), "21": (0, 3)},
        ships={"14": (2, 0), "11": (2, 0), "7": (1, 0), "17": (0, 2), "18": (0, 2)})
    run(state, deploy(RIVERS, "advance", "16"))
    assert names(RIVERS, state.src) == {"19", "20", "10"}  # A, B and C (across water 11)
    assert {where for where, _ in unit_options(state)} == {"19", "20", "10"}  # never D (4), E (6) or the HQ
    move_in(state, units_at(RIVERS, "19", 2), units_at(RIVERS, "20", 1), units_at(RIVERS, "10", 2))
    assert state.troops[RED][area(RIVERS, "16")] == 5
    assert state.phase == ROLL and state.roller == BLACK and state.dice == 1  # the conflict's defence


def test_example_sail_moves_ships_along_a_chain_of_supplied_water_areas():
    state = build_position(RIVERS, troops={**RED_HOME, "1": (2, 0), "6": (2, 0), **BLACK_HOME},
                           ships={"14": (3, 0), "15": (2, 0), "3": (2, 0)})
    assert "Sail 11" in deploys(state)
    run(state, deploy(RIVERS, "sail", "11"))
    assert names(RIVERS, state.src) == {"14", "15"}  # 3 is supplied, but no supplied water links it to 11
    move_in(state, units_at(RIVERS, "14", 2), units_at(RIVERS, "15", 1))
    assert [state.ships[RED][area(RIVERS, w)] for w in ("14", "15", "11")] == [1, 1, 3]  # one left behind each
    assert state.phase == TURN and state.active == BLACK


def test_example_bombard_removes_land_units_from_an_adjacent_area():
    state = build_position(RIVERS, troops={**RED_HOME, "13": (0, 3), "12": (0, 2), "16": (0, 2), "19": (0, 1),
                                           "20": (0, 2)},
                           ships={"15": (2, 0), "17": (0, 2)})
    run(state, deploy(RIVERS, "bombard", "15"))
    assert targets(state) == {"16", "19"}  # B could be hit too; 20 and 12 are not adjacent to 15
    run(state, target(RIVERS, "16"))
    assert is_chance(state) and state.dice == 2  # one die per ship in the linked water area
    run(state, pips(3))
    sixteen = area(RIVERS, "16")
    assert state.troops[BLACK][sixteen] == 0 and not (state.ctrl[RED] | state.ctrl[BLACK]) >> sixteen & 1
    assert state.res_troops[BLACK] == 25 - 10 + 2  # the third pip is ignored


def test_example_shell_removes_ships_from_an_adjacent_water_area():
    state = build_position(RIVERS, troops={**RED_HOME, **BLACK_HOME}, ships={"11": (2, 0)}, active=BLACK)
    run(state, deploy(RIVERS, "shell", "12"))
    assert state.target == area(RIVERS, "11") and state.dice == 2  # the only target, chosen for Bo
    run(state, pips(1))
    assert state.ships[RED][area(RIVERS, "11")] == 1 and state.phase == TURN and state.active == RED


def test_example_siege_the_owner_chooses_which_land_units_to_lose():
    state = build_position(FORTRESS, troops={**RED_CASTLE, "14": (3, 0), **BLACK_CASTLE, "15": (0, 1)},
                           siege={"14": (2, 0), "15": (0, 3)}, active=BLACK)
    run(state, deploy(FORTRESS, "siege", "15"))
    assert state.target == area(FORTRESS, "14") and state.dice == 3  # one die per siege weapon
    run(state, pips(3))
    assert state.phase == LOSS and state.current_player() == RED  # Mali chooses
    assert state.legal_actions() == [lose_siege(FORTRESS, j) for j in (0, 1, 2)]
    run(state, lose_siege(FORTRESS, 1))  # two troops and one siege weapon
    fourteen = area(FORTRESS, "14")
    assert (state.troops[RED][fourteen], state.siege[RED][fourteen]) == (1, 1)
    assert state.phase == TURN and state.active == RED


def test_example_embark_places_ships_next_to_supplied_ports():
    state = build_position(RIVERS, troops={**RED_HOME, "6": (2, 0), **BLACK_HOME, "8": (0, 2)},
                           ships={"3": (1, 0), "18": (0, 2)}, active=BLACK)
    run(state, deploy(RIVERS, "embark", value=3))
    assert state.phase == PLACE
    assert {where for where, _ in unit_options(state)} == {"17", "18", "7"}  # not A (22) nor B (3, Red's)
    run(state, units_at(RIVERS, "17", 1), units_at(RIVERS, "7", 1), units_at(RIVERS, "18", 1))
    assert [state.ships[BLACK][area(RIVERS, w)] for w in ("17", "7", "18")] == [1, 1, 3]
    assert state.phase == TURN and state.active == RED


def test_example_conflict_with_a_fortified_defender():
    """Mali moves six land units into Bo's fortified keep; two defence dice roll 3; she loses three
    troops; attrition: Bo loses two troops and a siege weapon, Mali the rest; Bo keeps the keep."""
    state = build_position(FORTRESS, troops={**RED_CASTLE, "6": (4, 0), "1": (3, 0), **BLACK_CASTLE, "9": (0, 2)},
                           siege={"6": (1, 0), "9": (0, 2)}, ships={"5": (1, 0)})
    run(state, deploy(FORTRESS, "advance", "9"))
    assert names(FORTRESS, state.src) == {"6", "1"}  # 1 across the supplied water area 5
    move_in(state, units_at(FORTRESS, "6", 3), siege_at(FORTRESS, "6", 1), units_at(FORTRESS, "1", 2))
    assert state.dice == 2 and state.roller == BLACK  # fortified: two dice
    run(state, pips(3))
    assert state.phase == LOSS and state.current_player() == RED
    run(state, lose_siege(FORTRESS, 0))  # Mali removes three troops
    assert state.phase == LOSS and state.current_player() == BLACK and state.loss_count == 3
    run(state, lose_siege(FORTRESS, 1))  # Bo: two troops and one siege weapon
    nine = area(FORTRESS, "9")
    assert state.units(RED, nine) == 0 and (state.troops[BLACK][nine], state.siege[BLACK][nine]) == (0, 1)
    assert state.ctrl[BLACK] >> nine & 1 and state.phase == TURN


def example_turn_position():
    """Bo's last commander of round 1; Mali holds area 16 with three troops and two cards."""
    red_spaces = [space_index(RIVERS, "plan", value=1, initiative=True), space_index(RIVERS, "reinforce", value=6),
                  space_index(RIVERS, "embark", value=3)]
    black_spaces = [space_index(RIVERS, "plan", value=1, initiative=False), space_index(RIVERS, "reinforce", value=5),
                    space_index(RIVERS, "embark", value=2), space_index(RIVERS, "sail", "3")]
    return build_position(
        RIVERS,
        troops={"9": (3, 0), "10": (2, 0), "1": (2, 0), "16": (3, 0),
                "13": (0, 3), "12": (0, 2), "20": (0, 3), "21": (0, 3)},
        ships={"14": (2, 0), "17": (0, 2), "18": (0, 2)},
        bonuses={"20": "hidden_base"},
        hands=({"ambush": 1, "mobilise": 1}, {}),
        occupied={**{s: RED for s in red_spaces}, **{s: BLACK for s in black_spaces}},
        commanders_standby=(2, 0), initiative=RED, active=BLACK)


def test_example_turn_with_hidden_base_ambush_and_a_reroll():
    state = example_turn_position()
    assert state.cmd_reserve == [0, 1]
    run(state, deploy(RIVERS, "advance", "16"))
    assert {"20", "21", "12"} <= names(RIVERS, state.src)  # 12 across the supplied water area 17
    move_in(state, units_at(RIVERS, "20", 2), units_at(RIVERS, "21", 2), units_at(RIVERS, "12", 1))
    sixteen = area(RIVERS, "16")
    assert state.troops[BLACK][sixteen] == 6  # five moved in, one more from the Hidden Base
    assert state.phase == DEFEND and state.current_player() == RED
    run(state, play(RIVERS, "ambush"))
    assert state.dice == 3 and state.roller == RED
    run(state, pips(1))
    assert state.phase == REROLL and state.current_player() == RED
    run(state, reroll(RIVERS, "mobilise"), pips(4))  # no card left: the roll stands
    assert state.troops[RED][sixteen] == 1 and state.troops[BLACK][sixteen] == 0  # 6-4 = 2 vs 3 by attrition
    # The last commander of the round: everyone's commanders come back and round 2 begins.
    assert state.round == 2 and state.cmd_reserve == [5, 5] and state.cmd_standby == [0, 0]
    assert not any(state.occ) and state.phase == TURN and state.active == RED and state.initiative == RED


def test_example_game_end_no_units_left_in_the_hq():
    state = build_position(RIVERS, troops={**RED_HOME, "12": (5, 0), "13": (0, 1), "5": (0, 2), "21": (0, 3)},
                           ships={"11": (1, 0), "18": (0, 2)})
    move_in(state, deploy(RIVERS, "advance", "13"), units_at(RIVERS, "12", 4))
    run(state, pips(0))
    assert state.phase == OVER and state.reason == REASON_HQ and state.outcome().winners == (RED,)


def test_example_game_end_after_round_four_counts_supplied_areas_only():
    """Bo supplies 5 VP (16, 20, 17); Mali controls 4 VP but supplies only 3 (4 is cut off)."""
    state = build_position(
        RIVERS,
        troops={"9": (3, 0), "10": (1, 0), "6": (1, 0), "2": (1, 0), "4": (1, 0),
                "13": (0, 3), "16": (0, 1), "20": (0, 1)},
        ships={"15": (1, 0), "17": (0, 1)},
        commanders_reserve=(1, 0), commanders_standby=(0, 0),
        occupied={**{space_index(RIVERS, "advance", where): BLACK for where in ("1", "5", "8", "12", "19")},
                  **{space_index(RIVERS, "advance", where): RED for where in ("2", "4", "20", "21")}},
        round=4, initiative=RED)
    assert state.victory_points() == [3, 5]
    run(state, PASS)
    assert state.phase == OVER and state.reason == REASON_VP and state.outcome().winners == (BLACK,)
    assert state.outcome().scores == (3.0, 5.0)
