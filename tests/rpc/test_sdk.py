"""The bot SDK's own logic: one agent per stream, and where the settings come from."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest

from arena.agents.base import Agent, DecisionRequest
from arena.games.registry import load_game
from arena.rpc.generated.bot_pb2 import RefereeMessage
from arena.rpc.sdk import _play_one, make_agents, settings_from_environment


class CountingAgent(Agent):
    """First legal action; remembers its own decisions."""

    name = "counting"
    version = "3"

    def __init__(self) -> None:
        self.decisions: list[int] = []

    def act(self, request: DecisionRequest) -> int:
        self.decisions.append(request.legal_actions[0])
        return request.legal_actions[0]


def test_an_agent_is_copied_for_every_other_stream() -> None:
    agent = CountingAgent()
    agents = make_agents(agent, 3)
    assert agents[0] is agent
    assert len({id(one) for one in agents}) == 3
    assert len({id(one.decisions) for one in agents if isinstance(one, CountingAgent)}) == 3  # deep copies
    assert all(type(one) is CountingAgent for one in agents)


def test_a_factory_is_called_once_per_stream() -> None:
    agents = make_agents(CountingAgent, 2)
    assert len(agents) == 2 and agents[0] is not agents[1]


def test_concurrency_comes_from_the_flag_then_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_CONCURRENCY", "6")
    assert settings_from_environment(CountingAgent(), ["--server", "here:1"]).concurrency == 6
    assert settings_from_environment(CountingAgent(), ["--server", "here:1", "--concurrency", "2"]).concurrency == 2
    monkeypatch.delenv("ARENA_CONCURRENCY")
    settings = settings_from_environment(CountingAgent(), ["--server", "here:1"])
    assert (settings.concurrency, settings.name, settings.version) == (1, "counting", "3")


class EndedCall:
    """A stream on which the referee ended the match while the agent thought: the answer cannot be written
    (grpc.aio raises InvalidStateError on a finished call), MatchEnd is still to be read."""

    def __init__(self, failure: Exception) -> None:
        self.failure = failure
        game = load_game("major-general")
        start = RefereeMessage()
        start.match_start.game, start.match_start.family = game.name, "major-general"
        start.match_start.num_seats = 2
        state = game.new_initial_state()
        while state.current_player() < 0:
            state.apply_action(state.legal_actions()[0])
        request = RefereeMessage()
        request.decision_request.sequence = 2
        request.decision_request.legal_actions.extend(state.legal_actions())
        end = RefereeMessage()
        end.match_end.result.reason = "disconnect"
        end.match_end.result.ranking.extend([0, 1])
        self.messages: list[Any] = [start, request, end, grpc.aio.EOF]

    async def read(self) -> Any:
        return self.messages.pop(0)

    async def write(self, message: Any) -> None:
        raise self.failure


@pytest.mark.parametrize("failure", [asyncio.InvalidStateError("RPC is already finished."),
                                     grpc.aio.AioRpcError(grpc.StatusCode.INTERNAL, grpc.aio.Metadata(),
                                                          grpc.aio.Metadata(), "Internal error from Core")])
def test_an_answer_to_a_match_that_ended_meanwhile_is_dropped(failure: Exception) -> None:
    """The referee may end a match while the bot decides (the opponent left) and close the stream: writing
    the answer fails (as grpc.aio does, one way or the other), the SDK reads on and the program lives
    (`arena bot test` caught the SDK dying of this write)."""
    ended: list[str] = []
    call = EndedCall(failure)
    finished = asyncio.run(_play_one(call, CountingAgent(), {}, lambda start, result: ended.append(result.reason)))
    assert finished and ended == ["disconnect"] and call.messages == []
