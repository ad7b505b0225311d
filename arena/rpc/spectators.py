"""Spectators: a match's public view fanned out to whoever watches, at no cost to the match's clocks.

The match loop only notes that a step happened (`PublicFeed.note`, constant time; nothing at all until someone
comes to watch: the first watcher's arrival builds what was played by then). At most every `FLUSH_S` a flush
on the event loop builds and serializes the new steps' public events once (a message per step, and one
StepBatch of them for batched watchers) and the board's public position once, and wakes the watchers in
`LANES` groups spread over the interval (so a decision arriving meanwhile waits behind one group's sends at
most); each watcher then sends the bytes it has not sent yet, at its own pace, from the one shared list
(nothing is built or copied per watcher). A watcher more than `MAX_LAG` events behind (its
client does not read, and gRPC's flow control holds its writes) is dropped. Anonymous watchers are
admitted up to caps per address (an IPv4 address or an IPv6 /64), per network (an IPv4 /24 or an
IPv6 /48) and in all (`SpectatorLimits`, counted in a budget of arena.admission); a caller with the
admin token (the web, relaying to its own visitors) is not counted. A refusal builds nothing and touches no
match: the caller's address is looked up in the budgets, and the call is aborted. An address calling WatchMatch
faster than `WATCHES_PER_S` after a burst (a watcher retrying in a loop) is shut out for a pause that doubles
(arena.admission.Storms): its calls are refused before the match is even looked up, its connection is closed
and the referee's gate refuses its new ones while the pause lasts, so a loop of refused calls mostly never
reaches gRPC.
"""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections.abc import AsyncIterator
from typing import Optional, Protocol

from arena.admission import Budget, Caps, ClientKey, Refusal, Storms
from arena.games import views
from arena.games.base import State
from arena.referee.record import MatchRecord, Step
from arena.rpc.config import SpectatorLimits
from arena.rpc.generated import admin_pb2


class Watched(Protocol):
    """What the feed reads of a match (arena.rpc.matches.LiveMatch is one)."""

    steps: list[Step]
    record: Optional[MatchRecord]
    state: Optional[State]

FLUSH_S = 0.5  # watchers are woken at most this often (every step's events still reach them)
POSITION_EVERY_S = 1.0  # the public position rides along at most this often (and always at the end)
LANES = 16  # the watchers are woken in this many groups spread over FLUSH_S: a decision never waits on them all
MAX_LAG = 2000  # events a watcher may be behind before it is dropped
MAX_LAG_BATCHES = 200  # batches a batched watcher may be behind (a minute of play)
WATCHES_PER_S = 1.0  # WatchMatch calls one address may make a second (anonymous; admitted or refused)...
WATCH_BURST = 16  # ... after a burst of this many (four times the cap per address)


class SpectatorRefused(Exception):
    """An anonymous watcher over a cap; the message says which."""


class SpectatorStorm(SpectatorRefused):
    """An address calling WatchMatch faster than its rate: shut out for a while (its connection goes too)."""


def network_key(address: str) -> str:
    """The network an address key ('ipv4:1.2.3.4', 'ipv6:2001:db8:1:2::/64') counts against (an IPv4 /24, an
    IPv6 /48); the key itself when it is no network address (a Unix socket)."""
    return ClientKey.of_peer(address).network


class Admission:
    """The anonymous watchers of one referee, counted per address, per network and in all."""

    def __init__(self, limits: SpectatorLimits) -> None:
        self.limits = limits
        self.budget = Budget(Caps(per_address=limits.per_address, per_network=limits.per_network,
                                  total=limits.total))
        self.unbatched = 0  # of the watchers now, those that take a message per step
        self.refused = 0
        self.storms = Storms(WATCHES_PER_S, WATCH_BURST)  # watch calls per address: past the rate, a pause

    @property
    def watching(self) -> int:
        """Anonymous watchers now."""
        return self.budget.count

    def pace(self, client: ClientKey) -> None:
        """One watch call from `client` (before anything else is done for it); SpectatorStorm past its rate."""
        paused = self.storms.take(client)
        if paused > 0:
            self.refused += 1
            raise SpectatorStorm(f"more than {WATCHES_PER_S:g} watch calls a second from {client.address}: wait "
                                 f"{math.ceil(paused)} s")

    def shut_for(self, client: ClientKey) -> float:
        """Seconds `client`'s address is still shut out for calling too fast (the referee's gate asks)."""
        return self.storms.shut_for(client)

    def admit(self, client: ClientKey, batched: bool) -> None:
        """Count a watcher from `client`, or SpectatorRefused."""
        why = self._count_in(client, batched)
        if why:
            self.refused += 1
            raise SpectatorRefused(f"{why}; try again later (the match's record is public once it ends)")
        self.unbatched += not batched

    def leave(self, client: ClientKey, batched: bool) -> None:
        """A watcher from `client` is gone."""
        self.unbatched -= not batched
        self.budget.leave(client)

    def _count_in(self, client: ClientKey, batched: bool) -> str:
        """Count a watcher from `client` in the budget; or why it is refused (the total first, then the watchers
        that take a message per step, its address, its network), and it is not counted."""
        limits = self.limits
        if self.budget.full:
            return f"the referee has its {limits.total} anonymous watchers"
        if not batched and self.unbatched >= limits.unbatched:
            return (f"the referee has its {limits.unbatched} anonymous watchers that take a message per step "
                    "(ask for batches: WatchMatchRequest.batched)")
        refusal = self.budget.admit(client)
        if refusal is Refusal.ADDRESS:
            return f"{limits.per_address} anonymous watchers from one address is the most"
        if refusal is Refusal.NETWORK:
            return f"{limits.per_network} anonymous watchers from one network is the most"
        return ""


class WatcherTooSlow(Exception):
    """A watcher fell too far behind the match and was dropped."""


class PublicFeed:
    """One match's public view, built and serialized once for every watcher: per step (for watchers that take
    a StepEvent each) and per flush (a StepBatch of the steps since the last flush, for batched watchers)."""

    def __init__(self, live: Watched) -> None:
        self.live = live
        self.steps: list[admin_pb2.StepEvent] = []
        self.events: list[bytes] = []  # every step, as a serialized MatchEvent
        self.newest = b""  # the newest step again, with the public position after it
        self.batches: list[bytes] = []  # one StepBatch a flush: the steps it added (the last with the position)
        self.position_json = ""  # the position this flush carries ("" when it carries none)
        self.latest_position = ""  # the newest position computed (a joining watcher's board)
        self.finished = b""  # the serialized MatchEvent with the result, once the match is over
        self._catch_up: tuple[int, bytes] = (0, b"")  # (steps, a StepBatch of all of them), for joining watchers
        self._lanes = [asyncio.Event() for _ in range(LANES)]
        self._joined = 0  # watchers so far: each follows the lane of its number
        self._next_position = 0.0  # time.monotonic() from which the next flush carries the position
        # a flush is scheduled, or nobody has come to watch yet: nothing is built for a match no one watches (every
        # decision of every match notes its step); the first watcher's _prepare builds what was played by then
        self._scheduled = True

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
        if len(self.steps) < len(steps):
            built = [public_step(step) for step in steps[len(self.steps):]]
            self.steps.extend(built)
            self.events.extend(admin_pb2.MatchEvent(step=event).SerializeToString() for event in built)
            self.position_json = ""
            now = time.monotonic()
            if live.record is None and live.state is not None and now >= self._next_position:
                self.position_json = self.latest_position = json.dumps(views.position(live.state, reveal=False))
                self._next_position = now + POSITION_EVERY_S
            self.newest = self._with_position(built[-1:])
            self.batches.append(self._batch(built, self.position_json))
        self._note_result()
        loop = asyncio.get_running_loop()
        for lane, event in enumerate(self._lanes):  # lane by lane across the interval: no burst of sends
            self._lanes[lane] = asyncio.Event()
            loop.call_later(lane * FLUSH_S / LANES, event.set)

    def _note_result(self) -> None:
        """Serialize the match's result once it has one (the last event of every watcher)."""
        live = self.live
        if live.record is not None and live.record.result is not None and not self.finished:
            from arena.rpc.convert import result_to_message

            finished = admin_pb2.MatchFinished()
            result_to_message(live.record.result, finished.result)
            self.finished = admin_pb2.MatchEvent(finished=finished).SerializeToString()

    def _lane(self) -> int:
        self._joined += 1
        self._scheduled = False  # (a watcher came: the match's steps are flushed from now on)
        return self._joined % LANES

    def _with_position(self, steps: list[admin_pb2.StepEvent]) -> bytes:
        """The last of `steps` as a MatchEvent with the position (b"" without one)."""
        if not steps or not self.position_json:
            return b""
        newest = admin_pb2.StepEvent()
        newest.CopyFrom(steps[-1])
        newest.position_json = self.position_json
        return admin_pb2.MatchEvent(step=newest).SerializeToString()

    def _batch(self, steps: list[admin_pb2.StepEvent], position: str) -> bytes:
        """A StepBatch of `steps`, the last with `position` if there is one."""
        batch = admin_pb2.StepBatch(steps=steps)
        if position:
            batch.steps[-1].position_json = position
        return admin_pb2.MatchEvent(steps=batch).SerializeToString()

    def _prepare(self) -> None:
        live = self.live
        if len(self.steps) < len(live.steps) or (live.record is not None and not self.finished):
            self.flush()  # (a watcher joining between flushes starts from the match as it is)

    async def follow(self, header: admin_pb2.MatchHeader) -> AsyncIterator[bytes]:
        """A watcher's events, serialized, a step each: the header, every step so far and to come (the newest
        with the position), the result. WatcherTooSlow when it falls `MAX_LAG` events behind."""
        yield admin_pb2.MatchEvent(header=header).SerializeToString()
        self._prepare()
        lane = self._lane()
        sent = 0
        while True:
            changed = self._lanes[lane]
            events, newest = self.events, len(self.events)
            if newest - sent > MAX_LAG:
                raise WatcherTooSlow(f"{newest - sent} events behind the match")
            while sent < newest:
                sent += 1
                yield self.newest if sent == len(self.events) and self.newest else events[sent - 1]
                if len(self.events) - sent > MAX_LAG:
                    raise WatcherTooSlow(f"{len(self.events) - sent} events behind the match")
            if self.finished and sent >= len(self.events):
                yield self.finished
                return
            await changed.wait()

    async def follow_batched(self, header: admin_pb2.MatchHeader) -> AsyncIterator[bytes]:
        """A batched watcher's events, serialized: the header, one StepBatch of the steps so far, then one per
        flush, then the result. WatcherTooSlow when it falls `MAX_LAG_BATCHES` batches behind."""
        yield admin_pb2.MatchEvent(header=header).SerializeToString()
        self._prepare()
        if self.steps:
            if self._catch_up[0] != len(self.steps):  # built once for every watcher joining at this point
                self._catch_up = (len(self.steps), self._batch(self.steps, self.latest_position))
            yield self._catch_up[1]
        sent = len(self.batches)  # the catch-up covered every batch so far
        lane = self._lane()
        while True:
            changed = self._lanes[lane]
            while sent < len(self.batches):
                if len(self.batches) - sent > MAX_LAG_BATCHES:
                    raise WatcherTooSlow(f"{len(self.batches) - sent} batches behind the match")
                sent += 1
                yield self.batches[sent - 1]
            if self.finished:
                yield self.finished
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
