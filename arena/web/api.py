"""The JSON API under /api: leaderboards, bots, tournaments and ladders, matches and their records,
replays, and live matches. Read-only; lists are paginated (`page` from 1, `per_page` up to 200).
The OpenAPI schema is served at /openapi.json."""

from __future__ import annotations

import functools
import weakref
import zlib
from collections.abc import AsyncIterator, Iterator
from typing import Any, Literal

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, Field

from arena.games.registry import UnknownGameError, game_modes, load_game
from arena.referee.evidence import public_lines
from arena.ladder.status import ladder_status
from arena.ratings.bradley_terry import ConvergenceError
from arena.ratings.leaderboard import Leaderboards
from arena.ratings.reports import bot_ratings, iso, standings_json, thin
from arena.store import BotRow, PairingRow, Store, StoredMatch
from arena.store.hosting import Hosting
from arena.web.state import leaderboards_of, store_of, stored_match
from arena.tournament.standings import tournament_table
from arena.web.replay import ReplayError, record_lines, replay_ndjson

router = APIRouter()
PER_PAGE = Query(50, ge=1, le=200, description="Items per page (1 to 200).")
PAGE = Query(1, ge=1, le=1_000_000, description="Page number, from 1.")
HISTORY_POINTS = 400  # a rating-history chart needs no more points than this


class ErrorReply(BaseModel):
    """What a failed call answers."""

    detail: str


ERRORS: dict[int | str, dict[str, Any]] = {404: {"model": ErrorReply, "description": "Not found"}}


class Standing(BaseModel):
    rank: int
    bot: str
    version: str
    mu: float
    sigma: float
    conservative: float
    games: int
    wins: int
    draws: int
    losses: int
    win_rate: float
    win_rate_low: float
    win_rate_high: float
    last_played: str | None
    kind: str
    owner: str
    origin: str
    bt_elo: float | None = None
    bt_elo_low: float | None = None
    bt_elo_high: float | None = None


class RatingPoint(BaseModel):
    match: int
    at: str | None
    mu: float
    sigma: float
    game: int = Field(description="The match's number among the pool's rated matches, from 1 (a chart keeps only "
                                  "some of a long history: this says where each point stands).")


class RatingHistory(BaseModel):
    bot: str
    version: str
    points: list[RatingPoint]


class Leaderboard(BaseModel):
    pool: str
    matches: int
    total: int
    page: int
    per_page: int
    sort: str
    order: str
    standings: list[Standing]
    history: list[RatingHistory] = []


class Pool(BaseModel):
    pool: str
    matches: int
    bots: int


class Pools(BaseModel):
    pools: list[Pool]


class BotSummary(BaseModel):
    name: str
    versions: int
    live_version: str | None
    status: str
    owner: str
    kind: str
    origin: str


class BotList(BaseModel):
    total: int
    page: int
    per_page: int
    bots: list[BotSummary]


class Seat(BaseModel):
    seat: int
    bot: str
    version: str
    rank: int
    score: float | None


class MatchSummary(BaseModel):
    id: int
    uid: str
    game: str
    pool: str
    tournament_id: int
    round: int
    seats: list[Seat]
    reason: str
    offender: int | None
    detail: str
    steps: int
    rated: bool
    wall_ms: float | None
    finished_at: str | None


class MatchList(BaseModel):
    total: int
    page: int
    per_page: int
    matches: list[MatchSummary]


def check_page(total: int, page: int, per_page: int) -> None:
    """404 for a page past the last (the first page always exists, empty or not)."""
    pages = max(1, -(-total // per_page))
    if page > pages:
        raise HTTPException(404, f"page {page} is past the last: {total} item(s) make {pages} page(s) of {per_page}")


@router.get("/games", summary="The game modes Arena referees")
def games() -> dict[str, Any]:
    return {"games": [{"name": mode.name, "family": mode.family, "title": mode.title, "description": mode.description}
                      for mode in game_modes()]}


@router.get("/server", summary="This server: Arena's version, the protocol, where remote bots connect")
def server(request: Request) -> dict[str, Any]:
    from arena import __version__
    from arena.rpc.convert import PROTOCOL_VERSION
    from arena.rpc.sdk import remote_url

    settings = request.app.state.settings
    remote = ({"address": settings.remote_address, "tls": settings.remote_tls,
               "url": remote_url("NAME", "TOKEN", settings.remote_address, settings.remote_tls)}
              if settings.remote_address else None)
    return {"version": __version__, "protocol": f"arena.v{PROTOCOL_VERSION}", "remote_bots": remote}


@router.get("/leaderboards", response_model=Pools, summary="The rating pools (one per game mode)")
def pools(request: Request) -> dict[str, Any]:
    store = store_of(request)
    return {"pools": [{"pool": pool, "matches": store.ratings.match_count(pool),
                       "bots": len(store.ratings.of_pool(pool, live_only=True))} for pool in store.ratings.pools()]}


@router.get("/leaderboards/{pool:path}", response_model=Leaderboard,
            responses={**ERRORS, 422: {"model": ErrorReply, "description": "Bradley-Terry did not converge"}},
            summary="A pool's leaderboard, ranked by mu - 3 sigma")
def pool_leaderboard(request: Request, pool: str, sort: Literal["rank", "bot", "mu", "sigma", "score", "games",
                                                                "win_rate", "last_played"] = "rank",
                     order: Literal["asc", "desc"] | None = None, bt: bool = False, all_versions: bool = False,
                     page: int = PAGE, per_page: int = PER_PAGE,
                     history: int = Query(0, ge=0, le=10, description="The rating history of this many of the "
                                                                        "top-ranked bots (for a chart).")
                     ) -> dict[str, Any]:
    store = store_of(request)
    known = store.ratings.pools()
    if pool not in known:
        raise HTTPException(404, f"no rated matches in pool {pool!r} (pools: {', '.join(known) or 'none'})")
    leaderboards = leaderboards_of(request)
    rows = _pool_rows(store, leaderboards, pool, bt, live_only=not all_versions)
    descending = (order or ("asc" if sort in ("rank", "bot") else "desc")) == "desc"
    rows = _sorted_rows(rows, {"score": "conservative"}.get(sort, sort), descending)
    check_page(len(rows), page, per_page)
    start = (page - 1) * per_page
    histories = _rating_histories(store, leaderboards, pool, history, live_only=not all_versions)
    return {"pool": pool, "matches": store.ratings.match_count(pool), "total": len(rows), "page": page,
            "per_page": per_page, "sort": sort, "order": "desc" if descending else "asc",
            "standings": rows[start:start + per_page], "history": histories}


def _pool_rows(store: Store, leaderboards: Leaderboards, pool: str, bt: bool, live_only: bool
               ) -> list[dict[str, Any]]:
    """The pool's leaderboard rows, ranked (with Bradley-Terry Elo when `bt`), or a 422 where that fit fails."""
    try:
        return (standings_json(store, pool, live_only=live_only, bradley_terry=True) if bt
                else leaderboards.rows(pool, live_only=live_only))
    except ConvergenceError as error:
        raise HTTPException(422, f"{pool}: {error}; ask without bt") from None


def _sorted_rows(rows: list[dict[str, Any]], key: str, descending: bool) -> list[dict[str, Any]]:
    """The rows by `key`, those without one last either way (a new list; the ranked rows as they are)."""
    if key == "rank" and not descending:  # (ranked already)
        return rows
    present = sorted((row for row in rows if row[key] is not None), key=lambda row: row[key], reverse=descending)
    return present + [row for row in rows if row[key] is None]  # (never played: last either way)


def _rating_histories(store: Store, leaderboards: Leaderboards, pool: str, count: int, live_only: bool
                      ) -> list[dict[str, Any]]:
    """The rating history of the pool's `count` top-ranked bots, thinned for a chart (the first and last point of
    each kept), each point numbered by its match's place among the pool's rated matches (`game`)."""
    kept = [(standing, thin(store.ratings.history(standing.bot_id, pool), HISTORY_POINTS // 2))
            for standing in (leaderboards.standings(pool, live_only)[:count] if count else [])]
    games = store.ratings.game_numbers(pool, (point.match_id for _standing, points in kept for point in points))
    return [{"bot": standing.bot, "version": standing.version,
             "points": [{"match": point.match_id, "at": iso(point.played_at), "mu": round(point.mu, 4),
                         "sigma": round(point.sigma, 4), "game": games[point.match_id]} for point in points]}
            for standing, points in kept]


@router.get("/bots", response_model=BotList, summary="Every bot, by name")
def bots(request: Request, q: str | None = Query(None, max_length=200, description="Names containing this."),
         page: int = PAGE, per_page: int = PER_PAGE) -> dict[str, Any]:
    store = store_of(request)
    by_name: dict[str, list[BotRow]] = {}
    for bot in store.bots.find():
        if q is None or q.lower() in bot.name.lower():
            by_name.setdefault(bot.name, []).append(bot)
    names = sorted(by_name)
    check_page(len(names), page, per_page)
    start = (page - 1) * per_page
    rows = []
    for name in names[start:start + per_page]:
        versions = by_name[name]
        live = [bot for bot in versions if bot.status == "live"]
        newest = live[-1] if live else versions[-1]
        rows.append({"name": name, "versions": len(versions), "live_version": live[-1].version if live else None,
                     "status": newest.status, "owner": newest.owner, "kind": newest.kind.value,
                     "origin": newest.origin.value})
    return {"total": len(names), "page": page, "per_page": per_page, "bots": rows}


@router.get("/bots/{name}", responses=ERRORS, summary="A bot: versions, ratings, history, head-to-head, faults")
def bot(request: Request, name: str) -> dict[str, Any]:
    store = store_of(request)
    versions = store.bots.find(name)
    if not versions:
        raise HTTPException(404, f"no bot named {name!r}")
    out_versions = []
    for version in versions:
        ratings = bot_ratings(store, version, leaderboards=leaderboards_of(request), history_points=HISTORY_POINTS)
        out_versions.append({
            "id": version.id, "version": version.version, "artifact_hash": version.artifact_hash,
            "status": version.status, "owner": version.owner, "kind": version.kind.value,
            "origin": version.origin.value,
            "games_declared": list(version.games) if version.games is not None else None,
            "submitted_at": iso(version.created_at), "retired_at": iso(version.retired_at),
            "follows": version.parent_id, "preflight": _public_report(store.bots.report(version.id)),
            "faults": store.matches.fault_counts(version.id), "ratings": ratings})
    _total, recent = store.matches.page(bot_id=versions[-1].id, limit=20) if versions else (0, [])
    owner = next((v.owner for v in reversed(versions) if v.owner), "")
    document: dict[str, Any] = {"name": name, "owner": owner, "versions": out_versions,
                                "recent_matches": [_match_summary(row) for row in recent]}
    remote = Hosting(store).remote_bot(name)
    if remote is not None:  # run on its owner's computer: connected to the ladder or not
        document["remote"] = {"online": remote.online > 0, "streams": remote.online,
                              "last_seen": iso(remote.last_seen)}
    return document


def _public_report(report: dict[str, Any] | None) -> dict[str, Any] | None:
    """A pre-flight report without the bot's own output (its owner sees that on their page)."""
    if report is None:
        return None
    return {key: value for key, value in report.items() if key != "output_tail"}


@router.get("/bots/{name}/compare", responses=ERRORS,
            summary="Version B against version A, per mode, on the opponents both met (arena bot compare)")
def bot_compare(request: Request, name: str, a: str = Query(..., max_length=64), b: str = Query(..., max_length=64)
                ) -> dict[str, Any]:
    from arena.ratings.compare import CompareError, compare_versions, comparison_json, find_versions

    store = store_of(request)
    try:
        first, second = find_versions(store, name, a, b)
    except CompareError as error:
        raise HTTPException(404, str(error)) from None
    return comparison_json(name, first, second, compare_versions(store, first, second))


@router.get("/bots/{name}/matches", response_model=MatchList, responses=ERRORS, summary="A bot's matches")
def bot_matches(request: Request, name: str, version: str | None = Query(None, max_length=64),
                page: int = PAGE, per_page: int = PER_PAGE) -> dict[str, Any]:
    store = store_of(request)
    versions = [b for b in store.bots.find(name) if version is None or b.version == version]
    if not versions:
        raise HTTPException(404, f"no bot named {name!r}" + (f" with version {version!r}" if version else ""))
    total, rows = store.matches.page(bot_id=versions[-1].id, offset=(page - 1) * per_page, limit=per_page)
    check_page(total, page, per_page)
    return {"total": total, "page": page, "per_page": per_page, "matches": [_match_summary(r) for r in rows]}


@router.get("/tournaments", summary="Tournaments, ladders and SPRTs, newest first")
def tournaments(request: Request, format: str | None = Query(None, max_length=32), page: int = PAGE,
                per_page: int = PER_PAGE) -> dict[str, Any]:
    rows = store_of(request).tournaments.find(format=format)
    check_page(len(rows), page, per_page)
    start = (page - 1) * per_page
    return {"total": len(rows), "page": page, "per_page": per_page,
            "tournaments": [_tournament_json(t) for t in rows[start:start + per_page]]}


@router.get("/tournaments/{tournament:path}", responses=ERRORS, summary="A tournament: standings, progress, rounds")
def tournament(request: Request, tournament: str, page: int = PAGE,
               per_page: int = Query(20, ge=1, le=200, description="Rounds per page (newest first).")
               ) -> dict[str, Any]:
    store = store_of(request)
    found = store.tournaments.get(tournament) if tournament.strip() else None
    if found is None:
        raise HTTPException(404, f"no tournament {tournament!r}")
    names = store.bots.names(store.tournaments.entries(found.id))
    lines = tournament_table(store, found.id)
    pairings = store.tournaments.pairings(found.id)
    matches = store.matches.of_tournament(found.id)
    all_names = {**names, **store.bots.names({bot for m in matches for bot in m.bots})}
    rounds = _tournament_rounds(pairings, matches, all_names)
    numbers = sorted(rounds, reverse=True)
    check_page(len(numbers), page, per_page)
    start = (page - 1) * per_page
    from arena.tournament.formats import get_format

    expected = get_format(found.format).expected_matches(len(names), max((len(p.bots) for p in pairings), default=2),
                                                         found.rounds)
    return {"tournament": {**_tournament_json(found), "matches": len(matches)},
            "standings": [line.to_json(all_names) for line in lines],
            "progress": {"stored": len(matches), "expected": expected, "rounds_planned": len(rounds)},
            "rounds_total": len(numbers), "page": page, "per_page": per_page,
            "rounds": [{"round": number, "pairings": rounds[number]} for number in numbers[start:start + per_page]]}


def _tournament_rounds(pairings: list[PairingRow], matches: list[StoredMatch], names: dict[int, str]
                       ) -> dict[int, list[dict[str, Any]]]:
    """A tournament's pairings by round, each with its matches, its bots by name."""
    by_key: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for match in matches:
        by_key.setdefault((match.round, match.pairing), []).append(
            {"id": match.id, "rotation": match.rotation, "ranking": list(match.ranking), "reason": match.reason,
             "offender": match.offender, "bots": [names.get(b, str(b)) for b in match.bots]})
    rounds: dict[int, list[dict[str, Any]]] = {}
    for pairing in pairings:
        rounds.setdefault(pairing.round, []).append(
            {"index": pairing.index, "bots": [names.get(b, str(b)) for b in pairing.bots], "label": pairing.label,
             "bye": pairing.is_bye, "matches": by_key.get((pairing.round, pairing.index), [])})
    return rounds


@router.get("/ladders", summary="Every ladder's schedule, rounds, pending matches and recent faults")
def ladders(request: Request) -> dict[str, Any]:
    return {"ladders": [ladder.to_json() for ladder in ladder_status(store_of(request))]}


@router.get("/matches", response_model=MatchList, responses=ERRORS, summary="Stored matches, newest first")
def matches(request: Request, pool: str | None = Query(None, max_length=300),
            bot: str | None = Query(None, max_length=200),
            tournament: int | None = Query(None, ge=0, le=2**62), page: int = PAGE,
            per_page: int = PER_PAGE) -> dict[str, Any]:
    store = store_of(request)
    bot_id = None
    if bot is not None:
        versions = store.bots.find(bot)
        if not versions:
            raise HTTPException(404, f"no bot named {bot!r}")
        bot_id = versions[-1].id
    total, rows = store.matches.page(pool=pool, bot_id=bot_id, tournament_id=tournament,
                                     offset=(page - 1) * per_page, limit=per_page)
    check_page(total, page, per_page)
    return {"total": total, "page": page, "per_page": per_page, "matches": [_match_summary(r) for r in rows]}


@router.get("/matches/{match}", responses=ERRORS, summary="A stored match (by id, or uid prefix)")
def match(request: Request, match: str) -> dict[str, Any]:
    found = stored_match(request, match)
    summary = _match_summary(found)
    summary.update(options=found.options, seed=found.seed, timings=found.timings, decisions=found.decisions,
                   started_at=iso(found.started_at), rotation=found.rotation, pairing=found.pairing,
                   analysed=store_of(request).analyses.exists(found.id))
    return summary


@router.get("/matches/{match}/analysis", responses=ERRORS,
            summary="A match's analysis (arena analyse): each decision's chances before and after, the chance "
                    "curve of both seats, the turning points")
def match_analysis(request: Request, match: str) -> dict[str, Any]:
    from arena.analysis import Analysis

    store = store_of(request)
    found = stored_match(request, match)
    data = store.analyses.get(found.id)
    if data is None:
        raise HTTPException(404, f"match {found.id} has no analysis yet: `arena analyse {found.id}` makes one "
                                 "(or a tournament or ladder run with --analyse BUDGET)")
    return Analysis.from_compressed(data).to_json()


@router.get("/matches/{match}/record", responses={**ERRORS, 200: {"content": {"application/x-ndjson": {}}}},
            summary="A match's record as JSON lines (what `arena replay` reads)")
def match_record(request: Request, match: str) -> StreamingResponse:
    store = store_of(request)
    found = stored_match(request, match)
    return StreamingResponse(public_lines(_inflate(store.matches.record(found))), media_type="application/x-ndjson",
                             headers={"Content-Disposition": f'attachment; filename="{found.uid}.jsonl"'})


@router.get("/matches/{match}/replay",
            responses={**ERRORS, 200: {"content": {"application/x-ndjson": {}},
                                       "description": "JSON lines: {header, board, start}, then one line per "
                                                      "step {n, seat, label, think_ms, position}, then "
                                                      "{result, error}"},
                       422: {"model": ErrorReply, "description": "The record cannot be replayed"}},
            summary="A match replayed through the engine: the board after every step, streamed")
def match_replay(request: Request, match: str) -> StreamingResponse:
    store = store_of(request)
    found = stored_match(request, match)
    pieces = replay_ndjson(record_lines(store.matches.record(found)), reveal=True)
    try:
        first = next(pieces)
    except ReplayError as error:
        raise HTTPException(422, f"the record cannot be replayed: {error}") from None

    def document() -> Iterator[str]:
        yield first
        yield from pieces

    return StreamingResponse(document(), media_type="application/x-ndjson")


@router.get("/live", responses={502: {"model": ErrorReply, "description": "The referee does not answer"}},
            summary="Matches the referee (arena web --server) is playing now")
async def live(request: Request) -> dict[str, Any]:
    from arena.web.live import running_matches

    return await running_matches(request.app.state.settings)


@router.get("/live/{match_id}/events", responses={**ERRORS, 200: {"content": {"text/event-stream": {}}}},
            summary="A running match's public view as server-sent events (header, step, finished)")
async def live_events(request: Request, match_id: str) -> StreamingResponse:
    from arena.web.live import event_stream

    # a place in the web's streams (an older one of this client's, or of the fullest network, ended for it)
    ticket = request.app.state.streams.admit(request.client.host if request.client else "unknown")

    async def stream() -> AsyncIterator[str]:
        try:
            async for text in event_stream(request, match_id, ticket.ended):
                yield text
        finally:
            ticket.release()

    events = stream()
    weakref.finalize(events, ticket.release)  # (a stream never started is never finished either)
    return StreamingResponse(events, media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


def _match_summary(match: StoredMatch) -> dict[str, Any]:
    names = _seat_names(match.game)
    return {"id": match.id, "uid": match.uid, "game": match.game, "pool": match.pool,
            "tournament_id": match.tournament_id, "round": match.round,
            "seats": [{"seat": s.seat, "seat_name": names[s.seat] if s.seat < len(names) else str(s.seat),
                       "bot": s.bot, "version": s.version, "rank": s.rank, "score": s.score,
                       "luck": None if s.luck is None else round(s.luck, 4)} for s in match.seats],
            "reason": match.reason, "offender": match.offender, "detail": match.detail, "steps": match.steps,
            "rated": match.rated, "wall_ms": match.timings.get("wall_ms"), "finished_at": iso(match.finished_at)}


@functools.lru_cache(maxsize=256)
def _seat_names(game: str) -> tuple[str, ...]:
    try:
        return tuple(load_game(game).info.seat_names)
    except (UnknownGameError, ValueError):
        return ()


def _tournament_json(t: Any) -> dict[str, Any]:
    return {"id": t.id, "name": t.name, "label": t.label, "game": t.game, "pool": t.pool, "format": t.format,
            "rounds": t.rounds, "status": t.status, "matches": t.matches, "created_at": iso(t.created_at),
            "finished_at": iso(t.finished_at)}


def _inflate(data: bytes) -> Iterator[bytes]:
    """A gzip record's bytes, decompressed a piece at a time."""
    if data[:2] != b"\x1f\x8b":
        yield data
        return
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    for start in range(0, len(data), 1 << 16):
        yield inflater.decompress(data[start:start + (1 << 16)])
    yield inflater.flush()
