"""The ratings and their history: each bot's current rating and tallies per pool, its rating after each of
its rated matches, and the writes a rating policy decides when results are stored (or a pool is rerated)."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import accumulate, islice
from typing import Any

from sqlalchemy import Engine, Integer, bindparam, case, column, delete, func, insert, select, update, values

from arena.referee.players import PlayerKind
from arena.store.bots import lineage
from arena.store.models import Bot, Match, Rating, RatingEvent
from arena.store.rows import Pair, PlayedMatchLike, RatingChanges, RatingPoint, RatingPolicy, RatingRow
from arena.store.writes import bulk_insert_values
from arena.store.retry import retried_on_lost_connection

_HISTORY = RatingEvent.__table__
_HISTORY_COLUMNS = ("pool", "bot_id", "match_id", "mu", "sigma", "played_at")

# Statements of the hot path (storing results), built once: building one costs more than running it.
_CURRENT_RATINGS = (select(Rating.bot_id, Rating.mu, Rating.sigma)
                    .where(Rating.pool == bindparam("p_pool"), Rating.bot_id.in_(bindparam("p_bots", expanding=True)))
                    .with_for_update())
_NEW_RATINGS = insert(Rating)
_ADD_TO_RATINGS = (update(Rating).where(Rating.pool == bindparam("p_pool"), Rating.bot_id == bindparam("p_bot"))
                   .values(mu=bindparam("p_mu"), sigma=bindparam("p_sigma"),
                           games=Rating.games + bindparam("p_games"), wins=Rating.wins + bindparam("p_wins"),
                           draws=Rating.draws + bindparam("p_draws"), losses=Rating.losses + bindparam("p_losses"),
                           last_match_id=bindparam("p_last_match_id"), last_played=bindparam("p_last_played")))


@retried_on_lost_connection
class Ratings:
    """The pools' ratings, tallies and rating histories."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def pools(self) -> list[str]:
        """Rating pools that have rated bots, sorted."""
        with self.engine.connect() as conn:
            return sorted(conn.execute(select(Rating.pool).distinct()).scalars())

    def of_pool(self, pool: str, *, live_only: bool = False) -> list[RatingRow]:
        """Every rated bot of a pool (unsorted); with `live_only`, not the retired (or replaced) versions."""
        query = (select(Rating.pool, Rating.bot_id, Bot.name, Bot.version, Rating.mu, Rating.sigma, Rating.games,
                        Rating.wins, Rating.draws, Rating.losses, Rating.last_played, Bot.kind, Bot.owner, Bot.spec)
                 .join(Bot, Bot.id == Rating.bot_id).where(Rating.pool == pool))
        if live_only:
            query = query.where(Bot.status == "live")
        with self.engine.connect() as conn:
            return [RatingRow(**{**row._mapping, "kind": PlayerKind(row.kind)}) for row in conn.execute(query)]

    def of_bot(self, bot_id: int) -> list[RatingRow]:
        """A bot's standing in each pool it is rated in."""
        query = (select(Rating.pool, Rating.bot_id, Bot.name, Bot.version, Rating.mu, Rating.sigma, Rating.games,
                        Rating.wins, Rating.draws, Rating.losses, Rating.last_played)
                 .join(Bot, Bot.id == Rating.bot_id).where(Rating.bot_id == bot_id).order_by(Rating.pool))
        with self.engine.connect() as conn:
            return [RatingRow(**row._mapping) for row in conn.execute(query)]

    def match_count(self, pool: str) -> int:
        """Rated matches stored in a pool, from its ratings' tallies (each rated match counts one game for each
        of its seats, and every match of a pool has the same seats): the bots, not the matches, are read."""
        with self.engine.connect() as conn:
            seats = conn.execute(select(Match.num_seats).where(Match.pool == pool).limit(1)).scalar()
            games = conn.execute(select(func.sum(Rating.games)).where(Rating.pool == pool)).scalar()
        return int(games or 0) // int(seats or 1)

    def game_numbers(self, pool: str, match_ids: Iterable[int]) -> dict[int, int]:
        """Each of these rated matches of a pool numbered among the pool's rated matches, from 1 in the order they
        were stored (where a chart over the pool's games puts it). One query counts the stretch up to each one on
        the pool's match index; where the pool holds an unrated match (its tallies count fewer than it stores),
        each row of a stretch is read to leave those out."""
        asked = sorted(set(match_ids))
        if not asked:
            return {}
        stretches = (values(column("id", Integer), column("previous", Integer), name="asked")
                     .data(list(zip(asked, [0, *asked[:-1]]))).cte("asked"))
        counted = [Match.pool == pool, Match.id > stretches.c.previous, Match.id <= stretches.c.id]
        rated = self.match_count(pool)
        with self.engine.connect() as conn:
            if conn.execute(select(func.count()).select_from(Match).where(Match.pool == pool)).scalar_one() != rated:
                counted.append(Match.rated.is_(True))
            in_stretch = {match: count for match, count in conn.execute(
                select(stretches.c.id, select(func.count()).select_from(Match).where(*counted).scalar_subquery()))}
        return dict(zip(asked, accumulate(in_stretch[match] for match in asked)))

    def stamp(self, pool: str) -> tuple[Any, ...]:
        """What changes whenever a pool's leaderboard may change (a result or a rerate moves its ratings; a
        version is added, goes live or retires): two aggregates, one over the pool's ratings and one over
        the bots, a few milliseconds at 10,000 bots; a cache of the leaderboard keeps it to know it is fresh."""
        with self.engine.connect() as conn:
            ratings = conn.execute(select(func.count(), func.sum(Rating.games), func.sum(Rating.mu),
                                          func.sum(Rating.sigma), func.max(Rating.last_match_id))
                                   .where(Rating.pool == pool)).one()
            bots = conn.execute(select(func.count(), func.max(Bot.id),
                                       func.sum(case((Bot.status == "live", Bot.id), else_=0)))).one()
        return (*ratings, *bots)

    def history(self, bot_id: int, pool: str | None = None) -> list[RatingPoint]:
        """A bot's rating after each of its rated matches, oldest first."""
        query = (select(RatingEvent.pool, RatingEvent.bot_id, RatingEvent.match_id, RatingEvent.mu, RatingEvent.sigma,
                        RatingEvent.played_at)
                 .where(RatingEvent.bot_id == bot_id).order_by(RatingEvent.pool, RatingEvent.match_id))
        if pool is not None:
            query = query.where(RatingEvent.pool == pool)
        with self.engine.connect() as conn:
            return [RatingPoint(*row) for row in conn.execute(query)]  # (columns in the dataclass's order)

    def replace(self, pool: str, history: Iterable[dict[str, Any]], ratings: list[dict[str, Any]]) -> None:
        """Swap a pool's whole rating history and current ratings for recomputed ones, atomically; the
        history is taken 50,000 rows at a time (it may be a stream)."""
        with self.engine.begin() as conn:
            conn.execute(delete(RatingEvent).where(RatingEvent.pool == pool))
            conn.execute(delete(Rating).where(Rating.pool == pool))
            rows = iter(history)
            if conn.dialect.name == "postgresql":  # COPY: several times faster than inserts for millions of rows
                columns = ("pool", "bot_id", "match_id", "mu", "sigma", "played_at")
                driver = conn.connection.dbapi_connection
                assert driver is not None  # (a connection in use has its driver's)
                cursor = driver.cursor()
                with cursor.copy(f"COPY rating_history ({', '.join(columns)}) FROM STDIN") as copy:
                    for row in rows:
                        copy.write_row(tuple(row[column] for column in columns))
            while chunk := list(islice(rows, 50_000)):
                conn.execute(insert(RatingEvent), chunk)
            if ratings:
                conn.execute(insert(Rating), ratings)


def apply_ratings(conn: Any, rated: list[tuple[PlayedMatchLike, int]], policy: RatingPolicy) -> None:
    """Hand each pool's rated matches, with the ratings they start from, to the policy; store what it decides
    (the history, the new ratings, the tallies), in the caller's transaction (the one storing the matches)."""
    by_pool: dict[str, list[tuple[PlayedMatchLike, int]]] = {}
    for item in rated:
        by_pool.setdefault(item[0].pool, []).append(item)
    for pool, items in by_pool.items():
        bots = sorted({bot for m, _ in items for bot in m.bot_ids})
        current, existing, lineages = _starting_ratings(conn, pool, bots)
        _store_changes(conn, pool, policy.apply(items, current, lineages), existing)


def _starting_ratings(conn: Any, pool: str,
                      bots: list[int]) -> tuple[dict[int, Pair], set[int], dict[int, tuple[int, ...]]]:
    """(the ratings to start from, the bots already rated in the pool, the newcomers' earlier versions), locked."""
    current = {row.bot_id: (row.mu, row.sigma)
               for row in conn.execute(_CURRENT_RATINGS, {"p_pool": pool, "p_bots": bots})}
    existing = set(current)
    newcomers = [bot for bot in bots if bot not in existing]
    lineages = lineage(conn, newcomers) if newcomers else {}
    if lineages:  # the ratings their earlier versions have now (or, if they play in this batch, will have)
        ancestors = sorted({a for chain in lineages.values() for a in chain} - set(current))
        for row in conn.execute(_CURRENT_RATINGS, {"p_pool": pool, "p_bots": ancestors}):
            current[row.bot_id] = (row.mu, row.sigma)
    return current, existing, lineages


def _store_changes(conn: Any, pool: str, changes: RatingChanges, existing: set[int]) -> None:
    """Write a pool's rating changes: the history, then the new bots' ratings, then the others' (added to)."""
    bulk_insert_values(conn, _HISTORY, _HISTORY_COLUMNS, [(pool, point.bot_id, point.match_id, point.mu, point.sigma,
                                                           point.played_at) for point in changes.history])
    ratings, tallies = changes.ratings, changes.tallies
    new_rows = [{"pool": pool, "bot_id": bot, "mu": ratings[bot][0], "sigma": ratings[bot][1],
                 "games": d.games, "wins": d.wins, "draws": d.draws, "losses": d.losses,
                 "last_match_id": d.last_match_id, "last_played": d.last_played}
                for bot, d in tallies.items() if bot not in existing]
    if new_rows:
        conn.execute(_NEW_RATINGS, new_rows)
    updates = [{"p_pool": pool, "p_bot": bot, "p_mu": ratings[bot][0], "p_sigma": ratings[bot][1],
                "p_games": d.games, "p_wins": d.wins, "p_draws": d.draws, "p_losses": d.losses,
                "p_last_match_id": d.last_match_id, "p_last_played": d.last_played}
               for bot, d in tallies.items() if bot in existing]
    if updates:
        conn.execute(_ADD_TO_RATINGS, updates)
