"""Live matches for the web pages: what the referee (`arena web --server HOST:PORT`) plays now, and a
match's public view relayed as server-sent events. Only the public view ever reaches a browser: no
seed, no hand, no card drawn (the referee's WatchMatch); the admin token, needed to list matches,
stays on the server.

However many browsers watch a match, the web follows it once (`LiveHub`: one stream from the referee
per match, its events kept as ready-made server-sent-event text); each browser reads that shared list
at its own pace, and one that falls `MAX_LAG` events behind is dropped. Browsers watching live share the
web's budget of streams (arena.web.streams: per address, per network and in all, the oldest ended to make
room), so watchers cannot crowd the web or the referee, nor lock a newcomer out.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any, Optional

from fastapi import HTTPException, Request

from arena.rpc.client import AdminClient, AdminError, event_json
from arena.web.streams import ENDED, StreamLimits, changed_or_ended

NO_REFEREE = "no referee to watch: start the web server with --server HOST:PORT (the referee's address)"
MAX_LAG = 2000  # events a browser may be behind before it is dropped
KEEP_FINISHED = 32  # finished matches whose events stay in memory (late visitors get them at once)


LiveLimits = StreamLimits  # (its former name: browsers following live matches, now every stream)


async def running_matches(settings: Any) -> dict[str, Any]:
    """{referee, matches (running now), detail}: none without a referee; 502 if it does not answer."""
    if not settings.referee:
        return {"referee": None, "matches": [], "detail": NO_REFEREE}
    try:
        async with AdminClient(settings.referee, settings.referee_token, settings.tls_ca) as admin:
            statuses = await admin.matches()
    except AdminError as error:
        raise HTTPException(502, f"the referee at {settings.referee} did not answer: {error}") from None
    return {"referee": settings.referee, "detail": "",
            "matches": [{"match_id": status.match_id, "game": status.game, "steps": status.steps,
                         "players": [{"seat": p.seat, "name": p.name, "version": p.version} for p in status.players]}
                        for status in statuses if status.state == "running"]}


class _Relay:
    """One match followed from the referee: its events as server-sent-event text, and who waits for more."""

    def __init__(self) -> None:
        self.events: list[str] = []
        self.done = False
        self.changed = asyncio.Event()
        self.task: Optional[asyncio.Task[None]] = None

    def add(self, text: str, done: bool = False) -> None:
        self.events.append(text)
        self.done = self.done or done
        changed, self.changed = self.changed, asyncio.Event()
        changed.set()


class LiveHub:
    """The web's relays of the referee's matches."""

    def __init__(self) -> None:
        self.relays: dict[str, _Relay] = {}

    def relay(self, settings: Any, match_id: str) -> _Relay:
        """The match's relay, started on first use."""
        relay = self.relays.get(match_id)
        if relay is None:
            relay = self.relays[match_id] = _Relay()
            relay.task = asyncio.create_task(self._follow(settings, match_id, relay))
            finished = [key for key, kept in self.relays.items() if kept.done]
            for key in finished[:-KEEP_FINISHED] if len(finished) > KEEP_FINISHED else []:
                del self.relays[key]
        return relay

    async def _follow(self, settings: Any, match_id: str, relay: _Relay) -> None:
        # with the admin token the referee does not count the web against its anonymous watchers: the web
        # caps its own visitors instead
        try:
            async with AdminClient(settings.referee, settings.referee_token, settings.tls_ca) as admin:
                async for event in admin.watch(match_id):
                    data = event_json(event)
                    relay.add(_sse(data["kind"], data), done=data["kind"] == "finished")
        except AdminError as error:
            relay.add(_sse("error", {"detail": str(error)}), done=True)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # noqa: BLE001 - a relay that breaks ends its watchers' streams, not the web
            relay.add(_sse("error", {"detail": f"the relay broke: {type(error).__name__}"}), done=True)
        finally:
            if not relay.done:
                relay.add(_sse("error", {"detail": "the referee ended the stream"}), done=True)

    async def close(self) -> None:
        """Stop every relay (the web is shutting down)."""
        tasks = [relay.task for relay in self.relays.values() if relay.task is not None and not relay.task.done()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def event_stream(request: Request, match_id: str, ended: asyncio.Event) -> AsyncIterator[str]:
    """Server-sent events of a match's public view: header, then each step (the newest with the board
    position), then finished; an `error` event if the referee cannot be watched, or when `ended` is set (the
    stream ended to make room)."""
    settings = request.app.state.settings
    if not settings.referee:
        yield _sse("error", {"detail": NO_REFEREE})
        return
    hub: LiveHub = request.app.state.live
    relay = hub.relay(settings, match_id)
    sent = 0
    while True:
        changed, events = relay.changed, relay.events
        if len(events) - sent > MAX_LAG:
            yield _sse("error", {"detail": "dropped: this page fell too far behind the match (reload it)"})
            return
        while sent < len(events):
            yield events[sent]
            sent += 1
        if relay.done and sent >= len(relay.events):
            return
        if await request.is_disconnected():
            return
        if ended.is_set():
            yield _sse("error", {"detail": ENDED})
            return
        if not await changed_or_ended(changed, ended, 15.0):
            yield ": keep-alive\n\n"  # (a comment line: it tells a vanished browser apart)


def _sse(kind: str, data: dict[str, Any]) -> str:
    return f"event: {kind}\ndata: {json.dumps(data)}\n\n"
