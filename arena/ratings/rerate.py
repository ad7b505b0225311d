"""Recompute a pool's TrueSkill ratings from scratch over every stored result, in storage order.

A new version of a bot starts from its earlier version's mu as it stood then, as when it was stored.
Memory stays bounded whatever the pool's size: the results stream from the database, the new history
goes to a temporary file as it is made (36 bytes a row), and then replaces the old one in chunks, in one
transaction; only the current ratings and tallies (one entry per bot) are held.
"""

from __future__ import annotations

import struct
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import IO, Any

from arena.ratings.policy import seed_newcomers
from arena.ratings.trueskill_env import DEFAULT_SYSTEM, RatingSystem
from arena.referee.record import seat_outcome
from arena.store.repository import Store

HISTORY_ROW = struct.Struct("<iqddq")  # bot, match, mu, sigma, played at (microseconds since EPOCH)
EPOCH = datetime(1970, 1, 1)
PROGRESS_EVERY = 20_000  # matches between two progress calls
Progress = Callable[[int, int], None]  # (matches rerated, matches in the pool)


@dataclass(frozen=True)
class RerateSummary:
    """What a recomputation did."""

    pool: str
    matches: int
    bots: int
    seconds: float


def rerate(store: Store, pool: str, system: RatingSystem = DEFAULT_SYSTEM,
           on_progress: Progress | None = None) -> RerateSummary:
    """Replace the pool's ratings and history with ones recomputed from its stored results."""
    started = time.perf_counter()
    total = store.matches.rated_count(pool)
    initial = system.initial
    rate = system.rate
    rate_two = system.rate_two
    current: dict[int, tuple[float, float]] = {}
    tallies: dict[int, list[Any]] = {}  # games, wins, draws, losses, last match id, last played
    lineages = store.bots.lineages()
    matches = 0
    with tempfile.TemporaryFile(prefix="arena-rerate-") as spool:
        for match_id, finished_at, bots, ranks in store.matches.rated_results(pool):
            matches += 1
            seed_newcomers(bots, current, lineages, initial)
            before = [current[bot] for bot in bots]
            if len(bots) == 2:
                after = rate_two(before[0], before[1], ranks[0], ranks[1])
            else:
                after = rate(before, ranks)
            played = (finished_at - EPOCH) // timedelta(microseconds=1)
            for seat, bot in enumerate(bots):
                mu, sigma = after[seat]
                current[bot] = (mu, sigma)
                spool.write(HISTORY_ROW.pack(bot, match_id, mu, sigma, played))
                _count_seat(tallies, bot, seat_outcome(ranks, seat), match_id, finished_at)
            if on_progress is not None and matches % PROGRESS_EVERY == 0:
                on_progress(matches, max(total, matches))
        spool.seek(0)
        ratings = [_rating_row(pool, bot, current[bot], tally) for bot, tally in tallies.items()]
        store.ratings.replace(pool, _history(spool, pool), ratings)
    if on_progress is not None:
        on_progress(matches, matches)
    return RerateSummary(pool, matches, len(ratings), time.perf_counter() - started)


def _count_seat(tallies: dict[int, list[Any]], bot: int, outcome: str, match_id: int, finished_at: datetime) -> None:
    """Add one seat's outcome ('win', 'draw' or 'loss') of a match to its bot's tally."""
    tally = tallies.get(bot)
    if tally is None:
        tally = tallies[bot] = [0, 0, 0, 0, None, None]
    tally[0] += 1
    tally[{"win": 1, "draw": 2, "loss": 3}[outcome]] += 1
    tally[4] = match_id
    tally[5] = finished_at


def _history(spool: IO[bytes], pool: str) -> Iterator[dict[str, Any]]:
    """The spooled history rows, as the store takes them."""
    size = HISTORY_ROW.size
    while chunk := spool.read(size * 10_000):
        for bot, match_id, mu, sigma, played in HISTORY_ROW.iter_unpack(chunk):
            yield {"pool": pool, "bot_id": bot, "match_id": match_id, "mu": mu, "sigma": sigma,
                   "played_at": EPOCH + timedelta(microseconds=played)}


def _rating_row(pool: str, bot: int, rating: tuple[float, float], tally: list[Any]) -> dict[str, Any]:
    last_played: datetime | None = tally[5]
    return {"pool": pool, "bot_id": bot, "mu": rating[0], "sigma": rating[1], "games": tally[0],
            "wins": tally[1], "draws": tally[2], "losses": tally[3], "last_match_id": tally[4],
            "last_played": last_played}
