"""Game knowledge per engine family: a position evaluation and a hand-written strategy.

A module here (one per family, e.g. `arena.agents.families.major_general`) names the engine modules
whose games it understands and defines:

    GAME_MODULES = ("arena.games.major_general.rules",)   modules of the Game classes it knows
    evaluate(state, seat) -> float          value of a full state for `seat`, in [-1, 1]
    values(state) -> list[float]            (optional) every seat's value at once
    scripted_action(game, observation, legal_actions, rng) -> int
                                            (optional) a hand-written decision from the observation
    is_lookahead_boundary(state) -> bool    (optional) where greedy stops looking ahead

A module that claims no engine (e.g. `_general_orders_common`, shared by the two General Orders
modules) is imported and passed over.

A game whose engine no module claims still works with greedy and mcts: its evaluation is the
neutral 0 until the game ends (so MCTS rollouts decide), and `scripted` says it has no strategy.
New engines join by adding a module; nothing else changes.
"""

from __future__ import annotations

import importlib
import pkgutil
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
    """The module that implements `game`, e.g. 'arena.games.major_general.rules'."""
    return type(game).__module__


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
_CLAIMS: dict[str, str] = {}  # engine module -> knowledge module


def _claims() -> dict[str, str]:
    """Which knowledge module claims which engine module (read once from the modules here)."""
    if not _CLAIMS:
        for info in pkgutil.iter_modules(__path__):
            module = importlib.import_module(f"{__name__}.{info.name}")
            for engine in getattr(module, "GAME_MODULES", ()):
                _CLAIMS[engine] = module.__name__
        _CLAIMS.setdefault("", "")  # read once even when nothing claims anything
    return _CLAIMS


def knowledge_for(game: Game) -> FamilyKnowledge:
    """The knowledge for `game`'s engine (neutral when no module here claims it)."""
    engine = engine_of(game)
    known = _CACHE.get(engine)
    if known is not None:
        return known
    module_name = _claims().get(engine)
    if not module_name:
        known = FamilyKnowledge(engine, neutral_values, None, None, False)
    else:
        module = importlib.import_module(module_name)
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
            f"no scripted strategy for {game.name} (engine {engine_of(game)}): a module in "
            "arena/agents/families/ must claim it in GAME_MODULES and define scripted_action()"
        )
    return policy
