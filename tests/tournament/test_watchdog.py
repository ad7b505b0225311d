"""The local pool's watchdogs: a tournament finishes past an agent that never answers (it loses on time, in
its worker), and past one stuck where Python cannot interrupt it (the pool kills its worker; the match is an
infrastructure fault, retried, then given up once)."""

from __future__ import annotations

import multiprocessing

import pytest

from arena.agents import AGENTS
from arena.games.registry import load_game
from arena.referee.limits import AgentLimits
from arena.store import Store
from arena.tournament import LocalPoolExecutor, TournamentRunner, create_tournament, parse_bots
from tests.referee.test_limits import GAME, QUICK, BlockedAgent, LoopingAgent

fork_only = pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(),
                               reason="the test agents reach the workers by forking")


class _SoonStopped(AgentLimits):
    """The limits with a second of room past the agents' own for the rules and the record (the pool's bound has
    five; every match here is stuck, none needs the room): each of the four tries is stopped within two seconds,
    not seven."""

    def match_bound_s(self, seats: int) -> float:
        return seats * self.match_s + self.decision_s + 1.0


@fork_only
def test_a_tournament_on_the_local_pool_finishes_past_a_never_answering_agent(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(AGENTS, "test-loop", LoopingAgent)
    tournament = create_tournament(store, game=load_game(GAME), bots=parse_bots("test-loop,a=random,b=random"),
                                   format="round-robin", rounds=1, seed=7)
    with LocalPoolExecutor(2, start_method="fork", limits=QUICK) as executor:
        summary = TournamentRunner(store, tournament, executor).run()
    assert summary.finished and summary.stored == 6
    names = store.bots.names(store.tournaments.entries(tournament))
    looper = next(bot for bot, name in names.items() if name == "test-loop")
    for match in store.matches.of_tournament(tournament):
        if looper in match.bots:
            assert match.reason == "timeout" and match.bots[match.offender] == looper, match
        else:
            assert match.reason == "score", match


@fork_only
def test_the_pool_stops_a_worker_its_agent_blocks_and_gives_the_match_up_once(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """An agent stuck in C code cannot be interrupted: past the match's bound the pool kills its worker; the
    match is an infrastructure fault, tried `retries` more times, then stored once, unrated, with the why."""
    monkeypatch.setitem(AGENTS, "test-blocked", BlockedAgent)
    tournament = create_tournament(store, game=load_game(GAME), bots=parse_bots("test-blocked,random"),
                                   format="round-robin", rounds=1, seed=8)
    limits = _SoonStopped(decision_s=0.2, match_s=0.3)
    with LocalPoolExecutor(2, start_method="fork", limits=limits) as executor:
        summary = TournamentRunner(store, tournament, executor, retries=1).run()
    assert summary.finished and summary.stored == 2
    for match in store.matches.of_tournament(tournament):
        assert match.reason == "infrastructure" and not match.rated, match
        detail = match.detail
        assert "given up after 2 tries" in detail and "the pool's watchdog stopped a worker" in detail, detail
    assert len(store.tournaments.infra_faults(tournament)) == 4


