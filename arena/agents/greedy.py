"""The greedy player: one move of lookahead, the expectation over dice, and the family's evaluation.

Each legal action is scored by the expected evaluation of where it leads. A decision in Arena may
be one step of a compound move, so the lookahead runs on until the move is over: further choices
(its own, or an opponent's reaction inside the move) are made the same greedy way by the seat that
makes them, chance outcomes are averaged (all of them when there are few, a seeded sample when
there are many), and it stops at the family's lookahead boundary (by default: the next decision of
another seat), at the end of the game, or after `max_depth` steps. Hidden cards are sampled from
the observation (`determinize`); `samples` > 1 averages over several samples.
"""

from __future__ import annotations

import random

from arena.agents.base import Agent, DecisionRequest
from arena.agents.knowledge import FamilyKnowledge, knowledge_for
from arena.games.base import CHANCE, TERMINAL, Game, State


class GreedyAgent(Agent):
    """One-move lookahead with expectation over chance, scored by the family evaluation."""

    name = "greedy"
    version = "1"
    demo_params: dict[str, int] = {}  # its defaults are demo-sized already

    def __init__(self, samples: int = 1, chance_outcomes: int = 12, max_depth: int = 40) -> None:
        if samples < 1 or chance_outcomes < 1 or max_depth < 1:
            raise ValueError("samples, chance_outcomes and max_depth must be at least 1")
        self.samples = int(samples)
        self.chance_outcomes = int(chance_outcomes)
        self.max_depth = int(max_depth)
        self.rng = random.Random(0)

    def reset(self, game: Game, seat: int, seed: int) -> None:
        super().reset(game, seat, seed)
        self.rng = random.Random(seed)
        self.knowledge: FamilyKnowledge = knowledge_for(game)

    def act(self, request: DecisionRequest) -> int:
        legal = request.legal_actions
        if len(legal) == 1:
            return legal[0]
        totals = dict.fromkeys(legal, 0.0)
        for _ in range(self.samples):
            root = self.game.determinize(request.observation, self.rng)
            for action, value in self.action_values(root, request.seat, legal).items():
                totals[action] += value
        best = max(totals.values())
        return self.rng.choice([action for action in legal if totals[action] >= best - 1e-9])

    def action_values(self, state: State, seat: int, legal: list[int]) -> dict[int, float]:
        """Each action's expected evaluation for `seat` once the move it starts is over, on a full state."""
        values = {}
        for action in legal:
            child = state.clone()
            child.apply_action(action)
            values[action] = self.expected_values(child, seat, 1)[seat]
        return values

    def expected_values(self, state: State, mover: int, depth: int) -> list[float]:
        """Every seat's expected evaluation once the move that `mover` started is over."""
        player = state.current_player()
        if player == TERMINAL:
            return state.returns()
        if depth >= self.max_depth or self._is_boundary(state, player, mover):
            return self.knowledge.values(state)
        if player == CHANCE:
            totals = [0.0] * self.game.num_seats
            for outcome, probability in self._outcomes(state):
                child = state.clone()
                child.apply_action(outcome)
                for seat, value in enumerate(self.expected_values(child, mover, depth + 1)):
                    totals[seat] += probability * value
            return totals
        # A later choice inside the move: its maker takes the option that looks best one step on.
        best_child, best_value = state, -float("inf")
        for action in state.legal_actions():
            child = state.clone()
            child.apply_action(action)
            value = self.one_step_value(child, player)
            if value > best_value:
                best_child, best_value = child, value
        return self.expected_values(best_child, mover, depth + 1)

    def one_step_value(self, state: State, seat: int) -> float:
        """The evaluation of `state` for `seat`, averaged over the chance outcome it waits for, if any."""
        player = state.current_player()
        if player == TERMINAL:
            return state.returns()[seat]
        if player != CHANCE:
            return self.knowledge.values(state)[seat]
        total = 0.0
        for outcome, probability in self._outcomes(state):
            child = state.clone()
            child.apply_action(outcome)
            total += probability * (child.returns()[seat] if child.current_player() == TERMINAL
                                    else self.knowledge.values(child)[seat])
        return total

    def _outcomes(self, state: State) -> list[tuple[int, float]]:
        """All chance outcomes with their probabilities, or an equally weighted seeded sample of them."""
        outcomes = state.chance_outcomes()
        if len(outcomes) <= self.chance_outcomes:
            return outcomes
        drawn = [state.sample_chance(self.rng) for _ in range(self.chance_outcomes)]
        return [(outcome, 1.0 / len(drawn)) for outcome in drawn]

    def _is_boundary(self, state: State, player: int, mover: int) -> bool:
        boundary = self.knowledge.is_lookahead_boundary
        if boundary is not None:
            return boundary(state)
        return player != CHANCE and player != mover
