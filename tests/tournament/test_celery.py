"""Celery workers: jobs and outcomes cross as JSON, results match a local run exactly, failures are clear.

The tests that need Redis (127.0.0.1:6379) start real `arena worker` processes; they skip where no
Redis answers or Celery is not installed.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from arena.bots import BUILTIN_BOTS
from arena.cli.main import main
from arena.games.registry import load_game
from arena.referee.players import PlayerKind
from arena.store import Store
from arena.tournament import ExecutorError, InlineExecutor, MatchJob, SeatBot, TournamentRunner, create_tournament
from arena.tournament import parse_bots
from arena.tournament.celery_executor import (CeleryExecutor, job_from_json, job_to_json, outcome_from_json,
                                              outcome_to_json)
from arena.tournament.jobs import play_job
from tests.tournament.conftest import rating_table, signature
from tests.workers import forget_queue, is_playing, kill_worker, redis_reason, start_worker, stop_worker

REDIS_URL = os.environ.get("ARENA_TEST_REDIS", "redis://127.0.0.1:6379/9")
GAME = "major-general/hold-the-centre"
SEAT_A = SeatBot(1, "a", "1", PlayerKind.AGENT, "greedy")
SEAT_B = SeatBot(2, "b", "1", PlayerKind.AGENT, "random")


needs_redis = pytest.mark.skipif(redis_reason(REDIS_URL) is not None, reason=str(redis_reason(REDIS_URL)))
needs_celery = pytest.mark.skipif(importlib.util.find_spec("celery") is None,
                                  reason="Celery is not installed (pip install 'arena[distributed]')")


def test_jobs_and_outcomes_cross_as_json_unchanged() -> None:
    job = MatchJob(3, 1, 2, 1, GAME, {"scenario": "hold-the-centre"}, 2**62 + 5, (SEAT_A, SEAT_B))
    assert job_from_json(json.loads(json.dumps(job_to_json(job)))) == job
    played = replace(job, game="major-general", options={}, seed=11)
    outcome = play_job(played)
    assert outcome_from_json(played, json.loads(json.dumps(outcome_to_json(outcome)))) == outcome


def test_a_malformed_outcome_is_an_executor_error() -> None:
    job = MatchJob(1, 0, 0, 0, "major-general", {}, 7, (SEAT_A, SEAT_B))
    good = outcome_to_json(play_job(job))
    for broken in ({**good, "record": "not base64!"}, {**good, "ranking": None},
                   {key: value for key, value in good.items() if key != "uid"}):
        with pytest.raises(ExecutorError, match="malformed outcome"):
            outcome_from_json(job, broken)


@pytest.fixture(scope="module")
def queue() -> Iterator[str]:
    """A queue served by a real `arena worker` with two processes, for this module only."""
    name = f"arena-test-{uuid.uuid4().hex[:8]}"
    log = tempfile.TemporaryFile()
    worker = subprocess.Popen(
        [sys.executable, "-c", "from arena.cli.main import run; run()", "worker", "--broker", REDIS_URL,
         "--queue", name, "-j", "2"], stdout=log, stderr=subprocess.STDOUT)
    executor = CeleryExecutor(REDIS_URL, queue=name)
    try:
        deadline = time.monotonic() + 30
        while not executor.serving(timeout=0.5):
            if worker.poll() is not None or time.monotonic() > deadline:
                log.seek(0)
                raise RuntimeError(f"the worker did not start: {log.read().decode()[-2000:]}")
        yield name
    finally:
        executor.close()
        worker.terminate()
        try:
            worker.wait(timeout=10)
        except subprocess.TimeoutExpired:
            worker.kill()
        log.close()
        forget_queue(name, REDIS_URL)


@needs_redis
def test_a_tournament_on_workers_stores_what_a_local_run_stores(queue: str, tmp_path: Path) -> None:
    results = []
    for where in ("local", "celery"):
        store = Store.open(f"sqlite:///{tmp_path / f'{where}.db'}")
        tournament = create_tournament(store, game=load_game(GAME), bots=parse_bots("a=random,b=greedy,c=scripted"),
                                       format="round-robin", rounds=2, seed=21)
        executor = InlineExecutor() if where == "local" else CeleryExecutor(REDIS_URL, 2, queue)
        with executor:
            summary = TournamentRunner(store, tournament, executor).run()
        assert summary.finished and summary.stored == 12
        results.append((signature(store, tournament), rating_table(store, GAME)))
        store.close()
    assert results[0] == results[1]


@needs_redis
def test_a_match_a_worker_cannot_play_comes_back_as_an_infrastructure_fault_with_its_reason(queue: str) -> None:
    job = MatchJob(1, 0, 0, 0, "no-such-game", {}, 7, (SEAT_A, SEAT_B))
    with CeleryExecutor(REDIS_URL, 2, queue) as executor:
        [outcome] = executor.run([job])
    assert outcome.is_infrastructure_fault and not outcome.rated
    assert "failed on its worker" in outcome.detail and "no-such-game" in outcome.detail


@needs_redis
def test_unordered_results_come_as_they_finish(queue: str) -> None:
    """What a ladder service asks for: a slow match first in the list does not keep a fast one behind it."""
    slow = SeatBot(3, "slow", "1", PlayerKind.AGENT, "mcts:iterations=2000")
    jobs = [MatchJob(1, 0, 0, 0, "major-general", {}, 7, (slow, SEAT_B)),  # a second or more: mcts thinks
            MatchJob(1, 0, 1, 0, "major-general", {}, 8, (SEAT_B, SEAT_B))]
    with CeleryExecutor(REDIS_URL, 2, queue) as executor:
        outcomes = list(executor.run(jobs, ordered=False))
    assert [outcome.job.pairing for outcome in outcomes] == [1, 0]


@needs_redis
def test_no_worker_on_the_queue_is_waited_for_and_said_with_how_to_start_one() -> None:
    """No worker: the run waits for one (saying why and how to start one) until it is asked to stop."""
    job = MatchJob(1, 0, 0, 0, "major-general", {}, 7, (SEAT_A, SEAT_B))
    nobody = f"arena-nobody-{uuid.uuid4().hex[:8]}"
    said: list[str | None] = []
    try:
        with CeleryExecutor(REDIS_URL, 1, nobody, stall_s=0.5, lost_check_s=0.2, on_wait=said.append) as executor:
            outcomes = list(executor.run([job], should_stop=lambda: len(said) >= 3))  # said, and said again
        assert outcomes == [] and len(said) == 3 and len(set(said)) == 1
        assert re.fullmatch(r"no Arena worker consumes queue .* waiting for one \(start one with `arena worker "
                            r"--broker .* --queue arena-nobody-\w+`\)", str(said[0])), said
    finally:
        forget_queue(nobody, REDIS_URL)  # and the message nobody took


@needs_redis
def test_the_cli_runs_a_tournament_on_workers(queue: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_BROKER", REDIS_URL)  # --broker's default
    code = main(["tournament", "run", "major-general", "--bots", "a=random,b=random", "--rounds", "3", "-j", "2",
                 "--queue", queue, "--seed", "5", "--db", f"sqlite:///{tmp_path / 'cli.db'}", "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    report = json.loads(captured.out)["tournaments"][0]
    assert report["finished"] and report["stored"] == report["expected"] == 6


@needs_redis
def test_a_mixed_field_sends_agent_matches_to_workers_and_plays_programs_here(
        queue: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """With --broker, matches of agents alone go to the workers; matches with a bot program play through
    this machine's referee; all land in one pool, in schedule order."""
    program = BUILTIN_BOTS / "random"
    url = f"sqlite:///{tmp_path / 'mixed.db'}"
    code = main(["tournament", "run", "major-general", "--bots", f"a=random,b=greedy,p={program}", "--rounds", "1",
                 "-j", "2", "--broker", REDIS_URL, "--queue", queue, "--seed", "6", "--db", url, "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    report = json.loads(captured.out)["tournaments"][0]
    assert report["finished"] and report["stored"] == report["expected"] == 6
    store = Store.open(url)
    kinds = {bot.id: bot.kind for bot in store.bots.find()}
    matches = store.matches.of_tournament(report["id"])
    assert sum(1 for m in matches if PlayerKind.PROGRAM in {kinds[b] for b in m.bots}) == 4
    assert {row.name for row in store.ratings.of_pool("major-general")} == {"a", "b", "p"}
    store.close()


def test_worker_without_a_broker_is_a_one_line_error(capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARENA_BROKER", raising=False)
    assert main(["worker"]) == 2
    assert "pass --broker redis://" in capsys.readouterr().err


@needs_redis
def test_local_workers_start_cleanly_after_talking_to_the_broker(queue: str) -> None:
    """Forked local workers inherit the broker's connections; none may be left half-read (it hung them)."""
    script = f"""
from arena.tournament import LocalPoolExecutor, MatchJob, SeatBot
from arena.tournament.celery_executor import CeleryExecutor
from arena.referee.players import PlayerKind
seat = SeatBot(1, "a", "1", PlayerKind.AGENT, "random")
job = MatchJob(1, 0, 0, 0, "major-general", {{}}, 7, (seat, seat))
with CeleryExecutor({REDIS_URL!r}, 2, {queue!r}) as remote:
    assert all(remote.serving(timeout=0.3) for _ in range(3))
    assert len(list(remote.run([job, job]))) == 2
with LocalPoolExecutor(2) as pool:
    assert len(list(pool.run([job] * 6))) == 6
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]


@needs_celery
def test_an_unreachable_broker_is_a_clear_error_without_the_password() -> None:
    job = MatchJob(1, 0, 0, 0, "major-general", {}, 7, (SEAT_A, SEAT_B))
    with CeleryExecutor("redis://:secret@127.0.0.1:1/0", 1, "arena-unreachable") as executor:  # nothing on port 1
        with pytest.raises(ExecutorError, match=r"cannot reach the broker redis://:\*\*@127.0.0.1:1/0") as raised:
            list(executor.run([job]))
    assert "secret" not in str(raised.value)


@needs_redis
def test_a_worker_killed_mid_match_is_an_infrastructure_fault_played_again_and_never_scored(tmp_path: Path) -> None:
    """The Celery path for real: a worker is SIGKILLed while it plays a match; the runner notes the fault
    (it is not the bots'), plays the match again on another worker and stores each match exactly once."""
    import threading

    name = f"arena-test-kill-{uuid.uuid4().hex[:8]}"
    log = tempfile.TemporaryFile()
    store = Store.open(f"sqlite:///{tmp_path / 'kill.db'}")
    slow = "mcts:seconds=0.25"  # a quarter of a second a decision on any machine: a match lasts some 3 s, time to
    # see it started and kill the worker mid-match on a busy machine (at 0.1 s both matches could be over first)
    tournament = create_tournament(store, game=load_game("major-general"), bots=parse_bots(f"a={slow},b=random"),
                                   format="round-robin", rounds=1, seed=4)
    first = start_worker(name, log, REDIS_URL)
    second = None
    executor = CeleryExecutor(REDIS_URL, 1, name, lost_check_s=0.5)
    try:
        deadline = time.monotonic() + 30
        while not executor.serving(timeout=0.5):
            assert first.poll() is None and time.monotonic() < deadline, "the first worker did not start"
        runner = TournamentRunner(store, tournament, executor, retries=2)
        summaries = []
        thread = threading.Thread(target=lambda: summaries.append(runner.run()), daemon=True)
        thread.start()
        deadline = time.monotonic() + 30
        while not is_playing(executor.app, first):  # until the first worker is playing a match
            assert time.monotonic() < deadline, "no match started on the worker"
        kill_worker(first)  # at once: the worker said it plays; a wait could see its last match end first
        second = start_worker(name, log, REDIS_URL)
        thread.join(timeout=120)
        assert not thread.is_alive(), "the run did not finish after the worker was lost"
        [summary] = summaries
        assert summary.finished and summary.stored == 2 and runner.infra_faults >= 1
        faults = store.tournaments.infra_faults(tournament)
        assert faults and all("stopped answering" in fault.detail for fault in faults)
        matches = store.matches.of_tournament(tournament)
        assert sorted((m.round, m.pairing, m.rotation) for m in matches) == [(0, 0, 0), (0, 0, 1)]
        assert all(m.reason != "infrastructure" for m in matches)  # played again: a real result, rated
        ratings = {row.name: row.games for row in store.ratings.of_pool(tournament_pool(store, tournament))}
        assert ratings == {"a": 2, "b": 2}
    finally:
        executor.close()
        for worker in (first, second):
            stop_worker(worker)
        log.close()
        store.close()
        forget_queue(name, REDIS_URL)


def tournament_pool(store: Store, tournament: int) -> str:
    row = store.tournaments.get(tournament)
    assert row is not None
    return row.pool


@needs_redis
def test_agents_on_workers_keep_to_the_limits_the_run_sets(queue: str) -> None:
    """The limits travel with the chunk: a search far too large for its decision limit loses on time on the
    worker, the record says why, and the worker plays on."""
    from arena.referee.limits import AgentLimits

    endless = SeatBot(4, "endless", "1", PlayerKind.AGENT, "mcts:iterations=1000000000")
    jobs = [MatchJob(1, 0, 0, 0, "major-general", {}, 7, (endless, SEAT_B)),
            MatchJob(1, 0, 1, 0, "major-general", {}, 8, (SEAT_A, SEAT_B))]
    with CeleryExecutor(REDIS_URL, 2, queue, limits=AgentLimits(decision_s=0.5, match_s=60.0)) as executor:
        first, second = executor.run(jobs)
    assert (first.reason, first.offender) == ("timeout", 0) and "no decision within 0.500s" in first.detail
    assert second.reason == "score"


@needs_celery
def test_every_chunk_carries_a_hard_time_limit_from_the_agents_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    """The last resort for an agent stuck where its watchdog cannot reach: Celery kills the worker process
    past the chunk's bound (each match's), and the chunk comes back as infrastructure faults."""
    from arena.referee.limits import AgentLimits

    limits = AgentLimits(decision_s=2.0, match_s=10.0)
    executor = CeleryExecutor("redis://127.0.0.1:1/0", 1, "unused", limits=limits)
    sent: dict[str, object] = {}
    monkeypatch.setattr(executor.app, "send_task", lambda name, **kwargs: sent.update(kwargs))
    job = MatchJob(1, 0, 0, 0, "major-general", {}, 7, (SEAT_A, SEAT_B))
    executor._send([job, job])
    assert sent["time_limit"] == 2 * limits.match_bound_s(2)
    assert sent["args"][1] == limits.to_json()  # type: ignore[index]
    executor.close()
