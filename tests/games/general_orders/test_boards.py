"""The board files: validated on load, reconstructions marked, Alpine mirror-symmetric."""

from __future__ import annotations

import copy
import json
from importlib import resources

import pytest

from arena.games.general_orders.wwii.board import (
    ADVANCE,
    BOARDS,
    CARDS,
    FLY,
    TOKENS,
    BoardError,
    compile_board,
)


def raw(mode: str) -> dict:
    return json.loads(resources.files("arena.games.general_orders.wwii").joinpath(f"boards/{mode}.json").read_text("utf-8"))


@pytest.mark.parametrize("mode", ["alpine", "island"])
def test_boards_are_marked_reconstructions_with_their_assumptions(mode: str) -> None:
    board = BOARDS[mode]
    assert board.reconstruction and board.assumptions
    assert "RECONSTRUCTION" in board.assumptions[0]
    assert 14 <= board.num_areas <= 20


@pytest.mark.parametrize("mode", ["alpine", "island"])
def test_boards_meet_the_structural_facts(mode: str) -> None:
    board = BOARDS[mode]
    for seat in (0, 1):
        assert sum(board.start_troops[seat]) <= 25 and sum(board.start_aircraft[seat]) <= 10
        assert board.start_troops[seat][board.hq[seat]] > 0
    assert all(any(s.action == ADVANCE and s.link == a for s in board.spaces) for a in range(board.num_areas))
    supports = sorted(board.spaces[i].action for i in range(len(board.spaces)) if board.spaces[i].link < 0)
    assert len(supports) == (6 if board.has_air else 4)


def test_alpine_is_mirror_symmetric() -> None:
    board = BOARDS["alpine"]
    twin = board.mirror
    for a in range(board.num_areas):
        b = twin[a]
        assert board.area_vp[a] == board.area_vp[b]
        assert {twin[n] for n in range(board.num_areas) if board.area_adj[a] >> n & 1} == \
            {n for n in range(board.num_areas) if board.area_adj[b] >> n & 1}
        assert board.start_troops[0][a] == board.start_troops[1][b]
        assert board.printed_bonus[a] == board.printed_bonus[b]
        assert (board.no_paradrop >> a & 1) == (board.no_paradrop >> b & 1)
        spaces_a = sorted((s.action, s.faction) for s in board.spaces if s.link == a)
        spaces_b = sorted((s.action, 1 - s.faction if s.faction >= 0 else -1) for s in board.spaces if s.link == b)
        assert spaces_a == spaces_b
    assert twin[board.hq[0]] == board.hq[1]
    assert len(board.bonus_slots) == 4 and len(board.bonus_pool) == 6


def test_island_is_asymmetric_and_every_area_lies_in_one_air_zone() -> None:
    board = BOARDS["island"]
    assert 4 <= board.num_zones <= 6 and not board.mirror
    assert sum(board.zone_areas) == (1 << board.num_areas) - 1
    assert all(bin(m).count("1") >= 1 for m in board.zone_areas)
    assert all(any(s.action == FLY and s.link == z for s in board.spaces) for z in range(board.num_zones))
    assert board.start_troops[0] != tuple(reversed(board.start_troops[1]))
    assert "air_control_post" not in [TOKENS[t] for t in board.bonus_pool]


def broken(mode: str, edit) -> dict:
    data = copy.deepcopy(raw(mode))
    edit(data)
    return data


@pytest.mark.parametrize("edit, message", [
    (lambda d: d["areas"][0]["adjacent"].remove("B-W1"), "not symmetric"),
    (lambda d: d["areas"][0].pop("hq"), "both factions need an HQ"),
    (lambda d: d["areas"][0]["spaces"].append({"action": "fly"}), "cannot be linked to a land area"),
    (lambda d: d["areas"][1]["adjacent"].append("NOWHERE"), "unknown neighbour"),
    (lambda d: d["areas"][0].update(start={"blue": 5}) or d["areas"][1].update(start={"blue": 5})
     or d["areas"][2].update(start={"blue": 5}) or d["areas"][3].update(start={"blue": 5})
     or d["areas"][4].update(start={"blue": 5}) or d["areas"][5].update(start={"blue": 5}), "more than 25 troops"),
    (lambda d: d["areas"][0].update(start={"blue": 6}), "exceed a cap"),
])
def test_a_broken_alpine_board_is_refused(edit, message: str) -> None:
    with pytest.raises(BoardError, match=message):
        compile_board(broken("alpine", edit), CARDS)


def test_a_disconnected_board_is_refused() -> None:
    def cut(d: dict) -> None:
        for area in d["areas"]:
            if area["id"].startswith("M-"):
                area["adjacent"] = [n for n in area["adjacent"] if n.startswith("M-")]
            else:
                area["adjacent"] = [n for n in area["adjacent"] if not n.startswith("M-")]
    with pytest.raises(BoardError, match="not connected"):
        compile_board(broken("alpine", cut), CARDS)


@pytest.mark.parametrize("edit, message", [
    (lambda d: d["areas"][0].update(zone="nowhere"), "lies in one air zone"),
    (lambda d: d["zones"][0]["adjacent"].remove("north"), "not symmetric"),
    (lambda d: d["zones"][0]["spaces"].append({"action": "advance"}), "cannot be linked to an air zone"),
    (lambda d: d["zones"][0].update(start={"blue": 11}), "more than 10 aircraft"),
    (lambda d: d["support"].pop(), "Take-off"),
])
def test_a_broken_island_board_is_refused(edit, message: str) -> None:
    with pytest.raises(BoardError, match=message):
        compile_board(broken("island", edit), CARDS)
