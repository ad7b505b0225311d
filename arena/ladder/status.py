"""`arena ladder status`: each ladder's schedule, last and next round, pending matches and recent faults."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from arena.store import Store
from arena.store.models import utcnow
from arena.store.rows import TournamentRow

ALIVE_S = 90.0  # a service that wrote its heartbeat this recently (or is in a round) counts as running


def ladder_status(store: Store, pools: list[str] | None = None, recent: int = 20) -> list[dict[str, Any]]:
    """The status of every stored ladder (or those of `pools`), as JSON-ready data."""
    ladders = [t for t in store.tournaments(format="ladder") if pools is None or t.pool in pools]
    return [_one(store, ladder, recent) for ladder in sorted(ladders, key=lambda t: t.pool)]


def _one(store: Store, ladder: TournamentRow, recent: int) -> dict[str, Any]:
    state = dict(ladder.settings.get("service", {}))
    bots = {bot.id: bot for bot in store.bots()}
    entries = store.entries(ladder.id)
    finished = store.finished_keys(ladder.id)
    seats = max((len(row.bots) for row in store.pairings(ladder.id)), default=2)
    pending: dict[int, int] = {}
    waiting = voided = 0
    for row in store.pairings(ladder.id):
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
    faults: dict[int, list[dict[str, Any]]] = {}
    for fault in store.bot_faults(tournament_id=ladder.id, limit=recent):
        faults.setdefault(fault.bot_id, []).append({"match": fault.uid, "reason": fault.reason,
                                                    "detail": fault.detail[:300], "at": _iso(fault.finished_at)})
    infra = [{"round": f.round, "pairing": f.pairing, "rotation": f.rotation,
              "bots": [bots[b].name for b in f.bots if b in bots], "detail": f.detail[:300], "at": _iso(f.at)}
             for f in store.infra_faults(ladder.id, limit=recent)]
    ratings = {row.bot_id: row for row in store.ratings(ladder.pool)}
    field = [bot for bot in state.get("field", entries) if bot in bots and bots[bot].status == "live"]
    heartbeat = state.get("heartbeat")
    alive = (heartbeat is not None and not state.get("stopped_at")
             and (utcnow() - datetime.fromisoformat(heartbeat)).total_seconds() < ALIVE_S)
    return {
        "pool": ladder.pool, "ladder": ladder.id, "name": ladder.name, "game": ladder.game,
        "schedule": state.get("settings", {}).get("schedule"), "settings": state.get("settings", {}),
        "service": {"running": alive, "heartbeat": heartbeat, "pid": state.get("pid"),
                    "stopped_at": state.get("stopped_at")},
        "last_round": state.get("last_round"), "next_round_at": state.get("next_round_at"),
        "matches": ladder.matches, "pending": waiting, "pending_with_retired_bots": voided,
        "bots": [{"bot": bots[bot].name, "version": bots[bot].version, "kind": bots[bot].kind,
                  "games": ratings[bot].games if bot in ratings else 0,
                  "mu": round(ratings[bot].mu, 3) if bot in ratings else None,
                  "sigma": round(ratings[bot].sigma, 3) if bot in ratings else None,
                  "pending": pending.get(bot, 0), "recent_faults": faults.get(bot, [])} for bot in field],
        "recent_infrastructure_faults": infra,
    }


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds")
