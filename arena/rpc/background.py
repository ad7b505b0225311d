"""A referee server on its own thread, for synchronous callers (the CLI, tournament runners).

    with BackgroundReferee(ServerConfig(bot_dirs=[Path("bots")])) as referee:
        record = referee.run_match("major-general", ["random", "trivial"], seed=7)
        futures = [referee.submit("major-general", ["random", "random"], seed=s) for s in range(8)]
        records = [f.result() for f in futures]
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from typing import Any, Optional, Sequence

from arena.referee.clock import ClockSettings
from arena.referee.faults import FaultPolicy
from arena.referee.record import MatchRecord
from arena.rpc.matches import Seat
from arena.rpc.server import LiveMatch, RefereeServer, ServerConfig

TASKS_END_S = 5.0  # how long the tasks left when the loop stops may take to end once cancelled


class BackgroundReferee:
    """Runs a RefereeServer in an event loop on a daemon thread; a context manager."""

    def __init__(self, config: ServerConfig | None = None, *, drain_s: float = 10.0) -> None:
        self.server = RefereeServer(config)
        self.drain_s = drain_s
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._thread: Optional[threading.Thread] = None

    @property
    def address(self) -> str:
        """host:port the server listens on."""
        return self.server.address

    @property
    def admin_token(self) -> str:
        """The token admin calls need (given in the config, or made at start)."""
        return self.server.admin_token

    def start(self) -> str:
        """Start the loop thread and the server; returns the address."""
        ready: concurrent.futures.Future[asyncio.AbstractEventLoop] = concurrent.futures.Future()

        def run() -> None:
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            ready.set_result(loop)
            loop.run_forever()
            _end_tasks(loop)
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

        self._thread = threading.Thread(target=run, name="arena-referee", daemon=True)
        self._thread.start()
        self._loop = ready.result()
        try:
            return self._call(self.server.start())
        except BaseException:
            self._end_thread()  # (the server has closed what it opened: no thread left running for nothing)
            raise

    def stop(self) -> None:
        """Finish or void running matches, stop bots and the server, end the thread."""
        if self._loop is None:
            return
        try:
            self._call(self.server.stop(self.drain_s))
        finally:
            self._end_thread()

    def _end_thread(self) -> None:
        """Stop the loop and wait for its thread to end."""
        assert self._loop is not None
        self._loop.call_soon_threadsafe(self._loop.stop)
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._loop = None

    def __enter__(self) -> BackgroundReferee:
        self.start()
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.stop()

    def register_remote(self, name: str, token: str | None = None) -> str:
        """Register a remote bot; returns its token."""
        return self._call(self._register(name, token))

    async def _register(self, name: str, token: str | None) -> str:
        return self.server.register_remote(name, token)

    def submit(self, game: str, bots: Sequence[Seat], seed: int | None = None, *,
               options: dict[str, Any] | None = None, clock: ClockSettings | None = None,
               fault_policy: FaultPolicy | None = None) -> concurrent.futures.Future[MatchRecord]:
        """Start a match; the future resolves to its record. Raises MatchRequestError at once if invalid."""
        started = self._call(self._start(game, bots, seed, options, clock, fault_policy))
        assert self._loop is not None and started.task is not None
        return asyncio.run_coroutine_threadsafe(_await(started), self._loop)

    def run_match(self, game: str, bots: Sequence[Seat], seed: int | None = None, *,
                  options: dict[str, Any] | None = None, clock: ClockSettings | None = None,
                  fault_policy: FaultPolicy | None = None) -> MatchRecord:
        """Play one match and return its record (blocking)."""
        return self.submit(game, bots, seed, options=options, clock=clock, fault_policy=fault_policy).result()

    async def _start(self, game: str, bots: Sequence[Seat], seed: int | None, options: dict[str, Any] | None,
                     clock: ClockSettings | None, fault_policy: FaultPolicy | None) -> LiveMatch:
        return self.server.start_match(game, bots, seed=seed, options=options, clock=clock, fault_policy=fault_policy)

    def call(self, coroutine: Any) -> Any:
        """Run a coroutine on the referee's event loop (to use the server's async API) and return its result."""
        return self._call(coroutine)

    def _call(self, coroutine: Any) -> Any:
        if self._loop is None:
            coroutine.close()
            raise RuntimeError("the referee is not running")
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()


def _end_tasks(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel what still runs on the stopped loop and let it end, as asyncio.run does: the gRPC server's handlers
    of streams a client kept open (a health watch) would otherwise be destroyed with the loop mid-await, and fail
    later, wherever the garbage collector meets them. Their errors are the stopped server's, not news: dropped."""
    pending = asyncio.all_tasks(loop)
    for task in pending:
        task.cancel()
    if not pending:
        return
    done, _ = loop.run_until_complete(asyncio.wait(pending, timeout=TASKS_END_S))
    for task in done:
        if not task.cancelled():
            task.exception()  # (retrieved: no "exception was never retrieved" when it is collected)


async def _await(live: LiveMatch) -> MatchRecord:
    assert live.task is not None
    return await live.task
