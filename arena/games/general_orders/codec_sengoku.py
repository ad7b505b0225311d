"""General Orders: Sengoku Jidai observations: the observation dict <-> GeneralOrdersSengokuObservation.

The dict is exactly what `SengokuState.observation(seat)` returns (Rivers and Fortress);
`to_dict(to_message(d)) == d`, key order and value types included, for every observation
(tests/rpc/test_general_orders_observations.py). Enum values are the engine's names in upper case
with '_' for '-' and a prefix (phase "follow-up" is PHASE_FOLLOW_UP); the tables are built from
the engine's own name tuples, so a name the .proto lacks fails at import, not mid-match.
"""

from __future__ import annotations

from typing import Any

from arena.games.base import JSON
from arena.games.general_orders.codec import (
    area_units,
    card_counts,
    card_table,
    enum_table,
    fill_area_units,
    fill_outcome,
    named_card_counts,
    outcome_dict,
    pairs,
)
from arena.games.general_orders.sengoku import AFTER_LOSS, PHASE_NAMES, PURPOSES, WINDOWS
from arena.games.general_orders.sengoku_data import ACTIONS, CARD_IDS, TOKENS
from arena.rpc.generated.observations_pb2 import GeneralOrdersSengokuObservation

FIELD = "general_orders_sengoku"  # the field of arena.v1.Observation's oneof
MESSAGE = GeneralOrdersSengokuObservation

_M = GeneralOrdersSengokuObservation
_PHASE, _PHASE_NAME = enum_table(_M.Phase, "PHASE_", PHASE_NAMES)
_ACTION, _ACTION_NAME = enum_table(_M.ActionKind, "ACTION_", (None, *ACTIONS))
_TOKEN, _TOKEN_NAME = enum_table(_M.Token, "TOKEN_", TOKENS)
_WINDOW, _WINDOW_NAME = enum_table(_M.Window, "WINDOW_", WINDOWS)
_ROLL_FOR, _ROLL_FOR_NAME = enum_table(_M.RollFor, "ROLL_", PURPOSES)
_AFTER_LOSS, _AFTER_LOSS_NAME = enum_table(_M.AfterLoss, "AFTER_LOSS_", AFTER_LOSS)
_CARD = card_table(_M.Card, CARD_IDS)


class ObservationFormatError(ValueError):
    """The dict or message is not a General Orders: Sengoku Jidai observation."""


def fill(message: GeneralOrdersSengokuObservation, observation: JSON) -> None:
    """Write an observation dict into an empty message."""
    try:
        message.game = observation["game"]
        message.mode = observation["mode"]
        message.phase = _PHASE[observation["phase"]]
        message.current_player = observation["current_player"]
        message.round = observation["round"]
        message.initiative = observation["initiative"]
        message.active = observation["active"]
        fill_area_units(message.troops, observation["troops"])
        fill_area_units(message.ships, observation["ships"])
        fill_area_units(message.siege_weapons, observation["siege_weapons"])
        message.reserve_troops.extend(observation["reserve_troops"])
        message.reserve_ships.extend(observation["reserve_ships"])
        message.reserve_siege_weapons.extend(observation["reserve_siege_weapons"])
        message.commanders_reserve.extend(observation["commanders_reserve"])
        message.commanders_standby.extend(observation["commanders_standby"])
        spaces = observation["spaces"]
        message.space_commanders.extend([pair[0] for pair in spaces])
        message.space_counter_commanders.extend([pair[1] for pair in spaces])
        support_used = message.support_used
        for kinds in observation["support_used"]:
            support_used.add().kinds.extend([_ACTION[kind] for kind in kinds])
        bonuses = message.bonuses
        for area, token in observation["bonuses"].items():
            bonuses.add(area=area, token=_TOKEN[token])
        message.discard.extend(card_counts(observation["discard"], _CARD))
        used_effects = message.used_effects
        for cards in observation["used_effects"]:
            used_effects.add().cards.extend([_CARD[card] for card in cards])
        _fill_action(message.action, observation["action"])
        message.victory_points.extend(observation["victory_points"])
        message.winner = observation["winner"]
        message.reason = observation["reason"]
        outcome = observation["outcome"]
        if outcome is not None:
            fill_outcome(message.outcome, outcome)
        message.seat = observation["seat"]
        message.hand.extend(card_counts(observation["hand"], _CARD))
        message.hand_sizes.extend(observation["hand_sizes"])
        message.deck_size = observation["deck_size"]
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as error:
        raise ObservationFormatError(f"not a General Orders: Sengoku Jidai observation: {error!r}") from None


def _fill_action(message: Any, action: JSON) -> None:
    message.kind = _ACTION[action["kind"]]
    message.space = action["space"]
    link = action["link"]
    if link is not None:
        message.link = link
    target = action["target"]
    if target is not None:
        message.target = target
    message.sources.extend(action["sources"])
    message.moved = action["moved"]
    message.left = action["left"]
    message.optional = action["optional"]
    message.siege_left = action["siege_left"]
    message.siege_slots = action["siege_slots"]
    message.withdraw_closed = action["withdraw_closed"]
    message.effects.extend([_CARD[card] for card in action["effects"]])
    supplied = message.supplied_at_start
    for areas in action["supplied_at_start"]:
        supplied.add().areas.extend(areas)
    message.window = _WINDOW[action["window"]]
    message.dice = action["dice"]
    message.roller = action["roller"]
    message.roll = action["roll"]
    message.roll_for = _ROLL_FOR[action["roll_for"]]
    message.draws = action["draws"]
    message.conflicts_queued.extend(action["conflicts_queued"])
    loss = action["loss"]
    if loss is not None:
        message.loss.seat = loss["seat"]
        message.loss.area = loss["area"]
        message.loss.count = loss["count"]
        message.loss.then = _AFTER_LOSS[loss["then"]]


def to_message(observation: JSON) -> GeneralOrdersSengokuObservation:
    """An observation dict as a new message."""
    message = GeneralOrdersSengokuObservation()
    fill(message, observation)
    return message


def to_dict(message: GeneralOrdersSengokuObservation) -> JSON:
    """A message as the observation dict `State.observation(seat)` gives."""
    try:
        phase = _PHASE_NAME[message.phase]
        action = message.action
        loss = None
        if action.HasField("loss"):
            m = action.loss
            loss = {"seat": m.seat, "area": m.area, "count": m.count, "then": _AFTER_LOSS_NAME[m.then]}
        action_dict = {
            "kind": _ACTION_NAME[action.kind],
            "space": action.space,
            "link": action.link if action.HasField("link") else None,
            "target": action.target if action.HasField("target") else None,
            "sources": action.sources[:],
            "moved": action.moved, "left": action.left, "optional": action.optional,
            "siege_left": action.siege_left, "siege_slots": action.siege_slots,
            "withdraw_closed": action.withdraw_closed,
            "effects": [CARD_IDS[card] for card in action.effects],
            "supplied_at_start": [supplied.areas[:] for supplied in action.supplied_at_start],
            "window": _WINDOW_NAME[action.window], "dice": action.dice, "roller": action.roller,
            "roll": action.roll, "roll_for": _ROLL_FOR_NAME[action.roll_for], "draws": action.draws,
            "conflicts_queued": action.conflicts_queued[:],
            "loss": loss,
        }
        observation = {
            "game": message.game,
            "mode": message.mode,
            "phase": phase,
            "current_player": message.current_player,
            "round": message.round,
            "initiative": message.initiative,
            "active": message.active,
            "troops": area_units(message.troops),
            "ships": area_units(message.ships),
            "siege_weapons": area_units(message.siege_weapons),
            "reserve_troops": message.reserve_troops[:],
            "reserve_ships": message.reserve_ships[:],
            "reserve_siege_weapons": message.reserve_siege_weapons[:],
            "commanders_reserve": message.commanders_reserve[:],
            "commanders_standby": message.commanders_standby[:],
            "spaces": pairs(message.space_commanders, message.space_counter_commanders),
            "support_used": [[_ACTION_NAME[kind] for kind in used.kinds] for used in message.support_used],
            "bonuses": {bonus.area: _TOKEN_NAME[bonus.token] for bonus in message.bonuses},
            "discard": named_card_counts(message.discard, CARD_IDS),
            "used_effects": [[CARD_IDS[card] for card in used.cards] for used in message.used_effects],
            "action": action_dict,
            "victory_points": message.victory_points[:],
            "winner": message.winner,
            "reason": message.reason,
            "outcome": outcome_dict(message.outcome) if message.HasField("outcome") else None,
            "seat": message.seat,
            "hand": named_card_counts(message.hand, CARD_IDS),
            "hand_sizes": message.hand_sizes[:],
            "deck_size": message.deck_size,
        }
    except (KeyError, IndexError):
        raise ObservationFormatError("a General Orders: Sengoku Jidai observation without a phase, or with an "
                                     "unknown phase, action kind, card, token, window, roll purpose or loss "
                                     "follow-up") from None
    return observation
