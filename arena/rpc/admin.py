"""arena.v1.RefereeAdmin: start matches, watch them, fetch their records.

Every call needs the admin token, except WatchMatch: anyone may watch the public view of a match,
what someone in no seat may know (no seed, no hand, no card drawn; chance outcomes only where the
game makes them public), fed from the match's public feed (arena.rpc.spectators: it never slows the
match) and within the caps on anonymous watchers (per address, per network, in all; the admin token
lifts them, for a relay such as `arena web`) and a rate of calls per address (one calling in a loop is shut
out and its connection closed: a refusal costs a look-up). An admin's full view is its own call, WatchMatchFull: while the match
runs it releases each step only once the server's watch delay has passed (without a delay, not
before the match ends), and the seed only at the end, so that nobody watching can help a seat.

A referee may also have a viewer token: it lists the matches and watches them as the admin token does
(outside the watchers' caps), and allows nothing else. A relay such as `arena web` holds that one, so the
process that faces the internet can neither start matches nor see a hand.

Guessing either token (192 bits, beyond any search) is slowed anyway, as a remote bot's token is
(arena.rpc.bot_service): a call with a wrong token is a strike against its address (arena.admission.Strikes:
8 free, then a pause from 1 s doubling to 5 minutes, forgotten after 10 minutes without one), during which
the address's tokens are not even compared. Only the guessing address waits, never its network: an operator
next to it (another container on the same network, another host in the same /24) keeps calling, so no
guesser can shut the operator out; nor is any pause longer than 5 minutes.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import math
import time
from typing import TYPE_CHECKING, Any, AsyncIterator, Callable, Optional, Protocol, Sequence

import grpc

from arena.admission import ClientKey, Strikes
from arena.games import views
from arena.referee.record import Step
from arena.rpc.convert import (
    ConversionError,
    clock_from_message,
    clock_to_message,
    options_from_map,
    options_to_map,
    listed_kind,
    players_to_messages,
    result_to_message,
)
from arena.rpc.bot_service import DROP_AFTER_S
from arena.rpc.generated import admin_pb2, admin_pb2_grpc
from arena.rpc.matches import LiveMatch, MatchRequestError, Seat
from arena.rpc.spectators import Admission, SpectatorRefused, SpectatorStorm, WatcherTooSlow

if TYPE_CHECKING:
    from arena.referee.clock import ClockSettings
    from arena.referee.faults import FaultPolicy
    from arena.rpc.config import ServerConfig
    from arena.rpc.pool import BotPool

AUTH_HEADER = "authorization"
SERVICE_NAME = "arena.v1.RefereeAdmin"
WATCHER_WRITE_TIMEOUT_S = 10.0  # a watcher whose client reads nothing for this long is dropped


class Referee(Protocol):
    """What the admin service needs of its referee (arena.rpc.server.RefereeServer is one)."""

    admin_token: str
    viewer_token: str
    config: ServerConfig
    pool: BotPool
    spectators: Admission

    def peer_of(self, peer: str) -> str: ...

    def vouch(self, peer: str) -> None: ...

    def drop(self, peer: str) -> None: ...

    @property
    def matches(self) -> dict[str, LiveMatch]: ...

    def start_match(self, game_name: str, bots: Sequence[Seat], *, seed: int | None = None,
                    options: dict[str, Any] | None = None, clock: ClockSettings | None = None,
                    fault_policy: FaultPolicy | str | None = None, match_id: str | None = None) -> LiveMatch: ...


class AdminService(admin_pb2_grpc.RefereeAdminServicer):
    """The admin service of one referee."""

    def __init__(self, referee: Referee) -> None:
        self.referee = referee
        # wrong tokens per address (its own alone: a guesser's neighbours, the operator among them, keep theirs)
        self.strikes = Strikes()

    async def _authorize(self, context: grpc.aio.ServicerContext) -> None:
        if not self.is_admin(context):
            await self._refuse(context)

    async def _refuse(self, context: grpc.aio.ServicerContext) -> None:
        client = self._client(context)
        shut = self.strikes.shut_for(client)
        if shut > 0:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                f"too many wrong tokens from {client.address}: try again in "
                                f"{math.ceil(shut)} s")
        await context.abort(grpc.StatusCode.UNAUTHENTICATED,
                            "admin calls need the referee's admin token ('authorization: Bearer <token>'; "
                            "`arena serve` prints where it wrote it); WatchMatch needs none")

    def is_admin(self, context: grpc.aio.ServicerContext) -> bool:
        """True when the call carries the admin token (its connection is then vouched for)."""
        return self._role(context) == "admin"

    def is_viewer(self, context: grpc.aio.ServicerContext) -> bool:
        """True when the call carries the viewer token or the admin token."""
        return self._role(context) in ("admin", "viewer")

    def _role(self, context: grpc.aio.ServicerContext) -> str:
        """'admin' or 'viewer', the token the call carries, or '' (none, a wrong one, or its address is shut out
        for wrong tokens: then no token is even compared). A wrong token is a strike against its address: past
        the free ones (arena.admission.Strikes), the address waits a pause that doubles up to five minutes."""
        sent = dict(context.invocation_metadata() or ()).get(AUTH_HEADER, "")
        if not sent:
            return ""
        client = self._client(context)
        if self.strikes.shut_for(client) > 0:
            return ""
        for role, token in (("admin", self.referee.admin_token), ("viewer", self.referee.viewer_token)):
            if token and hmac.compare_digest(sent.encode(), f"Bearer {token}".encode()):
                self.referee.vouch(context.peer())
                return role
        self.strikes.failed(client)
        return ""

    def _client(self, context: grpc.aio.ServicerContext) -> ClientKey:
        """What a call's wrong tokens count against: its address alone, not its network."""
        return ClientKey.as_given(ClientKey.of_peer(self.referee.peer_of(context.peer())).address)

    async def StartMatch(self, request: admin_pb2.StartMatchRequest, context: grpc.aio.ServicerContext
                         ) -> admin_pb2.StartMatchReply:
        await self._authorize(context)
        try:
            clock = clock_from_message(request.clock) if request.HasField("clock") else None
            live = self.referee.start_match(
                request.game, list(request.bots), seed=request.seed if request.HasField("seed") else None,
                options=options_from_map(request.options), clock=clock, fault_policy=request.fault_policy or None)
        except (MatchRequestError, ConversionError, ValueError) as error:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(error))
            raise  # abort raises; this keeps type checkers content
        return admin_pb2.StartMatchReply(match_id=live.match_id)

    async def WatchMatch(self, request: admin_pb2.WatchMatchRequest, context: grpc.aio.ServicerContext) -> None:
        client = None if self.is_viewer(context) else ClientKey.of_peer(self.referee.peer_of(context.peer()))
        batched = request.batched
        try:
            if client is not None:  # (a call in a loop is refused here, before the match is even looked up)
                self.referee.spectators.pace(client)
            live = await self._live(request.match_id, context)
            if client is not None:
                self.referee.spectators.admit(client, batched)
        except SpectatorRefused as refused:
            if isinstance(refused, SpectatorStorm):  # its connection goes too: what it sends next never reaches gRPC
                asyncio.get_running_loop().call_later(DROP_AFTER_S, self.referee.drop, context.peer())
            context.set_code(grpc.StatusCode.RESOURCE_EXHAUSTED)  # (no abort: no exception through gRPC's call;
            context.set_details(str(refused))  # the status goes out as the call ends, at once)
            return
        feed = live.feed.follow_batched if batched else live.feed.follow
        try:
            await _write_all(context, feed, _header(live))
        except WatcherTooSlow as slow:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, f"dropped: {slow} (read the stream faster)")
        finally:
            if client is not None:
                self.referee.spectators.leave(client, batched)

    async def WatchMatchFull(self, request: admin_pb2.WatchMatchRequest, context: grpc.aio.ServicerContext
                             ) -> AsyncIterator[admin_pb2.MatchEvent]:
        await self._authorize(context)
        live = await self._live(request.match_id, context)
        async for event in _events(live, full=True, delay_s=self.referee.config.watch_delay_s):
            yield event

    async def GetMatch(self, request: admin_pb2.GetMatchRequest, context: grpc.aio.ServicerContext
                       ) -> admin_pb2.MatchStatus:
        await self._authorize(context)
        live = await self._live(request.match_id, context)
        return _status(live, include_record=request.include_record)

    async def ListMatches(self, request: admin_pb2.ListMatchesRequest, context: grpc.aio.ServicerContext
                          ) -> admin_pb2.ListMatchesReply:
        if not self.is_viewer(context):
            await self._refuse(context)
        return admin_pb2.ListMatchesReply(matches=[_status(live) for live in self.referee.matches.values()])

    async def ListBots(self, request: admin_pb2.ListBotsRequest, context: grpc.aio.ServicerContext
                       ) -> admin_pb2.ListBotsReply:
        await self._authorize(context)
        return admin_pb2.ListBotsReply(bots=[admin_pb2.BotStatus(**{**row, "kind": listed_kind(row["kind"])})
                                             for row in self.referee.pool.status()])

    async def _live(self, match_id: str, context: grpc.aio.ServicerContext) -> LiveMatch:
        live = self.referee.matches.get(match_id)
        if live is None:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no match {match_id!r} in memory (the server keeps "
                                f"the last {self.referee.config.finished_kept} finished; records stay on disk)")
            raise LookupError(match_id)
        return live


async def _write_all(context: grpc.aio.ServicerContext, feed: Callable[[admin_pb2.MatchHeader], AsyncIterator[bytes]],
                     header: admin_pb2.MatchHeader) -> None:
    """Writes a watcher's `feed` of serialized events to its call; WatcherTooSlow when a write waits past
    WATCHER_WRITE_TIMEOUT_S."""
    async for event in feed(header):
        try:  # (a watcher whose client does not read holds its write: past a while it is dropped)
            async with asyncio.timeout(WATCHER_WRITE_TIMEOUT_S):  # (no task a write, as wait_for makes)
                await context.write(event)
        except TimeoutError:
            raise WatcherTooSlow(f"its client read nothing for {WATCHER_WRITE_TIMEOUT_S:g}s") from None


async def _events(live: LiveMatch, *, full: bool, delay_s: Optional[float]) -> AsyncIterator[admin_pb2.MatchEvent]:
    """A match's events from its start for an admin: header, steps (public or full), then the result."""
    yield admin_pb2.MatchEvent(header=_header(live))
    wake = asyncio.Event()
    live.watchers.add(wake)
    sent = 0
    try:
        while True:
            wake.clear()
            finished = live.record is not None
            steps, releasable = _releasable(live, full=full, finished=finished, delay_s=delay_s)
            while sent < releasable:
                event = step_event(steps[sent], full=full)
                if not full and sent == len(steps) - 1 and live.state is not None and not finished:
                    event.position_json = json.dumps(views.position(live.state, reveal=False))  # caught up: now
                yield admin_pb2.MatchEvent(step=event)
                sent += 1
            if finished:
                yield _finished(live, full=full)
                return
            timeout = _release_wait(live, full, delay_s, releasable, len(steps))
            try:
                await asyncio.wait_for(wake.wait(), timeout)
            except TimeoutError:
                pass
    finally:
        live.watchers.discard(wake)


def _releasable(live: LiveMatch, *, full: bool, finished: bool, delay_s: Optional[float]) -> tuple[list[Step], int]:
    """A match's steps so far, and how many of them the view may show now."""
    steps = live.record.steps if live.record is not None else live.steps
    return steps, _released(live, delay_s) if full and not finished else len(steps)


def _finished(live: LiveMatch, *, full: bool) -> admin_pb2.MatchEvent:
    """A finished match's last event: its result (and, in the full view, the record's path and the seed)."""
    assert live.record is not None and live.record.result is not None
    done = admin_pb2.MatchFinished()
    result_to_message(live.record.result, done.result)
    if full:
        done.record_path = str(live.path or "")
        done.seed = live.seed
    return admin_pb2.MatchEvent(finished=done)


def _release_wait(live: LiveMatch, full: bool, delay_s: Optional[float], released: int, total: int
                  ) -> Optional[float]:
    """How long the full view waits for its next step to be released (None: until the match wakes it)."""
    if full and delay_s is not None and released < total:
        return max(0.0, live.step_times[released] + delay_s - time.monotonic())
    return None


def add_admin_service(service: AdminService, server: grpc.aio.Server) -> None:
    """Serve `service` as arena.v1.RefereeAdmin: the generated registration, except that WatchMatch sends the
    public feed's bytes as they are (serialized once for every watcher, not once each)."""
    handlers = {
        "StartMatch": grpc.unary_unary_rpc_method_handler(
            service.StartMatch, request_deserializer=admin_pb2.StartMatchRequest.FromString,
            response_serializer=admin_pb2.StartMatchReply.SerializeToString),
        "WatchMatch": grpc.unary_stream_rpc_method_handler(
            service.WatchMatch, request_deserializer=admin_pb2.WatchMatchRequest.FromString,
            response_serializer=bytes),
        "WatchMatchFull": grpc.unary_stream_rpc_method_handler(
            service.WatchMatchFull, request_deserializer=admin_pb2.WatchMatchRequest.FromString,
            response_serializer=admin_pb2.MatchEvent.SerializeToString),
        "GetMatch": grpc.unary_unary_rpc_method_handler(
            service.GetMatch, request_deserializer=admin_pb2.GetMatchRequest.FromString,
            response_serializer=admin_pb2.MatchStatus.SerializeToString),
        "ListMatches": grpc.unary_unary_rpc_method_handler(
            service.ListMatches, request_deserializer=admin_pb2.ListMatchesRequest.FromString,
            response_serializer=admin_pb2.ListMatchesReply.SerializeToString),
        "ListBots": grpc.unary_unary_rpc_method_handler(
            service.ListBots, request_deserializer=admin_pb2.ListBotsRequest.FromString,
            response_serializer=admin_pb2.ListBotsReply.SerializeToString),
    }
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE_NAME, handlers),))
    server.add_registered_method_handlers(SERVICE_NAME, handlers)


def _released(live: LiveMatch, delay_s: Optional[float]) -> int:
    """How many steps of a running match the full view may show now."""
    if delay_s is None:
        return 0
    cutoff = time.monotonic() - delay_s
    count = 0
    for at in live.step_times:
        if at > cutoff:
            break
        count += 1
    return count


def _header(live: LiveMatch) -> admin_pb2.MatchHeader:
    header = admin_pb2.MatchHeader(match_id=live.match_id, game=live.game.name,
                                   clock=clock_to_message(live.clock), seat_names=list(live.game.info.seat_names),
                                   board_json=json.dumps(views.board(live.game)))
    options_to_map(live.game.options, header.options)
    players_to_messages(live.players, header.players)
    return header


def step_event(step: Step, *, full: bool) -> admin_pb2.StepEvent:
    """One step as a watcher sees it: the public view hides what the step hides (a card drawn)."""
    event = admin_pb2.StepEvent(n=step.n, seat=step.seat, action=step.action, label=step.label,
                                think_ms=step.timing.get("think_ms", 0.0),
                                transport_ms=step.timing.get("transport_ms", 0.0))
    if not full and step.spectator_label is not None:
        event.action = -1
        event.label = step.spectator_label
        event.hidden = True
    return event


def _status(live: LiveMatch, include_record: bool = False) -> admin_pb2.MatchStatus:
    status = admin_pb2.MatchStatus(match_id=live.match_id, state="finished" if live.is_finished else "running",
                                   game=live.game.name, steps=len(live.steps), record_path=str(live.path or ""))
    players_to_messages(live.players, status.players)
    if live.record is not None and live.record.result is not None:
        status.seed = live.seed
        result_to_message(live.record.result, status.result)
        if include_record:
            status.record_jsonl = live.record.to_jsonl()
    return status


def admin_metadata(token: Optional[str]) -> Optional[tuple[tuple[str, str], ...]]:
    """The call metadata that carries an admin token."""
    return ((AUTH_HEADER, f"Bearer {token}"),) if token else None


def describe_call_error(error: grpc.aio.AioRpcError, address: str) -> str:
    """One line for a failed admin call."""
    if error.code() == grpc.StatusCode.UNAVAILABLE:
        return f"no referee reachable at {address} ({error.details()})"
    return f"{error.details()} ({error.code().name.lower()})"
