"""Which bots the referee knows, their open streams, and their warm local processes.

Local bots come from manifests: the pool launches a process with a one-time launch token,
waits for its Hello, and keeps the process warm for later matches (after a match the bot opens
a new stream and says Hello again). A process that committed a fault is stopped and replaced.
Remote bots are registered by name with a token; each stream they open waits here for a match.
"""

from __future__ import annotations

import asyncio
import hmac
import secrets
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Optional

import grpc

from arena.referee.record import Termination
from arena.rpc.convert import PROTOCOL_VERSION
from arena.rpc.launcher import BotProcess
from arena.rpc.manifest import BotManifest
from arena.rpc.session import BotSession

MAX_IDLE_REMOTE_STREAMS = 64  # streams one remote bot may keep open waiting for matches


class AdmissionError(Exception):
    """A Hello the referee refuses; `code` is the gRPC status the stream ends with."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class BotUnavailable(Exception):
    """A bot could not be seated: its process failed to start or connect, or it never connected."""

    def __init__(self, reason: Termination, detail: str, evidence: dict | None = None) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail
        self.evidence = evidence or {}


@dataclass
class LocalProcess:
    """A launched process and its stream state."""

    process: BotProcess
    reserved: bool = False  # seated (or about to be) in a match
    idle: Optional[BotSession] = None  # its open stream waiting for a match
    waiter: Optional[asyncio.Future[BotSession]] = None
    streaming: bool = False  # a stream of this process is open (idle or in a match)


@dataclass
class RemoteBot:
    """A registered remote bot and its open streams."""

    name: str
    token: str
    idle: deque[BotSession] = field(default_factory=deque)
    waiters: deque[tuple[str, str, asyncio.Future[BotSession]]] = field(default_factory=deque)  # game, family
    playing: int = 0


class BotPool:
    """Local manifests, remote registrations, and the streams and processes behind them."""

    def __init__(self, manifests: dict[str, BotManifest], remote_tokens: dict[str, str], *,
                 startup_timeout_s: float = 30.0, connect_timeout_s: float = 30.0) -> None:
        overlap = set(manifests) & set(remote_tokens)
        if overlap:
            raise ValueError(f"bot names both local and remote: {', '.join(sorted(overlap))}")
        self.manifests = dict(manifests)
        self.remotes = {name: RemoteBot(name, token) for name, token in remote_tokens.items()}
        self.startup_timeout_s = startup_timeout_s
        self.connect_timeout_s = connect_timeout_s
        self.address = ""
        self._processes: dict[str, list[LocalProcess]] = {name: [] for name in manifests}
        self._by_token: dict[str, LocalProcess] = {}
        self._closing = False

    # --- registry ----------------------------------------------------------------------------

    def names(self) -> list[str]:
        """Every bot name the pool can seat."""
        return sorted(set(self.manifests) | set(self.remotes))

    def register_remote(self, name: str, token: str | None = None) -> str:
        """Register (or re-key) a remote bot; returns its token."""
        if name in self.manifests:
            raise ValueError(f"{name!r} is already a local bot")
        token = token or secrets.token_urlsafe(24)
        bot = self.remotes.get(name)
        if bot is None:
            self.remotes[name] = RemoteBot(name, token)
        else:
            bot.token = token
        return token

    def check_plays(self, name: str, game_name: str, family: str) -> None:
        """Raise LookupError for an unknown bot or ValueError for a local bot that does not play the game."""
        if name in self.manifests:
            if not self.manifests[name].plays(game_name, family):
                listed = ", ".join(self.manifests[name].games)
                raise ValueError(f"bot {name!r} does not play {game_name} (its bot.toml lists: {listed})")
            return
        if name not in self.remotes:
            raise LookupError(f"unknown bot {name!r}; known bots: {', '.join(self.names()) or 'none'}")

    # --- streams arriving -----------------------------------------------------------------------

    def admit(self, name: str, token: str, protocol_version: int) -> tuple[str, Optional[LocalProcess]]:
        """Check a Hello; returns (bot name, its local process or None) or raises AdmissionError."""
        if self._closing:
            raise AdmissionError(grpc.StatusCode.UNAVAILABLE, "the referee is shutting down")
        if protocol_version != PROTOCOL_VERSION:
            raise AdmissionError(grpc.StatusCode.FAILED_PRECONDITION,
                                 f"protocol version {protocol_version} is not spoken here; this referee speaks "
                                 f"arena.v1 (protocol_version {PROTOCOL_VERSION})")
        local = self._by_token.get(token) if token else None
        if local is not None:
            if local.process.manifest.name != name:
                raise AdmissionError(grpc.StatusCode.PERMISSION_DENIED,
                                     f"this launch token belongs to bot {local.process.manifest.name!r}")
            if local.streaming:
                raise AdmissionError(grpc.StatusCode.ALREADY_EXISTS,
                                     "this launch token already has an open stream (one at a time)")
            return name, local
        remote = self.remotes.get(name)
        if remote is not None and token and hmac.compare_digest(remote.token.encode(), token.encode()):
            if sum(1 for session in remote.idle if session.is_alive) >= MAX_IDLE_REMOTE_STREAMS:
                raise AdmissionError(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                     f"bot {name!r} already has {MAX_IDLE_REMOTE_STREAMS} streams waiting for a match")
            return name, None
        raise AdmissionError(grpc.StatusCode.UNAUTHENTICATED,
                             f"bad or missing token for bot {name!r} (local bots use the ARENA_TOKEN they were "
                             "launched with; remote bots their registered token)")

    def offer(self, session: BotSession, local: Optional[LocalProcess]) -> None:
        """A stream said a valid Hello: give it to a waiting match or keep it idle."""
        if local is not None:
            local.streaming = True
            if local.waiter is not None and not local.waiter.done():
                local.waiter.set_result(session)
                local.waiter = None
            else:
                local.idle = session
            session.on_release = lambda s, lp=local: self._release_local(lp, s)
            return
        remote = self.remotes[session.name]
        session.on_release = lambda s, rb=remote: self._release_remote(rb, s)
        for entry in list(remote.waiters):
            game_name, family, waiter = entry
            if waiter.done():
                remote.waiters.remove(entry)
            elif session.plays(game_name, family):
                remote.waiters.remove(entry)
                remote.playing += 1
                waiter.set_result(session)
                return
        remote.idle.append(session)

    def withdraw(self, session: BotSession, local: Optional[LocalProcess]) -> None:
        """A stream ended (its RPC handler is returning)."""
        if local is not None:
            if local.idle is session:
                local.idle = None
            local.streaming = False  # a process has one stream at a time, and this one has ended
            return
        remote = self.remotes.get(session.name)
        if remote is not None and session in remote.idle:
            remote.idle.remove(session)

    # --- seating bots in matches ----------------------------------------------------------------

    async def acquire(self, name: str, game_name: str, family: str) -> BotSession:
        """An open stream of bot `name` that plays the game (launching a local process if needed)."""
        if name in self.manifests:
            return await self._acquire_local(self.manifests[name])
        if name in self.remotes:
            return await self._acquire_remote(self.remotes[name], game_name, family)
        raise BotUnavailable(Termination.PROTOCOL_ERROR, f"unknown bot {name!r}")

    async def _acquire_local(self, manifest: BotManifest) -> BotSession:
        processes = self._processes[manifest.name]
        processes[:] = [lp for lp in processes if not lp.process.has_exited]
        local = next((lp for lp in processes if not lp.reserved), None)
        if local is not None:
            local.reserved = True
        else:
            local = LocalProcess(BotProcess(manifest, secrets.token_urlsafe(24)), reserved=True)
            self._by_token[local.process.token] = local
            processes.append(local)
            try:
                await local.process.launch(self.address)
            except OSError as error:
                self._forget(local)
                raise BotUnavailable(Termination.CRASH,
                                     f"bot {manifest.name!r} could not be started: {error}") from None
        if local.idle is not None and local.idle.is_alive:
            session, local.idle = local.idle, None
            return session
        local.idle = None
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[BotSession] = loop.create_future()
        local.waiter = waiter
        exited = loop.create_task(local.process.wait_exit(self.startup_timeout_s))
        try:
            watched: set[asyncio.Future[Any]] = {waiter, exited}
            await asyncio.wait(watched, timeout=self.startup_timeout_s, return_when=asyncio.FIRST_COMPLETED)
        finally:
            exited.cancel()
            local.waiter = None
        if waiter.done() and not waiter.cancelled():
            return waiter.result()
        waiter.cancel()
        process = local.process
        evidence = {"pid": process.pid, "output": process.output.since(0)}
        if not process.is_running:
            await process.wait_exit(1.0)
            evidence["output"] = process.output.since(0)
            self._forget(local)
            raise BotUnavailable(Termination.CRASH, f"bot {manifest.name!r} {process.exit_description()} before it "
                                 "connected to the referee", evidence)
        self._forget(local)
        await process.stop()
        raise BotUnavailable(Termination.TIMEOUT, f"bot {manifest.name!r} did not connect within "
                             f"{self.startup_timeout_s:g}s of being launched", evidence)

    async def _acquire_remote(self, remote: RemoteBot, game_name: str, family: str) -> BotSession:
        for session in list(remote.idle):
            if not session.is_alive:
                remote.idle.remove(session)
            elif session.plays(game_name, family):
                remote.idle.remove(session)
                remote.playing += 1
                return session
        waiter: asyncio.Future[BotSession] = asyncio.get_running_loop().create_future()
        remote.waiters.append((game_name, family, waiter))
        try:
            return await asyncio.wait_for(waiter, self.connect_timeout_s)
        except TimeoutError:
            raise BotUnavailable(Termination.DISCONNECT, f"remote bot {remote.name!r} had no stream open for "
                                 f"{game_name} within {self.connect_timeout_s:g}s") from None

    def _release_local(self, local: LocalProcess, session: BotSession) -> None:
        if not session.started:  # seated but the match never began: the stream stays warm
            if session.is_alive:
                local.idle = session
            local.reserved = False
            return
        local.streaming = False
        local.reserved = False
        if session.faulted:  # never trust a bot that broke the protocol with another match
            self._forget(local)
            asyncio.get_running_loop().create_task(local.process.stop())

    def _release_remote(self, remote: RemoteBot, session: BotSession) -> None:
        remote.playing = max(0, remote.playing - 1)
        if not session.started and session.is_alive:
            self.offer(session, None)

    def _forget(self, local: LocalProcess) -> None:
        self._by_token.pop(local.process.token, None)
        processes = self._processes.get(local.process.manifest.name, [])
        if local in processes:
            processes.remove(local)

    # --- status and shutdown --------------------------------------------------------------------

    def status(self) -> list[dict]:
        """Per bot: kind, games, idle streams, matches being played, running processes."""
        rows = []
        for name, manifest in sorted(self.manifests.items()):
            processes = [lp for lp in self._processes[name] if not lp.process.has_exited]
            rows.append({"name": name, "version": manifest.version, "kind": "local", "games": list(manifest.games),
                         "connected": sum(1 for lp in processes if lp.idle is not None and lp.idle.is_alive),
                         "playing": sum(1 for lp in processes if lp.reserved), "processes": len(processes)})
        for name, remote in sorted(self.remotes.items()):
            idle = [s for s in remote.idle if s.is_alive]
            rows.append({"name": name, "version": idle[0].version if idle else "", "kind": "remote",
                         "games": sorted({g for s in idle for g in s.games}), "connected": len(idle),
                         "playing": remote.playing, "processes": 0})
        return rows

    def local_pids(self) -> list[int]:
        """Process ids of the running local bot processes."""
        return [lp.process.pid for processes in self._processes.values() for lp in processes
                if lp.process.is_running and lp.process.pid is not None]

    async def close(self) -> None:
        """Refuse new streams, end idle ones, and stop every local process."""
        self._closing = True
        for remote in self.remotes.values():
            for session in remote.idle:
                session.close()
            remote.idle.clear()
            for _game, _family, waiter in remote.waiters:
                waiter.cancel()
        stopping = []
        for processes in self._processes.values():
            for local in processes:
                if local.idle is not None:
                    local.idle.close()
                if local.waiter is not None:
                    local.waiter.cancel()
                stopping.append(local.process.stop())
            processes.clear()
        self._by_token.clear()
        await asyncio.gather(*stopping, return_exceptions=True)
