"""What the app keeps for its routes (set by arena.web.app.create_app), read with its type."""

from __future__ import annotations

from fastapi import Request

from arena.ratings.leaderboard import Leaderboards
from arena.store import Store
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
