"""A tournament on Celery workers whose only worker is SIGKILLed mid-match waits for one (saying so once) instead
of ending; when a worker is started again it carries on and stores every match exactly once."""

from __future__ import annotations

import tempfile
import threading
import time
import uuid
from pathlib import Path

from arena.games.registry import load_game
from arena.store import Store
from arena.tournament import TournamentRunner, create_tournament, parse_bots
from arena.tournament.celery_executor import CeleryExecutor
from tests.workers import (REDIS_URL, forget_queue, is_playing, kill_worker, needs_redis, start_worker,
                           stop_worker)


def _until(condition: object, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


@needs_redis
def test_a_run_whose_workers_are_all_killed_waits_for_one_and_carries_on(tmp_path: Path) -> None:
    queue = f"arena-test-gone-{uuid.uuid4().hex[:8]}"
    log = tempfile.TemporaryFile()
    store = Store.open(f"sqlite:///{tmp_path / 'gone.db'}")
    slow = "mcts:seconds=0.25"  # a quarter of a second a decision on any machine: a match lasts some 3 s, time to
    # see it started and kill the worker mid-match on a busy machine (at 0.1 s both matches could be over first)
    tournament = create_tournament(store, game=load_game("major-general"), bots=parse_bots(f"a={slow},b=random"),
                                   format="round-robin", rounds=1, seed=4)
    said: list[str | None] = []
    first = start_worker(queue, log)
    second = None
    executor = CeleryExecutor(REDIS_URL, 1, queue, stall_s=1.0, lost_check_s=0.5, on_wait=said.append)
    try:
        _until(lambda: executor.serving(timeout=0.5) or first.poll() is not None, 60, "the first worker")
        runner = TournamentRunner(store, tournament, executor, retries=2)
        summaries = []
        thread = threading.Thread(target=lambda: summaries.append(runner.run()), daemon=True)
        thread.start()

        _until(lambda: is_playing(executor.app, first), 60, "a match started on the worker")
        kill_worker(first)  # the only worker: nobody serves the queue now
        _until(lambda: executor.waiting is not None, 60, "the run to wait for a worker")
        assert thread.is_alive(), "the run ended when its worker was lost"
        assert said[0] is not None and "no Arena worker consumes queue" in said[0] and "arena worker --broker" in said[0]
        second = start_worker(queue, log)
        thread.join(timeout=300)
        assert not thread.is_alive(), "the run did not finish after a worker came back"
        [summary] = summaries
        assert summary.finished and summary.stored == 2
        assert said[-1] is None and executor.waiting is None  # the wait is over, and said so
        matches = store.matches.of_tournament(tournament)
        assert sorted((m.round, m.pairing, m.rotation) for m in matches) == [(0, 0, 0), (0, 0, 1)]
        assert all(m.reason != "infrastructure" for m in matches)  # the lost match was played again, and rated
        assert {row.name: row.games for row in store.ratings.of_pool("major-general")} == {"a": 2, "b": 2}
    finally:
        executor.close()
        stop_worker(first)
        stop_worker(second)
        log.close()
        store.close()
        forget_queue(queue)


def test_waiting_for_answers_sees_what_each_wait_is_asked_about() -> None:
    """The pool's wait keeps its selector between calls on the same connections, and makes a new one when they
    change: a pipe with data is ready, an idle one times out, one left out is not watched."""
    import multiprocessing

    from arena.tournament.executor import _Waiting

    (a, a_child), (b, b_child) = multiprocessing.Pipe(), multiprocessing.Pipe()
    waiting = _Waiting()
    try:
        assert waiting.wait((a, b), 0.01) == []
        b_child.send("answer")
        assert waiting.wait((a, b), 5.0) == [b]
        assert waiting.wait((a,), 0.01) == []  # b is ready but not asked about
        a_child.send("answer")
        assert waiting.wait((a,), 5.0) == [a]
        assert set(waiting.wait((a, b), 5.0)) == {a, b}
        assert waiting.wait((), 0.01) == []
    finally:
        waiting.close()
        for conn in (a, a_child, b, b_child):
            conn.close()
