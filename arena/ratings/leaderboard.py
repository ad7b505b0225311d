"""Leaderboards: bots of a pool ranked by the conservative TrueSkill score, with Bradley-Terry beside."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from arena.games.base import points
from arena.ratings import bradley_terry
from arena.referee.players import Origin, PlayerKind
from arena.ratings.stats import wilson_interval
from arena.ratings.trueskill_env import conservative
from arena.store.repository import Store
from arena.store.rows import PairCount, RatingRow


@dataclass(frozen=True)
class Standing:
    """One leaderboard line."""

    rank: int
    bot_id: int
    bot: str
    version: str
    mu: float
    sigma: float
    games: int
    wins: int
    draws: int
    losses: int
    last_played: datetime | None
    kind: PlayerKind = PlayerKind.AGENT
    owner: str = ""
    origin: Origin = Origin.BUILT_IN

    @property
    def score(self) -> float:
        """The conservative score mu - 3 sigma."""
        return conservative(self.mu, self.sigma)

    @property
    def win_rate(self) -> float:
        """(wins + draws / 2) / games."""
        return points(self.wins, self.draws) / self.games if self.games else 0.0

    @property
    def win_rate_interval(self) -> tuple[float, float]:
        """95% Wilson interval of the win rate."""
        return wilson_interval(points(self.wins, self.draws), self.games)

    def to_json(self) -> dict[str, Any]:
        low, high = self.win_rate_interval
        return {
            "rank": self.rank, "bot": self.bot, "version": self.version, "mu": round(self.mu, 4),
            "sigma": round(self.sigma, 4), "conservative": round(self.score, 4), "games": self.games,
            "wins": self.wins,
            "draws": self.draws, "losses": self.losses, "win_rate": round(self.win_rate, 4),
            "win_rate_low": round(low, 4), "win_rate_high": round(high, 4),
            "last_played": self.last_played.isoformat(timespec="seconds") + "Z" if self.last_played else None,
            "kind": self.kind.value, "owner": self.owner, "origin": self.origin.value,
        }


def standings(rows: list[RatingRow]) -> list[Standing]:
    """Rows sorted by conservative score (then mu, then name), ranked from 1."""
    ordered = sorted(rows, key=lambda r: (-conservative(r.mu, r.sigma), -r.mu, r.name, r.version))
    return [Standing(rank, r.bot_id, r.name, r.version, r.mu, r.sigma, r.games, r.wins, r.draws, r.losses,
                     r.last_played, r.kind, r.owner, r.kind.origin(r.spec))
            for rank, r in enumerate(ordered, start=1)]


def leaderboard(store: Store, pool: str, live_only: bool = True) -> list[Standing]:
    """The pool's current leaderboard: the live version of each bot (`live_only=False`: every version
    ever rated, retired ones too)."""
    return standings(store.ratings.of_pool(pool, live_only=live_only))


def bradley_terry_fit(store: Store, pool: str, prior: float = 1.0) -> dict[int, bradley_terry.StrengthEstimate]:
    """Bradley-Terry strengths of the pool's bots from every stored pairwise result, by bot id."""
    counts: list[PairCount] = store.matches.pair_counts(pool)
    estimates = bradley_terry.fit(((c.a, c.b, c.wins, c.draws, c.losses) for c in counts), prior=prior)
    return {cast(int, e.player): e for e in estimates}  # (the players fitted are bot ids)


class Leaderboards:
    """The pools' leaderboards kept between requests (the web pages ask many times between two results):
    each recomputed only when the store's `ratings_stamp` for its pool says something changed, so a page
    over 10,000 bots costs two aggregate queries and a slice, not a read and sort of every rating."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._kept: dict[tuple[str, bool], tuple[tuple[Any, ...], list[Standing], list[dict[str, Any]],
                                                 dict[int, int]]] = {}
        self._lock = threading.Lock()

    def _entry(self, pool: str, live_only: bool) -> tuple[list[Standing], list[dict[str, Any]], dict[int, int]]:
        stamp = self.store.ratings.stamp(pool)
        kept = self._kept.get((pool, live_only))
        if kept is None or kept[0] != stamp:
            ranked = leaderboard(self.store, pool, live_only)
            kept = (stamp, ranked, [standing.to_json() for standing in ranked],
                    {standing.bot_id: standing.rank for standing in ranked})
            with self._lock:
                self._kept[(pool, live_only)] = kept
        return kept[1], kept[2], kept[3]

    def standings(self, pool: str, live_only: bool = True) -> list[Standing]:
        """`leaderboard(store, pool, live_only)`, kept while fresh (do not change the list)."""
        return self._entry(pool, live_only)[0]

    def rows(self, pool: str, live_only: bool = True) -> list[dict[str, Any]]:
        """The standings as JSON rows, kept while fresh (copy a row before changing it)."""
        return self._entry(pool, live_only)[1]

    def rank(self, pool: str, bot_id: int) -> int | None:
        """A version's rank among every version rated in the pool (retired ones too), or None."""
        return self._entry(pool, False)[2].get(bot_id)
