"""Bot programs in tournaments: matches refereed by an embedded referee server (arena.rpc).

The server has no network port: it launches each bot program from its folder (bot.toml) in its
sandbox, reached over the referee's bot socket, and enforces the clock and the fault policy;
records come back to be stored like any other.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections import deque
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from arena.tournament.executor import Executor, ExecutorError, StopCheck
from arena.tournament.jobs import MatchJob, MatchOutcome, _utcnow, outcome_from_record


class RefereeExecutor(Executor):
    """Plays jobs whose seats are all bot programs, `concurrency` matches at a time."""

    def __init__(self, concurrency: int | None = None, clock: Any = None, fault_policy: Any = None,
                 sandbox: Any = None) -> None:
        self.concurrency = max(1, concurrency or os.cpu_count() or 1)
        self.clock = clock
        self.fault_policy = fault_policy
        self.sandbox = sandbox  # SandboxSettings; None: the default (bubblewrap)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: Any = None
        self._folders: tuple[Path, ...] = ()
        self._names: dict[str, str] = {}  # program folder -> manifest name

    def _name(self, folder: str) -> str:
        if folder not in self._names:
            from arena.rpc.manifest import ManifestError, load_manifest

            try:
                self._names[folder] = load_manifest(Path(folder)).name
            except ManifestError as error:
                raise ExecutorError(str(error)) from None
        return self._names[folder]

    def _serve(self, folders: tuple[Path, ...]) -> Any:
        if self._server is not None and set(folders) <= set(self._folders):
            return self._server
        from arena.rpc.server import RefereeServer, ServerConfig

        self.close()
        self._loop = asyncio.new_event_loop()
        settings: dict[str, Any] = {"port": None, "bot_dirs": folders, "results_dir": None,
                                    "max_matches": self.concurrency}
        if self.sandbox is not None:
            settings["sandbox"] = self.sandbox
        if self.clock is not None:
            settings["clock"] = self.clock
        if self.fault_policy is not None:
            settings["fault_policy"] = self.fault_policy
        try:
            self._server = RefereeServer(ServerConfig(**settings))
            self._loop.run_until_complete(self._server.start())
        except Exception as error:
            self._server = None
            raise ExecutorError(f"cannot start the referee: {error}") from None
        self._folders = folders
        return self._server

    def run(self, jobs: Iterable[MatchJob], should_stop: StopCheck = lambda: False,
            should_abandon: StopCheck = lambda: False) -> Iterator[MatchOutcome]:
        jobs = list(jobs)
        for job in jobs:
            agents = [seat.name for seat in job.seats if seat.kind != "program"]
            if agents:
                raise ExecutorError(f"{', '.join(agents)}: built-in agents and bot programs cannot share a "
                                    "tournament yet; enter the program versions (bots/<name>) instead")
        folders = tuple(sorted({Path(seat.spec) for job in jobs for seat in job.seats}))
        if not jobs:
            return
        server = self._serve(folders)
        loop = self._loop
        assert loop is not None

        async def start(job: MatchJob) -> Any:
            names = [self._name(seat.spec) for seat in job.seats]
            return server.start_match(job.game, names, seed=job.seed, options=job.options)

        source = iter(jobs)
        in_flight: deque[tuple[MatchJob, Any, Any, float]] = deque()
        exhausted = False
        try:
            while True:
                while not exhausted and len(in_flight) < self.concurrency and not should_stop():
                    upcoming = next(source, None)
                    if upcoming is None:
                        exhausted = True
                        break
                    try:
                        live = loop.run_until_complete(start(upcoming))
                    except Exception as error:
                        raise ExecutorError(f"the referee refused a match: {error}") from None
                    in_flight.append((upcoming, live, _utcnow(), time.perf_counter()))
                if not in_flight:
                    return
                job, live, started_at, started = in_flight[0]
                while not live.task.done():
                    if should_abandon():
                        return
                    loop.run_until_complete(asyncio.wait({live.task}, timeout=0.1))
                in_flight.popleft()
                try:
                    record = live.task.result()
                except Exception as error:
                    raise ExecutorError(f"the referee failed a match: {type(error).__name__}: {error}") from None
                yield outcome_from_record(job, record, started_at, (time.perf_counter() - started) * 1000.0)
        finally:
            for _job, live, _started_at, _started in in_flight:
                live.task.cancel()
            if in_flight:
                loop.run_until_complete(asyncio.gather(*(item[1].task for item in in_flight),
                                                       return_exceptions=True))

    def close(self) -> None:
        if self._server is not None and self._loop is not None:
            try:
                self._loop.run_until_complete(self._server.stop(drain_s=0.0))
            finally:
                self._server = None
        if self._loop is not None:
            self._loop.close()
            self._loop = None
