"""The stored matches: their rows, seats and records, written with the rating changes they make in one
transaction, and read back as one typed value (`StoredMatch`, its record on request); what ratings and
fault reports count over them."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, and_, case, func, insert, or_, select

from arena.store.models import Bot, Match, MatchSeat, Record
from arena.store.ratings import apply_ratings
from arena.store.rows import PairCount, PlayedMatchLike, RatingPolicy, StoredMatch, StoredSeat
from arena.store.tournaments import settle_pairings
from arena.store.writes import bulk_insert_values
from arena.store.retry import retried_on_lost_connection

_MATCHES = Match.__table__
_SEATS = MatchSeat.__table__
# a stored match's columns, in StoredMatch's order
_COLUMNS = select(Match.id, Match.uid, Match.tournament_id, Match.round, Match.pairing, Match.rotation, Match.game,
                  Match.pool, Match.options, Match.seed, Match.ranking, Match.scores, Match.reason, Match.offender,
                  Match.detail, Match.steps, Match.decisions, Match.timings, Match.record_id, Match.rated,
                  Match.started_at, Match.finished_at)
_MAX_ID = {table: select(func.coalesce(func.max(table.id), 0)) for table in (Record, Match)}
_INSERT_RETURNING_ID = {table: insert(table).returning(table.id, sort_by_parameter_order=True)
                        for table in (Record, Match)}


@retried_on_lost_connection
class Matches:
    """Finished matches: stored with their records and rating changes, read as `StoredMatch` values."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    # storing results ----------------------------------------------------------------------------

    def save(self, matches: Sequence[PlayedMatchLike], policy: RatingPolicy) -> list[int]:
        """Store finished matches and their rating updates (as `policy` rates them, in order), in one
        transaction.

        Raises IntegrityError (and stores nothing) if any match key is already stored.
        """
        if not matches:
            return []
        with self.engine.begin() as conn:
            record_ids = _insert_many(conn, Record, _RECORD_COLUMNS,
                                      [("jsonl+gzip", m.record_size, m.record_gz) for m in matches])
            match_ids = _insert_many(conn, Match, _MATCH_COLUMNS, [_match_row(m, record_id)
                                                                   for m, record_id in zip(matches, record_ids)])
            bulk_insert_values(conn, _SEATS, _SEAT_COLUMNS, [
                seat for m, match_id in zip(matches, match_ids) for seat in _seat_rows(m, match_id)])
            settle_pairings(conn, matches)
            rated = [(m, match_id) for m, match_id in zip(matches, match_ids) if m.rated]
            if rated:
                apply_ratings(conn, rated, policy)
        return match_ids

    # the stored match -----------------------------------------------------------------------------

    def get(self, match: int | str) -> StoredMatch | None:
        """One stored match by id or uid (a unique prefix of 4 or more will do), or None."""
        key = _match_key(match)
        if key is None:
            return None
        with self.engine.connect() as conn:
            found = _read(conn, _COLUMNS.where(key).limit(2))
        return found[0] if len(found) == 1 else None

    def record(self, match: StoredMatch) -> bytes:
        """A stored match's record: gzip-compressed JSON lines (what `arena replay` reads)."""
        with self.engine.connect() as conn:
            return bytes(conn.execute(select(Record.data).where(Record.id == match.record_id)).scalar_one())

    def page(self, *, pool: str | None = None, bot_id: int | None = None, tournament_id: int | None = None,
             offset: int = 0, limit: int = 50) -> tuple[int, list[StoredMatch]]:
        """(how many, a page of them) of the stored matches, newest first, optionally of one pool, bot or
        tournament."""
        conditions = []
        if pool is not None:
            conditions.append(Match.pool == pool)
        if tournament_id is not None:
            conditions.append(Match.tournament_id == tournament_id)
        if bot_id is None:
            count = select(func.count()).select_from(Match).where(*conditions)
            query = _COLUMNS.where(*conditions).order_by(Match.id.desc()).offset(offset).limit(limit)
        else:  # from the bot's own seats, newest first (its index), never a walk down the whole match table
            mine = (select(MatchSeat.match_id).join(Match, Match.id == MatchSeat.match_id)
                    .where(MatchSeat.bot_id == bot_id, *conditions).group_by(MatchSeat.match_id))
            count = select(func.count()).select_from(mine.subquery())
            page = mine.order_by(MatchSeat.match_id.desc()).offset(offset).limit(limit)
            query = _COLUMNS.where(Match.id.in_(page.scalar_subquery())).order_by(Match.id.desc())
        with self.engine.connect() as conn:
            return int(conn.execute(count).scalar_one()), _read(conn, query)

    def of_tournament(self, tournament_id: int, after_id: int | None = None) -> list[StoredMatch]:
        """The stored matches of a tournament (those stored after match `after_id`), in key order."""
        query = (_COLUMNS.where(Match.tournament_id == tournament_id)
                 .order_by(Match.round, Match.pairing, Match.rotation))
        if after_id is not None:
            query = query.where(Match.id > after_id)
        with self.engine.connect() as conn:
            return _read(conn, query)

    def faults(self, pool: str | None = None, tournament_id: int | None = None, limit: int = 100) -> list[StoredMatch]:
        """The latest stored matches a bot's fault ended (timeouts, crashes...), newest first."""
        query = _COLUMNS.where(Match.offender.is_not(None)).order_by(Match.id.desc()).limit(limit)
        if pool is not None:
            query = query.where(Match.pool == pool)
        if tournament_id is not None:
            query = query.where(Match.tournament_id == tournament_id)
        with self.engine.connect() as conn:
            return _read(conn, query)

    # what ratings and fault reports count -----------------------------------------------------------

    def fault_counts(self, bot_id: int) -> dict[str, int]:
        """How many stored matches ended by this bot's fault, by reason."""
        query = (select(Match.reason, func.count().label("n"))
                 .join(MatchSeat, and_(MatchSeat.match_id == Match.id, MatchSeat.seat == Match.offender))
                 .where(MatchSeat.bot_id == bot_id).group_by(Match.reason))
        with self.engine.connect() as conn:
            return {row.reason: int(row.n) for row in conn.execute(query)}

    def rated_count(self, pool: str) -> int:
        """Rated matches stored in a pool, counted row by row (a scan of the pool's matches: what a rerate,
        which reads them all anyway, shows its progress against)."""
        with self.engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(Match)
                                    .where(Match.pool == pool, Match.rated.is_(True))).scalar_one())

    def luck_totals(self, bot_id: int, pool: str) -> tuple[int, float]:
        """(rated matches with their luck measured, the bot's luck summed over them) in a pool."""
        query = (select(func.count(_SEATS.c.luck), func.coalesce(func.sum(_SEATS.c.luck), 0.0))
                 .join(_MATCHES, _MATCHES.c.id == _SEATS.c.match_id)
                 .where(_SEATS.c.bot_id == bot_id, _MATCHES.c.pool == pool, _MATCHES.c.rated.is_(True)))
        with self.engine.connect() as conn:
            count, total = conn.execute(query).one()
        return int(count), float(total)

    def pair_counts(self, pool: str, bot_id: int | None = None) -> list[PairCount]:
        """Pairwise results in a pool: for every two bots that met, a's wins, draws and losses against b, and over
        the games with their luck measured, a's points less its luck (their sum and sum of squares).

        Every pair of seats in a match counts (so a free-for-all of n seats gives n(n-1)/2 comparisons).
        With `bot_id`, only that bot's pairs, with it as `a`.
        """
        mine, theirs = _SEATS.alias("mine"), _SEATS.alias("theirs")
        join_on = and_(theirs.c.match_id == mine.c.match_id, theirs.c.seat != mine.c.seat)
        if bot_id is None:
            join_on = and_(join_on, mine.c.bot_id < theirs.c.bot_id)
        points = case((mine.c.rank < theirs.c.rank, 1.0), (mine.c.rank == theirs.c.rank, 0.5), else_=0.0)
        corrected = points - mine.c.luck  # (null where no luck was measured: left out of the sums below)
        query = (select(mine.c.bot_id.label("a"), theirs.c.bot_id.label("b"),
                        func.sum(case((mine.c.rank < theirs.c.rank, 1), else_=0)).label("wins"),
                        func.sum(case((mine.c.rank == theirs.c.rank, 1), else_=0)).label("draws"),
                        func.sum(case((mine.c.rank > theirs.c.rank, 1), else_=0)).label("losses"),
                        func.count(mine.c.luck).label("luck_games"),
                        func.coalesce(func.sum(corrected), 0.0).label("corrected"),
                        func.coalesce(func.sum(corrected * corrected), 0.0).label("corrected_squares"))
                 .select_from(mine.join(theirs, join_on).join(_MATCHES, _MATCHES.c.id == mine.c.match_id))
                 .where(_MATCHES.c.pool == pool, _MATCHES.c.rated.is_(True))
                 .group_by(mine.c.bot_id, theirs.c.bot_id).order_by(mine.c.bot_id, theirs.c.bot_id))
        if bot_id is not None:
            query = query.where(mine.c.bot_id == bot_id)
        with self.engine.connect() as conn:
            return [PairCount(int(r.a), int(r.b), int(r.wins), int(r.draws), int(r.losses), int(r.luck_games),
                              float(r.corrected), float(r.corrected_squares))
                    for r in conn.execute(query)]

    def rated_results(self, pool: str) -> Iterator[tuple[int, datetime, list[int], list[int]]]:
        """(match id, finished at, bot per seat, rank per seat) for every rated match of a pool, in order: a
        stream for a rerate, millions of rows, too many to make a `StoredMatch` of each."""
        query = (select(_MATCHES.c.id, _MATCHES.c.finished_at, _SEATS.c.bot_id, _SEATS.c.rank)
                 .join(_SEATS, _SEATS.c.match_id == _MATCHES.c.id)
                 .where(_MATCHES.c.pool == pool, _MATCHES.c.rated.is_(True))
                 .order_by(_MATCHES.c.id, _SEATS.c.seat))
        with self.engine.connect() as conn:
            result = conn.execution_options(yield_per=20_000).execute(query)
            current_id = None
            finished: datetime | None = None
            bots: list[int] = []
            ranks: list[int] = []
            for match_id, finished_at, bot, rank in result:
                if match_id != current_id:
                    if current_id is not None:
                        assert finished is not None
                        yield current_id, finished, bots, ranks
                    current_id, finished, bots, ranks = match_id, finished_at, [], []
                bots.append(bot)
                ranks.append(rank)
            if current_id is not None:
                assert finished is not None
                yield current_id, finished, bots, ranks


def _match_key(match: int | str) -> Any:
    """The condition picking a match by id, or by uid (a prefix of 4 or more hex digits); None if `match`
    can be neither. Digits alone may be either (a uid can start with 8 digits): both are looked up, and
    the caller refuses an answer that is not one row."""
    if isinstance(match, int):
        return Match.id == match
    by_id = Match.id == int(match) if _may_be_id(match) else None
    by_uid = Match.uid.like(f"{match}%") if _may_be_uid(match) else None
    if by_id is not None and by_uid is not None:
        return or_(by_id, by_uid)
    return by_id if by_id is not None else by_uid


def _may_be_id(text: str) -> bool:
    """Whether `text` may be a match's id: ASCII digits, few enough to fit 63 bits ('¹'.isdigit() is true too,
    hence isascii)."""
    return text.isascii() and text.isdigit() and len(text) <= 18


def _may_be_uid(text: str) -> bool:
    """Whether `text` may be a prefix of a match's uid: 4 or more lowercase hex digits."""
    return len(text) >= 4 and all(c in "0123456789abcdef" for c in text)


def _read(conn: Any, query: Any) -> list[StoredMatch]:
    """The matches `query` (`_COLUMNS` with conditions) selects, in its order, with their seats."""
    rows = list(conn.execute(query))
    if not rows:
        return []
    seats_query = (select(MatchSeat.match_id, MatchSeat.seat, MatchSeat.bot_id, Bot.name, Bot.version, MatchSeat.rank,
                          MatchSeat.score, MatchSeat.luck)  # (after the match's id, in StoredSeat's order)
                   .join(Bot, Bot.id == MatchSeat.bot_id)
                   .where(MatchSeat.match_id.in_(query.with_only_columns(Match.id).scalar_subquery()))
                   .order_by(MatchSeat.match_id, MatchSeat.seat))
    seats: dict[int, list[StoredSeat]] = {}
    for match_id, *seat in conn.execute(seats_query):
        seats.setdefault(match_id, []).append(StoredSeat(*seat))
    return [_stored_match(row, seats.get(row.id, [])) for row in rows]


def _stored_match(row: Any, seats: list[StoredSeat]) -> StoredMatch:
    """A row of `_COLUMNS` as a StoredMatch (unpacked, not read by name: a tournament's matches are many)."""
    (match_id, uid, tournament_id, round_, pairing, rotation, game, pool, options, seed, ranking, scores, reason,
     offender, detail, steps, decisions, timings, record_id, rated, started_at, finished_at) = row
    return StoredMatch(match_id, uid, tournament_id, round_, pairing, rotation, game, pool, options or {}, int(seed),
                       tuple(ranking), tuple(scores or ()), reason, offender, detail, steps, decisions, timings or {},
                       record_id, bool(rated), started_at, finished_at, tuple(seats))


def _insert_many(conn: Any, table: Any, names: tuple[str, ...], rows: list[tuple[Any, ...]]) -> list[int]:
    """Insert rows (values in the order of the columns `names`) and return their new ids, in order.

    SQLite can only return ids in parameter order one row at a time, so there the ids are
    assigned here instead: safe, because its write transactions begin IMMEDIATE (the write lock
    is ours) and plain INTEGER PRIMARY KEYs are assigned max(id) + 1 anyway.
    """
    if conn.dialect.name == "sqlite":
        start = int(conn.execute(_MAX_ID[table]).scalar_one()) + 1
        ids = list(range(start, start + len(rows)))
        bulk_insert_values(conn, table.__table__, ("id", *names), [(new_id, *row) for new_id, row in zip(ids, rows)])
        return ids
    return list(conn.execute(_INSERT_RETURNING_ID[table], [dict(zip(names, row)) for row in rows]).scalars())


_RECORD_COLUMNS = ("encoding", "size", "data")
_MATCH_COLUMNS = ("tournament_id", "round", "pairing", "rotation", "uid", "game", "pool", "options", "seed",
                  "num_seats", "ranking", "scores", "reason", "offender", "detail", "steps", "decisions", "timings",
                  "record_id", "rated", "started_at", "finished_at")
_SEAT_COLUMNS = ("match_id", "seat", "bot_id", "rank", "score", "luck")


def _match_row(m: PlayedMatchLike, record_id: int) -> tuple[Any, ...]:
    """A match's values, in the order of `_MATCH_COLUMNS`."""
    return (m.tournament_id, m.round, m.pairing, m.rotation, m.uid, m.game, m.pool, m.options, m.seed, len(m.bot_ids),
            tuple(m.ranking), tuple(m.scores), m.reason, m.offender, m.detail, m.steps, m.decisions, m.timings,
            record_id, m.rated, m.started_at, m.finished_at)


def _seat_rows(m: PlayedMatchLike, match_id: int) -> list[tuple[Any, ...]]:
    """A match's seats' values, in the order of `_SEAT_COLUMNS`."""
    ranking, scores, luck = m.ranking, m.scores, m.luck or ()
    n_scores, n_luck = len(scores), len(luck)
    return [(match_id, seat, bot, ranking[seat], scores[seat] if seat < n_scores else None,
             luck[seat] if seat < n_luck else None) for seat, bot in enumerate(m.bot_ids)]
