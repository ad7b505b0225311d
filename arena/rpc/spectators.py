"""Spectators: a match's public view fanned out to whoever watches, at no cost to the match's clocks.

The match loop only notes that a step happened (`PublicFeed.note`, constant time). At most every
`FLUSH_S` a flush on the event loop builds the new steps' public events once and the board's public
position once, and wakes the watchers; each watcher then sends what it has not sent yet, at its own
pace, from the one shared list (no copy per watcher). A watcher more than `MAX_LAG` events behind (its
client does not read, and gRPC's flow control holds its writes) is dropped. Anonymous watchers are
admitted up to caps per address (an IPv4 address or an IPv6 /64), per network (an IPv4 /24 or an
IPv6 /48) and in all (`SpectatorLimits`); a caller with the admin token (the web, relaying to its own
visitors) is not counted.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from arena.games import views
from arena.referee.record import Step
from arena.rpc.generated import admin_pb2

if TYPE_CHECKING:
    from arena.rpc.matches import LiveMatch

FLUSH_S = 0.1  # watchers are woken at most this often (every step's events still reach them)
MAX_LAG = 2000  # events a watcher may be behind before it is dropped


@dataclass(frozen=True)
class SpectatorLimits:
    """How many anonymous watchers a referee admits: in all, per address, per network."""

    total: int = 256
    per_address: int = 8
    per_network: int = 32


class SpectatorRefused(Exception):
    """An anonymous watcher over a cap; the message says which."""


def network_key(address: str) -> str:
    """The network an address counts against: 'ipv4:1.2.3.0/24', 'ipv6:2001:db8:1::/48'; the address itself
    when it is none (a Unix socket)."""
    kind, _, host = address.partition(":")
    if kind == "ipv4":
        return f"ipv4:{ipaddress.ip_network((host, 24), strict=False)}"
    if kind == "ipv6":
        host = host.rsplit("/", 1)[0]
        try:
            return f"ipv6:{ipaddress.ip_network((host, 48), strict=False)}"
        except ValueError:
            return address
    return address


class Admission:
    """The anonymous watchers of one referee, counted per address, per network and in all."""

    def __init__(self, limits: SpectatorLimits) -> None:
        self.limits = limits
        self.by_address: Counter[str] = Counter()
        self.by_network: Counter[str] = Counter()
        self.refused = 0

    @property
    def watching(self) -> int:
        """Anonymous watchers now."""
        return sum(self.by_address.values())

    def admit(self, address: str) -> None:
        """Count a watcher from `address` (an address key, arena.rpc.gate.address_key), or SpectatorRefused."""
        limits, network = self.limits, network_key(address)
        why = ""
        if self.watching >= limits.total:
            why = f"the referee has its {limits.total} anonymous watchers"
        elif self.by_address[address] >= limits.per_address:
            why = f"{limits.per_address} anonymous watchers from one address is the most"
        elif self.by_network[network] >= limits.per_network:
            why = f"{limits.per_network} anonymous watchers from one network is the most"
        if why:
            self.refused += 1
            raise SpectatorRefused(f"{why}; try again later (the match's record is public once it ends)")
        self.by_address[address] += 1
        self.by_network[network] += 1

    def leave(self, address: str) -> None:
        """A watcher from `address` is gone."""
        network = network_key(address)
        for counter, key in ((self.by_address, address), (self.by_network, network)):
            counter[key] -= 1
            if counter[key] <= 0:
                del counter[key]


class WatcherTooSlow(Exception):
    """A watcher fell too far behind the match and was dropped."""


class PublicFeed:
    """One match's public view: the events every watcher sends, built once, and the wake-up call."""

    def __init__(self, live: LiveMatch) -> None:
        self.live = live
        self.events: list[admin_pb2.StepEvent] = []
        self.position_json = ""  # the public position after the newest event
        self.finished: Optional[admin_pb2.MatchFinished] = None
        self._changed = asyncio.Event()
        self._scheduled = False

    def note(self) -> None:
        """A step was played, or the match ended (the match loop's side: nothing more)."""
        if not self._scheduled:
            self._scheduled = True
            asyncio.get_running_loop().call_later(FLUSH_S, self.flush)

    def flush(self) -> None:
        """Bring the public events up to the match, and wake whoever waits for them."""
        self._scheduled = False
        live = self.live
        steps = live.record.steps if live.record is not None else live.steps
        if len(self.events) < len(steps):
            self.events.extend(public_step(step) for step in steps[len(self.events):])
            if live.record is None and live.state is not None:
                self.position_json = json.dumps(views.position(live.state, reveal=False))
        if live.record is not None and live.record.result is not None and self.finished is None:
            from arena.rpc.convert import result_to_message

            self.finished = admin_pb2.MatchFinished()
            result_to_message(live.record.result, self.finished.result)
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    async def follow(self, header: admin_pb2.MatchHeader) -> AsyncIterator[admin_pb2.MatchEvent]:
        """A watcher's events: the header, every step so far and to come (the newest with the position), the
        result. WatcherTooSlow when it falls `MAX_LAG` events behind."""
        yield admin_pb2.MatchEvent(header=header)
        if len(self.events) < len(self.live.steps) or (self.live.record is not None and self.finished is None):
            self.flush()  # (a watcher joining between flushes starts from the match as it is)
        sent = 0
        while True:
            changed = self._changed
            events, newest = self.events, len(self.events)
            if newest - sent > MAX_LAG:
                raise WatcherTooSlow(f"{newest - sent} events behind the match")
            while sent < newest:
                event = events[sent]
                sent += 1
                if sent == newest and self.finished is None and self.position_json:
                    latest = admin_pb2.StepEvent()
                    latest.CopyFrom(event)
                    latest.position_json = self.position_json
                    event = latest
                yield admin_pb2.MatchEvent(step=event)
                if len(self.events) - sent > MAX_LAG:
                    raise WatcherTooSlow(f"{len(self.events) - sent} events behind the match")
            if self.finished is not None and sent >= len(self.events):
                yield admin_pb2.MatchEvent(finished=self.finished)
                return
            await changed.wait()


def public_step(step: Step) -> admin_pb2.StepEvent:
    """One step as anybody may see it: a step that hides something (a card drawn) says only what it hides."""
    event = admin_pb2.StepEvent(n=step.n, seat=step.seat, action=step.action, label=step.label,
                                think_ms=step.timing.get("think_ms", 0.0),
                                transport_ms=step.timing.get("transport_ms", 0.0))
    if step.spectator_label is not None:
        event.action = -1
        event.label = step.spectator_label
        event.hidden = True
    return event
