"""Matches played by Celery workers, on this machine or many: `arena worker` serves, `--broker` sends.

The tournament's own process plans, stores and rates exactly as with the local pool (results in
schedule order, so the ratings do not depend on who played what); the workers only play. Jobs and
outcomes travel as JSON, never pickle: whoever can write to the broker must not be able to run code
on a worker. Redis is the broker and the result backend (`redis://host:6379/0`); bot programs need
the referee executor and cannot be played this way.
"""

from __future__ import annotations

import base64
import logging
import time
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from typing import TYPE_CHECKING, Any

from arena.secret_files import BROKER_PASSWORD_FILE_ENV, with_password
from arena.referee.limits import DEFAULT_LIMITS, AgentLimits
from arena.referee.players import PlayerKind
from arena.referee.record import reason_of
from arena.tournament.executor import Chunks, Executor, ExecutorError, StopCheck
from arena.tournament.jobs import MatchJob, PlayedMatch, SeatBot, infrastructure_fault, play_job

if TYPE_CHECKING:
    from celery import Celery
    from celery.result import AsyncResult

BROKER_ENV = "ARENA_BROKER"
DEFAULT_QUEUE = "arena"
TASK = "arena.play_chunk"
log = logging.getLogger("arena.workers")


def job_to_json(job: MatchJob) -> dict[str, Any]:
    """A job as JSON-ready data."""
    return {"tournament_id": job.tournament_id, "round": job.round, "pairing": job.pairing,
            "rotation": job.rotation, "game": job.game, "options": job.options, "seed": job.seed, "pool": job.pool,
            "seats": [[seat.bot_id, seat.name, seat.version, seat.kind.value, seat.spec] for seat in job.seats]}


def job_from_json(data: dict[str, Any]) -> MatchJob:
    """The job `job_to_json` wrote."""
    return MatchJob(int(data["tournament_id"]), int(data["round"]), int(data["pairing"]), int(data["rotation"]),
                    str(data["game"]), dict(data["options"]), int(data["seed"]),
                    tuple(SeatBot(int(bot), str(name), str(version), PlayerKind(kind), str(spec))
                          for bot, name, version, kind, spec in data["seats"]), str(data.get("pool", "")))


def outcome_to_json(outcome: PlayedMatch) -> dict[str, Any]:
    """An outcome as JSON-ready data, without its job (the sender has it)."""
    return {"uid": outcome.uid, "ranking": list(outcome.ranking), "scores": list(outcome.scores),
            "reason": outcome.reason, "offender": outcome.offender, "detail": outcome.detail,
            "steps": outcome.steps, "decisions": outcome.decisions, "timings": outcome.timings,
            "record": base64.b64encode(outcome.record_gz).decode("ascii"), "record_size": outcome.record_size,
            "started_at": outcome.started_at.isoformat(), "finished_at": outcome.finished_at.isoformat(),
            "voided": outcome.voided, "luck": list(outcome.luck) if outcome.luck is not None else None}


def outcome_from_json(job: MatchJob, data: dict[str, Any]) -> PlayedMatch:
    """The outcome of `job` that `outcome_to_json` wrote; ExecutorError if it is not one."""
    try:
        offender = data["offender"]
        return PlayedMatch(
            job, str(data["uid"]), tuple(int(rank) for rank in data["ranking"]),
            tuple(float(score) for score in data["scores"]), reason_of(str(data["reason"])),
            None if offender is None else int(offender), str(data["detail"]), int(data["steps"]),
            int(data["decisions"]), dict(data["timings"]), base64.b64decode(data["record"], validate=True),
            int(data["record_size"]), datetime.fromisoformat(data["started_at"]),
            datetime.fromisoformat(data["finished_at"]), bool(data.get("voided", False)),
            None if data.get("luck") is None else tuple(float(value) for value in data["luck"]))
    except (KeyError, TypeError, ValueError) as error:
        raise ExecutorError(f"a worker sent a malformed outcome ({type(error).__name__}: {error})") from None


def play_chunk(jobs: list[dict[str, Any]], limits: dict[str, float] | None = None) -> list[dict[str, Any]]:
    """The workers' task: play a chunk of jobs in order, the agents bounded by `limits` (AgentLimits.to_json;
    None: the defaults)."""
    bounds = AgentLimits.from_json(limits)
    return [outcome_to_json(play_job(job_from_json(data), bounds)) for data in jobs]


def make_app(broker: str, queue: str = DEFAULT_QUEUE) -> Celery:
    """The Celery application of both sides: JSON only, one chunk per worker process at a time, a
    chunk acknowledged once played (a machine lost mid-chunk hands it to another worker). ImportError
    without Celery (pip install 'arena[distributed]')."""
    from celery import Celery

    broker = with_password(broker, BROKER_PASSWORD_FILE_ENV)
    app = Celery("arena", broker=broker, backend=broker, set_as_current=False)
    app.conf.update(
        task_serializer="json", result_serializer="json", accept_content=["json"], result_accept_content=["json"],
        task_default_queue=queue, task_acks_late=True, worker_prefetch_multiplier=1, result_expires=24 * 3600,
        task_track_started=True,  # a started chunk names its worker: the sender can tell when that one is lost
        broker_connection_retry_on_startup=True, broker_connection_timeout=5, worker_hijack_root_logger=False,
        redis_socket_connect_timeout=5,
        # give up on an unreachable Redis after about 3 s, not Celery's 20 (a stopped run resumes)
        result_backend_transport_options={"retry_policy": {"max_retries": 3, "interval_start": 0,
                                                           "interval_step": 1, "interval_max": 1}},
    )
    app.task(name=TASK)(play_chunk)
    return app


class CeleryExecutor(Executor):
    """Sends chunks of jobs to `arena worker` processes through the broker, yields outcomes in order.

    `concurrency` is the number of worker processes expected to serve (it sets the chunks in flight:
    two each). If nothing has answered after `stall_s` and no worker consumes the queue (none started yet,
    or every one killed), the run waits for one: `on_wait(line)` says why and how to start one, when the
    wait begins and again every `lost_check_s` while it lasts, and `on_wait(None)` once a worker serves
    again (without `on_wait`, the start and the end of the wait are logged once each, logger
    "arena.workers"); `waiting` holds the line meanwhile. A chunk whose worker is lost (killed, its machine
    gone: it no longer answers a ping), that fails on its worker, or that no worker has taken up within
    `lost_after_s` of being sent while workers serve comes back as infrastructure faults, which the runner
    plays again.

    Agents are bounded by `limits` on the workers; as a last resort each chunk carries a hard time limit
    (every match's `limits.match_bound_s`), past which Celery kills the worker process playing it and the
    chunk comes back as infrastructure faults.
    """

    def __init__(self, broker: str, concurrency: int | None = None, queue: str = DEFAULT_QUEUE,
                 chunk_seconds: float = 0.5, max_chunk: int = 64, stall_s: float = 10.0,
                 lost_check_s: float = 3.0, lost_after_s: float = 600.0, limits: AgentLimits = DEFAULT_LIMITS,
                 on_wait: Callable[[str | None], None] | None = None) -> None:
        self.broker = broker
        self.limits = limits
        self.concurrency = max(1, concurrency or 8)
        self.queue = queue
        self.chunk_seconds = chunk_seconds
        self.max_chunk = max_chunk
        self.stall_s = stall_s
        self.lost_check_s = lost_check_s
        self.lost_after_s = lost_after_s
        self.on_wait = on_wait
        self.waiting: str | None = None  # why the run waits for a worker, while it does
        self._served_since = 0.0  # when a worker last came back (time.monotonic())
        self._suspects: set[str] = set()  # chunks in no live worker's hands at the last check
        self.app = make_app(broker, queue)
        from kombu.utils.url import maybe_sanitize_url

        self.shown_broker = maybe_sanitize_url(broker)  # for messages: no password
        self._average_s: float | None = None

    def run(self, jobs: Iterable[MatchJob], should_stop: StopCheck = lambda: False,
            should_abandon: StopCheck = lambda: False, ordered: bool = True) -> Iterator[PlayedMatch]:
        chunks = Chunks(jobs, self.concurrency, self.chunk_seconds, self.max_chunk, self._average_s)
        in_flight: list[tuple[AsyncResult, list[MatchJob], float]] = []  # result, chunk, when sent
        exhausted = False
        try:
            while True:
                if not exhausted:
                    exhausted = self._fill(chunks, in_flight, should_stop)
                if not in_flight:
                    return
                found = self._wait(in_flight[:1] if ordered else in_flight, should_abandon, should_stop)
                if found is None:
                    return
                index, lost = found
                result, chunk, _sent = in_flight.pop(index)
                yield from self._chunk_outcomes(result, chunk, lost, chunks)
        finally:
            for result, _chunk, _sent in in_flight:  # stopped early: nobody will read these
                self._drop(result)

    def _fill(self, chunks: Chunks, in_flight: list[tuple[AsyncResult, list[MatchJob], float]],
              should_stop: StopCheck) -> bool:
        """Send chunks until two per worker are in flight (or the run should stop); whether the jobs ran out."""
        while len(in_flight) < 2 * self.concurrency and not should_stop():
            chunk = chunks.next()
            if not chunk:
                return True
            in_flight.append((self._send(chunk), chunk, time.monotonic()))
        return False

    def _chunk_outcomes(self, result: AsyncResult, chunk: list[MatchJob], lost: str,
                        chunks: Chunks) -> Iterator[PlayedMatch]:
        """The outcomes of a chunk taken out of flight: infrastructure faults if it was `lost` or failed."""
        if lost:
            self._drop(result)
            yield from _faults(chunk, lost)
            return
        try:
            answer = self._answer(result, len(chunk))
        except _ChunkFailed as failed:
            yield from _faults(chunk, str(failed))
            return
        yield from self._answered(chunk, answer, chunks)

    def _answered(self, chunk: list[MatchJob], answer: list[dict[str, Any]], chunks: Chunks) -> Iterator[PlayedMatch]:
        """The outcomes a worker answered for `chunk` (an infrastructure fault for each it sent nonsense for)."""
        for job, data in zip(chunk, answer):
            try:
                outcome = outcome_from_json(job, data)
            except ExecutorError as error:  # a worker (or whoever wrote to the backend) sent nonsense
                yield infrastructure_fault(job, str(error))
                continue
            chunks.seen(outcome)
            self._average_s = chunks.average_s
            yield outcome

    def _send(self, chunk: list[MatchJob]) -> AsyncResult:
        try:
            bound = sum(self.limits.match_bound_s(len(job.seats)) for job in chunk)
            return self.app.send_task(TASK, args=[[job_to_json(job) for job in chunk], self.limits.to_json()],
                                      queue=self.queue, time_limit=bound)
        except Exception as error:  # kombu's connection errors vary by transport
            raise ExecutorError(f"cannot reach the broker {self.shown_broker}: {type(error).__name__}: {error}") \
                from None

    def _wait(self, waiting: list[tuple[AsyncResult, list[MatchJob], float]], should_abandon: StopCheck,
              should_stop: StopCheck = lambda: False) -> tuple[int, str] | None:
        """Wait for one of `waiting` (in order: the first only): (its index, "") once it is ready, (its
        index, why) once it is known lost (an infrastructure fault), or None if the run is abandoned first (or
        asked to stop while no worker serves: nothing is being played)."""
        started = time.monotonic()
        check_workers_at: float | None = started + self.stall_s  # None: a worker was seen to serve
        next_check = started + self.lost_check_s
        while True:
            ready = self._first_ready(waiting)
            if ready is not None:
                return ready, ""
            if should_abandon() or (self.waiting is not None and should_stop()):
                return None
            now = time.monotonic()
            check_workers_at = self._next_workers_check(check_workers_at, now)
            if now >= next_check:
                lost = self._first_lost(waiting, now)
                if lost is not None:
                    return lost
                next_check = time.monotonic() + self.lost_check_s
            time.sleep(0.02)

    def _next_workers_check(self, check_at: float | None, now: float) -> float | None:
        """When `_wait` next checks that a worker serves (None: one was seen to), checking now if `check_at` is due."""
        if check_at is not None and now >= check_at:
            return None if self._workers_serve() else now + self.lost_check_s
        return check_at

    def _first_ready(self, waiting: list[tuple[AsyncResult, list[MatchJob], float]]) -> int | None:
        """The index of the first of `waiting` that is ready (a worker answered: a wait for one is over), or None."""
        for index, (result, _chunk, _sent) in enumerate(waiting):
            if self._ready(result):
                self._served()  # (a worker answered: if the run was waiting, it is over)
                return index
        return None

    def _first_lost(self, waiting: list[tuple[AsyncResult, list[MatchJob], float]],
                    now: float) -> tuple[int, str] | None:
        """The first of `waiting` known lost, as (its index, why): its worker gone, none took it up, or it was
        orphaned (see _orphan); None if none is."""
        for index, (result, _chunk, sent) in enumerate(waiting):
            lost = self._lost(result, now - sent, now - max(sent, self._served_since))
            if lost:
                return index, lost
        return self._orphan(waiting, now)

    def _orphan(self, waiting: list[tuple[AsyncResult, list[MatchJob], float]], now: float) -> tuple[int, str] | None:
        """A chunk not taken up (PENDING) that is in no live worker's hands while the queue is empty, at two checks
        running: (its index, why). A worker killed after it took a chunk and before it started it held it
        (Redis hands such a message out again only after an hour)."""
        if self.waiting is not None:
            return None
        pending = {result.id: index for index, (result, _chunk, sent) in enumerate(waiting)
                   if now - sent > self.lost_check_s and _state(result) == "PENDING"}
        suspects = self._unheld(list(pending)) if pending else set()
        again = suspects & self._suspects
        self._suspects = suspects
        if not again:
            return None
        return pending[min(again, key=pending.__getitem__)], ("the worker that took the match up stopped answering "
                                                               "before it started it (killed, or its machine lost)")

    def _unheld(self, tasks: list[str]) -> set[str]:
        """Of `tasks`, those no live worker holds, if the queue is empty (else none: they may be queued)."""
        try:
            with self.app.connection_for_write() as connection:
                if self._queued(connection):
                    return set()
                replies = self.app.control.inspect(timeout=1.0, connection=connection).query_task(*tasks) or {}
        except Exception:  # the broker is unreachable: not these chunks' loss
            return set()
        held = {task for reply in replies.values() for task in (reply or {})}
        return set(tasks) - held

    def _queued(self, connection: Any) -> int:
        """How many messages wait in the queue (Redis keeps no empty queue: none there, none waiting)."""
        from kombu.exceptions import ChannelError

        try:
            return int(connection.default_channel.queue_declare(self.queue, passive=True).message_count)
        except ChannelError:
            return 0

    def _workers_serve(self) -> bool:
        """Whether a worker consumes the queue; if none does, the run waits for one and says so."""
        if self.serving():
            self._served()
            return True
        line = (f"no Arena worker consumes queue {self.queue!r} on {self.shown_broker}: waiting for one (start one "
                f"with `arena worker --broker {self.shown_broker} --queue {self.queue}`)")
        if self.on_wait is not None:
            self.on_wait(line)
        elif self.waiting is None:
            log.warning(line)
        self.waiting = line
        return False

    def _served(self) -> None:
        """A worker serves: a wait for one, if there was one, is over."""
        if self.waiting is None:
            return
        self.waiting = None
        self._served_since = time.monotonic()  # what was queued meanwhile is not lost: it was not taken up yet
        if self.on_wait is not None:
            self.on_wait(None)
        else:
            log.warning(f"a worker consumes queue {self.queue!r} again: carrying on")

    def _lost(self, result: AsyncResult, waited_s: float, served_s: float) -> str:
        """Why a chunk not answered yet will never be: its worker no longer answers, or none took it up
        although workers served (`served_s`: how long it has waited while they did)."""
        try:
            state, info = result.state, result.info
        except Exception:  # the backend is unreachable: _ready says so
            return ""
        if state == "STARTED" and isinstance(info, dict) and info.get("hostname"):
            hostname = str(info["hostname"])
            if not self.answers(hostname):
                return (f"the worker {hostname} playing the match stopped answering (killed, or its machine lost) "
                        f"after {waited_s:.0f}s")
        elif state == "PENDING" and self.waiting is None and served_s > self.lost_after_s:
            return f"no worker took the match up within {self.lost_after_s:g}s (a worker lost with it queued?)"
        return ""

    def answers(self, hostname: str, timeout: float = 1.0) -> bool:
        """Whether the worker `hostname` answers a ping."""
        try:
            with self.app.connection_for_write() as connection:
                replies = self.app.control.ping(destination=[hostname], timeout=timeout, connection=connection)
        except Exception:  # the broker is unreachable: not this worker's loss
            return True
        return any(hostname in reply for reply in replies or [])

    def _ready(self, result: AsyncResult) -> bool:
        try:
            return bool(result.ready())
        except Exception as error:  # the backend went away (Redis restarted, network down)
            raise ExecutorError(f"lost the broker {self.shown_broker}: {type(error).__name__}: {error}") from None

    def _answer(self, result: AsyncResult, expected: int) -> list[dict[str, Any]]:
        """The chunk's outcomes; _ChunkFailed if the worker failed it (died under it, raised, answered nonsense)."""
        try:
            answer = result.get(timeout=60, propagate=True)
        except Exception as error:  # the task's own exception re-raised by Celery, or WorkerLostError
            raise _ChunkFailed(f"the match failed on its worker: {type(error).__name__}: {error}") from None
        finally:
            result.forget()
        if not isinstance(answer, list):
            raise _ChunkFailed(f"a worker sent {type(answer).__name__} instead of a list of outcomes")
        if len(answer) != expected:
            raise _ChunkFailed(f"a worker sent {len(answer)} outcome(s) for a chunk of {expected} match(es)")
        return answer

    def _drop(self, result: AsyncResult) -> None:
        try:
            result.revoke(terminate=True)
            result.forget()
        except Exception:  # the broker is gone too: the results expire by themselves
            pass

    def serving(self, timeout: float = 1.0) -> bool:
        """Whether some worker consumes this executor's queue right now."""
        try:  # on a connection of its own, closed here: a pooled one would keep a half-read reply queue
            with self.app.connection_for_write() as connection:
                queues = self.app.control.inspect(timeout=timeout, connection=connection).active_queues() or {}
        except Exception:
            return False
        return any(entry.get("name") == self.queue for entries in queues.values() for entry in entries or [])

    def close(self) -> None:
        self.app.close()


def _state(result: AsyncResult) -> str:
    """A chunk's state, or "" if the backend cannot say."""
    try:
        return str(result.state)
    except Exception:
        return ""


def _faults(chunk: list[MatchJob], why: str) -> Iterator[PlayedMatch]:
    """An infrastructure fault for each of the chunk's matches."""
    for job in chunk:
        yield infrastructure_fault(job, why)


class _ChunkFailed(Exception):
    """A chunk its worker failed: an infrastructure fault of each of its matches."""


def run_worker(broker: str, queue: str = DEFAULT_QUEUE, concurrency: int | None = None,
               loglevel: str = "WARNING") -> None:
    """Serve `queue` until stopped: a Celery worker with `concurrency` processes (default: one per core)."""
    import os

    app = make_app(broker, queue)
    app.worker_main(["worker", f"--concurrency={concurrency or os.cpu_count() or 1}", "--pool=prefork",
                     f"--queues={queue}", f"--loglevel={loglevel}", "--without-gossip", "--without-mingle",
                     f"--hostname=arena-{os.getpid()}@%h"])
