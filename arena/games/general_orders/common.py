"""Pure helpers under the General Orders engine (WWII and Sengoku Jidai): bit masks, dice,
supply searches and the operation-card multiset.

Both games keep areas as bit positions of an int (adjacency, control and supply are masks), roll
custom dice with faces 0,1,1,1,1,2 as one chance node per roll, and model the operation deck as a
multiset of counts per card kind (no order to store or leak).
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any, Sequence

MAX_DICE = 12  # the most dice one roll may use (more would be re-rolled in the box: same total)
DIE_FACES = (Fraction(1, 6), Fraction(4, 6), Fraction(1, 6))  # P(0), P(1), P(2) pips

BIT = tuple(1 << i for i in range(64))

# Set-bit indices of every byte value, per byte position: masks are read a byte at a time.
_BYTE_BITS = tuple(tuple(tuple(8 * k + i for i in range(8) if b >> i & 1) for b in range(256)) for k in range(8))


def bits(mask: int) -> list[int]:
    """Indices of the set bits of `mask` (below 2**64), ascending."""
    out: list[int] = []
    k = 0
    while mask:
        byte = mask & 255
        if byte:
            out += _BYTE_BITS[k][byte]
        mask >>= 8
        k += 1
    return out


def dice_table(base: int) -> tuple[tuple[tuple[int, float], ...], ...]:
    """Per number of dice k (0..MAX_DICE): ((base + total, probability), ...), exact multinomials."""
    table: list[tuple[tuple[int, float], ...]] = [((base, 1.0),)]
    dist = [Fraction(1)]
    for _ in range(MAX_DICE):
        new = [Fraction(0)] * (len(dist) + 2)
        for total, p in enumerate(dist):
            for face, q in enumerate(DIE_FACES):
                new[total + face] += p * q
        dist = new
        table.append(tuple((base + total, float(p)) for total, p in enumerate(dist)))
    return tuple(table)


def reach(adj: Sequence[int], start: int, control: int) -> int:
    """Nodes of `control` connected to `start` through `control` (0 if start is not in it)."""
    if start < 0 or not control >> start & 1:
        return 0
    found = frontier = 1 << start
    while frontier:
        grow = 0
        for i in bits(frontier):
            grow |= adj[i]
        frontier = grow & control & ~found
        found |= frontier
    return found


def remember_reach(cache: dict[int, int], adj: Sequence[int], start: int, control: int) -> int:
    """`reach(adj, start, control)`, stored in `cache` under `control` (a supply cache's miss path;
    the cache is emptied when it grows past 200,000 masks)."""
    supplied = reach(adj, start, control)
    if len(cache) > 200_000:
        cache.clear()
    cache[control] = supplied
    return supplied


def supplied_from_scratch(adj: Sequence[int], start: int, occupied: Sequence[int]) -> int:
    """Breadth-first supply search straight from unit counts (the reference the caches must match)."""
    if start < 0 or occupied[start] <= 0:
        return 0
    seen = {start}
    queue = [start]
    while queue:
        node = queue.pop()
        for other in range(len(occupied)):
            if adj[node] >> other & 1 and occupied[other] > 0 and other not in seen:
                seen.add(other)
                queue.append(other)
    return sum(1 << node for node in seen)


def counts_of(named: Any, ids: Sequence[str]) -> list[int]:
    """Card counts per kind (in `ids` order) from {card id: count}; raises ValueError on bad input."""
    if not isinstance(named, dict):
        raise ValueError("card counts must be an object of card id -> count")
    counts = [0] * len(ids)
    for key, value in named.items():
        if key not in ids:
            raise ValueError(f"unknown card {key!r}")
        counts[ids.index(key)] = int(value)
        if counts[ids.index(key)] < 0:
            raise ValueError("negative card count")
    return counts


def named_counts(counts: Sequence[int], ids: Sequence[str]) -> dict[str, int]:
    """{card id: count} for the kinds held (the JSON form of a hand, deck or discard pile)."""
    return {ids[k]: n for k, n in enumerate(counts) if n}


def sample_hidden_cards(deck_total: Sequence[int], own: Sequence[int], discard: Sequence[int],
                        other_size: int, deck_size: int, rng: random.Random,
                        ids: Sequence[str]) -> tuple[list[int], list[int]]:
    """Deal the cards a seat has not seen (deck total - discard - own hand) at random into the
    opponent's hand (`other_size` cards) and the deck; returns (other hand, deck) as counts."""
    unseen: list[int] = []
    for kind, total in enumerate(deck_total):
        left = total - discard[kind] - own[kind]
        if left < 0:
            raise ValueError(f"more {ids[kind]} seen than the deck holds")
        unseen.extend([kind] * left)
    if len(unseen) != other_size + deck_size:
        raise ValueError("the observation's card counts do not add up")
    rng.shuffle(unseen)
    other = [0] * len(deck_total)
    for kind in unseen[:other_size]:
        other[kind] += 1
    deck = [0] * len(deck_total)
    for kind in unseen[other_size:]:
        deck[kind] += 1
    return other, deck
