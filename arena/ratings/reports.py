"""A bot's standing in each pool it plays, as JSON: rank, rating, tallies, rating history, and
head-to-head results with Wilson intervals, and luck-corrected beside them where the game has luck. `arena bot
show` prints it; the web pages draw it."""

from __future__ import annotations

from typing import Any, TypeVar

from arena.games.registry import UnknownGameError, load_game
from arena.luck import model_for
from arena.ratings.leaderboard import Leaderboards, bradley_terry_fit, leaderboard
from arena.ratings.stats import score_interval, score_reference_variance, wilson_interval
from arena.ratings.trueskill_env import conservative
from arena.store import BotRow, Store
from arena.store.rows import PairCount, RatingPoint

T = TypeVar("T")


def iso(moment: Any) -> str | None:
    """A naive-UTC time as ISO 8601 with its Z, or None."""
    return moment.isoformat(timespec="seconds") + "Z" if moment is not None else None


def standings_json(store: Store, pool: str, live_only: bool = True, bradley_terry: bool = False
                   ) -> list[dict[str, Any]]:
    """A pool's leaderboard rows, with Bradley-Terry Elo and its 95% interval (bt_elo, bt_elo_low,
    bt_elo_high) when asked; ConvergenceError if that fit does not converge."""
    standings = leaderboard(store, pool, live_only=live_only)
    rows = [standing.to_json() for standing in standings]
    if bradley_terry:
        estimates = bradley_terry_fit(store, pool)
        for row, standing in zip(rows, standings):
            estimate = estimates.get(standing.bot_id)
            if estimate is not None:
                low, high = estimate.elo_interval
                row.update(bt_elo=round(estimate.elo, 2), bt_elo_low=round(low, 2), bt_elo_high=round(high, 2))
    return rows


def thin(points: list[T], most: int) -> list[T]:
    """At most `most` points, evenly spread, always keeping the last (a chart needs no more)."""
    if len(points) <= most:
        return points
    step = len(points) / most
    return [points[int(i * step)] for i in range(most - 1)] + [points[-1]]


def luck_unmeasured(pool: str) -> str:
    """Why the games of `pool` have no score less luck, in a sentence a person reads under the column."""
    try:
        game = load_game(pool)
    except (UnknownGameError, ValueError):
        return f"{pool} is not a game known here, so its luck is not measured"
    model = model_for(game)
    if model is None:
        return f"luck is not measured for {pool}: Arena has no luck model for it (or it has more than two seats)"
    if not model.beta:
        return (f"luck is not measured for {pool}: its luck model ({model.label}) was found not to predict "
                "results (beta 0), so taking luck off would leave every score as it is")
    return f"luck was not measured for these {pool} games (played before it was, or by a run that did not)"


def head_to_head_json(pair: PairCount, pool: str | None = None) -> dict[str, Any]:
    """A's results against B: games, wins, draws, losses, the score with its Wilson interval, and the score less
    the luck (arena.luck) over the games that have it, within [0, 1], with its interval (stats.score_interval:
    `score_low` and `score_high` None over a single game; `corrected`: None where no game has it, and then
    `corrected_why` says why, given the `pool`)."""
    low, high = wilson_interval(pair.points, pair.games)
    corrected = None
    if pair.luck_games:
        mean, below, above = score_interval(pair.corrected, pair.corrected_squares, pair.luck_games,
                                            score_reference_variance(pair.points, pair.games))
        corrected = {"games": pair.luck_games, "score": round(mean, 4), "score_low": _rounded(below),
                     "score_high": _rounded(above)}
    return {"games": pair.games, "wins": pair.wins, "draws": pair.draws, "losses": pair.losses,
            "score": round(pair.points / pair.games, 4) if pair.games else None,
            "score_low": round(low, 4), "score_high": round(high, 4), "corrected": corrected,
            "corrected_why": luck_unmeasured(pool) if corrected is None and pool is not None else None}


def history_json(history: list[RatingPoint], most: int | None = None) -> list[dict[str, Any]]:
    """A bot's rating history in a pool as JSON, oldest first: all of it, or at most `most` points of it (thinned:
    the first and last kept), each then numbered by its game (`game`, from 1: the bot's 550th game is 550)."""
    if most is None:
        return [_point_json(point) for point in history]
    return [{**_point_json(point), "game": game} for game, point in thin(list(enumerate(history, start=1)), most)]


def _point_json(point: RatingPoint) -> dict[str, Any]:
    return {"match": point.match_id, "mu": round(point.mu, 4), "sigma": round(point.sigma, 4),
            "at": iso(point.played_at)}


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def bot_ratings(store: Store, bot: BotRow, pools: list[str] | None = None,
                leaderboards: Leaderboards | None = None, history_points: int | None = None) -> list[dict[str, Any]]:
    """The bot's rating in each pool (all of them, or those of `pools`), with its whole rating history or
    at most `history_points` of it, numbered by game (`history_json`); its rank from `leaderboards` where they
    are kept (the web's), else from the pool's leaderboard read now."""
    leaderboards = leaderboards or Leaderboards(store)
    ratings = []
    for row in store.ratings.of_bot(bot.id):
        if pools is not None and row.pool not in pools:
            continue
        rank = leaderboards.rank(row.pool, bot.id)
        head_to_head = []
        pairs = store.matches.pair_counts(row.pool, bot.id)
        names = store.bots.names({pair.b for pair in pairs})
        for pair in pairs:
            head_to_head.append({"opponent": names.get(pair.b, str(pair.b)), **head_to_head_json(pair, row.pool)})
        luck_games, luck_total = store.matches.luck_totals(bot.id, row.pool)
        ratings.append({
            "pool": row.pool, "rank": rank, "mu": round(row.mu, 4), "sigma": round(row.sigma, 4),
            "conservative": round(conservative(row.mu, row.sigma), 4), "games": row.games, "wins": row.wins,
            "draws": row.draws, "losses": row.losses, "last_played": iso(row.last_played),
            "history": history_json(store.ratings.history(bot.id, row.pool), history_points),
            "head_to_head": head_to_head,
            # what chance gave it over its matches (arena.luck), in points: + lucky, - unlucky
            "luck": {"games": luck_games, "total": round(luck_total, 4),
                     "per_game": round(luck_total / luck_games, 4) if luck_games else None},
        })
    return ratings
