"""Converters are pure and exact: value -> message -> value is the identity."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.referee.clock import ClockSettings
from arena.referee.players import PlayerKind
from arena.referee.record import MatchResult, PlayerInfo
from arena.rpc.convert import (
    ConversionError,
    clock_from_message,
    clock_to_message,
    option_from_message,
    options_from_map,
    options_to_map,
    players_from_messages,
    players_to_messages,
    result_from_message,
    result_to_message,
)
from arena.rpc.generated import admin_pb2, bot_pb2, common_pb2

option_values = st.one_of(st.text(), st.integers(-(2**63), 2**63 - 1), st.booleans(),
                          st.floats(allow_nan=False))


@given(st.dictionaries(st.text(min_size=1), option_values))
def test_options_round_trip(options: dict) -> None:
    message = admin_pb2.StartMatchRequest()
    options_to_map(options, message.options)
    parsed = options_from_map(admin_pb2.StartMatchRequest.FromString(message.SerializeToString()).options)
    assert parsed == options
    assert all(type(parsed[key]) is type(value) for key, value in options.items())


def test_options_refuse_what_the_protocol_cannot_carry() -> None:
    with pytest.raises(ConversionError):
        options_to_map({"cards": [1, 2]}, admin_pb2.StartMatchRequest().options)
    with pytest.raises(ConversionError):
        option_from_message(common_pb2.OptionValue())


@given(st.integers(1, 10**6), st.integers(0, 10**7), st.integers(0, 10**5))
def test_clock_round_trip(move_ms: int, bank_ms: int, grace_ms: int) -> None:
    clock = ClockSettings(move_ms / 1000, bank_ms / 1000, grace_ms / 1000)
    assert clock_from_message(clock_to_message(clock)) == clock


def test_a_clock_needs_a_move_time() -> None:
    with pytest.raises(ConversionError):
        clock_from_message(common_pb2.ClockSettings(bank_ms=5))


results = st.builds(
    MatchResult,
    ranking=st.lists(st.integers(0, 7), min_size=1, max_size=8).map(tuple),
    reason=st.sampled_from(["score", "timeout", "crash", "void", "max_length"]),
    scores=st.lists(st.integers(-50, 50).map(float), max_size=8).map(tuple),
    offender=st.one_of(st.none(), st.integers(0, 7)),
    detail=st.text(),
    voided=st.booleans(),
)


@given(results)
def test_result_round_trip(result: MatchResult) -> None:
    message = common_pb2.MatchResult.FromString(result_to_message(result).SerializeToString())
    assert result_from_message(message) == result


@given(st.lists(st.tuples(st.text(), st.text()), max_size=6))
def test_players_round_trip(pairs: list[tuple[str, str]]) -> None:
    players = [PlayerInfo(seat, name, version, PlayerKind.BOT) for seat, (name, version) in enumerate(pairs)]
    start = bot_pb2.MatchStart()
    players_to_messages(players, start.players)
    assert players_from_messages(bot_pb2.MatchStart.FromString(start.SerializeToString()).players) == players
