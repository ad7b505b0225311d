"""Bot processes that play several matches at once (bot.toml `concurrency`).

A fault on one stream ends only that stream's match: the other matches of the process play on,
and the process, never trusted again, is stopped once they are over. A crash of the process ends
every match it was playing, each recorded as that bot's crash. Either way the next match gets a
fresh process. The test bots (misbehave.py `shared`) say a random id of their process as their version.
"""

from __future__ import annotations

import pytest

from arena.referee.record import MatchRecord
from arena.referee.replay import replay
from arena.rpc.background import BackgroundReferee
from tests.processes import wait_for_no_leftovers

TIMEOUT_S = 120


def pid_of(record: MatchRecord, seat: int) -> str:
    """The id the process that played the seat gave itself."""
    version = record.players[seat].version
    assert version.startswith("proc-"), version
    return version


def play_pair(referee: BackgroundReferee, bot: str, seed: int) -> tuple[MatchRecord, MatchRecord]:
    """Two matches at once on one process of `bot`: seat 0 of the first plays on, seat 1 of the second misbehaves."""
    plays_on = referee.submit("major-general", [bot, "random"], seed=seed)
    misbehaves = referee.submit("major-general", ["random", bot], seed=seed + 1)
    return plays_on.result(timeout=TIMEOUT_S), misbehaves.result(timeout=TIMEOUT_S)


def check_fresh_process(referee: BackgroundReferee, bot: str, old_pid: str, seed: int) -> None:
    record = referee.run_match("major-general", [bot, "trivial"], seed=seed)
    assert record.result is not None and record.result.reason == "score", record.result
    assert pid_of(record, 0) != old_pid
    wait_for_no_leftovers(referee, bot)  # the old process and all it started are gone


@pytest.mark.parametrize("bot, reason", [("shared-illegal", "illegal_action"), ("shared-disconnect", "disconnect")])
def test_a_fault_on_one_stream_leaves_the_other_matches_of_its_process_alone(referee: BackgroundReferee, bot: str,
                                                                             reason: str) -> None:
    played, faulted = play_pair(referee, bot, seed=41)
    result = faulted.result
    assert result is not None and (result.reason, result.offender) == (reason, 1), result
    assert played.result is not None and played.result.reason == "score", played.result
    replay(played)
    pid = pid_of(played, 0)
    assert pid_of(faulted, 1) == pid  # one process served both matches
    check_fresh_process(referee, bot, pid, seed=43)


def test_a_crash_of_a_shared_process_ends_every_match_it_was_playing(referee: BackgroundReferee) -> None:
    first, second = play_pair(referee, "shared-crash", seed=51)
    pid = pid_of(first, 0)
    assert pid_of(second, 1) == pid
    for record, seat in ((first, 0), (second, 1)):
        result = record.result
        assert result is not None and (result.reason, result.offender) == ("crash", seat), result
        assert "exited with status 3" in result.detail, result.detail
        assert "going down with every match" in record.extra["evidence"][str(seat)]["output"]
    check_fresh_process(referee, "shared-crash", pid, seed=53)


def test_one_sdk_process_plays_several_matches_at_once_with_an_agent_per_stream(referee: BackgroundReferee) -> None:
    tables = [["multi", "random"], ["random", "multi"], ["multi", "multi"]]  # four streams: the bot's concurrency
    futures = [referee.submit("major-general", bots, seed=61 + n) for n, bots in enumerate(tables)]
    records = [future.result(timeout=TIMEOUT_S) for future in futures]
    pids = set()
    for record, bots in zip(records, tables):
        assert record.result is not None and record.result.reason == "score", record.result
        replay(record)
        pids |= {pid_of(record, seat) for seat, name in enumerate(bots) if name == "multi"}
    assert len(pids) == 1  # one process played all four seats, each agent only its own
