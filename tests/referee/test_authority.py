"""The transport-agnostic match loop: same steps as play_match, clocks, faults, voids."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from arena.agents import RandomAgent
from arena.agents.base import Agent, DecisionRequest
from arena.games.registry import load_game
from arena.referee.authority import play_match, referee_match, seat_seed
from arena.referee.clock import ClockSettings
from arena.referee.faults import SeatFault
from arena.referee.players import PlayerKind
from arena.referee.record import MatchRecord, MatchResult, PlayerInfo, Termination
from arena.referee.replay import replay
from arena.referee.seats import AgentSeat, Answer, Ask, MatchSetup, SeatPort

GAME = load_game("major-general")


class ScriptedPort(SeatPort):
    """First legal action; misbehaves as told on its n-th decision."""

    def __init__(self, misbehave_at: int = 0, how: str = "", pause_s: float = 0.0) -> None:
        self.misbehave_at, self.how, self.pause_s = misbehave_at, how, pause_s
        self.count = 0
        self.woke = False
        self.results: list[MatchResult] = []
        self.setup: MatchSetup | None = None

    @property
    def player(self) -> PlayerInfo:
        return PlayerInfo(0, f"scripted-{self.how or 'good'}", "1", PlayerKind.BOT)

    async def start(self, setup: MatchSetup) -> None:
        self.setup = setup

    async def decide(self, ask: Ask) -> Answer:
        self.count += 1
        sequence, action = ask.sequence, ask.legal_actions[0]
        if self.count == self.misbehave_at:
            if self.how == "sleep":
                await asyncio.sleep(self.pause_s)
                self.woke = True
            elif self.how == "stale":
                sequence -= 1
            elif self.how == "raise":
                raise SeatFault(ask.seat, Termination.MALFORMED_MESSAGE, "garbage")
            elif self.how == "drop":  # this seat's connection drops while the other decides next
                self.failure = SeatFault(ask.seat, Termination.DISCONNECT, "dropped")
            elif self.how == "leave":  # ... and says so at once, as a bot's stream does
                asyncio.get_running_loop().call_later(self.pause_s, self._leave, ask.seat)
        return Answer(sequence, action, 0.0)

    def _leave(self, seat: int) -> None:
        self.failure = SeatFault(seat, Termination.DISCONNECT, "left while the other seat thought")
        if self.on_lost is not None:
            self.on_lost()

    async def finish(self, result: MatchResult) -> None:
        self.results.append(result)

    async def examine(self, fault: SeatFault) -> tuple[SeatFault, dict[str, Any]]:
        return fault, {"note": f"examined {fault.reason.value}"}


def run(seats: list[SeatPort], seed: int = 4, **settings: Any) -> MatchRecord:
    return asyncio.run(referee_match(GAME, seats, seed, **settings))


def test_same_steps_as_play_match() -> None:
    for seed in range(4):
        local = play_match(GAME, [RandomAgent(), RandomAgent()], seed)
        refereed = run([AgentSeat(RandomAgent()), AgentSeat(RandomAgent())], seed)
        assert [(s.n, s.seat, s.action, s.label) for s in refereed.steps] == \
               [(s.n, s.seat, s.action, s.label) for s in local.steps]
        assert refereed.result == local.result
        replay(refereed)


def test_every_seat_learns_the_result_and_its_seed() -> None:
    seats = [ScriptedPort(), ScriptedPort()]
    record = run(seats, seed=9)
    assert record.result is not None and record.result.reason == "score"
    assert all(port.results == [record.result] for port in seats)
    assert [port.setup.agent_seed for port in seats if port.setup] == [seat_seed(9, 0), seat_seed(9, 1)]
    assert all(set(step.timing) == {"think_ms", "transport_ms"} for step in record.decisions)


@pytest.mark.parametrize("how, reason", [("stale", "wrong_sequence"), ("raise", "malformed_message"),
                                         ("drop", "disconnect")])
def test_faults_forfeit_by_default(how: str, reason: str) -> None:
    seats = [ScriptedPort(), ScriptedPort(misbehave_at=2, how=how)]
    record = run(seats)
    result = record.result
    assert result is not None
    assert (result.reason, result.offender, result.ranking) == (reason, 1, (0, 1))
    assert record.extra["evidence"]["1"] == {"note": f"examined {reason}"}
    assert seats[0].results == [result] and seats[1].results == [result]
    replay(record)


def test_a_seat_past_its_deadline_times_out() -> None:
    clock = ClockSettings(move_time_s=0.05, bank_s=0.05, grace_s=0.0)
    record = run([ScriptedPort(misbehave_at=2, how="sleep", pause_s=30.0), ScriptedPort()], clock=clock)
    assert record.result is not None
    assert (record.result.reason, record.result.offender) == ("timeout", 0)
    assert "within 0.100s" in record.result.detail


def test_a_seat_lost_while_the_other_thinks_ends_the_match_at_once() -> None:
    """The thinking seat is not waited for: it gets MatchEnd with its decision open, and is not blamed."""
    clock = ClockSettings(move_time_s=30.0, bank_s=0.0, grace_s=0.0)
    thinker = ScriptedPort(misbehave_at=2, how="sleep", pause_s=30.0)
    leaver = ScriptedPort(misbehave_at=1, how="leave", pause_s=0.2)
    record = run([thinker, leaver], clock=clock)
    assert not thinker.woke  # its 30 s were not waited for
    result = record.result
    assert result is not None
    assert (result.reason, result.offender, result.ranking) == ("disconnect", 1, (0, 1))
    assert result.detail == "left while the other seat thought"
    assert thinker.count == 2 and thinker.results == [result] and leaver.results == [result]
    assert leaver.on_lost is None  # the loop lets go of its ports


class IllegalAgent(Agent):
    name = "illegal"

    def act(self, request: DecisionRequest) -> int:
        return 63 if 63 not in request.legal_actions else 0


class BrokenAgent(Agent):
    name = "broken"

    def act(self, request: DecisionRequest) -> int:
        raise KeyError("no idea")


def test_in_process_agents_forfeit_like_play_match() -> None:
    record = run([AgentSeat(RandomAgent()), AgentSeat(IllegalAgent())])
    assert record.result is not None and (record.result.reason, record.result.offender) == ("illegal_action", 1)
    record = run([AgentSeat(BrokenAgent()), AgentSeat(RandomAgent())])
    assert record.result is not None and (record.result.reason, record.result.offender) == ("agent_error", 0)
    assert "KeyError" in record.result.detail


def test_a_stopped_match_is_voided_and_every_seat_told() -> None:
    seats = [ScriptedPort(misbehave_at=1, how="sleep", pause_s=30.0), ScriptedPort()]

    async def stop_it() -> MatchRecord:
        task = asyncio.ensure_future(referee_match(GAME, seats, 1))
        await asyncio.sleep(0.2)
        task.cancel()
        return await task

    record = asyncio.run(stop_it())
    assert record.result is not None
    assert (record.result.reason, record.result.voided, record.result.offender) == ("void", True, None)
    assert seats[0].results == seats[1].results == [record.result]


def test_a_referee_error_voids_the_match_instead_of_losing_it() -> None:
    def broken_callback(state: Any, step: Any) -> None:
        if step.n == 10:
            raise RuntimeError("watcher bug")

    seats = [ScriptedPort(), ScriptedPort()]
    record = run(seats, on_step=broken_callback)
    assert record.result is not None
    assert (record.result.reason, record.result.voided) == ("void", True)
    assert "referee error: RuntimeError: watcher bug" in record.result.detail
    assert len(record.steps) == 11 and seats[0].results == [record.result]


def test_seat_seeds_are_keyed_by_the_salt_when_there_is_one() -> None:
    salted = seat_seed(5, 1, "secret")
    assert salted != seat_seed(5, 1) and salted == seat_seed(5, 1, "secret") and salted != seat_seed(5, 1, "other")
    assert 0 <= salted < 2**63
