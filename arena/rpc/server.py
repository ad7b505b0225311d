"""The referee server: its listeners, its secrets and its lifecycle, around the bot pool (arena.rpc.pool),
the bot service (arena.rpc.bot_service), the admin service (arena.rpc.admin) and the matches
(arena.rpc.matches).

    server = RefereeServer(ServerConfig(bot_dirs=[Path("bots")]))
    await server.start()                       # a free loopback port by default
    record = await server.run_match("major-general", ["random", "random"], seed=1)
    await server.stop()                        # finishes or voids matches, stops bot processes

Listeners, each with only what its callers need:
- each launched bot process gets a Unix socket of its own (arena.rpc.bot_service.listen_for), in a
  private folder, serving arena.v1.Bot alone for that process's launch token; the process reaches
  it bind-mounted at /run/arena/referee.sock in its sandbox (arena.sandbox);
- the network port (`port`, None for none) serves remote bots (registered tokens only), the admin
  service (the admin token on every call but WatchMatch), health checking and reflection, over
  TLS when a certificate is given. It is a gate (arena.rpc.gate) with budgets per address in front
  of the gRPC server, which listens on a private socket.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
from pathlib import Path
from typing import Any, Optional, Sequence

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection, reflection_pb2

from arena.admission import ClientKey, raise_open_file_limit
from arena.paths import BUILTIN_BOTS
from arena.referee.clock import ClockSettings
from arena.referee.faults import FaultPolicy
from arena.referee.record import MatchRecord
from arena.rpc.admin import AdminService, add_admin_service
from arena.rpc.bot_service import BOT_SERVICE, BotService
from arena.rpc.config import ServerConfig
from arena.rpc.gate import ConnectionGate
from arena.rpc.generated import admin_pb2
from arena.rpc.manifest import BotManifest, discover_manifests, name_clash
from arena.rpc.matches import FailedSeat, LiveMatch, Matches, MatchRequestError, Seat
from arena.rpc.pool import BotPool, new_token
from arena.rpc.session import TRANSPORT_MESSAGE_LIMIT
from arena.rpc.spectators import Admission
from arena.rpc.storage import RecordStorage
from arena.sandbox.check import quick_check
from arena.sandbox.launch import Launcher
from arena.sandbox.leftovers import new_runtime_folder

__all__ = ["ADMIN_SERVICE", "BOT_SERVICE", "FailedSeat", "LiveMatch", "MatchRequestError", "RefereeServer",
           "ServerConfig", "listening_line", "tls_credentials", "write_secret"]

ADMIN_SERVICE = admin_pb2.DESCRIPTOR.services_by_name["RefereeAdmin"].full_name
REFLECTION_V1 = "grpc.reflection.v1.ServerReflection"
MAX_STREAMS_PER_CONNECTION = 256  # HTTP/2 streams one connection may hold open at once


class RefereeServer:
    """The referee as a gRPC server (grpc.aio) with a Python API to run matches."""

    def __init__(self, config: ServerConfig | None = None) -> None:
        self.config = config or ServerConfig()
        self.unavailable: list[str] = []  # what is wrong with each bot.toml left out (config.skip_bad_bots)
        ambiguous: dict[str, list[Path]] = {}  # a name two bots bear (a copied folder not yet renamed): neither
        manifests = self._folder_manifests(ambiguous)
        self._add_given_manifests(manifests, ambiguous)
        self.pool = BotPool(manifests, dict(self.config.remote_tokens),
                            startup_timeout_s=self.config.startup_timeout_s,
                            connect_timeout_s=self.config.connect_timeout_s,
                            idle_timeout_s=self.config.idle_timeout_s,
                            ambiguous={name: name_clash(name, folders) for name, folders in ambiguous.items()})
        self.bots = BotService(self.config, self.pool, peer_of=self.peer_of, vouch=self.vouch, drop=self.drop)
        self.pool.listen = self.bots.listen_for
        self.games = Matches(self.config, self.pool)
        self.address = ""  # host:port of the network listener ("" without one)
        self.port = 0
        self.admin_token = self.config.admin_token or ""
        self.viewer_token = self.config.viewer_token or ""  # (a relay such as the web: it never needs more)
        # Without a secret salt a bot could search small match seeds for the one that gives its own seed,
        # and so know every card and die to come: so there is always one, unless the operator opts out.
        self.seed_salt = None if self.config.public_seeds else (self.config.seed_salt or secrets.token_hex(16))
        self.admin_token_path: Optional[Path] = None  # where a made token was written
        self.runtime_dir: Optional[Path] = None  # private folder of the bots' sockets and private folders
        self.gate: Optional[ConnectionGate] = None  # the network port
        self.spectators = Admission(self.config.spectators)  # anonymous watchers, counted against their caps
        self.admin_service = AdminService(self)  # (it counts wrong admin and viewer tokens per address)
        self._server: Optional[grpc.aio.Server] = None
        self._health: Optional[health.aio.HealthServicer] = None

    def _folder_manifests(self, ambiguous: dict[str, list[Path]]) -> dict[str, BotManifest]:
        """The bots in `config.bot_dirs`: those left out noted in `unavailable`, names two bear in `ambiguous`."""
        manifests = discover_manifests((d for d in self.config.bot_dirs if Path(d).exists()),
                                       self.unavailable if self.config.skip_bad_bots else None, ambiguous)
        self.unavailable.extend(f"{name_clash(name, folders)} (neither is served: rename one in its bot.toml)"
                                for name, folders in ambiguous.items())
        if self.config.skip_bad_bots:
            manifests = self._checked(manifests)
        return manifests

    def _add_given_manifests(self, manifests: dict[str, BotManifest], ambiguous: dict[str, list[Path]]) -> None:
        """Add the bots of `config.bot_manifests`, then the built-in ones whose names are free and unambiguous."""
        for manifest in self.config.bot_manifests:
            if manifest.name in manifests and manifests[manifest.name].directory != manifest.directory:
                raise ValueError(f"two bots are named {manifest.name!r}: {manifests[manifest.name].directory} and "
                                 f"{manifest.directory}")
            manifests[manifest.name] = manifest
            ambiguous.pop(manifest.name, None)  # (the bot given is the one meant)
        if self.config.builtin_bots:
            for name, manifest in discover_manifests([BUILTIN_BOTS]).items():
                if name not in ambiguous:
                    manifests.setdefault(name, manifest)

    def _checked(self, manifests: dict[str, BotManifest]) -> dict[str, BotManifest]:
        """The bots whose folders pass `config.bot_check` (the CLI's: the checks `arena bot submit` makes); each of
        the others left out, what is wrong with it added to `unavailable`."""
        check = self.config.bot_check
        if check is None:
            return manifests
        kept = {}
        for name, manifest in manifests.items():
            problem = check(manifest.directory)
            if problem:
                self.unavailable.append(problem)
            else:
                kept[name] = manifest
        return kept

    @property
    def matches(self) -> dict[str, LiveMatch]:
        """Matches running and the last `finished_kept` finished, by id."""
        return self.games.live

    # --- lifecycle ---------------------------------------------------------------------------

    async def start(self) -> str:
        """Start serving (the network port if there is one); returns "host:port", or "" without one."""
        if self.pool.manifests:
            quick_check(self.config.sandbox)  # SandboxUnavailable: one line saying what to do
        raise_open_file_limit()
        self.runtime_dir = new_runtime_folder()
        try:
            self.pool.launcher = Launcher(self.config.sandbox, self.runtime_dir)
            if self.config.port is not None:
                await self._start_network(self.runtime_dir)
        except BaseException:
            await self._close_listeners()
            raise
        if not self.admin_token:
            self.admin_token = new_token()
            if self.config.admin_token_file is not None:
                self.admin_token_path = write_secret(self.config.admin_token_file, self.admin_token)
        self.games.open(self.seed_salt)
        return self.address

    def vouch(self, peer: str) -> None:
        """A stream on this connection proved who it is (the admin token, a bot's Hello): keep it off the
        anonymous share of the network port (arena.rpc.gate)."""
        if self.gate is not None:
            self.gate.vouch(peer)

    def drop(self, peer: str) -> None:
        """Close the network connection a gRPC peer stands for (an address shut out, or in a storm), at the gate."""
        if self.gate is not None:
            self.gate.drop(peer)

    def shut_for(self, client: ClientKey) -> float:
        """Seconds an address is still shut out (wrong tokens, a storm of Hellos or of watch calls): the gate
        refuses its connections meanwhile."""
        return max(self.bots.shut_for(client), self.spectators.shut_for(client))

    def peer_of(self, peer: str) -> str:
        """The network address a gRPC peer stands for (through the gate), or the peer itself."""
        return self.gate.peer_of(peer) if self.gate is not None else peer

    async def _start_network(self, runtime_dir: Path) -> None:
        inner = runtime_dir / "network.sock"
        options = _server_options() + [("grpc.max_connection_idle_ms", int(self.config.idle_connection_s * 1000)),
                                       ("grpc.server_handshake_timeout_ms", int(self.config.hello_timeout_s * 1000))]
        server = grpc.aio.server(options=options)
        server.add_generic_rpc_handlers([self.bots.handler()])
        add_admin_service(self.admin_service, server)
        self._health = RefereeHealth(self.games.storage)
        health_pb2_grpc.add_HealthServicer_to_server(self._health, server)
        services = [BOT_SERVICE, ADMIN_SERVICE, health.SERVICE_NAME, reflection.SERVICE_NAME, REFLECTION_V1]
        reflection.enable_server_reflection(services, server)
        _enable_reflection_v1(services, server)
        host, port = self.config.host, self.config.port
        if self.config.tls_cert is not None or self.config.tls_key is not None:
            bound = server.add_secure_port(f"unix:{inner}", tls_credentials(self.config.tls_cert, self.config.tls_key))
        else:
            bound = server.add_insecure_port(f"unix:{inner}")
        if bound == 0:
            raise OSError(f"cannot listen on {inner}")
        await server.start()
        self._server = server
        self.gate = ConnectionGate(inner, runtime_dir / "gate", per_address=self.config.max_connections_per_peer,
                                   per_network=self.config.max_connections_per_network,
                                   total=self.config.max_connections, reserve=self.config.reserved_connections,
                                   shut=self.shut_for)
        self.port = await self.gate.start(host, port or 0)
        self.address = f"{host}:{self.port}"
        for service in ("", BOT_SERVICE, ADMIN_SERVICE):
            await self._health.set(service, health_pb2.HealthCheckResponse.SERVING)

    @property
    def is_tls(self) -> bool:
        """True when the network port speaks TLS."""
        return self.config.tls_cert is not None

    async def stop(self, drain_s: float = 10.0) -> list[MatchRecord]:
        """Graceful shutdown: let running matches finish for `drain_s`, void the rest, stop bots."""
        if self._health is not None:
            await self._health.enter_graceful_shutdown()
        voided = await self.games.stop(drain_s)
        await self.pool.close()
        await self._close_listeners()
        return voided

    async def _close_listeners(self) -> None:
        if self.gate is not None:
            await self.gate.close()
        if self._server is not None:
            await self._server.stop(grace=1.0)
        if self.pool.launcher is not None:
            self.pool.launcher.close()
        if self.runtime_dir is not None:
            shutil.rmtree(self.runtime_dir, ignore_errors=True)
        if self.admin_token_path is not None:
            self.admin_token_path.unlink(missing_ok=True)
            self.admin_token_path = None

    async def wait_closed(self) -> None:
        """Wait until the gRPC servers have stopped."""
        if self._server is not None:
            await self._server.wait_for_termination()

    def register_remote(self, name: str, token: str | None = None) -> str:
        """Register a remote bot (or give it a new token); returns the token it must say Hello with."""
        return self.pool.register_remote(name, token)

    # --- matches (arena.rpc.matches) -------------------------------------------------------------

    def start_match(self, game_name: str, bots: Sequence[Seat], *, seed: int | None = None,
                    options: dict[str, Any] | None = None, clock: ClockSettings | None = None,
                    fault_policy: FaultPolicy | str | None = None, match_id: str | None = None) -> LiveMatch:
        """Check a match request and start playing it; returns at once (see Matches.start_match)."""
        return self.games.start_match(game_name, bots, seed=seed, options=options, clock=clock,
                                      fault_policy=fault_policy, match_id=match_id)

    async def run_match(self, game_name: str, bots: Sequence[Seat], seed: int | None = None,
                        **settings: Any) -> MatchRecord:
        """Play one match and return its record."""
        return await self.games.run_match(game_name, bots, seed, **settings)


class RefereeHealth(health.aio.HealthServicer):
    """grpc.health.v1.Health: the server ("") and its admin service answer NOT_SERVING while the referee cannot
    store its records (arena.rpc.storage), checked again (a probe file written) at each Check meanwhile."""

    def __init__(self, storage: RecordStorage) -> None:
        super().__init__()
        self.storage = storage
        self._changes: set[asyncio.Task[None]] = set()
        storage.on_change = self._changed

    async def Check(self, request: health_pb2.HealthCheckRequest, context: Any) -> Any:
        if request.service in ("", ADMIN_SERVICE) and not self.storage.healthy and await self.storage.recheck():
            await self._follow(True)  # (before this answer, not after it)
        return await super().Check(request, context)

    def _changed(self, healthy: bool) -> None:
        task = asyncio.get_running_loop().create_task(self._follow(healthy))
        self._changes.add(task)
        task.add_done_callback(self._changes.discard)

    async def _follow(self, healthy: bool) -> None:
        status = health_pb2.HealthCheckResponse.SERVING if healthy else health_pb2.HealthCheckResponse.NOT_SERVING
        for service in ("", ADMIN_SERVICE):
            await self.set(service, status)


def listening_line(address: str, tls: bool = False) -> str:
    """One line telling a user how to reach the server."""
    return (f"referee listening on {address}{' (TLS)' if tls else ''} (health: grpc.health.v1.Health; "
            f"admin: {ADMIN_SERVICE})")


def _server_options() -> list[tuple[str, Any]]:
    return [("grpc.max_receive_message_length", TRANSPORT_MESSAGE_LIMIT),
            ("grpc.max_concurrent_streams", MAX_STREAMS_PER_CONNECTION),
            ("grpc.so_reuseport", 0)]


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
