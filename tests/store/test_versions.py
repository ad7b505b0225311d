"""Bot versions in the store: a new version follows the last one that did not fail, going live retires
the name's other live versions, and its rating starts from its earlier version's mu with a newcomer's
sigma, both as results are stored and when a pool is rerated from scratch."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from pathlib import Path

import pytest

from arena.ratings.leaderboard import leaderboard
from arena.ratings.rerate import rerate
from arena.ratings.policy import DEFAULT_POLICY
from arena.ratings.trueskill_env import DEFAULT_SYSTEM
from arena.referee.players import PlayerKind
from arena.store import BotIdentity, Store
from arena.tournament.jobs import MatchJob, PlayedMatch, SeatBot

POOL = "major-general"


@pytest.fixture
def store(tmp_path: Path) -> Store:
    opened = Store.open(f"sqlite:///{tmp_path / 'arena.db'}")
    yield opened
    opened.close()


def _version(store: Store, name: str, version: str, content: str, status: str = "live") -> int:
    identity = BotIdentity(name, version, content, PlayerKind.PROGRAM, f"/bots/{name}/{content}", "ann")
    bot, new = store.bots.add_version(identity, games=["major-general"])
    assert new
    store.bots.set_status(bot, status)
    return bot


def _won(store: Store, tournament: int, winner: int, loser: int, number: int) -> PlayedMatch:
    now = datetime(2026, 1, 1, 0, 0, number)
    seats = (SeatBot(winner, "w", "1", PlayerKind.PROGRAM, ""), SeatBot(loser, "l", "1", PlayerKind.AGENT, "random"))
    job = MatchJob(tournament, number, 0, 0, "major-general", {}, number, seats, pool=POOL)
    return PlayedMatch(job, uid=f"m{number}", ranking=(0, 1), scores=(1.0, 0.0), reason="score", offender=None,
                       detail="", steps=3, decisions=2, timings={}, record_gz=b"x", record_size=1, started_at=now,
                       finished_at=now)


def _tournament(store: Store, bots: list[int]) -> int:
    return store.tournaments.create(name=None, game="major-general", pool=POOL, options={}, format="ladder", seed=1,
                                    rounds=1, settings={}, bot_ids=bots)


def _ratings(store: Store) -> dict[str, float]:
    return {f"{r.bot_id} {what}": value for r in store.ratings.of_pool(POOL) for what, value in (("mu", r.mu),
                                                                                      ("sigma", r.sigma))}


def test_a_new_version_follows_the_last_one_that_did_not_fail_and_retires_it_on_going_live(store: Store) -> None:
    first = _version(store, "ann-bot", "1", "aaaa")
    failed = _version(store, "ann-bot", "2", "bbbb", status="failed")
    newest = BotIdentity("ann-bot", "3", "cccc", PlayerKind.PROGRAM, "/x", "ann")
    second, _ = store.bots.add_version(newest, games=["*"])
    assert store.bots.get(second).parent_id == first  # not the failed one
    assert store.bots.get(second).status == "pending" and store.bots.get(first).status == "live"
    assert store.bots.set_status(second, "live") == [first]
    assert store.bots.get(first).status == "retired" and store.bots.get(first).retired_at is not None
    assert store.bots.get(failed).status == "failed"
    assert [b.id for b in store.bots.find("ann-bot", status="live")] == [second]
    again, new = store.bots.add_version(newest, games=["*"])
    assert (again, new) == (second, False)  # the same files again: the same version


def test_a_version_bump_keeps_mu_and_resets_sigma_and_rerate_agrees(store: Store) -> None:
    old = _version(store, "ann-bot", "1", "aaaa")
    anchor = store.bots.register(BotIdentity("random", "1", "r"))
    tournament = _tournament(store, [old, anchor])
    store.matches.save([_won(store, tournament, old, anchor, n) for n in range(6)], DEFAULT_POLICY)
    [before] = [r for r in store.ratings.of_pool(POOL) if r.bot_id == old]
    assert before.mu > DEFAULT_SYSTEM.initial[0] + 3 and before.sigma < DEFAULT_SYSTEM.initial[1] - 1
    new = _version(store, "ann-bot", "2", "bbbb")
    first_match = _won(store, tournament, new, anchor, 10)
    rated_alone = DEFAULT_SYSTEM.rate([(before.mu, DEFAULT_SYSTEM.initial[1]),
                                       next((r.mu, r.sigma) for r in store.ratings.of_pool(POOL)
                                            if r.bot_id == anchor)],
                                      (0, 1))
    store.matches.save([first_match], DEFAULT_POLICY)
    [after] = [r for r in store.ratings.of_pool(POOL) if r.bot_id == new]
    assert (after.mu, after.sigma) == pytest.approx(rated_alone[0])  # started from (old mu, default sigma)
    assert after.games == 1
    # kept apart in history: the old version's rating and matches are untouched, and off the leaderboard
    [old_row] = [r for r in store.ratings.of_pool(POOL) if r.bot_id == old]
    assert (old_row.mu, old_row.sigma, old_row.games) == (before.mu, before.sigma, 6)
    assert {s.bot_id for s in leaderboard(store, POOL)} == {new, anchor}
    assert old in {s.bot_id for s in leaderboard(store, POOL, live_only=False)}
    incremental = _ratings(store)
    rerate(store, POOL)
    assert _ratings(store) == pytest.approx(incremental)


def test_a_version_whose_parent_plays_in_the_same_batch_starts_from_its_rating_at_that_point(store: Store) -> None:
    old = _version(store, "ann-bot", "1", "aaaa")
    anchor = store.bots.register(BotIdentity("random", "1", "r"))
    new = _version(store, "ann-bot", "2", "bbbb")
    tournament = _tournament(store, [old, new, anchor])
    batch = [_won(store, tournament, old, anchor, 1), _won(store, tournament, old, anchor, 2),
             _won(store, tournament, new, anchor, 3)]
    store.matches.save(batch, DEFAULT_POLICY)
    incremental = _ratings(store)
    history = store.ratings.history(old)
    rerate(store, POOL)
    assert _ratings(store) == pytest.approx(incremental)
    assert incremental[f"{new} mu"] > history[-1].mu  # it won from the old version's mu after its two wins


def test_a_result_voided_by_the_fault_policy_is_not_rated(store: Store) -> None:
    a = store.bots.register(BotIdentity("a", "1", "a"))
    b = store.bots.register(BotIdentity("b", "1", "b"))
    tournament = _tournament(store, [a, b])
    voided = replace(_won(store, tournament, a, b, 1), ranking=(0, 0), reason="timeout", offender=1, voided=True)
    assert not voided.rated
    store.matches.save([voided], DEFAULT_POLICY)
    assert store.ratings.of_pool(POOL) == []
