"""Reads and writes of the Arena database. Hot paths use SQLAlchemy Core, not per-row ORM objects.

Every write of finished matches is one transaction: the records, the match rows, their seats, the
new ratings and the rating history land together or not at all.
"""

from __future__ import annotations

import functools
import gzip
import io
import json
import operator
from itertools import islice
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime
from typing import Any, cast

from sqlalchemy import ColumnElement, Engine, Table, and_, bindparam, case, delete, func, insert, or_, select, update
from sqlalchemy.exc import DBAPIError, IntegrityError

from arena.store.db import StoreError, create_db_engine, describe, migrate
from arena.store.models import (
    Bot,
    MatchAnalysis,
    Entry,
    InfraFault,
    Match,
    MatchSeat,
    Owner,
    Pairing,
    Rating,
    RatingEvent,
    Record,
    Tournament,
    utcnow,
)
from arena.store.rows import (
    BotIdentity,
    BotRow,
    FaultRow,
    InfraFaultRow,
    MatchRow,
    PairCount,
    PairingRow,
    PlayedMatchLike,
    RatingPoint,
    RatingPolicy,
    RatingRow,
    TournamentRow,
)

MATCHES = Match.__table__
SEATS = MatchSeat.__table__
RECORDS = Record.__table__
RATINGS = Rating.__table__
HISTORY = RatingEvent.__table__

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
_PARENTS = select(Bot.id, Bot.parent_id).where(Bot.id.in_(bindparam("p_bots", expanding=True)),
                                               Bot.parent_id.is_not(None))
_MAX_ID = {table: select(func.coalesce(func.max(table.id), 0)) for table in (Record, Match)}
_INSERT_RETURNING_ID = {table: insert(table).returning(table.id, sort_by_parameter_order=True)
                        for table in (Record, Match)}


class Store:
    """The Arena database behind one engine."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    @classmethod
    def open(cls, url: str, *, create: bool = True, **kwargs: Any) -> Store:
        """Connect and migrate to the newest schema. StoreError, with one line saying why, if it cannot be
        opened (with `create` False, also if there is no database there yet: nothing is made)."""
        engine = create_db_engine(url, create=create, **kwargs)
        try:
            migrate(engine)
        except DBAPIError as error:
            engine.dispose()
            raise StoreError(describe(error, url)) from None
        except StoreError:
            engine.dispose()
            raise
        return cls(engine)

    def close(self) -> None:
        """Release the connections."""
        self.engine.dispose()

    # bots ---------------------------------------------------------------------------------------

    def bot_id(self, identity: BotIdentity) -> int:
        """The id of this bot, registering it on first sight."""
        query = select(Bot.id).where(Bot.name == identity.name, Bot.version == identity.version,
                                     Bot.artifact_hash == identity.artifact_hash)
        with self.engine.begin() as conn:
            found = conn.execute(query).scalar()
            if found is not None:
                return int(found)
            try:
                with conn.begin_nested():
                    result = conn.execute(insert(Bot).values(
                        name=identity.name, version=identity.version, artifact_hash=identity.artifact_hash,
                        owner=identity.owner, kind=identity.kind, spec=identity.spec, created_at=utcnow()))
                    return _inserted_id(result)
            except IntegrityError:  # registered by someone else meanwhile
                return int(conn.execute(query).scalar_one())

    def bots(self, name: str | None = None, *, status: str | None = None, submitted: bool = False) -> list[BotRow]:
        """Registered bots (all, or those with this name, or in this status), oldest first; `submitted`:
        only versions that came through `arena bot submit` and finished their pre-flight."""
        query = _BOT_ROWS.order_by(Bot.id)
        if name is not None:
            query = query.where(Bot.name == name)
        if status is not None:
            query = query.where(Bot.status == status)
        if submitted:
            query = query.where(Bot.report.is_not(None))
        with self.engine.connect() as conn:
            return [_bot_row(row) for row in conn.execute(query)]

    def bot(self, bot_id: int) -> BotRow | None:
        """One bot by id, or None."""
        with self.engine.connect() as conn:
            row = conn.execute(_BOT_ROWS.where(Bot.id == bot_id)).first()
        return _bot_row(row) if row is not None else None

    def bot_report(self, bot_id: int) -> dict[str, Any] | None:
        """The pre-flight report of a submitted version (None for other bots)."""
        with self.engine.connect() as conn:
            report = conn.execute(select(Bot.report).where(Bot.id == bot_id)).scalar()
        return dict(report) if report else None

    def add_version(self, identity: BotIdentity, *, games: Sequence[str] | None, status: str = "pending",
                    report: dict[str, Any] | None = None) -> tuple[int, bool]:
        """Register a submitted version of a bot: (its id, True) or, when these very files were submitted
        before under this name and version, (that version's id, False). It follows the name's newest
        version that did not fail (its rating starts from that one's mu)."""
        with self.engine.begin() as conn:
            found = conn.execute(select(Bot.id).where(Bot.name == identity.name, Bot.version == identity.version,
                                                      Bot.artifact_hash == identity.artifact_hash)).scalar()
            if found is not None:
                return int(found), False
            parent = conn.execute(select(Bot.id).where(Bot.name == identity.name, Bot.status != "failed",
                                                       Bot.status != "pending")
                                  .order_by(Bot.id.desc()).limit(1)).scalar()
            values: dict[str, Any] = {"name": identity.name, "version": identity.version,
                                      "artifact_hash": identity.artifact_hash, "owner": identity.owner,
                                      "kind": identity.kind, "spec": identity.spec, "created_at": utcnow(),
                                      "status": status, "parent_id": parent}
            if games is not None:  # (None stays SQL NULL: "any game")
                values["games"] = list(games)
            if report is not None:  # a submitted version has a report once its pre-flight ran
                values["report"] = report
            result = conn.execute(insert(Bot).values(**values))
            return _inserted_id(result), True

    def set_bot_status(self, bot_id: int, status: str, report: dict[str, Any] | None = None) -> list[int]:
        """Set a version's status (and report). A version going live retires the name's other live
        versions; the ids of those it retired are returned."""
        values: dict[str, Any] = {"status": status}
        if report is not None:
            values["report"] = report
        if status == "retired":
            values["retired_at"] = utcnow()
        retired: list[int] = []
        with self.engine.begin() as conn:
            if status == "live":
                name = conn.execute(select(Bot.name).where(Bot.id == bot_id)).scalar_one()
                retired = list(conn.execute(select(Bot.id).where(Bot.name == name, Bot.status == "live",
                                                                 Bot.id != bot_id)).scalars())
                if retired:
                    conn.execute(update(Bot).where(Bot.id.in_(retired))
                                 .values(status="retired", retired_at=utcnow()))
            conn.execute(update(Bot).where(Bot.id == bot_id).values(**values))
        return retired

    # owners ---------------------------------------------------------------------------------------

    def add_owner(self, name: str, token_hash: str, operator: bool = False) -> bool:
        """Register an owner, an operator if so (False if the name is taken)."""
        try:
            with self.engine.begin() as conn:
                conn.execute(insert(Owner).values(name=name, token_hash=token_hash, created_at=utcnow(),
                                                  operator=operator))
        except IntegrityError:
            return False
        return True

    def set_owner_token(self, name: str, token_hash: str) -> bool:
        """Give an owner a new token (False for an unknown owner)."""
        with self.engine.begin() as conn:
            return bool(conn.execute(update(Owner).where(Owner.name == name)
                                     .values(token_hash=token_hash)).rowcount)

    def owner_token_hash(self, name: str) -> str | None:
        """The stored hash of an owner's token, or None for an unknown owner."""
        with self.engine.connect() as conn:
            return conn.execute(select(Owner.token_hash).where(Owner.name == name)).scalar()

    def owners(self) -> list[tuple[str, datetime]]:
        """(name, registered at) of every owner."""
        with self.engine.connect() as conn:
            return [(row.name, row.created_at) for row in conn.execute(select(Owner.name, Owner.created_at)
                                                                       .order_by(Owner.name))]

    def operators(self) -> set[str]:
        """The owners who are operators."""
        with self.engine.connect() as conn:
            return set(conn.execute(select(Owner.name).where(Owner.operator.is_(True))).scalars())

    def bot_names(self, ids: Iterable[int]) -> dict[int, str]:
        """id -> name."""
        wanted = list(set(ids))
        if not wanted:
            return {}
        with self.engine.connect() as conn:
            return {row.id: row.name for row in conn.execute(select(Bot.id, Bot.name).where(Bot.id.in_(wanted)))}

    # tournaments --------------------------------------------------------------------------------

    def create_tournament(self, *, name: str | None, game: str, pool: str, options: dict[str, Any], format: str,
                          seed: int, rounds: int, settings: dict[str, Any], bot_ids: Sequence[int]) -> int:
        """Register a tournament and its entrants (in seeding order); returns its id."""
        with self.engine.begin() as conn:
            result = conn.execute(insert(Tournament).values(
                name=name, game=game, pool=pool, options=options, format=format, seed=seed, rounds=rounds,
                settings=settings, status="running", created_at=utcnow()))
            tournament_id = _inserted_id(result)
            if bot_ids:
                conn.execute(insert(Entry), [{"tournament_id": tournament_id, "position": position, "bot_id": bot}
                                             for position, bot in enumerate(bot_ids)])
        return tournament_id

    def add_entries(self, tournament_id: int, bot_ids: Sequence[int]) -> None:
        """Enter more bots (a ladder grows); bots already entered are skipped."""
        with self.engine.begin() as conn:
            present = list(conn.execute(select(Entry.bot_id, Entry.position)
                                        .where(Entry.tournament_id == tournament_id)))
            have = {row.bot_id for row in present}
            position = max((row.position for row in present), default=-1) + 1
            rows = []
            for bot in bot_ids:
                if bot not in have:
                    rows.append({"tournament_id": tournament_id, "position": position, "bot_id": bot})
                    have.add(bot)
                    position += 1
            if rows:
                conn.execute(insert(Entry), rows)

    def tournament(self, id_or_name: int | str) -> TournamentRow | None:
        """A tournament by id or name, or None."""
        query = select(Tournament.__table__)
        text = str(id_or_name)
        if isinstance(id_or_name, int) or (text.isascii() and text.isdigit() and len(text) <= 18):
            query = query.where(Tournament.id == int(id_or_name))
        else:
            query = query.where(Tournament.name == id_or_name)
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        return TournamentRow(**row._mapping) if row is not None else None

    def tournaments(self, *, format: str | None = None, pool: str | None = None) -> list[TournamentRow]:
        """Tournaments, newest first, with how many matches each has stored."""
        counts = (select(Match.tournament_id, func.count().label("matches"))
                  .group_by(Match.tournament_id).subquery())
        query = (select(Tournament.__table__, func.coalesce(counts.c.matches, 0).label("matches"))
                 .outerjoin(counts, counts.c.tournament_id == Tournament.id).order_by(Tournament.id.desc()))
        if format is not None:
            query = query.where(Tournament.format == format)
        if pool is not None:
            query = query.where(Tournament.pool == pool)
        with self.engine.connect() as conn:
            return [TournamentRow(**row._mapping) for row in conn.execute(query)]

    def entries(self, tournament_id: int) -> list[int]:
        """Entrant bot ids in seeding order."""
        with self.engine.connect() as conn:
            return list(conn.execute(select(Entry.bot_id).where(Entry.tournament_id == tournament_id)
                                     .order_by(Entry.position)).scalars())

    def set_settings(self, tournament_id: int, settings: dict[str, Any]) -> None:
        """Replace a tournament's settings (a ladder service keeps its schedule and state there)."""
        with self.engine.begin() as conn:
            conn.execute(update(Tournament).where(Tournament.id == tournament_id).values(settings=settings))

    def set_status(self, tournament_id: int, status: str) -> None:
        """Mark a tournament running or finished."""
        with self.engine.begin() as conn:
            conn.execute(update(Tournament).where(Tournament.id == tournament_id).values(
                status=status, finished_at=utcnow() if status == "finished" else None))

    def extend_tournament(self, tournament_id: int, rounds: int) -> None:
        """Give a tournament `rounds` in all (more than it had) and mark it running again."""
        with self.engine.begin() as conn:
            conn.execute(update(Tournament).where(Tournament.id == tournament_id).values(
                rounds=rounds, status="running", finished_at=None))

    def pairings(self, tournament_id: int) -> list[PairingRow]:
        """Every planned pairing, in (round, index) order."""
        return self._pairing_rows(Pairing.tournament_id == tournament_id)

    def open_pairings(self, tournament_id: int, since_round: int | None = None) -> list[PairingRow]:
        """The pairings not settled yet (a seat rotation not stored: waiting, or left by a retired bot), and
        with `since_round` every pairing of that round and after, in (round, index) order: what a ladder's
        round reads, whatever the number of matches it has played before."""
        return self._pairing_rows(Pairing.tournament_id == tournament_id, _open_pairing(since_round))

    def _pairing_rows(self, *conditions: ColumnElement[bool]) -> list[PairingRow]:
        query = (select(Pairing.round, Pairing.index, Pairing.seed, Pairing.bots, Pairing.label)
                 .where(*conditions).order_by(Pairing.round, Pairing.index))
        with self.engine.connect() as conn:
            return [PairingRow(row.round, row._mapping["index"], int(row.seed), tuple(row.bots), row.label or "")
                    for row in conn.execute(query)]  # (`row.index` would be the tuple method)

    def open_finished_keys(self, tournament_id: int, since_round: int | None = None) -> set[tuple[int, int, int]]:
        """(round, pairing, rotation) of the stored matches of the pairings `open_pairings` gives."""
        query = (select(Match.round, Match.pairing, Match.rotation)
                 .join(Pairing, and_(Pairing.tournament_id == Match.tournament_id, Pairing.round == Match.round,
                                     Pairing.index == Match.pairing))
                 .where(Pairing.tournament_id == tournament_id, _open_pairing(since_round)))
        with self.engine.connect() as conn:
            return {(row.round, row.pairing, row.rotation) for row in conn.execute(query)}

    def last_round(self, tournament_id: int) -> int | None:
        """The latest round planned, or None."""
        with self.engine.connect() as conn:
            return conn.execute(select(func.max(Pairing.round)).where(Pairing.tournament_id == tournament_id)).scalar()

    def add_pairings(self, tournament_id: int, rows: Sequence[PairingRow]) -> None:
        """Store planned pairings, all or none (a bye is settled from the start: it is never played)."""
        if not rows:
            return
        with self.engine.begin() as conn:
            conn.execute(insert(Pairing), [{"tournament_id": tournament_id, "round": row.round, "index": row.index,
                                            "seed": row.seed, "bots": list(row.bots), "label": row.label,
                                            "settled": row.is_bye} for row in rows])

    def finished_keys(self, tournament_id: int) -> set[tuple[int, int, int]]:
        """(round, pairing, rotation) of every stored match of the tournament."""
        query = select(Match.round, Match.pairing, Match.rotation).where(Match.tournament_id == tournament_id)
        with self.engine.connect() as conn:
            return {(row.round, row.pairing, row.rotation) for row in conn.execute(query)}

    def tournament_matches(self, tournament_id: int, after_id: int | None = None) -> list[MatchRow]:
        """The stored matches of a tournament (those stored after match `after_id`) with their seats' bots
        and ranks, in key order."""
        query = (select(Match.id, Match.round, Match.pairing, Match.rotation, Match.seed, Match.ranking,
                        Match.scores, Match.reason, Match.offender, Match.steps, Match.timings, Match.uid,
                        Match.record_id, Match.finished_at, Match.rated)
                 .where(Match.tournament_id == tournament_id)
                 .order_by(Match.round, Match.pairing, Match.rotation))
        seats_query = (select(MatchSeat.match_id, MatchSeat.seat, MatchSeat.bot_id, MatchSeat.luck)
                       .join(Match, Match.id == MatchSeat.match_id)
                       .where(Match.tournament_id == tournament_id).order_by(MatchSeat.match_id, MatchSeat.seat))
        if after_id is not None:
            query = query.where(Match.id > after_id)
            seats_query = seats_query.where(Match.id > after_id)
        with self.engine.connect() as conn:
            rows = list(conn.execute(query))
            seats: dict[int, list[int]] = {}
            lucks: dict[int, list[float | None]] = {}
            for seat in conn.execute(seats_query):
                seats.setdefault(seat.match_id, []).append(seat.bot_id)
                lucks.setdefault(seat.match_id, []).append(seat.luck)
        return [MatchRow(row.id, row.round, row.pairing, row.rotation, int(row.seed), tuple(row.ranking),
                         tuple(row.scores or ()), row.reason, row.offender, row.steps, dict(row.timings or {}),
                         row.uid, row.record_id, row.finished_at, tuple(seats.get(row.id, ())), bool(row.rated),
                         _seat_lucks(lucks.get(row.id, [])))
                for row in rows]

    # infrastructure faults and bots' faults -------------------------------------------------------

    def add_infra_fault(self, tournament_id: int, key: tuple[int, int, int], bots: Sequence[int], detail: str) -> None:
        """Note that a match could not be played for a reason that was not a bot's."""
        with self.engine.begin() as conn:
            conn.execute(insert(InfraFault).values(tournament_id=tournament_id, round=key[0], pairing=key[1],
                                                   rotation=key[2], bots=list(bots), detail=detail[:4000],
                                                   at=utcnow()))

    def infra_fault_counts(self, tournament_id: int) -> dict[tuple[int, int, int], int]:
        """(round, pairing, rotation) -> how many times the match met an infrastructure fault."""
        query = (select(InfraFault.round, InfraFault.pairing, InfraFault.rotation, func.count().label("n"))
                 .where(InfraFault.tournament_id == tournament_id)
                 .group_by(InfraFault.round, InfraFault.pairing, InfraFault.rotation))
        with self.engine.connect() as conn:
            return {(row.round, row.pairing, row.rotation): int(row.n) for row in conn.execute(query)}

    def infra_faults(self, tournament_id: int | None = None, limit: int = 100) -> list[InfraFaultRow]:
        """The latest infrastructure faults (of one tournament, or all), newest first."""
        query = select(InfraFault.__table__).order_by(InfraFault.id.desc()).limit(limit)
        if tournament_id is not None:
            query = query.where(InfraFault.tournament_id == tournament_id)
        with self.engine.connect() as conn:
            return [InfraFaultRow(row.id, row.tournament_id, row.round, row.pairing, row.rotation, tuple(row.bots),
                                  row.detail, row.at) for row in conn.execute(query)]

    def bot_faults(self, pool: str | None = None, tournament_id: int | None = None, limit: int = 100) -> list[FaultRow]:
        """The latest stored matches a bot's fault ended (timeouts, crashes...), newest first."""
        query = (select(Match.id, Match.uid, Match.pool, Match.tournament_id, MatchSeat.bot_id, Match.reason,
                        Match.detail, Match.finished_at)
                 .join(MatchSeat, and_(MatchSeat.match_id == Match.id, MatchSeat.seat == Match.offender))
                 .where(Match.offender.is_not(None)).order_by(Match.id.desc()).limit(limit))
        if pool is not None:
            query = query.where(Match.pool == pool)
        if tournament_id is not None:
            query = query.where(Match.tournament_id == tournament_id)
        with self.engine.connect() as conn:
            return [FaultRow(row.id, row.uid, row.pool, row.tournament_id, row.bot_id, row.reason, row.detail,
                             row.finished_at) for row in conn.execute(query)]

    def match_page(self, *, pool: str | None = None, bot_id: int | None = None, tournament_id: int | None = None,
                   offset: int = 0, limit: int = 50) -> tuple[int, list[dict[str, Any]]]:
        """(how many, a page of them) of the stored matches, newest first, optionally of one pool, bot or
        tournament; each with its seats (bot id, name, version, rank, score), without its record."""
        conditions = []
        if pool is not None:
            conditions.append(Match.pool == pool)
        if tournament_id is not None:
            conditions.append(Match.tournament_id == tournament_id)
        columns = (Match.id, Match.uid, Match.tournament_id, Match.round, Match.pairing, Match.rotation, Match.game,
                   Match.pool, Match.ranking, Match.scores, Match.reason, Match.offender, Match.detail, Match.steps,
                   Match.decisions, Match.timings, Match.rated, Match.started_at, Match.finished_at)
        if bot_id is None:
            count = select(func.count()).select_from(Match).where(*conditions)
            query = select(*columns).where(*conditions).order_by(Match.id.desc()).offset(offset).limit(limit)
        else:  # from the bot's own seats, newest first (its index), never a walk down the whole match table
            mine = (select(MatchSeat.match_id).join(Match, Match.id == MatchSeat.match_id)
                    .where(MatchSeat.bot_id == bot_id, *conditions).group_by(MatchSeat.match_id))
            count = select(func.count()).select_from(mine.subquery())
            page = mine.order_by(MatchSeat.match_id.desc()).offset(offset).limit(limit)
            query = select(*columns).where(Match.id.in_(page.scalar_subquery())).order_by(Match.id.desc())
        with self.engine.connect() as conn:
            total = int(conn.execute(count).scalar_one())
            rows = [dict(row._mapping) for row in conn.execute(query)]
            self._attach_seats(conn, rows)
        return total, rows

    @staticmethod
    def _match_key(match: int | str) -> Any:
        """The condition picking a match by id, or by uid (a prefix of 4 or more hex digits); None if `match`
        can be neither. Digits alone may be either (a uid can start with 8 digits): both are looked up, and
        the caller refuses an answer that is not one row."""
        if isinstance(match, int):
            return Match.id == match
        by_id = Match.id == int(match) if match.isascii() and match.isdigit() and len(match) <= 18 else None
        by_uid = Match.uid.like(f"{match}%") if len(match) >= 4 and all(c in "0123456789abcdef" for c in match) \
            else None  # ('¹'.isdigit() is true too, hence isascii; an id fits 63 bits)
        if by_id is not None and by_uid is not None:
            return or_(by_id, by_uid)
        return by_id if by_id is not None else by_uid

    def match(self, match: int | str) -> dict[str, Any] | None:
        """One stored match by id or uid (a unique prefix of 4 or more will do), with its seats; no record."""
        key = self._match_key(match)
        if key is None:
            return None
        query = select(Match.__table__).where(key).limit(2)
        with self.engine.connect() as conn:
            rows = [dict(row._mapping) for row in conn.execute(query)]
            if len(rows) != 1:
                return None
            self._attach_seats(conn, rows)
        return rows[0]

    @staticmethod
    def _attach_seats(conn: Any, rows: list[dict[str, Any]]) -> None:
        if not rows:
            return
        query = (select(MatchSeat.match_id, MatchSeat.seat, MatchSeat.bot_id, MatchSeat.rank, MatchSeat.score,
                        MatchSeat.luck, Bot.name, Bot.version)
                 .join(Bot, Bot.id == MatchSeat.bot_id)
                 .where(MatchSeat.match_id.in_([row["id"] for row in rows]))
                 .order_by(MatchSeat.match_id, MatchSeat.seat))
        seats: dict[int, list[dict[str, Any]]] = {}
        for seat in conn.execute(query):
            seats.setdefault(seat.match_id, []).append({"seat": seat.seat, "bot_id": seat.bot_id, "bot": seat.name,
                                                         "version": seat.version, "rank": seat.rank,
                                                         "score": seat.score, "luck": seat.luck})
        for row in rows:
            row["seats"] = seats.get(row["id"], [])

    def fault_counts(self, bot_id: int) -> dict[str, int]:
        """How many stored matches ended by this bot's fault, by reason."""
        query = (select(Match.reason, func.count().label("n"))
                 .join(MatchSeat, and_(MatchSeat.match_id == Match.id, MatchSeat.seat == Match.offender))
                 .where(MatchSeat.bot_id == bot_id).group_by(Match.reason))
        with self.engine.connect() as conn:
            return {row.reason: int(row.n) for row in conn.execute(query)}

    def record_header(self, match: int | str) -> dict[str, Any] | None:
        """The first line of a stored record (players, seed, `extra` with the faults' evidence), read without
        inflating the rest; None when there is no such match or its record is unreadable."""
        found = self.record(match)
        if found is None:
            return None
        try:
            with gzip.GzipFile(fileobj=io.BytesIO(found[1])) as stream:
                header = json.loads(stream.readline(4 * 1024 * 1024))
        except (OSError, EOFError, ValueError):
            return None
        return header if isinstance(header, dict) else None

    def record(self, match: int | str) -> tuple[dict[str, Any], bytes] | None:
        """(match row, gzip-compressed JSON-lines record) by match id or uid (a unique prefix of 4 or more
        will do)."""
        key = self._match_key(match)
        if key is None:
            return None
        query = select(Match.__table__, Record.data).join(Record, Record.id == Match.record_id).where(key).limit(2)
        with self.engine.connect() as conn:
            rows = list(conn.execute(query))
        if len(rows) != 1:
            return None
        data = dict(rows[0]._mapping)
        return data, bytes(data.pop("data"))

    # analyses ------------------------------------------------------------------------------------

    def save_analysis(self, match_id: int, budget: str, seed: int, seconds: float, data: bytes) -> None:
        """Store a match's analysis (gzip-compressed JSON), replacing any earlier one."""
        with self.engine.begin() as conn:
            conn.execute(delete(MatchAnalysis).where(MatchAnalysis.match_id == match_id))
            conn.execute(insert(MatchAnalysis).values(match_id=match_id, budget=budget, seed=seed, seconds=seconds,
                                                      created_at=utcnow(), data=data))

    def analysis(self, match_id: int) -> bytes | None:
        """A stored match's analysis (gzip-compressed JSON), or None if it has none."""
        with self.engine.connect() as conn:
            data = conn.execute(select(MatchAnalysis.data).where(MatchAnalysis.match_id == match_id)).scalar()
        return bytes(data) if data is not None else None

    def has_analysis(self, match_id: int) -> bool:
        """Whether a stored match has an analysis (without reading it)."""
        with self.engine.connect() as conn:
            return conn.execute(select(MatchAnalysis.match_id).where(MatchAnalysis.match_id == match_id)).first() \
                is not None

    def unanalysed_matches(self, tournament_ids: Sequence[int], limit: int = 100) -> list[int]:
        """Ids of the tournaments' stored matches without an analysis, oldest first."""
        query = _unanalysed(select(Match.id), tournament_ids).order_by(Match.id).limit(limit)
        with self.engine.connect() as conn:
            return [int(row) for row in conn.execute(query).scalars()]

    def unanalysed_count(self, tournament_ids: Sequence[int]) -> int:
        """How many of the tournaments' stored matches have no analysis."""
        with self.engine.connect() as conn:
            return int(conn.execute(_unanalysed(select(func.count()).select_from(Match), tournament_ids)).scalar_one())

    # storing results ----------------------------------------------------------------------------

    def save_matches(self, matches: Sequence[PlayedMatchLike], policy: RatingPolicy) -> list[int]:
        """Store finished matches and their rating updates (as `policy` rates them, in order), in one
        transaction.

        Raises IntegrityError (and stores nothing) if any match key is already stored.
        """
        if not matches:
            return []
        with self.engine.begin() as conn:
            record_rows = [{"encoding": "jsonl+gzip", "size": m.record_size, "data": m.record_gz} for m in matches]
            record_ids = self._insert_many(conn, Record, record_rows)
            match_ids = self._insert_many(conn, Match, [_match_row(m, record_id)
                                                        for m, record_id in zip(matches, record_ids)])
            _bulk_insert(conn, SEATS, [
                {"match_id": match_id, "seat": seat, "bot_id": bot, "rank": m.ranking[seat],
                 "score": m.scores[seat] if seat < len(m.scores) else None,
                 "luck": m.luck[seat] if m.luck is not None and seat < len(m.luck) else None}
                for m, match_id in zip(matches, match_ids) for seat, bot in enumerate(m.bot_ids)])
            _settle_pairings(conn, matches)
            rated = [(m, match_id) for m, match_id in zip(matches, match_ids) if m.rated]
            if rated:
                self._apply_ratings(conn, rated, policy)
        return match_ids

    @staticmethod
    def _insert_many(conn: Any, table: Any, rows: list[dict[str, Any]]) -> list[int]:
        """Insert rows and return their new ids, in order.

        SQLite can only return ids in parameter order one row at a time, so there the ids are
        assigned here instead: safe, because its write transactions begin IMMEDIATE (the write lock
        is ours) and plain INTEGER PRIMARY KEYs are assigned max(id) + 1 anyway.
        """
        if conn.dialect.name == "sqlite":
            start = int(conn.execute(_MAX_ID[table]).scalar_one()) + 1
            ids = list(range(start, start + len(rows)))
            _bulk_insert(conn, table.__table__, [{"id": new_id, **row} for new_id, row in zip(ids, rows)])
            return ids
        return list(conn.execute(_INSERT_RETURNING_ID[table], rows).scalars())

    def _apply_ratings(self, conn: Any, rated: list[tuple[PlayedMatchLike, int]], policy: RatingPolicy) -> None:
        """Hand each pool's rated matches, with the ratings they start from, to the policy; store what it
        decides (the history, the new ratings, the tallies)."""
        by_pool: dict[str, list[tuple[PlayedMatchLike, int]]] = {}
        for item in rated:
            by_pool.setdefault(item[0].pool, []).append(item)
        for pool, items in by_pool.items():
            bots = sorted({bot for m, _ in items for bot in m.bot_ids})
            current = {row.bot_id: (row.mu, row.sigma)
                       for row in conn.execute(_CURRENT_RATINGS, {"p_pool": pool, "p_bots": bots})}
            existing = set(current)
            newcomers = [bot for bot in bots if bot not in existing]
            lineage = _lineage(conn, newcomers) if newcomers else {}
            if lineage:  # the ratings their earlier versions have now (or, if they play in this batch, will have)
                ancestors = sorted({a for chain in lineage.values() for a in chain} - set(current))
                for row in conn.execute(_CURRENT_RATINGS, {"p_pool": pool, "p_bots": ancestors}):
                    current[row.bot_id] = (row.mu, row.sigma)
            changes = policy.apply(items, current, lineage)
            _bulk_insert(conn, HISTORY, [{"pool": pool, "bot_id": point.bot_id, "match_id": point.match_id,
                                          "mu": point.mu, "sigma": point.sigma, "played_at": point.played_at}
                                         for point in changes.history])
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

    # ratings ------------------------------------------------------------------------------------

    def pools(self) -> list[str]:
        """Rating pools that have rated bots, sorted."""
        with self.engine.connect() as conn:
            return sorted(conn.execute(select(Rating.pool).distinct()).scalars())

    def ratings(self, pool: str, *, live_only: bool = False) -> list[RatingRow]:
        """Every rated bot of a pool (unsorted); with `live_only`, not the retired (or replaced) versions."""
        query = (select(Rating.pool, Rating.bot_id, Bot.name, Bot.version, Rating.mu, Rating.sigma, Rating.games,
                        Rating.wins, Rating.draws, Rating.losses, Rating.last_played, Bot.kind, Bot.owner, Bot.spec)
                 .join(Bot, Bot.id == Rating.bot_id).where(Rating.pool == pool))
        if live_only:
            query = query.where(Bot.status == "live")
        with self.engine.connect() as conn:
            return [RatingRow(**row._mapping) for row in conn.execute(query)]

    def pool_match_count(self, pool: str) -> int:
        """Rated matches stored in a pool, from its ratings' tallies (each rated match counts one game for each
        of its seats, and every match of a pool has the same seats): the bots, not the matches, are read."""
        with self.engine.connect() as conn:
            seats = conn.execute(select(Match.num_seats).where(Match.pool == pool).limit(1)).scalar()
            games = conn.execute(select(func.sum(Rating.games)).where(Rating.pool == pool)).scalar()
        return int(games or 0) // int(seats or 1)

    def ratings_stamp(self, pool: str) -> tuple[Any, ...]:
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

    def rated_match_rows(self, pool: str) -> int:
        """Rated matches stored in a pool, counted row by row (a scan of the pool's matches: what a rerate,
        which reads them all anyway, shows its progress against)."""
        with self.engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(Match)
                                    .where(Match.pool == pool, Match.rated.is_(True))).scalar_one())

    def last_match_ids(self, pool: str) -> dict[int, int]:
        """bot id -> id of its latest rated match in the pool."""
        with self.engine.connect() as conn:
            return {row.bot_id: row.last_match_id for row in conn.execute(
                select(Rating.bot_id, Rating.last_match_id).where(Rating.pool == pool))}

    def rating_history(self, bot_id: int, pool: str | None = None) -> list[RatingPoint]:
        """A bot's rating after each of its rated matches, oldest first."""
        query = (select(RatingEvent.pool, RatingEvent.bot_id, RatingEvent.match_id, RatingEvent.mu, RatingEvent.sigma,
                        RatingEvent.played_at)
                 .where(RatingEvent.bot_id == bot_id).order_by(RatingEvent.pool, RatingEvent.match_id))
        if pool is not None:
            query = query.where(RatingEvent.pool == pool)
        with self.engine.connect() as conn:
            return [RatingPoint(*row) for row in conn.execute(query)]  # (columns in the dataclass's order)

    def bot_pools(self, bot_id: int) -> list[RatingRow]:
        """A bot's standing in each pool it is rated in."""
        query = (select(Rating.pool, Rating.bot_id, Bot.name, Bot.version, Rating.mu, Rating.sigma, Rating.games,
                        Rating.wins, Rating.draws, Rating.losses, Rating.last_played)
                 .join(Bot, Bot.id == Rating.bot_id).where(Rating.bot_id == bot_id).order_by(Rating.pool))
        with self.engine.connect() as conn:
            return [RatingRow(**row._mapping) for row in conn.execute(query)]

    def luck_totals(self, bot_id: int, pool: str) -> tuple[int, float]:
        """(rated matches with their luck measured, the bot's luck summed over them) in a pool."""
        query = (select(func.count(SEATS.c.luck), func.coalesce(func.sum(SEATS.c.luck), 0.0))
                 .join(MATCHES, MATCHES.c.id == SEATS.c.match_id)
                 .where(SEATS.c.bot_id == bot_id, MATCHES.c.pool == pool, MATCHES.c.rated.is_(True)))
        with self.engine.connect() as conn:
            count, total = conn.execute(query).one()
        return int(count), float(total)

    def pair_counts(self, pool: str, bot_id: int | None = None) -> list[PairCount]:
        """Pairwise results in a pool: for every two bots that met, a's wins, draws and losses against b, and over
        the games with their luck measured, a's points less its luck (their sum and sum of squares).

        Every pair of seats in a match counts (so a free-for-all of n seats gives n(n-1)/2 comparisons).
        With `bot_id`, only that bot's pairs, with it as `a`.
        """
        mine, theirs = SEATS.alias("mine"), SEATS.alias("theirs")
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
                 .select_from(mine.join(theirs, join_on).join(MATCHES, MATCHES.c.id == mine.c.match_id))
                 .where(MATCHES.c.pool == pool, MATCHES.c.rated.is_(True))
                 .group_by(mine.c.bot_id, theirs.c.bot_id).order_by(mine.c.bot_id, theirs.c.bot_id))
        if bot_id is not None:
            query = query.where(mine.c.bot_id == bot_id)
        with self.engine.connect() as conn:
            return [PairCount(int(r.a), int(r.b), int(r.wins), int(r.draws), int(r.losses), int(r.luck_games),
                              float(r.corrected), float(r.corrected_squares))
                    for r in conn.execute(query)]

    def rated_results(self, pool: str) -> Iterator[tuple[int, datetime, list[int], list[int]]]:
        """(match id, finished at, bot per seat, rank per seat) for every rated match of a pool, in order."""
        query = (select(MATCHES.c.id, MATCHES.c.finished_at, SEATS.c.bot_id, SEATS.c.rank)
                 .join(SEATS, SEATS.c.match_id == MATCHES.c.id)
                 .where(MATCHES.c.pool == pool, MATCHES.c.rated.is_(True))
                 .order_by(MATCHES.c.id, SEATS.c.seat))
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

    def lineages(self) -> dict[int, tuple[int, ...]]:
        """bot id -> its earlier versions, nearest first (for bots that follow another version)."""
        with self.engine.connect() as conn:
            parents = {row.id: row.parent_id for row in conn.execute(select(Bot.id, Bot.parent_id)
                                                                     .where(Bot.parent_id.is_not(None)))}
        return {bot: _chain(bot, parents) for bot in parents}

    def replace_ratings(self, pool: str, history: Iterable[dict[str, Any]], ratings: list[dict[str, Any]]) -> None:
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


def _open_pairing(since_round: int | None) -> ColumnElement[bool]:
    """A pairing not settled yet, or (with `since_round`) one of that round or after."""
    condition: ColumnElement[bool] = Pairing.settled.is_(False)
    return condition if since_round is None else or_(condition, Pairing.round >= since_round)


def _settle_pairings(conn: Any, matches: Sequence[PlayedMatchLike]) -> None:
    """Mark settled the pairings of these matches that now have every seat rotation stored."""
    stored = MATCHES.alias("stored")
    rotations = (select(func.count()).select_from(stored)
                 .where(stored.c.tournament_id == bindparam("t"), stored.c.round == bindparam("r"),
                        stored.c.pairing == bindparam("p")).scalar_subquery())
    pairings = cast(Table, Pairing.__table__)
    settle = (update(pairings).where(pairings.c.tournament_id == bindparam("t"), pairings.c.round == bindparam("r"),
                                     pairings.c.index == bindparam("p"), rotations >= bindparam("seats"))
              .values(settled=True))
    keys = {(m.tournament_id, m.round, m.pairing, len(m.bot_ids)) for m in matches}
    conn.execute(settle, [{"t": t, "r": r, "p": p, "seats": seats} for t, r, p, seats in sorted(keys)])


def _lineage(conn: Any, bots: list[int]) -> dict[int, tuple[int, ...]]:
    """bot -> its earlier versions, nearest first, for those of `bots` that follow another version."""
    parents: dict[int, int] = {}
    wanted = bots
    while wanted:  # one query per generation; a name has few versions
        found = {row.id: row.parent_id for row in conn.execute(_PARENTS, {"p_bots": wanted})}
        parents.update(found)
        wanted = [parent for parent in found.values() if parent not in parents]
    return {bot: _chain(bot, parents) for bot in bots if bot in parents}


def _chain(bot: int, parents: dict[int, int]) -> tuple[int, ...]:
    chain: list[int] = []
    while bot in parents and parents[bot] not in chain and len(chain) < 1000:
        bot = parents[bot]
        chain.append(bot)
    return tuple(chain)


_BOT_ROWS = select(Bot.id, Bot.name, Bot.version, Bot.artifact_hash, Bot.owner, Bot.kind, Bot.spec, Bot.created_at,
                   Bot.status, Bot.retired_at, Bot.parent_id, Bot.games)


def _bot_row(row: Any) -> BotRow:
    data = dict(row._mapping)
    games = data.pop("games")
    return BotRow(**data, games=tuple(games) if games is not None else None)


_PLACEHOLDERS = {"qmark": "?", "format": "%s", "pyformat": "%s"}


def _bulk_insert(conn: Any, table: Any, rows: list[dict[str, Any]]) -> None:
    """executemany straight to the driver, values converted by the columns' own SQLAlchemy types.

    Same rows as `conn.execute(insert(table), rows)`, without SQLAlchemy's per-row parameter
    handling, which costs more than the database on the hot path of storing results.
    """
    if not rows:
        return
    plan = _insert_plan(table, tuple(rows[0]), conn.dialect)
    if plan is None:  # a driver with another parameter style: the ordinary path
        conn.execute(insert(table), rows)
        return
    sql, values, processors = plan
    if not processors:
        conn.exec_driver_sql(sql, [values(row) for row in rows])
        return
    params = []
    last: list[Any] = [_UNSET] * len(processors)  # a value repeated from the previous row is converted once
    converted_last: list[Any] = [None] * len(processors)
    for row in rows:
        converted = list(values(row))
        for slot, (index, process) in enumerate(processors):
            value = converted[index]
            if value is not last[slot]:
                last[slot] = value
                converted_last[slot] = process(value)
            converted[index] = converted_last[slot]
        params.append(tuple(converted))
    conn.exec_driver_sql(sql, params)


@functools.lru_cache(maxsize=64)
def _inserted_id(result: Any) -> int:
    """The id a single-row INSERT made."""
    key = result.inserted_primary_key
    assert key is not None
    return int(key[0])


def _insert_plan(table: Any, names: tuple[str, ...], dialect: Any) -> tuple[str, Callable[[dict[str, Any]], tuple[Any, ...]],
                                                                       list[tuple[int, Callable[[Any], Any]]]] | None:
    """The INSERT statement for these columns, a row-to-values function and the values' converters."""
    placeholder = _PLACEHOLDERS.get(dialect.paramstyle)
    if placeholder is None:
        return None
    processors = [(index, process) for index, name in enumerate(names)
                  if (process := table.c[name].type._cached_bind_processor(dialect)) is not None]
    quote = dialect.identifier_preparer
    sql = (f"INSERT INTO {quote.format_table(table)} ({', '.join(quote.quote(name) for name in names)}) "
           f"VALUES ({', '.join([placeholder] * len(names))})")
    values = operator.itemgetter(*names) if len(names) > 1 else (lambda row: (row[names[0]],))
    return sql, values, processors


_UNSET = object()


def _match_row(m: PlayedMatchLike, record_id: int) -> dict[str, Any]:
    return {
        "tournament_id": m.tournament_id, "round": m.round, "pairing": m.pairing, "rotation": m.rotation,
        "uid": m.uid, "game": m.game, "pool": m.pool, "options": m.options, "seed": m.seed,
        "num_seats": len(m.bot_ids), "ranking": tuple(m.ranking), "scores": tuple(m.scores), "reason": m.reason,
        "offender": m.offender, "detail": m.detail, "steps": m.steps, "decisions": m.decisions,
        "timings": m.timings, "record_id": record_id, "rated": m.rated, "started_at": m.started_at,
        "finished_at": m.finished_at,
    }


def _unanalysed(query: Any, tournament_ids: Sequence[int]) -> Any:
    """`query` over the tournaments' matches that have no analysis (one condition for the list and the count)."""
    return (query.outerjoin(MatchAnalysis, MatchAnalysis.match_id == Match.id)
            .where(Match.tournament_id.in_(list(tournament_ids)), MatchAnalysis.match_id.is_(None)))


def _seat_lucks(lucks: list[float | None]) -> tuple[float, ...] | None:
    """A match's luck per seat, or None unless every seat has one."""
    if not lucks or any(luck is None for luck in lucks):
        return None
    return tuple(float(luck) for luck in lucks if luck is not None)
