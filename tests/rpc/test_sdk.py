"""The bot SDK's own logic: one agent per stream, and where the settings come from."""

from __future__ import annotations

import pytest

from arena.agents.base import Agent, DecisionRequest
from arena.rpc.sdk import make_agents, settings_from_environment


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
