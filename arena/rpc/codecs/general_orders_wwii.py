"""General Orders: WWII observations: the observation dict <-> GeneralOrdersWwiiObservation.

The dict is exactly what `WWIIState.observation(seat)` returns (Alpine and Island);
`to_dict(to_message(d)) == d`, key order and value types included, for every observation
(tests/rpc/test_general_orders_observations.py). Enum values are the engine's names in upper case
with '_' for '-' and a prefix (phase "move-in" is PHASE_MOVE_IN); the tables are built from the
engine's own name tuples, so a name the .proto lacks fails at import, not mid-match. The fields
both General Orders games share are codec.shared_fields; here the order of the dict and WWII's own.
"""

from __future__ import annotations

from arena.rpc.codecs.general_orders import (Codec, card_table, enum_table, named, named_list, nested, repeated,
    scalar, shared_fields, units)
from arena.games.general_orders.wwii.board import ACTIONS, CARD_IDS, TOKENS
from arena.games.general_orders.wwii.rules import PHASE_NAMES, PURPOSES, WINDOWS
from arena.rpc.generated.observations_pb2 import GeneralOrdersWwiiObservation

FIELD = "general_orders_wwii"  # the field of arena.v1.Observation's oneof
MESSAGE = GeneralOrdersWwiiObservation

_M = GeneralOrdersWwiiObservation
_ACTION = enum_table(_M.ActionKind, "ACTION_", (None, *ACTIONS))
_CARD = card_table(_M.Card, CARD_IDS)
_SHARED = shared_fields(_ACTION, enum_table(_M.Token, "TOKEN_", TOKENS), _CARD, CARD_IDS)
_ACTION_FIELDS = [
    named("kind", *_ACTION), scalar("space"), scalar("link"), scalar("unit"), scalar("target"), scalar("moved"),
    scalar("left"), scalar("optional"), scalar("withdraw_closed"),
    named_list("effects", _CARD, dict(enumerate(CARD_IDS))),
    repeated("supplied_at_start"), repeated("air_supplied_at_start"), scalar("payload"),
    named("window", *enum_table(_M.Window, "WINDOW_", WINDOWS)), scalar("dice"), scalar("roller"), scalar("roll"),
    named("roll_for", *enum_table(_M.RollFor, "ROLL_", PURPOSES)), scalar("draws"),
]


class ObservationFormatError(ValueError):
    """The dict or message is not a General Orders: WWII observation."""


_CODEC = Codec(GeneralOrdersWwiiObservation, [
    _SHARED["game"], _SHARED["mode"], named("phase", *enum_table(_M.Phase, "PHASE_", PHASE_NAMES)),
    _SHARED["current_player"], _SHARED["round"], _SHARED["initiative"], _SHARED["active"], repeated("passed"),
    _SHARED["troops"], units("aircraft"), _SHARED["reserve_troops"], repeated("reserve_aircraft"),
    _SHARED["commanders_reserve"], _SHARED["commanders_standby"], _SHARED["spaces"], _SHARED["support_used"],
    _SHARED["bonuses"], _SHARED["discard"], _SHARED["used_effects"], repeated("signal"), scalar("blitz_extra"),
    nested("action", _ACTION_FIELDS), scalar("chooser"), _SHARED["victory_points"], _SHARED["winner"],
    _SHARED["reason"], _SHARED["outcome"], _SHARED["seat"], _SHARED["hand"], _SHARED["hand_sizes"],
    _SHARED["deck_size"],
], "General Orders: WWII", ObservationFormatError)

fill = _CODEC.fill
to_message = _CODEC.to_message
to_dict = _CODEC.to_dict
