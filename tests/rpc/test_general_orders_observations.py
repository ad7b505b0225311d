"""Typed General Orders observations (WWII and Sengoku Jidai): dict -> message -> bytes -> message ->
dict is the identity, key order and value types included, for every observation of whole random
games of all four modes (every seat, every step, the initial and the terminal state), and for every
name the engines use, even those random play rarely or never reaches."""

from __future__ import annotations

import copy
import random
from typing import Any, Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games.general_orders.sengoku import board as sengoku_data
from arena.games.general_orders.sengoku import rules as sengoku
from arena.games.general_orders.wwii import board as wwii_data
from arena.games.general_orders.wwii import rules
from arena.games.registry import load_game
from arena.rpc.generated.observations_pb2 import (
    GeneralOrdersSengokuObservation,
    GeneralOrdersWwiiObservation,
    Observation,
)
from arena.rpc.codecs import general_orders_sengoku
from arena.rpc.observations import codec_for_family, codec_for_game, decode_any
from arena.rpc.codecs import general_orders_wwii

WWII_MODES = ["general-orders-wwii/alpine", "general-orders-wwii/island"]
SENGOKU_MODES = ["general-orders-sengoku/rivers", "general-orders-sengoku/fortress"]
MODES = WWII_MODES + SENGOKU_MODES


def observations_of_a_game(name: str, seed: int) -> Iterator[dict]:
    """Every seat's observation before each step of a random game, and at its end."""
    game = load_game(name)
    rng = random.Random(seed)
    state = game.new_initial_state()
    while True:
        for seat in range(game.num_seats):
            yield state.observation(seat)
        if state.is_terminal():
            return
        state.apply_action(state.sample_chance(rng) if state.is_chance_node() else rng.choice(state.legal_actions()))


def assert_identical(got: Any, want: Any, path: str = "observation") -> None:
    """Equal, with the same types throughout (True is not 1, 2.0 is not 2) and the same key order."""
    assert type(got) is type(want), f"{path}: {got!r} is not {want!r}"
    if isinstance(want, dict):
        assert list(got) == list(want), f"{path}: keys {list(got)} are not {list(want)}"
        for key in want:
            assert_identical(got[key], want[key], f"{path}.{key}")
    elif isinstance(want, list):
        assert len(got) == len(want), f"{path}: {got!r} is not {want!r}"
        for index, (item, wanted) in enumerate(zip(got, want)):
            assert_identical(item, wanted, f"{path}[{index}]")
    else:
        assert got == want, f"{path}: {got!r} is not {want!r}"


def round_trip(observation: dict, name: str) -> dict:
    """Through the codec and the wire, as the referee sends it and the SDK reads it."""
    codec = codec_for_game(name)
    wire = Observation.FromString(codec.encode(observation).SerializeToString())
    decoded = codec.decode(wire)
    assert decode_any(wire) == decoded
    return decoded


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from(MODES))
def test_round_trip_over_whole_random_games(seed: int, name: str) -> None:
    for observation in observations_of_a_game(name, seed):
        assert_identical(round_trip(observation, name), observation)


@pytest.mark.parametrize("name", MODES)
def test_every_shape_the_engine_shows_survives(name: str) -> None:
    """Fixed seeds, with a census showing the games went through the interesting shapes."""
    phases: set[str] = set()
    windows: set[str] = set()
    roll_purposes: set[str] = set()
    kinds: set[Any] = set()
    seen = {"terminal": 0, "hand": 0, "discard": 0, "effects": 0, "air": 0, "ships": 0, "siege": 0, "loss": 0}
    for seed in range(6):
        for observation in observations_of_a_game(name, seed):
            assert_identical(round_trip(observation, name), observation)
            action = observation["action"]
            phases.add(observation["phase"])
            windows.add(action["window"])
            roll_purposes.add(action["roll_for"])
            kinds.add(action["kind"])
            seen["terminal"] += observation["outcome"] is not None
            seen["hand"] += bool(observation["hand"])
            seen["discard"] += bool(observation["discard"])
            seen["effects"] += bool(action["effects"])
            seen["air"] += any(sum(pair) for pair in observation.get("aircraft", {}).values())
            seen["ships"] += any(sum(pair) for pair in observation.get("ships", {}).values())
            seen["siege"] += any(sum(pair) for pair in observation.get("siege_weapons", {}).values())
            seen["loss"] += action.get("loss") is not None
    assert seen["terminal"] == 2 * 6 and seen["hand"] and seen["discard"] and seen["effects"]
    assert {"setup-bonus", "setup-initiative", "turn", "move-in", "place", "roll", "reroll", "draw", "over"} <= phases
    assert None in kinds and len(kinds) >= 6 and len(windows) >= 2 and len(roll_purposes) >= 3
    if name == "general-orders-wwii/island":
        assert seen["air"] and "payload" in phases
    if name.startswith("general-orders-sengoku/"):
        assert seen["ships"]
    if name == "general-orders-sengoku/fortress":
        assert seen["siege"] and seen["loss"] and "loss" in phases and "walls" in windows


def a_mid_game_observation(name: str) -> dict:
    """An observation with an action in progress, cards in hand and in the discard pile."""
    for observation in observations_of_a_game(name, 11):
        if observation["action"]["kind"] is not None and observation["hand"] and observation["discard"]:
            return observation
    raise AssertionError("no such observation")


def vocabulary(name: str) -> dict[tuple[str, ...], tuple]:
    """Where each of the engine's names may appear, and all the names it has."""
    if name in WWII_MODES:
        return {("phase",): rules.PHASE_NAMES, ("action", "kind"): (None, *wwii_data.ACTIONS),
                ("action", "window"): rules.WINDOWS, ("action", "roll_for"): rules.PURPOSES}
    return {("phase",): sengoku.PHASE_NAMES, ("action", "kind"): (None, *sengoku_data.ACTIONS),
            ("action", "window"): sengoku.WINDOWS, ("action", "roll_for"): sengoku.PURPOSES}


@pytest.mark.parametrize("name", [WWII_MODES[1], SENGOKU_MODES[1]])
def test_every_name_the_engines_use_survives(name: str) -> None:
    """Each phase, action kind, window, roll purpose, card, token and loss follow-up, even those random
    play rarely reaches (a Signal Unit return, the Bomb window, an anti-aircraft roll against Bomb)."""
    base = a_mid_game_observation(name)
    for path, names in vocabulary(name).items():
        for value in names:
            observation = copy.deepcopy(base)
            target = observation
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = value
            assert_identical(round_trip(observation, name), observation)
    cards = wwii_data.CARD_IDS if name in WWII_MODES else sengoku_data.CARD_IDS
    tokens = wwii_data.TOKENS if name in WWII_MODES else sengoku_data.TOKENS
    areas = list(base["troops"])
    observation = copy.deepcopy(base)
    observation["hand"] = {card: kind + 1 for kind, card in enumerate(cards)}
    observation["discard"] = {cards[-1]: 3}
    observation["used_effects"] = [list(cards), []]
    observation["action"]["effects"] = list(cards)
    observation["support_used"] = [[], list(vocabulary(name)[("action", "kind")][1:])]
    observation["bonuses"] = {area: token for area, token in zip(areas, tokens)}
    assert_identical(round_trip(observation, name), observation)
    if name in SENGOKU_MODES:
        for then in sengoku.AFTER_LOSS:
            observation = copy.deepcopy(base)
            observation["action"]["loss"] = {"seat": 1, "area": areas[-1], "count": 2, "then": then}
            assert_identical(round_trip(observation, name), observation)


@pytest.mark.parametrize("module,message,name", [
    (general_orders_wwii, GeneralOrdersWwiiObservation, WWII_MODES[0]),
    (general_orders_sengoku, GeneralOrdersSengokuObservation, SENGOKU_MODES[0]),
])
def test_bad_input_is_a_clear_error(module: Any, message: Any, name: str) -> None:
    with pytest.raises(module.ObservationFormatError):
        module.to_message({"game": name})
    observation = a_mid_game_observation(name)
    observation["hand"] = {"no_such_card": 1}
    with pytest.raises(module.ObservationFormatError):
        module.to_message(observation)
    with pytest.raises(module.ObservationFormatError):
        module.to_dict(message())  # no phase
    family = name.split("/")[0]
    with pytest.raises(ValueError, match=f"expected a {family} observation"):
        codec_for_family(family).decode(Observation())


def test_families_and_fields() -> None:
    assert codec_for_game("general-orders-wwii/island").field == "general_orders_wwii"
    assert codec_for_game("general-orders-wwii").family == "general-orders-wwii"
    assert codec_for_game("general-orders-sengoku/fortress").field == "general_orders_sengoku"
    assert codec_for_game("general-orders-sengoku").family == "general-orders-sengoku"


@pytest.mark.parametrize("message", [GeneralOrdersWwiiObservation, GeneralOrdersSengokuObservation])
def test_the_messages_have_no_field_for_hidden_cards(message: Any) -> None:
    names = {field.name for field in message.DESCRIPTOR.fields}
    assert {"hand", "hand_sizes", "deck_size", "discard"} <= names
    assert not names & {"hands", "deck", "decks", "opponent_hand"}
