"""The runner: every match stored once with its record and rating update, deterministic, resumable."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from arena.agents import AGENTS, Agent, DecisionRequest
from arena.games.registry import load_game
from arena.referee.players import PlayerKind
from arena.referee.record import MatchRecord
from arena.referee.replay import replay
from arena.store import Store
from arena.tournament import (InlineExecutor, LocalPoolExecutor, MatchJob, SeatBot, TournamentRunner,
                              create_tournament, parse_bots)
from arena.tournament.formats import FormatError
from tests.tournament.conftest import rating_table, signature

GAME = "major-general/hold-the-centre"


def _tournament(store: Store, bots: str = "a=random,b=random,c=random", format: str = "round-robin",
                rounds: int = 2, seed: int = 11) -> int:
    return create_tournament(store, game=load_game(GAME), bots=parse_bots(bots), format=format, rounds=rounds,
                             seed=seed)


def test_round_robin_stores_every_match_with_its_record_and_rating(store: Store) -> None:
    tournament = _tournament(store)
    summary = TournamentRunner(store, tournament, InlineExecutor()).run()
    assert summary.finished and summary.played == summary.stored == summary.expected == 12
    matches = store.matches.of_tournament(tournament)
    keys = {(m.round, m.pairing, m.rotation) for m in matches}
    assert len(keys) == 12
    by_pairing: dict[tuple[int, int], list[list[int]]] = {}
    for m in matches:
        by_pairing.setdefault((m.round, m.pairing), []).append(m.bots)
    for seats in by_pairing.values():  # a seat-swapped pair
        assert seats[1] == tuple(reversed(seats[0]))
    assert len({m.seed for m in matches}) == len(matches)  # every game its own chance
    record = MatchRecord.from_jsonl(gzip.decompress(store.matches.record(matches[0])).decode())
    replay(record)  # the stored record reproduces the match
    names = {b.id: b.name for b in store.bots.find()}
    assert [p.name for p in record.players] == [names[b] for b in matches[0].bots]
    assert record.extra["tournament"] == tournament
    table = rating_table(store, "major-general/hold-the-centre")
    assert set(table) == {"a", "b", "c"} and all(row[2] == 8 for row in table.values())
    assert all(row[3] + row[4] + row[5] == 8 for row in table.values())
    assert len(store.ratings.history(store.bots.find("a")[0].id)) == 8
    assert store.tournaments.get(tournament).status == "finished"


def test_results_do_not_depend_on_concurrency(tmp_path: Path) -> None:
    results = []
    for concurrency in (1, 2):
        store = Store.open(f"sqlite:///{tmp_path / f'c{concurrency}.db'}")
        tournament = _tournament(store, rounds=3)
        with LocalPoolExecutor(concurrency) as executor:
            TournamentRunner(store, tournament, executor).run()
        results.append((signature(store, tournament), rating_table(store, "major-general/hold-the-centre")))
        store.close()
    assert results[0] == results[1]
    assert len(results[0][0]) == 18


def test_stopped_run_resumes_without_losing_or_repeating(tmp_path: Path) -> None:
    whole = Store.open(f"sqlite:///{tmp_path / 'whole.db'}")
    reference = _tournament(whole, rounds=3)
    TournamentRunner(whole, reference, InlineExecutor()).run()

    store = Store.open(f"sqlite:///{tmp_path / 'parts.db'}")
    tournament = _tournament(store, rounds=3)
    first = TournamentRunner(store, tournament, InlineExecutor(), max_matches=5, flush_size=2).run()
    assert not first.finished and first.stopped_by == "limit" and first.stored == 5
    before = {m.uid for m in store.matches.of_tournament(tournament)}
    second = TournamentRunner(store, tournament, InlineExecutor()).run()
    assert second.finished and second.played == 13
    after = store.matches.of_tournament(tournament)
    assert before <= {m.uid for m in after} and len(after) == 18  # nothing lost, nothing replayed
    assert signature(store, tournament) == signature(whole, reference)
    assert rating_table(store, GAME) == rating_table(whole, GAME)
    assert TournamentRunner(store, tournament, InlineExecutor()).run().played == 0


@pytest.mark.parametrize("format,bots,expected", [
    ("swiss", "a=random,b=random,c=random,d=random,e=random", 3 * 2 * 2),
    ("knockout", "a=random,b=random,c=random,d=random,e=random", 4 * 2),
    ("gauntlet", "a=random,b=random,c=random", 2 * 2 * 2),
])
def test_dynamic_and_gauntlet_formats_run_to_completion(store: Store, format: str, bots: str, expected: int) -> None:
    tournament = _tournament(store, bots=bots, format=format, rounds=3 if format == "swiss" else
                             (1 if format == "knockout" else 2))
    summary = TournamentRunner(store, tournament, InlineExecutor()).run()
    assert summary.finished and summary.stored == expected
    if format == "knockout":
        rounds = {p.round for p in store.tournaments.pairings(tournament)}
        assert rounds == {0, 1, 2}  # 5 bots: a bracket of 8, then 4, then the final


def test_ladder_runs_rounds_until_told_to_stop(store: Store) -> None:
    ladder = _tournament(store, bots="a=random,b=random,c=random,d=random", format="ladder", rounds=1)
    summary = TournamentRunner(store, ladder, InlineExecutor(), max_matches=12).run()
    assert not summary.finished and summary.stored == 12
    assert {p.round for p in store.tournaments.pairings(ladder)} == {0, 1, 2}
    more = TournamentRunner(store, ladder, InlineExecutor(), max_matches=4).run()
    assert more.stored == 16


class CrashingAgent(Agent):
    """Raises on its first decision."""

    name = "crash"

    def act(self, request: DecisionRequest) -> int:
        raise RuntimeError("boom")


def test_a_crashing_bot_forfeits_and_the_result_is_rated(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(AGENTS, "crash", CrashingAgent)
    tournament = _tournament(store, bots="crash,random", rounds=1)
    TournamentRunner(store, tournament, InlineExecutor()).run()
    matches = store.matches.of_tournament(tournament)
    assert [m.reason for m in matches] == ["agent_error", "agent_error"]
    names = {b.id: b.name for b in store.bots.find()}
    for m in matches:
        assert names[m.bots[m.offender]] == "crash"
    table = rating_table(store, GAME)
    assert table["crash"][5] == 2 and table["random"][3] == 2 and table["random"][0] > table["crash"][0]


def test_formats_refuse_what_they_cannot_run(store: Store) -> None:
    with pytest.raises(FormatError):
        _tournament(store, bots="a=random", format="round-robin")
    with pytest.raises(FormatError):
        _tournament(store, bots="a=random,b=random", format="nonsense")


class SleepyAgent(Agent):
    """Takes a long time over every decision."""

    name = "sleepy"

    def act(self, request: DecisionRequest) -> int:
        import time

        time.sleep(0.5)
        return request.legal_actions[0]


@pytest.mark.skipif("fork" not in __import__("multiprocessing").get_all_start_methods(),
                    reason="the test agent reaches the workers by forking")
def test_a_hard_deadline_abandons_running_matches(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    monkeypatch.setitem(AGENTS, "sleepy", SleepyAgent)
    tournament = _tournament(store, bots="sleepy,random", rounds=1)
    with LocalPoolExecutor(2, start_method="fork") as executor:
        started = time.monotonic()
        summary = TournamentRunner(store, tournament, executor, deadline=started + 0.2,
                                   hard_deadline=started + 0.6).run()
        assert time.monotonic() - started < 5
        assert not summary.finished and summary.stopped_by == "deadline" and summary.stored == 0
        assert store.tournaments.finished_keys(tournament) == set()
        monkeypatch.setitem(AGENTS, "sleepy", CrashingAgent)  # the executor starts fresh workers after abandoning
        assert TournamentRunner(store, tournament, executor).run().stored == 2


class ProcessKillingAgent(Agent):
    """Ends the process it plays in: a worker dying under a match (out of memory, killed)."""

    name = "killer"

    def act(self, request: DecisionRequest) -> int:
        import os

        os._exit(3)


@pytest.mark.skipif("fork" not in __import__("multiprocessing").get_all_start_methods(),
                    reason="the test agent reaches the workers by forking")
def test_a_dead_worker_is_an_infrastructure_fault_retried_then_given_up_never_scored(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker dies mid-match: its matches are played again (alone, so an innocent match lost with it is
    not blamed twice); one that kills every worker is stored unrated after its tries, the run goes on."""
    monkeypatch.setitem(AGENTS, "killer", ProcessKillingAgent)
    tournament = _tournament(store, bots="a=random,b=random,c=killer", rounds=2)
    with LocalPoolExecutor(2, start_method="fork") as executor:
        runner = TournamentRunner(store, tournament, executor, retries=2)
        summary = runner.run()
    assert summary.finished and summary.stored == 12
    matches = store.matches.of_tournament(tournament)
    names = store.bots.names(store.tournaments.entries(tournament))
    killer = next(bot for bot, name in names.items() if name == "c")
    with_killer = [m for m in matches if killer in m.bots]
    assert len(with_killer) == 8
    assert {m.reason for m in with_killer} == {"infrastructure"}
    assert all(set(m.ranking) == {0} for m in with_killer)
    assert all(m.reason != "infrastructure" for m in matches if killer not in m.bots)
    counts = store.tournaments.infra_fault_counts(tournament)
    assert all(counts[(m.round, m.pairing, m.rotation)] == 3 for m in with_killer)  # the first try and 2 more
    assert runner.infra_faults == sum(counts.values())
    rated = {row.name for row in store.ratings.of_pool(store.tournaments.get(tournament).pool)}
    assert rated == {"a", "b"}  # never scored: the killer has no rating at all
    [fault] = store.tournaments.infra_faults(tournament, limit=1)
    assert "worker process died" in fault.detail and "exit status 3" in fault.detail
    assert "given up after 3 tries" in with_killer[0].detail


def test_a_match_that_cannot_be_set_up_is_an_infrastructure_fault_not_a_bots() -> None:
    seat = SeatBot(1, "r", "1", PlayerKind.AGENT, "random")
    job = MatchJob(1, 0, 0, 0, "no-such-game", {}, 7, (seat, seat))
    with LocalPoolExecutor(1) as executor:
        [outcome] = executor.run([job])
        assert outcome.is_infrastructure_fault and not outcome.rated and outcome.offender is None
        assert "unknown game 'no-such-game'" in outcome.detail
        good = MatchJob(1, 0, 0, 0, "major-general", {}, 7, (seat, seat))
        assert [outcome.job for outcome in executor.run([good, good])] == [good, good]


def test_a_run_stopped_as_its_last_match_is_stored_counts_the_tournament_finished(store: Store) -> None:
    tournament = _tournament(store, rounds=1)
    summary = TournamentRunner(store, tournament, InlineExecutor(), max_matches=6).run()
    assert summary.stored == summary.expected == 6 and summary.finished and summary.stopped_by == ""
    assert store.tournaments.get(tournament).status == "finished"


@pytest.mark.parametrize("format", ["round-robin", "gauntlet", "swiss"])
def test_a_finished_tournament_named_again_gets_more_rounds_and_keeps_what_it_played(store: Store,
                                                                                     format: str) -> None:
    from arena.tournament.service import PlaySettings, TournamentSpec, create, play

    spec = TournamentSpec(games=(load_game(GAME),), bots=tuple(parse_bots("a=random,b=greedy,c=random,d=greedy")),
                          format=format, rounds=1, seed=5, name="again")
    [first] = create(spec, store)
    [summary] = play(store, [first], PlaySettings(concurrency=1))
    before = {(m.round, m.pairing, m.rotation): (m.seed, m.bots) for m in store.matches.of_tournament(first)}
    extended: list[tuple[str, int]] = []
    assert create(spec, store, lambda row, more: extended.append((row.label, more))) == [first]
    assert extended == [("again", 1)] and store.tournaments.get(first).rounds == 2
    [again] = play(store, [first], PlaySettings(concurrency=1))
    assert again.finished and again.played == summary.played and again.stored == 2 * summary.stored
    after = {(m.round, m.pairing, m.rotation): (m.seed, m.bots) for m in store.matches.of_tournament(first)}
    assert {key: after[key] for key in before} == before  # the first round is untouched
    assert len({m.round for m in store.matches.of_tournament(first)}) == 2 * len({key[0] for key in before})


def test_a_knockout_named_again_when_finished_says_so(store: Store) -> None:
    from arena.tournament.service import PlaySettings, TournamentError, TournamentSpec, create, play

    spec = TournamentSpec(games=(load_game(GAME),), bots=tuple(parse_bots("a=random,b=greedy")),
                          format="knockout", rounds=1, name="ko")
    play(store, create(spec, store), PlaySettings(concurrency=1))
    with pytest.raises(TournamentError, match="cannot be extended; pick another name"):
        create(spec, store)


def test_a_process_with_threads_starts_its_workers_from_a_fork_server() -> None:
    """A fork copies only the forking thread (gRPC's threads left forked workers crashing): a process with
    threads gets workers forked from a clean fork server, which play as forked ones do and end with it."""
    import subprocess
    import sys
    import time

    script = """
import os, threading
from arena.referee.players import PlayerKind
from arena.tournament import LocalPoolExecutor, MatchJob, SeatBot
from arena.start_method import worker_start_method
assert worker_start_method() == "fork", "a single thread forks"
threading.Thread(target=threading.Event().wait, daemon=True).start()
assert worker_start_method() == "forkserver"
seat = SeatBot(1, "a", "1", PlayerKind.AGENT, "random")
job = MatchJob(1, 0, 0, 0, "major-general", {}, 7, (seat, seat))
pool = LocalPoolExecutor(2)
played = list(pool.run([job] * 6))
assert len(played) == 6 and not any(p.is_infrastructure_fault for p in played)
print(" ".join(str(w.process.pid) for w in pool._workers), flush=True)
os._exit(0)  # gone without closing the pool
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    workers = [int(pid) for pid in done.stdout.split()]
    assert len(workers) == 2
    for pid in workers:  # orphaned, each notices and exits (its parent watch polls twice a second)
        stat = Path(f"/proc/{pid}/stat")
        deadline = time.monotonic() + 60
        while stat.exists() and " Z " not in stat.read_text() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not stat.exists() or " Z " in stat.read_text(), f"worker {pid} outlived its parent"
