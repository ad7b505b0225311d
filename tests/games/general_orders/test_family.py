"""What the engine does the same way for both games (engine.py): dice and hidden hands."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from arena.games.base import CHANCE, StateFormatError
from arena.games.general_orders.core import FamilyGame
from arena.games.general_orders.wwii.rules import WWIIGame
from arena.games.general_orders.sengoku.rules import SengokuGame

GAMES: dict[str, FamilyGame] = {"alpine": WWIIGame("alpine"), "island": WWIIGame("island"),
                                "rivers": SengokuGame("rivers"), "fortress": SengokuGame("fortress")}


@pytest.mark.parametrize("mode", ["alpine", "rivers"])
def test_god1_sjd1_a_roll_is_one_chance_node_with_exact_probabilities(mode: str) -> None:
    game = GAMES[mode]
    dice, base = game.dice, game.DICE_BASE
    die = {0: Fraction(1, 6), 1: Fraction(4, 6), 2: Fraction(1, 6)}
    two = {a + b: Fraction(0) for a in die for b in die}
    for a, p in die.items():
        for b, q in die.items():
            two[a + b] += p * q
    assert dict(dice[1]) == {base + t: float(p) for t, p in die.items()}
    assert dict(dice[2]) == pytest.approx({base + t: float(p) for t, p in two.items()})
    assert all(abs(sum(p for _, p in dice[k]) - 1) < 1e-12 for k in range(1, 13))


@pytest.mark.parametrize("mode", sorted(GAMES))
@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_the_hidden_hand_never_changes_whether_the_next_step_is_asked(mode: str, seed: int) -> None:
    """GO-D7, GO-C10, SJ-D4: at every step of a random game, give the acting player another hand of
    the same size drawn from the cards their opponent has not seen (determinize on the opponent's
    observation); after the same action, the opponent sees the same position (so the same steps
    were asked)."""
    game = GAMES[mode]
    rng = random.Random(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        player = state.current_player()
        actor = player if player != CHANCE else state.active
        if actor in (0, 1):
            other = game.determinize(state.observation(1 - actor), rng)
            assert other.hands[1 - actor] == state.hands[1 - actor]
            if player == CHANCE:
                common = sorted({a for a, _ in state.chance_outcomes()} & {a for a, _ in other.chance_outcomes()})
            else:
                common = sorted(set(state.legal_actions()) & set(other.legal_actions()))
            if common:
                action = rng.choice(common)
                mine, theirs = state.clone(), other
                mine.apply_action(action)
                theirs.apply_action(action)
                assert theirs.observation(1 - actor) == mine.observation(1 - actor), (
                    f"seed {seed}: after {state.action_to_string(action)} the hand decided what was asked")
        if player == CHANCE:
            state.apply_action(state.sample_chance(rng))
        else:
            state.apply_action(rng.choice(state.legal_actions()))


ONE_A_SIDE = {"alpine": ["passed", "reserve_troops", "reserve_aircraft", "signal", "commanders_reserve",
                         "commanders_standby", "support_used", "hands", "used_effects"],
              "rivers": ["reserve_troops", "reserve_ships", "reserve_siege_weapons", "commanders_reserve",
                         "commanders_standby", "support_used", "hands", "used_effects"]}


@pytest.mark.parametrize("mode", sorted(ONE_A_SIDE))
def test_a_state_with_a_sides_list_of_another_length_or_a_name_listed_twice_is_refused(mode: str) -> None:
    """state_from_json refuses with a StateFormatError what is not one value a side (a list one short or one long,
    the action's supplies included) and a set of names with one name twice, instead of taking it and failing
    later with an IndexError."""
    game = GAMES[mode]
    state = game.new_initial_state()
    rng = random.Random(7)
    for _ in range(60):
        state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]) if state.current_player() == CHANCE
                           else rng.choice(state.legal_actions()))
    data = state.to_json()
    assert game.state_from_json(data).to_json() == data
    broken = [(key, size) for key in ONE_A_SIDE[mode] for size in (1, 3)]
    for key, size in broken:
        bad = {**data, key: (data[key] * 2)[:size]}
        with pytest.raises(StateFormatError, match=f"{key} must hold one value a side, not {size}"):
            game.state_from_json(bad)
    for size in (1, 3):
        action = {**data["action"], "supplied_at_start": (data["action"]["supplied_at_start"] * 2)[:size]}
        with pytest.raises(StateFormatError, match=f"supplied_at_start must hold one value a side, not {size}"):
            game.state_from_json({**data, "action": action})
    effect = game.card_ids[0]
    with pytest.raises(StateFormatError, match=f"{effect!r} is listed twice"):
        game.state_from_json({**data, "used_effects": [[effect, effect], []]})


def _states_in_play(game: FamilyGame, seed: int) -> list[dict]:
    """The JSON of every position of one random game."""
    rng = random.Random(seed)
    state, seen = game.new_initial_state(), []
    while not state.is_terminal():
        seen.append(state.to_json())
        state.apply_action(state.sample_chance(rng) if state.current_player() == CHANCE
                           else rng.choice(state.legal_actions()))
    return seen


@pytest.mark.parametrize("mode", sorted(GAMES))
def test_a_state_without_a_seat_to_act_is_refused(mode: str) -> None:
    """Every phase after the set-up has an active player: a state naming nobody (-1) there, or naming no seat at
    all, is refused with a StateFormatError, where it was taken and failed in play (a draw into hands[-1] or
    hands[99], an attrition for seat 2)."""
    game = GAMES[mode]
    states = _states_in_play(game, 3)
    in_play = [data for data in states if data["phase"] not in ("setup-bonus", "setup-initiative")]
    assert {data["phase"] for data in in_play} >= {"turn", "draw", "roll"}
    for data in in_play[::7]:
        assert game.state_from_json(data).to_json() == data
        with pytest.raises(StateFormatError, match="a position in play needs an active player"):
            game.state_from_json({**data, "active": -1})
        with pytest.raises(StateFormatError, match="active 2 is not a seat"):
            game.state_from_json({**data, "active": 2})
    setup = next(data for data in states if data["phase"] == "setup-bonus")
    assert setup["active"] == -1 and game.state_from_json(setup).to_json() == setup


def test_a_state_whose_moves_cannot_be_worked_out_or_are_none_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """A position in play must offer a move (or a chance outcome): state_from_json asks for them as it reads, and
    refuses a state whose moves raise (an index off the board) or are none, in both games, for a decision and for
    chance alike."""
    for mode in ("alpine", "rivers"):
        game = GAMES[mode]
        states = _states_in_play(game, 5)
        decision = next(data for data in states if data["phase"] == "turn")
        chance = next(data for data in states if data["phase"] == "roll")
        kind = type(game.new_initial_state())
        for data, method in ((decision, "legal_actions"), (chance, "chance_outcomes")):
            assert game.state_from_json(data).to_json() == data
            with monkeypatch.context() as patch:
                patch.setattr(kind, method, lambda self: [])
                with pytest.raises(StateFormatError, match="a position in play with no move"):
                    game.state_from_json(data)

            def off_the_board(self: object) -> list[int]:
                raise IndexError("list index out of range")

            with monkeypatch.context() as patch:
                patch.setattr(kind, method, off_the_board)
                with pytest.raises(StateFormatError, match=r"its moves cannot be worked out \(IndexError"):
                    game.state_from_json(data)


@pytest.mark.parametrize("mode", sorted(GAMES))
def test_a_state_whose_action_names_no_area_or_no_target_is_refused(mode: str) -> None:
    """The action's link and target are areas of the board or none (-1), and a defence or a roll under way has
    its target (every roll of both games is against an area): an index off the board, or a roll against
    nothing, is refused as it is read instead of failing in play (a negative shift in Rivers' defence roll)."""
    game = GAMES[mode]
    states = _states_in_play(game, 5)
    rolls = [data for data in states if data["phase"] in ("roll", "reroll", "defend")]
    assert rolls
    for data in rolls[:5]:
        none = None if mode in ("rivers", "fortress") else -1
        with pytest.raises(StateFormatError, match="a defence or a roll under way needs its target area"):
            game.state_from_json({**data, "action": {**data["action"], "target": none}})
    if mode in ("alpine", "island"):  # (Sengoku reads areas by name: an unknown name is already refused)
        data = rolls[0]
        for key in ("link", "target"):
            with pytest.raises(StateFormatError, match="the action's link or target is not an area of the board"):
                game.state_from_json({**data, "action": {**data["action"], key: game.NA}})


@pytest.mark.parametrize("mode", ["alpine", "island"])
def test_a_wwii_state_moving_a_unit_of_no_kind_is_refused(mode: str) -> None:
    """WWII's unit under way is troops (0) or aircraft (1), aircraft only on a board with air zones: Alpine's
    aircraft, or a unit kind 2, were taken and then read zones that are not there."""
    game = GAMES[mode]
    data = next(data for data in _states_in_play(game, 5) if data["phase"] == "roll")
    refused = [2, -1] + ([1] if mode == "alpine" else [])
    for unit in refused:
        with pytest.raises(StateFormatError, match=f"unit {unit} is not troops"):
            game.state_from_json({**data, "action": {**data["action"], "unit": unit}})


@pytest.mark.parametrize("mode", sorted(GAMES))
def test_a_move_without_the_area_it_moves_into_or_its_sources_is_refused(mode: str) -> None:
    """A move under way has the area it moves into (its link), and in Sengoku Jidai its source areas (an Advance
    or a Sail is deployed only where it has one): a move-in without them was taken, then failed in play (a
    negative shift, or no move left once its card was played)."""
    game = GAMES[mode]
    moves = [data for data in _states_in_play(game, 5) if data["phase"] == "move-in"]
    assert moves
    none = None if mode in ("rivers", "fortress") else -1
    for data in moves[:5]:
        assert game.state_from_json(data).to_json() == data
        with pytest.raises(StateFormatError, match="a move under way needs the area it moves into"):
            game.state_from_json({**data, "action": {**data["action"], "link": none}})
        if mode in ("rivers", "fortress"):
            with pytest.raises(StateFormatError, match="a move under way needs its source areas"):
                game.state_from_json({**data, "action": {**data["action"], "sources": []}})
