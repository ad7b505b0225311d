"""Typed observations: dict -> message -> dict is the identity for every Major General observation,
and families are looked up in one registry that refuses families without a message."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games.registry import load_game
from arena.rpc.generated.observations_pb2 import MajorGeneralObservation, Observation
from arena.rpc.observations import NoObservationCodec, codec_for_family, codec_for_game, decode_any
from arena.rpc.observations.major_general import ObservationFormatError, to_dict, to_message


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


def test_families_without_a_message_are_refused() -> None:
    with pytest.raises(NoObservationCodec, match="no typed observation message"):
        codec_for_family("no-such-family")
    assert codec_for_game("major-general/hold-the-centre").family == "major-general"
