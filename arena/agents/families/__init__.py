"""Game knowledge per engine family: a position evaluation and a hand-written strategy.

Each engine package under `arena.games` (e.g. `arena.games.major_general`) may have a module of the
same name here (`arena.agents.families.major_general`) defining:

    evaluate(state, seat) -> float          value of a full state for `seat`, in [-1, 1]
    values(state) -> list[float]            (optional) every seat's value at once
    scripted_action(game, observation, legal_actions, rng) -> int
                                            (optional) a hand-written decision from the observation
    is_lookahead_boundary(state) -> bool    (optional) where greedy stops looking ahead

A game whose engine has no module here still works with greedy and mcts: its evaluation is the
neutral 0 until the game ends (so MCTS rollouts decide), and `scripted` says it has no strategy.
New engines join by adding a module; nothing else changes.
"""

from __future__ import annotations

import importlib
import random
from dataclasses import dataclass
from types import ModuleType
from typing import Callable, Optional

from arena.games.base import JSON, TERMINAL, Game, State

Values = Callable[[State], list[float]]
ScriptedPolicy = Callable[[Game, JSON, list[int], random.Random], int]
Boundary = Callable[[State], bool]


class NoStrategyError(LookupError):
    """The game's engine family has no hand-written strategy."""


@dataclass(frozen=True)
class FamilyKnowledge:
    """What the built-in agents know about one engine family."""

    engine: str
    values: Values
    scripted_action: Optional[ScriptedPolicy]
    is_lookahead_boundary: Optional[Boundary]
    has_evaluation: bool


def engine_of(game: Game) -> str:
    """The engine package that implements `game`, e.g. 'major_general'."""
    module = type(game).__module__
    prefix = "arena.games."
    if module.startswith(prefix):
        return module[len(prefix):].split(".")[0]
    return module.split(".")[0]


def neutral_values(state: State) -> list[float]:
    """Terminal returns at the end, 0 for every seat before it: no knowledge at all."""
    if state.current_player() == TERMINAL:
        return state.returns()
    return [0.0] * state.game.num_seats


def _values_from(module: ModuleType) -> Values:
    values = getattr(module, "values", None)
    if values is not None:
        return values
    evaluate = module.evaluate

    def per_seat(state: State) -> list[float]:
        return [evaluate(state, seat) for seat in range(state.game.num_seats)]

    return per_seat


_CACHE: dict[str, FamilyKnowledge] = {}


def knowledge_for(game: Game) -> FamilyKnowledge:
    """The knowledge for `game`'s engine family (neutral when no module exists)."""
    engine = engine_of(game)
    known = _CACHE.get(engine)
    if known is not None:
        return known
    try:
        module: ModuleType | None = importlib.import_module(f"{__name__}.{engine}")
    except ModuleNotFoundError as error:
        if error.name != f"{__name__}.{engine}":
            raise
        module = None
    if module is None:
        known = FamilyKnowledge(engine, neutral_values, None, None, False)
    else:
        known = FamilyKnowledge(
            engine,
            _values_from(module),
            getattr(module, "scripted_action", None),
            getattr(module, "is_lookahead_boundary", None),
            True,
        )
    _CACHE[engine] = known
    return known


def evaluate(state: State, seat: int) -> float:
    """The family evaluation of `state` for `seat` (terminal states: the returns)."""
    return knowledge_for(state.game).values(state)[seat]


def scripted_policy(game: Game) -> ScriptedPolicy:
    """The hand-written strategy for `game`; raises NoStrategyError when its family has none."""
    policy = knowledge_for(game).scripted_action
    if policy is None:
        raise NoStrategyError(
            f"no scripted strategy for {game.name} (engine {engine_of(game)!r}); "
            "add scripted_action() to arena/agents/families/" + engine_of(game) + ".py"
        )
    return policy
