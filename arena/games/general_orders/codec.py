"""Pieces shared by the two General Orders observation converters (WWII and Sengoku Jidai): enum
tables built from the engines' own name tuples, per-area unit tables, card counts, the outcome.

Every helper is a pure function on plain values; the family modules wrap their errors.
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


def fill_outcome(message: Any, outcome: JSON) -> None:
    """Write an Outcome.to_json() dict into a GameOutcome."""
    message.ranking.extend(outcome["ranking"])
    message.reason = outcome["reason"]
    message.scores.extend(outcome["scores"])


def outcome_dict(message: Any) -> JSON:
    """A GameOutcome as Outcome.to_json() gives it."""
    return {"ranking": message.ranking[:], "reason": message.reason, "scores": message.scores[:]}
