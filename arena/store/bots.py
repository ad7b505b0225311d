"""The bots table: each bot's identity (name, version, artifact), its submitted versions' status and
pre-flight reports, and the versions each follows."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import Engine, bindparam, insert, select, update
from sqlalchemy.exc import IntegrityError

from arena.referee.players import PlayerKind
from arena.store.models import Bot, utcnow
from arena.store.rows import BotIdentity, BotRow
from arena.store.writes import inserted_id
from arena.store.retry import retried_on_lost_connection

_BOT_ROWS = select(Bot.id, Bot.name, Bot.version, Bot.artifact_hash, Bot.owner, Bot.kind, Bot.spec, Bot.created_at,
                   Bot.status, Bot.retired_at, Bot.parent_id, Bot.games)
_PARENTS = select(Bot.id, Bot.parent_id).where(Bot.id.in_(bindparam("p_bots", expanding=True)),
                                               Bot.parent_id.is_not(None))


@retried_on_lost_connection
class Bots:
    """Registered bots: built-in agents, bot programs and their submitted versions, remote bots."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def register(self, identity: BotIdentity) -> int:
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
                        owner=identity.owner, kind=identity.kind.value, spec=identity.spec, created_at=utcnow()))
                    return inserted_id(result)
            except IntegrityError:  # registered by someone else meanwhile
                return int(conn.execute(query).scalar_one())

    def find(self, name: str | None = None, *, status: str | None = None, submitted: bool = False) -> list[BotRow]:
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

    def get(self, bot_id: int) -> BotRow | None:
        """One bot by id, or None."""
        with self.engine.connect() as conn:
            row = conn.execute(_BOT_ROWS.where(Bot.id == bot_id)).first()
        return _bot_row(row) if row is not None else None

    def names(self, ids: Iterable[int]) -> dict[int, str]:
        """id -> name."""
        wanted = list(set(ids))
        if not wanted:
            return {}
        with self.engine.connect() as conn:
            return {row.id: row.name for row in conn.execute(select(Bot.id, Bot.name).where(Bot.id.in_(wanted)))}

    def live_names(self, owner: str) -> set[str]:
        """The bot names an owner has live now (a submitted version or a remote bot)."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(Bot.name).where(Bot.owner == owner, Bot.status == "live",
                                                       Bot.kind.in_((PlayerKind.PROGRAM.value,
                                                                     PlayerKind.REMOTE.value))))
            return {row.name for row in rows}

    def report(self, bot_id: int) -> dict[str, Any] | None:
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
                                      "kind": identity.kind.value, "spec": identity.spec, "created_at": utcnow(),
                                      "status": status, "parent_id": parent}
            if games is not None:  # (None stays SQL NULL: "any game")
                values["games"] = list(games)
            if report is not None:  # a submitted version has a report once its pre-flight ran
                values["report"] = report
            result = conn.execute(insert(Bot).values(**values))
            return inserted_id(result), True

    def set_status(self, bot_id: int, status: str, report: dict[str, Any] | None = None) -> list[int]:
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

    def lineages(self) -> dict[int, tuple[int, ...]]:
        """bot id -> its earlier versions, nearest first (for bots that follow another version)."""
        with self.engine.connect() as conn:
            parents = {row.id: row.parent_id for row in conn.execute(select(Bot.id, Bot.parent_id)
                                                                     .where(Bot.parent_id.is_not(None)))}
        return {bot: _chain(bot, parents) for bot in parents}


def lineage(conn: Any, bots: list[int]) -> dict[int, tuple[int, ...]]:
    """bot -> its earlier versions, nearest first, for those of `bots` that follow another version (read in the
    caller's transaction)."""
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


def _bot_row(row: Any) -> BotRow:
    data = dict(row._mapping)
    games = data.pop("games")
    kind = PlayerKind(data.pop("kind"))  # (the column holds PlayerKind's values)
    return BotRow(**data, kind=kind, games=tuple(games) if games is not None else None)
