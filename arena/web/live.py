"""Live matches for the web pages: what the referee (`arena web --server HOST:PORT`) plays now, and a
match's public view relayed as server-sent events. Only the public view ever reaches a browser: no
seed, no hand, no card drawn (the referee's WatchMatch); the admin token, needed to list matches,
stays on the server."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from fastapi import HTTPException, Request

from arena.rpc.client import AdminClient, AdminError, event_json

NO_REFEREE = "no referee to watch: start the web server with --server HOST:PORT (the referee's address)"


async def running_matches(settings: Any) -> dict[str, Any]:
    """{referee, matches (running now), detail}: none without a referee; 502 if it does not answer."""
    if not settings.referee:
        return {"referee": None, "matches": [], "detail": NO_REFEREE}
    try:
        async with AdminClient(settings.referee, settings.admin_token, settings.tls_ca) as admin:
            statuses = await admin.matches()
    except AdminError as error:
        raise HTTPException(502, f"the referee at {settings.referee} did not answer: {error}") from None
    return {"referee": settings.referee, "detail": "",
            "matches": [{"match_id": status.match_id, "game": status.game, "steps": status.steps,
                         "players": [{"seat": p.seat, "name": p.name, "version": p.version} for p in status.players]}
                        for status in statuses if status.state == "running"]}


async def event_stream(request: Request, match_id: str) -> AsyncIterator[str]:
    """Server-sent events of a match's public view: header, then each step (the newest with the board
    position), then finished; an `error` event if the referee cannot be watched."""
    settings = request.app.state.settings
    if not settings.referee:
        yield _sse("error", {"detail": NO_REFEREE})
        return
    try:
        async with AdminClient(settings.referee, None, settings.tls_ca) as admin:
            async for event in admin.watch(match_id):
                if await request.is_disconnected():
                    return
                data = event_json(event)
                yield _sse(data["kind"], data)
    except AdminError as error:
        yield _sse("error", {"detail": str(error)})


def _sse(kind: str, data: dict[str, Any]) -> str:
    return f"event: {kind}\ndata: {json.dumps(data)}\n\n"
