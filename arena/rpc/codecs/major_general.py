"""Major General observations: the observation dict <-> MajorGeneralObservation.

The dict is exactly what `MajorGeneralState.observation(seat)` returns; `to_dict(to_message(d))
== d` for every observation (tests/rpc/test_observations.py).
"""

from __future__ import annotations

from typing import Any

from arena.games.base import JSON
from arena.rpc.generated.observations_pb2 import MajorGeneralObservation

FIELD = "major_general"  # the field of arena.v1.Observation's oneof
MESSAGE = MajorGeneralObservation

# Enum value names are the engine's names in upper case with '_' for '-': SETUP_FIRST_PLAYER.
_PHASE_TO_ENUM = {name.lower().replace("_", "-"): value
                  for name, value in MajorGeneralObservation.Phase.items() if value}
_ENUM_TO_PHASE = {value: name for name, value in _PHASE_TO_ENUM.items()}
_COMMAND_TO_ENUM = {name.lower(): value for name, value in MajorGeneralObservation.Command.items() if value}
_ENUM_TO_COMMAND = {value: name for name, value in _COMMAND_TO_ENUM.items()}


class ObservationFormatError(ValueError):
    """The dict or message is not a Major General observation."""


def fill(message: MajorGeneralObservation, observation: JSON) -> None:
    """Write an observation dict into an empty message."""
    try:
        message.game = observation["game"]
        message.phase = _PHASE_TO_ENUM[observation["phase"]]
        message.current_player = observation["current_player"]
        message.first = observation["first"]
        message.active = observation["active"]
        message.turn = observation["turn"]
        units = message.units
        for per_seat in observation["units"]:
            units.add().per_seat.extend(per_seat)
        message.supply.extend(observation["supply"])
        top = message.top
        for item in observation["top"]:
            if item is None:
                top.add()
            else:
                top.add(command=_COMMAND_TO_ENUM[item["command"]], owner=item["owner"])
        played = message.played
        for cards in observation["played"]:
            played.add().cards.extend(cards)
        scenario = observation["scenario"]
        if scenario is not None:
            message.scenario = scenario
        message.scenario_points.extend(observation["scenario_points"])
        message.cubes_left = observation["cubes_left"]
        message.cursor = observation["cursor"]
        pending = observation["pending"]
        if pending is not None:
            message.pending.command = _COMMAND_TO_ENUM[pending["command"]]
            message.pending.executor = pending["executor"]
            message.pending.space = pending["space"]
            message.pending.steps = pending["steps"]
        message.reason = observation["reason"]
        message.seat = observation["seat"]
        message.hand.extend(observation["hand"])
        message.hand_sizes.extend(observation["hand_sizes"])
        message.deck_sizes.extend(observation["deck_sizes"])
    except (KeyError, TypeError, ValueError) as error:
        raise ObservationFormatError(f"not a Major General observation: {error!r}") from None


def to_message(observation: JSON) -> MajorGeneralObservation:
    """An observation dict as a new message."""
    message = MajorGeneralObservation()
    fill(message, observation)
    return message


def to_dict(message: MajorGeneralObservation) -> JSON:
    """A message as the observation dict `State.observation(seat)` gives."""
    try:
        top: list[Any] = [
            None if item.command == 0 else {"command": _ENUM_TO_COMMAND[item.command], "owner": item.owner}
            for item in message.top
        ]
        pending = None
        if message.HasField("pending"):
            p = message.pending
            pending = {"command": _ENUM_TO_COMMAND[p.command], "executor": p.executor, "space": p.space,
                       "steps": p.steps}
        phase = _ENUM_TO_PHASE[message.phase]
    except KeyError:
        raise ObservationFormatError("a Major General observation without a phase, or with an unknown phase "
                                     "or command") from None
    return {
        "game": message.game,
        "phase": phase,
        "current_player": message.current_player,
        "first": message.first,
        "active": message.active,
        "turn": message.turn,
        "units": [list(space.per_seat) for space in message.units],
        "supply": list(message.supply),
        "top": top,
        "played": [list(cards.cards) for cards in message.played],
        "scenario": message.scenario if message.HasField("scenario") else None,
        "scenario_points": list(message.scenario_points),
        "cubes_left": message.cubes_left,
        "cursor": message.cursor,
        "pending": pending,
        "reason": message.reason,
        "seat": message.seat,
        "hand": list(message.hand),
        "hand_sizes": list(message.hand_sizes),
        "deck_sizes": list(message.deck_sizes),
    }
