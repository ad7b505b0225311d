"""The scripted player: the hand-written strategy of the game's family, from the observation alone."""

from __future__ import annotations

import random

from arena.agents.base import Agent, DecisionRequest
from arena.agents.knowledge import scripted_policy
from arena.games.base import Game


class ScriptedAgent(Agent):
    """Plays the family's rules of thumb (its knowledge module, arena/games/<family>/knowledge.py); seeded
    tie-breaks."""

    name = "scripted"
    version = "1"

    def __init__(self) -> None:
        self.rng = random.Random(0)

    def reset(self, game: Game, seat: int, seed: int) -> None:
        super().reset(game, seat, seed)
        self.policy = scripted_policy(game)  # fails here, before the match, when the family has none
        self.rng = random.Random(seed)

    def act(self, request: DecisionRequest) -> int:
        if len(request.legal_actions) == 1:
            return request.legal_actions[0]
        return self.policy(self.game, request.observation, list(request.legal_actions), self.rng)
