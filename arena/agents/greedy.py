"""The greedy player: one move of lookahead, the expectation over dice, and the family's evaluation.

Each legal action is scored by the expected evaluation of where it leads. A decision in Arena may
be one step of a compound move, so the lookahead runs on until the move is over: further choices
(its own, or an opponent's reaction inside the move) are made the same greedy way by the seat that
makes them, chance outcomes are averaged (all of them when there are few, a seeded sample when
there are many), and it stops at the family's lookahead boundary (by default: the next decision of
another seat), at the end of the game, or after `max_depth` steps. Hidden cards are sampled from
the observation (`determinize`); `samples` > 1 averages over several samples.

Its cost is bounded in every position: a move with many chance steps would otherwise multiply its
outcomes at each of them. Each decision may reach at most `nodes` positions (every action or chance
outcome applied counts one), shared equally by the legal actions; a branch that has used its share
is scored by the evaluation where it stands instead of being expanded, and a chance step with less
share left than outcomes averages a seeded sample of as many outcomes as it can afford. So a
decision costs at most about max(`nodes`, a few positions per legal action) evaluations. Given a
clock (`time_left_s`), it also stops expanding once `time_fraction` of the time left is spent.
"""

from __future__ import annotations

import random
import time

from arena.agents.base import Agent, DecisionRequest
from arena.agents.knowledge import FamilyKnowledge, knowledge_for
from arena.games.base import CHANCE, TERMINAL, Game, State

DEFAULT_NODES = 1500


class GreedyAgent(Agent):
    """One-move lookahead with expectation over chance, scored by the family evaluation; bounded per decision."""

    name = "greedy"
    version = "2"  # 2: the lookahead has a budget of positions per decision
    demo_params: dict[str, int] = {}  # its defaults are demo-sized already

    def __init__(self, samples: int = 1, chance_outcomes: int = 12, max_depth: int = 40, nodes: int = DEFAULT_NODES,
                 time_fraction: float = 0.05) -> None:
        if samples < 1 or chance_outcomes < 1 or max_depth < 1 or nodes < 1:
            raise ValueError("samples, chance_outcomes, max_depth and nodes must be at least 1")
        if not 0 < time_fraction <= 1:
            raise ValueError("time_fraction must be in (0, 1]")
        self.samples = int(samples)
        self.chance_outcomes = int(chance_outcomes)
        self.max_depth = int(max_depth)
        self.nodes = int(nodes)
        self.time_fraction = float(time_fraction)
        self.rng = random.Random(0)
        self._spent = 0  # positions reached during the decision under way
        self._deadline: float | None = None  # perf_counter() past which nothing more is expanded
        self.cut_short = False  # the last action_values met its deadline: some values are static evaluations

    def reset(self, game: Game, seat: int, seed: int) -> None:
        super().reset(game, seat, seed)
        self.rng = random.Random(seed)
        self.knowledge: FamilyKnowledge = knowledge_for(game)

    def act(self, request: DecisionRequest) -> int:
        legal = request.legal_actions
        if len(legal) == 1:
            return legal[0]
        deadline = None
        if request.time_left_s is not None:
            deadline = time.perf_counter() + self.time_fraction * max(0.0, request.time_left_s)
        totals = dict.fromkeys(legal, 0.0)
        for _ in range(self.samples):
            root = self.game.determinize(request.observation, self.rng)
            for action, value in self.action_values(root, request.seat, legal, deadline=deadline).items():
                totals[action] += value
        best = max(totals.values())
        return self.rng.choice([action for action in legal if totals[action] >= best - 1e-9])

    def action_values(self, state: State, seat: int, legal: list[int], *, nodes: int | None = None,
                      deadline: float | None = None) -> dict[int, float]:
        """Each action's expected evaluation for `seat` once the move it starts is over, on a full state; the
        actions share `nodes` positions (default: the agent's budget) and stop expanding at `deadline`."""
        share = max(1, (self.nodes if nodes is None else nodes) // max(1, len(legal)))
        self._deadline = deadline
        self.cut_short = False
        values = {}
        for action in legal:
            self._spent = 1
            child = state.clone()
            child.apply_action(action)
            values[action] = self.expected_values(child, seat, 1, share)[seat]
        return values

    def _is_spent(self, ceiling: int) -> bool:
        if self._spent >= ceiling:
            return True
        if self._deadline is not None and time.perf_counter() >= self._deadline:
            self.cut_short = True
            return True
        return False

    def expected_values(self, state: State, mover: int, depth: int, ceiling: int) -> list[float]:
        """Every seat's expected evaluation once the move that `mover` started is over, expanding positions
        only while fewer than `ceiling` have been reached in this action's lookahead."""
        player = state.current_player()
        if player == TERMINAL:
            return state.returns()
        if depth >= self.max_depth or self._is_boundary(state, player, mover) or self._is_spent(ceiling):
            return self.knowledge.values(state)
        if player == CHANCE:
            return self._expected_over_outcomes(state, mover, depth, ceiling)
        # A later choice inside the move: its maker takes the option that looks best one step on.
        legal = state.legal_actions()
        affordable = (ceiling - self._spent) // len(legal)  # positions each option may take to be judged
        if affordable < 1:
            return self.knowledge.values(state)
        best_child, best_value = state, -float("inf")
        for action in legal:
            child = state.clone()
            child.apply_action(action)
            self._spent += 1
            value = self.one_step_value(child, player, affordable - 1)
            if value > best_value:
                best_child, best_value = child, value
        return self.expected_values(best_child, mover, depth + 1, ceiling)

    def _expected_over_outcomes(self, state: State, mover: int, depth: int, ceiling: int) -> list[float]:
        """expected_values at a chance node: the outcomes' values weighed by their chances, each outcome's
        lookahead given an equal share of the positions left."""
        outcomes = self._outcomes(state, ceiling - self._spent)
        totals = [0.0] * self.game.num_seats
        for left, (outcome, probability) in zip(range(len(outcomes), 0, -1), outcomes):
            child_ceiling = self._spent + max(1, (ceiling - self._spent) // left)
            child = state.clone()
            child.apply_action(outcome)
            self._spent += 1
            for seat, value in enumerate(self.expected_values(child, mover, depth + 1, child_ceiling)):
                totals[seat] += probability * value
        return totals

    def one_step_value(self, state: State, seat: int, outcomes_affordable: int) -> float:
        """The evaluation of `state` for `seat`, averaged over the chance outcome it waits for, if any (at
        most `outcomes_affordable` outcomes, at least one)."""
        player = state.current_player()
        if player == TERMINAL:
            return state.returns()[seat]
        if player != CHANCE:
            return self.knowledge.values(state)[seat]
        total = 0.0
        for outcome, probability in self._outcomes(state, outcomes_affordable):
            child = state.clone()
            child.apply_action(outcome)
            self._spent += 1
            total += probability * (child.returns()[seat] if child.current_player() == TERMINAL
                                    else self.knowledge.values(child)[seat])
        return total

    def _outcomes(self, state: State, affordable: int) -> list[tuple[int, float]]:
        """All chance outcomes with their probabilities, or an equally weighted seeded sample of them when
        there are more than `chance_outcomes` or than `affordable` (at least one is drawn)."""
        outcomes = state.chance_outcomes()
        most = max(1, min(self.chance_outcomes, affordable))
        if len(outcomes) <= most:
            return outcomes
        drawn = [state.sample_chance(self.rng) for _ in range(most)]
        return [(outcome, 1.0 / len(drawn)) for outcome in drawn]

    def _is_boundary(self, state: State, player: int, mover: int) -> bool:
        boundary = self.knowledge.is_lookahead_boundary
        if boundary is not None:
            return boundary(state)
        return player != CHANCE and player != mover
