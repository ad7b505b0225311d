"""Typed observations: dict -> message -> dict is the identity for every Major General observation,
and a family without a message of its own travels as JSON."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.rpc.codecs.major_general import ObservationFormatError, to_dict, to_message
from arena.games.registry import UnknownGameError, load_game
from arena.rpc.generated.observations_pb2 import MajorGeneralObservation, Observation
from arena.rpc.observations import codec_for_family, codec_for_game, decode_any, generic_codec


def observations_of_a_game(name: str, seed: int) -> list[dict]:
    game = load_game(name)
    rng = random.Random(seed)
    state = game.new_initial_state()
    seen = [state.observation(seat) for seat in range(game.num_seats)]
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(state.sample_chance(rng))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
        seen.extend(state.observation(seat) for seat in range(game.num_seats))
    return seen


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from(["major-general", "major-general/no-scenario",
                                               "major-general/hold-the-centre"]))
def test_major_general_round_trip_over_whole_games(seed: int, name: str) -> None:
    codec = codec_for_game(name)
    for observation in observations_of_a_game(name, seed):
        wire = Observation.FromString(codec.encode(observation).SerializeToString())
        assert codec.decode(wire) == observation
        assert decode_any(wire) == observation


def test_every_phase_and_the_optional_fields_survive() -> None:
    phases, pendings, scenarios = set(), 0, set()
    for seed in range(6):
        for observation in observations_of_a_game("major-general", seed):
            assert to_dict(to_message(observation)) == observation
            phases.add(observation["phase"])
            pendings += observation["pending"] is not None
            scenarios.add(observation["scenario"])
    assert {"setup-scenario", "setup-first-player", "deal", "play", "choice", "draw", "over"} <= phases
    assert pendings > 0 and None in scenarios and len(scenarios) > 1


def test_bad_input_is_a_clear_error() -> None:
    with pytest.raises(ObservationFormatError):
        to_message({"game": "major-general"})
    with pytest.raises(ObservationFormatError):
        to_dict(MajorGeneralObservation())  # no phase
    with pytest.raises(ValueError, match="expected a major-general observation"):
        codec_for_family("major-general").decode(Observation())


def test_a_family_without_a_message_of_its_own_travels_as_json() -> None:
    with pytest.raises(UnknownGameError, match="unknown game family 'no-such-family'"):
        codec_for_family("no-such-family")
    assert codec_for_game("major-general/hold-the-centre").family == "major-general"
    codec = generic_codec("some-plugged-in-game")
    observation = {"seat": 1, "board": [[0, None], [2, 3]], "note": "é", "score": 1.5, "over": False}
    message = codec.encode(observation)
    assert message.WhichOneof("family") == "generic" and json.loads(message.generic.json) == observation
    assert codec.decode(Observation.FromString(message.SerializeToString())) == observation
    assert decode_any(message) == observation
