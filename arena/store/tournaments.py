"""The tournaments, their entrants and planned pairings, and the matches that could not be played for a
reason that was not a bot's (infrastructure faults)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from sqlalchemy import ColumnElement, Engine, Table, and_, bindparam, func, insert, or_, select, update

from arena.store.models import Entry, InfraFault, Match, Pairing, Tournament, utcnow
from arena.store.rows import InfraFaultRow, PairingRow, PlayedMatchLike, TournamentRow
from arena.store.writes import inserted_id
from arena.store.retry import retried_on_lost_connection

_MATCHES = Match.__table__


@retried_on_lost_connection
class Tournaments:
    """Tournaments (a ladder or an SPRT is one too) and what their schedules plan."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def create(self, *, name: str | None, game: str, pool: str, options: dict[str, Any], format: str,
               seed: int, rounds: int, settings: dict[str, Any], bot_ids: Sequence[int]) -> int:
        """Register a tournament and its entrants (in seeding order); returns its id."""
        with self.engine.begin() as conn:
            result = conn.execute(insert(Tournament).values(
                name=name, game=game, pool=pool, options=options, format=format, seed=seed, rounds=rounds,
                settings=settings, status="running", created_at=utcnow()))
            tournament_id = inserted_id(result)
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

    def get(self, id_or_name: int | str) -> TournamentRow | None:
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

    def find(self, *, format: str | None = None, pool: str | None = None) -> list[TournamentRow]:
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

    def extend(self, tournament_id: int, rounds: int) -> None:
        """Give a tournament `rounds` in all (more than it had) and mark it running again."""
        with self.engine.begin() as conn:
            conn.execute(update(Tournament).where(Tournament.id == tournament_id).values(
                rounds=rounds, status="running", finished_at=None))

    # pairings -----------------------------------------------------------------------------------

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

    def finished_keys(self, tournament_id: int) -> set[tuple[int, int, int]]:
        """(round, pairing, rotation) of every stored match of the tournament."""
        query = select(Match.round, Match.pairing, Match.rotation).where(Match.tournament_id == tournament_id)
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

    # infrastructure faults ----------------------------------------------------------------------

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


def _settle_statement() -> Any:
    """UPDATE pairings SET settled when the pairing (bound t, r, p) has `seats` rotations stored."""
    stored = _MATCHES.alias("stored")
    rotations = (select(func.count()).select_from(stored)
                 .where(stored.c.tournament_id == bindparam("t"), stored.c.round == bindparam("r"),
                        stored.c.pairing == bindparam("p")).scalar_subquery())
    pairings = cast(Table, Pairing.__table__)
    return (update(pairings).where(pairings.c.tournament_id == bindparam("t"), pairings.c.round == bindparam("r"),
                                   pairings.c.index == bindparam("p"), rotations >= bindparam("seats"))
            .values(settled=True))


_SETTLE = _settle_statement()  # (built once: building it costs more than running it for a batch of results)


def settle_pairings(conn: Any, matches: Sequence[PlayedMatchLike]) -> None:
    """Mark settled the pairings of these matches that now have every seat rotation stored (in the caller's
    transaction, which stored them)."""
    keys = {(m.tournament_id, m.round, m.pairing, len(m.bot_ids)) for m in matches}
    conn.execute(_SETTLE, [{"t": t, "r": r, "p": p, "seats": seats} for t, r, p, seats in sorted(keys)])


def _open_pairing(since_round: int | None) -> ColumnElement[bool]:
    """A pairing not settled yet, or (with `since_round`) one of that round or after."""
    condition: ColumnElement[bool] = Pairing.settled.is_(False)
    return condition if since_round is None else or_(condition, Pairing.round >= since_round)
