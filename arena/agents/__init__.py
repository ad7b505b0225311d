"""In-process players, by name."""

from __future__ import annotations

import json
import os
from importlib.metadata import entry_points
from collections.abc import Iterator, MutableMapping
from typing import Any, Callable

from arena.agents.base import Agent, DecisionRequest
from arena.agents.greedy import GreedyAgent
from arena.agents.mcts import MCTSAgent
from arena.agents.random_agent import RandomAgent
from arena.agents.scripted import ScriptedAgent
from arena.games.registry import did_you_mean
from arena.games.parameters import ParameterError, check_parameters


AgentFactory = Callable[..., Agent]

#: Arena's own agents; more come from installed packages' `arena.agents` entry points (OpenSpiel's bots,
#: from this package's optional extra, are registered so: arena.openspiel.factories).
BUILTIN_AGENTS: dict[str, AgentFactory] = {
    "random": RandomAgent,
    "scripted": ScriptedAgent,
    "greedy": GreedyAgent,
    "mcts": MCTSAgent,
}


def _unavailable(name: str, why: str) -> AgentFactory:
    def make(**_params: Any) -> Agent:
        raise UnknownAgentError(f"{name} cannot be made here: {why}")

    return make


class AgentRegistry(MutableMapping[str, AgentFactory]):
    """The built-in agents and those installed packages register, by name; a registered one is loaded when
    first asked for (one that cannot load, an optional extra not installed, says why when made). A program
    may register its own: `AGENTS["mine"] = MyAgent`."""

    def __init__(self, builtin: dict[str, AgentFactory]) -> None:
        self._factories = dict(builtin)
        self._entries = {entry.name: entry for entry in entry_points(group="arena.agents") if entry.name not in builtin}

    def __getitem__(self, name: str) -> AgentFactory:
        if name not in self._factories:
            entry = self._entries[name]  # KeyError: no such agent
            try:
                self._factories[name] = entry.load()
            except ImportError as error:
                extra = entry.value.split(":")[0].split(".")[1]
                self._factories[name] = _unavailable(name, f"it needs the {extra} extra ({error})")
        return self._factories[name]

    def __setitem__(self, name: str, factory: AgentFactory) -> None:
        self._factories[name] = factory

    def __delitem__(self, name: str) -> None:
        if name not in self._factories and name not in self._entries:
            raise KeyError(name)
        self._factories.pop(name, None)
        self._entries.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        return iter(sorted({*self._factories, *self._entries}))

    def __len__(self) -> int:
        return len({*self._factories, *self._entries})


AGENTS = AgentRegistry(BUILTIN_AGENTS)


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
        raise _unknown_agent(name) from None
    try:
        if params:  # (none to check: a tournament makes its agents for every match, and reading a signature costs)
            check_parameters(f"agent {name!r}", factory, params)
    except ParameterError as error:
        raise UnknownAgentError(str(error)) from None
    try:
        agent = factory(**params)
    except (TypeError, ValueError) as error:
        raise UnknownAgentError(f"bad parameters for agent {name!r}: {error}") from None
    if params:
        agent.name = agent_name(spec)
    return agent


def _unknown_agent(name: str) -> UnknownAgentError:
    """The error for a name no built-in agent goes by (a bot program's folder named where an agent is asked for,
    or a misspelling)."""
    if "/" in name or name.startswith(".") or os.path.isdir(name) or name.endswith("bot.toml"):
        return UnknownAgentError(f"{name!r} is a bot program, not a built-in agent: play it with `arena match "
                                 f"GAME {name} greedy` (bot programs play through the referee); built-in "
                                 f"agents: {', '.join(sorted(AGENTS))}")
    return UnknownAgentError(f"unknown agent {name!r}{did_you_mean(name, AGENTS)}; built-in agents: "
                             f"{', '.join(sorted(AGENTS))}")


__all__ = ["AGENTS", "Agent", "DecisionRequest", "GreedyAgent", "MCTSAgent", "RandomAgent", "ScriptedAgent",
           "UnknownAgentError", "agent_name", "make_agent", "parse_agent_spec"]
