"""Matches with a bot program in them: played through a referee embedded in this process.

The referee runs on a thread of its own (arena.rpc.background): it launches each bot program from
its folder (bot.toml) in its sandbox, and enforces the clock and the fault policy. Built-in agents in
the same match sit in process (on worker threads, under the same clock). Records come back to be
stored like any other. Programs that join later are served by the same referee (no restart).

With `network` (a hosted ladder), the referee also listens on a network port for remote bots: bots
their owners run on their own computers, registered by name with the hash of their token
(`register_remotes`), seated by name while they have a stream open (`open_streams`).
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import os
import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from arena.agents import Agent, make_agent
from arena.referee.limits import DEFAULT_LIMITS, AgentLimits
from arena.referee.players import PlayerKind
from arena.tournament.executor import Executor, ExecutorError, StopCheck
from arena.tournament.jobs import MatchJob, PlayedMatch, infrastructure_fault, played_from_record, utcnow

if TYPE_CHECKING:  # (the referee itself is imported when a match with a program is first played)
    from arena.referee.clock import ClockSettings
    from arena.referee.faults import FaultPolicy
    from arena.referee.record import MatchRecord
    from arena.rpc.background import BackgroundReferee
    from arena.rpc.manifest import BotManifest
    from arena.rpc.matches import Seat
    from arena.rpc.server import RefereeServer, ServerConfig
    from arena.sandbox.launch import SandboxSettings


@dataclass(frozen=True)
class NetworkSettings:
    """Where the referee takes remote bots."""

    host: str = "127.0.0.1"
    port: int = 0
    tls_cert: Path | None = None
    tls_key: Path | None = None
    connect_timeout_s: float = 30.0  # a remote bot seated in a match must have a stream open within this
    viewer_token: str | None = None  # lists and watches the matches this referee plays (`arena web --server`)


class RefereeExecutor(Executor):
    """Plays jobs with bot programs (and any agents beside them), `concurrency` matches at a time."""

    def __init__(self, concurrency: int | None = None, clock: ClockSettings | None = None,
                 fault_policy: FaultPolicy | None = None, sandbox: SandboxSettings | None = None,
                 network: NetworkSettings | None = None,
                 remote_lookup: Callable[[str], str | None] | None = None,
                 limits: AgentLimits = DEFAULT_LIMITS, seed_salt: str | None = None) -> None:
        self.concurrency = max(1, concurrency or os.cpu_count() or 1)
        self.seed_salt = seed_salt  # keys the seats' seeds (None: the referee's own secret, new at each start)
        self.limits = limits  # of the built-in agents seated beside programs
        self.clock = clock
        self.fault_policy = fault_policy
        self.sandbox = sandbox  # SandboxSettings; None: the default (bubblewrap)
        self.network = network
        self.remote_lookup = remote_lookup  # a remote bot registered since: its token's hash by name
        self._remotes: dict[str, str] = {}  # remote bot name -> its token's hash
        self._referee: BackgroundReferee | None = None
        self._folders: tuple[Path, ...] = ()
        self._manifests: dict[str, BotManifest] = {}  # program folder -> its manifest, under its alias

    def _manifest(self, folder: Path) -> BotManifest:
        """The program's manifest, served under the alias name@<digest of its folder>: two versions of a bot
        (two folders with one name) can then play, even each other."""
        if str(folder) not in self._manifests:
            from arena.rpc.manifest import ManifestError, load_manifest, served_as

            try:
                manifest = load_manifest(folder)
            except ManifestError as error:
                raise ExecutorError(str(error)) from None
            key = hashlib.sha256(str(folder.resolve()).encode()).hexdigest()[:12]
            self._manifests[str(folder)] = served_as(manifest, key)
        return self._manifests[str(folder)]

    def _serve(self, folders: tuple[Path, ...]) -> BackgroundReferee:
        """The referee, serving the bot programs of these folders (one that joins is added to it, no restart)."""
        if self._referee is not None:
            self._add_folders(self._referee, folders)
            return self._referee
        from arena.rpc.background import BackgroundReferee

        config = self._config(folders)
        try:
            referee = BackgroundReferee(config, drain_s=0.0)
            referee.start()
        except Exception as error:
            raise ExecutorError(f"cannot start the referee: {error}") from None
        self._referee, self._folders = referee, folders
        referee.server.pool.remote_lookup = self.remote_lookup
        _register_all(referee, self._remotes)
        return referee

    def _add_folders(self, referee: BackgroundReferee, folders: tuple[Path, ...]) -> None:
        """Add to the running referee the bot programs of those of `folders` it does not serve yet."""
        for folder in folders:
            if folder not in self._folders:
                manifest = self._manifest(folder)
                referee.call(_add_manifest(referee.server, manifest))
                self._folders = (*self._folders, folder)

    def _config(self, folders: tuple[Path, ...]) -> ServerConfig:
        """The embedded referee's settings: these folders' bot programs, and this executor's settings."""
        from arena.rpc.server import ServerConfig

        config = ServerConfig(port=None, bot_dirs=(), results_dir=None,
                              bot_manifests=[self._manifest(folder) for folder in folders],
                              max_matches=self.concurrency, named_opponents=False, seed_salt=self.seed_salt)
        network = self.network
        if network is not None:
            config = replace(config, port=network.port, host=network.host, tls_cert=network.tls_cert,
                             tls_key=network.tls_key, connect_timeout_s=network.connect_timeout_s,
                             viewer_token=network.viewer_token)
        if self.clock is not None:
            config.clock = self.clock
        if self.fault_policy is not None:
            config.fault_policy = self.fault_policy
        config.agent_limits = self.limits
        if self.sandbox is not None:
            config.sandbox = self.sandbox
        return config

    def listen(self) -> str:
        """Start the referee now (remote bots can then connect before the first match); its network address."""
        return str(self._serve(self._folders).address)

    def register_remotes(self, token_hashes: dict[str, str]) -> None:
        """Take (or re-key) remote bots by name and token hash."""
        self._remotes.update(token_hashes)
        if self._referee is not None:
            _register_all(self._referee, token_hashes)

    def open_streams(self, game: str | None = None, family: str | None = None) -> dict[str, int]:
        """Per remote bot, its streams open now (for `game`, when given; 0 for one that is offline)."""
        if self._referee is None:
            return {}
        return self._referee.call(_open_streams(self._referee.server, game, family))

    def submit(self, job: MatchJob) -> concurrent.futures.Future[PlayedMatch]:
        """Start a job's match now (from any thread but the referee's); the future gives its played match."""
        folders = {Path(seat.spec) for seat in job.seats if seat.kind is PlayerKind.PROGRAM}
        referee = self._serve(tuple(sorted(folders | set(self._folders))))
        seats: list[Seat] = []
        for seat in job.seats:
            if seat.kind is PlayerKind.PROGRAM:
                seats.append(self._manifest(Path(seat.spec)).name)
            elif seat.kind is PlayerKind.REMOTE:
                seats.append(seat.spec)  # the referee seats it by name, on a stream it has open
            else:
                try:
                    seats.append(make_agent(seat.spec))
                except Exception as error:
                    raise ExecutorError(f"cannot make agent {seat.spec!r}: {error}") from None
        started_at, started = utcnow(), time.perf_counter()
        try:
            record_future = referee.submit(job.game, seats, job.seed, options=job.options)
        except Exception as error:
            raise ExecutorError(f"the referee refused a match: {error}") from None
        played: concurrent.futures.Future[PlayedMatch] = concurrent.futures.Future()

        def done(future: concurrent.futures.Future[MatchRecord]) -> None:
            for agent in seats:
                if isinstance(agent, Agent):
                    agent.close()
            try:
                record = future.result()
                played.set_result(played_from_record(job, record, started_at, (time.perf_counter() - started) * 1e3))
            except BaseException as error:  # noqa: BLE001 - the referee's failure, not the bots': played again
                played.set_result(infrastructure_fault(
                    job, f"the referee failed the match: {type(error).__name__}: {error}", started_at))

        record_future.add_done_callback(done)
        return played

    def stream(self, jobs: Iterable[MatchJob], should_stop: StopCheck = lambda: False) -> InOrder:
        """Start playing `jobs`, `concurrency` at a time, on a feeder thread: the matches go on while the
        caller waits on something else; `InOrder.take()` gives the results in job order."""
        jobs = list(jobs)
        folders = {Path(seat.spec) for job in jobs for seat in job.seats if seat.kind is PlayerKind.PROGRAM}
        if folders:  # every program of the run served from the start: no restart midway
            self._serve(tuple(sorted(folders | set(self._folders))))
        return InOrder(self, jobs, should_stop)

    def run(self, jobs: Iterable[MatchJob], should_stop: StopCheck = lambda: False,
            should_abandon: StopCheck = lambda: False, ordered: bool = True) -> Iterator[PlayedMatch]:
        stream = self.stream(jobs, should_stop)
        try:
            while True:
                if ordered:
                    played = stream.take(should_abandon)
                    if played is None:
                        return
                    yield played
                    continue
                status, finished = stream.take_any(should_abandon)
                if status in ("end", "abandoned"):
                    return
                if finished is not None:
                    yield finished
        finally:
            stream.cancel()

    def abandon(self) -> None:
        self.close()

    def close(self) -> None:
        if self._referee is not None:
            try:
                self._referee.stop()
            finally:
                self._referee = None


async def _add_manifest(server: RefereeServer, manifest: BotManifest) -> None:
    server.pool.add_manifest(manifest)


async def _register(server: RefereeServer, name: str, token_hash: str) -> None:
    server.pool.register_remote_hash(name, token_hash)


def _register_all(referee: BackgroundReferee, token_hashes: dict[str, str]) -> None:
    """Take (or re-key) these remote bots, by name and token hash, on the running referee."""
    for name, token_hash in token_hashes.items():
        referee.call(_register(referee.server, name, token_hash))


async def _open_streams(server: RefereeServer, game: str | None, family: str | None) -> dict[str, int]:
    return server.pool.open_streams(game, family)


_END = object()


class InOrder:
    """Jobs fed to the referee by a thread of their own, at most `concurrency` in flight; results in job order."""

    def __init__(self, executor: RefereeExecutor, jobs: list[MatchJob], should_stop: StopCheck) -> None:
        self.executor = executor
        self.jobs = jobs
        self.should_stop = should_stop
        self.slots = threading.Semaphore(executor.concurrency)
        self.started: queue.Queue[concurrent.futures.Future[PlayedMatch] | object] = queue.Queue()  # then _END
        self.error: BaseException | None = None
        self.cancelled = threading.Event()
        self.running: set[concurrent.futures.Future[PlayedMatch]] = set()  # started, not taken (take_any)
        self.ended = False  # take_any saw the feeder's end
        self.feeder = threading.Thread(target=self._feed, name="arena-referee-feeder", daemon=True)
        self.feeder.start()

    def _feed(self) -> None:
        try:
            for job in self.jobs:
                while not self.slots.acquire(timeout=0.1):
                    if self.cancelled.is_set():
                        return
                if self.cancelled.is_set() or self.should_stop():
                    return
                future = self.executor.submit(job)
                future.add_done_callback(lambda _done: self.slots.release())
                self.started.put(future)
        except BaseException as error:  # noqa: BLE001 - reported by take()
            self.error = error
        finally:
            self.started.put(_END)

    def take(self, should_abandon: StopCheck = lambda: False) -> PlayedMatch | None:
        """The next job's played match, in order; None once every started job is taken (or abandoned)."""
        while True:
            try:
                head = self.started.get(timeout=0.1)
                break
            except queue.Empty:
                if should_abandon():
                    self.cancel()
                    return None
        if head is _END:
            self.started.put(_END)  # later takes see the end too
            self._raise_feeder_error()
            return None
        assert isinstance(head, concurrent.futures.Future)
        while True:
            try:
                return head.result(timeout=0.1)
            except concurrent.futures.TimeoutError:
                if should_abandon():
                    self.cancel()
                    return None

    def take_any(self, should_abandon: StopCheck = lambda: False,
                 timeout: float | None = None) -> tuple[str, PlayedMatch | None]:
        """The next match to finish, whichever job it is: ("played", it); ("end", None) once every started
        job is taken; ("abandoned", None); or, after `timeout` seconds with none finished, ("wait", None)."""
        give_up = None if timeout is None else time.monotonic() + timeout
        while True:
            self._collect_started()
            if not self.running and self.ended:
                self._raise_feeder_error()
                return "end", None
            finished = self._next_finished()
            if finished is not None:
                return "played", finished.result()
            if should_abandon():
                self.cancel()
                return "abandoned", None
            if give_up is not None and time.monotonic() >= give_up:
                return "wait", None

    def _collect_started(self) -> None:
        """Move the matches the feeder started into `running` (take_any), noting the feeder's end."""
        while self.ended is False:
            try:
                head = self.started.get_nowait()
            except queue.Empty:
                break
            if head is _END:
                self.ended = True
            elif isinstance(head, concurrent.futures.Future):
                self.running.add(head)

    def _next_finished(self) -> concurrent.futures.Future[PlayedMatch] | None:
        """A running match that finished within a short wait, no longer running; None if none did."""
        if self.running:
            done, _ = concurrent.futures.wait(self.running, timeout=0.02,
                                              return_when=concurrent.futures.FIRST_COMPLETED)
            if done:
                finished = done.pop()
                self.running.discard(finished)
                return finished
        else:
            time.sleep(0.02)
        return None

    def _raise_feeder_error(self) -> None:
        """Raise the feeder's error, if it had one, as an ExecutorError."""
        if self.error is not None:
            raise self.error if isinstance(self.error, ExecutorError) else ExecutorError(str(self.error))

    def cancel(self) -> None:
        """Start no more jobs; the matches in flight are left to the referee (stopped when it closes)."""
        self.cancelled.set()
