"""A client of a running referee's admin service (`arena serve`): start, watch and fetch matches."""

from __future__ import annotations

import json
from contextvars import ContextVar
from typing import Any, AsyncIterator, Optional, Sequence

import grpc

from arena.referee.clock import ClockSettings
from arena.referee.record import MatchRecord
from arena.rpc.admin import admin_metadata, describe_call_error
from arena.rpc.convert import clock_to_message, options_to_map, result_from_message
from arena.rpc.generated import admin_pb2, admin_pb2_grpc
from arena.rpc.sdk import open_channel


#: Who sits where in the match being watched (its seat names, its players by seat), as the watch's header said:
#: the words `event_json` names the winner with. A watch is followed in one task, and a task keeps its own value
#: (AdminClient.watch sets it as the header passes; its events are turned into JSON in the same task).
_WATCHED: ContextVar[tuple[tuple[str, ...], tuple[str, ...]]] = ContextVar("watched_match", default=((), ()))


class AdminError(RuntimeError):
    """The referee refused or failed an admin call; the message is its explanation."""


class AdminClient:
    """Async client for arena.v1.RefereeAdmin; use `async with AdminClient(address) as admin:`."""

    def __init__(self, address: str, token: Optional[str] = None, tls_ca: Optional[str] = None) -> None:
        self.address = address
        self.tls_ca = tls_ca
        self._metadata = admin_metadata(token)
        self._channel: Optional[grpc.aio.Channel] = None
        self._stub: Optional[admin_pb2_grpc.RefereeAdminStub] = None

    async def __aenter__(self) -> AdminClient:
        try:
            self._channel = open_channel(self.address, self.tls_ca)
        except ConnectionError as error:
            raise AdminError(str(error)) from None
        self._stub = admin_pb2_grpc.RefereeAdminStub(self._channel)
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        if self._channel is not None:
            await self._channel.close()

    @property
    def stub(self) -> admin_pb2_grpc.RefereeAdminStub:
        """The generated stub."""
        assert self._stub is not None, "use `async with AdminClient(...)`"
        return self._stub

    async def start_match(self, game: str, bots: Sequence[str], *, seed: int | None = None,
                          options: dict[str, Any] | None = None, clock: ClockSettings | None = None,
                          fault_policy: str = "") -> str:
        """Start a match; returns its id."""
        request = admin_pb2.StartMatchRequest(game=game, bots=list(bots), fault_policy=fault_policy)
        options_to_map(options or {}, request.options)
        if seed is not None:
            request.seed = seed
        if clock is not None:
            request.clock.CopyFrom(clock_to_message(clock))
        reply = await self._call(self.stub.StartMatch, request)
        return str(reply.match_id)

    async def watch(self, match_id: str, full: bool = False) -> AsyncIterator[admin_pb2.MatchEvent]:
        """The match's events: header, steps, then the result; the public view (asked for in batches, handed
        out a step each), or with `full` the admin's (hidden steps, seed; delayed while the match runs)."""
        method = self.stub.WatchMatchFull if full else self.stub.WatchMatch
        request = admin_pb2.WatchMatchRequest(match_id=match_id, batched=not full)
        try:
            async for event in method(request, metadata=self._metadata):
                for single in _unbatched(event):
                    yield single
        except grpc.aio.AioRpcError as error:
            raise AdminError(describe_call_error(error, self.address)) from None

    async def record(self, match_id: str) -> MatchRecord:
        """The record of a finished match."""
        status = await self._call(self.stub.GetMatch, admin_pb2.GetMatchRequest(match_id=match_id,
                                                                                 include_record=True))
        if not status.record_jsonl:
            raise AdminError(f"match {match_id} has not finished")
        return MatchRecord.from_jsonl(status.record_jsonl)

    async def status(self, match_id: str) -> admin_pb2.MatchStatus:
        """Where a match stands: running or finished, its steps so far, its result once over."""
        status: admin_pb2.MatchStatus = await self._call(self.stub.GetMatch,
                                                         admin_pb2.GetMatchRequest(match_id=match_id))
        return status

    async def matches(self) -> list[admin_pb2.MatchStatus]:
        """The matches the referee is running or keeps (needs the admin token)."""
        return list((await self._call(self.stub.ListMatches, admin_pb2.ListMatchesRequest())).matches)

    async def bots(self) -> list[admin_pb2.BotStatus]:
        """The bots the referee knows."""
        return list((await self._call(self.stub.ListBots, admin_pb2.ListBotsRequest())).bots)

    async def _call(self, method: Any, request: Any) -> Any:
        try:
            return await method(request, metadata=self._metadata)
        except grpc.aio.AioRpcError as error:
            raise AdminError(describe_call_error(error, self.address)) from None


def event_json(event: admin_pb2.MatchEvent) -> dict[str, Any]:
    """A watch event as JSON for a web page: {"kind": "header"|"step"|"finished", ...}; a finished match's result
    says who won and how in words ("verdict": MatchResult.verdict, its seats named as its watch's header does)."""
    kind = event.WhichOneof("kind")
    if kind == "header":
        header = event.header
        return {"kind": "header", "match_id": header.match_id, "game": header.game,
                "players": [{"seat": p.seat, "name": p.name, "version": p.version} for p in header.players],
                "seat_names": list(header.seat_names),
                "board": json.loads(header.board_json) if header.board_json else None}
    if kind == "step":
        step = event.step
        return {"kind": "step", "n": step.n, "seat": step.seat, "label": step.label, "hidden": step.hidden,
                "think_ms": round(step.think_ms, 3),
                "position": json.loads(step.position_json) if step.position_json else None}
    finished = event.finished.result
    seat_names, players = _WATCHED.get()
    return {"kind": "finished", "result": {"ranking": list(finished.ranking), "reason": finished.reason,
                                           "scores": list(finished.scores), "detail": finished.detail,
                                           "verdict": result_from_message(finished).verdict(seat_names, players)}}


def _unbatched(event: admin_pb2.MatchEvent) -> list[admin_pb2.MatchEvent]:
    """A watch event as the events it holds (a batch of steps: an event per step); a header is noted for
    `event_json` (_WATCHED) as it passes."""
    kind = event.WhichOneof("kind")
    if kind == "header":
        _WATCHED.set(_seating(event.header))
    if kind == "steps":
        return [admin_pb2.MatchEvent(step=step) for step in event.steps.steps]
    return [event]


def _seating(header: admin_pb2.MatchHeader) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A watch header's seat names and its players' names by seat."""
    names = {player.seat: player.name for player in header.players}
    return tuple(header.seat_names), tuple(names.get(seat, "") for seat in range(max(names, default=-1) + 1))
