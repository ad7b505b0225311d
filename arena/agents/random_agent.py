"""The random player: a uniformly random legal action, from a seeded generator."""

from __future__ import annotations

import random

from arena.agents.base import Agent, DecisionRequest
from arena.games.base import Game


class RandomAgent(Agent):
    """Picks uniformly among the legal actions."""

    name = "random"
    version = "1"

    def __init__(self) -> None:
        self.rng = random.Random(0)

    def reset(self, game: Game, seat: int, seed: int) -> None:
        super().reset(game, seat, seed)
        self.rng = random.Random(seed)

    def act(self, request: DecisionRequest) -> int:
        return self.rng.choice(request.legal_actions)
