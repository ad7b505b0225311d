"""Every example of the WWII rulebooks (English and Portuguese editions), as set positions."""

from __future__ import annotations

from arena.games.general_orders.core import DRAW, ROLL
from arena.games.general_orders.core import TURN
from arena.games.general_orders.wwii.rules import SIGNAL_RETURN
from tests.games.general_orders.helpers import (
    ALPINE,
    BLUE,
    ISLAND,
    YELLOW,
    area,
    build_position,
    deploy,
    is_chance,
    names,
    pips,
    play,
    return_from,
    run,
    space_index,
    target,
    troops_at,
    zone,
)


def example_turn_position():
    """Mali (Blue) next to area A (N2), which Bo (Yellow) holds with its Signal Unit token and
    whose air zone (north) Bo controls and supplies; B (N1) and C (C1) are Mali's, in supply."""
    return build_position(
        ISLAND,
        troops={"W1": (3, 0), "W2": (2, 0), "N1": (3, 0), "W4": (2, 0), "C1": (3, 0),
                "E1": (0, 3), "E2": (0, 2), "N3": (0, 2), "N2": (0, 2)},
        aircraft={"west": (2, 0), "east": (0, 2), "north": (0, 2)},
        bonuses={"N2": "signal_unit"},
        hands=({"ground_assault": 1}, {}),
        commanders_reserve=(5, 6), commanders_standby=(4, 3),  # Bo holds the Signal Unit's commander
        active=BLUE,
    )


def test_example_turn_of_mali_and_bo():
    """Rulebook 'Example turn': Advance with 2+2 troops, Ground Assault +2, Bo rolls two dice
    (one more for the air zone) for two hits, attrition leaves Mali 2, Signal Unit changes hands."""
    state = example_turn_position()
    assert state.signal == [0, 2]
    run(state, deploy(ISLAND, "advance", "N2"), troops_at(ISLAND, "N1", 2), troops_at(ISLAND, "C1", 2),
        play(ISLAND, "ground_assault"))
    a = area(ISLAND, "N2")  # nothing left to move in: "done" is forced and taken automatically
    assert state.troops[BLUE][a] == 6 and state.troops[YELLOW][a] == 2  # 4 moved in + 2 Ground Assault
    assert is_chance(state) and state.phase == ROLL
    assert state.roller == YELLOW and state.dice == 2  # one as standard, one for the air zone
    run(state, pips(2))
    assert state.troops[BLUE][a] == 2 and state.troops[YELLOW][a] == 0  # 6 - 2 hits, then attrition 2:2
    assert state.res_troops == [25 - 13 - 2 + 4, 25 - 9 + 2]
    # Step 4: the Signal Unit's commander changes sides.
    assert state.signal == [2, 0]
    assert (state.cmd_reserve[BLUE], state.cmd_standby[BLUE]) == (5 - 1 + 1, 3)
    assert (state.cmd_reserve[YELLOW], state.cmd_standby[YELLOW]) == (5, 4)
    assert state.phase == TURN and state.active == YELLOW


def test_example_turn_in_portuguese_uses_the_portuguese_names():
    from arena.games.general_orders.wwii.rules import WWIIGame

    game = WWIIGame("island", lang="pt-BR")
    state = build_position(game, troops={"W1": (3, 0), "W2": (2, 0), "N1": (3, 0), "E1": (0, 3), "E2": (0, 2),
                                         "N3": (0, 2), "N2": (0, 2)}, hands=({"ground_assault": 1}, {}))
    assert state.action_to_string(deploy(game, "advance", "N2")) == "Azul: enviar um Comandante para Avançar N2"
    run(state, deploy(game, "advance", "N2"))
    assert state.action_to_string(troops_at(game, "N1", 2)) == "Azul: mover 2 Tropas de N1 -> N2"
    assert state.action_to_string(play(game, "ground_assault")) == "Azul: jogar Investida Terrestre"


def test_example_control_and_supply_on_land():
    """'Blue has control only / Blue has control and supply': supply needs an unbroken line of
    controlled areas back to the HQ."""
    state = build_position(ALPINE, troops={"B-HQ": (3, 0), "B-W1": (2, 0), "B-W2": (2, 0), "M-E": (2, 0),
                                           "Y-HQ": (0, 3)})
    assert names(ALPINE, state.ctrl[BLUE]) == {"B-HQ", "B-W1", "B-W2", "M-E"}
    assert names(ALPINE, state.supplied(BLUE)) == {"B-HQ", "B-W1", "B-W2"}
    # Reconnecting M-E through B-E1 and B-E2 puts it in supply.
    state = build_position(ALPINE, troops={"B-HQ": (3, 0), "B-E1": (1, 0), "B-E2": (1, 0), "M-E": (2, 0),
                                           "Y-HQ": (0, 3)})
    assert names(ALPINE, state.supplied(BLUE)) == {"B-HQ", "B-E1", "B-E2", "M-E"}


def test_example_control_and_supply_in_the_air():
    """Air zones follow the same rule from the zone holding the HQ."""
    state = build_position(ISLAND, troops={"W1": (3, 0), "E1": (0, 3)},
                           aircraft={"west": (2, 0), "east": (1, 0), "centre": (0, 1)})
    assert state.air_supplied(BLUE) == 1 << zone(ISLAND, "west")  # east is controlled only
    assert state.actrl[BLUE] == (1 << zone(ISLAND, "west")) | (1 << zone(ISLAND, "east"))
    assert state.air_supplied(YELLOW) == 0  # Yellow's HQ zone (east) is not Yellow's


def test_example_barrage_range_is_three_areas_from_the_linked_area():
    """'Areas in range of Blue's Barrage action': at most three areas away, whoever controls the
    areas in between."""
    expected = {"B-E1", "B-HQ", "B-C1", "B-E2", "B-W1", "B-C2", "M-CE", "M-E", "B-W2", "M-CW", "Y-C2", "Y-E2"}
    assert names(ALPINE, ALPINE.board.within3[area(ALPINE, "B-E1")]) == expected
    # Yellow troops everywhere but Blue's own areas: exactly the in-range ones are targets.
    yellow = {name: (0, 1) for name in ALPINE.board.area_ids if not name.startswith("B-")}
    yellow["Y-HQ"] = (0, 3)
    state = build_position(ALPINE, troops={"B-HQ": (3, 0), "B-E1": (2, 0), **yellow})
    run(state, deploy(ALPINE, "barrage", "B-E1"))
    targets = {ALPINE.board.area_ids[a - ALPINE.TARGET_BASE] for a in state.legal_actions()}
    assert targets == {"M-CE", "M-E", "M-CW", "Y-C2", "Y-E2"}


def test_example_signal_unit_exchange_when_no_commander_is_in_reserve():
    """Signal Unit: losing it with an empty reserve sends a commander from an action space of the
    owner's choice back to standby, and that space is free again."""
    spaces = [space_index(ALPINE, "advance", name) for name in ("B-W1", "B-C1", "B-E1", "B-W2", "B-C2", "B-E2")]
    state = build_position(
        ALPINE,
        troops={"B-HQ": (2, 0), "B-C1": (2, 0), "B-C2": (1, 0), "M-CW": (2, 0), "Y-HQ": (0, 2), "Y-E1": (0, 2)},
        bonuses={"M-CW": "signal_unit"},
        commanders_reserve=(0, 5), commanders_standby=(3, 4), occupied={s: BLUE for s in spaces},
        active=YELLOW, passed=(True, False),
    )
    assert state.signal[BLUE] == 2
    run(state, deploy(ALPINE, "barrage", "Y-E1"), target(ALPINE, "B-C2"), pips(1))
    assert state.troops[BLUE][area(ALPINE, "B-C2")] == 0
    assert state.phase == SIGNAL_RETURN and state.current_player() == BLUE
    assert state.legal_actions() == sorted(return_from(ALPINE, s) for s in spaces)
    run(state, return_from(ALPINE, spaces[2]))
    assert state.occ[spaces[2]] == 0 and state.cmd_standby[BLUE] == 4 and state.signal[BLUE] == 0
    assert state.phase == TURN and state.active == YELLOW


def test_example_plan_draws_cards_as_chance_nodes():
    state = build_position(ALPINE, troops={"B-HQ": (3, 0), "Y-HQ": (0, 3)})
    run(state, deploy(ALPINE, "plan", value=2))
    assert state.phase == DRAW and is_chance(state)
    outcomes = dict(state.chance_outcomes())
    assert abs(sum(outcomes.values()) - 1) < 1e-12 and len(outcomes) == 8  # the 8 Alpine kinds, 3 each
