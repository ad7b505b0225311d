"""`arena ladder status`: each ladder's schedule, last and next round, pending matches and recent faults,
as typed values (`LadderStatus`); `to_json()` gives the form `--json` and the web API print."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any, Sequence

from arena.ladder.state import LadderState, LastRound
from arena.referee.players import PlayerKind
from arena.store import Store
from arena.store.hosting import Hosting
from arena.store.models import utcnow
from arena.store.rows import BotRow, RatingRow, RemoteBotRow, TournamentRow

ALIVE_S = 90.0  # a service that wrote its heartbeat this recently (or is in a round) counts as running


@dataclass(frozen=True)
class ServiceState:
    """The ladder service as it last wrote itself down."""

    running: bool
    heartbeat: str | None  # naive UTC, ISO
    pid: int | None
    stopped_at: str | None
    waiting: str | None = None  # while running: what its round waits for (no worker serves its queue)


@dataclass(frozen=True)
class RecentFault:
    """A match a bot lost by its own fault."""

    match: str
    reason: str
    detail: str
    at: str


@dataclass(frozen=True)
class InfrastructureFault:
    """A match the infrastructure failed (played again)."""

    round: int
    pairing: int
    rotation: int
    bots: list[str]
    detail: str
    at: str


@dataclass(frozen=True)
class LadderBot:
    """A bot of the ladder's field."""

    bot: str
    version: str
    kind: PlayerKind
    games: int
    mu: float | None
    sigma: float | None
    pending: int
    recent_faults: list[RecentFault]
    online: bool | None = None  # a remote bot: connected at the ladder's last look (None: not a remote bot)
    last_seen: str | None = None  # a remote bot: when the ladder last saw it connected (naive UTC, ISO)


@dataclass(frozen=True)
class LadderStatus:
    """One ladder."""

    pool: str
    ladder: int
    name: str | None
    game: str
    schedule: str | None
    settings: dict[str, Any]
    service: ServiceState
    last_round: LastRound | None
    next_round_at: str | None
    matches: int
    pending: int
    pending_with_retired_bots: int
    bots: list[LadderBot]
    recent_infrastructure_faults: list[InfrastructureFault]

    def to_json(self) -> dict[str, Any]:
        return asdict(self, dict_factory=_json_fields)


def ladder_status(store: Store, pools: list[str] | None = None, recent: int = 20) -> list[LadderStatus]:
    """The status of every stored ladder (or those of `pools`)."""
    ladders = [t for t in store.tournaments.find(format="ladder") if pools is None or t.pool in pools]
    bots = {bot.id: bot for bot in store.bots.find()}
    return [_one(store, ladder, bots, recent) for ladder in sorted(ladders, key=lambda t: t.pool)]


def _one(store: Store, ladder: TournamentRow, bots: dict[int, BotRow], recent: int) -> LadderStatus:
    state = LadderState.from_json(ladder.settings.get("service", {}))
    entries = store.tournaments.entries(ladder.id)
    pending, waiting, voided = _pending(store, ladder, bots)
    faults: dict[int | None, list[RecentFault]] = {}
    for fault in store.matches.faults(tournament_id=ladder.id, limit=recent):
        faults.setdefault(fault.offending_bot, []).append(RecentFault(fault.uid, fault.reason, fault.detail[:300],
                                                               _iso(fault.finished_at)))
    infra = [InfrastructureFault(f.round, f.pairing, f.rotation, [bots[b].name for b in f.bots if b in bots],
                                 f.detail[:300], _iso(f.at))
             for f in store.tournaments.infra_faults(ladder.id, limit=recent)]
    ratings = {row.bot_id: row for row in store.ratings.of_pool(ladder.pool)}
    remotes = {row.bot_id: row for row in Hosting(store).remote_bots()}
    settings = dict(state.settings or {})
    return LadderStatus(
        pool=ladder.pool, ladder=ladder.id, name=ladder.name, game=ladder.game, schedule=settings.get("schedule"),
        settings=settings, service=_service(state),
        last_round=state.last_round, next_round_at=state.next_round_at,
        matches=ladder.matches, pending=waiting, pending_with_retired_bots=voided,
        bots=[_ladder_bot(bots[bot], ratings.get(bot), pending.get(bot, 0), faults.get(bot, []), remotes.get(bot))
              for bot in _field(state.last_field(entries), bots, remotes)],
        recent_infrastructure_faults=infra)


def _pending(store: Store, ladder: TournamentRow, bots: dict[int, BotRow]) -> tuple[dict[int, int], int, int]:
    """The matches planned and not stored: (per live bot, those of live bots in all, those with a retired bot)."""
    finished = store.tournaments.open_finished_keys(ladder.id)  # (a settled pairing has nothing waiting)
    pairings = store.tournaments.open_pairings(ladder.id)
    seats = max((len(row.bots) for row in pairings), default=2)
    pending: dict[int, int] = {}
    waiting = voided = 0
    for row in pairings:
        if row.is_bye:
            continue
        open_rotations = sum(1 for rotation in range(seats) if (row.round, row.index, rotation) not in finished)
        if not open_rotations:
            continue
        if all(bots[bot].status == "live" for bot in row.bots):
            waiting += open_rotations
            for bot in row.bots:
                pending[bot] = pending.get(bot, 0) + open_rotations
        else:
            voided += open_rotations
    return pending, waiting, voided


def _field(last_field: Sequence[int], bots: dict[int, BotRow], remotes: dict[int, RemoteBotRow]) -> list[int]:
    """The live bots of the last round's field, then the live remote bots not in it (a remote bot offline at
    the last round was not in its field: it is listed all the same, as offline)."""
    field = [bot for bot in last_field if bot in bots and bots[bot].status == "live"]
    return field + [bot for bot in sorted(remotes) if bot not in field and bot in bots and bots[bot].status == "live"]


def _service(state: LadderState) -> ServiceState:
    """The service as it wrote itself down: running if its heartbeat is recent and it did not stop."""
    heartbeat = state.heartbeat
    alive = bool(heartbeat is not None and not state.stopped_at
                 and (utcnow() - datetime.fromisoformat(heartbeat)).total_seconds() < ALIVE_S)
    return ServiceState(alive, heartbeat, state.pid, state.stopped_at, state.waiting if alive else None)


def _ladder_bot(bot: BotRow, rating: RatingRow | None, pending: int, faults: list[RecentFault],
                remote: RemoteBotRow | None) -> LadderBot:
    return LadderBot(bot.name, bot.version, bot.kind, rating.games if rating is not None else 0,
                     round(rating.mu, 3) if rating is not None else None,
                     round(rating.sigma, 3) if rating is not None else None, pending, faults,
                     bool(remote.online) if remote is not None else None, _seen(remote))


def _json_fields(fields: list[tuple[str, Any]]) -> dict[str, Any]:
    """A dataclass's fields as JSON values: a bot's kind as its spelling."""
    return {name: value.value if isinstance(value, PlayerKind) else value for name, value in fields}


def _seen(remote: RemoteBotRow | None) -> str | None:
    return _iso(remote.last_seen) if remote is not None and remote.last_seen is not None else None


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds")
