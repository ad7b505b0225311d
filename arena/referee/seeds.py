"""Seeds: a tournament's schedule and each game's chance (its deal, draws and dice) from one secret seed; and the
seed of each search an analysis makes (`search_seed`).

A game's seed is public once it is played (its record says it), so each game's is keyed by the secret
of its tournament or series (`game_seed`): no one computes another game's chance from one game's seed.
"""

from __future__ import annotations

import hashlib
import secrets
from enum import Enum


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


def seat_salt(secret: int) -> str:
    """The referee's key of its seats' seeds (arena.referee.authority.seat_seed) for a tournament (its stored seed)
    or a series whose secret seed was chosen (`--seed`): derived from the secret, so that the same seed, or a
    resumed tournament, plays the same matches with bot programs too, and, like each game's seed, keyed by it (no
    seed a bot is handed, nor any game's seed, tells it). Otherwise the referee makes a secret of its own at each
    start."""
    key = secret.to_bytes(16, "big")
    return hashlib.blake2b(b"seats", digest_size=16, key=key, person=b"arena-seat-salt").hexdigest()


def new_seed() -> int:
    """A fresh secret seed of 63 bits (too many to search for the one behind a game's seed)."""
    return secrets.randbits(63)


class Search(Enum):
    """Which of the searches at one decision of an analysis (arena.analysis.match) a seed is for."""

    CHOOSE = "choose"  # the search that picks the best move
    JUDGE = "judge"  # the independent search that values it and the move played
    CONFIRM = "confirm"  # the whole-budget search that values a candidate turning point again
    STATIC = "static"  # the worlds the static evaluation is averaged over
    PLAYOUTS = "playouts"  # the greedy pick, the worlds and the paired playouts that check a decision


def search_seed(seed: int, decision: int, search: Search) -> int:
    """The seed of one search at a decision of an analysis made with `seed`: each decision's searches independent
    of each other and of every other decision's. (The mixing is the one analyses were first made with, kept so
    that the same record, seed and simulation budget still give the same analysis.)"""
    base = (seed + (search is Search.CONFIRM)) * 1_000_003 + decision * 7919 + 0xA11A
    base %= 2 ** 63
    if search is Search.JUDGE:
        return (base * 6364136223846793005 + 1442695040888963407) % 2 ** 63
    if search is Search.STATIC:
        return base ^ 0x57A71C
    if search is Search.PLAYOUTS:
        return base ^ 0x9A7D0C
    return base
