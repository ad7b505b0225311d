"""General Orders: Sengoku Jidai observations: the observation dict <-> GeneralOrdersSengokuObservation.

The dict is exactly what `SengokuState.observation(seat)` returns (Rivers and Fortress);
`to_dict(to_message(d)) == d`, key order and value types included, for every observation
(tests/rpc/test_general_orders_observations.py). Enum values are the engine's names in upper case
with '_' for '-' and a prefix (phase "follow-up" is PHASE_FOLLOW_UP); the tables are built from
the engine's own name tuples, so a name the .proto lacks fails at import, not mid-match. The fields
both General Orders games share are codec.shared_fields; here the order of the dict and Sengoku's own.
"""

from __future__ import annotations

from typing import Any

from arena.rpc.codecs.general_orders import (Codec, Field, card_table, enum_table, named, named_list, optional,
    optional_nested, repeated, scalar, shared_fields, units)
from arena.rpc.codecs.general_orders import nested as nested_field
from arena.games.general_orders.sengoku.rules import AFTER_LOSS, PHASE_NAMES, PURPOSES, WINDOWS
from arena.games.general_orders.sengoku.board import ACTIONS, CARD_IDS, TOKENS
from arena.rpc.generated.observations_pb2 import GeneralOrdersSengokuObservation

FIELD = "general_orders_sengoku"  # the field of arena.v1.Observation's oneof
MESSAGE = GeneralOrdersSengokuObservation

_M = GeneralOrdersSengokuObservation
_ACTION = enum_table(_M.ActionKind, "ACTION_", (None, *ACTIONS))
_CARD = card_table(_M.Card, CARD_IDS)
_SHARED = shared_fields(_ACTION, enum_table(_M.Token, "TOKEN_", TOKENS), _CARD, CARD_IDS)


def _put_supplied(message: Any, value: list[list[str]]) -> None:
    for areas in value:
        message.supplied_at_start.add().areas.extend(areas)


_ACTION_FIELDS = [
    named("kind", *_ACTION), scalar("space"), optional("link"), optional("target"), repeated("sources"),
    scalar("moved"), scalar("left"), scalar("optional"), scalar("siege_left"), scalar("siege_slots"),
    scalar("withdraw_closed"), named_list("effects", _CARD, dict(enumerate(CARD_IDS))),
    Field("supplied_at_start", _put_supplied, lambda msg: [supplied.areas[:] for supplied in msg.supplied_at_start]),
    named("window", *enum_table(_M.Window, "WINDOW_", WINDOWS)), scalar("dice"), scalar("roller"), scalar("roll"),
    named("roll_for", *enum_table(_M.RollFor, "ROLL_", PURPOSES)), scalar("draws"), repeated("conflicts_queued"),
    optional_nested("loss", [scalar("seat"), scalar("area"), scalar("count"),
                             named("then", *enum_table(_M.AfterLoss, "AFTER_LOSS_", AFTER_LOSS))]),
]


class ObservationFormatError(ValueError):
    """The dict or message is not a General Orders: Sengoku Jidai observation."""


_CODEC = Codec(GeneralOrdersSengokuObservation, [
    _SHARED["game"], _SHARED["mode"], named("phase", *enum_table(_M.Phase, "PHASE_", PHASE_NAMES)),
    _SHARED["current_player"], _SHARED["round"], _SHARED["initiative"], _SHARED["active"], _SHARED["troops"],
    units("ships"), units("siege_weapons"), _SHARED["reserve_troops"], repeated("reserve_ships"),
    repeated("reserve_siege_weapons"), _SHARED["commanders_reserve"], _SHARED["commanders_standby"],
    _SHARED["spaces"], _SHARED["support_used"], _SHARED["bonuses"], _SHARED["discard"], _SHARED["used_effects"],
    nested_field("action", _ACTION_FIELDS), _SHARED["victory_points"], _SHARED["winner"], _SHARED["reason"],
    _SHARED["outcome"], _SHARED["seat"], _SHARED["hand"], _SHARED["hand_sizes"], _SHARED["deck_size"],
], "General Orders: Sengoku Jidai", ObservationFormatError)

fill = _CODEC.fill
to_message = _CODEC.to_message
to_dict = _CODEC.to_dict
