"""What the built-in agents know of a game family: its evaluation and its hand-written strategy.

A family declares its knowledge module (arena.games.family.GameFamily.knowledge), which defines:

    evaluate(state, seat) -> float          value of a full state for `seat`, in [-1, 1]
    values(state) -> list[float]            (optional) every seat's value at once
    scripted_action(game, observation, legal_actions, rng) -> int
                                            (optional) a hand-written decision from the observation
    is_lookahead_boundary(state) -> bool    (optional) where greedy stops looking ahead
    value_features(state) -> list[float]    (optional) what the luck's value model reads (arena.luck)
    settle(state) -> State                  (optional) a chance outcome's own consequence played out
    outcome_features(state, outcomes) -> list[list[float]] | None
                                            (optional, for a family that does not settle) value_features after
                                            each outcome of a chance event, read off one outcome played where they
                                            differ in one thing (a card drawn into a hand); None where the family
                                            cannot (each outcome is then played and read)
    turn_values(state) -> list[float]       (optional) every seat's value with the turn to come credited to the
                                            side that plays it (the analysis' searches, arena/analysis/match.py,
                                            whose leaves fall on either side's turn; the players keep `values`)

A family without one still plays with greedy and mcts: its evaluation is the neutral 0 until the
game ends (so MCTS rollouts decide), and `scripted` says it has no strategy.
"""

from __future__ import annotations

import importlib
import random
from dataclasses import dataclass, replace
from types import ModuleType
from typing import Callable, Optional, Sequence

from arena.games.base import JSON, TERMINAL, Game, State
from arena.games.registry import UnknownGameError, family_of

Values = Callable[[State], list[float]]
ScriptedPolicy = Callable[[Game, JSON, list[int], random.Random], int]
Boundary = Callable[[State], bool]
Features = Callable[[State], list[float]]
Settle = Callable[[State], State]
OutcomeFeatures = Callable[[State, Sequence[int]], Optional[list[list[float]]]]


class NoStrategyError(LookupError):
    """The game's family has no hand-written strategy."""


@dataclass(frozen=True)
class FamilyKnowledge:
    """What the built-in agents know about one game family."""

    family: str
    values: Values
    scripted_action: Optional[ScriptedPolicy]
    is_lookahead_boundary: Optional[Boundary]
    has_evaluation: bool
    value_features: Optional[Features] = None
    settle: Optional[Settle] = None
    turn_values: Optional[Values] = None
    outcome_features: Optional[OutcomeFeatures] = None

    def turn_aware(self) -> FamilyKnowledge:
        """This knowledge valuing positions by its `turn_values` where the family has them (else itself)."""
        return self if self.turn_values is None else replace(self, values=self.turn_values)


def neutral_values(state: State) -> list[float]:
    """Terminal returns at the end, 0 for every seat before it: no knowledge at all."""
    if state.current_player() == TERMINAL:
        return state.returns()
    return [0.0] * state.game.num_seats


def _values_from(module: ModuleType) -> Values:
    values = getattr(module, "values", None)
    if values is not None:
        given: Values = values
        return given
    evaluate = module.evaluate

    def per_seat(state: State) -> list[float]:
        return [evaluate(state, seat) for seat in range(state.game.num_seats)]

    return per_seat


_CACHE: dict[str, FamilyKnowledge] = {}


def knowledge_for(game: Game) -> FamilyKnowledge:
    """The knowledge of `game`'s family (neutral when the family declares none)."""
    known = _CACHE.get(game.name)
    if known is not None:
        return known
    try:
        declared = family_of(game.name)
        name, module_name = declared.name, declared.knowledge
    except UnknownGameError:  # a game built outside the registry (a test's): no knowledge
        name, module_name = game.name, None
    if not module_name:
        known = FamilyKnowledge(name, neutral_values, None, None, False)
    else:
        module = importlib.import_module(module_name)
        known = FamilyKnowledge(name, _values_from(module), getattr(module, "scripted_action", None),
                                getattr(module, "is_lookahead_boundary", None), True,
                                getattr(module, "value_features", None), getattr(module, "settle", None),
                                getattr(module, "turn_values", None), getattr(module, "outcome_features", None))
    _CACHE[game.name] = known
    return known


def evaluate(state: State, seat: int) -> float:
    """The family evaluation of `state` for `seat` (terminal states: the returns)."""
    return knowledge_for(state.game).values(state)[seat]


def scripted_policy(game: Game) -> ScriptedPolicy:
    """The hand-written strategy for `game`; raises NoStrategyError when its family has none."""
    policy = knowledge_for(game).scripted_action
    if policy is None:
        raise NoStrategyError(
            f"no scripted strategy for {game.name}: its game family declares no knowledge module with a "
            "scripted_action() (arena.games.family.GameFamily.knowledge)")
    return policy
