"""The local match runner: seeded chance, the right seat asked, faults recorded, records replay."""

from __future__ import annotations

from typing import Any

import pytest

from arena.agents import Agent, DecisionRequest, RandomAgent
from arena.games.major_general.rules import MajorGeneralGame
from arena.referee.authority import play_match, seat_seed
from arena.referee.faults import forfeit_ranking
from arena.referee.record import MatchRecord, Termination
from arena.referee.replay import replay


class SeatCheckingAgent(RandomAgent):
    """A random agent that checks it is only ever asked about its own seat."""

    def __init__(self) -> None:
        super().__init__()
        self.asked_while_not_active = 0

    def act(self, request: DecisionRequest) -> int:
        assert request.seat == self.seat
        observation = request.observation
        assert observation["seat"] == self.seat
        if observation["active"] != self.seat:
            self.asked_while_not_active += 1
        return super().act(request)


class IllegalAgent(Agent):
    name = "illegal"

    def act(self, request: DecisionRequest) -> int:
        return 10_000


class CrashingAgent(Agent):
    name = "crashing"

    def act(self, request: DecisionRequest) -> int:
        raise RuntimeError("boom")


def test_same_seed_same_match_and_different_seeds_differ():
    game = MajorGeneralGame()
    first = play_match(game, [RandomAgent(), RandomAgent()], 42)
    again = play_match(game, [RandomAgent(), RandomAgent()], 42)
    other = play_match(game, [RandomAgent(), RandomAgent()], 43)
    assert [s.to_json() | {"think_ms": 0} for s in first.steps] == [s.to_json() | {"think_ms": 0} for s in again.steps]
    assert [s.action for s in first.steps] != [s.action for s in other.steps]
    assert seat_seed(42, 0) != seat_seed(42, 1)


def test_the_seat_that_must_decide_is_asked_even_on_the_other_players_turn():
    agents = [SeatCheckingAgent(), SeatCheckingAgent()]
    for seed in range(30):
        play_match(MajorGeneralGame(), agents, seed)
    assert sum(agent.asked_while_not_active for agent in agents) > 0


def test_an_illegal_action_forfeits_and_is_recorded():
    record = play_match(MajorGeneralGame(), [RandomAgent(), IllegalAgent()], 5)
    assert record.result.reason == Termination.ILLEGAL_ACTION.value
    assert record.result.offender == 1
    assert record.result.ranking == (0, 1)
    assert "10000" in record.result.detail
    replay(MatchRecord.from_jsonl(record.to_jsonl()))  # a forfeited record replays up to the fault


def test_an_agent_that_raises_forfeits():
    record = play_match(MajorGeneralGame(), [CrashingAgent(), RandomAgent()], 5)
    assert record.result.reason == Termination.AGENT_ERROR.value
    assert record.result.offender == 0
    assert "RuntimeError: boom" in record.result.detail


class UnpreparedAgent(RandomAgent):
    name = "unprepared"

    def reset(self, game, seat, seed) -> None:
        raise LookupError(f"no strategy for {game.name}")


def test_an_agent_that_cannot_start_forfeits_before_the_first_step():
    record = play_match(MajorGeneralGame(), [RandomAgent(), UnpreparedAgent()], 5)
    assert record.result.reason == Termination.AGENT_ERROR.value
    assert record.result.offender == 1
    assert "LookupError: no strategy for major-general" in record.result.detail
    assert record.steps == []
    replay(MatchRecord.from_jsonl(record.to_jsonl()))


def test_forfeit_ranking_handles_any_number_of_seats():
    assert forfeit_ranking(2, 0) == (1, 0)
    assert forfeit_ranking(4, 2) == (0, 0, 3, 0)


def test_wrong_number_of_agents_is_refused():
    with pytest.raises(ValueError, match="needs 2 agents"):
        play_match(MajorGeneralGame(), [RandomAgent()], 1)


def test_record_header_names_game_options_seed_players_and_versions():
    record = play_match("major-general/hold-the-centre", [RandomAgent(), RandomAgent()], 9)
    header = record.header_json()
    assert header["game"] == "major-general/hold-the-centre"
    assert header["options"] == {"scenario": "hold-the-centre"}
    assert header["seed"] == 9
    assert [p["name"] for p in header["players"]] == ["random", "random"]
    assert set(header["versions"]) == {"arena", "rules"}
    decision = next(step for step in record.steps if not step.is_chance)
    assert set(decision.to_json()) >= {"seat", "action", "label", "think_ms"}


class WrongUnitAgent(RandomAgent):
    """Answers a troops move-in with an aircraft id (out of place, in the action space): illegal."""

    def act(self, request: DecisionRequest) -> int:
        game: Any = self.game
        if request.observation["phase"] == "move-in" and any(game.AREA_BASE <= a < game.ZONE_BASE
                                                            for a in request.legal_actions):
            return int(game.ZONE_BASE)
        return super().act(request)


def test_an_id_of_the_wrong_unit_kind_forfeits_as_illegal_and_never_voids_the_match():
    from arena.games.general_orders.wwii.rules import WWIIGame

    game = WWIIGame("island")
    results = [play_match(game, [WrongUnitAgent(), RandomAgent()], seed).result for seed in range(6)]
    assert not any(result.voided for result in results), [result.detail for result in results]
    illegal = [result for result in results if result.reason == Termination.ILLEGAL_ACTION]
    assert illegal and all(result.offender == 0 for result in illegal)
    for result in illegal:  # the move goes into a land area: its label says so
        destination = result.detail.split(" -> ")[1].split(")")[0]
        assert destination in game.board.area_ids, result.detail
