"""The owners' API under /api/owner: who is asking (a Bearer token, or a browser session with its CSRF
token), sessions, the token itself, their bots with versions and fault evidence, retirement, remote
bots, and open sign-up. Uploads are in arena.web.uploads.

- A tool sends the owner's token on every call: `Authorization: Bearer TOKEN`.
- A browser signs in once with the token (POST /api/owner/session): the session cookie is HttpOnly,
  SameSite=Strict (and Secure over HTTPS); every call that changes something must also carry the
  session's CSRF token in `X-CSRF-Token`, and come from this site (Origin, when the browser sends one).
- An owner sees their own bots' fault evidence (the last output lines, the limit reached); nobody
  else does, and the public API never shows it.
"""

from __future__ import annotations

import hmac
import math
import secrets
import time
from collections import defaultdict, deque
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from fastapi import APIRouter, HTTPException, Request, Response
from pydantic import BaseModel, Field

from arena.admission import ClientKey
from arena.referee.evidence import record_header, seat_evidence, seat_notes, shown
from arena.referee.record import MatchRecord, RecordError
from arena.rpc.manifest import BOT_NAME
from arena.rpc.pool import new_token
from arena.rpc.sdk import remote_url
from arena.store import Store, StoredMatch
from arena.web.state import hosting_of, store_of, stored_match
from arena.store.models import utcnow
from arena.submissions.checks import RESERVED_NAMES
from arena.submissions.submit import NameTaken, SubmissionError, find_version, hash_token, register_remote

router = APIRouter()
SESSION_COOKIE = "arena_session"
SESSION_DAYS = 14


@dataclass(frozen=True)
class Caller:
    """An authenticated owner, and how they came."""

    owner: str
    session_hash: str | None = None  # set for a browser session
    csrf: str | None = None


class TokenIn(BaseModel):
    token: str = Field(..., min_length=1, max_length=200)


class NameIn(BaseModel):
    name: str = Field(..., min_length=1, max_length=64)


class RetireIn(BaseModel):
    version: str | None = Field(None, max_length=80, description="A version label or hash prefix (default: live)")


def owner_of_token(request: Request, token: str) -> str | None:
    """The owner whose token this is, or None. A wrong token is a strike against the client's address
    (arena.admission.Strikes, as the referee counts guesses of its tokens: 8 free, then a pause from 1 s
    doubling to 5 minutes); while the address is shut out no token is looked up (429), the right one neither.
    Only the guessing address waits, never its network, and never for good: a guesser cannot shut out an
    owner or the operator at another address."""
    address = ClientKey.as_given(ClientKey.of(request.client.host if request.client else "unknown").address)
    strikes = request.app.state.token_strikes
    if strikes.shut_for(address) <= 0:
        owner = store_of(request).owners.by_token_hash(hash_token(token))
        if owner is not None:
            return owner
        if strikes.failed(address) <= 0:
            return None
    wait = math.ceil(strikes.shut_for(address))
    raise HTTPException(429, f"too many wrong tokens from your address: try again in {wait} s",
                        headers={"Retry-After": str(wait)})


def caller(request: Request) -> Caller:
    """The owner making this request; 401 without a valid token or session, 403 without the CSRF token."""
    header = request.headers.get("authorization", "")
    if header[:7].lower() == "bearer ":
        owner = owner_of_token(request, header[7:].strip())
        if owner is None:
            raise HTTPException(401, "wrong owner token (an operator can issue a new one: `arena owner token NAME`)",
                                headers={"WWW-Authenticate": "Bearer"})
        return Caller(owner)
    cookie = request.cookies.get(SESSION_COOKIE)
    found = hosting_of(request).session(hash_token(cookie)) if cookie else None
    if found is None:
        raise HTTPException(401, "sign in first, or send your owner token as 'Authorization: Bearer TOKEN'",
                            headers={"WWW-Authenticate": "Bearer"})
    owner, csrf = found
    if request.method not in ("GET", "HEAD", "OPTIONS"):
        origin = request.headers.get("origin")
        if origin is not None and origin.rstrip("/") != str(request.base_url).rstrip("/"):
            raise HTTPException(403, f"a request from another site ({origin}) was refused")
        if not hmac.compare_digest(request.headers.get("x-csrf-token", ""), csrf):
            raise HTTPException(403, "missing or wrong CSRF token: reload the page and try again")
    return Caller(owner, hash_token(cookie or ""), csrf)


def _set_session(request: Request, response: Response, owner: str) -> str:
    """Start a browser session for `owner`; its CSRF token."""
    cookie, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(24)
    hosting_of(request).add_session(hash_token(cookie), owner, csrf, utcnow() + timedelta(days=SESSION_DAYS))
    response.set_cookie(SESSION_COOKIE, cookie, max_age=SESSION_DAYS * 86400, httponly=True, samesite="strict",
                        secure=request.url.scheme == "https", path="/")
    return csrf


@router.post("/owner/session", summary="Sign in with an owner token (a browser session)")
def sign_in(request: Request, response: Response, body: TokenIn) -> dict[str, Any]:
    address = request.client.host if request.client else "unknown"
    if not request.app.state.sign_ins.allow(address):
        raise HTTPException(429, "too many sign-in attempts from this address; try again in a minute",
                            headers={"Retry-After": "60"})
    owner = owner_of_token(request, body.token.strip())
    if owner is None:
        raise HTTPException(401, "wrong owner token")
    return {"owner": owner, "csrf": _set_session(request, response, owner)}


@router.get("/owner/session", summary="Who is signed in (and the CSRF token the pages send back)")
def session(request: Request) -> dict[str, Any]:
    who = caller(request)
    return {"owner": who.owner, "csrf": who.csrf}


@router.delete("/owner/session", summary="Sign out")
def sign_out(request: Request, response: Response) -> dict[str, Any]:
    who = caller(request)
    if who.session_hash is not None:
        hosting_of(request).end_session(who.session_hash)
    response.delete_cookie(SESSION_COOKIE, path="/")
    return {"signed_out": who.owner}


@router.get("/owner", summary="The owner: limits and what they use of them")
def account(request: Request) -> dict[str, Any]:
    who = caller(request)
    limits = request.app.state.settings.owner_limits
    uploads = hosting_of(request).uploads_since(who.owner, utcnow() - timedelta(hours=1))
    live = sorted(store_of(request).bots.live_names(who.owner))
    return {"owner": who.owner, "limits": limits.to_json(),
            "usage": {"uploads_last_hour": uploads, "live_bots": len(live)}, "live_bots": live}


@router.post("/owner/token", summary="A new owner token (shown once; the old one stops working, sessions end)")
def rotate_token(request: Request, response: Response) -> dict[str, Any]:
    who = caller(request)
    token = new_token()
    store_of(request).owners.set_token(who.owner, hash_token(token))
    hosting_of(request).end_sessions(who.owner)
    response.delete_cookie(SESSION_COOKIE, path="/")
    return {"owner": who.owner, "token": token,
            "note": "shown once: keep it (arena login --server URL stores it for the command line)"}


@router.get("/owner/bots", summary="The owner's bots: versions with status and pre-flight, remote bots")
def my_bots(request: Request) -> dict[str, Any]:
    who = caller(request)
    store = store_of(request)
    names: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for bot in store.bots.find():
        if bot.owner == who.owner and bot.kind.is_program:
            names[bot.name].append({"id": bot.id, "version": bot.version, "artifact_hash": bot.artifact_hash,
                                    "status": bot.status, "kind": bot.kind.value, "submitted_at": _iso(bot.created_at),
                                    "retired_at": _iso(bot.retired_at), "preflight": store.bots.report(bot.id),
                                    "faults": store.matches.fault_counts(bot.id)})
    remotes = {row.name: row for row in hosting_of(request).remote_bots(who.owner)}
    bots = []
    for name in sorted(names):
        entry: dict[str, Any] = {"name": name, "versions": names[name]}
        if name in remotes:
            remote = remotes[name]
            entry["remote"] = {"online": remote.online > 0, "streams": remote.online,
                               "last_seen": _iso(remote.last_seen)}
        bots.append(entry)
    return {"owner": who.owner, "bots": bots}


@router.get("/owner/bots/{name}/faults", summary="The owner's bot's recent faults, with their evidence")
def my_faults(request: Request, name: str) -> dict[str, Any]:
    who = caller(request)
    store = store_of(request)
    versions = {bot.id: bot for bot in store.bots.find(name) if bot.owner == who.owner}
    if not versions:
        raise HTTPException(404, f"you have no bot named {name!r}")
    faults = []
    for fault in store.matches.faults(limit=2000):
        bot_id = fault.offending_bot
        if bot_id not in versions:
            continue
        evidence = _evidence(store, fault, bot_id)
        faults.append({"match": fault.id, "uid": fault.uid, "pool": fault.pool,
                       "version": versions[bot_id].version, "reason": fault.reason,
                       "detail": shown(fault.detail), "finished_at": _iso(fault.finished_at), **evidence})
        if len(faults) >= 50:
            break
    return {"name": name, "faults": faults}


def _evidence(store: Store, match: StoredMatch, bot_id: int) -> dict[str, Any]:
    """What the record kept of the bot's side of a fault: its last output lines, its usage."""
    header = record_header(store.matches.record(match))
    if header is None:
        return {}
    for seat in (seat.seat for seat in match.seats if seat.bot_id == bot_id):
        evidence = seat_evidence(header.get("extra"), seat)
        if evidence is not None:
            return evidence
    return {}


@router.get("/owner/matches/{match}/evidence", summary="What a match's record kept of the caller's bots' faults")
def match_evidence(request: Request, match: str) -> dict[str, Any]:
    """The seats of the caller's bots (an operator: every seat) with the evidence their record kept: the
    last output lines and the usage of a bot that lost by its own fault."""
    who = caller(request)
    store = store_of(request)
    found = stored_match(request, match)
    header = record_header(store.matches.record(found))
    if header is None:
        raise HTTPException(404, f"no match {match!r}")
    operator, seats = _callers_seats(request, who, found)
    for seat in seats:
        seat["evidence"] = seat_evidence(header.get("extra"), seat["seat"])
    return {"match": found.id, "operator": operator, "seats": seats}


def _callers_seats(request: Request, who: Caller, match: StoredMatch) -> tuple[bool, list[dict[str, Any]]]:
    """(the caller is an operator, the match's seats the caller may see the private side of: its own bots',
    an operator's every one), each as {seat, bot, version}."""
    store = store_of(request)
    operator = who.owner in store.owners.operators()
    seats = []
    for seat in match.seats:
        bot = store.bots.get(seat.bot_id)
        if operator or (bot is not None and bot.owner == who.owner):
            seats.append({"seat": seat.seat, "bot": seat.bot, "version": seat.version})
    return operator, seats


@router.get("/owner/matches/{match}/notes", summary="The notes the caller's bots left with their decisions")
def match_notes(request: Request, match: str) -> dict[str, Any]:
    """Each of the caller's bots' seats (an operator: every seat) with the notes its decisions carried
    (DecisionRequest.note, the protocol's Decision.note): {n (the record's index of the step), step and decision
    (its numbers, from 1, as the match page shows them), seat, note, output}. The
    public record and replay never hold them, nor does anyone else's view."""
    who = caller(request)
    store = store_of(request)
    found = stored_match(request, match)
    operator, seats = _callers_seats(request, who, found)
    notes: list[dict[str, Any]] = []
    if seats:
        try:
            record = MatchRecord.from_bytes(store.matches.record(found), f"match {found.id}")
        except RecordError as error:
            raise HTTPException(422, str(error)) from None
        notes = seat_notes(record.steps, [seat["seat"] for seat in seats])
    return {"match": found.id, "operator": operator, "seats": seats, "notes": notes}


@router.post("/owner/bots/{name}/retire", summary="Retire a version (default: the live one)")
def retire_version(request: Request, name: str, body: RetireIn | None = None) -> dict[str, Any]:
    who = caller(request)
    store = store_of(request)
    if not any(bot.owner == who.owner for bot in store.bots.find(name)):
        raise HTTPException(404, f"you have no bot named {name!r}")
    try:
        bot = find_version(store, f"{name}@{body.version}" if body and body.version else name)
    except SubmissionError as error:
        raise HTTPException(404, str(error)) from None
    if bot.owner != who.owner:
        raise HTTPException(404, f"you have no such version of {name!r}")
    if bot.status == "retired":
        raise HTTPException(409, f"{bot.name}@{bot.version} is already retired")
    store.bots.set_status(bot.id, "retired")
    return {"name": bot.name, "version": bot.version, "artifact_hash": bot.artifact_hash, "status": "retired"}


@router.post("/owner/remote-bots", status_code=201,
             summary="Register a remote bot (run on your own computer); its token is shown once")
def register_remote_bot(request: Request, body: NameIn) -> dict[str, Any]:
    who = caller(request)
    try:
        name, token = register_remote(store_of(request), who.owner, body.name)
    except NameTaken as error:
        raise HTTPException(409, str(error)) from None
    except SubmissionError as error:
        raise HTTPException(422, str(error)) from None
    settings = request.app.state.settings
    return {"name": name, "owner": who.owner, "token": token,
            "connect": connect_line(name, token, settings.remote_address, settings.remote_tls),
            "note": "the token is shown once: the bot connects to the ladder with it (docs/writing-a-bot.md, "
                    "'On a hosted ladder, from your own computer')"}


def connect_line(name: str, token: str, address: str, tls: bool) -> dict[str, Any] | None:
    """How a remote bot connects: its one setting (ARENA_REMOTE) and the command line; None when the server
    was not told its remote-bot address (`arena web --remote-address`)."""
    if not address:
        return None
    remote = remote_url(name, token, address, tls)
    return {"address": address, "tls": tls, "remote": remote, "command": f"ARENA_REMOTE={remote} python3 bot.py"}


class RateLimit:
    """A budget per address (an IPv4 address, an IPv6 /64): `most` events in any `window_s` seconds. Addresses
    with nothing left in their window are forgotten, and at most `keep` are tracked (the oldest go first)."""

    def __init__(self, most: int, window_s: float, keep: int = 100_000) -> None:
        self.most, self.window_s, self.keep = most, window_s, keep
        self._times: dict[str, deque[float]] = {}

    def allow(self, address: str) -> bool:
        """Count one event from `address`; False (not counted) when its budget is spent."""
        key = ClientKey.of(address).address
        now = time.monotonic()
        times = self._times.pop(key, None) or deque()
        while times and now - times[0] > self.window_s:
            times.popleft()
        allowed = len(times) < self.most
        if allowed:
            times.append(now)
        if times:
            self._times[key] = times  # (re-inserted: the dict keeps the most recently seen last)
        while len(self._times) > self.keep:
            del self._times[next(iter(self._times))]
        return allowed


@router.get("/signup", summary="Whether visitors may sign up here")
def sign_up_open(request: Request) -> dict[str, Any]:
    return {"open": bool(request.app.state.settings.open_signup)}


@router.post("/signup", status_code=201, summary="Open sign-up (arena web --open-signup): a new owner and token")
def sign_up(request: Request, response: Response, body: NameIn) -> dict[str, Any]:
    settings = request.app.state.settings
    if not settings.open_signup:
        raise HTTPException(404, "sign-up is closed here: ask the operator (`arena owner add NAME`)")
    address = request.client.host if request.client else "unknown"
    if not request.app.state.signups.allow(address):  # (the address that connects: see --trusted-proxy)
        raise HTTPException(429, f"too many sign-ups from {address} in the last hour; try again later",
                            headers={"Retry-After": "3600"})
    name = body.name.strip()
    if not BOT_NAME.match(name) or name in RESERVED_NAMES:
        raise HTTPException(422, f"{name!r} cannot be an owner's name: lowercase letters, digits, '-', '_' or '.'")
    token = new_token()
    if not store_of(request).owners.add(name, hash_token(token)):
        raise HTTPException(409, f"the owner name {name!r} is taken; pick another")
    csrf = _set_session(request, response, name)
    return {"owner": name, "token": token, "csrf": csrf,
            "note": "shown once: keep it; it signs you in here and lets `arena bot submit --server` upload"}


def _iso(moment: Any) -> str | None:
    return moment.isoformat(timespec="seconds") + "Z" if moment is not None else None
