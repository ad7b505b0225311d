"""Executors: where matches are played. Results always come back in the order the jobs went in.

The order matters: ratings are updated in that order, so a tournament's ratings do not depend on
which worker was fastest. An executor for bot programs (through the referee server) or a Celery
one implements the same `run`.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from itertools import islice
from types import TracebackType

from arena.tournament.jobs import MatchJob, MatchOutcome, play_job, play_jobs

StopCheck = Callable[[], bool]


class ExecutorError(RuntimeError):
    """Matches could not be played (a worker died, a bot could not be started)."""


class Executor(ABC):
    """Plays match jobs and yields their outcomes in job order."""

    concurrency: int = 1

    @abstractmethod
    def run(self, jobs: Iterable[MatchJob], should_stop: StopCheck = lambda: False,
            should_abandon: StopCheck = lambda: False) -> Iterator[MatchOutcome]:
        """Outcomes of `jobs`, in order; once `should_stop()` is true no new job starts, and once
        `should_abandon()` is true the matches still running are dropped unfinished (not yielded)."""

    def close(self) -> None:
        """Release workers."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()


class InlineExecutor(Executor):
    """Plays each match in this process, one at a time."""

    def run(self, jobs: Iterable[MatchJob], should_stop: StopCheck = lambda: False,
            should_abandon: StopCheck = lambda: False) -> Iterator[MatchOutcome]:
        for job in jobs:
            if should_stop():
                return
            yield play_job(job)


def _watch_parent(parent: int) -> None:
    """In a worker: leave Ctrl-C to the parent (it stops cleanly) and exit once the parent is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="arena-parent-watch", daemon=True).start()


class LocalPoolExecutor(Executor):
    """A pool of worker processes on this machine (default: one per core).

    Jobs go out in chunks sized to roughly `chunk_seconds` of play, so millisecond matches do not
    drown in messaging and minute-long ones still stop promptly; at most two chunks per worker are
    in flight, so a stop request is honoured quickly.
    """

    def __init__(self, concurrency: int | None = None, chunk_seconds: float = 0.05, max_chunk: int = 32) -> None:
        self.concurrency = max(1, concurrency or os.cpu_count() or 1)
        self.chunk_seconds = chunk_seconds
        self.max_chunk = max_chunk
        self._average_s: float | None = None
        self._pool: ProcessPoolExecutor | None = None

    def _ensure_pool(self) -> ProcessPoolExecutor:
        if self._pool is None:
            import multiprocessing

            methods = multiprocessing.get_all_start_methods()
            context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
            self._pool = ProcessPoolExecutor(self.concurrency, mp_context=context, initializer=_watch_parent,
                                             initargs=(os.getpid(),))
        return self._pool

    def start(self) -> None:
        """Start the workers now (before any thread of ours exists: forking is then safe)."""
        self._ensure_pool()

    def _chunk_size(self) -> int:
        if self._average_s is None:
            return 1
        return max(1, min(self.max_chunk, int(self.chunk_seconds / max(self._average_s, 1e-6))))

    def run(self, jobs: Iterable[MatchJob], should_stop: StopCheck = lambda: False,
            should_abandon: StopCheck = lambda: False) -> Iterator[MatchOutcome]:
        pool = self._ensure_pool()
        source = iter(jobs)
        in_flight: deque[Future[list[MatchOutcome]]] = deque()
        exhausted = False
        try:
            while True:
                while not exhausted and len(in_flight) < 2 * self.concurrency and not should_stop():
                    chunk = list(islice(source, self._chunk_size()))
                    if not chunk:
                        exhausted = True
                        break
                    in_flight.append(pool.submit(play_jobs, chunk))
                if not in_flight:
                    return
                head = in_flight[0]
                while not head.done():
                    if should_abandon():
                        self.abandon()
                        return
                    wait([head], timeout=0.1)
                in_flight.popleft()
                try:
                    outcomes = head.result()
                except BrokenProcessPool:
                    self._pool = None
                    raise ExecutorError("a worker process died while playing a match (out of memory? killed?)") \
                        from None
                except Exception as error:  # not a bot's fault (those are forfeits): the engine or the set-up
                    raise ExecutorError(f"a match could not be played: {type(error).__name__}: {error}") from error
                for outcome in outcomes:
                    seconds = outcome.wall_s
                    self._average_s = seconds if self._average_s is None else 0.8 * self._average_s + 0.2 * seconds
                    yield outcome
        finally:
            for future in in_flight:
                future.cancel()

    def abandon(self) -> None:
        """Kill the workers and their unfinished matches; the next run starts fresh workers."""
        pool, self._pool = self._pool, None
        if pool is None:
            return
        # ProcessPoolExecutor has no public way to stop running tasks; its worker table is the
        # documented-in-source `_processes` mapping (stable since Python 3.8).
        processes = list(getattr(pool, "_processes", {}).values())
        for process in processes:
            process.terminate()
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.join(timeout=5)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


def make_executor(concurrency: int | None) -> Executor:
    """The local executor for a concurrency (1 plays in worker processes too, for like-for-like timing)."""
    return LocalPoolExecutor(concurrency)
