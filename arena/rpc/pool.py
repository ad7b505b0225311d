"""Which bots the referee knows, their open streams, and their warm local processes.

Local bots come from manifests: the pool launches a process with a one-time launch token,
waits for its Hello, and keeps the process warm for later matches (after a match the bot opens
a new stream and says Hello again). A process may play up to its manifest's `concurrency`
matches at once, one stream each; the pool seats a match on a warm process with room before it
launches another. A process that committed a fault gets no more matches and is stopped once the
matches under way on it have ended; one that crashed loses every match it was playing.
A warm process left idle for `idle_timeout_s` is stopped, and so is one that has used half of its
CPU time limit (so that it never meets the limit mid-match).
Remote bots are registered by name with a token; each stream they open waits here for a match.
Launch tokens are good only on the referee's bot socket (where sandboxed bots connect) and
registered tokens only over the network, so a stolen launch token is of no use from outside.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import secrets
import time
from collections import deque
from dataclasses import dataclass, field
from functools import partial
from typing import Callable, Optional

import grpc

from arena.admission import descriptor_headroom
from arena.games.registry import did_you_mean
from arena.referee.players import PlayerKind
from arena.referee.record import Termination
from arena.rpc.convert import PROTOCOL_VERSION
from arena.rpc.launcher import OUTPUT_KEPT_BYTES, BotProcess, Listen
from arena.rpc.manifest import BotManifest
from arena.rpc.session import BotSession
from arena.sandbox.cgroups import CgroupUsage
from arena.sandbox.launch import Launcher, LaunchRefused, SandboxUnavailable

LOW_DESCRIPTORS = 64  # below this many free descriptors, a bot that failed to connect is the referee's fault

MAX_IDLE_REMOTE_STREAMS = 64  # streams one remote bot may keep open waiting for matches


def new_token() -> str:
    """A fresh bot token: 48 hex digits, so it can never read as an option on a command line
    (`--token -x...` would; urlsafe base64 starts with '-' one time in 64)."""
    return secrets.token_hex(24)


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


class _Reseat(Exception):
    """The process a match waited on can no longer seat it (it faulted or crashed): pick another."""


class _NeverConnected(Exception):
    """The process exited before any of its streams said Hello."""


class _NoStream(Exception):
    """No stream of the process came within the startup timeout."""


@dataclass(eq=False)
class LocalProcess:
    """A launched process, its open streams, and the matches seated on it (up to its capacity)."""

    process: BotProcess
    capacity: int = 1  # matches at once: the manifest's concurrency
    reserved: int = 0  # matches seated on it, or waiting for one of its streams
    streams: int = 0  # its open streams, idle or in a match
    idle: list[BotSession] = field(default_factory=list)  # open streams waiting for a match
    waiters: deque[asyncio.Future[BotSession]] = field(default_factory=deque)
    has_connected: bool = False  # one of its streams has said Hello
    retiring: bool = False  # it faulted: no new matches; it is stopped when its last match ends
    stopping: bool = False  # its stop (arena.rpc.launcher.BotProcess.stop) has begun
    idle_timer: Optional[asyncio.TimerHandle] = None  # stops it when it has been idle too long

    @property
    def has_room(self) -> bool:
        """True when another match may be seated on it."""
        return not self.retiring and self.reserved < self.capacity and not self.process.has_exited

    @property
    def has_idle_stream(self) -> bool:
        """True when one of its streams is open and waiting for a match."""
        return any(session.is_alive for session in self.idle)


@dataclass
class UsagePeaks:
    """What a bot's processes used, over every process launched for it (where cgroups count it)."""

    launches: int = 0
    memory_peak_bytes: Optional[int] = None
    processes_peak: Optional[int] = None
    cpu_seconds: Optional[float] = None

    def add(self, usage: Optional[CgroupUsage]) -> None:
        """Count one process's usage in."""
        if usage is None:
            return
        if usage.memory_peak_bytes is not None:
            self.memory_peak_bytes = max(self.memory_peak_bytes or 0, usage.memory_peak_bytes)
        if usage.processes_peak is not None:
            self.processes_peak = max(self.processes_peak or 0, usage.processes_peak)
        if usage.cpu_seconds is not None:
            self.cpu_seconds = (self.cpu_seconds or 0.0) + usage.cpu_seconds

    def to_json(self) -> dict[str, object]:
        return {"launches": self.launches,
                "memory_peak_mb": round(self.memory_peak_bytes / 2**20, 1) if self.memory_peak_bytes else None,
                "processes_peak": self.processes_peak,
                "cpu_seconds": round(self.cpu_seconds, 3) if self.cpu_seconds is not None else None}


@dataclass
class RemoteBot:
    """A registered remote bot (only the SHA-256 of its token is kept) and its open streams."""

    name: str
    token_hash: str
    idle: deque[BotSession] = field(default_factory=deque)
    waiters: deque[tuple[str, str, asyncio.Future[BotSession]]] = field(default_factory=deque)  # game, family
    playing: int = 0


class BotPool:
    """Local manifests, remote registrations, and the streams and processes behind them."""

    def __init__(self, manifests: dict[str, BotManifest], remote_tokens: dict[str, str], *,
                 startup_timeout_s: float = 30.0, connect_timeout_s: float = 30.0,
                 idle_timeout_s: float = 600.0, ambiguous: dict[str, str] | None = None) -> None:
        overlap = set(manifests) & set(remote_tokens)
        if overlap:
            raise ValueError(f"bot names both local and remote: {', '.join(sorted(overlap))}")
        self.manifests = dict(manifests)
        self.remotes = {name: RemoteBot(name, _token_hash(token)) for name, token in remote_tokens.items()}
        self.ambiguous = dict(ambiguous or {})  # a name two local bots bear, served by neither: why, by name
        self.startup_timeout_s = startup_timeout_s
        self.connect_timeout_s = connect_timeout_s
        self.idle_timeout_s = idle_timeout_s
        self.launcher: Optional[Launcher] = None  # set by the server once it has started
        self.listen: Optional[Listen] = None  # opens a launched process's own socket (the server's bot service)
        # a remote bot registered since (a hosted ladder's store): its token's hash by name, or None
        self.remote_lookup: Optional[Callable[[str], Optional[str]]] = None
        self._unknown: dict[str, float] = {}  # names the lookup did not know, until when that is believed
        self._processes: dict[str, list[LocalProcess]] = {name: [] for name in manifests}
        self._by_token: dict[str, LocalProcess] = {}
        self._watchers: set[asyncio.Task[None]] = set()  # one per running process: notices its exit
        self._stopping: set[asyncio.Task[None]] = set()  # stops of retired processes in progress
        self._last_stopped: dict[str, LocalProcess] = {}  # per bot: its last stopped process (for its output)
        self._peaks: dict[str, UsagePeaks] = {}  # per bot: what its stopped processes used
        self._closing = False

    # --- registry ----------------------------------------------------------------------------

    def names(self) -> list[str]:
        """Every bot name the pool can seat."""
        return sorted(set(self.manifests) | set(self.remotes))

    def register_remote(self, name: str, token: str | None = None) -> str:
        """Register (or re-key) a remote bot; returns its token."""
        token = token or new_token()
        self.register_remote_hash(name, _token_hash(token))
        return token

    def register_remote_hash(self, name: str, token_hash: str) -> None:
        """Register (or re-key) a remote bot by its token's SHA-256 (as a hosted ladder keeps it)."""
        if name in self.manifests:
            raise ValueError(f"{name!r} is already a local bot")
        bot = self.remotes.get(name)
        if bot is None:
            self.remotes[name] = RemoteBot(name, token_hash)
        else:
            bot.token_hash = token_hash

    def add_manifest(self, manifest: BotManifest) -> None:
        """Serve one more local bot (a program that joined a running ladder); no restart."""
        if manifest.name in self.remotes:
            raise ValueError(f"{manifest.name!r} is already a remote bot")
        known = self.manifests.get(manifest.name)
        if known is not None and known.directory != manifest.directory:
            raise ValueError(f"two bots are named {manifest.name!r}: {known.directory} and {manifest.directory}")
        self.manifests[manifest.name] = manifest
        self._processes.setdefault(manifest.name, [])

    def open_streams(self, game_name: str | None = None, family: str | None = None) -> dict[str, int]:
        """Per remote bot: its streams open and waiting for a match (how many matches it can take now), of those
        that play `game_name` when it is given."""
        return {name: sum(1 for session in remote.idle if session.is_alive
                          and (game_name is None or session.plays(game_name, family or game_name)))
                for name, remote in self.remotes.items()}

    def check_plays(self, name: str, game_name: str, family: str) -> None:
        """Raise LookupError for an unknown bot or ValueError for a local bot that does not play the game."""
        if name in self.manifests:
            if not self.manifests[name].plays(game_name, family):
                listed = ", ".join(self.manifests[name].games)
                raise ValueError(f"bot {name!r} does not play {game_name} (its bot.toml lists: {listed})")
            return
        if name in self.ambiguous and name not in self.remotes:
            raise LookupError(f"{self.ambiguous[name]}; rename one (the name in its bot.toml), "
                              "or give the path of its folder")
        if name not in self.remotes:
            raise LookupError(f"unknown bot {name!r}{did_you_mean(name, self.names())}; known bots: "
                              f"{', '.join(self.names()) or 'none'}")

    # --- streams arriving -----------------------------------------------------------------------

    def admit(self, name: str, token: str, protocol_version: int, *,
              on_bot_socket: bool) -> tuple[str, Optional[LocalProcess]]:
        """Check a Hello; returns (bot name, its local process or None) or raises AdmissionError.

        `on_bot_socket`: the stream came over a launched process's own socket, not the network.
        """
        if self._closing:
            raise AdmissionError(grpc.StatusCode.UNAVAILABLE, "the referee is shutting down")
        if protocol_version != PROTOCOL_VERSION:
            raise AdmissionError(grpc.StatusCode.FAILED_PRECONDITION,
                                 f"protocol version {protocol_version} is not spoken here; this referee speaks "
                                 f"arena.v1 (protocol_version {PROTOCOL_VERSION})")
        local = self._by_token.get(token) if token and on_bot_socket else None
        if local is not None:
            _admit_local(name, local)
            return name, local
        self._admit_remote(name, token, on_bot_socket)
        return name, None

    def _admit_remote(self, name: str, token: str, on_bot_socket: bool) -> None:
        """Let in a remote bot's Hello (its registered token, room for more idle streams) or raise AdmissionError."""
        remote = self._remote_for(name, on_bot_socket)
        if remote is not None and token and hmac.compare_digest(remote.token_hash, _token_hash(token)):
            if sum(1 for session in remote.idle if session.is_alive) >= MAX_IDLE_REMOTE_STREAMS:
                raise AdmissionError(grpc.StatusCode.RESOURCE_EXHAUSTED, f"bot {name!r} already has "
                                     f"{MAX_IDLE_REMOTE_STREAMS} streams waiting for a match")
            return
        raise AdmissionError(grpc.StatusCode.UNAUTHENTICATED,
                             f"bad or missing token for bot {name!r} (local bots use the ARENA_TOKEN they were "
                             "launched with; remote bots their registered token)")

    def _remote_for(self, name: str, on_bot_socket: bool) -> Optional[RemoteBot]:
        """The remote bot a Hello over the network names (looked up if registered since); None on a bot's socket."""
        if on_bot_socket:
            return None
        remote = self.remotes.get(name)
        if remote is None and name not in self.manifests:
            remote = self._look_up(name)
        return remote

    def _look_up(self, name: str) -> Optional[RemoteBot]:
        """A remote bot registered since the referee started (asked of `remote_lookup`, misses kept 5 s)."""
        if self.remote_lookup is None or self._unknown.get(name, 0.0) > time.monotonic():
            return None
        token_hash = self.remote_lookup(name)
        if token_hash is None:
            if len(self._unknown) > 10_000:
                self._unknown.clear()
            self._unknown[name] = time.monotonic() + 5.0
            return None
        self.register_remote_hash(name, token_hash)
        return self.remotes[name]

    def offer(self, session: BotSession, local: Optional[LocalProcess]) -> None:
        """A stream said a valid Hello: give it to a waiting match or keep it idle."""
        if local is not None:
            local.streams += 1
            local.has_connected = True
            session.on_release = partial(self._release_local, local)
            self._hand_over(local, session)
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
            local.streams = max(0, local.streams - 1)
            if session in local.idle:
                local.idle.remove(session)
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
        """A stream of a warm process with room for another match, else of a newly launched one."""
        while True:
            local = await self._reserve_process(manifest)
            session = _pop_live_idle(local)
            if session is not None:
                return session
            try:
                return await self._wait_for_stream(local)
            except _Reseat:
                continue
            except _NeverConnected:
                raise (await self._never_connected_failure(manifest, local)) from None
            except _NoStream:
                raise (await self._no_stream_failure(manifest, local)) from None

    async def _reserve_process(self, manifest: BotManifest) -> LocalProcess:
        """The warm process with room that is most ready, with one more match reserved on it, else a new one."""
        processes = self._processes[manifest.name]
        processes[:] = [lp for lp in processes if not lp.process.has_exited]
        local = _most_ready(processes)
        if local is None:
            return await self._launch(manifest)
        local.reserved += 1
        _cancel_idle_timer(local)
        return local

    async def _never_connected_failure(self, manifest: BotManifest, local: LocalProcess) -> BotUnavailable:
        """Why the process exited before it connected: its launch or the referee failed, else it crashed."""
        process = local.process
        await process.wait_exit(1.0)  # the last of its output
        await process.drain_output()
        evidence = _evidence(process)
        failure = process.launch_failure() or _referee_short()
        if failure:  # the launch itself, or the referee, failed: never the bot's loss
            return BotUnavailable(Termination.INFRASTRUCTURE, f"bot {manifest.name!r} could not be started "
                                  f"here: {failure}", evidence)
        return BotUnavailable(Termination.CRASH, f"bot {manifest.name!r} {process.exit_description()} before "
                              "it connected to the referee", evidence)

    async def _no_stream_failure(self, manifest: BotManifest, local: LocalProcess) -> BotUnavailable:
        """Retire a process that opened no stream in time; why (the referee short of descriptors, else a timeout)."""
        process = local.process
        await process.drain_output()
        evidence = _evidence(process)
        short = _referee_short()
        if short and not local.has_connected:
            self._retire(local)
            return BotUnavailable(Termination.INFRASTRUCTURE, f"bot {manifest.name!r} could not connect: "
                                  f"{short}", evidence)
        if local.has_connected:
            detail = f"opened no stream for the match within {self.startup_timeout_s:g}s"
        else:
            detail = f"did not connect within {self.startup_timeout_s:g}s of being launched"
        self._retire(local)  # stopped at once unless other matches are under way on it
        return BotUnavailable(Termination.TIMEOUT, f"bot {manifest.name!r} {detail}", evidence)

    async def _launch(self, manifest: BotManifest) -> LocalProcess:
        """Launch a process of the bot with one match reserved on it."""
        if self.launcher is None:
            raise BotUnavailable(Termination.INFRASTRUCTURE, "the referee has not started (no bot socket yet)")
        local = LocalProcess(BotProcess(manifest, new_token(), self.launcher, self.listen),
                             capacity=manifest.concurrency, reserved=1)
        self._by_token[local.process.token] = local
        self._processes[manifest.name].append(local)
        try:
            await local.process.launch()
        except BaseException as error:  # (the launch cleaned up after itself; a cancel too: the match was stopped)
            self._forget(local)
            for waiter in local.waiters:  # matches that reserved a place meanwhile try again (and fail alike)
                if not waiter.done():
                    waiter.set_exception(_Reseat())
            if not isinstance(error, (OSError, SandboxUnavailable, LaunchRefused)):
                raise
            # the sandbox or the machine failed (no bwrap, no memory to fork...), not the bot: never scored
            raise BotUnavailable(Termination.INFRASTRUCTURE,
                                 f"bot {manifest.name!r} could not be started here: {error}") from None
        self._peaks.setdefault(manifest.name, UsagePeaks()).launches += 1
        watcher = asyncio.get_running_loop().create_task(self._watch(local))
        self._watchers.add(watcher)
        watcher.add_done_callback(self._watchers.discard)
        return local

    async def _wait_for_stream(self, local: LocalProcess) -> BotSession:
        """The next stream the process opens; gives the reservation back unless a stream came."""
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[BotSession] = loop.create_future()
        local.waiters.append(waiter)
        timer = loop.call_later(self.startup_timeout_s, _fail_waiter, waiter, _NoStream)
        try:
            return await waiter
        except BaseException:
            if waiter.done() and not waiter.cancelled() and waiter.exception() is None:
                self._hand_over(local, waiter.result())  # a stream came as the match was stopped
            if waiter in local.waiters:
                local.waiters.remove(waiter)
            self._unreserve(local)
            raise
        finally:
            timer.cancel()

    async def _watch(self, local: LocalProcess) -> None:
        """When the process exits, matches waiting for its streams go elsewhere, or fail if it never connected."""
        await local.process.wait()
        self._by_token.pop(local.process.token, None)
        _cancel_idle_timer(local)
        while local.waiters:
            _fail_waiter(local.waiters.popleft(), _Reseat if local.has_connected else _NeverConnected)
        local.process.kill_tree()  # whatever it left running dies with it
        if local.reserved == 0:  # (else the last match seated on it stops it as it ends: `_unreserve`)
            self._stop(local)  # its socket, private folder, cgroup and user: not left until the referee stops

    def _hand_over(self, local: LocalProcess, session: BotSession) -> None:
        """An open stream of a process: to the first match waiting for one, else idle."""
        if local.retiring:
            session.close()
            return
        while local.waiters:
            waiter = local.waiters.popleft()
            if not waiter.done():
                waiter.set_result(session)
                return
        local.idle.append(session)

    def _release_local(self, local: LocalProcess, session: BotSession) -> None:
        if not session.started:  # seated but the match never began: the stream stays warm
            if session.is_alive:
                self._hand_over(local, session)
        elif session.faulted:  # never trust a process that broke the protocol with another match
            self._retire(local)
        elif _has_used_half_its_cpu(local):  # recycled before the CPU limit could end a match
            self._retire(local)
        self._unreserve(local)

    def _unreserve(self, local: LocalProcess) -> None:
        local.reserved = max(0, local.reserved - 1)
        if local.reserved == 0:
            if local.retiring or local.process.has_exited:
                self._stop(local)
            elif self.idle_timeout_s > 0 and local.idle_timer is None:
                local.idle_timer = asyncio.get_running_loop().call_later(self.idle_timeout_s, self._recycle_idle,
                                                                         local)

    def _recycle_idle(self, local: LocalProcess) -> None:
        """An idle process's time is up: it is stopped (a new one starts when a match needs the bot)."""
        local.idle_timer = None
        if local.reserved == 0 and not local.retiring:
            self._retire(local)

    def _retire(self, local: LocalProcess) -> None:
        """Seat no more matches on the process; stop it once the matches under way on it have ended.

        A process may serve several matches at once (its concurrency): a fault in one of them must
        not end the others, so the process is stopped only when its last match is over.
        """
        if local.retiring:
            return
        local.retiring = True
        for session in local.idle:
            session.close()
        local.idle.clear()
        while local.waiters:
            _fail_waiter(local.waiters.popleft(), _Reseat)
        if local.reserved == 0:
            self._stop(local)

    def _stop(self, local: LocalProcess) -> None:
        if local.stopping:
            return
        local.stopping = True
        _cancel_idle_timer(local)
        self._forget(local)
        stopping = asyncio.get_running_loop().create_task(local.process.stop())
        self._stopping.add(stopping)
        stopping.add_done_callback(self._stopping.discard)
        stopping.add_done_callback(lambda _done: self._note_usage(local.process))

    def _note_usage(self, process: BotProcess) -> None:
        self._peaks.setdefault(process.manifest.name, UsagePeaks()).add(process.final_usage)

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
        while True:  # a bot busy with its other matches frees a stream when one ends: wait for it
            try:
                return await asyncio.wait_for(asyncio.shield(waiter), self.connect_timeout_s)
            except TimeoutError:
                if remote.playing > 0:
                    continue
                waiter.cancel()
                raise BotUnavailable(Termination.DISCONNECT, f"remote bot {remote.name!r} had no stream open for "
                                     f"{game_name} within {self.connect_timeout_s:g}s") from None
            except asyncio.CancelledError:
                waiter.cancel()
                raise

    def _release_remote(self, remote: RemoteBot, session: BotSession) -> None:
        remote.playing = max(0, remote.playing - 1)
        if not session.started and session.is_alive:
            self.offer(session, None)

    def _forget(self, local: LocalProcess) -> None:
        """The process gets no more streams or matches."""
        self._by_token.pop(local.process.token, None)
        self._last_stopped[local.process.manifest.name] = local
        processes = self._processes.get(local.process.manifest.name, [])
        if local in processes:
            processes.remove(local)

    # --- status and shutdown --------------------------------------------------------------------

    def status(self) -> list[dict]:
        """Per bot: kind, games, idle streams, matches being played, running processes."""
        rows = []
        for name, manifest in sorted(self.manifests.items()):
            processes = [lp for lp in self._processes[name] if not lp.process.has_exited]
            rows.append(_local_status_row(name, manifest, processes))
        for name, remote in sorted(self.remotes.items()):
            rows.append(_remote_status_row(name, remote))
        return rows

    def usage_peaks(self, name: str) -> UsagePeaks:
        """What the bot's processes used so far: the stopped ones and those running now."""
        stored = self._peaks.get(name, UsagePeaks())
        peaks = UsagePeaks(stored.launches, stored.memory_peak_bytes, stored.processes_peak, stored.cpu_seconds)
        for local in self._processes.get(name, []):
            if not local.process._cleaned:
                peaks.add(local.process.usage())
        return peaks

    async def warm_up(self, name: str) -> BotSession:
        """Launch a process of the local bot and wait for its first stream (its Hello, which the session
        returned holds); it stays warm for the next match. BotUnavailable if it does not start, connect or
        say Hello in time."""
        session = await self._acquire_local(self.manifests[name])
        if session.on_release is not None:
            session.on_release(session)  # never started: the stream waits, idle, for a match
        return session

    def output_tail(self, name: str) -> str:
        """What the bot's most recently launched process wrote (stdout and stderr), its last 64 KiB."""
        processes = self._processes.get(name) or []
        latest = processes[-1] if processes else self._last_stopped.get(name)
        return latest.process.output.since(0, cap=OUTPUT_KEPT_BYTES) if latest is not None else ""

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
        stopped: list[BotProcess] = []
        for processes in self._processes.values():
            for local in processes:
                _cancel_idle_timer(local)
                for session in local.idle:
                    session.close()
                local.idle.clear()
                for waiter in local.waiters:
                    waiter.cancel()
                local.waiters.clear()
                local.stopping = True
                stopping.append(local.process.stop())
                stopped.append(local.process)
            processes.clear()
        self._by_token.clear()
        await asyncio.gather(*stopping, *self._stopping, return_exceptions=True)
        for process in stopped:
            self._note_usage(process)
        for watcher in list(self._watchers):
            watcher.cancel()


def _local_status_row(name: str, manifest: BotManifest, processes: list[LocalProcess]) -> dict:
    """The status row of a local bot, given its processes still running."""
    return {"name": name, "version": manifest.version, "kind": PlayerKind.PROGRAM,
            "games": list(manifest.games),
            "connected": sum(1 for lp in processes for session in lp.idle if session.is_alive),
            "playing": sum(lp.reserved for lp in processes), "processes": len(processes)}


def _remote_status_row(name: str, remote: RemoteBot) -> dict:
    """The status row of a remote bot, from its streams still open."""
    idle = [s for s in remote.idle if s.is_alive]
    return {"name": name, "version": idle[0].version if idle else "", "kind": PlayerKind.REMOTE,
            "games": sorted({g for s in idle for g in s.games}), "connected": len(idle),
            "playing": remote.playing, "processes": 0}


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _admit_local(name: str, local: LocalProcess) -> None:
    """Let in a Hello over a launched process's socket (its bot, still playing, with room) or raise AdmissionError."""
    if name not in (local.process.manifest.name, local.process.manifest.name.split("@")[0]):
        raise AdmissionError(grpc.StatusCode.PERMISSION_DENIED,
                             f"this launch token belongs to bot {local.process.manifest.name!r}")
    if local.retiring:
        raise AdmissionError(grpc.StatusCode.UNAVAILABLE,
                             "this bot process gets no more matches (it committed a fault); it should exit")
    if local.streams >= local.capacity:
        raise AdmissionError(grpc.StatusCode.ALREADY_EXISTS,
                             f"this launch token already has {local.streams} open stream(s), as many as its "
                             f"bot.toml's concurrency ({local.capacity})")


def _pop_live_idle(local: LocalProcess) -> Optional[BotSession]:
    """Take the process's first idle stream that is still open (dropping closed ones before it), or None."""
    while local.idle:
        session = local.idle.pop(0)
        if session.is_alive:
            return session
    return None


def _evidence(process: BotProcess) -> dict[str, object]:
    """What a failed start leaves for the record: the process id and everything it wrote."""
    return {"pid": process.pid, "output": process.output.since(0)}


def _referee_short() -> str:
    """Why the referee itself could not take a bot's connection now ('' if it could): its descriptors."""
    headroom = descriptor_headroom()
    if headroom < LOW_DESCRIPTORS:
        return f"the referee has only {headroom} file descriptors free (raise its open-file limit)"
    return ""


def _most_ready(processes: list[LocalProcess]) -> Optional[LocalProcess]:
    """The process to seat the next match on: one with an open stream waiting, else the busiest with room.

    Packing matches onto few processes keeps the machine's cores for play rather than for switching
    between many processes and their gRPC threads.
    """
    best: Optional[LocalProcess] = None
    for local in processes:
        if not local.has_room:
            continue
        if local.has_idle_stream:
            return local
        if best is None or local.reserved > best.reserved:
            best = local
    return best


def _cancel_idle_timer(local: LocalProcess) -> None:
    if local.idle_timer is not None:
        local.idle_timer.cancel()
        local.idle_timer = None


def _has_used_half_its_cpu(local: LocalProcess) -> bool:
    """Checked after every match: cheap (no read at all while the process is too young to have used it)."""
    process, plan = local.process, local.process.plan
    if plan is None or not process.could_have_used(plan.limits.cpu_seconds / 2):
        return False
    used = process.cpu_seconds()
    return used is not None and used >= plan.limits.cpu_seconds / 2


def _fail_waiter(waiter: asyncio.Future[BotSession], error: type[Exception]) -> None:
    if not waiter.done():
        waiter.set_exception(error())
