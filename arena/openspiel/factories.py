"""OpenSpiel's bots as Arena agents, registered by name through the `arena.agents` entry points
(pyproject.toml): `openspiel-ismcts` and `openspiel-mcts`. A factory is light; the bridge is loaded
when the package is (this module lives in it), the bot itself when an agent is made."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from arena.agents.base import Agent


class OpenSpielBot:
    """Makes OpenSpiel's `algorithm` bot as an agent: `factory(simulations=..., evaluator=...)`."""

    # what `make demo` plays: leaves scored as Arena's MCTS scores them, 3-4x cheaper than random rollouts
    demo_params: dict[str, Any] = {"simulations": 20, "evaluator": "arena"}

    def __init__(self, algorithm: str) -> None:
        self.algorithm = algorithm
        self.__doc__ = f"OpenSpiel's {algorithm.upper()} bot through the bridge (optional extra `openspiel`)."

    @property
    def takes(self) -> Callable[..., Agent]:
        """What a call makes, for checking the parameters a user typed (arena/games/parameters.py)."""
        from arena.openspiel.agents import OpenSpielAgent

        return functools.partial(OpenSpielAgent, self.algorithm)

    def __call__(self, **params: Any) -> Agent:
        from arena.openspiel.agents import OpenSpielAgent

        return OpenSpielAgent(self.algorithm, **params)


ISMCTS = OpenSpielBot("ismcts")
MCTS = OpenSpielBot("mcts")
