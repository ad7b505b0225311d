"""Every in-process agent has a bound: a decision or a match past its limits is stopped, the seat loses on
time with the reason recorded, and whatever runs the matches (`arena play`, a tournament on the local pool,
the referee) goes on. The limits are small here so the tests are quick; the defaults are generous."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from arena.agents import AGENTS, Agent, DecisionRequest, RandomAgent
from arena.cli.main import main
from arena.referee.authority import play_match
from arena.referee.limits import AgentLimits
from arena.referee.record import MatchRecord
from arena.referee.replay import replay

GAME = "major-general"
QUICK = AgentLimits(decision_s=0.3, match_s=30.0)


class LoopingAgent(Agent):
    """Never answers: thinks forever in Python (a search without a bound)."""

    name = "test-loop"

    def act(self, request: DecisionRequest) -> int:
        while True:
            pass


class StubbornAgent(Agent):
    """Swallows the first interruptions and thinks on; counts what it swallowed."""

    name = "test-stubborn"
    swallowed = 0

    def act(self, request: DecisionRequest) -> int:
        while True:
            try:
                while True:
                    pass
            except BaseException:  # noqa: BLE001 - what a careless agent does
                StubbornAgent.swallowed += 1
                if StubbornAgent.swallowed > 2:
                    raise


class SlowAgent(Agent):
    """Answers every decision after 50 ms: within a decision limit, but not within a small match limit."""

    name = "test-slow"

    def act(self, request: DecisionRequest) -> int:
        time.sleep(0.05)
        return request.legal_actions[0]


class BlockedAgent(Agent):
    """Blocks in C code (a sleep of an hour), where Python cannot interrupt it: only its worker can be stopped."""

    name = "test-blocked"

    def act(self, request: DecisionRequest) -> int:
        time.sleep(3600)
        return request.legal_actions[0]


def assert_lost_on_time(record: MatchRecord, seat: int, words: str) -> None:
    result = record.result
    assert result is not None
    assert (result.reason, result.offender) == ("timeout", seat), result
    assert words in result.detail, result.detail
    replay(record)  # the record holds the match up to the fault and replays


def test_a_looping_agent_is_stopped_and_loses_on_time() -> None:
    record = play_match(GAME, [LoopingAgent(), RandomAgent()], seed=3, limits=QUICK)
    assert_lost_on_time(record, 0, "no decision within 0.300s")
    assert "limits on in-process agents" in record.result.detail  # type: ignore[union-attr]
    assert not [step for step in record.decisions if step.seat == 0]  # it never answered


def test_an_agent_that_swallows_the_interruption_is_interrupted_again() -> None:
    StubbornAgent.swallowed = 0
    record = play_match(GAME, [RandomAgent(), StubbornAgent()], seed=4, limits=QUICK)
    assert_lost_on_time(record, 1, "no decision within 0.300s")
    assert StubbornAgent.swallowed == 3


def test_the_match_limit_bounds_a_seats_thinking_over_the_whole_match() -> None:
    record = play_match(GAME, [SlowAgent(), RandomAgent()], seed=5, limits=AgentLimits(decision_s=5.0, match_s=0.4))
    assert_lost_on_time(record, 0, "ran out of its 0.4s of thinking for the match")
    assert record.decisions  # it played several decisions before its time ran out


def test_the_interruption_never_reaches_the_match_loop() -> None:
    """Decisions that end right at their deadline, thousands of them: no interruption lands after a decision
    is over (it would crash the loop or void the match)."""
    class JustInTime(Agent):
        name = "just-in-time"

        def act(self, request: DecisionRequest) -> int:
            end = time.monotonic() + 0.001
            while time.monotonic() < end:
                pass
            return request.legal_actions[0]

    for seed in range(20):
        record = play_match(GAME, [JustInTime(), RandomAgent()], seed=seed,
                            limits=AgentLimits(decision_s=0.001, match_s=60.0))
        assert record.result is not None and record.result.reason in ("timeout", "score"), record.result
        if record.result.reason == "timeout":
            assert record.result.offender == 0


def test_arena_play_stores_a_never_answering_agents_games_with_the_reason(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(AGENTS, "test-loop", LoopingAgent)
    code = main(["play", GAME, "--players", "test-loop,random", "--games", "2", "--seed", "1",
                 "--decision-limit", "300ms", "--out", str(tmp_path), "--json"])
    assert code == 0
    games = json.loads(capsys.readouterr().out)["games"]
    assert len(games) == 2
    for game in games:
        assert game["reason"] == "timeout"
        looper = game["seats"].index("test-loop")
        assert game["ranking"][looper] == 1  # it lost, in whichever seat it sat
        record = MatchRecord.read(Path(game["record"]))
        assert record.result is not None and record.result.offender == looper
    assert main(["play", GAME, "--decision-limit", "soon"]) == 2  # a bad limit: one line
    assert "bad duration" in capsys.readouterr().err


def test_a_clocked_agent_beside_a_program_stops_thinking_when_its_clock_runs_out(tmp_path: Path) -> None:
    """In the referee an agent thinks on a thread: when its clock runs out the match ends (timeout) and the
    thread is interrupted too, so it does not spin on for a match already over."""
    from arena.referee.clock import ClockSettings
    from arena.rpc.background import BackgroundReferee
    from arena.rpc.server import ServerConfig
    from arena.sandbox import SandboxSettings

    spins = [0]

    class Spinner(Agent):
        name = "spinner"

        def act(self, request: DecisionRequest) -> int:
            while True:
                spins[0] += 1

    config = ServerConfig(port=None, bot_dirs=(), results_dir=tmp_path, sandbox=SandboxSettings(mode="none"),
                          clock=ClockSettings(move_time_s=0.2, bank_s=0.0, grace_s=0.1))
    with BackgroundReferee(config, drain_s=0.0) as referee:
        record = referee.run_match(GAME, [Spinner(), "random"], seed=3)
        assert record.result is not None and (record.result.reason, record.result.offender) == ("timeout", 0)
        deadline = time.monotonic() + 60
        while True:  # the thread is interrupted within a second or so of the end: its count stops growing
            before = spins[0]
            time.sleep(0.3)
            if spins[0] == before:
                break
            assert time.monotonic() < deadline, "the agent's thread still spins"
