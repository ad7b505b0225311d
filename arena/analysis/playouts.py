"""Paired playouts: what one move costs its mover against another, when both sides play on like Arena's greedy
player (a random move now and then, so that a position has a spread of continuations, not one line).

Each pair plays both moves on from one position with one seed (the same chance draws, the same players):
common random numbers, so the difference of a pair is the moves' difference, little of the dice's. The analysis
checks its decisions with them from worlds its mover could be in (arena/analysis/match.py: its observation, never
the record's hidden truth); bench/analysis_quality.py judges the analysis with them from the true position (its
outside truth).
"""

from __future__ import annotations

import math
import random
import statistics
from typing import Callable

from arena.agents.base import DecisionRequest
from arena.agents.greedy import GreedyAgent
from arena.games.base import CHANCE, Game, State, points
from arena.referee.seeds import derive_seed

NOISE = 0.1  # the playing greedy players' chance of a random move


class NoisyGreedy(GreedyAgent):
    """Greedy, but with probability `noise` a legal move at random (from a generator of its own, so that two
    playouts of one seed draw alike)."""

    def __init__(self, noise: float) -> None:
        super().__init__()
        self.noise = noise
        self.noise_rng = random.Random(0)

    def reset(self, game: Game, seat: int, seed: int) -> None:
        super().reset(game, seat, seed)
        self.noise_rng = random.Random(derive_seed(seed, 1))

    def act(self, request: DecisionRequest) -> int:
        if self.noise and self.noise_rng.random() < self.noise:
            return self.noise_rng.choice(request.legal_actions)
        return super().act(request)


def playout(game: Game, state: State, seed: int, noise: float = NOISE) -> State:
    """`state` played to its end by greedy against greedy (each a random move with probability `noise`), the
    chance drawn from `seed` (one draw per chance step, in order) and each greedy seeded from it: two playouts
    of one seed from two states share their chance draws (common random numbers)."""
    state = state.clone()
    chance = random.Random(seed)
    agents = [NoisyGreedy(noise), NoisyGreedy(noise)]
    for seat, agent in enumerate(agents):
        agent.reset(game, seat, derive_seed(seed, seat))
    for _ in range(game.info.max_game_length):
        if state.is_terminal():
            break
        player = state.current_player()
        if player == CHANCE:
            state.apply_action(state.sample_chance(chance))
        else:
            request = DecisionRequest(player, state.legal_actions(), state.observation(player))
            state.apply_action(agents[player].act(request))
    return state


def score(state: State, seat: int) -> float:
    """The seat's result at a finished state (a win 1, a draw 1/2); a game cut off by its length limit, 1/2."""
    outcome = state.outcome()
    if outcome is None:
        return 0.5
    ranking = outcome.ranking
    return points(ranking[seat] < ranking[1 - seat], ranking[seat] == ranking[1 - seat])


def pair_difference(game: Game, state: State, seat: int, better: int, worse: int, seed: int,
                    noise: float = NOISE) -> float:
    """One pair: `seat`'s score after `better` less its score after `worse`, both played on with `seed`."""
    scores = []
    for move in (better, worse):
        child = state.clone()
        child.apply_action(move)
        scores.append(score(playout(game, child, seed, noise), seat))
    return scores[0] - scores[1]


def mean_and_error(differences: list[float]) -> tuple[float, float]:
    """The mean of the pairs' differences and its standard error (1.0 from a single pair: unknown)."""
    mean = statistics.fmean(differences)
    spread = statistics.stdev(differences) if len(differences) > 1 else 1.0
    return mean, spread / math.sqrt(len(differences))


def paired_cost(game: Game, position: Callable[[int], State], seat: int, worse: int, better: int, pairs: int,
                seed: int, noise: float = NOISE, give_up: Callable[[float, float], bool] | None = None,
                look: int = 8) -> tuple[float, float, int]:
    """What playing `worse` rather than `better` costs `seat` (its expected score) by `pairs` paired playouts,
    pair i from `position(i)` with its own seed: (the mean difference, its standard error, the pairs played).
    With `give_up`, every `look` pairs the rest are not played when give_up(mean, error) says so."""
    differences: list[float] = []
    for index in range(pairs):
        if give_up is not None and index and index % look == 0 and give_up(*mean_and_error(differences)):
            break
        differences.append(pair_difference(game, position(index), seat, better, worse, derive_seed(seed, index),
                                           noise))
    mean, error = mean_and_error(differences)
    return mean, error, len(differences)
