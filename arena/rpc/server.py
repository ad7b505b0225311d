"""The referee server: the bot service, the admin service, health checking and reflection.

    server = RefereeServer(ServerConfig(bot_dirs=[Path("bots")]))
    await server.start()                       # a free loopback port by default, and the bot socket
    record = await server.run_match("major-general", ["random", "random"], seed=1)
    await server.stop()                        # finishes or voids matches, stops bot processes

Two listeners, each with only what its callers need:
- the bot socket, a Unix socket in a private folder, serves arena.v1.Bot alone: local bot programs,
  launched in their sandboxes (arena.sandbox), reach it bind-mounted at /run/arena/referee.sock
  and say Hello with their launch token;
- the network port (`port`, None for none) serves remote bots (registered tokens only), the admin
  service (the admin token on every call but WatchMatch), health checking and reflection, over
  TLS when a certificate is given.
Matches run in the transport-agnostic loop of arena.referee.authority; records are stored under
results/records/ and replay with `arena replay`.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import secrets
import shutil
import tempfile
import time
import uuid
from collections import Counter, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Sequence

import grpc
from google.protobuf.message import DecodeError
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection, reflection_pb2

from arena import __version__
from arena.agents.base import Agent
from arena.games.base import Game, State
from arena.games.registry import GameOptionError, UnknownGameError, load_game, resolve
from arena.referee.archive import save_record
from arena.referee.authority import referee_match
from arena.referee.clock import ClockSettings
from arena.referee.faults import FaultPolicy, FaultPolicyError, SeatFault, void_result
from arena.referee.authority import new_record
from arena.referee.record import MatchRecord, MatchResult, PlayerInfo, Step
from arena.referee.seats import AgentSeat, Answer, Ask, MatchSetup, SeatPort
from arena.rpc.admin import AdminService
from arena.rpc.generated import admin_pb2, admin_pb2_grpc, bot_pb2
from arena.rpc.manifest import discover_manifests
from arena.rpc.observations import NoObservationCodec, codec_for_game
from arena.rpc.pool import AdmissionError, BotPool, BotUnavailable, new_token
from arena.rpc.session import MAX_MESSAGE_BYTES, TRANSPORT_MESSAGE_LIMIT, BotSession
from arena.sandbox.launch import Launcher, SandboxSettings, check_sandbox

BOT_SERVICE = bot_pb2.DESCRIPTOR.services_by_name["Bot"].full_name  # "arena.v1.Bot"
ADMIN_SERVICE = admin_pb2.DESCRIPTOR.services_by_name["RefereeAdmin"].full_name
REFLECTION_V1 = "grpc.reflection.v1.ServerReflection"
MAX_STREAMS_PER_CONNECTION = 256  # HTTP/2 streams one connection may hold open at once
MAX_PENDING_HELLOS = 1024  # streams waiting to say Hello, over all peers


class MatchRequestError(ValueError):
    """A match that cannot be started as asked (unknown game or bot, wrong number of bots...)."""


@dataclass
class ServerConfig:
    """Everything `arena serve` can set."""

    host: str = "127.0.0.1"
    port: Optional[int] = 0  # 0 = a free port; None = no network listener (local bots on the bot socket only)
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
    seed_salt: Optional[str] = None  # keys bots' seeds (authority.seat_seed); None: a secret one made at start
    public_seeds: bool = False  # bots' seeds from the match seed alone (as in local play): trusted bots only
    admin_token: Optional[str] = None  # admin calls need "authorization: Bearer <token>"; None: one is made
    admin_token_file: Optional[Path] = None  # where a made token is written (0600), for admin clients here
    watch_delay_s: Optional[float] = None  # admins' full view of a running match lags this far; None: at the end
    sandbox: SandboxSettings = field(default_factory=SandboxSettings)
    idle_timeout_s: float = 600.0  # a warm bot process idle this long is stopped
    tls_cert: Optional[Path] = None  # PEM certificate chain and key: the network port speaks TLS
    tls_key: Optional[Path] = None
    max_pending_hellos_per_peer: int = 32  # streams one network peer may hold open before saying Hello


class LiveMatch:
    """A match the server was asked to play: its settings, its steps so far, and its record."""

    def __init__(self, match_id: str, game: Game, family: str, bots: list[str | Agent], seed: int,
                 clock: ClockSettings, policy: FaultPolicy) -> None:
        self.match_id = match_id
        self.game = game
        self.family = family
        self.entries = bots  # a bot's name, or an in-process agent, per seat
        self.bots = [entry.name if isinstance(entry, Agent) else entry for entry in bots]
        self.seed = seed
        self.clock = clock
        self.policy = policy
        self.players = [PlayerInfo(seat, name, "", "agent" if isinstance(entry, Agent) else "bot")
                        for seat, (name, entry) in enumerate(zip(self.bots, bots))]
        self.steps: list[Step] = []
        self.step_times: list[float] = []  # time.monotonic() of each step, for the watch delay
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
        self.step_times.append(time.monotonic())
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
                            connect_timeout_s=self.config.connect_timeout_s,
                            idle_timeout_s=self.config.idle_timeout_s)
        self.matches: dict[str, LiveMatch] = {}
        self.address = ""  # host:port of the network listener ("" without one)
        self.port = 0
        self.admin_token = self.config.admin_token or ""
        # Without a secret salt a bot could search small match seeds for the one that gives its own seed,
        # and so know every card and die to come: so there is always one, unless the operator opts out.
        self.seed_salt = None if self.config.public_seeds else (self.config.seed_salt or secrets.token_hex(16))
        self.admin_token_path: Optional[Path] = None  # where a made token was written
        self.runtime_dir: Optional[Path] = None  # private folder of the bot socket and launch tokens
        self.bot_socket: Optional[Path] = None
        self._server: Optional[grpc.aio.Server] = None
        self._bot_server: Optional[grpc.aio.Server] = None
        self._pending_hellos: Counter[str] = Counter()
        self._health: Optional[health.aio.HealthServicer] = None
        self._slots: Optional[asyncio.Semaphore] = None
        self._accepting = False
        self._games: dict[tuple[str, str], tuple[Game, str]] = {}
        self._finished: deque[str] = deque()

    # --- lifecycle ---------------------------------------------------------------------------

    async def start(self) -> str:
        """Open the bot socket and the network port, start serving; returns "host:port" (or the socket)."""
        if self.pool.manifests:
            check_sandbox(self.config.sandbox.mode)  # SandboxUnavailable: one line saying what to do
        self.runtime_dir = _private_folder()
        self.bot_socket = self.runtime_dir / "bots.sock"
        try:
            await self._start_bot_socket(self.bot_socket)
            self.pool.launcher = Launcher(self.config.sandbox, self.runtime_dir, self.bot_socket)
            if self.config.port is not None:
                await self._start_network()
        except BaseException:
            await self._close_listeners()
            raise
        if not self.admin_token:
            self.admin_token = new_token()
            if self.config.admin_token_file is not None:
                self.admin_token_path = write_secret(self.config.admin_token_file, self.admin_token)
        self._slots = asyncio.Semaphore(self.config.max_matches)
        self._accepting = True
        return self.address or f"unix:{self.bot_socket}"

    async def _start_bot_socket(self, path: Path) -> None:
        server = grpc.aio.server(options=_server_options())
        server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler(
            BOT_SERVICE, {"Play": grpc.stream_stream_rpc_method_handler(self._play_on_socket)})])
        if server.add_insecure_port(f"unix:{path}") == 0:
            raise OSError(f"cannot listen on the bot socket {path}")
        await server.start()
        path.chmod(0o600)
        self._bot_server = server

    async def _start_network(self) -> None:
        server = grpc.aio.server(options=_server_options())
        server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler(
            BOT_SERVICE, {"Play": grpc.stream_stream_rpc_method_handler(self._play_on_network)})])
        admin_pb2_grpc.add_RefereeAdminServicer_to_server(AdminService(self), server)
        self._health = health.aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(self._health, server)
        services = [BOT_SERVICE, ADMIN_SERVICE, health.SERVICE_NAME, reflection.SERVICE_NAME, REFLECTION_V1]
        reflection.enable_server_reflection(services, server)
        _enable_reflection_v1(services, server)
        host, port = self.config.host, self.config.port
        if self.config.tls_cert is not None or self.config.tls_key is not None:
            self.port = server.add_secure_port(f"{host}:{port}", tls_credentials(self.config.tls_cert,
                                                                                 self.config.tls_key))
        else:
            self.port = server.add_insecure_port(f"{host}:{port}")
        if self.port == 0:
            raise OSError(f"cannot listen on {host}:{port}")
        await server.start()
        self._server = server
        self.address = f"{host}:{self.port}"
        for service in ("", BOT_SERVICE, ADMIN_SERVICE):
            await self._health.set(service, health_pb2.HealthCheckResponse.SERVING)

    @property
    def is_tls(self) -> bool:
        """True when the network port speaks TLS."""
        return self.config.tls_cert is not None

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
        await self._close_listeners()
        return voided

    async def _close_listeners(self) -> None:
        for server in (self._server, self._bot_server):
            if server is not None:
                await server.stop(grace=1.0)
        if self.pool.launcher is not None:
            self.pool.launcher.close()
        if self.runtime_dir is not None:
            shutil.rmtree(self.runtime_dir, ignore_errors=True)
        if self.admin_token_path is not None:
            self.admin_token_path.unlink(missing_ok=True)
            self.admin_token_path = None

    async def wait_closed(self) -> None:
        """Wait until the gRPC servers have stopped."""
        for server in (self._server, self._bot_server):
            if server is not None:
                await server.wait_for_termination()

    def register_remote(self, name: str, token: str | None = None) -> str:
        """Register a remote bot (or give it a new token); returns the token it must say Hello with."""
        return self.pool.register_remote(name, token)

    # --- matches -----------------------------------------------------------------------------

    def start_match(self, game_name: str, bots: Sequence[str | Agent], *, seed: int | None = None,
                    options: dict[str, Any] | None = None, clock: ClockSettings | None = None,
                    fault_policy: FaultPolicy | str | None = None, match_id: str | None = None) -> LiveMatch:
        """Check a match request and start playing it; returns at once.

        A seat is a bot's name (a local program or a registered remote bot) or an in-process Agent,
        which then plays in this process, on a worker thread, under the same clock.
        """
        if not self._accepting:
            raise MatchRequestError("the referee is not accepting matches (not started, or shutting down)")
        try:
            game, family = self._game(game_name, options)
        except (UnknownGameError, GameOptionError, NoObservationCodec, ValueError) as error:
            raise MatchRequestError(str(error)) from None
        bots = list(bots)
        if len(bots) != game.num_seats:
            raise MatchRequestError(f"{game.name} has {game.num_seats} seats; {len(bots)} bot(s) named")
        for entry in bots:
            if isinstance(entry, Agent):
                continue
            try:
                self.pool.check_plays(entry, game.name, family)
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
                ports = await asyncio.gather(*(self._seat(entry, live.game.name, live.family)
                                               for entry in live.entries))
                live.players = [PlayerInfo(seat, port.player.name, port.player.version, port.player.kind)
                                for seat, port in enumerate(ports)]
                record = await referee_match(
                    live.game, ports, live.seed, clock=live.clock, policy=live.policy, match_id=live.match_id,
                    seed_salt=self.seed_salt, on_step=live.on_step, public_view=True,
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

    async def _seat(self, name: str | Agent, game_name: str, family: str) -> SeatPort:
        if isinstance(name, Agent):
            return AgentSeat(name, threaded=True)
        try:
            return await self.pool.acquire(name, game_name, family)
        except BotUnavailable as problem:
            manifest = self.pool.manifests.get(name)
            return FailedSeat(name, manifest.version if manifest else "", problem)

    # --- the bot service ---------------------------------------------------------------------

    async def _play_on_socket(self, request_iterator: Any, context: grpc.aio.ServicerContext) -> None:
        """arena.v1.Bot/Play on the bot socket: local bots, launch tokens."""
        try:
            await self._serve_stream(context, on_bot_socket=True)
        except asyncio.CancelledError:  # the bot hung up, or the server is stopping: the RPC is over
            pass

    async def _play_on_network(self, request_iterator: Any, context: grpc.aio.ServicerContext) -> None:
        """arena.v1.Bot/Play on the network port: remote bots, registered tokens."""
        try:
            await self._serve_stream(context, on_bot_socket=False)
        except asyncio.CancelledError:
            pass

    async def _serve_stream(self, context: grpc.aio.ServicerContext, *, on_bot_socket: bool) -> None:
        peer = "bot socket" if on_bot_socket else _peer_host(context.peer())
        waiting = self._pending_hellos
        limit = MAX_PENDING_HELLOS if on_bot_socket else self.config.max_pending_hellos_per_peer
        if waiting[peer] >= limit or sum(waiting.values()) >= MAX_PENDING_HELLOS:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                f"too many streams from {peer} waiting to say Hello (at most {limit}); say Hello "
                                "on a stream as soon as it is open")
            return
        waiting[peer] += 1
        try:
            async with asyncio.timeout(self.config.hello_timeout_s):
                raw = await context.read()
        except TimeoutError:
            raw = None
        finally:
            waiting[peer] -= 1
            if waiting[peer] <= 0:
                del waiting[peer]
        if raw is None:
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
        problem = hello_problem(hello)
        if problem:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, problem)
            return
        try:
            name, local = self.pool.admit(hello.name, hello.token, hello.protocol_version,
                                          on_bot_socket=on_bot_socket)
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


MAX_HELLO_TEXT = 64  # characters of a Hello's name and version (they are shown wherever the bot is)
MAX_HELLO_GAMES = 64


def hello_problem(hello: bot_pb2.Hello) -> str:
    """What is wrong with a Hello's free-text fields, or ''."""
    if len(hello.name) > MAX_HELLO_TEXT or len(hello.version) > MAX_HELLO_TEXT:
        return f"a Hello's name and version may have at most {MAX_HELLO_TEXT} characters"
    if len(hello.games) > MAX_HELLO_GAMES or any(len(game) > 2 * MAX_HELLO_TEXT for game in hello.games):
        return f"a Hello lists at most {MAX_HELLO_GAMES} games, each a game or family name"
    if any(not character.isprintable() for character in hello.version):
        return "a Hello's version must be printable text"
    return ""


def _parse_hello(raw: bytes) -> Optional[bot_pb2.Hello]:
    if len(raw) > MAX_MESSAGE_BYTES:
        return None
    try:
        message = bot_pb2.BotMessage.FromString(raw)
    except DecodeError:
        return None
    return message.hello if message.WhichOneof("kind") == "hello" else None


def listening_line(address: str, tls: bool = False) -> str:
    """One line telling a user how to reach the server."""
    return (f"referee listening on {address}{' (TLS)' if tls else ''} (health: grpc.health.v1.Health; "
            f"admin: {ADMIN_SERVICE})")


def _server_options() -> list[tuple[str, Any]]:
    return [("grpc.max_receive_message_length", TRANSPORT_MESSAGE_LIMIT),
            ("grpc.max_concurrent_streams", MAX_STREAMS_PER_CONNECTION),
            ("grpc.so_reuseport", 0)]


def _peer_host(peer: str) -> str:
    """'ipv4:10.0.0.7:51234' -> 'ipv4:10.0.0.7' (streams are limited per host, not per connection)."""
    kind, _, rest = peer.partition(":")
    if kind == "ipv6":
        return kind + ":" + rest.rsplit(":", 1)[0]
    if kind == "ipv4":
        return kind + ":" + rest.split(":", 1)[0]
    return peer


def _private_folder() -> Path:
    """A new 0700 folder for the bot socket and launch tokens, on a path short enough for a socket."""
    base = tempfile.gettempdir()
    if len(base) > 60:  # a Unix socket path holds at most ~107 bytes
        base = "/tmp"
    return Path(tempfile.mkdtemp(prefix="arena-referee-", dir=base))


def write_secret(path: Path, text: str) -> Path:
    """Write a secret to a new file only its owner may read (0600); returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(text + "\n")
    return path


def tls_credentials(cert: Optional[Path], key: Optional[Path]) -> grpc.ServerCredentials:
    """Server credentials from a PEM certificate chain and its private key."""
    if cert is None or key is None:
        raise ValueError("TLS needs both a certificate (--tls-cert) and its private key (--tls-key)")
    try:
        chain, private = Path(cert).read_bytes(), Path(key).read_bytes()
    except OSError as error:
        raise ValueError(f"cannot read the TLS files: {error}") from None
    return grpc.ssl_server_credentials([(private, chain)])


def _enable_reflection_v1(services: list[str], server: grpc.aio.Server) -> None:
    """grpc.reflection.v1 beside v1alpha: the two are the same messages under another package name,
    so v1alpha's servicer answers v1 requests byte for byte."""
    servicer = reflection.aio.ReflectionServicer(services)
    server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler(REFLECTION_V1, {
        "ServerReflectionInfo": grpc.stream_stream_rpc_method_handler(
            servicer.ServerReflectionInfo,
            request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
            response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString)})])
