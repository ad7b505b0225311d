"""Recompute a pool's TrueSkill ratings from scratch over every stored result, in storage order.

A new version of a bot starts from its earlier version's mu as it stood then, as when it was stored."""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from arena.ratings.trueskill_env import DEFAULT_SYSTEM, RatingSystem
from arena.ratings.policy import seat_outcome, seed_rating
from arena.store.repository import Store


@dataclass(frozen=True)
class RerateSummary:
    """What a recomputation did."""

    pool: str
    matches: int
    bots: int
    seconds: float


def rerate(store: Store, pool: str, system: RatingSystem = DEFAULT_SYSTEM) -> RerateSummary:
    """Replace the pool's ratings and history with ones recomputed from its stored results."""
    started = time.perf_counter()
    initial = system.initial
    rate = system.rate
    rate_two = system.rate_two
    current: dict[int, tuple[float, float]] = {}
    tallies: dict[int, list[Any]] = {}  # games, wins, draws, losses, last match id, last played
    history: list[dict[str, Any]] = []
    lineages = store.lineages()
    matches = 0
    for match_id, finished_at, bots, ranks in store.rated_results(pool):
        matches += 1
        for bot in bots:
            if bot not in current:
                current[bot] = seed_rating(lineages.get(bot, ()), current, initial)
        before = [current[bot] for bot in bots]
        if len(bots) == 2:
            after = rate_two(before[0], before[1], ranks[0], ranks[1])
        else:
            after = rate(before, ranks)
        for seat, bot in enumerate(bots):
            mu, sigma = after[seat]
            current[bot] = (mu, sigma)
            history.append({"pool": pool, "bot_id": bot, "match_id": match_id, "mu": mu, "sigma": sigma,
                            "played_at": finished_at})
            tally = tallies.get(bot)
            if tally is None:
                tally = tallies[bot] = [0, 0, 0, 0, None, None]
            tally[0] += 1
            tally[{"win": 1, "draw": 2, "loss": 3}[seat_outcome(ranks, seat)]] += 1
            tally[4] = match_id
            tally[5] = finished_at
    ratings = [_rating_row(pool, bot, current[bot], tally) for bot, tally in tallies.items()]
    store.replace_ratings(pool, history, ratings)
    return RerateSummary(pool, matches, len(ratings), time.perf_counter() - started)


def _rating_row(pool: str, bot: int, rating: tuple[float, float], tally: list[Any]) -> dict[str, Any]:
    last_played: datetime | None = tally[5]
    return {"pool": pool, "bot_id": bot, "mu": rating[0], "sigma": rating[1], "games": tally[0],
            "wins": tally[1], "draws": tally[2], "losses": tally[3], "last_match_id": tally[4],
            "last_played": last_played}
