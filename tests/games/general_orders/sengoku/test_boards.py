"""The Sengoku board files: Rivers exactly as the reference, Fortress a marked reconstruction, both
validated on load and symmetric."""

from __future__ import annotations

import copy
import json
from importlib import resources

import pytest

from arena.games.general_orders.wwii.board import BoardError
from arena.games.general_orders.sengoku.board import (
    ACTIONS,
    ADVANCE,
    BOMBARD,
    CARD_IDS,
    SAIL,
    SENGOKU_BOARDS,
    SENGOKU_CARDS,
    SHELL,
    SIEGE,
    TOKENS,
    compile_sengoku_board,
)

# shared/reference/sengoku-rivers.md, "Areas": id -> (kind, VP, HQ, port into, shell, adjacent).
RIVERS_REFERENCE = {
    1: ("L", 0, None, (), False, (2, 6, 9, 10)), 2: ("L", 1, None, (), False, (1, 3, 6)),
    3: ("W", 1, None, (), False, (2, 4, 6, 7, 8)), 4: ("L", 1, None, (), False, (3, 5, 8)),
    5: ("L", 0, None, (), False, (4, 8, 12, 13)), 6: ("L", 1, None, (3, 7), False, (1, 2, 3, 7, 10)),
    7: ("W", 1, None, (), False, (3, 6, 8, 10, 11, 12)), 8: ("L", 1, None, (3, 7), False, (3, 4, 5, 7, 12)),
    9: ("L", 0, "red", (14, 15), False, (1, 10, 14, 15)), 10: ("L", 0, None, (), True, (1, 6, 7, 9, 11, 15)),
    11: ("W", 1, None, (), False, (7, 10, 12, 15, 16, 17)), 12: ("L", 0, None, (), True, (5, 7, 8, 11, 13, 17)),
    13: ("L", 0, "black", (17, 18), False, (5, 12, 17, 18)), 14: ("W", 0, None, (), False, (9, 15, 19, 22)),
    15: ("W", 1, None, (), False, (9, 10, 11, 14, 16, 19)), 16: ("L", 2, None, (11, 15, 17), False, (11, 15, 17, 19, 20, 21)),
    17: ("W", 1, None, (), False, (11, 12, 13, 16, 18, 21)), 18: ("W", 0, None, (), False, (13, 17, 21, 22)),
    19: ("L", 0, None, (), True, (14, 15, 16, 20, 22)), 20: ("L", 2, None, (), False, (16, 19, 21, 22)),
    21: ("L", 0, None, (), True, (16, 17, 18, 20, 22)), 22: ("W", 0, None, (), False, (14, 18, 19, 20, 21)),
}


def raw(mode: str) -> dict:
    return json.loads(resources.files("arena.games.general_orders.sengoku").joinpath(f"boards/{mode}.json").read_text("utf-8"))


def ids_of(board, mask: int) -> set[int]:
    return {int(board.area_ids[a]) for a in range(board.num_areas) if mask >> a & 1}


def test_rivers_is_the_reference_board_area_by_area():
    board = SENGOKU_BOARDS["rivers"]
    assert board.area_ids == tuple(str(i) for i in range(1, 23))
    for a, name in enumerate(board.area_ids):
        kind, vp, hq, port, shell, adjacent = RIVERS_REFERENCE[int(name)]
        assert board.is_water[a] == (kind == "W"), name
        assert board.area_vp[a] == vp, name
        assert ids_of(board, board.area_adj[a]) == set(adjacent), name
        assert ids_of(board, board.port_into[a]) == set(port), name
        kinds = {s.action for s in board.spaces if s.link == a}
        expected = ({SAIL, BOMBARD} if kind == "W" else {ADVANCE} | ({SHELL} if shell else set()))
        assert kinds == expected, name
        if hq:
            assert board.hq[("red", "black").index(hq)] == a
    assert {int(board.area_ids[a]) for a in board.bonus_slots} == {2, 4, 20}
    assert board.fortified == 0 and not board.has_siege


def test_rivers_starting_units_support_board_and_pool_are_the_reference():
    board = SENGOKU_BOARDS["rivers"]

    def placed(rows) -> dict[int, int]:
        return {int(board.area_ids[a]): n for a, n in enumerate(rows) if n}

    assert placed(board.start_troops[0]) == {1: 2, 9: 3, 10: 2, 19: 3}
    assert placed(board.start_troops[1]) == {5: 2, 13: 3, 12: 2, 21: 3}
    assert placed(board.start_ships[0]) == {14: 3} and placed(board.start_ships[1]) == {18: 3}
    support = sorted((ACTIONS[s.action], s.value, s.initiative) for s in board.spaces if s.link < 0)
    assert support == [("embark", 2, False), ("embark", 3, False), ("plan", 1, False), ("plan", 1, True),
                       ("reinforce", 5, False), ("reinforce", 6, False)]
    assert board.commanders == 5 and (board.land_cap, board.water_cap) == (5, 3)
    assert sorted(TOKENS[t] for t in board.bonus_pool) == sorted(set(TOKENS) - {"armoury"})


@pytest.mark.parametrize("mode", ["rivers", "fortress"])
def test_boards_are_marked_reconstructions_with_their_assumptions(mode: str):
    board = SENGOKU_BOARDS[mode]
    assert board.reconstruction and "RECONSTRUCTION" in board.assumptions[0]
    assert board.rounds == 4 and (board.troops, board.ships) == (25, 10)


@pytest.mark.parametrize("mode", ["rivers", "fortress"])
def test_boards_are_symmetric_for_both_sides(mode: str):
    board = SENGOKU_BOARDS[mode]
    twin = board.mirror
    assert twin and twin[board.hq[0]] == board.hq[1]
    for a in range(board.num_areas):
        b = twin[a]
        assert board.is_water[a] == board.is_water[b] and board.area_vp[a] == board.area_vp[b]
        assert {twin[n] for n in range(board.num_areas) if board.area_adj[a] >> n & 1} == \
            {n for n in range(board.num_areas) if board.area_adj[b] >> n & 1}
        assert {twin[n] for n in range(board.num_areas) if board.port_into[a] >> n & 1} == \
            {n for n in range(board.num_areas) if board.port_into[b] >> n & 1}
        assert (board.fortified >> a & 1) == (board.fortified >> b & 1)
        for rows in (board.start_troops, board.start_ships, board.start_siege):
            assert rows[0][a] == rows[1][b]
        assert sorted(s.action for s in board.spaces if s.link == a) == sorted(s.action for s in board.spaces if s.link == b)
    assert sorted(twin[a] for a in board.bonus_slots) == sorted(board.bonus_slots)


def test_fortress_has_fortifications_siege_weapons_ports_and_its_support_limits():
    board = SENGOKU_BOARDS["fortress"]
    assert board.has_siege and board.siege_weapons == 5 and board.commanders == 6
    assert board.fortified & (1 << board.hq[0]) and board.fortified & (1 << board.hq[1])
    assert bin(board.fortified).count("1") == 4 and not board.fortified & board.water_mask
    assert any(board.port_into) and any(s.action == SIEGE for s in board.spaces)
    assert sum(board.start_siege[0]) == 2 and board.start_siege[0][board.hq[0]] == 1
    limits = sorted((s.value, s.siege_limit) for s in board.spaces if ACTIONS[s.action] == "reinforce")
    assert limits == [(5, 1), (6, 2)]  # "2 of 6 or 1 of 5"
    assert "armoury" in [TOKENS[t] for t in board.bonus_pool] and len(board.bonus_pool) == 5


def test_each_mode_deck_holds_24_cards_and_fortress_cards_are_marked_reconstructed():
    rivers, fortress = SENGOKU_BOARDS["rivers"].deck, SENGOKU_BOARDS["fortress"].deck
    assert sum(rivers) == sum(fortress) == 24
    shared = {"ambush", "counterattack", "ground_assault", "mobilise"}
    assert {CARD_IDS[k] for k in range(len(CARD_IDS)) if rivers[k] and fortress[k]} == shared
    assert all(n in (0, 3) for n in rivers + fortress)
    for card in SENGOKU_CARDS:
        assert ("RECONSTRUCTED" in card.source) == (card.id not in shared and not card.copies.get("rivers"))


def broken(mode: str, edit) -> dict:
    data = copy.deepcopy(raw(mode))
    edit(data)
    return data


def area_of(data: dict, name: str) -> dict:
    return next(a for a in data["areas"] if a["id"] == name)


@pytest.mark.parametrize("mode, edit, message", [
    ("rivers", lambda d: area_of(d, "1")["adjacent"].remove("2"), "not symmetric"),
    ("rivers", lambda d: area_of(d, "9").pop("hq"), "both factions need an HQ"),
    ("rivers", lambda d: area_of(d, "3")["spaces"].append("advance"), "cannot be linked to a water area"),
    ("rivers", lambda d: area_of(d, "1")["spaces"].append("siege"), "needs siege weapons"),
    ("rivers", lambda d: area_of(d, "14").update(start={"red": {"troops": 2}}), "land areas only"),
    ("rivers", lambda d: area_of(d, "9").update(start={"red": {"ships": 1, "troops": 3}}), "water areas only"),
    ("rivers", lambda d: area_of(d, "6").update(port=["15"]), "adjacent water areas"),
    ("rivers", lambda d: area_of(d, "3").update(fortified=True), "only a land area can be fortified"),
    ("rivers", lambda d: area_of(d, "14").update(start={"red": {"ships": 4}}), "exceed a cap"),
    ("rivers", lambda d: d["bonus_pool"].append("armoury"), "needs siege weapons"),
    ("rivers", lambda d: d["support"].pop(), "two Reinforce, two Embark and two Plan"),
    ("rivers", lambda d: d["rules"].update(hq_loss="control"), "HQ"),
    ("fortress", lambda d: d["support"][0].update(siege_weapons=7), "at most its value"),
    ("fortress", lambda d: area_of(d, "2").update(start={}), "must start with units in its HQ"),
])
def test_a_broken_board_is_refused(mode: str, edit, message: str):
    with pytest.raises(BoardError, match=message):
        compile_sengoku_board(broken(mode, edit), SENGOKU_CARDS)
