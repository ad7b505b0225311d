"""In-process players, by name."""

from __future__ import annotations

import json
from typing import Any, Callable

from arena.agents.base import Agent, DecisionRequest
from arena.agents.greedy import GreedyAgent
from arena.agents.mcts import MCTSAgent
from arena.agents.random_agent import RandomAgent
from arena.agents.scripted import ScriptedAgent
from arena.games.registry import did_you_mean


def _openspiel(algorithm: str) -> Callable[..., Agent]:
    """A factory that imports the optional OpenSpiel bridge only when the agent is made."""

    def make(**params: Any) -> Agent:
        try:
            from arena.openspiel.agents import OpenSpielAgent
        except ImportError as error:
            raise UnknownAgentError(f"openspiel-{algorithm} needs the openspiel extra: {error}") from None
        return OpenSpielAgent(algorithm, **params)

    make.__doc__ = f"OpenSpiel's {algorithm.upper()} bot through the bridge (optional extra `openspiel`)."
    # what `make demo` plays: leaves scored as Arena's MCTS scores them, 3-4x cheaper than random rollouts to the end
    make.demo_params = {"simulations": 20, "evaluator": "arena"}  # type: ignore[attr-defined]
    return make


AGENTS: dict[str, Callable[..., Agent]] = {
    "random": RandomAgent,
    "scripted": ScriptedAgent,
    "greedy": GreedyAgent,
    "mcts": MCTSAgent,
    "openspiel-ismcts": _openspiel("ismcts"),
    "openspiel-mcts": _openspiel("mcts"),
}


class UnknownAgentError(KeyError):
    """No built-in agent has this name."""

    def __str__(self) -> str:
        return str(self.args[0])


def parse_agent_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """'mcts:iterations=200:seconds=0.1' -> ('mcts', {'iterations': 200, 'seconds': 0.1})."""
    name, *pairs = spec.strip().split(":")
    params: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UnknownAgentError(f"bad agent parameter {pair!r} in {spec!r}: expected key=value")
        try:
            params[key] = json.loads(value)
        except json.JSONDecodeError:
            params[key] = value
    return name, params


def agent_name(spec: str) -> str:
    """The one name a built-in agent goes by (tables, records, the web): its spec with the settings by value,
    'openspiel-mcts:simulations=20:evaluator=arena' -> 'openspiel-mcts(20,arena)'; 'random' stays 'random'.
    `arena bot show NAME` gives the spec."""
    name, _, settings = spec.strip().partition(":")
    if not settings:
        return name
    return f"{name}({','.join(part.partition('=')[2] or part for part in settings.split(':'))})"


def make_agent(spec: str) -> Agent:
    """A fresh built-in agent from a spec: a name, optionally followed by :key=value parameters."""
    name, params = parse_agent_spec(spec)
    try:
        factory = AGENTS[name]
    except KeyError:
        raise UnknownAgentError(f"unknown agent {name!r}{did_you_mean(name, AGENTS)}; built-in agents: "
                                f"{', '.join(sorted(AGENTS))}") from None
    try:
        agent = factory(**params)
    except (TypeError, ValueError) as error:
        raise UnknownAgentError(f"bad parameters for agent {name!r}: {error}") from None
    if params:
        agent.name = agent_name(spec)
    return agent


__all__ = ["AGENTS", "Agent", "DecisionRequest", "GreedyAgent", "MCTSAgent", "RandomAgent", "ScriptedAgent",
           "UnknownAgentError", "agent_name", "make_agent", "parse_agent_spec"]
