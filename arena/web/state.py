"""What the app keeps for its routes (set by arena.web.app.create_app), read with its type."""

from __future__ import annotations

from fastapi import HTTPException, Request

from arena.ratings.leaderboard import Leaderboards
from arena.store import Store, StoredMatch
from arena.store.hosting import Hosting


def store_of(request: Request) -> Store:
    """The app's store."""
    store: Store = request.app.state.store
    return store


def hosting_of(request: Request) -> Hosting:
    """The app's hosting tables (owners, sessions, submissions, remote bots)."""
    hosting: Hosting = request.app.state.hosting
    return hosting


def leaderboards_of(request: Request) -> Leaderboards:
    """The app's leaderboards, kept between requests while fresh."""
    leaderboards: Leaderboards = request.app.state.leaderboards
    return leaderboards


def stored_match(request: Request, match: str) -> StoredMatch:
    """The stored match `match` names (an id, or a uid prefix), or a 404 that says so."""
    found = store_of(request).matches.get(match)
    if found is None:
        raise HTTPException(404, f"no match {match!r}")
    return found
