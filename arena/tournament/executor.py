"""Executors: where matches are played. Results come back in the order the jobs went in, or (asked
with `ordered=False`) as they finish.

The order matters to a tournament: ratings are updated in that order, so its ratings do not depend
on which worker was fastest. A ladder service asks for results as they finish instead: then a
stalling match cannot keep the finished ones behind it from being stored before the round's time is
up. Here: in this process, and in local worker processes; bot programs play through the referee
(referee_executor.py), agents on other machines through Celery (celery_executor.py).
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import queue
import selectors
import signal
import threading
import time
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator, Sized
from itertools import islice
from types import TracebackType
from typing import Any

from arena.referee.limits import DEFAULT_LIMITS, AgentLimits
from arena.start_method import worker_start_method
from arena.tournament.jobs import MatchJob, PlayedMatch, infrastructure_fault, play_job

StopCheck = Callable[[], bool]


class ExecutorError(RuntimeError):
    """Matches could not be played (a worker died, a bot could not be started)."""


class Executor(ABC):
    """Plays match jobs and yields their outcomes in job order."""

    concurrency: int = 1

    @abstractmethod
    def run(self, jobs: Iterable[MatchJob], should_stop: StopCheck = lambda: False,
            should_abandon: StopCheck = lambda: False, ordered: bool = True) -> Iterator[PlayedMatch]:
        """Outcomes of `jobs`, in order (or as they finish, if not `ordered`); once `should_stop()` is true
        no new job starts, and once `should_abandon()` is true the matches still running are dropped
        unfinished (not yielded)."""

    def start(self) -> None:
        """Get ready to play (a local pool forks its workers here, before any thread of ours exists)."""

    def abandon(self) -> None:
        """Drop the matches in flight unfinished (on Ctrl-C)."""

    def close(self) -> None:
        """Release workers."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()


class RoutingExecutor(Executor):
    """A mixed field: jobs of built-in agents alone go to `agents` (a local pool, Celery workers), jobs with
    a bot program in a seat to `programs` (the referee, where agents sit beside programs). Both play at
    once; outcomes come back in job order (or as they finish), as from any executor."""

    def __init__(self, agents: Executor, programs: Any) -> None:
        self.agents = agents
        self.programs = programs  # a RefereeExecutor (its `stream` plays on while agents' results are awaited)
        self.concurrency = agents.concurrency

    def start(self) -> None:
        self.agents.start()

    def run(self, jobs: Iterable[MatchJob], should_stop: StopCheck = lambda: False,
            should_abandon: StopCheck = lambda: False, ordered: bool = True) -> Iterator[PlayedMatch]:
        jobs = list(jobs)
        programs = self.programs.stream([job for job in jobs if job.has_programs], should_stop)
        agents = self.agents.run([job for job in jobs if not job.has_programs], should_stop, should_abandon,
                                 ordered)
        try:
            if ordered:
                yield from _in_job_order(jobs, programs, agents, should_abandon)
            else:
                yield from _merged(programs, agents, should_abandon)
        finally:
            programs.cancel()
            if ordered and isinstance(agents, Generator):  # (unordered: the thread draining it closes it)
                agents.close()

    def abandon(self) -> None:
        self.agents.abandon()
        self.programs.abandon()

    def close(self) -> None:
        self.agents.close()
        self.programs.close()


def _in_job_order(jobs: list[MatchJob], programs: Any, agents: Iterator[PlayedMatch],
                  should_abandon: StopCheck) -> Iterator[PlayedMatch]:
    """Outcomes in job order, each from the stream its job went to (the referee's or the agents' executor)."""
    for job in jobs:
        played = programs.take(should_abandon) if job.has_programs else next(agents, None)
        if played is None:  # stopped or abandoned: the rest of the jobs wait for another run
            return
        yield played


def _merged(programs: Any, agents: Iterator[PlayedMatch], should_abandon: StopCheck) -> Iterator[PlayedMatch]:
    """Outcomes of both streams as they finish: each is drained by a thread of its own into one queue
    (the agents' generator blocks on its workers, the referee's stream on its matches)."""
    arrived: queue.Queue[Any] = queue.Queue()
    done = threading.Event()

    def drain_agents() -> None:
        try:
            for played in agents:
                arrived.put(played)
                if done.is_set():
                    return
        except BaseException as error:  # noqa: BLE001 - raised again on the caller's thread
            arrived.put(error)
        finally:
            if isinstance(agents, Generator):
                agents.close()
            arrived.put(_END)

    def drain_programs() -> None:
        try:
            while not done.is_set():
                status, played = programs.take_any(done.is_set, timeout=0.1)
                if status in ("end", "abandoned"):
                    return
                if played is not None:
                    arrived.put(played)
        except BaseException as error:  # noqa: BLE001 - raised again on the caller's thread
            arrived.put(error)
        finally:
            arrived.put(_END)

    threads = [threading.Thread(target=drain_agents, name="arena-agents-results", daemon=True),
               threading.Thread(target=drain_programs, name="arena-programs-results", daemon=True)]
    for thread in threads:
        thread.start()
    open_streams = len(threads)
    try:
        while open_streams:
            try:
                item = arrived.get(timeout=0.1)
            except queue.Empty:
                if should_abandon():
                    return
                continue
            if item is _END:
                open_streams -= 1
            elif isinstance(item, BaseException):
                raise item
            else:
                yield item
    finally:
        done.set()


_END = object()


class InlineExecutor(Executor):
    """Plays each match in this process, one at a time, its agents bounded by `limits`."""

    def __init__(self, limits: AgentLimits = DEFAULT_LIMITS) -> None:
        self.limits = limits

    def run(self, jobs: Iterable[MatchJob], should_stop: StopCheck = lambda: False,
            should_abandon: StopCheck = lambda: False, ordered: bool = True) -> Iterator[PlayedMatch]:
        for job in jobs:  # one at a time: finished in order either way
            if should_stop():
                return
            yield play_job(job, self.limits)


def _watch_parent() -> None:
    """In a worker: leave Ctrl-C to the parent (it stops cleanly), die quietly on SIGTERM (the parent's
    handlers were inherited by the fork) and exit once the parent is gone (the main process, or the fork
    server, which exits with the main process)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="arena-parent-watch", daemon=True).start()


class Chunks:
    """Cuts a job stream into chunks for workers that answer a chunk at a time.

    A chunk is about `seconds` of play by the running average of the matches seen (one job until
    the first is seen), at most `most` jobs, and, once the end of a job list is in sight, a share of
    what remains small enough that no worker sits idle while another finishes a long chunk.
    """

    def __init__(self, jobs: Iterable[MatchJob], workers: int, seconds: float, most: int,
                 average_s: float | None = None) -> None:
        self.remaining = len(jobs) if isinstance(jobs, Sized) else None
        self.source = iter(jobs)
        self.workers = workers
        self.seconds = seconds
        self.most = most
        self.average_s = average_s  # seconds per match, a moving average

    def next(self) -> list[MatchJob]:
        """The next chunk; empty once the jobs are all out."""
        size = 1
        if self.average_s is not None:
            size = min(self.most, int(self.seconds / max(self.average_s, 1e-6)))
            if self.remaining is not None:
                size = min(size, self.remaining // (2 * self.workers))
        chunk = list(islice(self.source, max(1, size)))
        if self.remaining is not None:
            self.remaining -= len(chunk)
        return chunk

    def seen(self, outcome: PlayedMatch) -> None:
        """Account for a played match in the average."""
        seconds = outcome.wall_s
        self.average_s = seconds if self.average_s is None else 0.8 * self.average_s + 0.2 * seconds


class LocalPoolExecutor(Executor):
    """Worker processes on this machine (default: one per core), each fed through its own pipe.

    Jobs go out in chunks sized to roughly `chunk_seconds` of play, so millisecond matches do not
    drown in messaging and minute-long ones still stop promptly; at most two chunks per worker are
    in flight (`pipeline`), so a stop request is honoured quickly. The main process sends and receives itself,
    with no helper threads: its time belongs to storing results and rating them.

    Agents are bounded by `limits` inside the workers (a decision past them loses on time). As a last resort
    the pool watches each worker's match: one still running past `limits.match_bound_s` (an agent stuck where
    its watchdog cannot reach) has its worker killed, and its matches come back as infrastructure faults.
    """

    def __init__(self, concurrency: int | None = None, chunk_seconds: float = 0.05, max_chunk: int = 32,
                 pipeline: int = 2, start_method: str | None = None, limits: AgentLimits = DEFAULT_LIMITS) -> None:
        self.concurrency = max(1, concurrency or os.cpu_count() or 1)
        self.limits = limits
        self.start_method = start_method  # None: worker_start_method() when the workers start
        self.pipeline = pipeline  # chunks in flight per worker: 2 keeps it busy; 1 lets no chunk wait behind
        # a stalling one (a ladder service's choice)
        self.chunk_seconds = chunk_seconds
        self.max_chunk = max_chunk
        self._average_s: float | None = None
        self._workers: list[_Worker] = []

    def _ensure_workers(self) -> list[_Worker]:
        if len(self._workers) < self.concurrency:  # at first, and to replace workers that died
            context = multiprocessing.get_context(self.start_method or worker_start_method())
            if context.get_start_method() == "forkserver":
                context.set_forkserver_preload(["arena.tournament.jobs", "arena.agents"])
            # What exists now lives as long as the process: keep it out of the collector's full passes,
            # here (they stall storing results) and in forked workers (they would copy every page).
            gc.freeze()
            self._workers += [_Worker(context, self.limits) for _ in range(self.concurrency - len(self._workers))]
        return self._workers

    def start(self) -> None:
        """Start the workers now (before any thread of ours exists: forking is then safe)."""
        self._ensure_workers()

    def run(self, jobs: Iterable[MatchJob], should_stop: StopCheck = lambda: False,
            should_abandon: StopCheck = lambda: False, ordered: bool = True) -> Iterator[PlayedMatch]:
        """A worker that dies takes the matches it was playing with it: they come back as infrastructure
        faults (to be played again) and the worker is replaced at the next run."""
        chunks = Chunks(jobs, self.concurrency, self.chunk_seconds, self.max_chunk, self._average_s)
        dispatch = _Dispatch(list(self._ensure_workers()), chunks, self.pipeline, self._forget)
        try:
            while True:
                dispatch.send(should_stop)
                for outcome in dispatch.answers_due(ordered):
                    self._average_s = chunks.average_s
                    yield outcome
                if dispatch.all_answered():  # (if every worker died, the rest waits for the next run)
                    return
                if should_abandon():
                    self.abandon()
                    return
                dispatch.stop_overdue()
                dispatch.receive(timeout=0.1)
        finally:
            dispatch.waiting.close()
            if any(worker.in_flight for worker in self._workers):  # abandoned midway: their answers are stale
                self.abandon()

    def _forget(self, worker: _Worker) -> None:
        """A worker died (or was stopped): it is replaced at the next run."""
        if worker in self._workers:
            self._workers.remove(worker)

    def abandon(self) -> None:
        """Kill the workers and their unfinished matches; the next run starts fresh workers."""
        workers, self._workers = self._workers, []
        for worker in workers:
            worker.kill()

    def close(self) -> None:
        workers, self._workers = self._workers, []
        for worker in workers:
            worker.stop()


class _Dispatch:
    """One run of a pool: chunks out to its workers (at most `pipeline` in flight each), answers back, and the
    outcomes held until their turn (chunks are numbered in the order they were sent)."""

    def __init__(self, workers: list[_Worker], chunks: Chunks, pipeline: int,
                 forget: Callable[[_Worker], None]) -> None:
        self.workers = workers
        self.by_conn: dict[object, _Worker] = {worker.conn: worker for worker in workers}
        self.chunks = chunks
        self.pipeline = pipeline
        self.forget = forget
        self.answered: dict[int, list[PlayedMatch]] = {}  # chunk number -> outcomes, until their turn
        self.sent = self.turn = 0  # chunks sent; the chunk whose outcomes are yielded next (in order)
        self.given = 0  # chunks whose outcomes were yielded
        self.exhausted = False
        self.waiting = _Waiting()

    def all_answered(self) -> bool:
        """Every chunk sent has been answered and its outcomes given."""
        return self.given == self.sent

    def send(self, should_stop: StopCheck) -> None:
        """Fill the least busy workers' pipelines until the jobs run out or a stop is asked."""
        while not self.exhausted and self.workers and not should_stop():
            worker = min(self.workers, key=lambda w: len(w.in_flight))
            if len(worker.in_flight) >= self.pipeline:
                break
            chunk = self.chunks.next()
            if not chunk:
                self.exhausted = True
                break
            try:
                worker.send(chunk)
            except _WorkerDied as died:
                self.answered[self.sent] = [infrastructure_fault(job, str(died)) for job in chunk]
                self.lose(worker, died)
            else:
                worker.in_flight.append((self.sent, chunk))
            self.sent += 1

    def answers_due(self, ordered: bool) -> Iterator[PlayedMatch]:
        """The outcomes answered and due: the chunks next in turn (if `ordered`), else all answered ones."""
        ready = ([self.turn] if self.turn in self.answered else []) if ordered else sorted(self.answered)
        while ready:
            number = ready.pop(0)
            for outcome in self.answered.pop(number):
                self.chunks.seen(outcome)
                yield outcome
            self.given += 1
            if ordered:
                self.turn += 1
                ready = [self.turn] if self.turn in self.answered else []

    def stop_overdue(self) -> None:
        """Stop each worker whose match ran past its bound."""
        for worker in [w for w in self.workers if w.in_flight]:
            overdue = worker.overdue()
            if overdue:
                self.lose(worker, overdue)

    def receive(self, timeout: float) -> None:
        """Take the answers that come within `timeout` seconds."""
        for conn in self.waiting.wait(tuple(w.conn for w in self.workers if w.in_flight), timeout):
            worker = self.by_conn[conn]
            number, chunk = worker.in_flight[0]
            try:
                answer = worker.receive()
            except _WorkerDied as died:
                self.lose(worker, died)
                continue
            except _ChunkFailed as failed:
                self.answered[number] = [infrastructure_fault(job, str(failed)) for job in chunk]
            else:
                self.answered[number] = [PlayedMatch.from_wire(job, fields) for job, fields in zip(chunk, answer)]
            worker.in_flight.popleft()

    def lose(self, worker: _Worker, died: Exception | str) -> None:
        """A worker died (or was stopped): the chunks it had are infrastructure faults."""
        for number, chunk in worker.in_flight:
            self.answered[number] = [infrastructure_fault(job, str(died)) for job in chunk]
        worker.in_flight.clear()
        worker.kill()
        self.workers.remove(worker)
        self.forget(worker)


class _Waiting:
    """`multiprocessing.connection.wait` that keeps its selector while it waits on the same connections (the
    main process waits for answers thousands of times a run, nearly always on the same workers)."""

    def __init__(self) -> None:
        self.conns: tuple[Any, ...] = ()
        self.selector: selectors.BaseSelector | None = None

    def wait(self, conns: tuple[Any, ...], timeout: float) -> list[Any]:
        """The connections of `conns` ready to read within `timeout` seconds (as `connection.wait`)."""
        if self.selector is None or conns != self.conns:
            self.close()
            self.selector = _wait_selector()
            for conn in conns:
                self.selector.register(conn, selectors.EVENT_READ)
            self.conns = conns
        deadline = time.monotonic() + timeout
        while True:
            ready = self.selector.select(timeout)
            if ready:
                return [key.fileobj for key, _events in ready]
            timeout = deadline - time.monotonic()
            if timeout < 0:
                return []

    def close(self) -> None:
        if self.selector is not None:
            self.selector.close()
        self.selector, self.conns = None, ()


def _wait_selector() -> selectors.BaseSelector:
    """The selector `connection.wait` uses: poll (no file descriptor of its own), else select."""
    return selectors.PollSelector() if hasattr(selectors, "PollSelector") else selectors.SelectSelector()


class _Worker:
    """One worker process, the duplex pipe the main process talks to it through, and what it plays now
    (`progress`: when its current match started, by the system's monotonic clock; 0 between matches)."""

    def __init__(self, context: Any, limits: AgentLimits) -> None:
        self.conn, child = context.Pipe(duplex=True)
        self.limits = limits
        self.progress = context.RawArray("d", 1)
        self.process = context.Process(target=_serve, args=(child, limits, self.progress), name="arena-worker",
                                       daemon=True)
        self.process.start()
        child.close()
        self.in_flight: deque[tuple[int, list[MatchJob]]] = deque()  # chunks sent, not answered: oldest first

    def overdue(self) -> str:
        """Why the match this worker plays is past its bound (the worker is to be stopped), or ""."""
        started = self.progress[0]
        if not started or not self.in_flight:
            return ""
        seats = max(len(job.seats) for _number, chunk in self.in_flight for job in chunk)
        bound = self.limits.match_bound_s(seats)
        running = time.monotonic() - started
        if running <= bound:
            return ""
        return (f"the pool's watchdog stopped a worker whose match ran {running:.0f}s, past its bound of {bound:.0f}s "
                f"(agents limited to {self.limits.describe()}: one was stuck where it could not be interrupted); "
                "the matches it held are played again")

    def send(self, chunk: list[MatchJob]) -> None:
        try:
            self.conn.send(chunk)
        except OSError:
            raise _WorkerDied(_DIED) from None

    def receive(self) -> list[tuple[Any, ...]]:
        """The outcomes of the oldest chunk in flight, in `PlayedMatch.wire()` form (answers come in order).
        _WorkerDied if the worker is gone, _ChunkFailed if the chunk raised (an error of Arena's, not a bot's)."""
        try:
            status, payload = self.conn.recv()
        except (EOFError, OSError):
            self.process.join(1)
            code = self.process.exitcode
            how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit status {code}"
            raise _WorkerDied(f"{_DIED} ({how})") from None
        if status != "ok":
            raise _ChunkFailed(f"the worker failed the match: {payload}")
        outcomes: list[tuple[Any, ...]] = payload
        return outcomes

    def stop(self, timeout: float = 5.0) -> None:
        """Ask the worker to exit after its current chunk; kill it if it has not within `timeout` seconds."""
        try:
            self.conn.send(None)
        except OSError:
            pass
        self.process.join(timeout)
        self.kill()

    def kill(self) -> None:
        """End the worker now, whatever it is playing."""
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(5)
        self.conn.close()


_DIED = "a worker process died while playing a match (out of memory? killed?)"


class _WorkerDied(Exception):
    """The worker process is gone."""


class _ChunkFailed(Exception):
    """The worker raised while playing a chunk: an error of Arena's, not of a bot's."""


def _serve(conn: Any, limits: AgentLimits, progress: Any) -> None:
    """A worker's loop: play each chunk of jobs it receives and answer ("ok", outcomes) or ("error", why),
    noting in `progress` when each match starts (the parent's watchdog reads it)."""
    _watch_parent()
    while True:
        try:
            chunk = conn.recv()
        except (EOFError, OSError):
            return
        if chunk is None:
            return
        outcomes = []
        try:
            for job in chunk:
                progress[0] = time.monotonic()
                outcomes.append(play_job(job, limits).wire())
            answer: tuple[str, Any] = ("ok", outcomes)
        except Exception as error:  # not a bot's fault (those are forfeits): the engine or the set-up
            answer = ("error", f"{type(error).__name__}: {error}")
        finally:
            progress[0] = 0.0
        conn.send(answer)

