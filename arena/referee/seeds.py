"""Seeds: a tournament's schedule and each game's chance (its deal, draws and dice) from one secret seed.

A game's seed is public once it is played (its record says it), so each game's is keyed by the secret
of its tournament or series (`game_seed`): no one computes another game's chance from one game's seed.
"""

from __future__ import annotations

import hashlib
import secrets


def derive_seed(*parts: int) -> int:
    """A 63-bit seed from integers, stable across processes and Python versions."""
    text = ":".join(str(part) for part in parts).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big") >> 1


def game_seed(secret: int, *place: int) -> int:
    """The chance seed of one game (its deal, draws and dice): BLAKE2b keyed by `secret` (a tournament's or a
    series' seed) over the game's place in it (round, pairing, rotation; or its number). A game's seed is
    public once it is played (its record); without the secret nobody computes another game's seed from it,
    nor any seed before its game starts."""
    key = secret.to_bytes(16, "big")
    text = ":".join(str(part) for part in place).encode()
    digest = hashlib.blake2b(text, digest_size=8, key=key, person=b"arena-chance").digest()
    return int.from_bytes(digest, "big") >> 1


def new_seed() -> int:
    """A fresh secret seed of 63 bits (too many to search for the one behind a game's seed)."""
    return secrets.randbits(63)
