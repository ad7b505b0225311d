"""One test per fault: a bot that breaks the protocol loses the match with the right reason, and the
next match on the same server runs normally."""

from __future__ import annotations

import pytest

from arena.referee.clock import ClockSettings
from arena.referee.faults import FaultPolicy
from arena.referee.record import MatchRecord, decision_name
from arena.referee.replay import replay
from arena.rpc.background import BackgroundReferee
from arena.rpc.crash import ARENA

FAULTS = [
    # (bot, reason, words the detail must contain)
    ("sleep", "timeout", "within 1.500s"),
    ("illegal", "illegal_action", "illegal"),
    ("garbage", "malformed_message", "not an arena.v1.BotMessage"),
    ("stale", "wrong_sequence", "expected"),
    ("crash", "crash", "exited with status 1"),
    ("disconnect", "disconnect", "stream"),
    ("oversized", "malformed_message", "over the 65536-byte limit"),
]

NAMES_THE_MOMENT = {"sleep", "illegal", "stale", "crash"}  # (the others' faults are about the message, not a moment)


def check_normal(referee: BackgroundReferee, seed: int) -> None:
    record = referee.run_match("major-general", ["random", "random"], seed=seed)
    assert record.result is not None and record.result.reason == "score", record.result
    replay(record)


@pytest.mark.parametrize("bot, reason, words", FAULTS, ids=[fault[0] for fault in FAULTS])
def test_fault_ends_the_match_and_the_server_goes_on(referee: BackgroundReferee, bot: str, reason: str,
                                                     words: str) -> None:
    clock = ClockSettings(move_time_s=1.0, bank_s=0.0, grace_s=0.5) if bot == "sleep" else None
    record: MatchRecord = referee.run_match("major-general", ["random", bot], seed=11, clock=clock)
    result = record.result
    assert result is not None
    assert result.reason == reason, result
    assert result.offender == 1
    assert result.ranking == (0, 1)  # forfeit: the offender last
    assert words in result.detail, result.detail
    assert sum(1 for step in record.decisions if step.seat == 1) == 2  # two good decisions, then the fault
    if bot in NAMES_THE_MOMENT:  # the decision it failed at, named as its replay and page name it
        assert decision_name(len(record.decisions) + 1, len(record.steps) + 1) in result.detail, result.detail
    replay(record)  # a faulted record replays up to the fault
    if bot == "crash":
        output = record.extra["evidence"]["1"]["output"]
        assert "boom from the crash bot" in output and "something went badly wrong" in output
        # the owner reads the bot's own frames, its folder's paths relative, the SDK's frames in one line
        tail = "\n".join(output.rstrip().splitlines()[-12:])  # (as `arena match` shows a fault's output)
        assert 'File "misbehave.py"' in tail and "in act" in tail and "frame(s) of Arena's SDK" in tail, output
        assert str(ARENA) not in output and "site-packages" not in output, output
    check_normal(referee, seed=12)


def test_void_policy_ranks_everyone_equal(referee: BackgroundReferee) -> None:
    record = referee.run_match("major-general", ["illegal", "random"], seed=3,
                              fault_policy=FaultPolicy.parse("forfeit,illegal_action=void"))
    result = record.result
    assert result is not None
    assert (result.reason, result.offender, result.ranking, result.voided) == ("illegal_action", 0, (0, 0), True)
    assert record.extra["referee"]["fault_policy"] == "forfeit,illegal_action=void"
