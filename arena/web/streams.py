"""The web's long responses (server-sent events: a live match followed, an upload's progress) under one budget
that never locks a newcomer out.

Each stream counts against its client's address (an IPv4 address, an IPv6 /64), its network (an IPv4 /24, an
IPv6 /48) and the total (`StreamLimits`); the client is the request's, which behind a trusted proxy is the one
the proxy names (arena.web.guard). A stream over a cap is never refused: the oldest stream of the same address
(over the address's cap), of the same network (over the network's), or of the network holding the most (over
the total) is ended to make room, so a visitor always gets a stream and a crowd only ever ends its own. An
ended stream is told so (its `Ticket.ended` is set: it sends an `error` event and stops).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from arena.admission import ClientKey

ENDED = "ended to make room for a newer live view from your address or network (reload to follow again)"


@dataclass(frozen=True)
class StreamLimits:
    """Streams open at once: in all, per address and per network."""

    total: int = 1000
    per_address: int = 16
    per_network: int = 64


class Ticket:
    """One stream's place: `ended` is set when it is ended to make room; `release()` gives the place back (it
    may be called more than once)."""

    def __init__(self, streams: Streams, key: ClientKey) -> None:
        self.key = key
        self.ended = asyncio.Event()
        self._streams = streams

    def release(self) -> None:
        self._streams.leave(self)


class Streams:
    """The streams open now, oldest first, per address, per network and in all."""

    def __init__(self, limits: StreamLimits = StreamLimits()) -> None:
        self.limits = limits
        self.ended = 0  # streams ended to make room
        self._all: dict[Ticket, None] = {}
        self._by_address: dict[str, dict[Ticket, None]] = {}
        self._by_network: dict[str, dict[Ticket, None]] = {}

    @property
    def count(self) -> int:
        return len(self._all)

    def admit(self, host: str) -> Ticket:
        """A place for a stream of `host`'s, made by ending an older stream where a cap is reached."""
        key = ClientKey.of(host)
        self._make_room(self._by_address.get(key.address, {}), self.limits.per_address)
        self._make_room(self._by_network.get(key.network, {}), self.limits.per_network)
        if self._by_network and len(self._all) >= self.limits.total:
            self._make_room(max(self._by_network.values(), key=len), 1)
        ticket = Ticket(self, key)
        self._all[ticket] = None
        self._by_address.setdefault(key.address, {})[ticket] = None
        self._by_network.setdefault(key.network, {})[ticket] = None
        return ticket

    def leave(self, ticket: Ticket) -> None:
        """`ticket`'s stream is over (or ended): its place is free."""
        if ticket not in self._all:
            return
        del self._all[ticket]
        for groups, name in ((self._by_address, ticket.key.address), (self._by_network, ticket.key.network)):
            group = groups[name]
            group.pop(ticket, None)
            if not group:
                del groups[name]

    def _make_room(self, held: dict[Ticket, None], cap: int) -> None:
        """End the oldest of `held` when it holds `cap` or more."""
        if held and len(held) >= cap:
            oldest = next(iter(held))
            self.leave(oldest)
            self.ended += 1
            oldest.ended.set()


async def changed_or_ended(changed: asyncio.Event, ended: asyncio.Event, timeout: float) -> bool:
    """Wait until `changed` or `ended` is set, or `timeout` seconds; whether either was set."""
    waits = [asyncio.ensure_future(changed.wait()), asyncio.ensure_future(ended.wait())]
    try:
        done, _pending = await asyncio.wait(waits, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for wait in waits:
            wait.cancel()
    return bool(done)
