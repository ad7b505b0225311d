"""Pure converters between Arena's values and the protocol's messages (both directions).

Each pair is exact: value -> message -> value gives the value back (tests/rpc/test_convert.py).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from arena import PROTOCOL_VERSION  # (defined beside __version__; the pool and the SDK import it from here)
from arena.referee.clock import ClockSettings
from arena.referee.players import PlayerKind
from arena.referee.record import MatchResult, PlayerInfo, reason_of
from arena.rpc.generated import bot_pb2, common_pb2


class ConversionError(ValueError):
    """A value has no protocol form, or a message has no Arena meaning."""


def option_to_message(value: Any, target: common_pb2.OptionValue) -> None:
    """Write one game option value into an OptionValue."""
    if isinstance(value, bool):  # before int: bool is an int in Python
        target.flag = value
    elif isinstance(value, int):
        target.integer = value
    elif isinstance(value, float):
        target.number = value
    elif isinstance(value, str):
        target.text = value
    else:
        raise ConversionError(f"option value {value!r} is not text, an integer, a number or a flag")


def option_from_message(message: common_pb2.OptionValue) -> Any:
    """The Python value of an OptionValue."""
    kind = message.WhichOneof("kind")
    if kind is None:
        raise ConversionError("an option value carries no value")
    return getattr(message, kind)


def options_to_map(options: Mapping[str, Any], target: Any) -> None:
    """Fill a map<string, OptionValue> field from an options dict."""
    for key, value in options.items():
        option_to_message(value, target[key])


def options_from_map(source: Any) -> dict[str, Any]:
    """An options dict from a map<string, OptionValue> field (keys sorted)."""
    return {key: option_from_message(source[key]) for key in sorted(source)}


def clock_to_message(clock: ClockSettings) -> common_pb2.ClockSettings:
    """ClockSettings (seconds) -> the message (whole milliseconds)."""
    return common_pb2.ClockSettings(move_time_ms=_ms(clock.move_time_s), bank_ms=_ms(clock.bank_s),
                                    grace_ms=_ms(clock.grace_s))


def clock_from_message(message: common_pb2.ClockSettings) -> ClockSettings:
    """The message -> ClockSettings; raises ConversionError for a zero move time."""
    if message.move_time_ms == 0:
        raise ConversionError("a clock needs a move time above 0 ms")
    return ClockSettings(message.move_time_ms / 1000.0, message.bank_ms / 1000.0, message.grace_ms / 1000.0)


def result_to_message(result: MatchResult, target: common_pb2.MatchResult | None = None) -> common_pb2.MatchResult:
    """A MatchResult as a message (written into `target` when given)."""
    message = target if target is not None else common_pb2.MatchResult()
    message.ranking.extend(result.ranking)
    message.reason = result.reason
    message.scores.extend(result.scores)
    if result.offender is not None:
        message.offender = result.offender
    message.detail = result.detail
    message.voided = result.voided
    return message


def result_from_message(message: common_pb2.MatchResult) -> MatchResult:
    """The message -> a MatchResult."""
    return MatchResult(
        ranking=tuple(message.ranking),
        reason=reason_of(message.reason),
        scores=tuple(message.scores),
        offender=message.offender if message.HasField("offender") else None,
        detail=message.detail,
        voided=message.voided,
    )


def players_to_messages(players: Sequence[PlayerInfo], target: Any) -> None:
    """Fill a repeated Player field."""
    for player in players:
        target.add(seat=player.seat, name=player.name, version=player.version)


def players_from_messages(source: Sequence[bot_pb2.Player], kind: PlayerKind = PlayerKind.BOT
                          ) -> list[PlayerInfo]:
    """PlayerInfo values from a repeated Player field."""
    return [PlayerInfo(p.seat, p.name, p.version, kind) for p in source]


_LISTED_KINDS = {PlayerKind.PROGRAM: "local", PlayerKind.REMOTE: "remote"}


def listed_kind(kind: PlayerKind) -> str:
    """A bot's kind as the admin protocol's BotStatus.kind spells it: "local" (a bot program the referee launches
    from bots/<name>/bot.toml) or "remote"."""
    try:
        return _LISTED_KINDS[kind]
    except KeyError:
        raise ConversionError(f"a referee lists no bot of kind {kind.value!r}") from None


def _ms(seconds: float) -> int:
    if seconds < 0 or seconds * 1000.0 >= 2**32:
        raise ConversionError(f"{seconds} s is not a clock time the protocol can carry")
    return round(seconds * 1000.0)
