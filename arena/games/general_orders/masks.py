"""Bit masks for both General Orders games: areas are bit positions of an int (adjacency, control
and supply are masks), read a byte at a time."""

from __future__ import annotations

from typing import Sequence

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


def names_in(names: Sequence[str], mask: int) -> list[str]:
    """The names whose bits are set in `mask`, in their order (the other way of state_json.mask_of)."""
    return [names[k] for k in bits(mask)]
