"""What Arena's built-in agents know of Odd One Out: the score lead as an evaluation, and a rule of
thumb (the number the others picked least often lately)."""

from __future__ import annotations

import math
import random

from arena.games.base import JSON, Game, State


def values(state: State) -> list[float]:
    """Each seat's lead over the best of the others, squashed into [-1, 1] (the returns once over)."""
    if state.is_terminal():
        return state.returns()
    scores = state.to_json()["scores"]
    return [math.tanh((score - max(other for j, other in enumerate(scores) if j != i)) / 4.0)
            for i, score in enumerate(scores)]


def scripted_action(game: Game, observation: JSON, legal_actions: list[int], rng: random.Random) -> int:
    """The pick the other seats chose least in the rounds seen (ties broken at random), as high as may be."""
    seat = observation["seat"]
    counts = [0] * len(legal_actions)
    for picks in observation["history"][-3:]:
        for other, pick in enumerate(picks):
            if other != seat:
                counts[pick] += 1
    least = min(counts)
    choices = [action for action in legal_actions if counts[action] == least]
    return max(choices) if rng.random() < 0.5 else rng.choice(choices)
