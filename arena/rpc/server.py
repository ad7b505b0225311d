"""The referee server: the bot service, the admin service, health checking and reflection.

    server = RefereeServer(ServerConfig(bot_dirs=[Path("bots")]))
    await server.start()                       # listens on 127.0.0.1, a free port by default
    record = await server.run_match("major-general", ["random", "random"], seed=1)
    await server.stop()                        # finishes or voids matches, stops bot processes

Bots connect to arena.v1.Bot/Play (local ones are launched from their manifests); matches run
in the transport-agnostic loop of arena.referee.authority; records are stored under
results/records/ and replay with `arena replay`.
"""

from __future__ import annotations

import asyncio
import json
import random
import uuid
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Sequence

import grpc
from google.protobuf.message import DecodeError
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from arena import __version__
from arena.games.base import Game, State
from arena.games.registry import GameOptionError, UnknownGameError, load_game, resolve
from arena.referee.archive import save_record
from arena.referee.authority import referee_match
from arena.referee.clock import ClockSettings
from arena.referee.faults import FaultPolicy, FaultPolicyError, SeatFault, void_result
from arena.referee.local import new_record
from arena.referee.record import MatchRecord, MatchResult, PlayerInfo, Step
from arena.referee.seats import Answer, Ask, MatchSetup, SeatPort
from arena.rpc.convert import (
    ConversionError,
    clock_from_message,
    clock_to_message,
    options_from_map,
    options_to_map,
    players_to_messages,
    result_to_message,
)
from arena.rpc.generated import admin_pb2, admin_pb2_grpc, bot_pb2
from arena.rpc.manifest import discover_manifests
from arena.rpc.observations import NoObservationCodec, codec_for_game
from arena.rpc.pool import AdmissionError, BotPool, BotUnavailable
from arena.rpc.session import MAX_MESSAGE_BYTES, BotSession

BOT_SERVICE = bot_pb2.DESCRIPTOR.services_by_name["Bot"].full_name  # "arena.v1.Bot"
ADMIN_SERVICE = admin_pb2.DESCRIPTOR.services_by_name["RefereeAdmin"].full_name
TRANSPORT_MESSAGE_LIMIT = 16 * 1024 * 1024  # gRPC's own cap; the protocol's is MAX_MESSAGE_BYTES


class MatchRequestError(ValueError):
    """A match that cannot be started as asked (unknown game or bot, wrong number of bots...)."""


@dataclass
class ServerConfig:
    """Everything `arena serve` can set."""

    host: str = "127.0.0.1"
    port: int = 0  # 0 = a free port
    bot_dirs: Sequence[Path] = (Path("bots"),)
    remote_tokens: dict[str, str] = field(default_factory=dict)  # remote bot name -> token
    results_dir: Optional[Path] = Path("results")  # None: keep records in memory only
    clock: ClockSettings = field(default_factory=ClockSettings)
    fault_policy: FaultPolicy = field(default_factory=FaultPolicy)
    startup_timeout_s: float = 30.0  # a launched bot must say Hello within this
    connect_timeout_s: float = 30.0  # a remote bot must have a stream open within this
    hello_timeout_s: float = 10.0  # a new stream must say Hello within this
    max_matches: int = 64  # matches played at once; more wait their turn
    finished_kept: int = 1000  # finished matches the admin service can still show (records stay on disk)
    seed_salt: Optional[str] = None  # set it when bots are untrusted (see authority.bot_seed)
    admin_token: Optional[str] = None  # when set, admin calls need "authorization: Bearer <token>"


class LiveMatch:
    """A match the server was asked to play: its settings, its steps so far, and its record."""

    def __init__(self, match_id: str, game: Game, family: str, bots: list[str], seed: int, clock: ClockSettings,
                 policy: FaultPolicy) -> None:
        self.match_id = match_id
        self.game = game
        self.family = family
        self.bots = bots
        self.seed = seed
        self.clock = clock
        self.policy = policy
        self.players = [PlayerInfo(seat, name, "", "bot") for seat, name in enumerate(bots)]
        self.steps: list[Step] = []
        self.record: Optional[MatchRecord] = None
        self.path: Optional[Path] = None
        self.task: Optional[asyncio.Task[MatchRecord]] = None
        self.watchers: set[asyncio.Event] = set()

    @property
    def is_finished(self) -> bool:
        """True once the record has its result."""
        return self.record is not None

    def on_step(self, state: State, step: Step) -> None:
        """The match loop's callback: keep the step and wake the watchers."""
        self.steps.append(step)
        for watcher in self.watchers:
            watcher.set()

    def finish(self, record: MatchRecord, path: Optional[Path]) -> None:
        """The match is over."""
        self.record = record
        self.path = path
        for watcher in self.watchers:
            watcher.set()


class FailedSeat(SeatPort):
    """A seat whose bot could not be brought to the table: the match records that fault."""

    def __init__(self, name: str, version: str, problem: BotUnavailable) -> None:
        self._player = PlayerInfo(0, name, version, "bot")
        self.problem = problem

    @property
    def player(self) -> PlayerInfo:
        return self._player

    async def start(self, setup: MatchSetup) -> None:
        raise SeatFault(setup.seat, self.problem.reason, self.problem.detail)

    async def decide(self, ask: Ask) -> Answer:  # pragma: no cover - start always fails
        raise SeatFault(ask.seat, self.problem.reason, self.problem.detail)

    async def finish(self, result: MatchResult) -> None:
        return None

    async def examine(self, fault: SeatFault) -> tuple[SeatFault, dict[str, Any]]:
        return fault, dict(self.problem.evidence)


class RefereeServer:
    """The referee as a gRPC server (grpc.aio) with a Python API to run matches."""

    def __init__(self, config: ServerConfig | None = None) -> None:
        self.config = config or ServerConfig()
        manifests = discover_manifests(d for d in self.config.bot_dirs if Path(d).exists())
        self.pool = BotPool(manifests, dict(self.config.remote_tokens),
                            startup_timeout_s=self.config.startup_timeout_s,
                            connect_timeout_s=self.config.connect_timeout_s)
        self.matches: dict[str, LiveMatch] = {}
        self.address = ""
        self.port = 0
        self._server: Optional[grpc.aio.Server] = None
        self._health: Optional[health.aio.HealthServicer] = None
        self._slots: Optional[asyncio.Semaphore] = None
        self._accepting = False
        self._games: dict[tuple[str, str], tuple[Game, str]] = {}
        self._finished: deque[str] = deque()

    # --- lifecycle ---------------------------------------------------------------------------

    async def start(self) -> str:
        """Bind, start serving, and return the address ("host:port")."""
        server = grpc.aio.server(options=[
            ("grpc.max_receive_message_length", TRANSPORT_MESSAGE_LIMIT),
            ("grpc.so_reuseport", 0),
        ])
        server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler(
            BOT_SERVICE, {"Play": grpc.stream_stream_rpc_method_handler(self._play_rpc)})])
        admin_pb2_grpc.add_RefereeAdminServicer_to_server(AdminService(self), server)
        self._health = health.aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(self._health, server)
        reflection.enable_server_reflection(
            [BOT_SERVICE, ADMIN_SERVICE, health.SERVICE_NAME, reflection.SERVICE_NAME], server)
        host = self.config.host
        self.port = server.add_insecure_port(f"{host}:{self.config.port}")
        if self.port == 0:
            raise OSError(f"cannot listen on {host}:{self.config.port}")
        await server.start()
        self._server = server
        self.address = f"{host}:{self.port}"
        self.pool.address = self.address if host not in ("0.0.0.0", "::", "[::]") else f"127.0.0.1:{self.port}"
        self._slots = asyncio.Semaphore(self.config.max_matches)
        self._accepting = True
        for service in ("", BOT_SERVICE, ADMIN_SERVICE):
            await self._health.set(service, health_pb2.HealthCheckResponse.SERVING)
        return self.address

    async def stop(self, drain_s: float = 10.0) -> list[MatchRecord]:
        """Graceful shutdown: let running matches finish for `drain_s`, void the rest, stop bots."""
        self._accepting = False
        if self._health is not None:
            await self._health.enter_graceful_shutdown()
        running = [live.task for live in self.matches.values() if live.task is not None and not live.task.done()]
        if running:
            await asyncio.wait(running, timeout=drain_s)
            for task in running:
                if not task.done():
                    task.cancel()  # the match loop voids the match and records why
            await asyncio.gather(*running, return_exceptions=True)
        voided = [live.record for live in self.matches.values()
                  if live.record is not None and live.record.result is not None and live.record.result.reason == "void"]
        await self.pool.close()
        if self._server is not None:
            await self._server.stop(grace=1.0)
        return voided

    async def wait_closed(self) -> None:
        """Wait until the gRPC server has stopped."""
        if self._server is not None:
            await self._server.wait_for_termination()

    def register_remote(self, name: str, token: str | None = None) -> str:
        """Register a remote bot (or give it a new token); returns the token it must say Hello with."""
        return self.pool.register_remote(name, token)

    # --- matches -----------------------------------------------------------------------------

    def start_match(self, game_name: str, bots: Sequence[str], *, seed: int | None = None,
                    options: dict[str, Any] | None = None, clock: ClockSettings | None = None,
                    fault_policy: FaultPolicy | str | None = None, match_id: str | None = None) -> LiveMatch:
        """Check a match request and start playing it; returns at once."""
        if not self._accepting:
            raise MatchRequestError("the referee is not accepting matches (not started, or shutting down)")
        try:
            game, family = self._game(game_name, options)
        except (UnknownGameError, GameOptionError, NoObservationCodec, ValueError) as error:
            raise MatchRequestError(str(error)) from None
        bots = list(bots)
        if len(bots) != game.num_seats:
            raise MatchRequestError(f"{game.name} has {game.num_seats} seats; {len(bots)} bot(s) named")
        for name in bots:
            try:
                self.pool.check_plays(name, game.name, family)
            except (LookupError, ValueError) as error:
                raise MatchRequestError(str(error.args[0])) from None
        if isinstance(fault_policy, str):
            try:
                fault_policy = FaultPolicy.parse(fault_policy)
            except FaultPolicyError as error:
                raise MatchRequestError(str(error)) from None
        if seed is None:
            seed = random.SystemRandom().randrange(2**31)
        match_id = match_id or uuid.uuid4().hex
        if match_id in self.matches:
            raise MatchRequestError(f"match id {match_id} is taken")
        live = LiveMatch(match_id, game, family, bots, seed, clock or self.config.clock,
                         fault_policy or self.config.fault_policy)
        self.matches[match_id] = live
        live.task = asyncio.get_running_loop().create_task(self._run(live), name=f"match-{match_id[:8]}")
        return live

    def _game(self, name: str, options: dict[str, Any] | None) -> tuple[Game, str]:
        """The game (built once per name and options: games are immutable) and its family."""
        key = (name, json.dumps(options or {}, sort_keys=True, default=repr))
        cached = self._games.get(key)
        if cached is None:
            family = resolve(name).family
            codec_for_game(name)  # refuses families without a typed observation
            cached = self._games[key] = (load_game(name, options), family)
        return cached

    async def run_match(self, game_name: str, bots: Sequence[str], seed: int | None = None,
                        **settings: Any) -> MatchRecord:
        """Play one match between bots (by name) and return its record."""
        live = self.start_match(game_name, bots, seed=seed, **settings)
        assert live.task is not None
        return await live.task

    async def _run(self, live: LiveMatch) -> MatchRecord:
        assert self._slots is not None
        try:
            async with self._slots:
                ports = await asyncio.gather(*(self._seat(name, live.game.name, live.family) for name in live.bots))
                live.players = [PlayerInfo(seat, port.player.name, port.player.version, "bot")
                                for seat, port in enumerate(ports)]
                record = await referee_match(
                    live.game, ports, live.seed, clock=live.clock, policy=live.policy, match_id=live.match_id,
                    seed_salt=self.config.seed_salt, on_step=live.on_step,
                    extra={"transport": "grpc", "server": f"arena {__version__}"})
        except asyncio.CancelledError:  # stopped before the match began: still leave a record
            record = new_record(live.game, live.players, live.seed, live.match_id)
            record.result = void_result(live.game.num_seats, "the referee shut down before the match began")
        path = None
        if self.config.results_dir is not None:
            try:
                path = await asyncio.to_thread(save_record, self.config.results_dir, record)
            except OSError as error:
                record.extra["storage_error"] = str(error)
        live.finish(record, path)
        self._finished.append(live.match_id)
        while len(self._finished) > self.config.finished_kept:  # a long-running server keeps no more
            self.matches.pop(self._finished.popleft(), None)
        return record

    async def _seat(self, name: str, game_name: str, family: str) -> SeatPort:
        try:
            return await self.pool.acquire(name, game_name, family)
        except BotUnavailable as problem:
            manifest = self.pool.manifests.get(name)
            return FailedSeat(name, manifest.version if manifest else "", problem)

    # --- the bot service ---------------------------------------------------------------------

    async def _play_rpc(self, request_iterator: Any, context: grpc.aio.ServicerContext) -> None:
        """arena.v1.Bot/Play: read the Hello, then hold the stream until its match has ended."""
        try:
            await self._serve_stream(context)
        except asyncio.CancelledError:  # the bot hung up, or the server is stopping: the RPC is over
            pass

    async def _serve_stream(self, context: grpc.aio.ServicerContext) -> None:
        try:
            async with asyncio.timeout(self.config.hello_timeout_s):
                raw = await context.read()
        except TimeoutError:
            await context.abort(grpc.StatusCode.DEADLINE_EXCEEDED,
                                f"no Hello within {self.config.hello_timeout_s:g}s of opening the stream")
            return
        if raw is grpc.aio.EOF:
            return
        hello = _parse_hello(raw)
        if hello is None:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                                "the first message on a stream must be a BotMessage with a Hello")
            return
        try:
            name, local = self.pool.admit(hello.name, hello.token, hello.protocol_version)
        except AdmissionError as error:
            await context.abort(error.code, error.message)
            return
        version = hello.version or (local.process.manifest.version if local else "")
        games = tuple(local.process.manifest.games) if local else tuple(hello.games)
        session = BotSession(context, name=name, version=version, games=games, omit_labels=hello.omit_labels,
                             process=local.process if local else None)
        context.add_done_callback(session.on_rpc_done)
        self.pool.offer(session, local)
        try:
            await session.closed
        finally:
            session.on_rpc_done()
            self.pool.withdraw(session, local)


def _parse_hello(raw: bytes) -> Optional[bot_pb2.Hello]:
    if len(raw) > MAX_MESSAGE_BYTES:
        return None
    try:
        message = bot_pb2.BotMessage.FromString(raw)
    except DecodeError:
        return None
    return message.hello if message.WhichOneof("kind") == "hello" else None


class AdminService(admin_pb2_grpc.RefereeAdminServicer):
    """arena.v1.RefereeAdmin: start matches, watch them live, fetch their records."""

    def __init__(self, referee: RefereeServer) -> None:
        self.referee = referee

    async def _authorize(self, context: grpc.aio.ServicerContext) -> None:
        token = self.referee.config.admin_token
        if not token:
            return
        metadata = dict(context.invocation_metadata() or ())
        if metadata.get("authorization") != f"Bearer {token}":
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "admin calls need 'authorization: Bearer <token>'")

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

    async def WatchMatch(self, request: admin_pb2.WatchMatchRequest, context: grpc.aio.ServicerContext
                         ) -> Any:
        await self._authorize(context)
        live = self.referee.matches.get(request.match_id)
        if live is None:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no match {request.match_id!r}")
            return
        yield admin_pb2.MatchEvent(header=_header(live))
        wake = asyncio.Event()
        live.watchers.add(wake)
        sent = 0
        try:
            while True:
                wake.clear()
                while sent < len(live.steps):
                    yield admin_pb2.MatchEvent(step=_step_event(live.steps[sent]))
                    sent += 1
                if live.record is not None:
                    steps = live.record.steps
                    while sent < len(steps):
                        yield admin_pb2.MatchEvent(step=_step_event(steps[sent]))
                        sent += 1
                    finished = admin_pb2.MatchFinished(record_path=str(live.path or ""))
                    assert live.record.result is not None
                    result_to_message(live.record.result, finished.result)
                    yield admin_pb2.MatchEvent(finished=finished)
                    return
                await wake.wait()
        finally:
            live.watchers.discard(wake)

    async def GetMatch(self, request: admin_pb2.GetMatchRequest, context: grpc.aio.ServicerContext
                       ) -> admin_pb2.MatchStatus:
        await self._authorize(context)
        live = self.referee.matches.get(request.match_id)
        if live is None:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no match {request.match_id!r} in memory (the server "
                                f"keeps the last {self.referee.config.finished_kept} finished; records stay on disk)")
            raise LookupError(request.match_id)
        return _status(live, include_record=request.include_record)

    async def ListMatches(self, request: admin_pb2.ListMatchesRequest, context: grpc.aio.ServicerContext
                          ) -> admin_pb2.ListMatchesReply:
        await self._authorize(context)
        return admin_pb2.ListMatchesReply(matches=[_status(live) for live in self.referee.matches.values()])

    async def ListBots(self, request: admin_pb2.ListBotsRequest, context: grpc.aio.ServicerContext
                       ) -> admin_pb2.ListBotsReply:
        await self._authorize(context)
        return admin_pb2.ListBotsReply(bots=[admin_pb2.BotStatus(**row) for row in self.referee.pool.status()])


def _header(live: LiveMatch) -> admin_pb2.MatchHeader:
    header = admin_pb2.MatchHeader(match_id=live.match_id, game=live.game.name, seed=live.seed,
                                   clock=clock_to_message(live.clock), seat_names=list(live.game.info.seat_names))
    options_to_map(live.game.options, header.options)
    players_to_messages(live.players, header.players)
    return header


def _step_event(step: Step) -> admin_pb2.StepEvent:
    return admin_pb2.StepEvent(n=step.n, seat=step.seat, action=step.action, label=step.label,
                               think_ms=step.timing.get("think_ms", 0.0),
                               transport_ms=step.timing.get("transport_ms", 0.0))


def _status(live: LiveMatch, include_record: bool = False) -> admin_pb2.MatchStatus:
    status = admin_pb2.MatchStatus(match_id=live.match_id, state="finished" if live.is_finished else "running",
                                   game=live.game.name, seed=live.seed, steps=len(live.steps),
                                   record_path=str(live.path or ""))
    players_to_messages(live.players, status.players)
    if live.record is not None and live.record.result is not None:
        result_to_message(live.record.result, status.result)
        if include_record:
            status.record_jsonl = live.record.to_jsonl()
    return status


def listening_line(address: str) -> str:
    """One line telling a user how to reach the server."""
    return f"referee listening on {address} (health: grpc.health.v1.Health; admin: {ADMIN_SERVICE})"
