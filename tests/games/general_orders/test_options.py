"""The disputed rulings played the other way (mode options, `-o NAME=VALUE`): each reading has its test
beside the default's test in test_decisions.py; records keep the options, replays use them, and a game
with a non-default option is rated in a pool of its own."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.games.registry import GameOptionError, load_game
from arena.games.general_orders.core import ROLL
from arena.games.general_orders.core import TURN
from arena.games.general_orders.wwii.rules import WWIIGame
from arena.ratings.pools import pool_name
from arena.referee.authority import play_match
from arena.referee.record import MatchRecord
from arena.referee.replay import replay
from arena.agents import make_agent
from tests.games.general_orders.helpers import (
    BLUE,
    YELLOW,
    build_position,
    deploy,
    move_in,
    pips,
    play,
    run,
    target,
    troops_at,
    zone,
)

BLUE_HOME = {"B-HQ": (3, 0), "B-W1": (2, 0), "B-C1": (2, 0), "B-E1": (2, 0)}
YELLOW_HOME = {"Y-HQ": (0, 3), "Y-W1": (0, 2), "Y-C1": (0, 2), "Y-E1": (0, 2)}


def test_gob2_other_way_a_bomb_with_one_aircraft_deploys_only_to_block() -> None:
    island = WWIIGame("island", bomb="one-aircraft")
    one = build_position(island, troops={"W1": (3, 0), "W2": (0, 1), "E1": (0, 3)}, aircraft={"west": (1, 0)})
    assert deploy(island, "bomb", "west") in one.legal_actions()
    run(one, deploy(island, "bomb", "west"))  # no payload to spend: the action resolves with no effect
    assert one.phase == TURN and one.active == YELLOW
    assert one.aircraft[BLUE][zone(island, "west")] == 1 and one.troops[YELLOW][island.board.area_ids.index("W2")] == 1


def test_go8_other_way_an_empty_reserve_must_pass_even_with_blitz_in_hand() -> None:
    position = {"troops": {**BLUE_HOME, **YELLOW_HOME}, "hands": ({"blitz": 1}, {}),
                "commanders_reserve": (0, 5), "commanders_standby": (9, 4)}
    default = WWIIGame("alpine")
    assert play(default, "blitz") in build_position(default, **position).legal_actions()
    strict = WWIIGame("alpine", blitz="must-pass")
    state = build_position(strict, **position)
    assert state.passed == [True, False] and state.active == YELLOW  # it had to pass: it did, unasked


def test_gob5_other_way_town_centre_needs_only_control() -> None:
    game = WWIIGame("alpine", town_centre="control")
    unsupplied = build_position(game, troops={"B-HQ": (4, 0), "B-C1": (0, 2), "Y-HQ": (0, 3)})
    move_in(unsupplied, deploy(game, "advance", "B-C1"), troops_at(game, "B-HQ", 3))
    assert unsupplied.phase == ROLL and unsupplied.dice == 2  # Yellow holds B-C1 unsupplied: the die counts


def test_go7_other_way_losing_the_signal_unit_always_gives_back_a_commander() -> None:
    game = WWIIGame("alpine", signal_unit="always")
    state = build_position(game, troops={"B-HQ": (2, 0), "B-C1": (2, 0), "B-C2": (1, 0), "M-CW": (2, 0),
                                         "Y-HQ": (0, 2), "Y-E1": (0, 2)},
                           bonuses={"M-CW": "signal_unit"}, commanders_reserve=(9, 5),
                           commanders_standby=(0, 4), signal=(1, 0), active=YELLOW)
    run(state, deploy(game, "barrage", "Y-E1"), target(game, "B-C2"), pips(2))
    assert state.signal == [0, 0] and state.cmd_reserve[BLUE] == 8 and state.cmd_standby[BLUE] == 1


def test_the_alternative_alpine_board_has_no_barrage_in_the_middle_row() -> None:
    default, variant = WWIIGame("alpine"), WWIIGame("alpine", board="no-middle-barrage")
    middle = {variant.board.area_ids.index(name) for name in ("M-W", "M-CW", "M-CE", "M-E")}
    barrages = [s for s in variant.board.spaces if s.action == 3]  # BARRAGE
    assert len(barrages) == 2 and not any(s.link in middle for s in barrages)
    assert len(variant.board.spaces) == len(default.board.spaces) - 1
    assert any(line.startswith("ALTERNATIVE RECONSTRUCTION") for line in variant.board.assumptions)
    assert default.options == {"mode": "alpine"} and variant.options == {"mode": "alpine",
                                                                             "board": "no-middle-barrage"}


def test_a_bad_option_says_what_the_choices_are() -> None:
    with pytest.raises(GameOptionError, match=r"blitz is one of empty-reserve, must-pass \(GO-8\)"):
        load_game("general-orders-wwii/alpine", {"blitz": "sometimes"})
    with pytest.raises(GameOptionError, match="bomb does not apply to the alpine mode"):
        load_game("general-orders-wwii/alpine", {"bomb": "one-aircraft"})


@pytest.mark.parametrize("options", [{"blitz": "must-pass"}, {"town_centre": "control", "signal_unit": "always"},
                                     {"board": "no-middle-barrage"}])
def test_options_round_trip_through_records_replays_and_pools(options: dict[str, str]) -> None:
    game = load_game("general-orders-wwii/alpine", options)
    record = play_match(game, [make_agent("greedy"), make_agent("random")], seed=5)
    assert record.options == {"mode": "alpine", **options}
    again = MatchRecord.from_jsonl(record.to_jsonl())
    assert again.options == record.options
    replayed = replay(again)  # replayed under the options (it checks every step and the result)
    assert replayed.is_terminal()
    assert pool_name(game) != pool_name(load_game("general-orders-wwii/alpine"))
    assert json.loads(pool_name(game).partition("alpine")[2]) == options


def test_arena_games_lists_the_disputed_rulings_as_options_of_the_general_orders_modes() -> None:
    result = CliRunner().invoke(app, ["games", "--json"])
    assert result.exit_code == 0, result.output
    listed = {mode["name"]: {c["decision"]: c for c in mode["choices"]} for mode in json.loads(result.output)}
    assert {"GO-8", "GO-B5", "GO-7"} <= set(listed["general-orders-wwii/alpine"])
    assert {"GO-B2", "GO-8", "GO-B5", "GO-7"} <= set(listed["general-orders-wwii/island"])
    bomb = listed["general-orders-wwii/island"]["GO-B2"]
    assert bomb["name"] == "bomb" and bomb["choices"] == ["two-aircraft", "one-aircraft"]
    assert bomb["default"] == "two-aircraft"
