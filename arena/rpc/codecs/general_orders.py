"""What the two General Orders observation codecs (WWII and Sengoku Jidai) share: enum tables built
from the engines' own name tuples, per-area unit tables, card counts, and the observation as a list
of fields (`Codec`), the fields both games have listed once (`shared_fields`).
"""

from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence

from arena.games.base import JSON


def enum_table(enum: Any, prefix: str, names: Sequence[Optional[str]]) -> tuple[dict[Any, Any], dict[int, Any]]:
    """(engine name -> enum value, enum value -> engine name) for the engine's names of one kind.

    The enum value of "move-in" is PREFIX_MOVE_IN; the name None (no action) is the enum's 0.
    Raises at import time if the .proto lacks a value the engine uses.
    """
    to_enum: dict[Any, Any] = {}  # values are the enum's (an int subtype to type checkers)
    for name in names:
        to_enum[name] = 0 if name is None else enum.Value(prefix + name.upper().replace("-", "_"))
    return to_enum, {value: name for name, value in to_enum.items()}


def card_table(enum: Any, card_ids: Sequence[str]) -> dict[str, int]:
    """Card id -> enum value, checking that the value is the card's index (counts are indexed by it)."""
    to_enum = {card: enum.Value("CARD_" + card.upper()) for card in card_ids}
    if list(to_enum.values()) != list(range(len(card_ids))):
        raise ImportError("the Card enum must list the cards in the engine's order, from 0")
    return to_enum


def fill_area_units(message: Any, table: Mapping[str, Sequence[int]]) -> None:
    """Write {area: [count per seat]} as columns: areas, then per seat its counts in those areas."""
    message.areas.extend(table)
    per_seat = message.per_seat
    for column in zip(*table.values()):
        per_seat.add().counts.extend(column)


def area_units(message: Any) -> dict[str, list[int]]:
    """The {area: [count per seat]} table of an AreaUnits message."""
    # Slicing a repeated field copies it into a list at once: faster than iterating it.
    return dict(zip(message.areas[:], map(list, zip(*[seat.counts[:] for seat in message.per_seat]))))


def card_counts(named: Mapping[str, int], to_enum: Mapping[str, int]) -> list[int]:
    """{card id: count} (kinds held only) as a count per card kind, indexed by the Card enum."""
    counts = [0] * len(to_enum)
    for card, count in named.items():
        counts[to_enum[card]] = count
    return counts


def named_card_counts(counts: Sequence[int], card_ids: Sequence[str]) -> dict[str, int]:
    """A count per card kind as {card id: count} for the kinds held, in card order (as the engines give)."""
    return {card_ids[kind]: count for kind, count in enumerate(counts[:]) if count}


def pairs(first: Sequence[int], second: Sequence[int]) -> list[list[int]]:
    """Two columns as a list of [first, second] pairs (the engines' action spaces)."""
    return [[a, b] for a, b in zip(first[:], second[:])]


# --- the observation as a list of fields ---------------------------------------------------------
# A game's codec is the list of its observation's fields, in the dict's order, each a `Field` that
# knows how to write its value into the message and read it back; `Codec` runs the list both ways.
# The two games list the fields they share with the same builders, and add their own.


class Field:
    """One key of the observation dict: how it goes into the message and comes back out."""

    __slots__ = ("key", "put", "get")

    def __init__(self, key: str, put: Any, get: Any) -> None:
        self.key = key
        self.put = put  # (message, value) -> None
        self.get = get  # message -> value


def scalar(key: str) -> Field:
    """A plain value held in the field of the same name."""
    def put(message: Any, value: Any) -> None:
        setattr(message, key, value)

    return Field(key, put, lambda message: getattr(message, key))


def optional(key: str) -> Field:
    """A value or None, held in an optional field of the same name."""
    def put(message: Any, value: Any) -> None:
        if value is not None:
            setattr(message, key, value)

    return Field(key, put, lambda message: getattr(message, key) if message.HasField(key) else None)


def repeated(key: str) -> Field:
    """A list of plain values in a repeated field of the same name."""
    return Field(key, lambda message, value: getattr(message, key).extend(value),
                 lambda message: getattr(message, key)[:])


def named(key: str, to_enum: Mapping[Any, Any], to_name: Mapping[int, Any]) -> Field:
    """An engine name held as an enum value."""
    def put(message: Any, value: Any) -> None:
        setattr(message, key, to_enum[value])

    return Field(key, put, lambda message: to_name[getattr(message, key)])


def named_list(key: str, to_enum: Mapping[Any, Any], to_name: Mapping[int, Any]) -> Field:
    """A list of engine names held as enum values."""
    return Field(key, lambda message, value: getattr(message, key).extend([to_enum[v] for v in value]),
                 lambda message: [to_name[v] for v in getattr(message, key)])


def units(key: str) -> Field:
    """An {area: [count per seat]} table (AreaUnits)."""
    return Field(key, lambda message, value: fill_area_units(getattr(message, key), value),
                 lambda message: area_units(getattr(message, key)))


def cards(key: str, to_enum: Mapping[str, int], card_ids: Sequence[str]) -> Field:
    """{card id: count}, the kinds held, as a count per card kind."""
    return Field(key, lambda message, value: getattr(message, key).extend(card_counts(value, to_enum)),
                 lambda message: named_card_counts(getattr(message, key), card_ids))


def nested(key: str, fields: Sequence[Field]) -> Field:
    """A dict held in a sub-message, field by field."""
    def put(message: Any, value: JSON) -> None:
        target = getattr(message, key)
        for item in fields:
            item.put(target, value[item.key])

    def get(message: Any) -> JSON:
        source = getattr(message, key)
        return {item.key: item.get(source) for item in fields}

    return Field(key, put, get)


def optional_nested(key: str, fields: Sequence[Field]) -> Field:
    """A dict or None, held in an optional sub-message."""
    inner = nested(key, fields)

    def put(message: Any, value: JSON | None) -> None:
        if value is not None:
            inner.put(message, value)

    return Field(key, put, lambda message: inner.get(message) if message.HasField(key) else None)


EnumTables = tuple[dict[Any, Any], dict[int, Any]]  # engine name -> enum value, and back (enum_table)


def shared_fields(actions: EnumTables, tokens: EnumTables, card: Mapping[str, int],
                  card_ids: Sequence[str]) -> dict[str, Field]:
    """The fields both games' observations have, by key (each game lists them in its own order)."""
    action, action_name = actions
    token, token_name = tokens

    def put_spaces(message: Any, value: Any) -> None:
        message.space_commanders.extend([pair[0] for pair in value])
        message.space_counter_commanders.extend([pair[1] for pair in value])

    def put_support(message: Any, value: Any) -> None:
        for kinds in value:
            message.support_used.add().kinds.extend([action[kind] for kind in kinds])

    def put_bonuses(message: Any, value: Any) -> None:
        for area, name in value.items():
            message.bonuses.add(area=area, token=token[name])

    def put_effects(message: Any, value: Any) -> None:
        for kinds in value:
            message.used_effects.add().cards.extend([card[kind] for kind in kinds])

    fields = [
        scalar("game"), scalar("mode"), scalar("current_player"), scalar("round"), scalar("initiative"),
        scalar("active"), units("troops"), repeated("reserve_troops"), repeated("commanders_reserve"),
        repeated("commanders_standby"),
        Field("spaces", put_spaces, lambda msg: pairs(msg.space_commanders, msg.space_counter_commanders)),
        Field("support_used", put_support,
              lambda msg: [[action_name[k] for k in used.kinds] for used in msg.support_used]),
        Field("bonuses", put_bonuses, lambda msg: {bonus.area: token_name[bonus.token] for bonus in msg.bonuses}),
        cards("discard", card, card_ids),
        Field("used_effects", put_effects,
              lambda msg: [[card_ids[k] for k in used.cards] for used in msg.used_effects]),
        repeated("victory_points"), scalar("winner"), scalar("reason"),
        optional_nested("outcome", [repeated("ranking"), scalar("reason"), repeated("scores")]),
        scalar("seat"), cards("hand", card, card_ids), repeated("hand_sizes"), scalar("deck_size"),
    ]
    return {item.key: item for item in fields}


class Codec:
    """A game's observation dict <-> its message, by its list of fields (`to_dict(to_message(d)) == d`,
    key order and value types included)."""

    def __init__(self, message_class: Any, fields: Sequence[Field], title: str, error: type[ValueError]) -> None:
        self.message_class = message_class
        self.fields = tuple(fields)
        self.title = title
        self.error = error

    def fill(self, message: Any, observation: JSON) -> None:
        """Write an observation dict into an empty message."""
        try:
            for item in self.fields:
                item.put(message, observation[item.key])
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as problem:
            raise self.error(f"not a {self.title} observation: {problem!r}") from None

    def to_message(self, observation: JSON) -> Any:
        """An observation dict as a new message."""
        message = self.message_class()
        self.fill(message, observation)
        return message

    def to_dict(self, message: Any) -> JSON:
        """A message as the observation dict `State.observation(seat)` gives."""
        try:
            return {item.key: item.get(message) for item in self.fields}
        except (KeyError, IndexError):
            raise self.error(f"a {self.title} observation without a phase, or with an unknown phase, action "
                             "kind, card, token, window or roll purpose") from None
