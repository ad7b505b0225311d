"""In-process players, by name."""

from __future__ import annotations

from typing import Callable

from arena.agents.base import Agent, DecisionRequest
from arena.agents.random_agent import RandomAgent

AGENTS: dict[str, Callable[[], Agent]] = {
    "random": RandomAgent,
}


class UnknownAgentError(KeyError):
    """No built-in agent has this name."""

    def __str__(self) -> str:
        return str(self.args[0])


def make_agent(name: str) -> Agent:
    """A fresh built-in agent by name."""
    try:
        return AGENTS[name]()
    except KeyError:
        raise UnknownAgentError(f"unknown agent {name!r}; built-in agents: {', '.join(sorted(AGENTS))}") from None


__all__ = ["AGENTS", "Agent", "DecisionRequest", "RandomAgent", "UnknownAgentError", "make_agent"]
